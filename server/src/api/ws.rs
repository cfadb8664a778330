//! The WebSocket stream, `GET /api/sessions/{id}/ws?role=view|control`.
//!
//! One task per connection. It waits on the session's `watch` of screens and
//! sends each viewer only what it lacks (see [`crate::stream`]); while its
//! socket is slow it simply does not look, so it skips screens and the
//! session never waits for it. Client messages are decoded with
//! `panecast-proto` and turned into input by the session actor, with the
//! terminal's current modes.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::QueryRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::Extension;
use panecast_proto::{self as proto, close, ClientMessage, Role, ServerMessage};
use serde::Deserialize;
use tokio::time::error::Elapsed;
use tokio::time::{interval_at, timeout, timeout_at, Instant, MissedTickBehavior};
use tracing::Instrument;

use super::error::{ApiError, ErrorBody};
use super::guard::{stream_role, Caller, PROTOCOL};
use super::origin::OriginRefusal;
use super::{audit, AppState};
use crate::access::{Role as AccessRole, ViewerGuard};
use crate::config::ClipboardAccess;
use crate::input::{Key, KeyCode, KeyEvent, ModifierKey, Modifiers};
use crate::session::{
    EndReason, Input, SessionError, SessionHandle, Sessions, Status, StreamRefusal, ViewerSlot,
};
use crate::stream::{rebase_scrollback, FrameCache, ViewerState};
use crate::term::Snapshot;

/// A connection that sends nothing (not even a pong) for this many ping
/// intervals (`limits.ping_interval_ms`) is dead; so is one whose socket
/// has not taken a message for as long.
const DEAD_AFTER_PINGS: u32 = 3;
/// The clipboard text the terminal keeps always fits a `Clipboard` message.
const _: () = assert!(crate::term::MAX_CLIPBOARD <= panecast_proto::limits::MAX_CLIPBOARD);
/// How long closing may take: sending the `Error` and the close, and
/// waiting for the client's close in answer.
const CLOSE_WAIT: Duration = Duration::from_secs(2);
/// Frames up to this size are read whole, so that a message over the 1 MiB
/// limit is refused (1009) with the stream still in step, and the client,
/// which is done sending, reads the close. A bigger frame is refused from
/// its header, unread: the close is sent, but a client still busy sending
/// the rest may see the connection reset instead.
const FRAME_LIMIT: usize = 2 * proto::limits::MAX_CLIENT_MESSAGE;
/// The socket's read buffer: clients send little (tungstenite's default of
/// 128 KiB a connection adds up with hundreds of viewers).
const READ_BUFFER: usize = 4096;
/// A frame piece the socket has not taken for this long means the client
/// has stopped reading: the viewer lets go of the rest of the frame rather
/// than hold it (a piece is at most 16,384 cells of rows, some 20 KiB of
/// text, so a client that reads at all takes one well within this). Each
/// frame given up in a row doubles the wait for the next, so a client that
/// reads, however slowly, ends up with a whole frame.
const STALLED_AFTER: Duration = Duration::from_secs(1);
/// WebSocket close reasons are limited to 123 bytes.
const MAX_CLOSE_REASON: usize = 123;
/// The query of the upgrade request.
#[derive(Deserialize)]
pub struct WsQuery {
    role: Option<String>,
}

/// The answer to a request on a stream route that is not a WebSocket
/// upgrade: 426, as JSON like every other error.
pub(super) fn not_an_upgrade(rejection: WebSocketUpgradeRejection) -> ApiError {
    ApiError::new(
        StatusCode::UPGRADE_REQUIRED,
        "upgrade_required",
        rejection.body_text(),
    )
}

/// Checks the origin (for a cookie-borne credential) and the role, then
/// upgrades. The guard has authenticated the caller and found the session
/// within its scope.
#[utoipa::path(
    get,
    path = "/api/sessions/{id}/ws",
    params(
        ("id" = String, Path, description = "The session's id or name"),
        ("role" = Option<String>, Query, description = "`control` (default) or `view`"),
    ),
    responses(
        (status = 101, description = "Switching to the WebSocket stream (proto/PROTOCOL.md); closed at once with 4006 and why when a cookie-borne credential comes from another origin"),
        (status = 400, description = "bad_role, bad_query", body = ErrorBody),
        (status = 426, description = "upgrade_required: not a WebSocket upgrade request", body = ErrorBody),
    )
)]
pub async fn upgrade(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Extension(session): Extension<SessionHandle>,
    query: Result<Query<WsQuery>, QueryRejection>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::bad_request("bad_query", e.body_text()))?;
    let ws = ws.map_err(not_an_upgrade)?;
    if let Err(refused) = caller.check_stream_origin(&headers, &state.config.allowed_origins) {
        return Ok(refuse_origin(ws, PROTOCOL, refused));
    }
    let asked = match query.role.as_deref() {
        None | Some("control") => AccessRole::Control,
        Some("view") => AccessRole::View,
        Some(other) => {
            return Err(ApiError::bad_request(
                "bad_role",
                format!("role must be 'view' or 'control', not '{other}'"),
            ))
        }
    };
    let role = stream_role(caller.grant(), asked);
    let clipboard =
        state.config.clipboard == ClipboardAccess::Control && role.wire() == Role::Control;
    let files = role.wire() == Role::Control
        && super::files::enabled(&state, session.info().profile.as_deref());
    let ping_every = state.config.limits.ping_interval();
    let sessions = std::sync::Arc::clone(&state.sessions);
    Ok(ws
        .protocols([PROTOCOL])
        .read_buffer_size(READ_BUFFER)
        .max_message_size(proto::limits::MAX_CLIENT_MESSAGE)
        .max_frame_size(FRAME_LIMIT)
        .on_upgrade(move |mut socket| async move {
            let joined = sessions.join_stream(
                &session,
                caller.grant().credential(),
                role.wire(),
                caller.badge(),
            );
            match joined {
                Ok(slot) => {
                    Viewer::new(socket, session, caller, role, slot, ping_every, sessions)
                        .with_clipboard(clipboard)
                        .with_files(files)
                        .run()
                        .await
                }
                Err(refusal) => refuse(&mut socket, refusal).await,
            }
        }))
}

/// Answers an upgrade whose Origin was refused: accepted only to be closed
/// at once with 4006 (an `Error` and the close, both saying what would
/// allow it), since a page's WebSocket cannot read an HTTP refusal's body
/// and would retry it for ever. Nothing of the session is sent.
pub(super) fn refuse_origin(
    ws: WebSocketUpgrade,
    protocol: &'static str,
    refused: OriginRefusal,
) -> Response {
    ws.protocols([protocol])
        .on_upgrade(move |mut socket| async move {
            let ending = Ending::error(close::ORIGIN_FORBIDDEN, refused.fix());
            close_with(&mut socket, ending).await;
        })
}

/// Closes a stream that found no place among the session's viewers: 4029
/// with the reason.
pub(super) async fn refuse(socket: &mut WebSocket, refusal: StreamRefusal) {
    let ending = Ending::error(close::TOO_MANY_VIEWERS, refusal.to_string());
    close_with(socket, ending).await;
}

/// Why a connection ends, and how to close it.
#[derive(Debug, PartialEq, Eq)]
struct Ending {
    code: u16,
    reason: String,
    /// Send an `Error` with the code and reason before the close.
    explain: bool,
    /// False when the socket is gone or stuck: nothing more is sent.
    close: bool,
}

impl Ending {
    /// An error the client is told about, then closed with.
    fn error(code: u16, reason: impl Into<String>) -> Ending {
        Ending {
            code,
            reason: reason.into(),
            explain: true,
            close: true,
        }
    }

    /// A close with no `Error` before it.
    fn quiet(code: u16, reason: &str) -> Ending {
        Ending {
            code,
            reason: reason.to_string(),
            explain: false,
            close: true,
        }
    }

    /// The socket is closed, broken or stuck: just drop it.
    fn gone() -> Ending {
        Ending {
            code: close::NORMAL,
            reason: String::new(),
            explain: false,
            close: false,
        }
    }
}

/// Ends a connection: the `Error` (if any), the close, then the client's
/// close in answer (read and dropped), all within [`CLOSE_WAIT`].
async fn close_with(socket: &mut WebSocket, ending: Ending) {
    if !ending.close {
        return;
    }
    let deadline = Instant::now() + CLOSE_WAIT;
    if ending.explain {
        let error = ServerMessage::Error {
            code: ending.code,
            message: clip(&ending.reason, proto::limits::MAX_ERROR_MESSAGE).to_string(),
        };
        let _ = timeout_at(
            deadline,
            socket.send(Message::Binary(error.encode().into())),
        )
        .await;
    }
    let frame = CloseFrame {
        code: ending.code,
        reason: clip(&ending.reason, MAX_CLOSE_REASON).into(),
    };
    let _ = timeout_at(deadline, socket.send(Message::Close(Some(frame)))).await;
    // Reading on to the client's close keeps the connection from being
    // reset under the close frame. (After a read error there is nothing
    // more to read, and this ends at once.)
    let _ = timeout_at(deadline, async {
        while let Some(Ok(message)) = socket.recv().await {
            if matches!(message, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}

/// The longest prefix of `text` of at most `max` bytes that ends on a
/// character boundary.
fn clip(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// One connection.
pub(super) struct Viewer {
    socket: WebSocket,
    session: SessionHandle,
    caller: Caller,
    role: AccessRole,
    state: ViewerState,
    cache: std::sync::Arc<FrameCache>,
    heard: Instant,
    /// Whether OSC 52 writes are passed on to this connection.
    clipboard: bool,
    /// Whether file offers (OSC 1337 File) are passed on to it.
    files: bool,
    ping_every: Duration,
    /// The registry, for its metrics.
    sessions: std::sync::Arc<Sessions>,
    /// The session's publish count when this viewer last caught up.
    seen: Option<u64>,
    /// How long a piece may wait on the socket before the rest of its
    /// frame is given up: [`STALLED_AFTER`], doubled for each frame given
    /// up in a row.
    stalled_after: Duration,
    /// Its place among the session's viewers and in its room.
    slot: ViewerSlot,
    _link: Option<ViewerGuard>,
}

impl Viewer {
    /// A connection of `caller` with `role` to `session`, holding `slot`.
    pub(super) fn new(
        socket: WebSocket,
        session: SessionHandle,
        caller: Caller,
        role: AccessRole,
        slot: ViewerSlot,
        ping_every: Duration,
        sessions: std::sync::Arc<Sessions>,
    ) -> Viewer {
        Viewer {
            socket,
            cache: session.frame_cache(),
            session,
            _link: caller.grant().link_ticket().map(|t| t.watching()),
            caller,
            role,
            state: ViewerState::new(),
            heard: Instant::now(),
            clipboard: false,
            files: false,
            seen: None,
            stalled_after: STALLED_AFTER,
            ping_every,
            sessions,
            slot,
        }
    }

    /// Passes OSC 52 clipboard writes on to this connection (or not).
    fn with_clipboard(mut self, clipboard: bool) -> Viewer {
        self.clipboard = clipboard;
        self
    }

    /// Passes file offers (OSC 1337 File) on to this connection (or not).
    fn with_files(mut self, files: bool) -> Viewer {
        self.files = files;
        self
    }

    /// The connection's life in a span naming its session, role and
    /// credential (never its secret).
    pub(super) async fn run(self) {
        let span = tracing::info_span!(
            "stream",
            session = %self.session.id(),
            role = %self.role,
            credential = %self.caller.grant().credential(),
        );
        self.run_in_span().instrument(span).await;
    }

    async fn run_in_span(mut self) {
        let (peer, credential) = (self.caller.peer(), self.caller.grant().credential().clone());
        audit::stream_opened(peer, &credential, self.role, self.session.id());
        let ending = match self.stream().await {
            Ok(never) => match never {},
            Err(ending) => ending,
        };
        audit::stream_closed(peer, &credential, self.role, self.session.id(), ending.code);
        tracing::debug!(code = ending.code, reason = %ending.reason, "stream closed");
        close_with(&mut self.socket, ending).await;
    }

    /// How long a peer may stay silent, or its socket full, before it is
    /// taken for dead.
    fn dead_after(&self) -> Duration {
        self.ping_every * DEAD_AFTER_PINGS
    }

    /// Sends one message. A socket that has not taken it after
    /// [`Viewer::dead_after`] belongs to a dead peer.
    async fn send(&mut self, message: Message) -> Result<(), Ending> {
        let binary = binary_len(&message);
        let result = timeout(self.dead_after(), self.socket.send(message)).await;
        self.sent(result, binary)
    }

    /// What a send came to: a binary message of `binary` bytes is counted
    /// once it went out; the connection ends when the socket broke or
    /// stayed full.
    fn sent(
        &self,
        result: Result<Result<(), axum::Error>, Elapsed>,
        binary: Option<usize>,
    ) -> Result<(), Ending> {
        match result {
            Ok(Ok(())) => {
                if let Some(bytes) = binary {
                    self.sessions.metrics().stream_message_sent(bytes);
                }
                Ok(())
            }
            Ok(Err(_)) | Err(_) => Err(Ending::gone()),
        }
    }

    async fn send_message(&mut self, message: ServerMessage) -> Result<(), Ending> {
        self.send(Message::Binary(message.encode().into())).await
    }

    /// Counts the screens published since this viewer last caught up that
    /// it never got: a slow viewer skips to the latest.
    fn count_skipped(&mut self) {
        let now = self.session.published();
        if let Some(seen) = self.seen {
            let skipped = now.saturating_sub(seen + 1);
            if skipped > 0 {
                self.sessions.metrics().frames_skipped(skipped);
            }
        }
        self.seen = Some(now);
    }

    /// Sends what brings the client to `screen` (nothing if it has it).
    /// A frame's pieces stay shared with the other viewers until each is
    /// written, as the socket takes the one before. The screen itself is
    /// let go before anything is sent, so a viewer whose socket has stopped
    /// taking messages does not keep an old screen alive; and one whose
    /// socket has not taken a piece for a while ([`STALLED_AFTER`]) lets go of the
    /// rest of the frame too, and is sent the screen whole once its socket
    /// takes the piece it was on.
    async fn update(&mut self, screen: Arc<Snapshot>) -> Result<(), Ending> {
        self.send_frame(screen).await?;
        // A frame given up on is made good as soon as the socket takes
        // messages again: with the screen as it is now, whole.
        while self.state.is_partial() {
            self.send_frame(self.session.screen()).await?;
        }
        Ok(())
    }

    /// Sends the messages that bring the client to `screen`, giving up the
    /// rest of the frame if the socket stops taking its pieces.
    async fn send_frame(&mut self, screen: Arc<Snapshot>) -> Result<(), Ending> {
        let mut out = Vec::new();
        self.state.update_lazily(&screen, &self.cache, &mut out);
        drop(screen);
        let mut rest = VecDeque::from(out);
        while let Some(message) = rest.pop_front() {
            let message = Message::Binary(message.into_bytes().into());
            let binary = binary_len(&message);
            let dead_after = self.dead_after();
            let result = {
                let sent = timeout(dead_after, self.socket.send(message));
                tokio::pin!(sent);
                let stalled = tokio::time::sleep(self.stalled_after);
                tokio::pin!(stalled);
                let mut waiting = true;
                loop {
                    tokio::select! {
                        result = &mut sent => break result,
                        () = &mut stalled, if waiting => {
                            waiting = false;
                            self.state.give_up_rest(&mut rest);
                            self.stalled_after = (self.stalled_after * 2).min(dead_after);
                            // What this viewer alone held of the frame is
                            // freed now, on a worker's arena: given back.
                            crate::session::release_freed_memory_soon();
                        }
                    }
                }
            };
            self.sent(result, binary)?;
        }
        if !self.state.is_partial() {
            self.stalled_after = STALLED_AFTER;
        }
        Ok(())
    }

    /// The connection's life, until it ends (the error says how).
    async fn stream(&mut self) -> Result<std::convert::Infallible, Ending> {
        let mut screens = self.session.subscribe();
        let mut status = self.session.watch_status();
        // A session that has already exited says so at once.
        status.mark_changed();
        // Only the size: an old screen held here would stay alive as long
        // as the connection.
        let (cols, rows) = {
            let first = self.session.screen();
            (first.cols, first.rows)
        };
        let link = self.caller.grant().link_ticket().cloned();
        let revoked = async {
            match &link {
                Some(ticket) => ticket.ended().await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(revoked);
        self.send_message(ServerMessage::Hello(proto::Hello {
            version: proto::PROTOCOL_VERSION,
            session_id: self.session.id().to_string(),
            role: self.role.wire(),
            cols,
            rows,
        }))
        .await?;
        let mut ping = interval_at(Instant::now() + self.ping_every, self.ping_every);
        ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut room = self.session.watch_room();
        let mut clipboard = self.session.watch_clipboard();
        let mut offers = self.session.watch_file_offers();
        room.mark_changed();
        let mut replay = self.session.watch_replay();
        if let Some(replay) = replay.as_mut() {
            replay.mark_changed();
        }
        // Presence and the room follow the first frame.
        let mut framed = false;
        let mut restart = self.sessions.watch_restart();
        restart.mark_changed();
        loop {
            tokio::select! {
                Ok(()) = restart.changed() => {
                    if *restart.borrow_and_update() {
                        return Err(Ending::quiet(close::SERVICE_RESTART, "the server restarts; reconnect"));
                    }
                },
                message = self.socket.recv() => match message {
                    None => return Err(Ending::gone()),
                    Some(Err(error)) => return Err(receive_error(&error)),
                    Some(Ok(message)) => {
                        self.heard = Instant::now();
                        self.client_message(message).await?;
                    }
                },
                changed = status.changed() => {
                    if changed.is_err() || !status.borrow_and_update().running() {
                        return Err(self.ended().await);
                    }
                },
                changed = screens.changed() => {
                    if changed.is_err() {
                        return Err(self.ended().await);
                    }
                    let screen = screens.borrow_and_update().clone();
                    self.count_skipped();
                    self.update(screen).await?;
                    framed = true;
                },
                changed = room.changed(), if framed => {
                    // The sender lives in the session handle this viewer holds.
                    if changed.is_ok() {
                        let (presence, listing) = {
                            let now = room.borrow_and_update();
                            (now.presence(), now.listing(Some(self.slot.member())))
                        };
                        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
                        self.send_message(ServerMessage::Presence {
                            view: count(presence.view),
                            control: count(presence.control),
                        })
                        .await?;
                        self.send_message(ServerMessage::Room(listing)).await?;
                    }
                },
                changed = replay_changed(replay.as_mut()), if framed => {
                    if let (Ok(()), Some(replay)) = (changed, replay.as_mut()) {
                        let state = replay.borrow_and_update().clone();
                        self.send_message(ServerMessage::ReplayState(state)).await?;
                    }
                },
                changed = clipboard.changed(), if self.clipboard => {
                    let text = clipboard.borrow_and_update().clone();
                    if let (Ok(()), Some(text)) = (changed, text) {
                        self.send_message(ServerMessage::Clipboard { text: text.to_string() }).await?;
                    }
                },
                changed = offers.changed(), if self.files => {
                    let offer = offers.borrow_and_update().clone();
                    if let (Ok(()), Some(offer)) = (changed, offer) {
                        self.send_message(ServerMessage::FileOffer {
                            name: offer.name.clone(),
                            data: offer.data.clone(),
                        })
                        .await?;
                    }
                },
                () = &mut revoked => {
                    return Err(Ending::error(close::ACCESS_REVOKED, "access ended: the link was revoked or expired"));
                },
                _ = ping.tick() => {
                    if self.heard.elapsed() > self.dead_after() {
                        return Err(Ending::quiet(close::IDLE_TIMEOUT, "no answer to pings"));
                    }
                    self.send(Message::Ping(Default::default())).await?;
                },
            }
        }
    }

    /// The session is over: the final screen, the exit, and the close code
    /// that says why.
    async fn ended(&mut self) -> Ending {
        let screen = self.session.screen();
        if let Err(ending) = self.update(screen).await {
            return ending;
        }
        let reason = self.session.end_reason();
        // Of a session whose node is gone, nothing is known of how its
        // program ended: no `Exit`.
        if reason != EndReason::NodeGone {
            let code = match self.session.status() {
                Status::Exited { status, .. } if status.signal.is_none() => {
                    status.code.map(|c| c as i32)
                }
                _ => None,
            };
            if let Err(ending) = self.send_message(ServerMessage::Exit { code }).await {
                return ending;
            }
        }
        match reason {
            EndReason::Exited => Ending::quiet(close::SESSION_ENDED, "the program exited"),
            EndReason::Deleted => Ending::quiet(close::SESSION_DELETED, "the session was deleted"),
            EndReason::ShutDown => Ending::quiet(close::GOING_AWAY, "the server is shutting down"),
            EndReason::NodeGone => Ending::quiet(close::NODE_GONE, "the session's node is gone"),
        }
    }

    /// Handles one message from the client.
    async fn client_message(&mut self, message: Message) -> Result<(), Ending> {
        let bytes = match message {
            Message::Binary(bytes) => bytes,
            Message::Text(_) => {
                return Err(Ending::error(
                    close::UNSUPPORTED_DATA,
                    "text messages are not part of the protocol",
                ))
            }
            Message::Close(_) => return Err(Ending::quiet(close::NORMAL, "closed")),
            Message::Ping(_) | Message::Pong(_) => return Ok(()),
        };
        let message = ClientMessage::decode(&bytes)
            .map_err(|e| Ending::error(e.close_code(), e.to_string()))?;
        let replay = self.session.is_replay();
        if !message.allowed_for(self.role.wire(), replay) {
            let reason = match (&message, replay) {
                (ClientMessage::Replay(_), false) => "replay controls need a replay",
                (_, true) => "a replay takes no input",
                (_, false) => "a view connection cannot send input",
            };
            return Err(Ending::error(close::POLICY_VIOLATION, reason));
        }
        let input = match message {
            ClientMessage::Ping { token } => {
                return self.send_message(ServerMessage::Pong { token }).await;
            }
            ClientMessage::Replay(control) => {
                // An error means the replay is over; the status says so next.
                let _ = self.session.control_replay(control).await;
                return Ok(());
            }
            ClientMessage::ScrollbackRequest { start, count } => {
                let who = self.caller.reader();
                let lines = match self.session.scrollback(start, count, &who).await {
                    Ok(lines) => lines,
                    Err(SessionError::ReadsPaced) => {
                        return self.warn(&SessionError::ReadsPaced.to_string()).await;
                    }
                    // The session is over; the status says so next.
                    Err(_) => return Ok(()),
                };
                // Index the lines from the screen this client was last sent.
                self.update(self.session.screen()).await?;
                let shown = self.state.scroll_count().unwrap_or(lines.scroll_count);
                let answer = rebase_scrollback(lines.answer, lines.scroll_count, shown);
                let mut out = Vec::new();
                self.state.define_answer_styles(&lines.styles, &mut out);
                for message in out {
                    self.send(Message::Binary(message.into())).await?;
                }
                return self.send_message(ServerMessage::Scrollback(answer)).await;
            }
            ClientMessage::Theme { theme } => {
                self.session.set_theme(self.role.wire(), theme).await;
                return Ok(());
            }
            ClientMessage::Resize { cols, rows } => {
                let resized = self.session.resize_window(&self.slot, cols, rows).await;
                return match resized {
                    Ok(()) | Err(SessionError::Exited) => Ok(()),
                    Err(error) => self.warn(&error.to_string()).await,
                };
            }
            ClientMessage::TakeControl => {
                return match self.session.take_control(&self.slot).await {
                    Ok(()) | Err(SessionError::Exited) => Ok(()),
                    Err(error) => self.warn(&error.to_string()).await,
                };
            }
            ClientMessage::Key { key, mods, event } => match wire_key(key, mods, event) {
                Some(key) => Input::Keys(vec![key]),
                None => return Ok(()),
            },
            ClientMessage::Text { text } => Input::Bytes(text.into_bytes()),
            ClientMessage::Paste { text } => Input::Paste(text),
            ClientMessage::Mouse(event) => Input::Mouse(event),
            ClientMessage::Focus { focused } => Input::Focus(focused),
        };
        match self.session.send_input(input).await {
            Ok(()) | Err(SessionError::Exited) => Ok(()),
            Err(error) => self.warn(&error.to_string()).await,
        }
    }

    /// Tells the client some input was dropped; the connection stays.
    async fn warn(&mut self, message: &str) -> Result<(), Ending> {
        self.send_message(ServerMessage::Error {
            code: close::INPUT_DROPPED,
            message: message.to_string(),
        })
        .await
    }
}

/// The length of a binary message (what the stream metrics count).
fn binary_len(message: &Message) -> Option<usize> {
    match message {
        Message::Binary(bytes) => Some(bytes.len()),
        _ => None,
    }
}

/// Waits for the replay's next state; never, for a live session.
async fn replay_changed(
    replay: Option<&mut tokio::sync::watch::Receiver<proto::ReplayState>>,
) -> Result<(), tokio::sync::watch::error::RecvError> {
    match replay {
        Some(replay) => replay.changed().await,
        None => std::future::pending().await,
    }
}

/// The close for an error reading the socket: a message over the size
/// limit is 1009, a WebSocket protocol error 1002; anything else means the
/// connection broke. (axum wraps the WebSocket library's error, which is
/// matched by its type.)
fn receive_error(error: &axum::Error) -> Ending {
    use std::error::Error as _;
    use tokio_tungstenite::tungstenite::error::{CapacityError, Error as WsError};
    match error.source().and_then(|e| e.downcast_ref::<WsError>()) {
        Some(WsError::Capacity(CapacityError::MessageTooLong { .. })) => Ending::error(
            close::MESSAGE_TOO_BIG,
            "message too big: the limit is 1 MiB",
        ),
        Some(WsError::Protocol(e)) => Ending::error(
            close::PROTOCOL_ERROR,
            clip(&format!("WebSocket protocol error: {e}"), MAX_CLOSE_REASON).to_string(),
        ),
        _ => Ending::gone(),
    }
}

/// A key event from the wire as a key the session encodes; keypad keys are
/// sent as the characters they type.
fn wire_key(key: proto::Key, mods: proto::Modifiers, event: proto::KeyEvent) -> Option<Key> {
    use proto::NamedKey as N;
    let code = match key {
        proto::Key::Char(' ') => KeyCode::Space,
        proto::Key::Char(c) => KeyCode::Char(c),
        proto::Key::Named(named) => match named {
            N::Enter | N::KpEnter => KeyCode::Enter,
            N::Tab => KeyCode::Tab,
            N::Backspace => KeyCode::Backspace,
            N::Escape => KeyCode::Escape,
            N::Up => KeyCode::Up,
            N::Down => KeyCode::Down,
            N::Left => KeyCode::Left,
            N::Right => KeyCode::Right,
            N::Home => KeyCode::Home,
            N::End => KeyCode::End,
            N::PageUp => KeyCode::PageUp,
            N::PageDown => KeyCode::PageDown,
            N::Insert => KeyCode::Insert,
            N::Delete => KeyCode::Delete,
            N::KpDecimal => KeyCode::Char('.'),
            N::KpDivide => KeyCode::Char('/'),
            N::KpMultiply => KeyCode::Char('*'),
            N::KpSubtract => KeyCode::Char('-'),
            N::KpAdd => KeyCode::Char('+'),
            N::KpEqual => KeyCode::Char('='),
            N::ShiftLeft => KeyCode::Modifier(ModifierKey::LeftShift),
            N::ShiftRight => KeyCode::Modifier(ModifierKey::RightShift),
            N::ControlLeft => KeyCode::Modifier(ModifierKey::LeftControl),
            N::ControlRight => KeyCode::Modifier(ModifierKey::RightControl),
            N::AltLeft => KeyCode::Modifier(ModifierKey::LeftAlt),
            N::AltRight => KeyCode::Modifier(ModifierKey::RightAlt),
            N::MetaLeft => KeyCode::Modifier(ModifierKey::LeftMeta),
            N::MetaRight => KeyCode::Modifier(ModifierKey::RightMeta),
            other => {
                let code = other.code();
                match code {
                    0x20..=0x37 => KeyCode::F(code - 0x1f),
                    0x40..=0x49 => KeyCode::Char((b'0' + code - 0x40) as char),
                    _ => return None,
                }
            }
        },
    };
    Some(Key {
        code,
        mods: Modifiers {
            shift: mods.contains(proto::Modifiers::SHIFT),
            alt: mods.contains(proto::Modifiers::ALT) || mods.contains(proto::Modifiers::META),
            ctrl: mods.contains(proto::Modifiers::CTRL),
        },
        event: match event {
            proto::KeyEvent::Press => KeyEvent::Press,
            proto::KeyEvent::Repeat => KeyEvent::Repeat,
            proto::KeyEvent::Release => KeyEvent::Release,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receive_errors_are_told_apart_by_type() {
        use tokio_tungstenite::tungstenite::error::{
            CapacityError, Error as WsError, ProtocolError,
        };
        let too_long = axum::Error::new(WsError::Capacity(CapacityError::MessageTooLong {
            size: 3 << 20,
            max_size: 2 << 20,
        }));
        assert_eq!(receive_error(&too_long).code, close::MESSAGE_TOO_BIG);
        let masked = axum::Error::new(WsError::Protocol(ProtocolError::UnmaskedFrameFromClient));
        let ending = receive_error(&masked);
        assert_eq!(ending.code, close::PROTOCOL_ERROR);
        assert!(ending.reason.len() <= MAX_CLOSE_REASON, "{}", ending.reason);
        let broken = axum::Error::new(WsError::ConnectionClosed);
        assert_eq!(receive_error(&broken), Ending::gone());
        // Text that merely mentions a protocol error is no protocol error.
        let io = axum::Error::new(std::io::Error::other("protocol error: Message too long"));
        assert_eq!(receive_error(&io), Ending::gone());
    }

    #[test]
    fn keys_from_the_wire() {
        let ctrl_c = wire_key(
            proto::Key::Char('c'),
            proto::Modifiers::CTRL,
            proto::KeyEvent::Press,
        )
        .unwrap();
        assert_eq!(ctrl_c.code, KeyCode::Char('c'));
        assert!(ctrl_c.mods.ctrl);
        let f5 = proto::Key::Named(proto::NamedKey::from_code(0x24).unwrap());
        assert_eq!(
            wire_key(f5, proto::Modifiers::NONE, proto::KeyEvent::Press)
                .unwrap()
                .code,
            KeyCode::F(5)
        );
        let kp7 = proto::Key::Named(proto::NamedKey::from_code(0x47).unwrap());
        assert_eq!(
            wire_key(kp7, proto::Modifiers::NONE, proto::KeyEvent::Press)
                .unwrap()
                .code,
            KeyCode::Char('7')
        );
        let release = wire_key(f5, proto::Modifiers::SHIFT, proto::KeyEvent::Release).unwrap();
        assert_eq!(release.event, KeyEvent::Release);
        assert!(release.mods.shift);
    }
}

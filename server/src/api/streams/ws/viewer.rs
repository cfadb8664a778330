//! One connection's life: the `Hello`, then a loop over the session's
//! screens, status, room, clipboard, offers and replay, the client's
//! messages and the keepalive pings, until something ends it.

use std::time::Duration;

use axum::extract::ws::{Message, WebSocket};
use panecast_proto::{self as proto, close, ServerMessage};
use tokio::time::{interval_at, Instant, MissedTickBehavior};
use tracing::Instrument;

use super::closing::{close_with, receive_error, Ending};
use super::echo::Echoes;
use super::Resuming;
use crate::access::{Role as AccessRole, ViewerGuard};
use crate::api::audit;
use crate::api::auth::caller::Caller;
use crate::session::{EndReason, SessionHandle, Sessions, Status, ViewerSlot};
use crate::stream::{Flow, FrameCache, ViewerState};

/// A connection that sends nothing (not even a pong) for this many ping
/// intervals (`limits.ping_interval_ms`) is dead; so is one whose socket
/// has not taken a message for as long.
const DEAD_AFTER_PINGS: u32 = 3;
/// The clipboard text the terminal keeps always fits a `Clipboard` message.
const _: () = assert!(panecast_term::MAX_CLIPBOARD <= panecast_proto::limits::MAX_CLIPBOARD);

/// A frame piece the socket has not taken for this long means the client
/// has stopped reading: the viewer lets go of the rest of the frame rather
/// than hold it (a piece is at most 16,384 cells of rows, some 20 KiB of
/// text, so a client that reads at all takes one well within this). Each
/// frame given up in a row doubles the wait for the next, so a client that
/// reads, however slowly, ends up with a whole frame.
pub(super) const STALLED_AFTER: Duration = Duration::from_secs(1);

/// One connection.
pub(in crate::api) struct Viewer {
    /// The connection.
    pub(super) socket: WebSocket,
    /// The session it streams.
    pub(super) session: SessionHandle,
    /// Who connected (for reads' shares and the audit).
    pub(super) caller: Caller,
    /// The connection's role.
    pub(super) role: AccessRole,
    /// What the client holds of the screen.
    pub(super) state: ViewerState,
    /// Frames encoded once for all the session's viewers.
    pub(super) cache: std::sync::Arc<FrameCache>,
    /// When the client last sent anything.
    heard: Instant,
    /// Whether OSC 52 writes are passed on to this connection.
    clipboard: bool,
    /// Whether file offers (OSC 1337 File) are passed on to it.
    files: bool,
    /// Whether it takes compressed frames.
    pub(super) deflate: bool,
    /// How often it is pinged.
    ping_every: Duration,
    /// The registry, for its metrics.
    pub(super) sessions: std::sync::Arc<Sessions>,
    /// The session's publish count when this viewer last caught up.
    pub(super) seen: Option<u64>,
    /// How long a piece may wait on the socket before the rest of its
    /// frame is given up: [`STALLED_AFTER`], doubled for each frame given
    /// up in a row.
    pub(super) stalled_after: Duration,
    /// Its place among the session's viewers and in its room.
    pub(super) slot: ViewerSlot,
    /// Its client's inputs and what it was last told of them.
    pub(super) echoes: Echoes,
    /// What it has on its way, and how much may be.
    pub(super) flow: Flow,
    /// Whether its client may predict the echo of what is typed (the
    /// session's profile may bar it).
    pub(super) predict: bool,
    /// Counts it among its share link's viewers, while it lasts.
    _link: Option<ViewerGuard>,
}

impl Viewer {
    /// A connection of `caller` with `role` to `session`, holding `slot`.
    pub(in crate::api) fn new(
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
            cache: session.attached::<crate::stream::FrameCache>(),
            session,
            _link: caller.grant().link_ticket().map(|t| t.watching()),
            caller,
            role,
            state: ViewerState::new(),
            heard: Instant::now(),
            clipboard: false,
            files: false,
            deflate: false,
            seen: None,
            stalled_after: STALLED_AFTER,
            ping_every,
            sessions,
            slot,
            echoes: Echoes::new(None, 1, 0),
            flow: Flow::new(),
            predict: true,
        }
    }

    /// Takes the client's id and input numbering, and the screen it holds
    /// (its first frame brings it from there).
    pub(super) fn resuming(mut self, resuming: Resuming) -> Viewer {
        let applied = resuming
            .client
            .map_or(0, |client| self.session.applied_input(client));
        self.echoes = Echoes::new(resuming.client, resuming.input, applied);
        if let Some(revision) = resuming.revision {
            self.state.resume_from(&revision, &self.session.screen());
        }
        self
    }

    /// Passes OSC 52 clipboard writes on to this connection (or not).
    pub(super) fn with_clipboard(mut self, clipboard: bool) -> Viewer {
        self.clipboard = clipboard;
        self
    }

    /// Passes file offers (OSC 1337 File) on to this connection (or not).
    pub(super) fn with_files(mut self, files: bool) -> Viewer {
        self.files = files;
        self
    }

    /// Lets its client predict echo (or bars it: `predict = false`).
    pub(super) fn with_prediction(mut self, predict: bool) -> Viewer {
        self.predict = predict;
        self
    }

    /// Sends this connection compressed frames (or not).
    pub(in crate::api) fn with_deflate(mut self, deflate: bool) -> Viewer {
        self.deflate = deflate;
        self
    }

    /// The connection's life in a span naming its session, role and
    /// credential (never its secret).
    pub(in crate::api) async fn run(self) {
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
    pub(super) fn dead_after(&self) -> Duration {
        self.ping_every * DEAD_AFTER_PINGS
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
        let mut discipline = self.session.watch_discipline();
        loop {
            let due = self.echoes.due();
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
                // A client that reports what it had is sent a frame only
                // while its window is open (PROTOCOL.md, "Flow control"): it
                // skips to the latest screen when its report comes.
                changed = screens.changed(), if self.flow.open() => {
                    if changed.is_err() {
                        return Err(self.ended().await);
                    }
                    let screen = screens.borrow_and_update().clone();
                    self.count_skipped();
                    self.update(screen).await?;
                    framed = true;
                    self.shown();
                    self.sync().await?;
                },
                // An input's echo is judged by the first screen published
                // after its echo time: the one the client holds, or the
                // one it is sent next when a newer is waiting (held by the
                // window, or not yet taken).
                () = sleep_until(due) => {
                    self.echoes.settle(Instant::now());
                    if !screens.has_changed().unwrap_or(true) {
                        self.shown();
                    }
                    self.sync().await?;
                },
                Ok(()) = discipline.changed() => {
                    discipline.borrow_and_update();
                    self.sync().await?;
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
}

/// Waits until `at`, or for ever without one.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
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

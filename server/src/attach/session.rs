//! The attach's loop: the server's messages, what is typed, window
//! resizes, a clock and the stop signals, until one of them ends the
//! attach. A connection that drops (or goes silent) is opened again with
//! back-off and jitter, resuming from the screen held; what is typed
//! meanwhile is kept ([`Typing`]) and a notice says so.

use std::io::Write;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use panecast_proto::{close, ClientMessage, Role, ServerMessage};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;
use tokio::time::{sleep_until, Instant, MissedTickBehavior};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use super::connect::{self, ConnectError, Dialer, Dialing, Stream};
use super::input::{DetachKey, Typed, Utf8};
use super::meter::Meter;
use super::paint::{Overlay, Painter};
use super::screen::{self, Changes, Screen};
use super::typing::Typing;
use super::{keys, notice, tty, Ending, EXIT_FAILED, EXIT_NOT_FOUND, EXIT_REFUSED};

/// How long a detach waits to send its close frame.
const CLOSE_WAIT: Duration = Duration::from_secs(1);
/// How often the clock looks at the link (pings, silence, the notice).
const TICK: Duration = Duration::from_millis(250);
/// A connection open this long before a message arrives counts as working:
/// the back-off starts again from its least.
const WORKING_AFTER: Duration = Duration::from_secs(3);

/// The connection, or where getting one back stands.
enum Link {
    /// Open.
    Up { stream: Box<Stream>, meter: Meter },
    /// Down since `why` (none: a restart in place, which is not
    /// worth a notice); the next try at `retry_at`.
    Down {
        retry_at: Instant,
        why: Option<String>,
    },
    /// Being opened again after `why`.
    Dialing {
        dialing: Dialing,
        why: Option<String>,
    },
}

/// What the link did.
enum LinkEvent {
    Message(Option<Result<Message, WsError>>),
    Dialed(Result<Box<Stream>, ConnectError>),
    Retry,
}

/// Waits for the link's next event.
async fn link_event(link: &mut Link) -> LinkEvent {
    match link {
        Link::Up { stream, .. } => LinkEvent::Message(stream.next().await),
        Link::Dialing { dialing, .. } => LinkEvent::Dialed(dialing.await.map(Box::new)),
        Link::Down { retry_at, .. } => {
            sleep_until(*retry_at).await;
            LinkEvent::Retry
        }
    }
}

/// One attach, across its connections.
pub(super) struct Session {
    dialer: Dialer,
    link: Link,
    /// Tries to connect again that failed in a row.
    attempt: u32,
    /// The connection being opened resumes from the screen held.
    resuming: bool,
    screen: Screen,
    painter: Option<Painter>,
    /// The connection's role, once `Hello` said it.
    role: Option<Role>,
    /// The session's id, once a `Hello` said it.
    session_id: Option<String>,
    take_control: bool,
    detach: DetachKey,
    utf8: Utf8,
    typing: Typing,
    /// A passing note and when it goes.
    note: Option<(String, Instant)>,
    /// Inputs dropped while the link was down, not yet told.
    dropped: usize,
    /// The program's exit status, once the server said it (`None` inside
    /// for a signal).
    exit: Option<Option<i32>>,
    /// The last `Error` the server sent.
    error: Option<String>,
}

/// What the loop goes on with.
type Step = Result<(), Ending>;

impl Session {
    /// An attach on `stream`, opened by `dialer` with `typing`'s query;
    /// `take_control` sends `TakeControl` after each `Hello`.
    pub(super) fn new(
        dialer: Dialer,
        stream: Stream,
        typing: Typing,
        take_control: bool,
        detach: DetachKey,
    ) -> Session {
        Session {
            dialer,
            link: Link::Up {
                stream: Box::new(stream),
                meter: Meter::new(Instant::now()),
            },
            attempt: 0,
            resuming: false,
            screen: Screen::default(),
            painter: None,
            role: None,
            session_id: None,
            take_control,
            detach,
            utf8: Utf8::default(),
            typing,
            note: None,
            dropped: 0,
            exit: None,
            error: None,
        }
    }

    /// Runs until the attach ends, reading what is typed from `typed`.
    pub(super) async fn run(&mut self, typed: &mut mpsc::Receiver<Typed>) -> Ending {
        let signals = [
            SignalKind::window_change(),
            SignalKind::terminate(),
            SignalKind::hangup(),
            SignalKind::interrupt(),
            SignalKind::quit(),
        ]
        .map(signal);
        let [Ok(mut winch), Ok(mut term), Ok(mut hup), Ok(mut int), Ok(mut quit)] = signals else {
            return Ending::new(EXIT_FAILED, "cannot handle signals");
        };
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
        if let Err(ending) = self.opened().await {
            return ending;
        }
        let ending = loop {
            let step = tokio::select! {
                event = link_event(&mut self.link) => self.link_event(event).await,
                typed = typed.recv() => self.typed(typed).await,
                _ = tick.tick() => self.tick().await,
                _ = winch.recv() => self.resized().await,
                _ = term.recv() => Err(Ending::new(EXIT_FAILED, "terminated (SIGTERM)")),
                _ = hup.recv() => Err(Ending::new(EXIT_FAILED, "the terminal hung up (SIGHUP)")),
                _ = int.recv() => Err(Ending::new(EXIT_FAILED, "interrupted (SIGINT)")),
                _ = quit.recv() => Err(Ending::new(EXIT_FAILED, "quit (SIGQUIT)")),
            };
            if let Err(ending) = step {
                break ending;
            }
        };
        // A close frame, without waiting long for a server that went quiet.
        if let Link::Up { stream, .. } = &mut self.link {
            let _ = tokio::time::timeout(CLOSE_WAIT, stream.as_mut().close(None)).await;
        }
        ending
    }

    /// Handles what the link did.
    async fn link_event(&mut self, event: LinkEvent) -> Step {
        match event {
            LinkEvent::Message(message) => self.received(message).await,
            LinkEvent::Retry => {
                let why = match &mut self.link {
                    Link::Down { why, .. } => why.take(),
                    _ => None,
                };
                self.resuming = self.typing.resumes();
                let dialing = self.dialer.dial(&self.typing.query());
                self.link = Link::Dialing { dialing, why };
                self.show_notice();
                Ok(())
            }
            LinkEvent::Dialed(Ok(stream)) => {
                self.link = Link::Up {
                    stream,
                    meter: Meter::new(Instant::now()),
                };
                self.opened().await
            }
            LinkEvent::Dialed(Err(ConnectError::Refused { status, reason }))
                if matches!(status, 401 | 403 | 404) =>
            {
                let target = &self.dialer.target;
                Err(super::refused(
                    target,
                    ConnectError::Refused { status, reason },
                ))
            }
            LinkEvent::Dialed(Err(ConnectError::Refused { status, .. })) => {
                self.lost(Some(format!("HTTP {status}")))
            }
            LinkEvent::Dialed(Err(ConnectError::Failed(_))) => {
                self.lost(Some("cannot connect".into()))
            }
        }
    }

    /// A connection is open: its round trip is measured at once.
    async fn opened(&mut self) -> Step {
        self.ping().await
    }

    /// The connection is lost, for `why` (none: the server restarts in
    /// place): it is opened again after a pause (none after a restart).
    fn lost(&mut self, why: Option<String>) -> Step {
        self.typing.closed();
        let delay = if why.is_none() {
            Duration::ZERO
        } else {
            let random = crate::random::u64().unwrap_or(0) as f64 / u64::MAX as f64;
            let delay = connect::backoff(self.attempt, random);
            self.attempt = self.attempt.saturating_add(1);
            delay
        };
        self.link = Link::Down {
            retry_at: Instant::now() + delay,
            why,
        };
        self.show_notice();
        Ok(())
    }

    /// Handles one message from the server.
    async fn received(&mut self, message: Option<Result<Message, WsError>>) -> Step {
        let now = Instant::now();
        let Link::Up { meter, .. } = &mut self.link else {
            return Ok(());
        };
        meter.heard(now);
        if meter.age(now) > WORKING_AFTER {
            self.attempt = 0;
        }
        let bytes = match message {
            Some(Ok(Message::Binary(bytes))) => bytes,
            Some(Ok(Message::Close(Some(frame)))) => {
                let code = u16::from(frame.code);
                let reason = frame.reason.to_string();
                if close::FINAL.contains(&code) {
                    return Err(self.closed(code, reason));
                }
                return self.lost(closed_why(code, &reason));
            }
            Some(Ok(Message::Close(None))) | None => {
                return self.lost(Some("connection closed".into()));
            }
            Some(Ok(_)) => return Ok(()),
            Some(Err(e)) => return self.lost(Some(failed_why(&e))),
        };
        let message = match ServerMessage::decode(&bytes) {
            Ok(message) => message,
            Err(panecast_proto::DecodeError::UnknownType(_)) => {
                return self.count(bytes.len(), false).await
            }
            Err(e) => {
                return Err(Ending::new(
                    EXIT_FAILED,
                    format!("the server sent an undecodable message: {e}"),
                ))
            }
        };
        let sync = matches!(message, ServerMessage::Sync(_));
        self.message(message).await?;
        self.count(bytes.len(), sync).await
    }

    /// Counts a binary message of `len` bytes (a `Sync` when `sync`), and
    /// says so when a report is due.
    async fn count(&mut self, len: usize, sync: bool) -> Step {
        let Link::Up { meter, .. } = &mut self.link else {
            return Ok(());
        };
        match meter.had(len, sync) {
            Some(bytes) => self.send(&ClientMessage::Received { bytes }).await,
            None => Ok(()),
        }
    }

    /// Handles one decoded message from the server.
    async fn message(&mut self, message: ServerMessage) -> Step {
        match message {
            ServerMessage::Hello(hello) => {
                let same = self.session_id.as_deref() == Some(hello.session_id.as_str());
                if !(self.resuming && same) {
                    self.screen = Screen::default();
                    self.typing.fresh();
                }
                self.resuming = false;
                // Connections from now on name the session by its id.
                self.dialer.target.session.clone_from(&hello.session_id);
                self.session_id = Some(hello.session_id);
                self.role = Some(hello.role);
                self.show_notice();
                self.resized().await?;
                if self.take_control && self.controls() {
                    self.send(&ClientMessage::TakeControl).await?;
                }
                let opened = self.typing.hello(hello.role, Instant::now());
                for message in opened.send {
                    self.send_bytes(message).await?;
                }
            }
            ServerMessage::Styles(styles) => {
                self.screen.styles(styles);
                self.typing.styles();
            }
            ServerMessage::Frame(frame) => {
                let changes = self.screen.frame(frame);
                self.typing.frame(&changes, &self.screen);
                if self.painter.is_none() {
                    let window = tty::size().unwrap_or((self.screen.cols, self.screen.rows));
                    let mut painter = Painter::new(window, self.controls());
                    painter.notice(self.notice_text(Instant::now()));
                    self.painter = Some(painter);
                }
                self.paint(&changes);
            }
            ServerMessage::Sync(sync) => {
                self.typing.sync(&sync, &self.screen);
                self.show_notice();
                self.paint(&Changes::default());
            }
            ServerMessage::Pong { token } => {
                if let Link::Up { meter, .. } = &self.link {
                    let rtt = meter.pong(token, Instant::now());
                    self.typing.rtt(rtt);
                    self.paint(&Changes::default());
                }
            }
            ServerMessage::Bell => write_out("\x07"),
            ServerMessage::Exit { code } => self.exit = Some(code),
            ServerMessage::Error { code, message } if code != close::INPUT_DROPPED => {
                self.error = Some(message);
            }
            _ => {}
        }
        Ok(())
    }

    /// The ending for a close with a final `code` and `reason`.
    fn closed(&self, code: u16, reason: String) -> Ending {
        let reason = if reason.is_empty() {
            self.error.clone().unwrap_or_default()
        } else {
            reason
        };
        match code {
            close::SESSION_ENDED => Ending::new(
                0,
                match self.exit {
                    Some(Some(status)) => {
                        format!("the session ended: its program exited with status {status}")
                    }
                    Some(None) => "the session ended: its program was killed by a signal".into(),
                    None => "the session ended".into(),
                },
            ),
            close::SESSION_DELETED => Ending::new(0, "the session was deleted"),
            close::ACCESS_REVOKED => Ending::new(EXIT_REFUSED, format!("access revoked: {reason}")),
            close::SESSION_NOT_FOUND => {
                Ending::new(EXIT_NOT_FOUND, format!("no such session: {reason}"))
            }
            code => Ending::new(
                EXIT_FAILED,
                format!(
                    "the server closed the connection ({code}{}{reason})",
                    if reason.is_empty() { "" } else { ": " }
                ),
            ),
        }
    }

    /// Handles what standard input gave.
    async fn typed(&mut self, typed: Option<Typed>) -> Step {
        let (bytes, detach) = match typed {
            Some(Typed::Bytes(bytes)) => (bytes, false),
            Some(Typed::Detach(bytes)) => (bytes, true),
            Some(Typed::End) | None => {
                return Err(Ending::new(EXIT_FAILED, "standard input ended"));
            }
        };
        // A view connection types nothing (before its Hello, it is not
        // known: what is typed is held, and dropped if it cannot type).
        if self.role != Some(Role::View) {
            self.type_bytes(&bytes).await?;
        }
        if detach {
            return Err(Ending {
                reason: None,
                code: 0,
            });
        }
        Ok(())
    }

    /// Sends (or holds, while the link is down) typed bytes, and shows
    /// what they will do.
    async fn type_bytes(&mut self, bytes: &[u8]) -> Step {
        let text = self.utf8.push(bytes);
        if text.is_empty() {
            return Ok(());
        }
        let now = Instant::now();
        let effects = keys::effects(&text);
        let message = ClientMessage::Text { text }.encode();
        match self.typing.input(message, &effects, &self.screen, now) {
            None => {
                self.dropped += 1;
                self.note = Some((notice::dropped(self.dropped), now + notice::NOTE_FOR));
            }
            Some(Some(message)) => self.send_bytes(message).await?,
            Some(None) => {}
        }
        self.paint(&Changes::default());
        let ping = match &mut self.link {
            Link::Up { meter, .. } => meter.typed(now),
            _ => false,
        };
        if ping {
            self.ping().await?;
        }
        Ok(())
    }

    /// The clock: a ping when one is due, a link silent too long given up
    /// on, the notice kept current.
    async fn tick(&mut self) -> Step {
        let now = Instant::now();
        if let Link::Up { meter, .. } = &self.link {
            if meter.dead(now) {
                let secs = super::meter::DEAD_AFTER.as_secs();
                return self.lost(Some(format!("no answer for {secs} s")));
            }
            if meter.ping_due(now) {
                self.ping().await?;
            }
        }
        if self.note.as_ref().is_some_and(|(_, until)| *until <= now) {
            self.note = None;
            self.dropped = 0;
        }
        self.show_notice();
        Ok(())
    }

    /// Sends a `Ping` whose token is the time it left.
    async fn ping(&mut self) -> Step {
        let Link::Up { meter, .. } = &mut self.link else {
            return Ok(());
        };
        let token = meter.ping(Instant::now());
        self.send(&ClientMessage::Ping { token }).await
    }

    /// What the notice says now, if anything.
    fn notice_text(&self, now: Instant) -> Option<String> {
        let detach = self.detach.name();
        match &self.link {
            Link::Down { retry_at, why } => why.as_deref().map(|why| {
                notice::down(
                    why,
                    retry_at.saturating_duration_since(now),
                    detach.as_deref(),
                )
            }),
            Link::Dialing { why, .. } => why
                .as_deref()
                .map(|why| notice::dialing(why, detach.as_deref())),
            Link::Up { .. } => {
                let quiet = self.typing.quiet(now);
                quiet
                    .filter(|_| self.controls())
                    .map(notice::quiet)
                    .or_else(|| self.note.as_ref().map(|(text, _)| text.clone()))
            }
        }
    }

    /// Brings the notice up to date, painting it if it changed.
    fn show_notice(&mut self) {
        let text = self.notice_text(Instant::now());
        if let Some(painter) = &mut self.painter {
            painter.notice(text);
            self.paint(&Changes::default());
        }
    }

    /// Paints `changes` and the predictions that show.
    fn paint(&mut self, changes: &Changes) {
        let Some(painter) = &mut self.painter else {
            return;
        };
        // A new connection's first frame paints it all.
        if self.screen.rows == 0 {
            return;
        }
        let overlay = Overlay {
            shown: self.typing.shown(),
            cursor: self.typing.cursor(),
            rows: self.typing.touched(),
        };
        let out = painter.paint(&self.screen, changes, &overlay);
        write_out(&out);
    }

    /// Tells the server the window's size (a controller's only) and redraws.
    async fn resized(&mut self) -> Step {
        let Some((cols, rows)) = tty::size() else {
            return Ok(());
        };
        if let Some(painter) = &mut self.painter {
            painter.resize((cols, rows));
        }
        self.paint(&screen::Changes::default());
        if self.controls() {
            let cols = cols.min(panecast_proto::limits::MAX_COLS);
            let rows = rows.min(panecast_proto::limits::MAX_ROWS);
            self.send(&ClientMessage::Resize { cols, rows }).await?;
        }
        Ok(())
    }

    /// True once `Hello` said this connection may type.
    fn controls(&self) -> bool {
        self.role == Some(Role::Control)
    }

    async fn send(&mut self, message: &ClientMessage) -> Step {
        self.send_bytes(message.encode()).await
    }

    /// Sends an encoded message on the open connection (none: nothing).
    async fn send_bytes(&mut self, message: Vec<u8>) -> Step {
        let Link::Up { stream, .. } = &mut self.link else {
            return Ok(());
        };
        match stream.send(Message::Binary(message.into())).await {
            Ok(()) => Ok(()),
            Err(e) => self.lost(Some(failed_why(&e))),
        }
    }
}

/// Why a connection closed with a code after which it is opened again,
/// in a few words (none for a restart in place).
fn closed_why(code: u16, reason: &str) -> Option<String> {
    match code {
        close::SERVICE_RESTART => None,
        _ if reason.is_empty() => Some(format!("closed by the server: {code}")),
        _ => Some(format!("closed by the server: {code} {reason}")),
    }
}

/// Why a connection failed, in a few words.
fn failed_why(error: &WsError) -> String {
    match error {
        WsError::Io(e) => e.kind().to_string(),
        WsError::ConnectionClosed | WsError::AlreadyClosed => "connection closed".into(),
        e => e.to_string(),
    }
}

/// Writes to the local terminal; a failure shows on the next read.
fn write_out(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes()).and_then(|()| out.flush());
}

//! One attached connection: the loop that takes the server's messages,
//! what is typed, window resizes and the stop signals, until one of them
//! ends the attach.

use std::io::Write;

use futures_util::{SinkExt, StreamExt};
use panecast_proto::{close, ClientMessage, Role, ServerMessage};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

use super::connect::Stream;
use super::input::{Typed, Utf8};
use super::paint::Painter;
use super::screen::{self, Screen};
use super::{tty, Ending, EXIT_FAILED, EXIT_NOT_FOUND, EXIT_REFUSED};

/// How long a detach waits to send its close frame.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// One attached connection.
pub(super) struct Session {
    stream: Stream,
    screen: Screen,
    painter: Option<Painter>,
    /// The connection's role, once `Hello` said it.
    role: Option<Role>,
    /// What was typed before `Hello`, sent after it if the role allows.
    typeahead: Vec<u8>,
    take_control: bool,
    utf8: Utf8,
    /// The program's exit status, once the server said it (`None` inside
    /// for a signal).
    exit: Option<Option<i32>>,
    /// The last `Error` the server sent.
    error: Option<String>,
}

/// What the loop goes on with.
type Step = Result<(), Ending>;

impl Session {
    /// A session on `stream`; `take_control` sends `TakeControl` after `Hello`.
    pub(super) fn new(stream: Stream, take_control: bool) -> Session {
        Session {
            stream,
            screen: Screen::default(),
            painter: None,
            role: None,
            typeahead: Vec::new(),
            take_control,
            utf8: Utf8::default(),
            exit: None,
            error: None,
        }
    }

    /// The same session on a new connection (after a restart in place):
    /// the screen comes again whole; the painter and what was typed stay.
    pub(super) fn reconnected(&mut self, stream: Stream) {
        self.stream = stream;
        self.screen = Screen::default();
        self.role = None;
        self.exit = None;
        self.error = None;
    }

    /// Runs until the attach ends (or the server restarts: see
    /// [`Ending::restart`]), reading what is typed from `typed`.
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
        let ending = loop {
            let step = tokio::select! {
                message = self.stream.next() => self.received(message).await,
                typed = typed.recv() => self.typed(typed).await,
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
        let _ = tokio::time::timeout(CLOSE_WAIT, self.stream.close(None)).await;
        ending
    }

    /// Handles one message from the server.
    async fn received(
        &mut self,
        message: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
    ) -> Step {
        let bytes = match message {
            Some(Ok(Message::Binary(bytes))) => bytes,
            Some(Ok(Message::Close(frame))) => {
                let (code, reason) = frame
                    .map(|f| (u16::from(f.code), f.reason.to_string()))
                    .unwrap_or((close::NORMAL, String::new()));
                return Err(self.closed(code, reason));
            }
            Some(Ok(_)) => return Ok(()),
            Some(Err(e)) => {
                return Err(Ending::new(
                    EXIT_FAILED,
                    format!("the connection failed: {e}"),
                ))
            }
            None => return Err(self.closed(close::NORMAL, String::new())),
        };
        let message = match ServerMessage::decode(&bytes) {
            Ok(message) => message,
            Err(panecast_proto::DecodeError::UnknownType(_)) => return Ok(()),
            Err(e) => {
                return Err(Ending::new(
                    EXIT_FAILED,
                    format!("the server sent an undecodable message: {e}"),
                ))
            }
        };
        match message {
            ServerMessage::Hello(hello) => {
                self.role = Some(hello.role);
                self.resized().await?;
                if self.take_control && self.controls() {
                    self.send(ClientMessage::TakeControl).await?;
                }
                let typeahead = std::mem::take(&mut self.typeahead);
                self.type_bytes(&typeahead).await?;
            }
            ServerMessage::Styles(styles) => self.screen.styles(styles),
            ServerMessage::Frame(frame) => {
                let changes = self.screen.frame(frame);
                let window = tty::size().unwrap_or((self.screen.cols, self.screen.rows));
                let controls = self.controls();
                let painter = self
                    .painter
                    .get_or_insert_with(|| Painter::new(window, controls));
                write_out(&painter.paint(&self.screen, &changes));
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

    /// The ending for a close with `code` and `reason`.
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
            close::SERVICE_RESTART => Ending {
                restart: true,
                ..Ending::new(
                    EXIT_FAILED,
                    "the server restarted and could not be reached again",
                )
            },
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
        if self.role.is_none() {
            // Sent as one Text: kept within the protocol's limit.
            if self.typeahead.len() + bytes.len() <= panecast_proto::limits::MAX_TEXT {
                self.typeahead.extend_from_slice(&bytes);
            }
        } else {
            self.type_bytes(&bytes).await?;
        }
        if detach {
            return Err(Ending {
                reason: None,
                code: 0,
                restart: false,
            });
        }
        Ok(())
    }

    /// Tells the server the window's size (a controller's only) and redraws.
    async fn resized(&mut self) -> Step {
        let Some((cols, rows)) = tty::size() else {
            return Ok(());
        };
        if let Some(painter) = &mut self.painter {
            painter.resize((cols, rows));
            // Before the first frame of a new connection, the frame paints.
            if self.screen.rows > 0 {
                let changes = screen::Changes::default();
                write_out(&painter.paint(&self.screen, &changes));
            }
        }
        if self.controls() {
            let cols = cols.min(panecast_proto::limits::MAX_COLS);
            let rows = rows.min(panecast_proto::limits::MAX_ROWS);
            self.send(ClientMessage::Resize { cols, rows }).await?;
        }
        Ok(())
    }

    /// True once `Hello` said this connection may type.
    fn controls(&self) -> bool {
        self.role == Some(Role::Control)
    }

    /// Sends typed bytes to the program, if this connection may type.
    async fn type_bytes(&mut self, bytes: &[u8]) -> Step {
        if !self.controls() {
            return Ok(());
        }
        let text = self.utf8.push(bytes);
        if text.is_empty() {
            return Ok(());
        }
        self.send(ClientMessage::Text { text }).await
    }

    async fn send(&mut self, message: ClientMessage) -> Step {
        self.stream
            .send(Message::Binary(message.encode().into()))
            .await
            .map_err(|e| Ending::new(EXIT_FAILED, format!("the connection failed: {e}")))
    }
}

/// Writes to the local terminal; a failure shows on the next read.
fn write_out(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes()).and_then(|()| out.flush());
}

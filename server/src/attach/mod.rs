//! `panecast attach`: a session in the local terminal, as `tmux attach`
//! does. It opens the session's WebSocket stream, keeps the screen from
//! the frames ([`screen`]), paints the rows each frame changed ([`paint`]),
//! and sends what is typed as `Text` (the program gets the bytes as typed)
//! when the connection may type.
//!
//! Exit codes: 0 after the detach key or when the session ends (its
//! program exited: close 4001; it was deleted: 4002); 1 when the
//! connection fails or closes otherwise, or the terminal cannot be used;
//! 2 for a bad command line or URL; 3 when the credential is refused
//! (HTTP 401 or 403, or revoked: 4003); 4 when the session does not exist
//! (404, or 4004). A server that restarts in place (close 1012) is
//! connected to again at once, and the screen comes back whole.

mod connect;
mod input;
mod paint;
mod screen;
mod target;
mod tty;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use futures_util::{SinkExt, StreamExt};
use panecast_proto::{close, ClientMessage, Role, ServerMessage};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

use connect::{ConnectError, Stream};
use input::{DetachKey, Typed, Utf8};
use paint::Painter;
use screen::Screen;
use target::Target;

/// How long a detach waits to send its close frame.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Exit code: the connection failed or closed for another reason.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: the command line or URL is not usable.
pub const EXIT_USAGE: u8 = 2;
/// Exit code: the server refused the credential.
pub const EXIT_REFUSED: u8 = 3;
/// Exit code: no such session.
pub const EXIT_NOT_FOUND: u8 = 4;

/// Options of `panecast attach`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Keys: Ctrl-\\ detaches (see --detach-key). Everything else is sent to the program.

Exit codes: 0 detached, or the session ended (its program exited or it was
deleted); 1 the connection failed or was closed, or no terminal; 2 bad
command line or URL; 3 credential refused (401, 403, revoked); 4 no such
session.

Examples:
  panecast attach 'https://term.example.com/s/0123abcd...#t=LINK_TOKEN'
  PANECAST_TOKEN=... panecast attach http://127.0.0.1:7681 --session build --view")]
pub struct AttachArgs {
    /// A session's page URL (http(s)://HOST[:PORT][/BASE]/s/ID, with a
    /// share link's token as #t=TOKEN or ?token=TOKEN), or the server's URL
    /// with --session.
    url: String,
    /// The session's id or name, when URL is the server's.
    #[arg(long, short)]
    session: Option<String>,
    /// The admin token or a key; a token in the URL is used instead.
    #[arg(long, env = "PANECAST_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Watch only: send no keys and leave the session's size alone.
    #[arg(long)]
    view: bool,
    /// Drive the session's size with this window's (under the driver
    /// policy; by default the first controller drives).
    #[arg(long, conflicts_with = "view")]
    take_control: bool,
    /// Also trust the certificates of this PEM file for https URLs (a
    /// private CA, a self-signed server); the Mozilla roots are always
    /// trusted.
    #[arg(long, env = "PANECAST_CA_FILE")]
    ca_file: Option<PathBuf>,
    /// The key that detaches: ctrl-X, or none.
    #[arg(long, default_value = "ctrl-\\", value_parser = DetachKey::parse)]
    detach_key: DetachKey,
}

/// How an attach ended: a one-line reason (none after a detach) and the
/// exit code.
struct Ending {
    reason: Option<String>,
    code: u8,
    /// The server restarts in place (close 1012): connect again.
    restart: bool,
}

impl Ending {
    fn new(code: u8, reason: impl Into<String>) -> Ending {
        Ending {
            reason: Some(reason.into()),
            code,
            restart: false,
        }
    }
}

/// Runs `panecast attach` and returns its exit code.
pub fn run(args: AttachArgs) -> ExitCode {
    let ending = attach(args);
    if let Some(reason) = ending.reason {
        eprintln!("panecast: {reason}");
    }
    ExitCode::from(ending.code)
}

fn attach(args: AttachArgs) -> Ending {
    let target = match Target::parse(&args.url, args.session.as_deref()) {
        Ok(target) => target,
        Err(e) => return Ending::new(EXIT_USAGE, e),
    };
    let tls = match &args.ca_file {
        Some(path) => match crate::tls::read_certificates(path) {
            Ok(certs) => crate::tls::client_trusting(certs),
            Err(e) => return Ending::new(EXIT_USAGE, format!("--ca-file: {e}")),
        },
        None => crate::tls::CLIENT.clone(),
    };
    let token = target.token.clone().or(args.token.clone());
    let role = if args.view || target.view {
        "view"
    } else {
        "control"
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return Ending::new(EXIT_FAILED, format!("cannot start the runtime: {e}")),
    };
    let ending = runtime.block_on(async {
        let stream = match connect::connect(&target, role, token.as_deref(), &tls).await {
            Ok(stream) => stream,
            Err(e) => return refused(&target, e),
        };
        let raw = match tty::Raw::enter() {
            Ok(raw) => raw,
            Err(e) => return Ending::new(EXIT_FAILED, e),
        };
        let mut typed = input::spawn(args.detach_key);
        let mut session = Session::new(stream, args.take_control);
        let ending = loop {
            let ending = session.run(&mut typed).await;
            if !ending.restart {
                break ending;
            }
            match connect::reconnect(&target, role, token.as_deref(), &tls).await {
                Ok(stream) => session.reconnected(stream),
                Err(e) => break refused(&target, e),
            }
        };
        drop(raw);
        ending
    });
    // The thread reading standard input may be blocked in read(2): the
    // process ends without waiting for it.
    runtime.shutdown_background();
    ending
}

/// The ending for a connection that could not be opened.
fn refused(target: &Target, error: ConnectError) -> Ending {
    match error {
        ConnectError::Refused { status, reason } => {
            let code = match status {
                401 | 403 => EXIT_REFUSED,
                404 => EXIT_NOT_FOUND,
                _ => EXIT_FAILED,
            };
            let what = match status {
                401 => "the credential was refused",
                403 => "the credential does not give access",
                404 => "no such session (or not one this credential reaches)",
                _ => "the server refused the connection",
            };
            Ending::new(
                code,
                format!(
                    "{what}: HTTP {status} ({reason}) for session {}",
                    target.session
                ),
            )
        }
        ConnectError::Failed(e) => Ending::new(EXIT_FAILED, format!("cannot connect: {e}")),
    }
}

/// One attached connection.
struct Session {
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
    fn new(stream: Stream, take_control: bool) -> Session {
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
    fn reconnected(&mut self, stream: Stream) {
        self.stream = stream;
        self.screen = Screen::default();
        self.role = None;
        self.exit = None;
        self.error = None;
    }

    async fn run(&mut self, typed: &mut mpsc::Receiver<Typed>) -> Ending {
        let signals = [
            SignalKind::window_change(),
            SignalKind::terminate(),
            SignalKind::hangup(),
            SignalKind::interrupt(),
        ]
        .map(signal);
        let [Ok(mut winch), Ok(mut term), Ok(mut hup), Ok(mut int)] = signals else {
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
            let changes = screen::Changes::default();
            write_out(&painter.paint(&self.screen, &changes));
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Command {
        #[command(flatten)]
        args: AttachArgs,
    }

    fn parse(args: &[&str]) -> Result<AttachArgs, clap::Error> {
        let argv = ["attach"].iter().chain(args);
        Command::try_parse_from(argv).map(|c| c.args)
    }

    #[test]
    fn attach_takes_its_options() {
        let args = parse(&[
            "http://h:1",
            "--session",
            "build",
            "--view",
            "--detach-key",
            "ctrl-a",
            "--ca-file",
            "/ca.pem",
        ])
        .expect("valid options");
        assert_eq!(args.url, "http://h:1");
        assert_eq!(args.session.as_deref(), Some("build"));
        assert!(args.view && !args.take_control);
        assert_eq!(args.detach_key, DetachKey::parse("ctrl-a").expect("a key"));
        assert_eq!(args.ca_file, Some(PathBuf::from("/ca.pem")));
    }

    #[test]
    fn watching_and_taking_control_exclude_each_other() {
        assert!(parse(&["http://h/s/x", "--view", "--take-control"]).is_err());
        assert!(parse(&["http://h/s/x", "--detach-key", "x"]).is_err());
        assert!(parse(&[]).is_err());
    }
}

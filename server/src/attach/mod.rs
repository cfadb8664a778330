//! `panecast attach`: a session in the local terminal, as `tmux attach`
//! does. It opens the session's WebSocket stream ([`connect`]), keeps the
//! screen from the frames ([`screen`]), paints the rows each frame changed
//! ([`paint`]) in the local terminal ([`tty`]), and sends what is typed
//! ([`input`]) as `Text` (the program gets the bytes as typed) when the
//! connection may type; [`session`] runs the loop.
//!
//! Over a real network, as the web client: each input message is numbered
//! and kept until the server says the program has had it ([`outbox`]), so
//! a dropped link loses no key and types none twice; what a key will do is
//! shown at once, underlined until the echo confirms it ([`predict`], from
//! the keys read back from the bytes typed: [`keys`]; [`typing`] joins
//! them); the bytes had are reported for the server's flow control and the
//! round trip measured ([`meter`]); a notice says when the link is down
//! ([`notice`]).
//!
//! Exit codes: 0 after the detach key or when the session ends (its
//! program exited: close 4001; it was deleted: 4002); 1 when the first
//! connection fails, the server closes for good (a final close code), or
//! the terminal cannot be used; 2 for a bad command line or URL; 3 when
//! the credential is refused (HTTP 401 or 403, or revoked: 4003); 4 when
//! the session does not exist (404, or 4004). Any other drop (a reset, a
//! silent link, a restart in place: close 1012, at once) is connected
//! again, with back-off and jitter, resuming from the screen held.

mod connect;
mod input;
mod keys;
mod meter;
mod notice;
mod outbox;
mod paint;
mod predict;
mod screen;
mod session;
mod target;
mod tty;
mod typing;

use std::path::PathBuf;
use std::process::ExitCode;

use connect::{ConnectError, Dialer};
use input::DetachKey;
use predict::Mode as PredictMode;
use session::Session;
use target::Target;
use typing::Typing;

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

A link that drops is connected again, with back-off; what is typed meanwhile
is kept (up to 1000 inputs) and sent once it is back.

Exit codes: 0 detached, or the session ended (its program exited or it was
deleted); 1 the first connection failed, the server closed the connection for
good, or no terminal; 2 bad command line or URL; 3 credential refused (401,
403, revoked); 4 no such session.

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
    /// Show what a key will do before the program echoes it, underlined
    /// until it does; never at a password prompt, nor where the session's
    /// profile says predict = false.
    #[arg(long, value_enum, default_value_t = PredictMode::Auto)]
    predict: PredictMode,
}

/// How an attach ended: a one-line reason (none after a detach) and the
/// exit code.
struct Ending {
    /// Said on standard error after the terminal is restored.
    reason: Option<String>,
    /// The exit code.
    code: u8,
}

impl Ending {
    fn new(code: u8, reason: impl Into<String>) -> Ending {
        Ending {
            reason: Some(reason.into()),
            code,
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
    let client = match crate::random::hex128() {
        Ok(client) => client,
        Err(e) => return Ending::new(EXIT_FAILED, format!("no random source: {e}")),
    };
    let typing = Typing::new(client, args.predict);
    let dialer = Dialer {
        target: target.clone(),
        role,
        token,
        tls,
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return Ending::new(EXIT_FAILED, format!("cannot start the runtime: {e}")),
    };
    let ending = runtime.block_on(async {
        let stream = match dialer.dial(&typing.query()).await {
            Ok(stream) => stream,
            Err(e) => return refused(&target, e),
        };
        let raw = match tty::Raw::enter() {
            Ok(raw) => raw,
            Err(e) => return Ending::new(EXIT_FAILED, e),
        };
        let mut typed = input::spawn(args.detach_key);
        let mut session = Session::new(dialer, stream, typing, args.take_control, args.detach_key);
        let ending = session.run(&mut typed).await;
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
            "--predict=never",
        ])
        .expect("valid options");
        assert_eq!(args.predict, PredictMode::Never);
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
        assert!(parse(&["http://h/s/x", "--predict", "sometimes"]).is_err());
        assert_eq!(
            parse(&["http://h/s/x"]).expect("valid").predict,
            PredictMode::Auto
        );
        assert!(parse(&[]).is_err());
    }
}

//! Upgrading the server in place (SIGUSR2, `systemctl reload`): every
//! session is frozen, the state is written to a private file, the binary
//! the server was started from checks it in a child process, and only if
//! that passes do streams close with 1012 and the process re-execute that
//! binary (same pid, pty masters and listening socket still open, programs
//! still its children). A failed check, or any failure before the exec,
//! thaws every session and the old server goes on, untouched; the log says
//! why. At start, [`resume`] takes the state back.
//!
//! - [`state`]: the versioned hand-over file;
//! - [`check`]: `panecast check-handover FILE`, the new binary's check;
//! - [`exec`]: descriptors, the signal mask, and the exec;
//! - [`resume`]: the new image's side.

pub mod check;
pub mod exec;
pub mod resume;
pub mod state;

use std::ffi::OsString;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::access::Access;
use crate::pty::HelperEnd;
use crate::session::{FrozenSession, Sessions};

pub use state::{HandedSession, Handover, HandoverError, HANDOVER_VERSION};

/// How long every session has to freeze.
pub const FREEZE_WITHIN: Duration = Duration::from_secs(5);
/// How long the new binary has to check the state.
pub const CHECK_WITHIN: Duration = Duration::from_secs(10);
/// How long streams have to close (1012) before the exec.
const CLOSE_WITHIN: Duration = Duration::from_millis(500);

/// What an upgrade needs to know of the process, fixed at start.
#[derive(Debug, Clone)]
pub struct Origin {
    /// The binary the server was started from, resolved at start: when the
    /// file is replaced, this path holds the new binary.
    pub binary: PathBuf,
    /// The original arguments, the program's name first.
    pub args: Vec<OsString>,
    /// The listening socket's descriptor.
    pub listener: i32,
    /// The admin token.
    pub token: String,
}

/// The parts of the running server an upgrade works on.
pub struct Server {
    /// The sessions.
    pub sessions: Arc<Sessions>,
    /// The credentials (the share links are handed over).
    pub access: Arc<Access>,
    /// True pauses accepting connections: they wait in the backlog.
    pub accept_paused: watch::Sender<bool>,
}

/// Upgrades on every SIGUSR2 that `signals` delivers; returns when it
/// closes. A successful upgrade never returns.
pub async fn on_signal(origin: Origin, server: Server, mut signals: tokio::signal::unix::Signal) {
    while signals.recv().await.is_some() {
        tracing::info!(binary = %origin.binary.display(), "SIGUSR2: upgrading in place");
        let error = upgrade(&origin, &server).await;
        tracing::error!(%error, "upgrade failed: the server goes on as it was");
    }
}

/// One upgrade: returns only when it failed, saying why.
async fn upgrade(origin: &Origin, server: &Server) -> String {
    let started = Instant::now();
    server.accept_paused.send_replace(true);
    let frozen = match server.sessions.freeze_all(FREEZE_WITHIN).await {
        Ok(frozen) => frozen,
        Err(error) => {
            server.accept_paused.send_replace(false);
            return error;
        }
    };
    tracing::info!(
        sessions = frozen.len(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "upgrade: every session frozen"
    );
    let handover = Handover {
        pid: std::process::id(),
        token: origin.token.clone(),
        listeners: vec![origin.listener],
        links: server.access.links().saved(),
        sessions: frozen.iter().map(handed).collect(),
    };
    let error = match write_and_check(origin, &handover).await {
        Ok(path) => {
            tracing::info!(
                sessions = frozen.len(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                "upgrade: the new binary accepted the state; re-executing"
            );
            let error = re_execute(origin, server, &frozen, &handover, &path).await;
            remove_state(&path);
            error
        }
        Err(error) => error,
    };
    server.sessions.thaw(frozen);
    server.accept_paused.send_replace(false);
    error
}

/// A frozen session as the state holds it.
fn handed(session: &FrozenSession) -> HandedSession {
    let frozen = &session.frozen;
    HandedSession {
        session: frozen.saved.encode(),
        term: frozen.term.clone(),
        master: frozen.master,
        pending_input: frozen.pending_input.clone(),
        recording: frozen.recording.map(Into::into),
        sandbox: frozen.sandbox.clone(),
    }
}

/// Writes the state and has the binary check it: its path if it passed.
async fn write_and_check(origin: &Origin, handover: &Handover) -> Result<PathBuf, String> {
    let bytes = handover.encode();
    let path = write_state(&bytes).map_err(|e| format!("cannot write the hand-over state: {e}"))?;
    tracing::info!(
        bytes = bytes.len(),
        "upgrade: state written; the binary checks it"
    );
    let mut command = std::process::Command::new(&origin.binary);
    command.arg("check-handover").arg(&path);
    let verdict = match crate::pty::run_helper(&mut command, CHECK_WITHIN).await {
        Ok(HelperEnd::Exited(Some(0), _)) => Ok(path.clone()),
        Ok(HelperEnd::Exited(code, errors)) => Err(format!(
            "the binary at {} refused the state (exit {}): {}",
            origin.binary.display(),
            code.map_or_else(|| "by a signal".to_owned(), |c| c.to_string()),
            errors.trim()
        )),
        Ok(HelperEnd::TimedOut) => Err(format!(
            "the binary at {} did not check the state within {} s",
            origin.binary.display(),
            CHECK_WITHIN.as_secs()
        )),
        Err(error) => Err(format!(
            "cannot run the binary at {}: {error}",
            origin.binary.display()
        )),
    };
    if verdict.is_err() {
        remove_state(&path);
    }
    verdict
}

/// Closes every stream with 1012, holds every program unreaped, leaves
/// the descriptors open and re-executes; returns only on failure, with
/// everything as it was.
async fn re_execute(
    origin: &Origin,
    server: &Server,
    frozen: &[FrozenSession],
    handover: &Handover,
    path: &Path,
) -> String {
    server.sessions.announce_restart();
    let closed = frozen.iter().map(|session| {
        let mut room = session.handle.watch_room();
        async move {
            let _ = room.wait_for(crate::session::Room::is_empty).await;
        }
    });
    // Streams that take longer are cut by the exec; their clients reconnect.
    let _ = tokio::time::timeout(CLOSE_WITHIN, futures_util::future::join_all(closed)).await;
    // While held, no program can be reaped: the state says each still runs.
    let holds: Vec<_> = frozen
        .iter()
        .filter(|s| s.frozen.master.is_some())
        .map(|s| s.frozen.program.hold())
        .collect();
    if holds.iter().any(|reaped| reaped.is_some()) {
        return "a program ended during the upgrade; try again".to_owned();
    }
    let fds = handover.descriptors();
    if let Err(error) = exec::set_cloexec(&fds, false) {
        let _ = exec::set_cloexec(&fds, true);
        return format!("cannot keep the descriptors open across the exec: {error}");
    }
    exec::block_upgrade_signal(true);
    let error = exec::exec(&origin.binary, &origin.args, path);
    exec::block_upgrade_signal(false);
    let _ = exec::set_cloexec(&fds, true);
    drop(holds);
    format!("cannot execute {}: {error}", origin.binary.display())
}

/// The private directory states are written in: `panecast-upgrade-PID`
/// in the temporary directory, 0700, owned by the server's user.
fn state_dir() -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("panecast-upgrade-{}", std::process::id()));
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let meta = std::fs::symlink_metadata(&dir)?;
            // SAFETY: geteuid cannot fail.
            let me = unsafe { libc::geteuid() };
            if !meta.is_dir() || meta.uid() != me || meta.permissions().mode() & 0o077 != 0 {
                return Err(std::io::Error::other(format!(
                    "{} is not a private directory of the server's user",
                    dir.display()
                )));
            }
        }
        Err(e) => return Err(e),
    }
    Ok(dir)
}

/// Writes `bytes` to a new state file (0600) in the private directory.
fn write_state(bytes: &[u8]) -> std::io::Result<PathBuf> {
    use std::io::Write;
    let path = state_dir()?.join("state");
    let _ = std::fs::remove_file(&path);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&path)?;
    file.write_all(bytes)?;
    Ok(path)
}

/// Removes a state file and its directory.
pub fn remove_state(path: &Path) {
    let _ = std::fs::remove_file(path);
    if let Some(dir) = path.parent() {
        let _ = std::fs::remove_dir(dir);
    }
}

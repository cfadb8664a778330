//! The new image's side of an upgrade: the state is read back (its path in
//! [`STATE_ENV`]), its file removed, the programs claimed at once
//! (registered with the one reaper, so a program that ended during the
//! exec has its status kept and the orphan reaper leaves them alone), then
//! the listening socket taken from its descriptor and every session and
//! link taken back.

use std::os::fd::{FromRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::Arc;

use super::exec::{set_cloexec, STATE_ENV};
use super::{remove_state, Handover};
use crate::access::Access;
use crate::session::{HandedOver, SavedSession, Sessions};
use panecast_term::Term;

/// A hand-over state taken back at start.
pub struct Resumed {
    handover: Handover,
    sessions: Vec<(SavedSession, Term)>,
}

/// The state the previous image left, if this start is an upgrade's: read,
/// validated and its file removed; its programs claimed. Call it before
/// any other thread starts (it changes the environment).
pub fn take_from_env() -> Result<Option<Resumed>, String> {
    let Some(path) = std::env::var_os(STATE_ENV) else {
        return Ok(None);
    };
    std::env::remove_var(STATE_ENV);
    let path = PathBuf::from(path);
    let bytes = std::fs::read(&path);
    remove_state(&path);
    let bytes = bytes.map_err(|e| format!("cannot read the hand-over state: {e}"))?;
    let handover = Handover::decode(&bytes).map_err(|e| e.to_string())?;
    if handover.pid != std::process::id() {
        return Err(format!(
            "the hand-over state is process {}'s, not this one's",
            handover.pid
        ));
    }
    let sessions = handover.validate().map_err(|e| e.to_string())?;
    crate::pty::claim_programs(
        sessions
            .iter()
            .filter(|(s, _)| s.status().running())
            .map(|(s, _)| s.pid as libc::pid_t),
    );
    Ok(Some(Resumed { handover, sessions }))
}

impl Resumed {
    /// The admin token the server ran with.
    pub fn token(&self) -> &str {
        &self.handover.token
    }

    /// The listening socket, from its descriptor (connections that came
    /// meanwhile wait in its backlog).
    pub fn listener(&self) -> Result<std::net::TcpListener, String> {
        let fd = self.handover.listeners[0];
        set_cloexec(&[fd], true).map_err(|e| format!("the listening socket: {e}"))?;
        // SAFETY: the descriptor is open (just checked), was left to this
        // image for this use alone, and nothing else here owns it.
        let listener = unsafe { std::net::TcpListener::from_raw_fd(fd) };
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("the listening socket: {e}"))?;
        Ok(listener)
    }

    /// Takes every session and link back. A session that cannot be taken
    /// back is logged and ended (its program killed).
    pub async fn take_in(self, sessions: &Arc<Sessions>, access: &Access) {
        let Resumed {
            handover,
            sessions: parts,
        } = self;
        if let Err(error) = access.links().restore(handover.links) {
            tracing::error!(%error, "cannot take the share links back");
        }
        let total = parts.len();
        let mut taken = 0;
        for (handed, (saved, term)) in handover.sessions.into_iter().zip(parts) {
            let id = saved.id.clone();
            let pty = match handed.master {
                Some(fd) if saved.status().running() => {
                    if let Err(error) = set_cloexec(&[fd], true) {
                        tracing::error!(%id, %error, "the session's pty is not open: it is lost");
                        continue;
                    }
                    // SAFETY: the descriptor is open (just checked), was
                    // left to this image for this session alone.
                    let master = unsafe { OwnedFd::from_raw_fd(fd) };
                    let waits = sessions.metrics().pty_wait_counter();
                    match crate::pty::adopt(master, saved.pid as libc::pid_t, waits) {
                        Ok(adopted) => Some(adopted),
                        Err(error) => {
                            tracing::error!(%id, %error, "cannot take the session's program back: it was ended");
                            continue;
                        }
                    }
                }
                _ => None,
            };
            let adopted = sessions
                .adopt(HandedOver {
                    saved,
                    term,
                    pty,
                    sandbox: handed.sandbox,
                    recording: handed.recording.map(Into::into),
                    pending_input: handed.pending_input,
                })
                .await;
            match adopted {
                Ok(_) => taken += 1,
                Err(error) => tracing::error!(%id, %error, "cannot take the session back"),
            }
        }
        tracing::info!(sessions = taken, of = total, "upgrade: sessions taken back");
    }
}

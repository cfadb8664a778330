//! A session frozen for an upgrade: its actor stopped reading the pty,
//! parsed everything it had read, closed its recording and handed back
//! what the next process image needs, then waits to be thawed. Output not
//! yet read stays in the kernel's pty buffer, and input not yet written
//! travels with the rest: nothing is lost, nothing doubled.

use std::os::fd::RawFd;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;

use super::SavedSession;
use crate::pty::{ChildState, SavedSandbox};
use crate::record::Recorder;

/// What a frozen session hands back.
pub struct Frozen {
    /// Its description.
    pub saved: SavedSession,
    /// Its terminal, as [`Term::save`](panecast_term::Term::save) wrote it.
    pub term: Vec<u8>,
    /// Its pty master, while the program runs.
    pub master: Option<RawFd>,
    /// Its program, held unreaped while the process re-executes.
    pub program: Arc<ChildState>,
    /// Input queued and not yet written to the program, in order.
    pub pending_input: Vec<u8>,
    /// Its recording's clock and settings, when it is recorded.
    pub recording: Option<FrozenRecording>,
    /// Its walls.
    pub sandbox: SavedSandbox,
}

/// A frozen recording, beside its name and size in [`SavedSession`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrozenRecording {
    /// Its clock when it was closed.
    pub elapsed: Duration,
    /// Whether input is recorded too.
    pub input: bool,
    /// False when it had stopped (its byte cap): it is not taken up again.
    pub live: bool,
}

/// What a frozen session is given back when the upgrade did not happen.
pub struct Thawed {
    /// Its recording, reopened where it stopped.
    pub recorder: Option<Recorder>,
}

/// The freeze request an actor is sent: whom to answer, and what to wait
/// on before going on (any outcome, a dropped sender included, thaws it).
pub struct FreezeRequest {
    /// Takes what the session hands back.
    pub reply: oneshot::Sender<Frozen>,
    /// Brings the recording back when the session goes on.
    pub thaw: oneshot::Receiver<Thawed>,
}

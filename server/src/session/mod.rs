//! Sessions: one actor (a tokio task) per child owns its [`Term`], applies
//! the pty's output, and publishes the latest [`Snapshot`] on a `watch`.
//! Everything else talks to it through a [`SessionHandle`]; the
//! [`Sessions`] registry creates, finds and ends them.
//!
//! [`Term`]: crate::term::Term
//! [`Snapshot`]: crate::term::Snapshot

mod actor;
mod handle;
mod metrics;
mod pacer;
mod registry;

use std::time::{Duration, SystemTime};

use crate::input::Key;
use crate::pty::{ExitStatus, SpawnSpec};

pub use handle::SessionHandle;
pub use metrics::Metrics;
pub use registry::{CreateError, Sessions};

/// Everything needed to start a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSpec {
    /// The profile it came from; `None` for a command given in the request.
    pub profile: Option<String>,
    /// What to run, where, at which size.
    pub spawn: SpawnSpec,
    /// Scrollback lines kept.
    pub scrollback: usize,
}

/// What a session is, fixed at its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// 128 random bits as 32 hex digits.
    pub id: String,
    /// The profile it came from; `None` for a command given in the request.
    pub profile: Option<String>,
    /// The argv it runs.
    pub command: Vec<String>,
    /// The child's process id (also its process group and session id).
    pub pid: u32,
    /// When it started.
    pub created_at: SystemTime,
}

/// Whether the child still runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The child runs.
    Running,
    /// The child has exited and been reaped; the final screen stays.
    Exited {
        /// How it ended.
        status: ExitStatus,
        /// When the session saw it end.
        at: SystemTime,
    },
}

impl Status {
    /// True while the child runs.
    pub fn running(&self) -> bool {
        matches!(self, Status::Running)
    }
}

/// Input for the child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Bytes written as they are (typed text, `\r` for Enter).
    Bytes(Vec<u8>),
    /// Named keys, encoded with the terminal's modes when they are written.
    Keys(Vec<Key>),
}

/// A session could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// The child has exited: no more input or resizing.
    #[error("the session has exited")]
    Exited,
    /// The child is not reading its input and the queue is full.
    #[error("the program is not reading its input; try again later")]
    InputBusy,
    /// The terminal could not be resized.
    #[error("cannot resize: {0}")]
    Resize(String),
}

/// The timings of a session's life, from the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timings {
    /// Shortest time between published screens while output streams in.
    pub frame: Duration,
    /// Longest hold of synchronized output.
    pub sync_timeout: Duration,
    /// How long an exited session stays.
    pub linger: Duration,
    /// Time between hangup and kill.
    pub grace: Duration,
}

/// Messages from handles to the actor.
enum Command {
    Input(Input, Reply),
    Resize { cols: u16, rows: u16, reply: Reply },
    Kill(tokio::sync::oneshot::Sender<()>),
}

type Reply = tokio::sync::oneshot::Sender<Result<(), SessionError>>;

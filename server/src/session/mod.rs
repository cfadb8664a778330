//! Sessions: one actor per child owns its [`Term`], applies the pty's
//! output, and publishes the latest [`Snapshot`] on a `watch`. Actors are
//! tasks on the emulator pool ([`crate::pool`]), never a thread each, and
//! yield after every slice of work, so a flooding session gets bounded
//! slices and every other session's echo stays fast.
//! Everything else talks to it through a [`SessionHandle`]; the
//! [`Sessions`] registry creates, finds and ends them.
//!
//! [`Term`]: panecast_term::Term
//! [`Snapshot`]: panecast_term::Snapshot

mod actor;
mod budget;
mod busy;
mod command;
mod errors;
mod freeze;
mod gate;
mod handle;
mod handover;
mod inputs;
mod memory;
mod metrics;
mod pacer;
mod placement;
mod reads;
mod registry;
pub mod replay;
mod room;
mod saved;
pub mod search;
mod shares;
mod theme;
pub mod wait;

use std::time::{Duration, SystemTime};

use panecast_proto::MouseEvent;

use crate::access::{Credential, Principal};
use crate::input::Key;
use crate::pty::{ExitStatus, SpawnSpec};
use crate::record::RecordOptions;

pub(crate) use command::{serve, Command, Reply, Runtime, ScrollbackReply, SearchReply};
pub use errors::{CreateError, FindError, RefusalKind};
pub use freeze::{FreezeRequest, Frozen, FrozenRecording, Thawed};
pub use gate::Gate;
pub(crate) use handle::{Outputs, Source, WeakHandle};
pub use handle::{SessionHandle, StreamRefusal, ViewerSlot};
pub use handover::{FrozenSession, HandedOver};
pub use inputs::InputTag;
pub use memory::release_freed_memory_soon;
pub use metrics::Metrics;
pub use placement::{Elsewhere, NameClaim, Placement};
pub use reads::Reader;
pub use registry::{ReplaySlot, Sessions};
pub use room::{Badge, MemberId, Presence, Room};
pub use saved::{
    SavedOwner, SavedRecording, SavedSession, SavedSessionError, SavedStatus, SAVED_SESSION_VERSION,
};
pub use theme::colors_of;

/// Everything needed to start a session.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionSpec {
    /// Its name, unique among open sessions, if it has one.
    pub name: Option<String>,
    /// The credential that started it (`None`: the server, at boot).
    pub owner: Option<Credential>,
    /// The profile it came from; `None` for a command given in the request.
    pub profile: Option<String>,
    /// The Unix user its profile runs as; `None`: a uid of its own (or the
    /// server's, when the server may not change uids).
    pub user: Option<String>,
    /// What to run, where, at which size.
    pub spawn: SpawnSpec,
    /// Scrollback lines kept.
    pub scrollback: usize,
    /// Whether and how the session is recorded.
    pub record: Option<RecordOptions>,
    /// Largest file its programs may offer in band (OSC 1337 File):
    /// `limits.upload_bytes` when its profile moves files, 0 (none)
    /// otherwise.
    #[serde(default)]
    pub files: u64,
}

/// A session to start on another node of the cluster: the request as its
/// client sent it (the JSON body of `POST /api/sessions`), which that node
/// resolves again with its own configuration, and who asks.
#[derive(Debug, Clone)]
pub struct RemoteCreate {
    /// The request's JSON body.
    pub request: Vec<u8>,
    /// Who asks.
    pub by: Principal,
}

/// What a session is, fixed at its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// 128 random bits as 32 hex digits.
    pub id: String,
    /// Its name, if it has one; the API takes it wherever it takes the id.
    pub name: Option<String>,
    /// The credential that started it.
    pub owner: Option<Credential>,
    /// The profile it came from; `None` for a command given in the request.
    pub profile: Option<String>,
    /// The argv it runs.
    pub command: Vec<String>,
    /// The child's process id (also its process group and session id).
    pub pid: u32,
    /// When it started.
    pub created_at: SystemTime,
    /// The name of its recording, when it is recorded.
    pub recording: Option<String>,
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

/// Why a session ended, for the close code its viewers are given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// The program exited by itself (or a signal from elsewhere ended it).
    Exited = 0,
    /// The session was deleted through the API.
    Deleted = 1,
    /// The server is shutting down.
    ShutDown = 2,
    /// The node that ran it is gone (killed, cut off): seen from another
    /// node of a cluster.
    NodeGone = 3,
}

/// Input for the child. Everything but raw bytes is encoded with the
/// terminal's modes at the moment it is written.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Input {
    /// Bytes written as they are (typed text, `\r` for Enter).
    Bytes(Vec<u8>),
    /// Named keys.
    Keys(Vec<Key>),
    /// Pasted text: bracketed when the program asked, escapes removed.
    Paste(String),
    /// A mouse event: reported only in the program's mouse mode.
    Mouse(MouseEvent),
    /// The viewer's window gained (true) or lost focus: reported only in focus-event mode.
    Focus(bool),
}

impl Input {
    /// Roughly how many bytes this input writes, for rate limits.
    pub fn size(&self) -> usize {
        match self {
            Input::Bytes(bytes) => bytes.len(),
            Input::Keys(keys) => keys.len() * 8,
            Input::Paste(text) => text.len(),
            Input::Mouse(_) | Input::Focus(_) => 16,
        }
    }
}

/// A session could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
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
    /// A size outside the configured limits.
    #[error("{0}")]
    BadSize(String),
    /// More input than the session's input rate allows.
    #[error("input dropped: over the session's input rate limit")]
    RateLimited,
    /// A credential's searches and scrollback reads took their share of
    /// the session's time, or too many searches are under way.
    #[error("too many searches or scrollback reads; try again in a moment")]
    ReadsPaced,
    /// A replay takes no input and keeps its recorded sizes.
    #[error("a replay takes no input")]
    Replay,
    /// A marker was asked of a session that is not being recorded.
    #[error("the session is not being recorded (or its recording stopped at its byte cap)")]
    NotRecording,
    /// A marker label over the limit.
    #[error("{0}")]
    BadMarker(String),
    /// The node that runs the session did not answer in time (another
    /// node of a cluster asked).
    #[error("the session's node did not answer in time; try again")]
    NodeUnreachable,
    /// The node that runs the session refused the request for who it
    /// acts for (its own configuration gives them no such right).
    #[error("the session's node refused: {0}")]
    Denied(String),
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

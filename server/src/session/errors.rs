//! Why a session could not be created or found, here or on another node.

use crate::pty::{self, SpawnError};
use crate::record::RecordError;

/// A session could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// The session limit is reached.
    #[error("the session limit ({0}) is reached; end a session first")]
    TooMany(usize),
    /// As many replays play as `limits.max_replays` allows.
    #[error("{0} replays are open, the limit; close one first")]
    TooManyReplays(usize),
    /// The credential plays `limits.max_replays_per_credential` replays.
    #[error("this credential plays {0} replays, its limit; close one first")]
    TooManyReplaysForCredential(usize),
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The server is upgrading in place (its sessions are frozen).
    #[error("the server is upgrading; try again in a moment")]
    Upgrading,
    /// A running session already has this name.
    #[error("a running session is already named '{0}'")]
    NameTaken(String),
    /// Every uid sessions may have is in use.
    #[error(transparent)]
    NoUid(pty::EnterError),
    /// The child could not be started.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// The recording the session needs could not be started.
    #[error("cannot start the recording: {0}")]
    Record(#[from] RecordError),
    /// Something the server needs failed (randomness, a thread).
    #[error("internal error: {0}")]
    Internal(String),
    /// The node asked for is not a live node of the cluster.
    #[error("no live node of the cluster is named '{0}'")]
    UnknownNode(String),
    /// The cluster (NATS, or the node chosen) cannot be reached.
    #[error("the cluster cannot be reached: {0}")]
    ClusterUnavailable(String),
    /// This node's configuration does not let who another node asks for
    /// start this session, as asked.
    #[error("{0}")]
    Denied(String),
    /// Another node refused, for a reason it gave.
    #[error("node {node}: {message}")]
    Refused {
        /// The node.
        node: String,
        /// Its answer's code (as `api/error.rs` gives it).
        code: RefusalKind,
        /// Its message.
        message: String,
    },
}

/// What kind of refusal another node gave to a create: enough to answer
/// with the same status and code as if it had been refused here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RefusalKind {
    /// Its sessions or uids are all in use.
    Full,
    /// Shutting down or upgrading.
    Unavailable,
    /// The program could not be started, short of something.
    ShortOf(pty::Shortage),
    /// The program could not be started.
    Spawn,
    /// The recording could not be started.
    Record,
    /// The name is taken.
    NameTaken,
    /// The node's own configuration does not let who it acts for start
    /// this session.
    Denied,
    /// Anything else.
    Internal,
}

impl CreateError {
    /// What kind of refusal this is, told to another node.
    pub(crate) fn refusal_kind(&self) -> RefusalKind {
        match self {
            CreateError::TooMany(_)
            | CreateError::NoUid(_)
            | CreateError::TooManyReplays(_)
            | CreateError::TooManyReplaysForCredential(_) => RefusalKind::Full,
            CreateError::ShuttingDown | CreateError::Upgrading => RefusalKind::Unavailable,
            CreateError::Spawn(SpawnError {
                short_of: Some(shortage),
                ..
            }) => RefusalKind::ShortOf(*shortage),
            CreateError::Spawn(_) => RefusalKind::Spawn,
            CreateError::Record(_) => RefusalKind::Record,
            CreateError::NameTaken(_) => RefusalKind::NameTaken,
            CreateError::Denied(_) => RefusalKind::Denied,
            CreateError::Refused { code, .. } => *code,
            CreateError::Internal(_)
            | CreateError::UnknownNode(_)
            | CreateError::ClusterUnavailable(_) => RefusalKind::Internal,
        }
    }
}

/// Another node's session could not be reached.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct FindError(pub(crate) String);

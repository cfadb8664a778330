//! What a node's own configuration says of a request another node sends
//! about one of its sessions. The node that runs a session checks every
//! ask from the cluster bus as if it came from outside: who it acts for
//! gets their grant again here ([`Gate::regrant`]), the same
//! [`Grant::check`] as the API's decides each action, and a session to
//! start is resolved again from the request as its client sent it
//! ([`Gate::admit`]): the profile, its user, the limits, all this node's.
//! The API implements it, with the configuration and credentials.

use crate::access::{Grant, Principal};

use super::{CreateError, SessionSpec};

/// This node's judgement of requests from other nodes.
pub trait Gate: Send + Sync {
    /// The grant `principal` has on this node; `None` when it is no
    /// credential here.
    fn regrant(&self, principal: &Principal) -> Option<Grant>;

    /// The session `grant` may start on this node from `request`, the JSON
    /// body of `POST /api/sessions` as its client sent it; refused as the
    /// API would refuse it here.
    fn admit(&self, request: &[u8], grant: &Grant) -> Result<SessionSpec, CreateError>;
}

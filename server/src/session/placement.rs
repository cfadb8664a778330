//! What the sessions need from where they are placed: in a cluster, names
//! claimed across the nodes, records kept for the other nodes, and other
//! nodes' sessions found and started. The session declares it; the
//! cluster implements it ([`crate::session::Sessions::place`]), so the
//! session knows nothing of the bus or the registry.

use std::any::Any;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use crate::access::Credential;

use super::{CreateError, FindError, RemoteCreate, SessionHandle, SessionSpec, Sessions};

/// Where this node's sessions live among others: none without a cluster.
/// `Any`, so that the one who placed them can find its own again.
pub trait Placement: Any + Send + Sync {
    /// Claims `name` for session `id` across the placement; `replaceable`
    /// are this node's exited sessions just ended to free it.
    fn claim<'a>(
        &'a self,
        name: &'a str,
        id: &'a str,
        replaceable: &'a [String],
    ) -> BoxFuture<'a, Result<Box<dyn NameClaim>, CreateError>>;

    /// Tells the others of a session that now runs at this size, and
    /// follows it until it ends.
    fn announce<'a>(
        &'a self,
        session: &'a SessionHandle,
        cols: u16,
        rows: u16,
    ) -> BoxFuture<'a, ()>;

    /// Session `id` on another node, as this node last heard of it.
    fn elsewhere(&self, id: &str) -> Option<Elsewhere>;

    /// Another node's session with this id, or else this name, through
    /// this node's mirror of it (opened when there is none yet).
    fn find<'a>(
        &'a self,
        sessions: &'a Arc<Sessions>,
        id_or_name: &'a str,
    ) -> BoxFuture<'a, Result<Option<SessionHandle>, FindError>>;

    /// Starts a session on `node`, or on the node with the most room:
    /// this one with `spec`, another from `remote`.
    fn create_on<'a>(
        &'a self,
        sessions: &'a Arc<Sessions>,
        spec: SessionSpec,
        node: Option<&'a str>,
        remote: RemoteCreate,
    ) -> BoxFuture<'a, Result<SessionHandle, CreateError>>;
}

/// A name claimed for a session that is not running yet: freed when
/// dropped unless kept.
pub trait NameClaim: Send {
    /// The session runs: its name stays claimed until it ends.
    fn keep(self: Box<Self>);
}

/// What this node knows of a session on another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elsewhere {
    /// The credential that started it, if its record tells one.
    pub owner: Option<Credential>,
}

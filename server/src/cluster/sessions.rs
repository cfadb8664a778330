//! This node's sessions in the cluster registry, with `serve --cluster`:
//! the cluster's [`Placement`] of the sessions. A session's name is
//! claimed cluster-wide before its program starts, its record is written
//! once it runs, written again when it is resized (its published screen
//! changes size) and when it exits, and removed when it ends. When this
//! node comes back after it was gone (see `cluster::registry`), each
//! session registers again, its record and its name. Another node's
//! session is found and started through this node's mirror of it.
//! Without a cluster nothing here runs.

use std::any::Any;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use tokio::runtime::Handle;

use crate::cluster::{Registry, RegistryError, SessionRecord};
use crate::session::{
    CreateError, Elsewhere, FindError, Gate, NameClaim, Placement, RefusalKind, RemoteCreate,
    SessionHandle, SessionSpec, Sessions, Status, WeakHandle,
};
use crate::time::rfc3339;

use super::remote;

/// The registry and the runtime its writes run on (sessions end on the
/// emulator pool's threads).
#[derive(Clone)]
pub(crate) struct Cluster {
    pub(crate) registry: Arc<Registry>,
    pub(crate) runtime: Handle,
}

impl Sessions {
    /// The cluster registry this node joined, if any (`serve --cluster`).
    pub fn cluster(&self) -> Option<&Arc<Registry>> {
        let placement: &dyn Any = self.placement()?.as_ref();
        placement
            .downcast_ref::<Cluster>()
            .map(|cluster| &cluster.registry)
    }

    /// Registers the sessions created from now on in the cluster's
    /// `registry` (names claimed cluster-wide), with its writes on the
    /// current tokio runtime, and serves other nodes' asks about this
    /// node's sessions (from before this returns). Once: later calls
    /// change nothing.
    pub async fn join_cluster(
        self: &Arc<Self>,
        registry: Arc<Registry>,
        gate: Arc<dyn Gate>,
    ) -> Result<(), String> {
        let joined = self.place(Arc::new(Cluster {
            registry: Arc::clone(&registry),
            runtime: Handle::current(),
        }));
        if joined {
            remote::serve_asks(Arc::downgrade(self), registry, gate)
                .await
                .map_err(|e| format!("cannot take other nodes' asks: {e}"))?;
        }
        Ok(())
    }
}

/// A name claimed in the cluster for a session that is not running yet:
/// freed when dropped unless kept.
struct ClusterClaim {
    cluster: Cluster,
    name: String,
    id: String,
    kept: bool,
}

impl NameClaim for ClusterClaim {
    fn keep(mut self: Box<Self>) {
        self.kept = true;
    }
}

impl Drop for ClusterClaim {
    fn drop(&mut self) {
        if self.kept {
            return;
        }
        let registry = Arc::clone(&self.cluster.registry);
        let (name, id) = (std::mem::take(&mut self.name), std::mem::take(&mut self.id));
        self.cluster.runtime.spawn(async move {
            if let Err(e) = registry.free_name(&name, &id).await {
                tracing::warn!(error = %e, %name, "cannot free a name in the cluster");
            }
        });
    }
}

impl Cluster {
    /// Claims `name` for session `id` across the cluster; `replaceable`
    /// are this node's exited sessions just ended to free it.
    async fn claim_name(
        &self,
        name: &str,
        id: &str,
        replaceable: &[String],
    ) -> Result<Box<dyn NameClaim>, CreateError> {
        match self.registry.claim_name(name, id, replaceable).await {
            Ok(()) => Ok(Box::new(ClusterClaim {
                cluster: self.clone(),
                name: name.to_owned(),
                id: id.to_owned(),
                kept: false,
            })),
            Err(RegistryError::NameTaken(name)) => Err(CreateError::NameTaken(name)),
            Err(e) => Err(CreateError::ClusterUnavailable(e.to_string())),
        }
    }

    /// Writes the record of a session that now runs, and follows it: the
    /// record again when the program exits, and its removal when the
    /// session ends (its actor gone).
    async fn follow(&self, session: &SessionHandle, cols: u16, rows: u16) {
        let mut record = SessionRecord {
            cols,
            rows,
            ..record_of(session, self.registry.node())
        };
        if let Err(e) = self.registry.update(&record).await {
            tracing::warn!(error = %e, id = %record.id, "cannot register a session in the cluster");
        }
        let registry = Arc::clone(&self.registry);
        let mut status = session.watch_status();
        let mut screens = session.subscribe();
        let mut rejoins = registry.rejoins();
        self.runtime.spawn(async move {
            let write = |record: &SessionRecord, what: &'static str| {
                let registry = Arc::clone(&registry);
                let record = record.clone();
                async move {
                    if let Err(e) = registry.update(&record).await {
                        tracing::warn!(error = %e, id = %record.id, "cannot {what} in the cluster");
                    }
                }
            };
            let exited = status.borrow_and_update().clone();
            if mark_exited(&mut record, &exited) {
                write(&record, "mark a session exited").await;
            }
            // Until the actor is gone (the status's sender dropped).
            let mut screens_open = true;
            loop {
                tokio::select! {
                    changed = status.changed() => {
                        if changed.is_err() {
                            break;
                        }
                        let now = status.borrow_and_update().clone();
                        if mark_exited(&mut record, &now) {
                            write(&record, "mark a session exited").await;
                        }
                    }
                    changed = rejoins.changed() => {
                        if changed.is_err() {
                            break;
                        }
                        if let Err(e) = registry.rejoin(&mut record).await {
                            tracing::warn!(error = %e, id = %record.id, "cannot register a session again in the cluster");
                        }
                    }
                    changed = screens.changed(), if screens_open => {
                        if changed.is_err() {
                            screens_open = false;
                            continue;
                        }
                        let (cols, rows, title) = {
                            let screen = screens.borrow_and_update();
                            (screen.cols, screen.rows, screen.title.to_string())
                        };
                        if (cols, rows) != (record.cols, record.rows) {
                            record.cols = cols;
                            record.rows = rows;
                            record.title = title;
                            write(&record, "record a session's new size").await;
                        }
                    }
                }
            }
            if let Err(e) = registry.unregister(&record).await {
                tracing::warn!(error = %e, id = %record.id, "cannot unregister a session from the cluster");
            }
        });
    }
}

impl Cluster {
    /// Another node's session with this id, or else this name, through
    /// this node's mirror of it.
    async fn find_elsewhere(
        &self,
        sessions: &Arc<Sessions>,
        id_or_name: &str,
    ) -> Result<Option<SessionHandle>, FindError> {
        let found = self.registry.find_remote_session(id_or_name).await;
        let Some(record) = found.map_err(|e| FindError(e.to_string()))? else {
            return Ok(None);
        };
        self.mirror_of(sessions, record).await
    }

    /// This node's mirror of `record`'s session, opened when there is
    /// none yet (waiting for its first screen); `None` when its owner no
    /// longer has it.
    async fn mirror_of(
        &self,
        sessions: &Arc<Sessions>,
        record: SessionRecord,
    ) -> Result<Option<SessionHandle>, FindError> {
        if let Some(mirror) = sessions.mirror(&record.id) {
            return Ok(Some(mirror));
        }
        let _opening = sessions.opening_mirror().await;
        if let Some(mirror) = sessions.mirror(&record.id) {
            return Ok(Some(mirror));
        }
        let (weak, id) = (Arc::downgrade(sessions), record.id.clone());
        let ended = move |mirror: &WeakHandle| {
            if let Some(sessions) = weak.upgrade() {
                sessions.forget_mirror(&id, mirror);
            }
        };
        match remote::open_mirror(
            self.registry.bus().clone(),
            &record,
            sessions.limits(),
            sessions.size_policy(),
            Box::new(ended),
        )
        .await
        {
            Ok(mirror) => {
                sessions.keep_mirror(&record.id, &mirror);
                Ok(Some(mirror))
            }
            Err(remote::OpenError::NotFound) => Ok(None),
            Err(e) => Err(FindError(e.to_string())),
        }
    }

    /// Starts a session on `node`, or else on the live node with the most
    /// room (the fewest running sessions; every node has the same
    /// limits), this one first of equals. Another node starts it from
    /// `remote` (resolved again there); it is given through this node's
    /// mirror of it.
    async fn start_on(
        &self,
        sessions: &Arc<Sessions>,
        spec: SessionSpec,
        node: Option<&str>,
        remote: RemoteCreate,
    ) -> Result<SessionHandle, CreateError> {
        let registry = &self.registry;
        let max_sessions = sessions.limits().max_sessions;
        let live = registry
            .live_nodes()
            .await
            .map_err(|e| CreateError::ClusterUnavailable(e.to_string()))?;
        let target = match node {
            Some(node) if live.iter().any(|n| n == node) => node.to_owned(),
            Some(node) => return Err(CreateError::UnknownNode(node.to_owned())),
            None => registry
                .roomiest(&live, max_sessions)
                .ok_or(CreateError::TooMany(max_sessions))?,
        };
        if target == registry.node() {
            return sessions.create(spec).await;
        }
        let record = remote::create_on(registry.bus(), &target, spec.name.clone(), remote).await?;
        let id = record.id.clone();
        match self.mirror_of(sessions, record).await {
            Ok(Some(session)) => Ok(session),
            Ok(None) => Err(CreateError::Refused {
                node: target,
                code: RefusalKind::Internal,
                message: format!("session {id} ended as it started"),
            }),
            Err(e) => Err(CreateError::ClusterUnavailable(e.to_string())),
        }
    }
}

impl Placement for Cluster {
    fn claim<'a>(
        &'a self,
        name: &'a str,
        id: &'a str,
        replaceable: &'a [String],
    ) -> BoxFuture<'a, Result<Box<dyn NameClaim>, CreateError>> {
        self.claim_name(name, id, replaceable).boxed()
    }

    fn announce<'a>(
        &'a self,
        session: &'a SessionHandle,
        cols: u16,
        rows: u16,
    ) -> BoxFuture<'a, ()> {
        self.follow(session, cols, rows).boxed()
    }

    fn elsewhere(&self, id: &str) -> Option<Elsewhere> {
        let record = self.registry.remote_session(id)?;
        Some(Elsewhere {
            owner: record.owner.and_then(|owner| owner.parse().ok()),
        })
    }

    fn find<'a>(
        &'a self,
        sessions: &'a Arc<Sessions>,
        id_or_name: &'a str,
    ) -> BoxFuture<'a, Result<Option<SessionHandle>, FindError>> {
        self.find_elsewhere(sessions, id_or_name).boxed()
    }

    fn create_on<'a>(
        &'a self,
        sessions: &'a Arc<Sessions>,
        spec: SessionSpec,
        node: Option<&'a str>,
        remote: RemoteCreate,
    ) -> BoxFuture<'a, Result<SessionHandle, CreateError>> {
        self.start_on(sessions, spec, node, remote).boxed()
    }
}

/// The record of `session`, running on `node`, as it is now.
pub(crate) fn record_of(session: &SessionHandle, node: &str) -> SessionRecord {
    let info = session.info();
    let screen = session.screen();
    let mut record = SessionRecord {
        id: info.id.clone(),
        node: node.to_owned(),
        name: info.name.clone(),
        profile: info.profile.clone(),
        cols: screen.cols,
        rows: screen.rows,
        state: "running".to_owned(),
        owner: info.owner.as_ref().map(ToString::to_string),
        command: info.command.clone(),
        pid: info.pid,
        title: screen.title.to_string(),
        created_at: rfc3339(info.created_at),
        exit_code: None,
        exit_signal: None,
        exited_at: None,
        recording: info.recording.clone(),
    };
    mark_exited(&mut record, &session.status());
    record
}

/// Marks `record` exited as `status` says, once: true when it changed.
fn mark_exited(record: &mut SessionRecord, status: &Status) -> bool {
    match status {
        Status::Exited { status, at } if record.state == "running" => {
            record.state = "exited".to_owned();
            record.exit_code = status.code;
            record.exit_signal = status.signal.clone();
            record.exited_at = Some(rfc3339(*at));
            true
        }
        _ => false,
    }
}

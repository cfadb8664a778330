//! This node's sessions in the cluster registry, with `serve --cluster`:
//! a session's name is claimed cluster-wide before its program starts,
//! its record is written once it runs, written again when it is resized
//! (its published screen changes size) and when it exits, and removed
//! when it ends. When this node comes back after it was gone (see
//! `cluster::registry`), each session registers again, its record and its
//! name. Without a cluster nothing here runs.

use std::sync::Arc;

use tokio::runtime::Handle;

use crate::cluster::{Registry, RegistryError, SessionRecord};

use crate::time::rfc3339;

use super::errors::CreateError;
use super::{SessionHandle, Status};

/// The registry and the runtime its writes run on (sessions end on the
/// emulator pool's threads).
#[derive(Clone)]
pub(super) struct Cluster {
    pub(super) registry: Arc<Registry>,
    pub(super) runtime: Handle,
}

/// A name claimed for a session that is not running yet: freed when
/// dropped unless kept.
pub(super) struct NameClaim {
    cluster: Cluster,
    name: String,
    id: String,
    kept: bool,
}

impl NameClaim {
    /// The session runs: its name stays claimed until it ends.
    pub(super) fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for NameClaim {
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
    pub(super) async fn claim(
        &self,
        name: &str,
        id: &str,
        replaceable: &[String],
    ) -> Result<NameClaim, CreateError> {
        match self.registry.claim_name(name, id, replaceable).await {
            Ok(()) => Ok(NameClaim {
                cluster: self.clone(),
                name: name.to_owned(),
                id: id.to_owned(),
                kept: false,
            }),
            Err(RegistryError::NameTaken(name)) => Err(CreateError::NameTaken(name)),
            Err(e) => Err(CreateError::ClusterUnavailable(e.to_string())),
        }
    }

    /// Writes the record of a session that now runs, and follows it: the
    /// record again when the program exits, and its removal when the
    /// session ends (its actor gone).
    pub(super) async fn announce(&self, session: &SessionHandle, cols: u16, rows: u16) {
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

/// The record of `session`, running on `node`, as it is now.
pub(super) fn record_of(session: &SessionHandle, node: &str) -> SessionRecord {
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

//! Each node's in-memory copy of the sessions bucket, so that listing the
//! cluster's sessions reads memory rather than one record per request.
//!
//! A task watches the bucket (a KV watch with history: the last entry of
//! every key, then each change as it happens) and applies every entry in
//! stream order, remembering the last stream sequence applied. A list asks
//! the stream for its last sequence (one request) and waits until the copy
//! has applied it, so that it holds at least every write made before the
//! list began, on any node (a node's own writes included).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use async_nats::jetstream::kv::{Entry, Operation, Store};
use futures_util::StreamExt;
use tokio::sync::watch;

use super::bus::Bus;
use super::record::{record_context, SessionRecord, SESSIONS_BUCKET};
use super::seal::Kind;

/// How long to wait before watching again after the watch failed.
const REWATCH_DELAY: Duration = Duration::from_secs(1);

/// The sessions bucket's records by id, and how far into the bucket's
/// stream they are.
#[derive(Debug)]
pub(super) struct Cache {
    records: RwLock<HashMap<String, SessionRecord>>,
    applied: watch::Sender<u64>,
    /// Opens the records.
    bus: Bus,
}

impl Cache {
    /// An empty copy, before anything is applied, opening records with
    /// `bus`'s seal.
    pub(super) fn new(bus: Bus) -> Cache {
        Cache {
            records: RwLock::new(HashMap::new()),
            applied: watch::channel(0).0,
            bus,
        }
    }

    /// Applies one entry of the bucket: a record written or removed (a
    /// name's key only moves the sequence on). A record no node sealed
    /// under its key is left out, as a malformed one is.
    fn apply(&self, entry: &Entry) {
        if let Some(id) = entry.key.strip_prefix("id.") {
            let context = record_context(SESSIONS_BUCKET, &entry.key);
            let mut records = self.records.write().unwrap_or_else(|e| e.into_inner());
            match entry.operation {
                Operation::Put => match self
                    .bus
                    .open(Kind::Record, &context, &entry.value)
                    .map_err(|refusal| refusal.to_string())
                    .and_then(|opened| {
                        serde_json::from_slice::<SessionRecord>(opened.payload)
                            .map_err(|e| e.to_string())
                    }) {
                    Ok(record) => {
                        records.insert(id.to_owned(), record);
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, key = %entry.key, "a session record in the registry refused");
                        records.remove(id);
                    }
                },
                Operation::Delete | Operation::Purge => {
                    records.remove(id);
                }
            }
        }
        self.applied.send_if_modified(|applied| {
            let moved = entry.revision > *applied;
            *applied = (*applied).max(entry.revision);
            moved
        });
    }

    /// Waits at most `wait` until the copy has applied stream sequence
    /// `sequence`; false when it has not by then.
    pub(super) async fn caught_up(&self, sequence: u64, wait: Duration) -> bool {
        let mut applied = self.applied.subscribe();
        tokio::time::timeout(wait, applied.wait_for(|applied| *applied >= sequence))
            .await
            .is_ok_and(|result| result.is_ok())
    }

    /// Whether the record of session `id` is held.
    pub(super) fn has(&self, id: &str) -> bool {
        self.records
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(id)
    }

    /// The record of the session with id `id_or_name`, or else with that
    /// name.
    pub(super) fn find(&self, id_or_name: &str) -> Option<SessionRecord> {
        let records = self.records.read().unwrap_or_else(|e| e.into_inner());
        records
            .get(id_or_name)
            .or_else(|| {
                records
                    .values()
                    .find(|r| r.name.as_deref() == Some(id_or_name))
            })
            .cloned()
    }

    /// Every record held, for which `keep` is true, by id.
    pub(super) fn records(
        &self,
        mut keep: impl FnMut(&SessionRecord) -> bool,
    ) -> Vec<SessionRecord> {
        let records = self.records.read().unwrap_or_else(|e| e.into_inner());
        let mut listed: Vec<SessionRecord> =
            records.values().filter(|r| keep(r)).cloned().collect();
        listed.sort_by(|a, b| a.id.cmp(&b.id));
        listed
    }

    /// Keeps the copy current from `store` until the returned task is
    /// aborted, watching again (from every key's last entry) whenever the
    /// watch fails.
    pub(super) fn follow(self: Arc<Self>, store: Store) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                match store.watch_with_history(">").await {
                    Ok(mut entries) => {
                        while let Some(entry) = entries.next().await {
                            match entry {
                                Ok(entry) => self.apply(&entry),
                                Err(e) => {
                                    tracing::warn!(error = %e, "the watch of the sessions bucket failed");
                                    break;
                                }
                            }
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot watch the sessions bucket");
                    }
                }
                tokio::time::sleep(REWATCH_DELAY).await;
            }
        })
    }
}

/// Aborts the watching task when the last handle on the registry goes.
#[derive(Debug)]
pub(super) struct Follower(pub(super) tokio::task::JoinHandle<()>);

impl Drop for Follower {
    fn drop(&mut self) {
        self.0.abort();
    }
}

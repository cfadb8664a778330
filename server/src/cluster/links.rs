//! Share links across the cluster, in the JetStream KV bucket
//! `panecast_links`: each live link under its token's SHA-256 (never the
//! token), as JSON sealed by the node that minted it (a link no node
//! sealed is refused). Every node writes the links minted and revoked on it
//! (a revocation deletes the key) and watches the bucket to take in the
//! others', so that a link works on every node and a revoked one stops on
//! every node within the watch's delivery (milliseconds), its open
//! streams closed with 4003. The bucket's `max_age` is the longest link
//! lifetime, so expired links leave it by themselves.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::kv::{Operation, Store};
use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::registry::{kv_error, kv_stream, open_stream, Registry, RegistryError};
use crate::access::{Access, LinkChange, SavedLink};

/// The bucket of share links.
pub const LINKS_BUCKET: &str = "panecast_links";

/// How long to wait before watching again after the watch failed.
const REWATCH_DELAY: Duration = Duration::from_secs(1);

/// How often a write to the bucket is tried before it is given up (and
/// logged): a revocation that is lost would leave a link working.
const WRITE_TRIES: u32 = 10;

impl Registry {
    /// Shares `access`'s links with every node until the server ends:
    /// writes this node's changes, takes in the others'. Links live up to
    /// `max_ttl`.
    pub async fn share_links(
        &self,
        access: Arc<Access>,
        max_ttl: Duration,
    ) -> Result<(), RegistryError> {
        let jetstream = async_nats::jetstream::new(self.client().clone());
        let failed = |source| RegistryError::Bucket {
            bucket: LINKS_BUCKET,
            url: self.url().to_owned(),
            source,
        };
        open_stream(&jetstream, kv_stream(LINKS_BUCKET, max_ttl))
            .await
            .map_err(failed)?;
        let store = jetstream
            .get_key_value(LINKS_BUCKET)
            .await
            .map_err(|e| failed(e.into()))?;
        let changes = access.links().replicate();
        tokio::spawn(write_changes(self.clone(), store.clone(), changes));
        tokio::spawn(take_in(self.clone(), store, access));
        Ok(())
    }
}

/// Writes every change told by this node's links to the bucket.
async fn write_changes(
    registry: Registry,
    store: Store,
    mut changes: mpsc::UnboundedReceiver<LinkChange>,
) {
    while let Some(change) = changes.recv().await {
        for attempt in 1..=WRITE_TRIES {
            let written = match &change {
                LinkChange::Minted(link) => {
                    // A struct of strings, numbers and times always serializes.
                    let value = serde_json::to_vec(link).expect("a SavedLink serializes");
                    let value = registry.seal_record(LINKS_BUCKET, &link.token_hash, &value);
                    store
                        .put(&link.token_hash, value.into())
                        .await
                        .map(drop)
                        .map_err(|e| kv_error("writing a share link")(e.into()))
                }
                LinkChange::Revoked(hash) => store
                    .delete(hash)
                    .await
                    .map_err(|e| kv_error("revoking a share link")(e.into())),
            };
            match written {
                Ok(()) => break,
                Err(e) if attempt == WRITE_TRIES => {
                    tracing::error!(error = %e, "a share link's change did not reach the cluster");
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
    }
}

/// Takes every node's changes in from the bucket, watching it again
/// whenever the watch fails.
async fn take_in(registry: Registry, store: Store, access: Arc<Access>) {
    loop {
        match store.watch_with_history(">").await {
            Ok(mut entries) => {
                while let Some(entry) = entries.next().await {
                    let entry = match entry {
                        Ok(entry) => entry,
                        Err(e) => {
                            tracing::warn!(error = %e, "the watch of the share links failed");
                            break;
                        }
                    };
                    let change = match entry.operation {
                        Operation::Put => match registry
                            .open_record(LINKS_BUCKET, &entry.key, &entry.value)
                            .map(serde_json::from_slice::<SavedLink>)
                        {
                            Ok(Ok(link)) if link.token_hash == entry.key => {
                                LinkChange::Minted(link)
                            }
                            _ => {
                                tracing::warn!(key = %entry.key, "a share link in the cluster refused (not sealed by a node, or malformed)");
                                continue;
                            }
                        },
                        Operation::Delete | Operation::Purge => LinkChange::Revoked(entry.key),
                    };
                    access.links().apply(change);
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot watch the share links"),
        }
        tokio::time::sleep(REWATCH_DELAY).await;
    }
}

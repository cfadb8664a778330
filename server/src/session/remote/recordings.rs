//! Recordings across the cluster: each stays on the disk of the node that
//! wrote it (its session's owner), and any node lists, reads, replays and
//! deletes it by asking that node, a part at a time.

use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

use async_nats::Client;
use futures_util::future::join_all;

use super::ask::{ask, ask_subject, Answer, Ask, Asked, RecordRefusal, RECORDINGS};
use crate::cluster::Bytes;
use crate::record::{RecordError, RecordingInfo, Recordings};

/// The most bytes one part of a recording carries (NATS's default
/// `max_payload` is 1 MiB).
pub(in crate::session) const PART: u32 = 512 << 10;

/// A node's answer about its recordings.
pub(super) async fn answer(recordings: Arc<Recordings>, ask: Ask) -> Answer {
    let done = tokio::task::spawn_blocking(move || match ask {
        Ask::Recordings => recordings.list().map(Answer::Recordings),
        Ask::Recording(name) => recordings
            .info(&name)
            .map(|info| Answer::Recording(Box::new(info))),
        Ask::RecordingPart { name, offset, len } => {
            read_part(&recordings, &name, offset, len.min(PART)).map(|b| Answer::Part(Bytes(b)))
        }
        Ask::DeleteRecording(name) => recordings.delete(&name).map(|()| Answer::Done),
        _ => Ok(Answer::NoSession),
    })
    .await;
    match done {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => Answer::RecordingRefused(RecordRefusal::of(&e)),
        Err(e) => Answer::RecordingRefused(RecordRefusal::Io(e.to_string())),
    }
}

/// Bytes `offset .. offset + len` of recording `name`, fewer at its end.
fn read_part(
    recordings: &Recordings,
    name: &str,
    offset: u64,
    len: u32,
) -> Result<Vec<u8>, RecordError> {
    let mut file = recordings.open(name)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut part = Vec::new();
    file.take(u64::from(len)).read_to_end(&mut part)?;
    Ok(part)
}

/// The error an unexpected answer about recording `name` stands for.
fn unexpected(name: &str, asked: Asked) -> RecordError {
    match asked {
        Asked::Answer(Answer::RecordingRefused(refusal)) => refusal.error(name),
        Asked::NoResponders => RecordError::NotFound(name.to_owned()),
        Asked::Answer(other) => RecordError::Io(std::io::Error::other(format!(
            "an answer out of place: {other:?}"
        ))),
        Asked::Failed(e) => RecordError::Io(std::io::Error::other(e)),
    }
}

/// The recordings of each of `nodes`, each entry naming its node; a node
/// that does not answer is left out (and logged).
pub(in crate::session) async fn list(client: &Client, nodes: &[String]) -> Vec<RecordingInfo> {
    let asks = nodes.iter().map(|node| async move {
        let subject = ask_subject(node, RECORDINGS);
        match ask(client, &subject, &Ask::Recordings).await {
            Asked::Answer(Answer::Recordings(list)) => list
                .into_iter()
                .map(|info| RecordingInfo {
                    node: Some(node.clone()),
                    ..info
                })
                .collect(),
            other => {
                tracing::warn!(%node, answer = ?DebugAsked(&other), "a node did not list its recordings");
                Vec::new()
            }
        }
    });
    join_all(asks).await.into_iter().flatten().collect()
}

/// The entry of recording `name` on the first of `nodes` that has it.
pub(in crate::session) async fn find(
    client: &Client,
    nodes: &[String],
    name: &str,
) -> Option<RecordingInfo> {
    let asks = nodes.iter().map(|node| async move {
        let subject = ask_subject(node, RECORDINGS);
        match ask(client, &subject, &Ask::Recording(name.to_owned())).await {
            Asked::Answer(Answer::Recording(info)) => Some(RecordingInfo {
                node: Some(node.clone()),
                ..*info
            }),
            _ => None,
        }
    });
    join_all(asks).await.into_iter().flatten().next()
}

/// Bytes of recording `name` on `node` from `offset`, at most [`PART`].
pub(in crate::session) async fn read(
    client: &Client,
    node: &str,
    name: &str,
    offset: u64,
) -> Result<Vec<u8>, RecordError> {
    let part = Ask::RecordingPart {
        name: name.to_owned(),
        offset,
        len: PART,
    };
    match ask(client, &ask_subject(node, RECORDINGS), &part).await {
        Asked::Answer(Answer::Part(bytes)) => Ok(bytes.0),
        other => Err(unexpected(name, other)),
    }
}

/// Deletes recording `name` on `node`.
pub(in crate::session) async fn delete(
    client: &Client,
    node: &str,
    name: &str,
) -> Result<(), RecordError> {
    let delete = Ask::DeleteRecording(name.to_owned());
    match ask(client, &ask_subject(node, RECORDINGS), &delete).await {
        Asked::Answer(Answer::Done) => Ok(()),
        other => Err(unexpected(name, other)),
    }
}

/// An answer for a log line, without the bytes it may carry.
struct DebugAsked<'a>(&'a Asked);

impl std::fmt::Debug for DebugAsked<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Asked::Answer(_) => f.write_str("an answer out of place"),
            Asked::NoResponders => f.write_str("no responders"),
            Asked::Failed(e) => write!(f, "failed: {e}"),
        }
    }
}

impl crate::session::Sessions {
    /// The other live nodes of the cluster; none without one, or when the
    /// registry cannot be read (logged).
    async fn other_nodes(&self) -> Vec<String> {
        let Some(registry) = self.cluster() else {
            return Vec::new();
        };
        match registry.live_nodes().await {
            Ok(nodes) => nodes
                .into_iter()
                .filter(|node| node != registry.node())
                .collect(),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the cluster's nodes");
                Vec::new()
            }
        }
    }

    /// The recordings on the other nodes of the cluster, each naming its
    /// node (none without a cluster).
    pub async fn recordings_elsewhere(&self) -> Vec<RecordingInfo> {
        match self.cluster() {
            Some(registry) => list(registry.client(), &self.other_nodes().await).await,
            None => Vec::new(),
        }
    }

    /// Recording `name` on another node of the cluster, if one has it.
    pub async fn recording_elsewhere(&self, name: &str) -> Option<RecordingInfo> {
        let registry = self.cluster()?;
        find(registry.client(), &self.other_nodes().await, name).await
    }

    /// Bytes of recording `name` on `node` from `offset`: at most
    /// [`PART`], none at its end.
    pub async fn read_recording_elsewhere(
        &self,
        node: &str,
        name: &str,
        offset: u64,
    ) -> Result<Vec<u8>, RecordError> {
        let registry = self
            .cluster()
            .ok_or_else(|| RecordError::NotFound(name.to_owned()))?;
        read(registry.client(), node, name, offset).await
    }

    /// Deletes recording `name` on `node`.
    pub async fn delete_recording_elsewhere(
        &self,
        node: &str,
        name: &str,
    ) -> Result<(), RecordError> {
        let registry = self
            .cluster()
            .ok_or_else(|| RecordError::NotFound(name.to_owned()))?;
        delete(registry.client(), node, name).await
    }
}

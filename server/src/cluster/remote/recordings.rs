//! Recordings across the cluster: each stays on the disk of the node that
//! wrote it (its session's owner), and any node lists, reads, replays and
//! deletes it by asking that node, a part at a time.

use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

use futures_util::future::join_all;

use super::ask::{ask, ask_subject, Answer, Ask, Asked, RecordRefusal, RECORDINGS};
use super::incoming::Incoming;
use crate::access::{Action, Principal};
use crate::cluster::{Bus, Bytes};
use crate::record::{RecordError, RecordingInfo, Recordings};
use crate::session::Sessions;

/// The most bytes one part of a recording carries (NATS's default
/// `max_payload` is 1 MiB).
pub(in crate::cluster) const PART: u32 = 512 << 10;

/// A node's answer about its recordings, to an ask `asked` opened: each
/// checked for who it acts for, as the API checks a recording (a
/// recording outside their reach is answered as not found).
pub(super) async fn answer(sessions: &Arc<Sessions>, asked: &Incoming, ask: Ask) -> Answer {
    let (by, name, action) = match &ask {
        Ask::Recordings { by } => (by, None, Action::List),
        Ask::Recording { name, by } | Ask::RecordingPart { name, by, .. } => {
            (by, Some(name.clone()), Action::Read)
        }
        Ask::DeleteRecording { name, by } => (by, Some(name.clone()), Action::Delete),
        _ => return Answer::NoSession,
    };
    let Ok(grant) = asked.judged(by, "recordings", |_| Ok(())) else {
        return Answer::RecordingRefused(RecordRefusal::NotFound);
    };
    let recordings = Arc::clone(sessions.recordings());
    if let Some(name) = name {
        let info = match blocking(&recordings, move |r| r.info(&name)).await {
            Ok(info) => info,
            Err(refusal) => return Answer::RecordingRefused(refusal),
        };
        let checked = asked.judged(by, &info.name, |grant| {
            sessions.check_recording(grant, &info, action)
        });
        if checked.is_err() {
            return Answer::RecordingRefused(RecordRefusal::NotFound);
        }
    }
    let done = blocking(&recordings, move |recordings| match ask {
        Ask::Recordings { .. } => recordings.list().map(Answer::Recordings),
        Ask::Recording { name, .. } => recordings
            .info(&name)
            .map(|info| Answer::Recording(Box::new(info))),
        Ask::RecordingPart {
            name, offset, len, ..
        } => read_part(recordings, &name, offset, len.min(PART)).map(|b| Answer::Part(Bytes(b))),
        Ask::DeleteRecording { name, .. } => recordings.delete(&name).map(|()| Answer::Done),
        _ => Ok(Answer::NoSession),
    })
    .await;
    match done {
        Ok(Answer::Recordings(list)) => Answer::Recordings(
            list.into_iter()
                .filter(|info| sessions.check_recording(&grant, info, Action::List).is_ok())
                .collect(),
        ),
        Ok(answer) => answer,
        Err(refusal) => Answer::RecordingRefused(refusal),
    }
}

/// Runs `work` on the recordings on a blocking thread.
async fn blocking<T: Send + 'static>(
    recordings: &Arc<Recordings>,
    work: impl FnOnce(&Recordings) -> Result<T, RecordError> + Send + 'static,
) -> Result<T, RecordRefusal> {
    let recordings = Arc::clone(recordings);
    match tokio::task::spawn_blocking(move || work(&recordings)).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(RecordRefusal::of(&e)),
        Err(e) => Err(RecordRefusal::Io(e.to_string())),
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

/// The recordings of each of `nodes` that `by` reaches, each entry
/// naming its node; a node that does not answer is left out (and logged).
async fn list(bus: &Bus, nodes: &[String], by: &Principal) -> Vec<RecordingInfo> {
    let asks = nodes.iter().map(|node| async move {
        let subject = ask_subject(node, RECORDINGS);
        let list = Ask::Recordings { by: by.clone() };
        match ask(bus, &subject, &list).await {
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
async fn find(bus: &Bus, nodes: &[String], name: &str, by: &Principal) -> Option<RecordingInfo> {
    let asks = nodes.iter().map(|node| async move {
        let subject = ask_subject(node, RECORDINGS);
        let one = Ask::Recording {
            name: name.to_owned(),
            by: by.clone(),
        };
        match ask(bus, &subject, &one).await {
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
async fn read(
    bus: &Bus,
    node: &str,
    name: &str,
    offset: u64,
    by: &Principal,
) -> Result<Vec<u8>, RecordError> {
    let part = Ask::RecordingPart {
        name: name.to_owned(),
        offset,
        len: PART,
        by: by.clone(),
    };
    match ask(bus, &ask_subject(node, RECORDINGS), &part).await {
        Asked::Answer(Answer::Part(bytes)) => Ok(bytes.0),
        other => Err(unexpected(name, other)),
    }
}

/// Deletes recording `name` on `node`.
async fn delete(bus: &Bus, node: &str, name: &str, by: &Principal) -> Result<(), RecordError> {
    let delete = Ask::DeleteRecording {
        name: name.to_owned(),
        by: by.clone(),
    };
    match ask(bus, &ask_subject(node, RECORDINGS), &delete).await {
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

impl Sessions {
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

    /// The recordings on the other nodes of the cluster that `by`
    /// reaches, each naming its node (none without a cluster).
    pub async fn recordings_elsewhere(&self, by: &Principal) -> Vec<RecordingInfo> {
        match self.cluster() {
            Some(registry) => list(registry.bus(), &self.other_nodes().await, by).await,
            None => Vec::new(),
        }
    }

    /// Recording `name` on another node of the cluster, if one has it and
    /// `by` reaches it.
    pub async fn recording_elsewhere(&self, name: &str, by: &Principal) -> Option<RecordingInfo> {
        let registry = self.cluster()?;
        find(registry.bus(), &self.other_nodes().await, name, by).await
    }

    /// Bytes of recording `name` on `node` from `offset`, for `by`: at
    /// most [`PART`], none at its end.
    pub async fn read_recording_elsewhere(
        &self,
        node: &str,
        name: &str,
        offset: u64,
        by: &Principal,
    ) -> Result<Vec<u8>, RecordError> {
        let registry = self
            .cluster()
            .ok_or_else(|| RecordError::NotFound(name.to_owned()))?;
        read(registry.bus(), node, name, offset, by).await
    }

    /// Deletes recording `name` on `node`, for `by`.
    pub async fn delete_recording_elsewhere(
        &self,
        node: &str,
        name: &str,
        by: &Principal,
    ) -> Result<(), RecordError> {
        let registry = self
            .cluster()
            .ok_or_else(|| RecordError::NotFound(name.to_owned()))?;
        delete(registry.bus(), node, name, by).await
    }
}

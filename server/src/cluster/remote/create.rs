//! Starting a session on another node: the asking node resolved and
//! checked the request; the node asked resolves and checks it again, from
//! the request as its client sent it, with its own configuration, starts
//! it and answers with its record.

use std::time::{Duration, Instant};

use super::ask::{ask, ask_subject, Answer, Ask, Asked, ASK_TIMEOUT, NEW};
use crate::cluster::{Bus, Bytes, SessionRecord};
use crate::session::{CreateError, RefusalKind, RemoteCreate};

/// How long to wait before asking a node that takes no asks again.
const RETRY: Duration = Duration::from_millis(50);

/// Starts the session `remote` asks for on `node`, named `name`; the
/// session's record.
pub(in crate::cluster) async fn create_on(
    bus: &Bus,
    node: &str,
    name: Option<String>,
    remote: RemoteCreate,
) -> Result<SessionRecord, CreateError> {
    let subject = ask_subject(node, NEW);
    let create = Ask::Create {
        request: Bytes(remote.request),
        by: remote.by,
    };
    // A live node takes no asks for a moment as it starts or reconnects:
    // asked again until it does, for as long as an answer may take.
    let since = Instant::now();
    let mut asked = ask(bus, &subject, &create).await;
    while matches!(asked, Asked::NoResponders) && since.elapsed() < ASK_TIMEOUT {
        tokio::time::sleep(RETRY).await;
        asked = ask(bus, &subject, &create).await;
    }
    match asked {
        Asked::Answer(Answer::Created(record)) => Ok(*record),
        Asked::Answer(Answer::NotCreated {
            kind: RefusalKind::NameTaken,
            ..
        }) => Err(CreateError::NameTaken(name.unwrap_or_default())),
        Asked::Answer(Answer::NotCreated { kind, message }) => Err(CreateError::Refused {
            node: node.to_owned(),
            code: kind,
            message,
        }),
        Asked::Answer(other) => Err(CreateError::ClusterUnavailable(format!(
            "node {node} answered out of place: {other:?}"
        ))),
        // Live in the registry, yet taking no asks: cut off, or starting.
        Asked::NoResponders => Err(CreateError::ClusterUnavailable(format!(
            "node {node} takes no asks"
        ))),
        Asked::Failed(e) => Err(CreateError::ClusterUnavailable(format!("node {node}: {e}"))),
    }
}

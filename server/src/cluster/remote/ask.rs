//! What nodes say to each other about a session: the subjects, the asks
//! a node sends a session's owner, and the owner's answers, in CBOR,
//! sealed on the bus ([`Bus`]). Every ask that acts names who it acts for
//! (a [`Principal`]), which the owner checks again.

use std::time::Duration;

use panecast_proto::Theme;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::access::Principal;
use crate::cluster::{Bus, Bytes, RequestFailure, SessionRecord, SessionState};
use crate::record::{RecordError, RecordingInfo};
use crate::session::search::{Found, PatternSource};
use crate::session::{Input, InputTag, Reader, RefusalKind, SessionError};

/// How long an owner publishes a session's screens after the last
/// [`Ask::Watch`] of any node.
pub(super) const WATCH_FOR: Duration = Duration::from_secs(10);

/// How long a node waits for an owner's answer.
pub(super) const ASK_TIMEOUT: Duration = Duration::from_secs(2);

/// The subject of session `id`'s screens: its owner publishes deltas,
/// marks and (when a delta would be too big) chunk sets there.
pub(super) fn screen_subject(id: &str) -> String {
    format!("panecast.screen.{id}")
}

/// The subject of asks to `node` about its session `id`.
pub(super) fn ask_subject(node: &str, id: &str) -> String {
    format!("panecast.ask.{node}.{id}")
}

/// Every ask to `node`: one subscription serves all its sessions.
pub(super) fn asks_of(node: &str) -> String {
    format!("panecast.ask.{node}.*")
}

/// An ask to a session's owner.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Ask {
    /// Publish the session's screens for [`WATCH_FOR`] more; with an
    /// inbox, send the whole screen there as a chunk set first. Every
    /// node may mirror every session: its viewers are checked there.
    Watch {
        /// Where the chunk set goes.
        chunks_to: Option<String>,
    },
    /// Input from node `from`'s mirror, its `seq`th (from 1): applied once
    /// however often it is asked, in the order of `seq`.
    Input {
        /// The asking mirror, a random number.
        from: u64,
        /// Its count of inputs.
        seq: u64,
        /// The input.
        input: Input,
        /// Who typed it.
        by: Principal,
        /// Its client and number, when it has them: applied once.
        tag: Option<InputTag>,
    },
    /// Resize the terminal.
    Resize {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
        /// Who resizes.
        by: Principal,
    },
    /// Scrollback lines, for `reader`.
    Scrollback {
        /// From this line (1: the line just above the screen).
        start: u64,
        /// How many.
        count: u16,
        /// Who reads, for the reads' shares.
        reader: Reader,
    },
    /// A search, for `reader`.
    Search {
        /// The pattern, compiled again by the owner.
        pattern: PatternSource,
        /// Most matches.
        limit: usize,
        /// Who reads.
        reader: Reader,
    },
    /// A marker in the session's recording.
    Marker {
        /// Its label.
        label: String,
        /// Who adds it.
        by: Principal,
    },
    /// The theme a control viewer paints with.
    Theme {
        /// The theme.
        theme: Theme,
        /// The viewer.
        by: Principal,
    },
    /// Delete the session.
    Delete {
        /// Who deletes it.
        by: Principal,
    },
    /// Start a session on the node asked (sent with [`NEW`] for the id),
    /// as `POST /api/sessions` with this JSON body would: the node asked
    /// resolves it with its own configuration, for `by`.
    Create {
        /// The request's JSON body.
        request: Bytes,
        /// Who asks.
        by: Principal,
    },
    /// The node's recordings that `by` reaches (sent with [`RECORDINGS`]
    /// for the id).
    Recordings {
        /// Who lists them.
        by: Principal,
    },
    /// One recording's entry.
    Recording {
        /// Its name.
        name: String,
        /// Who reads it.
        by: Principal,
    },
    /// Bytes `offset .. offset + len` of a recording's file (as far as it
    /// is written).
    RecordingPart {
        /// Its name.
        name: String,
        /// From.
        offset: u64,
        /// At most this many.
        len: u32,
        /// Who reads it.
        by: Principal,
    },
    /// Delete a recording.
    DeleteRecording {
        /// Its name.
        name: String,
        /// Who deletes it.
        by: Principal,
    },
}

/// The id that stands for the node's recordings, in an ask's subject.
pub(super) const RECORDINGS: &str = "recordings";

/// The id that stands for a session to be created, in an ask's subject
/// (never a session's: ids are 32 hex digits).
pub(super) const NEW: &str = "new";

/// An owner's answer.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Answer {
    /// Done as asked.
    Done,
    /// The session refused.
    Refused(SessionError),
    /// The owner has no such session (any more).
    NoSession,
    /// Scrollback lines (see [`crate::stream::encode_answer`]).
    Lines {
        /// The `Scrollback` message.
        lines: Bytes,
        /// The `Styles` message.
        styles: Bytes,
        /// Each style's stamp.
        stamps: Vec<u32>,
        /// The scroll count they were read at.
        scroll_count: u64,
        /// The owner's actor time they took, in microseconds.
        spent_us: u64,
    },
    /// What a search found.
    Found {
        /// The matches.
        found: Found,
        /// The owner's actor time it took, in microseconds.
        spent_us: u64,
    },
    /// The session's state after a delete.
    Deleted(SessionState),
    /// The session started, as the registry will record it.
    Created(Box<SessionRecord>),
    /// A node's recordings.
    Recordings(Vec<RecordingInfo>),
    /// One recording's entry.
    Recording(Box<RecordingInfo>),
    /// Bytes of a recording's file: fewer than asked at its end.
    Part(Bytes),
    /// A recording could not be read or deleted.
    RecordingRefused(RecordRefusal),
    /// The session could not be started.
    NotCreated {
        /// Why, in kind.
        kind: RefusalKind,
        /// Why, for people.
        message: String,
    },
}

/// An owner's answer to one ask, or why there was none.
pub(super) enum Asked {
    Answer(Answer),
    /// NATS says no one takes the owner's asks.
    NoResponders,
    /// No answer in time, or NATS failed.
    Failed(String),
}

/// Sends `ask` to `subject`, sealed, and waits for the answer.
pub(super) async fn ask(bus: &Bus, subject: &str, ask: &Ask) -> Asked {
    match bus.request(subject, &encode(ask), ASK_TIMEOUT).await {
        Ok(payload) => match decode(&payload) {
            Ok(answer) => Asked::Answer(answer),
            Err(e) => Asked::Failed(format!("an answer that does not decode: {e}")),
        },
        Err(RequestFailure::NoResponders) => Asked::NoResponders,
        Err(RequestFailure::Failed(e)) => Asked::Failed(e),
        Err(RequestFailure::Refused(refusal)) => {
            Asked::Failed(format!("an answer refused: {refusal}"))
        }
    }
}

/// Why a node could not read or delete a recording, for the asking node
/// to answer as it would have.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum RecordRefusal {
    /// No recording has this name there.
    NotFound,
    /// Not a recording's name.
    BadName,
    /// Still being written (a delete).
    Live,
    /// The file system failed.
    Io(String),
}

impl RecordRefusal {
    /// The refusal for `error`.
    pub(super) fn of(error: &RecordError) -> RecordRefusal {
        match error {
            RecordError::NotFound(_) => RecordRefusal::NotFound,
            RecordError::BadName(_) => RecordRefusal::BadName,
            RecordError::Live(_) => RecordRefusal::Live,
            RecordError::Io(e) => RecordRefusal::Io(e.to_string()),
        }
    }

    /// The error it stands for, about recording `name`.
    pub(super) fn error(self, name: &str) -> RecordError {
        match self {
            RecordRefusal::NotFound => RecordError::NotFound(name.to_owned()),
            RecordRefusal::BadName => RecordError::BadName(name.to_owned()),
            RecordRefusal::Live => RecordError::Live(name.to_owned()),
            RecordRefusal::Io(e) => RecordError::Io(std::io::Error::other(e)),
        }
    }
}

/// `value`'s bytes.
pub(super) fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail, and every field serializes.
    ciborium::into_writer(value, &mut out).expect("an ask or answer serializes");
    out
}

/// A value from another node's bytes, or why they are not one.
pub(super) fn decode<T: DeserializeOwned>(mut bytes: &[u8]) -> Result<T, String> {
    let value = ciborium::from_reader(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.is_empty() {
        Ok(value)
    } else {
        Err(format!("{} bytes after the end", bytes.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::parse_key;

    #[test]
    fn asks_and_answers_round_trip() {
        let ask = Ask::Input {
            from: 7,
            seq: 3,
            input: Input::Keys(vec![parse_key("C-c").unwrap()]),
            by: crate::access::Grant::admin().principal(),
            tag: Some(InputTag { client: 9, seq: 4 }),
        };
        let back: Ask = decode(&encode(&ask)).unwrap();
        assert_eq!(format!("{back:?}"), format!("{ask:?}"));
        let answer = Answer::Refused(SessionError::BadSize("cols 0".into()));
        let back: Answer = decode(&encode(&answer)).unwrap();
        assert_eq!(format!("{back:?}"), format!("{answer:?}"));
        let mut long = encode(&answer);
        long.push(0);
        assert!(decode::<Answer>(&long).is_err());
        assert!(decode::<Ask>(b"\xff").is_err());
    }

    #[test]
    fn subjects_hold_the_node_and_id() {
        assert_eq!(ask_subject("a", "f0"), "panecast.ask.a.f0");
        assert_eq!(asks_of("a"), "panecast.ask.a.*");
        assert_eq!(screen_subject("f0"), "panecast.screen.f0");
    }
}

//! The messages between an owner and its mirrors, and their bytes.

use std::fmt;

use serde::de::Visitor;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::body::Body;
use super::squeeze::{squeeze, unsqueeze};
use crate::pty::LineDiscipline;

/// One message from an owner.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Message {
    /// The changes of one revision.
    Delta(Delta),
    /// A piece of a whole snapshot.
    Chunk(Chunk),
    /// The latest revision and the session's state.
    Mark(Mark),
    /// Text the session's program put on the clipboard (OSC 52), for the
    /// control viewers of the nodes that watch it.
    Clipboard(String),
    /// How the program's terminal echoes now: sent when it changes, and
    /// after a chunk set.
    Discipline(LineDiscipline),
}

/// The owner's word that `revision` of `stream` is its latest, sent after
/// its deltas settle, every so often while mirrors watch, and when the
/// session's state changes: a mirror that holds an older revision missed
/// one, and one that holds another stream missed the owner's restart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// Which publisher.
    pub stream: u64,
    /// Its latest revision.
    pub revision: u64,
    /// Whether the session's program runs.
    pub state: SessionState,
}

/// A session's state as its owner tells it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SessionState {
    /// The program runs.
    Running,
    /// The program has ended; the final screen stays until the session is
    /// gone.
    Exited {
        /// Its exit status, when it could be observed.
        code: Option<u32>,
        /// The signal that ended it, by name.
        signal: Option<String>,
        /// When, in milliseconds since the Unix epoch.
        at_ms: u64,
        /// Why it ended.
        cause: EndCause,
    },
    /// The session is over and no longer on its owner.
    Gone {
        /// Why it ended.
        cause: EndCause,
    },
}

/// Why a session ended, as its owner knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EndCause {
    /// Its program exited.
    Exited,
    /// It was deleted.
    Deleted,
    /// Its node shut down.
    ShutDown,
}

/// The changes from revision `base` to `revision` (`base + 1`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Delta {
    /// Which publisher: a new one (an owner restarted) starts another stream.
    pub stream: u64,
    /// This revision.
    pub revision: u64,
    /// The revision the changes apply to.
    pub base: u64,
    pub(crate) body: Body,
}

/// Piece `index` of `count` of the whole snapshot at `revision`, whose
/// encoding is `total` bytes long.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Chunk {
    /// Which publisher.
    pub stream: u64,
    /// The revision of the snapshot.
    pub revision: u64,
    /// Which piece, from 0.
    pub index: u32,
    /// How many pieces.
    pub count: u32,
    /// Bytes of all the pieces together.
    pub total: u64,
    pub(crate) data: Bytes,
}

impl Chunk {
    /// True when `other` is a piece of the same set.
    pub fn same_set(&self, other: &Chunk) -> bool {
        (self.stream, self.revision, self.count, self.total)
            == (other.stream, other.revision, other.count, other.total)
    }
}

/// The format byte of a message in plain CBOR.
const PLAIN: u8 = 0;
/// The format byte of a message in squeezed CBOR.
const SQUEEZED: u8 = 1;
/// Deltas longer than this are squeezed.
const SQUEEZE_FROM: usize = 256;
/// The most bytes a squeezed message may unsqueeze to (a delta of a whole
/// 1000x1000 screen is about 8 MiB).
const MAX_MESSAGE: usize = 64 << 20;

/// Why bytes are not a message.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    /// Not CBOR of a message.
    #[error("replication message undecodable: {0}")]
    Undecodable(String),
    /// Bytes after the message.
    #[error("replication message has {0} bytes after its end")]
    TrailingBytes(usize),
    /// Decodes, but cannot be one.
    #[error("replication message invalid: {0}")]
    Invalid(&'static str),
}

impl Message {
    /// The message's bytes.
    /// A format byte first: [`PLAIN`] CBOR, or [`SQUEEZED`] CBOR (a delta
    /// of more than [`SQUEEZE_FROM`] bytes; a chunk's data is squeezed
    /// whole before it is cut, and marks are small).
    pub fn encode(&self) -> Vec<u8> {
        let mut cbor = Vec::new();
        // Writing into a Vec cannot fail, and every field serializes.
        ciborium::into_writer(self, &mut cbor).expect("a replication message serializes");
        if matches!(self, Message::Delta(_)) && cbor.len() > SQUEEZE_FROM {
            let mut out = vec![SQUEEZED];
            out.extend_from_slice(&squeeze(&cbor));
            out
        } else {
            let mut out = Vec::with_capacity(cbor.len() + 1);
            out.push(PLAIN);
            out.extend_from_slice(&cbor);
            out
        }
    }

    /// A message from bytes another node sent; any input that is not one
    /// is an error.
    pub fn decode(bytes: &[u8]) -> Result<Message, DecodeError> {
        let unsqueezed;
        let mut bytes = match bytes.split_first() {
            Some((&PLAIN, cbor)) => cbor,
            Some((&SQUEEZED, squeezed)) => {
                unsqueezed = unsqueeze(squeezed, MAX_MESSAGE)
                    .map_err(|e| DecodeError::Undecodable(e.to_string()))?;
                unsqueezed.as_slice()
            }
            _ => return Err(DecodeError::Invalid("not a format byte")),
        };
        let message: Message = ciborium::from_reader(&mut bytes)
            .map_err(|e| DecodeError::Undecodable(e.to_string()))?;
        if !bytes.is_empty() {
            return Err(DecodeError::TrailingBytes(bytes.len()));
        }
        if let Message::Chunk(chunk) = &message {
            if chunk.index >= chunk.count {
                return Err(DecodeError::Invalid("chunk index past the count"));
            }
            if chunk.data.0.len() as u64 > chunk.total {
                return Err(DecodeError::Invalid("chunk longer than the whole"));
            }
        }
        if let Message::Delta(delta) = &message {
            if delta.base.checked_add(1) != Some(delta.revision) {
                return Err(DecodeError::Invalid("a delta not from the revision before"));
            }
        }
        Ok(message)
    }
}

/// Bytes written as a CBOR byte string (serde writes a `Vec<u8>` as an
/// array of numbers, up to twice as long).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bytes(pub Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Bytes, D::Error> {
        deserializer.deserialize_byte_buf(BytesVisitor)
    }
}

struct BytesVisitor;

impl Visitor<'_> for BytesVisitor {
    type Value = Bytes;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a byte string")
    }

    fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
        Ok(Bytes(v))
    }

    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
        Ok(Bytes(v.to_vec()))
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Bytes, E> {
        Err(E::custom("a string where bytes were expected"))
    }
}

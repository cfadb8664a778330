//! The owner's side: deltas from successive snapshots, and the whole
//! snapshot in chunks.

use std::sync::Arc;

use super::body::Body;
use super::message::{Bytes, Chunk, Delta, Mark, Message, SessionState};
use super::squeeze::squeeze;
use panecast_term::Snapshot;

/// A byte limit too small for a chunk's header.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("a chunk limit of {limit} bytes leaves no room for data (at least {needed})")]
pub struct LimitTooSmall {
    /// The limit asked for.
    pub limit: usize,
    /// The smallest limit that works.
    pub needed: usize,
}

/// Bytes a chunk's encoding may take beyond its data: the header at its
/// largest values, and a byte string's longest length prefix.
fn chunk_overhead(stream: u64) -> usize {
    let header = Message::Chunk(Chunk {
        stream,
        revision: u64::MAX,
        index: u32::MAX,
        count: u32::MAX,
        total: u64::MAX,
        data: Bytes(Vec::new()),
    });
    header.encode().len() + 8
}

/// Publishes one session's snapshots as revisions.
#[derive(Debug)]
pub struct Publisher {
    stream: u64,
    revision: u64,
    current: Arc<Snapshot>,
}

impl Publisher {
    /// A publisher whose revision 0 is `first`. `stream` tells its messages
    /// from another publisher's of the same session (pick it at random).
    pub fn new(stream: u64, first: Arc<Snapshot>) -> Publisher {
        Publisher {
            stream,
            revision: 0,
            current: first,
        }
    }

    /// The revision of the last snapshot.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The last snapshot.
    pub fn current(&self) -> &Arc<Snapshot> {
        &self.current
    }

    /// Makes `next` the next revision and returns the changes to it.
    pub fn publish(&mut self, next: Arc<Snapshot>) -> Delta {
        let body = Body::diff(Some(&self.current), &next);
        let delta = Delta {
            stream: self.stream,
            revision: self.revision + 1,
            base: self.revision,
            body,
        };
        self.revision += 1;
        self.current = next;
        delta
    }

    /// The mark of the last revision, with the session's `state`.
    pub fn mark(&self, state: SessionState) -> Mark {
        Mark {
            stream: self.stream,
            revision: self.revision,
            state,
        }
    }

    /// The last snapshot whole, as chunks each encoding to at most `limit`
    /// bytes.
    pub fn chunks(&self, limit: usize) -> Result<Vec<Chunk>, LimitTooSmall> {
        let overhead = chunk_overhead(self.stream);
        if limit <= overhead {
            return Err(LimitTooSmall {
                limit,
                needed: overhead + 1,
            });
        }
        let mut cbor = Vec::new();
        // Writing into a Vec cannot fail, and every field serializes.
        ciborium::into_writer(&Body::diff(None, &self.current), &mut cbor)
            .expect("a snapshot serializes");
        let whole = squeeze(&cbor);
        let pieces: Vec<&[u8]> = whole.chunks(limit - overhead).collect();
        // An encoded body is never empty, so there is at least one piece;
        // more than 2^32 would need a limit under 10 bytes for 40 GB.
        let count = pieces.len() as u32;
        Ok(pieces
            .into_iter()
            .enumerate()
            .map(|(index, data)| Chunk {
                stream: self.stream,
                revision: self.revision,
                index: index as u32,
                count,
                total: whole.len() as u64,
                data: Bytes(data.to_vec()),
            })
            .collect())
    }
}

//! The mirror's side: snapshots rebuilt from chunk sets and deltas, equal to
//! the owner's, or a request to resync.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::body::Body;
use super::message::{Chunk, Delta, Mark, Message};
use super::squeeze::unsqueeze;
use panecast_term::Snapshot;

/// Deltas kept while they cannot be applied yet (waiting for a chunk set
/// or a late revision): at most this many...
const MAX_HELD: usize = 64;
/// ...carrying at most this many cells (32 MiB), oldest dropped first.
const MAX_HELD_CELLS: usize = 4 << 20;
/// Most bytes a chunk set may add up to.
const MAX_SNAPSHOT_BYTES: u64 = 256 << 20;

/// Why the mirror needs a new chunk set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gap {
    /// No snapshot yet to apply a delta to.
    NoBase,
    /// A delta from another revision than the one held (one was missed or
    /// came out of order).
    Missed {
        /// The revision held.
        held: u64,
        /// The delta's base.
        base: u64,
    },
    /// A delta of another publisher (the owner restarted).
    OtherStream,
    /// A chunk of another set while a set was incomplete, or two different
    /// pieces under one index.
    MixedChunks,
    /// A chunk set larger than a mirror accepts.
    TooLarge,
    /// The message does not fit what it applies to.
    Invalid(&'static str),
}

/// What applying a message did.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The mirror has a new snapshot.
    Updated(Arc<Snapshot>),
    /// Nothing to show yet, or a duplicate ignored.
    Unchanged,
    /// The mirror cannot go on without a new chunk set; it keeps its last
    /// good snapshot meanwhile.
    Resync(Gap),
}

/// The pieces of a chunk set received so far.
#[derive(Debug)]
struct Assembly {
    first: Chunk,
    parts: BTreeMap<u32, Vec<u8>>,
    bytes: u64,
}

/// The snapshot held and where it is in its publisher's revisions.
#[derive(Debug)]
struct Held {
    stream: u64,
    revision: u64,
    snapshot: Arc<Snapshot>,
}

/// A remote session's screen, rebuilt from its owner's messages.
#[derive(Debug, Default)]
pub struct Mirror {
    current: Option<Held>,
    assembly: Option<Assembly>,
    early: BTreeMap<(u64, u64), Delta>,
}

impl Mirror {
    /// A mirror with nothing yet.
    pub fn new() -> Mirror {
        Mirror::default()
    }

    /// The last snapshot, if any.
    pub fn snapshot(&self) -> Option<&Arc<Snapshot>> {
        self.current.as_ref().map(|held| &held.snapshot)
    }

    /// The publisher and revision of the last snapshot.
    pub fn revision(&self) -> Option<(u64, u64)> {
        self.current
            .as_ref()
            .map(|held| (held.stream, held.revision))
    }

    /// Deltas held until they can be applied.
    pub fn held(&self) -> usize {
        self.early.len()
    }

    /// Drops an incomplete chunk set (the transport's timeout); true when
    /// there was one, and a new one must be asked for.
    pub fn abandon_chunks(&mut self) -> bool {
        self.assembly.take().is_some()
    }

    /// Applies one message.
    pub fn apply(&mut self, message: Message) -> Outcome {
        match message {
            Message::Delta(delta) => self.apply_delta(delta),
            Message::Chunk(chunk) => self.apply_chunk(chunk),
            Message::Mark(mark) => self.check_mark(&mark),
            // Not the screen's: its taker passes them on.
            Message::Clipboard(_) | Message::Discipline(_) => Outcome::Unchanged,
        }
    }

    /// Compares the owner's latest revision with the one held: a newer
    /// one (the delta to it was lost) or another stream needs a resync,
    /// unless a chunk set is on its way.
    fn check_mark(&self, mark: &Mark) -> Outcome {
        match &self.current {
            Some(held) if held.stream == mark.stream && mark.revision <= held.revision => {
                Outcome::Unchanged
            }
            _ if self.assembly.is_some() => Outcome::Unchanged,
            Some(held) if held.stream == mark.stream => Outcome::Resync(Gap::Missed {
                held: held.revision,
                base: mark.revision,
            }),
            Some(_) => Outcome::Resync(Gap::OtherStream),
            None => Outcome::Resync(Gap::NoBase),
        }
    }

    fn hold(&mut self, delta: Delta) {
        self.early.insert((delta.stream, delta.revision), delta);
        while self.early.len() > MAX_HELD
            || self.early.values().map(|d| d.body.cells()).sum::<usize>() > MAX_HELD_CELLS
        {
            self.early.pop_first();
        }
    }

    fn apply_delta(&mut self, delta: Delta) -> Outcome {
        let Some(held) = &self.current else {
            self.hold(delta);
            return Outcome::Resync(Gap::NoBase);
        };
        if delta.stream != held.stream {
            self.hold(delta);
            return Outcome::Resync(Gap::OtherStream);
        }
        if delta.revision <= held.revision {
            return Outcome::Unchanged;
        }
        if delta.base != held.revision {
            let gap = Gap::Missed {
                held: held.revision,
                base: delta.base,
            };
            self.hold(delta);
            return Outcome::Resync(gap);
        }
        match self.advance(delta) {
            Ok(snapshot) => Outcome::Updated(snapshot),
            Err(reason) => Outcome::Resync(Gap::Invalid(reason)),
        }
    }

    /// Applies `delta` to the held snapshot, then every held delta that
    /// follows on.
    fn advance(&mut self, delta: Delta) -> Result<Arc<Snapshot>, &'static str> {
        let mut next = Some(delta);
        while let Some(delta) = next {
            // `advance` is only called with a snapshot held.
            let held = self.current.as_mut().expect("a snapshot is held");
            let snapshot = delta.body.apply(Some(&held.snapshot))?;
            held.snapshot = Arc::new(snapshot);
            held.revision = delta.revision;
            let key = (held.stream, held.revision + 1);
            let stream = held.stream;
            let revision = held.revision;
            self.early.retain(|&(s, r), _| s != stream || r > revision);
            next = self.early.remove(&key);
        }
        // Held, as above.
        Ok(Arc::clone(
            &self.current.as_ref().expect("a snapshot is held").snapshot,
        ))
    }

    fn apply_chunk(&mut self, chunk: Chunk) -> Outcome {
        if let Some(held) = &self.current {
            if held.stream == chunk.stream && chunk.revision <= held.revision {
                return Outcome::Unchanged;
            }
        }
        if chunk.total > MAX_SNAPSHOT_BYTES {
            return Outcome::Resync(Gap::TooLarge);
        }
        let mut mixed = false;
        if let Some(assembly) = &mut self.assembly {
            if assembly.first.same_set(&chunk) {
                match assembly.parts.get(&chunk.index) {
                    Some(part) if *part == chunk.data.0 => return Outcome::Unchanged,
                    Some(_) => {
                        self.assembly = None;
                        return Outcome::Resync(Gap::MixedChunks);
                    }
                    None => {}
                }
            } else {
                let older = assembly.first.stream == chunk.stream
                    && chunk.revision < assembly.first.revision;
                if older {
                    return Outcome::Resync(Gap::MixedChunks);
                }
                self.assembly = None;
                mixed = true;
            }
        }
        let assembly = self.assembly.get_or_insert_with(|| Assembly {
            first: Chunk {
                data: super::message::Bytes(Vec::new()),
                ..chunk.clone()
            },
            parts: BTreeMap::new(),
            bytes: 0,
        });
        assembly.bytes += chunk.data.0.len() as u64;
        if assembly.bytes > assembly.first.total {
            self.assembly = None;
            return Outcome::Resync(Gap::Invalid("chunks longer than their total"));
        }
        assembly.parts.insert(chunk.index, chunk.data.0);
        if assembly.parts.len() < assembly.first.count as usize {
            return if mixed {
                Outcome::Resync(Gap::MixedChunks)
            } else {
                Outcome::Unchanged
            };
        }
        // Just inserted into.
        let assembly = self.assembly.take().expect("an assembly");
        if assembly.bytes != assembly.first.total {
            return Outcome::Resync(Gap::Invalid("chunks shorter than their total"));
        }
        let squeezed: Vec<u8> = assembly.parts.into_values().flatten().collect();
        let Ok(whole) = unsqueeze(&squeezed, MAX_SNAPSHOT_BYTES as usize) else {
            return Outcome::Resync(Gap::Invalid("chunks that do not unsqueeze"));
        };
        let mut reader = whole.as_slice();
        let body: Body = match ciborium::from_reader(&mut reader) {
            Ok(body) if reader.is_empty() => body,
            _ => return Outcome::Resync(Gap::Invalid("chunks undecodable")),
        };
        let snapshot = match body.apply(None) {
            Ok(snapshot) => Arc::new(snapshot),
            Err(reason) => return Outcome::Resync(Gap::Invalid(reason)),
        };
        let (stream, revision) = (assembly.first.stream, assembly.first.revision);
        self.current = Some(Held {
            stream,
            revision,
            snapshot,
        });
        self.early.retain(|&(s, r), _| s == stream && r > revision);
        match self.early.remove(&(stream, revision + 1)) {
            Some(delta) => match self.advance(delta) {
                Ok(snapshot) => Outcome::Updated(snapshot),
                Err(reason) => Outcome::Resync(Gap::Invalid(reason)),
            },
            // Just set.
            None => Outcome::Updated(Arc::clone(self.snapshot().expect("a snapshot"))),
        }
    }
}

//! A [`RefCountedSet`] as snapshots hold it: chunks of values shared between
//! snapshots. Publishing copies only the chunks whose ids were (re)defined
//! since the last snapshot, so no snapshot copies the whole table.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::ref_set::{RefCountedSet, CHUNK};

/// One published id: its value and which definition it is.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Entry<T> {
    value: T,
    stamp: u32,
}

/// A published set: cheap to clone, indexed by id.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PublishedSet<T> {
    chunks: Vec<Arc<[Entry<T>]>>,
    len: usize,
}

impl<T> Default for PublishedSet<T> {
    fn default() -> Self {
        PublishedSet {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Clone + Eq + std::hash::Hash> PublishedSet<T> {
    /// Brings the copy up to `set`, copying the chunks it changed since the
    /// last update.
    pub fn update(&mut self, set: &mut RefCountedSet<T>) {
        let changed = set.changed();
        let values = set.values();
        let chunks = values.len().div_ceil(CHUNK);
        self.chunks.truncate(chunks);
        for c in 0..chunks {
            let dirty = changed[c / 64] & (1 << (c % 64)) != 0;
            if c < self.chunks.len() && !dirty {
                continue;
            }
            let start = c * CHUNK;
            let end = values.len().min(start + CHUNK);
            let chunk: Arc<[Entry<T>]> = (start..end)
                .map(|id| Entry {
                    value: values[id].clone(),
                    stamp: set.stamp(id as u16),
                })
                .collect();
            if c < self.chunks.len() {
                self.chunks[c] = chunk;
            } else {
                self.chunks.push(chunk);
            }
        }
        self.len = values.len();
        set.forget_changes();
    }
}

/// One chunk of a published set, opaque: what replication sends of a set
/// whose chunk changed (see [`PublishedSet::changed_chunks`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SetChunk<T>(Arc<[Entry<T>]>);

impl<T: Clone> PublishedSet<T> {
    /// The chunks, by index, that are not the very chunks of `base` (new,
    /// or copied again since): with the length, all another copy of `base`
    /// needs to become `self` (see [`PublishedSet::with_chunks`]).
    pub fn changed_chunks(&self, base: &PublishedSet<T>) -> Vec<(u32, SetChunk<T>)> {
        self.chunks
            .iter()
            .enumerate()
            .filter(|(c, chunk)| {
                base.chunks
                    .get(*c)
                    .is_none_or(|old| !Arc::ptr_eq(old, chunk))
            })
            // At most 64 chunks: ids are 16 bits.
            .map(|(c, chunk)| (c as u32, SetChunk(Arc::clone(chunk))))
            .collect()
    }

    /// A copy of `self` with `chunks` put in place and cut to `len` ids:
    /// the inverse of [`PublishedSet::changed_chunks`]. Refuses a result
    /// whose chunks do not hold exactly `len` ids, [`CHUNK`] to a chunk.
    pub fn with_chunks(
        &self,
        len: usize,
        chunks: Vec<(u32, SetChunk<T>)>,
    ) -> Result<PublishedSet<T>, &'static str> {
        if len > 1 << 16 {
            return Err("more ids than 16 bits hold");
        }
        let count = len.div_ceil(CHUNK);
        let mut out: Vec<Option<Arc<[Entry<T>]>>> =
            (0..count).map(|c| self.chunks.get(c).cloned()).collect();
        for (c, SetChunk(chunk)) in chunks {
            *out.get_mut(c as usize).ok_or("a chunk past the length")? = Some(chunk);
        }
        let chunks = out
            .into_iter()
            .enumerate()
            .map(|(c, chunk)| {
                let chunk = chunk.ok_or("a chunk is missing")?;
                let expected = (len - c * CHUNK).min(CHUNK);
                if chunk.len() == expected {
                    Ok(chunk)
                } else {
                    Err("a chunk of the wrong length")
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(PublishedSet { chunks, len })
    }
}

impl<T> PublishedSet<T> {
    /// Number of ids, free ones included.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn entry(&self, id: usize) -> Option<&Entry<T>> {
        self.chunks.get(id / CHUNK)?.get(id % CHUNK)
    }

    /// The value under `id`.
    pub fn get(&self, id: usize) -> Option<&T> {
        self.entry(id).map(|e| &e.value)
    }

    /// Which definition `id` holds: it changes when a freed id is reused,
    /// so a viewer that was sent another stamp must be sent it again.
    pub fn stamp(&self, id: usize) -> u32 {
        self.entry(id).map_or(0, |e| e.stamp)
    }

    /// Every value in id order.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks
            .iter()
            .flat_map(|chunk| chunk.iter().map(|e| &e.value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ref_set::Interned;

    fn filled(len: u32) -> RefCountedSet<u32> {
        let mut set = RefCountedSet::new(0, 1 << 16);
        for v in 1..len {
            if let Interned::Added(id) = set.intern(&v) {
                set.retain(id, 1);
            }
        }
        set
    }

    #[test]
    fn growing_shares_the_unchanged_chunks() {
        let mut set = filled(2 * CHUNK as u32 + 5);
        let mut published = PublishedSet::default();
        published.update(&mut set);
        let before = published.clone();
        for v in 0..CHUNK as u32 {
            set.intern(&(100_000 + v));
        }
        published.update(&mut set);
        assert!(Arc::ptr_eq(&before.chunks[1], &published.chunks[1]));
        assert!(!Arc::ptr_eq(&before.chunks[2], &published.chunks[2]));
        assert_eq!(published.len(), 3 * CHUNK + 5);
        assert_eq!(published.iter().count(), 3 * CHUNK + 5);
        assert_eq!(
            published.get(3 * CHUNK + 4),
            Some(&(100_000 + CHUNK as u32 - 1))
        );
        assert_eq!(before.len(), 2 * CHUNK + 5, "an older copy is unchanged");
        assert_eq!(published.get(3 * CHUNK + 5), None);
    }

    #[test]
    fn a_reused_id_is_republished_with_a_new_stamp() {
        let mut set = filled(3 * CHUNK as u32);
        let mut published = PublishedSet::default();
        published.update(&mut set);
        let before = published.clone();
        let id = CHUNK as u16 + 3;
        set.release(id, 1);
        set.sweep(|_| false);
        assert_eq!(set.intern(&7_777_777), Interned::Added(id));
        published.update(&mut set);
        assert_eq!(published.get(id as usize), Some(&7_777_777));
        assert_ne!(published.stamp(id as usize), before.stamp(id as usize));
        assert!(Arc::ptr_eq(&before.chunks[0], &published.chunks[0]));
        assert!(!Arc::ptr_eq(&before.chunks[1], &published.chunks[1]));
        assert_eq!(before.get(id as usize), Some(&(id as u32)));
    }

    #[test]
    fn changed_chunks_rebuild_a_copy_and_wrong_ones_are_refused() {
        let mut set = filled(2 * CHUNK as u32 + 5);
        let mut base = PublishedSet::default();
        base.update(&mut set);
        let mut next = base.clone();
        set.intern(&9_999_999);
        next.update(&mut set);
        let changed = next.changed_chunks(&base);
        assert_eq!(changed.len(), 1, "only the last chunk changed");
        let copy = base.with_chunks(next.len(), changed.clone()).unwrap();
        assert!(copy.iter().eq(next.iter()));
        assert!((0..next.len()).all(|id| copy.stamp(id) == next.stamp(id)));
        assert!(base.with_chunks(next.len() + 1, changed.clone()).is_err());
        assert!(base.with_chunks(5 * CHUNK, changed.clone()).is_err());
        assert!(PublishedSet::default()
            .with_chunks(next.len(), changed)
            .is_err());
        assert!(base.with_chunks(1 << 17, Vec::new()).is_err());
    }
}

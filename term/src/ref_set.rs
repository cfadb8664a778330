//! A reference-counted set of interned values, the way Ghostty's pages hold
//! styles: equal values share one 16-bit id, each id counts its users, and
//! an id whose count falls to zero is freed and later reused.
//!
//! Counts may lag behind the cells for a while (rows are tallied lazily, see
//! `row.rs`), so an id is not freed the moment its count reaches zero: it is
//! marked pending, and [`RefCountedSet::sweep`] frees the pending ids still
//! unused once the owner has brought every count up to date. Id 0 holds a
//! fixed value and is never counted or freed.

use std::hash::Hash;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Ids per publishing chunk (see [`super::published_set`]).
pub const CHUNK: usize = 1024;

/// What [`RefCountedSet::intern`] found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Interned {
    /// The value was already held under this id.
    Found(u16),
    /// The value was added under this id (new or reused), with no users yet.
    Added(u16),
    /// Every id is in use.
    Full,
}

/// The bookkeeping of one id.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
struct Slot {
    /// Users counted so far.
    refs: u32,
    /// Which definition the id holds: bumped each time it is (re)used, 0
    /// while it is free. Viewers compare it to know a definition is stale.
    stamp: u32,
    /// On the pending list.
    pending: bool,
}

/// Interned values with reference counts.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de> + Eq + Hash"))]
pub struct RefCountedSet<T> {
    values: Vec<T>,
    slots: Vec<Slot>,
    index: FxHashMap<T, u16>,
    /// Freed ids, reused before the set grows.
    free: Vec<u16>,
    /// Ids that may have no users: added, or counted down to zero.
    pending: Vec<u16>,
    capacity: usize,
    next_stamp: u32,
    /// Bit per chunk of ids (re)defined since [`RefCountedSet::forget_changes`].
    changed: Vec<u64>,
}

impl<T: Clone + Eq + Hash> RefCountedSet<T> {
    /// A set whose id 0 holds `zero` for ever, with room for `capacity` ids
    /// (at most 2^16) including it.
    pub fn new(zero: T, capacity: usize) -> Self {
        let capacity = capacity.clamp(1, 1 << 16);
        let mut index = FxHashMap::default();
        index.insert(zero.clone(), 0);
        RefCountedSet {
            values: vec![zero],
            slots: vec![Slot {
                stamp: 1,
                ..Slot::default()
            }],
            index,
            free: Vec::new(),
            pending: Vec::new(),
            capacity,
            next_stamp: 2,
            changed: vec![1; capacity.div_ceil(CHUNK).div_ceil(64)],
        }
    }

    /// The id of `value`, adding it if new. An added id has no users: the
    /// caller counts it (or stores it in a cell) before the next sweep.
    pub fn intern(&mut self, value: &T) -> Interned {
        if let Some(&id) = self.index.get(value) {
            return Interned::Found(id);
        }
        let id = match self.free.pop() {
            Some(id) => {
                self.values[id as usize] = value.clone();
                id
            }
            None if self.values.len() < self.capacity => {
                self.values.push(value.clone());
                self.slots.push(Slot::default());
                (self.values.len() - 1) as u16
            }
            None => return Interned::Full,
        };
        self.index.insert(value.clone(), id);
        let slot = &mut self.slots[id as usize];
        slot.stamp = self.next_stamp;
        self.next_stamp = self.next_stamp.wrapping_add(1).max(2);
        self.mark_pending(id);
        self.changed[id as usize / CHUNK / 64] |= 1 << (id as usize / CHUNK % 64);
        Interned::Added(id)
    }

    /// True when no id is free: the next new value needs a sweep first.
    pub fn is_full(&self) -> bool {
        self.free.is_empty() && self.values.len() >= self.capacity
    }

    /// The value under `id` (a freed id keeps its last value until reused).
    #[inline]
    pub fn get(&self, id: u16) -> Option<&T> {
        self.values.get(id as usize)
    }

    /// Every slot's value in id order, freed ones included.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// Which definition `id` holds (0 when free or unknown).
    pub fn stamp(&self, id: u16) -> u32 {
        self.slots.get(id as usize).map_or(0, |s| s.stamp)
    }

    /// Ids in use, id 0 included.
    pub fn live(&self) -> usize {
        self.values.len() - self.free.len()
    }

    /// The users counted for `id`.
    pub fn refs(&self, id: u16) -> u32 {
        self.slots.get(id as usize).map_or(0, |s| s.refs)
    }

    /// True when `id` holds a value (it is not free).
    pub fn is_live(&self, id: u16) -> bool {
        self.stamp(id) != 0
    }

    /// Counts `n` more users of `id`.
    #[inline]
    pub fn retain(&mut self, id: u16, n: u32) {
        if id != 0 {
            let slot = &mut self.slots[id as usize];
            slot.refs = slot.refs.saturating_add(n);
        }
    }

    /// Counts `n` fewer users of `id`; at zero it becomes pending.
    #[inline]
    pub fn release(&mut self, id: u16, n: u32) {
        if id == 0 {
            return;
        }
        let slot = &mut self.slots[id as usize];
        debug_assert!(slot.refs >= n, "id {id} released below zero");
        slot.refs = slot.refs.saturating_sub(n);
        if slot.refs == 0 {
            self.mark_pending(id);
        }
    }

    fn mark_pending(&mut self, id: u16) {
        let slot = &mut self.slots[id as usize];
        if !slot.pending {
            slot.pending = true;
            self.pending.push(id);
        }
    }

    /// True when some id may be free to reclaim.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Frees the pending ids that have no users and are not `held` (values
    /// the owner keeps outside the counted cells, such as the current pen),
    /// and returns the values freed. Counts must be up to date.
    pub fn sweep(&mut self, held: impl Fn(u16) -> bool) -> Vec<T> {
        let mut freed = Vec::new();
        for id in std::mem::take(&mut self.pending) {
            let slot = &mut self.slots[id as usize];
            slot.pending = false;
            if slot.refs > 0 || slot.stamp == 0 || held(id) {
                continue;
            }
            slot.stamp = 0;
            let value = self.values[id as usize].clone();
            self.index.remove(&value);
            self.free.push(id);
            freed.push(value);
        }
        freed
    }

    /// The chunks whose ids were (re)defined since the last
    /// [`RefCountedSet::forget_changes`]: bit `c % 64` of word `c / 64` for
    /// chunk `c` of [`CHUNK`] ids.
    pub fn changed(&self) -> &[u64] {
        &self.changed
    }

    /// Starts the next [`RefCountedSet::changed`] afresh.
    pub fn forget_changes(&mut self) {
        self.changed.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn added(set: &mut RefCountedSet<u32>, value: u32) -> u16 {
        match set.intern(&value) {
            Interned::Added(id) => id,
            other => panic!("{value}: {other:?}"),
        }
    }

    #[test]
    fn equal_values_share_an_id_and_zero_is_fixed() {
        let mut set = RefCountedSet::new(0u32, 8);
        assert_eq!(set.intern(&0), Interned::Found(0));
        let a = added(&mut set, 7);
        assert_eq!(set.intern(&7), Interned::Found(a));
        assert_eq!(set.get(a), Some(&7));
        assert_eq!(set.live(), 2);
    }

    #[test]
    fn an_id_is_freed_by_a_sweep_once_unused_and_then_reused() {
        let mut set = RefCountedSet::new(0u32, 3);
        let a = added(&mut set, 10);
        let b = added(&mut set, 11);
        set.retain(a, 2);
        set.retain(b, 1);
        assert!(set.sweep(|_| false).is_empty(), "both are used");
        assert!(set.is_full());
        assert_eq!(set.intern(&12), Interned::Full);
        set.release(a, 1);
        assert!(!set.has_pending(), "a still has a user");
        set.release(a, 1);
        assert_eq!(set.sweep(|_| false), vec![10]);
        assert_eq!(
            set.intern(&10),
            Interned::Added(a),
            "a value freed is added again"
        );
        let stamp = set.stamp(a);
        set.retain(a, 1);
        set.release(a, 1);
        set.sweep(|_| false);
        assert_eq!(set.stamp(a), 0, "freed");
        assert_eq!(set.intern(&12), Interned::Added(a));
        assert_ne!(set.stamp(a), stamp, "a reused id gets a new stamp");
        assert_eq!(set.get(a), Some(&12));
    }

    #[test]
    fn held_ids_and_added_ids_in_use_survive_a_sweep() {
        let mut set = RefCountedSet::new(0u32, 8);
        let a = added(&mut set, 1);
        let b = added(&mut set, 2);
        assert_eq!(set.sweep(|id| id == a), vec![2]);
        assert!(set.is_live(a));
        assert!(!set.is_live(b));
        assert!(!set.has_pending());
    }

    #[test]
    fn changed_chunks_are_reported_once() {
        let mut set = RefCountedSet::new(0u32, 1 << 16);
        set.forget_changes();
        for v in 1..=(CHUNK as u32 + 1) {
            added(&mut set, v);
        }
        assert_eq!(set.changed()[0], 0b11);
        set.forget_changes();
        assert_eq!(set.changed()[0], 0);
    }
}

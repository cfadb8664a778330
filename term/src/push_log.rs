//! Which rows went into the scrollback, and whether each had changed since a
//! viewer last saw it. A viewer that scrolled back keeps the rows that left
//! its screen as scrollback lines; a frame tells it how many of them are
//! still what it holds ([`RecentPushes::kept`]), so it never keeps a row that
//! changed before it left.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::MAX_DIMENSION;

/// Pushes remembered: at least a screen's height, which is all a frame asks
/// about (a viewer's rows that left its screen); a power of two, so a push
/// finds its slot with a mask.
const CAPACITY: usize = (MAX_DIMENSION as usize).next_power_of_two();

/// Recorded for a row whose change is not yet stamped with a generation:
/// newer than any snapshot.
pub(crate) const CHANGED_NOW: u64 = u64::MAX;

/// The generations of the rows most recently pushed into the scrollback, in
/// a ring, and how many rows were pushed in all.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct PushLog {
    count: u64,
    #[serde(with = "ring")]
    ring: Box<[u64; CAPACITY]>,
}

impl PushLog {
    pub(crate) fn new() -> PushLog {
        PushLog {
            count: 0,
            ring: Box::new([CHANGED_NOW; CAPACITY]),
        }
    }

    /// Notes one row pushed, whose last change had `generation`.
    #[inline]
    pub(crate) fn record(&mut self, generation: u64) {
        self.ring[self.count as usize & (CAPACITY - 1)] = generation;
        self.count += 1;
    }

    /// Rows pushed since the terminal was created.
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// The last `n` pushes (fewer when fewer were made), to publish.
    pub(crate) fn recent(&self, n: usize) -> RecentPushes {
        let n = n.min(CAPACITY).min(self.count as usize);
        let first = self.count - n as u64;
        let generations = (first..self.count)
            .map(|i| self.ring[i as usize & (CAPACITY - 1)])
            .collect();
        RecentPushes {
            count: self.count,
            generations,
        }
    }
}

/// The ring as the generations up to its last slot that is not
/// [`CHANGED_NOW`] (a terminal that pushed few rows writes few), padded back
/// with [`CHANGED_NOW`] when read.
mod ring {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{CAPACITY, CHANGED_NOW};

    /// Writes the slots up to the last one that is not [`CHANGED_NOW`].
    pub(super) fn serialize<S: Serializer>(
        ring: &[u64; CAPACITY],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let kept = ring
            .iter()
            .rposition(|&generation| generation != CHANGED_NOW)
            .map_or(0, |last| last + 1);
        ring[..kept].serialize(serializer)
    }

    /// Reads at most [`CAPACITY`] slots, the rest [`CHANGED_NOW`].
    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Box<[u64; CAPACITY]>, D::Error> {
        let slots = Vec::<u64>::deserialize(deserializer)?;
        if slots.len() > CAPACITY {
            return Err(D::Error::invalid_length(
                slots.len(),
                &format!("at most {CAPACITY} slots").as_str(),
            ));
        }
        let mut ring = Box::new([CHANGED_NOW; CAPACITY]);
        ring[..slots.len()].copy_from_slice(&slots);
        Ok(ring)
    }
}

/// The recent pushes as a snapshot carries them.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RecentPushes {
    count: u64,
    /// Generations of pushes `count - len .. count`, oldest first.
    generations: Arc<[u64]>,
}

impl RecentPushes {
    /// True when `other` is a clone of this very record (what the owner
    /// needs not send again).
    pub fn same_as(&self, other: &RecentPushes) -> bool {
        self.count == other.count && Arc::ptr_eq(&self.generations, &other.generations)
    }

    /// True when it records no more pushes than were made (a decoded copy
    /// that is not would make [`RecentPushes::kept`] underflow).
    pub fn is_consistent(&self) -> bool {
        self.generations.len() as u64 <= self.count
    }

    /// Rows pushed into the scrollback since the terminal was created.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Of the rows pushed after push number `from`, how many of the first
    /// ones (at most `rows`, and at most the pushes made since `from`) had
    /// not changed after generation `since`: a
    /// viewer sent the screen at (`since`, `from`) holds those rows as they
    /// are. Pushes older than this record count as changed.
    pub fn kept(&self, from: u64, since: u64, rows: usize) -> u32 {
        let oldest = self.count - self.generations.len() as u64;
        if from < oldest || from >= self.count {
            return 0;
        }
        let kept = self.generations[(from - oldest) as usize..]
            .iter()
            .take(rows)
            .take_while(|&&generation| generation <= since)
            .count();
        // At most `rows`, at most 1000.
        kept as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_counts_the_unchanged_rows_first_pushed() {
        let mut log = PushLog::new();
        for generation in [3, 5, 9, 4] {
            log.record(generation);
        }
        let recent = log.recent(10);
        assert_eq!(recent.count(), 4);
        assert_eq!(recent.kept(0, 5, 10), 2, "the third changed after 5");
        assert_eq!(recent.kept(0, 9, 10), 4);
        assert_eq!(recent.kept(0, 9, 3), 3, "no more than the screen's rows");
        assert_eq!(recent.kept(3, 4, 10), 1);
        assert_eq!(recent.kept(4, 9, 10), 0, "nothing pushed since");
        assert_eq!(recent.kept(0, 2, 10), 0);
    }

    #[test]
    fn pushes_older_than_the_record_count_as_changed() {
        let mut log = PushLog::new();
        for _ in 0..CAPACITY + 5 {
            log.record(1);
        }
        let recent = log.recent(10);
        assert_eq!(
            recent.kept(CAPACITY as u64 - 6, 1, 10),
            0,
            "before the record"
        );
        assert_eq!(recent.kept(CAPACITY as u64 - 5, 1, 10), 10);
        assert_eq!(recent.kept(CAPACITY as u64 - 4, 1, 10), 9);
        log.record(CHANGED_NOW);
        assert_eq!(log.recent(2).kept(CAPACITY as u64 + 5, u64::MAX - 1, 2), 0);
    }
}

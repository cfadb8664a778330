//! The style table as snapshots hold it: chunks of styles shared between
//! snapshots. Between compactions the table only grows, so a full chunk
//! never changes once published, and publishing after new styles copies
//! only the last, partly filled chunk: no snapshot copies the whole table.

use std::ops::Index;
use std::sync::Arc;

use super::style::Style;

/// Styles per chunk.
const CHUNK: usize = 1024;

/// A published style table: cheap to clone, indexed by style id.
#[derive(Clone, Debug, Default)]
pub struct PublishedStyles {
    chunks: Vec<Arc<[Style]>>,
    len: usize,
}

impl PublishedStyles {
    /// Brings the copy up to `table`. `renumbered` says the ids were
    /// renumbered since the last update, so nothing may be kept.
    pub fn update(&mut self, table: &[Style], renumbered: bool) {
        if renumbered || table.len() < self.len {
            self.chunks.clear();
            self.len = 0;
        }
        if table.len() == self.len {
            return;
        }
        let kept = self.len / CHUNK;
        self.chunks.truncate(kept);
        self.chunks
            .extend(table[kept * CHUNK..].chunks(CHUNK).map(Arc::from));
        self.len = table.len();
    }

    /// Number of styles.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The style with id `index`.
    pub fn get(&self, index: usize) -> Option<&Style> {
        self.chunks.get(index / CHUNK)?.get(index % CHUNK)
    }

    /// Every style in id order.
    pub fn iter(&self) -> impl Iterator<Item = &Style> + '_ {
        self.chunks.iter().flat_map(|chunk| chunk.iter())
    }
}

impl Index<usize> for PublishedStyles {
    type Output = Style;

    /// The style with id `index`; panics when there is none, as a slice does.
    fn index(&self, index: usize) -> &Style {
        &self.chunks[index / CHUNK][index % CHUNK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::Color;

    fn table(len: usize) -> Vec<Style> {
        (0..len)
            .map(|i| Style {
                fg: Color::Rgb(0, (i >> 8) as u8, i as u8),
                ..Style::default()
            })
            .collect()
    }

    #[test]
    fn growing_shares_the_full_chunks_and_copies_the_rest() {
        let mut published = PublishedStyles::default();
        published.update(&table(2 * CHUNK + 5), false);
        let before = published.clone();
        published.update(&table(3 * CHUNK + 7), false);
        assert!(Arc::ptr_eq(&before.chunks[1], &published.chunks[1]));
        assert!(!Arc::ptr_eq(&before.chunks[2], &published.chunks[2]));
        assert_eq!(published.len(), 3 * CHUNK + 7);
        assert_eq!(published.iter().count(), 3 * CHUNK + 7);
        assert_eq!(
            published[3 * CHUNK + 6],
            table(3 * CHUNK + 7)[3 * CHUNK + 6]
        );
        assert_eq!(before.len(), 2 * CHUNK + 5, "an older copy is unchanged");
        assert_eq!(published.get(3 * CHUNK + 7), None);
    }

    #[test]
    fn renumbering_replaces_everything() {
        let mut published = PublishedStyles::default();
        published.update(&table(CHUNK * 2), false);
        let mut renumbered = table(CHUNK * 2);
        renumbered.reverse();
        published.update(&renumbered, true);
        assert_eq!(published[0], renumbered[0]);
        assert_eq!(published.len(), CHUNK * 2);
    }
}

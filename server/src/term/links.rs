//! OSC 8 hyperlinks, interned so a style refers to a link by a 16-bit id.

use rustc_hash::FxHashMap;
use std::sync::Arc;

use super::style::CELLS_PER_REFUSAL;

/// A hyperlink target: the URI and the optional `id=` parameter that joins
/// separated pieces of one link.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Hyperlink {
    /// The `id=` parameter, if any.
    pub id: Option<Arc<str>>,
    /// The target URI.
    pub uri: Arc<str>,
}

/// Most links held at once. When the table is full, links no style uses
/// any more are dropped (see [`LinkTable::compact`]); only when every link
/// is still shown are new ones not recorded.
pub const MAX_LINKS: usize = 4096;
/// Longest URI accepted, in bytes.
pub const MAX_URI_BYTES: usize = 2048;

/// The link table; id 0 means "no link".
///
/// Compactions are paced as the style table's are: after one that freed
/// little, the next waits until enough links were refused to pay for it.
#[derive(Clone, Debug, Default)]
pub struct LinkTable {
    links: Vec<Hyperlink>,
    index: FxHashMap<Hyperlink, u16>,
    /// Bumped every time ids are renumbered.
    epoch: u32,
    /// Links refused because the table was full, since the last compaction.
    refused: usize,
    /// Refusals to wait for before the next compaction.
    patience: usize,
}

/// A compaction that leaves fewer than this many ids free freed too little
/// to run again as soon as the table is full.
const WORTHWHILE_FREE_IDS: usize = MAX_LINKS / 8;

impl LinkTable {
    /// The id of a link, adding it if new; `None` when it is refused (too long or table full).
    pub fn intern(&mut self, link: Hyperlink) -> Option<u16> {
        if link.uri.len() > MAX_URI_BYTES {
            return None;
        }
        if let Some(id) = self.index.get(&link) {
            return Some(*id);
        }
        if self.links.len() >= MAX_LINKS {
            self.refused += 1;
            return None;
        }
        self.links.push(link.clone());
        let id = self.links.len() as u16;
        self.index.insert(link, id);
        Some(id)
    }

    /// Every link in id order (id = position + 1).
    pub fn links(&self) -> &[Hyperlink] {
        &self.links
    }

    /// Bumped every time ids are renumbered.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// True when the table is full and a compaction may run now.
    pub fn compaction_due(&self) -> bool {
        self.links.len() >= MAX_LINKS && self.refused >= self.patience
    }

    /// Keeps only the links whose ids are marked in `used` (indexed by id,
    /// 0 unused) and renumbers them densely; `cells` is how many cells were
    /// scanned to mark them. Returns the old-id to new-id map (0 for a
    /// dropped link).
    pub fn compact(&mut self, used: &[bool], cells: usize) -> Vec<u16> {
        let mut remap = vec![0; self.links.len() + 1];
        let old = std::mem::take(&mut self.links);
        self.index.clear();
        for (i, link) in old.into_iter().enumerate() {
            if used.get(i + 1).copied().unwrap_or(false) {
                self.links.push(link.clone());
                let id = self.links.len() as u16;
                self.index.insert(link, id);
                remap[i + 1] = id;
            }
        }
        self.epoch = self.epoch.wrapping_add(1);
        self.refused = 0;
        self.patience = if MAX_LINKS - self.links.len() < WORTHWHILE_FREE_IDS {
            cells / CELLS_PER_REFUSAL
        } else {
            0
        };
        remap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_intern_and_refuse_when_too_long() {
        let mut table = LinkTable::default();
        let link = Hyperlink {
            id: None,
            uri: "https://example.com".into(),
        };
        let id = table.intern(link.clone()).unwrap();
        assert_eq!(table.intern(link.clone()), Some(id));
        assert_eq!(table.links()[id as usize - 1], link);
        let long = Hyperlink {
            id: None,
            uri: "x".repeat(MAX_URI_BYTES + 1).into(),
        };
        assert_eq!(table.intern(long), None);
    }

    fn link(i: usize) -> Hyperlink {
        Hyperlink {
            id: None,
            uri: format!("https://example.com/{i}").into(),
        }
    }

    #[test]
    fn compaction_keeps_the_used_links_and_frees_the_rest() {
        let mut table = LinkTable::default();
        for i in 0..MAX_LINKS {
            table.intern(link(i)).unwrap();
        }
        assert_eq!(table.intern(link(MAX_LINKS)), None);
        assert!(table.compaction_due());
        let mut used = vec![false; MAX_LINKS + 1];
        used[10] = true;
        let remap = table.compact(&used, 1000);
        assert_eq!((remap[10], remap[11]), (1, 0));
        assert_eq!(table.links(), [link(9)]);
        assert_eq!(table.epoch(), 1);
        assert_eq!(table.intern(link(9)), Some(1));
        assert_eq!(table.intern(link(MAX_LINKS)), Some(2));
    }

    #[test]
    fn a_compaction_that_freed_little_waits_for_refusals_to_pay_for_it() {
        let mut table = LinkTable::default();
        for i in 0..MAX_LINKS {
            table.intern(link(i)).unwrap();
        }
        table.compact(&[true; MAX_LINKS + 1], 64 * 3);
        for i in 0..3 {
            assert!(!table.compaction_due());
            assert_eq!(table.intern(link(MAX_LINKS + i)), None);
        }
        assert!(table.compaction_due());
    }
}

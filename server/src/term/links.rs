//! OSC 8 hyperlinks, interned so a style refers to a link by a 16-bit id.

use rustc_hash::FxHashMap;
use std::sync::Arc;

/// A hyperlink target: the URI and the optional `id=` parameter that joins
/// separated pieces of one link.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Hyperlink {
    /// The `id=` parameter, if any.
    pub id: Option<Arc<str>>,
    /// The target URI.
    pub uri: Arc<str>,
}

/// Most links held at once; past this, new links are not recorded.
pub const MAX_LINKS: usize = 4096;
/// Longest URI accepted, in bytes.
pub const MAX_URI_BYTES: usize = 2048;

/// The link table; id 0 means "no link".
#[derive(Clone, Debug, Default)]
pub struct LinkTable {
    links: Vec<Hyperlink>,
    index: FxHashMap<Hyperlink, u16>,
}

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
}

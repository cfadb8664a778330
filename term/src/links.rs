//! OSC 8 hyperlinks, interned so a style refers to a link by a 16-bit id.
//! The handler refuses URIs longer than [`MAX_URI_BYTES`] before interning.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::ref_set::RefCountedSet;

/// A hyperlink target: the URI and the optional `id=` parameter that joins
/// separated pieces of one link.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Hyperlink {
    /// The `id=` parameter, if any.
    pub id: Option<Arc<str>>,
    /// The target URI.
    pub uri: Arc<str>,
}

/// Most links held at once. A link is freed when no style uses it any more,
/// so only when this many are still shown are new ones not recorded.
pub const MAX_LINKS: usize = 4096;
/// Longest URI accepted, in bytes.
pub const MAX_URI_BYTES: usize = 2048;

/// The link table: id 0 means "no link"; every other id is counted once per
/// style that refers to it.
pub type LinkTable = RefCountedSet<Hyperlink>;

/// A fresh link table.
pub fn new_link_table() -> LinkTable {
    let none = Hyperlink {
        id: None,
        uri: Arc::from(""),
    };
    RefCountedSet::new(none, MAX_LINKS + 1)
}

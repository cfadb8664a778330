//! The pen: the style text is written in, and the interned ids of it and
//! of its erase style, interned lazily so a burst of SGRs costs one lookup.

use serde::{Deserialize, Serialize};

use crate::style::{Style, StyleId};

/// The current style and its interned ids. The field names are the saved
/// state's (it is flattened into the emulator's).
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Pen {
    /// The style set by SGR, hyperlinks and cursor restores.
    #[serde(rename = "pen")]
    pub style: Style,
    /// The id `interned` was interned as.
    #[serde(rename = "pen_id")]
    pub id: StyleId,
    /// Set when `style` changed and `id` may be stale.
    #[serde(rename = "pen_dirty")]
    dirty: bool,
    /// The style `id` was interned from.
    #[serde(rename = "interned_pen")]
    pub interned: Style,
    /// The erase style's id, interned on first use after a background change.
    pub erase_id: Option<StyleId>,
}

impl Default for Pen {
    fn default() -> Pen {
        Pen {
            style: Style::default(),
            id: StyleId::DEFAULT,
            dirty: false,
            interned: Style::default(),
            erase_id: Some(StyleId::DEFAULT),
        }
    }
}

impl Pen {
    /// Notes that `style` changed.
    #[inline]
    pub fn changed(&mut self) {
        self.dirty = true;
    }

    /// True when `style` changed since it was last interned.
    #[inline]
    pub fn is_stale(&self) -> bool {
        self.dirty
    }

    /// Takes the change: the style to intern as the new `id`, if it differs
    /// from the one interned (a new background forgets the erase style).
    pub fn take_change(&mut self) -> Option<Style> {
        self.dirty = false;
        if self.style == self.interned {
            return None;
        }
        if self.style.bg != self.interned.bg {
            self.erase_id = None;
        }
        self.interned = self.style;
        Some(self.style)
    }
}

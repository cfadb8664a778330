//! Which rows changed since the last snapshot: every row carries the
//! generation of its last change, handed out here, and a snapshot only
//! looks at rows newer than the one before it.

use serde::{Deserialize, Serialize};

use crate::row::Row;

/// Generations and the marks not yet given. The field names are the saved
/// state's (it is flattened into the emulator's).
#[derive(Clone, Default, Serialize, Deserialize)]
pub(super) struct Damage {
    /// Last generation handed out to a row.
    counter: u64,
    /// Generation of the last snapshot: rows at or below it are unchanged since.
    observed: u64,
    /// Lines scrolled up on the whole screen (the scroll hint's basis).
    pub scroll_count: u64,
    /// Rows marked changed but not yet given a new generation.
    pending_touch: Option<(usize, usize)>,
}

impl Damage {
    /// A fresh generation number.
    #[inline]
    pub fn next_generation(&mut self) -> u64 {
        self.counter += 1;
        self.counter
    }

    /// The newest generation handed out.
    #[inline]
    pub fn newest(&self) -> u64 {
        self.counter
    }

    /// Gives `line` a new generation unless it already has one newer than
    /// the last snapshot's.
    #[inline]
    pub fn mark(&mut self, line: &mut Row) {
        if line.generation() <= self.observed {
            line.set_generation(self.next_generation());
        }
    }

    /// Defers marking rows `top..=bottom`: one range union per call.
    #[inline]
    pub fn defer(&mut self, top: usize, bottom: usize) {
        self.pending_touch = match self.pending_touch {
            Some((a, b)) if a <= top && bottom <= b => return,
            Some((a, b)) => Some((a.min(top), b.max(bottom))),
            None => Some((top, bottom)),
        };
    }

    /// The deferred rows, taken.
    #[inline]
    pub fn take_deferred(&mut self) -> Option<(usize, usize)> {
        self.pending_touch.take()
    }

    /// Drops the deferred marks (the rows they were for are gone).
    #[inline]
    pub fn forget_deferred(&mut self) {
        self.pending_touch = None;
    }

    /// True when the top row's mark is deferred.
    #[inline]
    pub fn top_row_deferred(&self) -> bool {
        matches!(self.pending_touch, Some((0, _)))
    }

    /// Marks everything so far as seen: returns the newest generation.
    pub fn observe(&mut self) -> u64 {
        self.observed = self.counter;
        self.counter
    }
}

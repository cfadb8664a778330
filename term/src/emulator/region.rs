//! The scroll region (DECSTBM) and the side margins (DECSLRM).

use serde::{Deserialize, Serialize};

/// The rows and columns scrolling stays within, all inclusive. The field
/// names are the saved state's (it is flattened into the emulator's).
#[derive(Clone, Copy, Serialize, Deserialize)]
pub(super) struct ScrollRegion {
    /// Top row.
    pub top: usize,
    /// Bottom row.
    pub bottom: usize,
    /// Left margin: the screen's edge unless DECLRMM is set.
    pub left: usize,
    /// Right margin: the screen's edge unless DECLRMM is set.
    pub right: usize,
}

impl ScrollRegion {
    /// The whole of a `cols` x `rows` screen.
    pub fn full(cols: usize, rows: usize) -> ScrollRegion {
        ScrollRegion {
            top: 0,
            bottom: rows - 1,
            left: 0,
            right: cols - 1,
        }
    }

    /// Rows back to all `rows` of the screen.
    pub fn reset_rows(&mut self, rows: usize) {
        self.top = 0;
        self.bottom = rows - 1;
    }

    /// Columns back to all `cols` of the screen.
    pub fn reset_cols(&mut self, cols: usize) {
        self.left = 0;
        self.right = cols - 1;
    }

    /// True when row `r` is between the top and bottom margins.
    #[inline]
    pub fn has_row(&self, r: usize) -> bool {
        (self.top..=self.bottom).contains(&r)
    }

    /// True when column `c` is between the side margins.
    #[inline]
    pub fn has_col(&self, c: usize) -> bool {
        (self.left..=self.right).contains(&c)
    }
}

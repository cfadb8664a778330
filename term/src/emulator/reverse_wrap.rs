//! BS and CUB: moving left, and on past the left margin when reverse
//! wraparound is on. As xterm 383 and later: mode 45 goes on only into a
//! row that soft-wrapped; mode 1045 into any row, from the region's top row
//! (or the screen's, outside the region) round to its bottom row. Both need
//! DECAWM, and with either a pending wrap counts as the first column moved.

use super::Emulator;
use crate::modes::Mode;

impl Emulator {
    /// BS (`n` = 1) and CUB: `n` columns left, stopping at the left margin
    /// when inside it (at column 0 from left of it), unless reverse
    /// wraparound takes the cursor on to the row above.
    pub fn move_back(&mut self, n: usize) {
        let autowrap = self.modes.get(Mode::AutoWrap);
        let extended = autowrap && self.modes.get(Mode::ReverseWrapExtended);
        let inline = autowrap && self.modes.get(Mode::ReverseWrap);
        let cursor = *self.screen.cursor();
        let left = if cursor.col >= self.region.left {
            self.region.left
        } else {
            0
        };
        let mut n = n;
        if (extended || inline) && cursor.pending_wrap {
            n -= n.min(1);
        }
        let (top, bottom) = if self.region.has_row(cursor.row) {
            (self.region.top, self.region.bottom)
        } else {
            (0, self.rows - 1)
        };
        let (mut row, mut col) = (cursor.row, cursor.col);
        loop {
            let step = n.min(col.saturating_sub(left));
            col -= step;
            n -= step;
            if n == 0 {
                break;
            }
            if extended {
                row = if row == top { bottom } else { row - 1 };
            } else if inline && row > top && self.screen.grid()[row - 1].is_wrapped() {
                row -= 1;
            } else {
                break;
            }
            // Each wrap moves one column: onto the right margin above.
            col = self.region.right.max(left);
            n -= 1;
        }
        let cursor = self.screen.cursor_mut();
        cursor.row = row;
        cursor.col = col;
        cursor.pending_wrap = false;
    }
}

//! Left and right margins (DECLRMM, mode 69, and DECSLRM, `CSI Pl ; Pr s`):
//! with them set, scrolling, insertion and deletion of lines and characters,
//! autowrap, and the index functions DECBI and DECFI work inside a block of
//! columns. The rest of the editing functions consult the margins through
//! the helpers here.

use super::Emulator;
use crate::modes::Mode;

impl Emulator {
    /// True while left and right margins narrow the scrolling region.
    #[inline]
    pub fn has_side_margins(&self) -> bool {
        self.region.left != 0 || self.region.right + 1 != self.cols
    }

    /// True when the cursor's column lies inside the left and right margins.
    #[inline]
    pub fn cursor_in_side_margins(&self) -> bool {
        self.region.has_col(self.screen.cursor().col)
    }

    /// The column printing wraps before: past the right margin when the
    /// cursor is inside it, otherwise the screen's edge.
    #[inline]
    pub fn wrap_edge(&self) -> usize {
        if self.screen.cursor().col <= self.region.right {
            self.region.right + 1
        } else {
            self.cols
        }
    }

    /// DECSLRM: sets the left and right margins (1-based, inclusive; 0 means
    /// the edge) and homes the cursor. Ignored unless DECLRMM is set, or
    /// when the margins would leave fewer than two columns.
    pub fn set_side_margins(&mut self, left: u16, right: u16) {
        let left = left.max(1) as usize - 1;
        let right = match right {
            0 => self.cols,
            r => (r as usize).min(self.cols),
        } - 1;
        if left < right {
            self.region.left = left;
            self.region.right = right;
            self.goto(0, 0);
        }
    }

    /// Removes the left and right margins.
    pub fn reset_side_margins(&mut self) {
        self.region.reset_cols(self.cols);
    }

    /// DECLRMM: enables or disables the left and right margins; disabling
    /// removes them.
    pub fn set_side_margin_mode(&mut self, on: bool) {
        self.modes.set(Mode::SideMargins, on);
        if !on {
            self.reset_side_margins();
        }
    }

    /// Scrolls the block of rows `top..=bottom` between the side margins up
    /// by `n`; the rows left at its bottom are erased. Nothing reaches the
    /// scrollback: only whole lines go there.
    pub fn scroll_block_up(&mut self, top: usize, bottom: usize, n: usize) {
        let n = n.min(bottom + 1 - top);
        let (left, end) = (self.region.left, self.region.right + 1);
        self.spend((bottom + 1 - top) * (end - left));
        for r in top..bottom + 1 - n {
            let span = self.screen.grid()[r + n].span(left, end);
            self.screen.grid_mut()[r].set_span(left, span);
        }
        for r in bottom + 1 - n..=bottom {
            self.erase_cells(r, left, end);
        }
        self.touch_range(top, bottom);
    }

    /// Scrolls the block of rows `top..=bottom` between the side margins
    /// down by `n`; the rows left at its top are erased.
    pub fn scroll_block_down(&mut self, top: usize, bottom: usize, n: usize) {
        let n = n.min(bottom + 1 - top);
        let (left, end) = (self.region.left, self.region.right + 1);
        self.spend((bottom + 1 - top) * (end - left));
        for r in (top + n..=bottom).rev() {
            let span = self.screen.grid()[r - n].span(left, end);
            self.screen.grid_mut()[r].set_span(left, span);
        }
        for r in top..top + n {
            self.erase_cells(r, left, end);
        }
        self.touch_range(top, bottom);
    }

    /// DECBI (`ESC 6`): one column left; at the left margin the block
    /// between the margins shifts right instead (a blank column enters).
    pub fn back_index(&mut self) {
        let col = self.screen.cursor().col;
        self.screen.cursor_mut().pending_wrap = false;
        if col == self.region.left {
            let row = self.screen.cursor().row;
            if self.region.has_row(row) {
                self.shift_columns(1);
            }
        } else if col > 0 {
            self.screen.cursor_mut().col = col - 1;
        }
    }

    /// DECFI (`ESC 9`): one column right; at the right margin the block
    /// between the margins shifts left instead (a blank column enters).
    pub fn forward_index(&mut self) {
        let col = self.screen.cursor().col;
        self.screen.cursor_mut().pending_wrap = false;
        if col == self.region.right {
            let row = self.screen.cursor().row;
            if self.region.has_row(row) {
                self.shift_columns(-1);
            }
        } else if col + 1 < self.cols {
            self.screen.cursor_mut().col = col + 1;
        }
    }

    /// Shifts the block inside all four margins right (`n` > 0) or left by
    /// `n` columns (SL, SR, DECBI, DECFI).
    pub fn shift_columns(&mut self, n: isize) {
        let (left, end) = (self.region.left, self.region.right + 1);
        for r in self.region.top..=self.region.bottom {
            if n < 0 {
                self.delete_cells(r, left, n.unsigned_abs(), end);
            } else {
                self.shift_right(r, left, n as usize, end);
            }
        }
    }
}

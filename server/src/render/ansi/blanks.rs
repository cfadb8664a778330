//! Empty cells with a style no erase leaves (anything beyond a background).
//!
//! The emulator leaves them where half of a wide character was overwritten
//! or where a wide character wrapped from the last column. Printing spaces
//! instead would look the same but count as text, so they are rebuilt with
//! the emulator's own rules for wide characters, on a row where they and
//! their neighbours are still blank:
//!
//! - overwriting the right half of a wide character blanks its left half in
//!   the wide character's style, and so does erasing the right half;
//! - printing a wide character over the left half of another blanks the
//!   other's right half in the other's style;
//! - a wide character that does not fit in the last column leaves an empty
//!   cell in the pen's style there and wraps.

use super::{Painter, WIDE_FILLER};
use panecast_term::{Color, Row, Style};

impl Painter<'_> {
    /// Makes every styled empty cell of `row`, drawn on screen row `r`. No
    /// other cell of the row is left changed, but a row made entirely of them
    /// uses the start of screen row `r + 1` for a moment, so that row must
    /// still be blank (see [`Painter::bottom_blank_rows`]).
    pub(super) fn styled_blanks(&mut self, r: usize, row: &Row) {
        let end = row.stored_len();
        let mut x = 0;
        while x < end {
            let start = x;
            while x < end && self.is_styled_blank(row, x) {
                x += 1;
            }
            if x > start {
                self.styled_run(r, row, start, x);
            } else {
                x += 1;
            }
        }
    }

    /// True when every cell of `row` is a styled empty cell.
    fn is_all_styled_blanks(&self, row: &Row) -> bool {
        (0..row.cells().len()).all(|x| self.is_styled_blank(row, x))
    }

    /// Draws the rows at the bottom of the screen that are entirely styled
    /// empty cells, with nothing below to wrap into: each one row higher,
    /// then the screen scrolls down a row. Runs first, on a blank screen, and
    /// returns the first row so drawn (the row count when there is none).
    pub(super) fn bottom_blank_rows(&mut self) -> usize {
        let snapshot = self.snapshot;
        let lines = &snapshot.lines;
        let first = lines
            .iter()
            .rposition(|row| !self.is_all_styled_blanks(row))
            .map_or(0, |r| r + 1);
        if first == 0 || first == lines.len() {
            // None, or the whole screen: that is left to the styled spaces.
            return lines.len();
        }
        for (r, row) in lines.iter().enumerate().skip(first) {
            self.styled_blanks(r - 1, row);
        }
        self.default_background();
        self.out.push_str("\x1b[T");
        self.at = None;
        first
    }

    /// True when the cell at `x` is empty in a style no erase leaves.
    fn is_styled_blank(&self, row: &Row, x: usize) -> bool {
        let cell = row.cells()[x];
        let style = self.snapshot.style(cell.style());
        cell.is_empty() && style != style.erased()
    }

    /// Makes the styled empty cells `start..end` of `row` on screen row `r`.
    fn styled_run(&mut self, r: usize, row: &Row, start: usize, end: usize) {
        let snapshot = self.snapshot;
        let (cols, rows) = (row.cells().len(), snapshot.lines.len());
        let style_at = |x: usize| snapshot.style(row.cells()[x].style());
        if end < cols {
            // Left to right: each filler's right half is overwritten by the
            // next filler, the last one's by an erase of the cell after the run.
            for x in start..end {
                self.print_at(r, x, &style_at(x), WIDE_FILLER, x + 2);
            }
            self.clear_one(r, end);
        } else if start > 0 {
            // Right to left, each filler one column early: the next filler
            // overwrites its left half; an erase ends the last one.
            for x in (start..end).rev() {
                self.print_at(r, x - 1, &style_at(x), WIDE_FILLER, x + 1);
            }
            self.clear_one(r, start - 1);
        } else if cols >= 2 && r + 1 < rows {
            // The whole row: all but the last cell left to right, then a
            // filler that does not fit in the last column.
            self.styled_run(r, row, 0, cols - 1);
            self.wrap_pad(r, &style_at(cols - 1));
        } else {
            // No room for a wide character, or no row to wrap into (a
            // one-row screen, or one made only of such cells): styled spaces
            // look the same, though they count as text.
            for x in start..end {
                self.print_at(r, x, &style_at(x), ' ', x + 1);
            }
        }
    }

    /// Leaves an empty cell in `style` in the last column of screen row `r`
    /// by printing a filler that does not fit there; it wraps to the start of
    /// row `r + 1`, which is erased again.
    fn wrap_pad(&mut self, r: usize, style: &Style) {
        let cols = self.snapshot.cols as usize;
        self.set_style(style);
        self.move_to(r, cols - 1);
        self.out.push(WIDE_FILLER);
        self.at = None;
        self.default_background();
        self.move_to(r + 1, 0);
        self.erase(2);
    }

    /// Erases the cell at `(r, x)` to the default background.
    fn clear_one(&mut self, r: usize, x: usize) {
        self.default_background();
        self.move_to(r, x);
        self.erase(1);
    }

    /// Gives the pen the default background, so erases leave default cells.
    fn default_background(&mut self) {
        if self.pen.bg != Color::Default {
            let pen = Style {
                bg: Color::Default,
                ..self.pen
            };
            self.set_style(&pen);
        }
    }
}

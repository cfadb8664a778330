//! Resizing: the main screen reflows soft-wrapped lines to the new width
//! (scrollback included); the alternate screen is cut or padded.

use super::Emulator;
use crate::reflow;
use crate::row::Row;
use crate::screen::Cursor;

impl Emulator {
    /// Changes the screen size to `cols` x `rows` (both at least 1).
    pub fn resize(&mut self, cols: usize, rows: usize) {
        let (cols, rows) = (cols.max(1), rows.max(1));
        if cols == self.cols && rows == self.rows {
            return;
        }
        self.damage.forget_deferred();
        if self.alt_active {
            // The main screen's cursor comes back from its saved copy on leaving.
            let main = self.hidden.take_rows();
            let mut saved = *self.hidden.saved_cursor_mut();
            let rows_main = self.reflow(main, cols, rows, &mut [&mut saved]);
            let emptied = self.hidden.set_rows(rows_main);
            self.retire_rows(emptied);
            *self.hidden.saved_cursor_mut() = saved;
            let alt = self.screen.take_rows();
            let mut cursor = *self.screen.cursor();
            let rows_alt = self.cut_or_pad(alt, cols, rows, &mut cursor);
            let emptied = self.screen.set_rows(rows_alt);
            self.retire_rows(emptied);
            *self.screen.cursor_mut() = cursor;
        } else {
            let main = self.screen.take_rows();
            let (mut cursor, mut saved) = (*self.screen.cursor(), *self.screen.saved_cursor_mut());
            let rows_main = self.reflow(main, cols, rows, &mut [&mut cursor, &mut saved]);
            let emptied = self.screen.set_rows(rows_main);
            self.retire_rows(emptied);
            *self.screen.cursor_mut() = cursor;
            *self.screen.saved_cursor_mut() = saved;
        }
        self.cols = cols;
        self.rows = rows;
        self.region.reset_rows(rows);
        self.reset_side_margins();
        self.tabs.resize(cols);
        self.screen.clamp_cursors(cols, rows);
        self.hidden.clamp_cursors(cols, rows);
        for r in 0..rows {
            let generation = self.next_generation();
            self.screen.grid_mut()[r].set_generation(generation);
        }
    }

    /// The alternate screen: keeps the top rows unless the cursor would fall
    /// off the bottom, then drops rows from the top instead.
    fn cut_or_pad(
        &mut self,
        mut grid: Vec<Row>,
        cols: usize,
        rows: usize,
        cursor: &mut Cursor,
    ) -> Vec<Row> {
        if cursor.row >= rows {
            let drop = cursor.row + 1 - rows;
            let dropped: Vec<Row> = grid.drain(..drop).collect();
            self.retire_rows(dropped);
            cursor.row -= drop;
        }
        let below = grid.split_off(rows.min(grid.len()));
        self.retire_rows(below);
        for row in &mut grid {
            row.resize(cols);
        }
        while grid.len() < rows {
            let generation = self.next_generation();
            grid.push(Row::new(cols, Default::default(), generation));
        }
        grid
    }

    /// Reflows the main screen and its scrollback to the new size, moving the
    /// tracked cursors with the text they sit on (see [`crate::reflow`]).
    /// The new scrollback counts its cells as it is written; the old one and
    /// the old rows then withdraw theirs.
    fn reflow(
        &mut self,
        grid: Vec<Row>,
        cols: usize,
        rows: usize,
        tracked: &mut [&mut Cursor],
    ) -> Vec<Row> {
        let sb_len = self.scrollback.len();
        let positions: Vec<(usize, usize)> =
            tracked.iter().map(|c| (sb_len + c.row, c.col)).collect();
        let keep = positions.iter().map(|p| p.0 + 1).max().unwrap_or(0);
        let source = reflow::Source::new(&self.scrollback, &grid, self.cols, keep);
        let layout = reflow::measure(&source, cols, &positions);
        let mut scrollback = self.scrollback.empty_like();
        scrollback.fit_width(cols, &mut self.styles);
        let screen = reflow::write(
            &source,
            &layout,
            cols,
            rows,
            &mut scrollback,
            &mut self.styles,
            tracked,
        );
        std::mem::replace(&mut self.scrollback, scrollback).clear(&mut self.styles);
        self.retire_rows(grid);
        screen
    }
}

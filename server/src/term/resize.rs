//! Resizing: the main screen reflows soft-wrapped lines to the new width
//! (scrollback included); the alternate screen is cut or padded.

use super::cell::Cell;
use super::emulator::Emulator;
use super::row::Row;
use super::screen::Cursor;
use super::scrollback::Scrollback;
use compact_str::CompactString;

/// One logical line: the cells of a run of soft-wrapped rows, joined.
#[derive(Default)]
struct Logical {
    cells: Vec<Cell>,
    clusters: Vec<(usize, CompactString)>,
}

impl Emulator {
    /// Changes the screen size to `cols` x `rows` (both at least 1).
    pub fn resize(&mut self, cols: usize, rows: usize) {
        let (cols, rows) = (cols.max(1), rows.max(1));
        if cols == self.cols && rows == self.rows {
            return;
        }
        self.pending_touch = None;
        if self.alt_active {
            // The main screen's cursor comes back from its saved copy on leaving.
            let main = self.hidden.take_rows();
            let mut saved = *self.hidden.saved_cursor_mut();
            let rows_main = self.reflow(main, cols, rows, &mut [&mut saved]);
            self.hidden.set_rows(rows_main);
            *self.hidden.saved_cursor_mut() = saved;
            let alt = self.screen.take_rows();
            let mut cursor = *self.screen.cursor();
            let rows_alt = self.cut_or_pad(alt, cols, rows, &mut cursor);
            self.screen.set_rows(rows_alt);
            *self.screen.cursor_mut() = cursor;
        } else {
            let main = self.screen.take_rows();
            let (mut cursor, mut saved) = (*self.screen.cursor(), *self.screen.saved_cursor_mut());
            let rows_main = self.reflow(main, cols, rows, &mut [&mut cursor, &mut saved]);
            self.screen.set_rows(rows_main);
            *self.screen.cursor_mut() = cursor;
            *self.screen.saved_cursor_mut() = saved;
        }
        self.cols = cols;
        self.rows = rows;
        self.top = 0;
        self.bottom = rows - 1;
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
            grid.drain(..drop);
            cursor.row -= drop;
        }
        grid.truncate(rows);
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
    /// tracked cursors with the text they sit on.
    fn reflow(
        &mut self,
        grid: Vec<Row>,
        cols: usize,
        rows: usize,
        tracked: &mut [&mut Cursor],
    ) -> Vec<Row> {
        let old_cols = self.cols;
        let sb_len = self.scrollback.len();
        let mut physical: Vec<Row> = Vec::with_capacity(sb_len + grid.len());
        for line in self.scrollback.iter() {
            physical.push(line.to_row(old_cols, 0));
        }
        physical.extend(grid);
        let mut positions: Vec<(usize, usize)> =
            tracked.iter().map(|c| (sb_len + c.row, c.col)).collect();

        // Trailing empty rows below every cursor are not content.
        let keep = positions.iter().map(|p| p.0 + 1).max().unwrap_or(0);
        while physical.len() > keep
            && physical
                .last()
                .is_some_and(|r| r.stored_len() == 0 && !r.is_wrapped())
        {
            physical.pop();
        }

        // Join soft-wrapped rows into logical lines, noting where cursors fall.
        let mut logical: Vec<Logical> = Vec::new();
        let mut cursor_at: Vec<(usize, usize)> = vec![(0, 0); positions.len()];
        let mut current = Logical::default();
        for (index, row) in physical.iter().enumerate() {
            let base = current.cells.len();
            for (i, pos) in positions.iter().enumerate() {
                if pos.0 == index {
                    cursor_at[i] = (logical.len(), base + pos.1);
                }
            }
            let take = if row.is_wrapped() {
                row.cells()
                    .iter()
                    .rposition(|c| !c.is_wide_pad())
                    .map_or(0, |i| i + 1)
            } else {
                row.stored_len()
            };
            current.cells.extend_from_slice(&row.cells()[..take]);
            for (col, text) in row.clusters() {
                if (*col as usize) < take {
                    current.clusters.push((base + *col as usize, text.clone()));
                }
            }
            if !row.is_wrapped() {
                logical.push(std::mem::take(&mut current));
            }
        }
        if !current.cells.is_empty() || physical.last().is_some_and(|r| r.is_wrapped()) {
            logical.push(current);
        }
        positions.clear();

        // Rewrap every logical line at the new width.
        let mut out: Vec<Row> = Vec::new();
        let mut new_pos: Vec<(usize, usize)> = vec![(0, 0); cursor_at.len()];
        for (index, line) in logical.into_iter().enumerate() {
            let first_row = out.len();
            let mut starts: Vec<usize> = Vec::new();
            let mut row_cells: Vec<Cell> = Vec::with_capacity(cols);
            let mut row_clusters: Vec<(u16, CompactString)> = Vec::new();
            let mut clusters = line.clusters.into_iter().peekable();
            let mut start = 0;
            for (i, cell) in line.cells.iter().enumerate() {
                let need = if cell.width() == 2 { 2 } else { 1 };
                if cell.width() != 0 && row_cells.len() + need > cols && !row_cells.is_empty() {
                    let pad = Cell::wide_pad(Default::default());
                    while row_cells.len() < cols {
                        row_cells.push(pad);
                    }
                    out.push(Row::from_parts(
                        std::mem::take(&mut row_cells),
                        std::mem::take(&mut row_clusters),
                        true,
                        cols,
                        0,
                    ));
                    starts.push(start);
                    start = i;
                }
                if cell.width() == 2 && cols < 2 {
                    row_cells.push(Cell::blank(cell.style()));
                } else if cell.width() == 0 && row_cells.len() >= cols {
                    continue;
                } else {
                    while clusters.peek().is_some_and(|(c, _)| *c < i) {
                        clusters.next();
                    }
                    if clusters.peek().is_some_and(|(c, _)| *c == i) {
                        if let Some((_, text)) = clusters.next() {
                            row_clusters.push((row_cells.len() as u16, text));
                        }
                    }
                    row_cells.push(*cell);
                }
            }
            out.push(Row::from_parts(row_cells, row_clusters, false, cols, 0));
            starts.push(start);
            for (i, at) in cursor_at.iter().enumerate() {
                if at.0 == index {
                    let offset = at.1;
                    let sub = starts.iter().rposition(|&s| s <= offset).unwrap_or(0);
                    let col = (offset - starts[sub]).min(cols - 1);
                    new_pos[i] = (first_row + sub, col);
                }
            }
        }
        for (i, at) in cursor_at.iter().enumerate() {
            // A cursor below all content sits on an empty line of its own.
            if at.0 >= out.len() || new_pos[i].0 >= out.len() {
                new_pos[i].0 = new_pos[i].0.max(out.len().saturating_sub(1));
            }
        }
        let cursor_max = new_pos.iter().map(|p| p.0 + 1).max().unwrap_or(0);
        while out.len() < cursor_max.max(rows) {
            out.push(Row::new(cols, Default::default(), 0));
        }
        let mut split = out.len() - rows;
        if let Some(main_cursor) = new_pos.first() {
            split = split.min(main_cursor.0);
            split = split.max((main_cursor.0 + 1).saturating_sub(rows));
        }
        let mut screen = out.split_off(split);
        screen.truncate(rows);
        while screen.len() < rows {
            screen.push(Row::new(cols, Default::default(), 0));
        }
        let mut scrollback = Scrollback::new(self.scrollback.limit());
        for row in &out {
            scrollback.push(row);
        }
        self.scrollback = scrollback;
        for (cursor, pos) in tracked.iter_mut().zip(new_pos) {
            cursor.row = pos.0.saturating_sub(split);
            cursor.col = pos.1;
        }
        screen
    }
}

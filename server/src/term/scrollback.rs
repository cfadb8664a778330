//! Lines that scrolled off the top, stored in large blocks of cells rather than
//! one allocation per line. Trailing default blanks are not stored.

use std::collections::VecDeque;

use compact_str::CompactString;

use super::cell::Cell;
use super::row::Row;

/// Cells per block: 16,384 cells of 8 bytes is 128 KiB.
const BLOCK_CELLS: usize = 16 * 1024;

#[derive(Clone, Copy, Debug)]
struct LineMeta {
    start: u32,
    len: u32,
    wrapped: bool,
}

#[derive(Clone, Debug, Default)]
struct Block {
    cells: Vec<Cell>,
    lines: Vec<LineMeta>,
    /// (line index in block, column, text) of grapheme clusters.
    clusters: Vec<(u32, u16, CompactString)>,
}

/// A line read back from the scrollback.
#[derive(Clone, Copy, Debug)]
pub struct StoredLine<'a> {
    /// The stored cells (trailing default blanks omitted).
    pub cells: &'a [Cell],
    /// True when the line continues on the next one.
    pub wrapped: bool,
    clusters: &'a [(u32, u16, CompactString)],
    line: u32,
}

impl<'a> StoredLine<'a> {
    /// The grapheme clusters of this line as (column, text).
    pub fn clusters(self) -> impl Iterator<Item = (u16, &'a CompactString)> + 'a {
        let line = self.line;
        self.clusters
            .iter()
            .filter(move |(l, _, _)| *l == line)
            .map(|(_, c, t)| (*c, t))
    }

    /// Turns the stored line back into a row of `cols` columns.
    pub fn to_row(self, cols: usize, generation: u64) -> Row {
        let clusters = self.clusters().map(|(c, t)| (c, t.clone())).collect();
        Row::from_parts(
            self.cells.to_vec(),
            clusters,
            self.wrapped,
            cols,
            generation,
        )
    }
}

/// The scrollback: at most `limit` lines, oldest dropped first.
#[derive(Clone, Debug)]
pub struct Scrollback {
    blocks: VecDeque<Block>,
    /// Lines at the front of the first block that are logically gone.
    skip: usize,
    len: usize,
    /// Lines kept at the current width: `lines`, or fewer to fit the budget.
    limit: usize,
    /// Lines asked for.
    lines: usize,
    /// Most lines x columns held.
    cell_budget: usize,
}

impl Scrollback {
    /// An empty scrollback holding at most `limit` lines.
    pub fn new(limit: usize) -> Scrollback {
        Scrollback {
            blocks: VecDeque::new(),
            skip: 0,
            len: 0,
            limit,
            lines: limit,
            cell_budget: usize::MAX,
        }
    }

    /// An empty scrollback with the same limits.
    pub fn empty_like(&self) -> Scrollback {
        Scrollback {
            blocks: VecDeque::new(),
            skip: 0,
            len: 0,
            ..*self
        }
    }

    /// Keeps at most `cells` lines x columns from now on.
    pub fn set_cell_budget(&mut self, cells: usize, cols: usize) {
        self.cell_budget = cells;
        self.fit_width(cols);
    }

    /// Fits the limit to lines `cols` wide within the cell budget, dropping
    /// the oldest lines beyond it.
    pub fn fit_width(&mut self, cols: usize) {
        self.limit = self.lines.min(self.cell_budget / cols.max(1));
        while self.len > self.limit {
            self.drop_oldest();
        }
    }

    /// Number of lines held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The most lines kept at the current width.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Appends a row as the newest line, dropping the oldest beyond the limit.
    pub fn push(&mut self, row: &Row) {
        let len = row.stored_len();
        self.push_parts(&row.cells()[..len], row.clusters(), row.is_wrapped());
    }

    /// Appends a line given as its cells (trailing default blanks are not
    /// stored), its clusters as (column, text) and its wrapped flag.
    pub fn push_parts(&mut self, cells: &[Cell], clusters: &[(u16, CompactString)], wrapped: bool) {
        if self.limit == 0 {
            return;
        }
        let len = cells
            .iter()
            .rposition(|c| !c.is_default_blank())
            .map_or(0, |i| i + 1);
        let needs_block = self
            .blocks
            .back()
            .is_none_or(|b| b.cells.len() + len > b.cells.capacity());
        if needs_block {
            self.blocks.push_back(Block {
                cells: Vec::with_capacity(BLOCK_CELLS.max(len)),
                ..Block::default()
            });
        }
        // The block was just ensured above.
        let block = self.blocks.back_mut().expect("a block exists");
        let line = block.lines.len() as u32;
        block.lines.push(LineMeta {
            start: block.cells.len() as u32,
            len: len as u32,
            wrapped,
        });
        block.cells.extend_from_slice(&cells[..len]);
        for (col, text) in clusters {
            if (*col as usize) < len {
                block.clusters.push((line, *col, text.clone()));
            }
        }
        self.len += 1;
        while self.len > self.limit {
            self.drop_oldest();
        }
    }

    fn drop_oldest(&mut self) {
        if self.len == 0 {
            return;
        }
        self.skip += 1;
        self.len -= 1;
        if self
            .blocks
            .front()
            .is_some_and(|b| self.skip >= b.lines.len())
        {
            self.blocks.pop_front();
            self.skip = 0;
        }
    }

    /// The line `index` lines from the oldest (0 is the oldest).
    pub fn get(&self, index: usize) -> Option<StoredLine<'_>> {
        if index >= self.len {
            return None;
        }
        let mut i = index + self.skip;
        for block in &self.blocks {
            if i < block.lines.len() {
                let meta = block.lines[i];
                let start = meta.start as usize;
                return Some(StoredLine {
                    cells: &block.cells[start..start + meta.len as usize],
                    wrapped: meta.wrapped,
                    clusters: &block.clusters,
                    line: i as u32,
                });
            }
            i -= block.lines.len();
        }
        None
    }

    /// Removes every line.
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.skip = 0;
        self.len = 0;
    }

    /// Visits every cell of the lines held (for style-table compaction);
    /// the cells of dropped lines still in the first block are skipped.
    pub fn for_each_style_mut(&mut self, mut f: impl FnMut(&mut Cell)) {
        for (i, block) in self.blocks.iter_mut().enumerate() {
            let from = match i {
                0 => block
                    .lines
                    .get(self.skip)
                    .map_or(block.cells.len(), |line| line.start as usize),
                _ => 0,
            };
            block.cells[from..].iter_mut().for_each(&mut f);
        }
    }

    /// Heap bytes held by the cells, line index and clusters.
    pub fn heap_bytes(&self) -> usize {
        self.blocks
            .iter()
            .map(|b| {
                b.cells.capacity() * std::mem::size_of::<Cell>()
                    + b.lines.capacity() * std::mem::size_of::<LineMeta>()
                    + b.clusters.capacity() * std::mem::size_of::<(u32, u16, CompactString)>()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::style::StyleId;

    fn row_with(text: &str, cols: usize) -> Row {
        let mut row = Row::new(cols, StyleId::DEFAULT, 0);
        for (i, ch) in text.chars().enumerate() {
            row.cells_mut()[i] = Cell::new(ch, StyleId::DEFAULT, 1);
        }
        row
    }

    #[test]
    fn keeps_at_most_the_limit_and_drops_oldest_first() {
        let mut sb = Scrollback::new(3);
        for i in 0..10 {
            sb.push(&row_with(&format!("line {i}"), 20));
        }
        assert_eq!(sb.len(), 3);
        assert_eq!(sb.get(0).unwrap().to_row(20, 0).text(), "line 7");
        assert_eq!(sb.get(2).unwrap().to_row(20, 0).text(), "line 9");
    }

    #[test]
    fn the_cell_budget_bounds_the_lines_at_every_width() {
        let mut sb = Scrollback::new(1_000);
        sb.set_cell_budget(8_000, 20);
        for i in 0..1_000 {
            sb.push(&row_with(&format!("line {i}"), 20));
        }
        assert_eq!((sb.len(), sb.limit), (400, 400));
        sb.fit_width(80);
        assert_eq!((sb.len(), sb.limit), (100, 100));
        assert_eq!(sb.get(0).unwrap().to_row(80, 0).text(), "line 900");
        sb.fit_width(4);
        assert_eq!(sb.limit, 1_000, "never more than the lines asked for");
        let empty = sb.empty_like();
        assert_eq!((empty.len(), empty.limit), (0, 1_000));
    }

    #[test]
    fn dropped_lines_are_not_visited() {
        let mut sb = Scrollback::new(2);
        for i in 0..5 {
            sb.push(&row_with(&format!("{i}"), 20));
        }
        let mut seen = String::new();
        sb.for_each_style_mut(|cell| seen.push(cell.ch()));
        assert_eq!(seen, "34");
    }

    #[test]
    fn many_lines_share_few_blocks() {
        let mut sb = Scrollback::new(10_000);
        for i in 0..10_000 {
            sb.push(&row_with(&format!("{i:>40}"), 120));
        }
        assert_eq!(sb.len(), 10_000);
        assert!(sb.blocks.len() < 40, "{} blocks", sb.blocks.len());
        assert_eq!(sb.get(9_999).unwrap().to_row(120, 0).text().trim(), "9999");
    }
}

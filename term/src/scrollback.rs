//! Lines that scrolled off the top, stored in large blocks rather than one
//! allocation per line. Trailing default blanks are not stored, and a line
//! of plain ASCII in the default style (most of what logs and shells print)
//! is kept a byte a cell instead of a whole [`Cell`]'s eight: a full
//! scrollback of such lines takes an eighth of the memory, and an eighth of
//! the pages to fault in as it fills.
//!
//! Every stored cell with a style other than the default counts as a user
//! of it in the style table, from the moment it is pushed until its line is
//! dropped, so the methods that add or drop lines take the table.

use std::collections::VecDeque;

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use super::cell::Cell;
use super::image::ImageSlice;
use super::row::Row;
use super::style::StyleTable;

/// Cells per block: 16,384 cells of 8 bytes is 128 KiB.
const BLOCK_CELLS: usize = 16 * 1024;
/// Plain cells per block: 128 KiB of bytes.
const BLOCK_BYTES: usize = 128 * 1024;
/// Lines per block, so that short lines do not keep a block, and the
/// index of lines already dropped, alive for long.
const BLOCK_LINES: usize = 2 * 1024;

/// Cells in a line [`Scrollback::push_plain`] copies a byte at a time.
const SHORT_LINE: usize = 8;

/// Where a line's cells are in its block.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct LineMeta {
    /// The first cell, in `bytes` for a plain line, in `cells` otherwise.
    start: u32,
    len: u32,
    wrapped: bool,
    /// Some cell has a style other than the default (counted in the table).
    styled: bool,
    /// Kept a byte a cell (see [`Cell::plain_byte`]). A saved state holds
    /// every line as cells.
    #[serde(skip)]
    plain: bool,
}

/// Lines in two stores, cells and bytes, with their index.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(try_from = "SavedBlock")]
struct Block {
    cells: Vec<Cell>,
    /// The cells of plain lines, a byte each.
    bytes: Vec<u8>,
    lines: Vec<LineMeta>,
    /// (line index in block, column, text) of grapheme clusters.
    clusters: Vec<(u32, u16, CompactString)>,
    /// (line index in block, slice) of images.
    images: Vec<(u32, ImageSlice)>,
}

/// A block as a saved state holds it: every line as cells, so that the
/// format does not depend on how lines are kept in memory.
#[derive(Serialize, Deserialize)]
struct SavedBlock {
    #[serde(with = "crate::persist::cells")]
    cells: Vec<Cell>,
    lines: Vec<LineMeta>,
    clusters: Vec<(u32, u16, CompactString)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    images: Vec<(u32, ImageSlice)>,
}

impl Serialize for Block {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut cells = Vec::with_capacity(self.cells.len() + self.bytes.len());
        let lines = (0..self.lines.len())
            .map(|i| {
                let meta = self.lines[i];
                let start = cells.len() as u32;
                self.line_cells(i).extend_into(&mut cells);
                LineMeta {
                    start,
                    plain: false,
                    ..meta
                }
            })
            .collect();
        SavedBlock {
            cells,
            lines,
            clusters: self.clusters.clone(),
            images: self.images.clone(),
        }
        .serialize(serializer)
    }
}

/// A saved block's lines, plain ones stored as bytes again; refused when
/// a line does not lie within the saved cells.
impl TryFrom<SavedBlock> for Block {
    type Error = &'static str;

    fn try_from(saved: SavedBlock) -> Result<Block, Self::Error> {
        let mut block = Block {
            clusters: saved.clusters,
            images: saved.images,
            ..Block::default()
        };
        for meta in saved.lines {
            let start = meta.start as usize;
            let cells = saved
                .cells
                .get(start..start + meta.len as usize)
                .ok_or("a scrollback line lies outside its block's cells")?;
            block.add(
                cells,
                meta.wrapped,
                meta.styled,
                is_plain(cells, meta.styled),
            );
        }
        Ok(block)
    }
}

/// True when the line can be kept a byte a cell.
#[inline(always)]
fn is_plain(cells: &[Cell], styled: bool) -> bool {
    !styled && cells.iter().all(|c| c.plain_byte().is_some())
}

impl Block {
    /// The block with nothing in it, its memory kept.
    fn emptied(mut self) -> Block {
        self.cells.clear();
        self.bytes.clear();
        self.lines.clear();
        self.clusters.clear();
        self.images.clear();
        self
    }

    /// True when a line of `len` cells, plain or not, fits without growing
    /// a store that has memory (an empty store gets its block's worth).
    #[inline(always)]
    fn has_room(&self, len: usize, plain: bool) -> bool {
        let fits = |used: usize, capacity: usize| capacity == 0 || used + len <= capacity;
        self.lines.len() < BLOCK_LINES
            && if plain {
                fits(self.bytes.len(), self.bytes.capacity())
            } else {
                fits(self.cells.len(), self.cells.capacity())
            }
    }

    /// Appends a line, as bytes when `plain` (see [`is_plain`]); returns
    /// its index. The store it goes to has room (see [`Block::has_room`]),
    /// or no memory yet and gets its block's worth.
    #[inline(always)]
    fn add(&mut self, cells: &[Cell], wrapped: bool, styled: bool, plain: bool) -> u32 {
        let line = self.lines.len() as u32;
        if self.lines.capacity() == 0 {
            self.lines.reserve_exact(BLOCK_LINES);
        }
        let start = if plain {
            if self.bytes.capacity() == 0 {
                self.bytes.reserve_exact(BLOCK_BYTES.max(cells.len()));
            }
            let start = self.bytes.len();
            // Every cell is plain: its `char` is ASCII.
            self.bytes.extend(cells.iter().map(|c| c.ch() as u8));
            start
        } else {
            if self.cells.capacity() == 0 {
                self.cells.reserve_exact(BLOCK_CELLS.max(cells.len()));
            }
            let start = self.cells.len();
            self.cells.extend_from_slice(cells);
            start
        };
        self.lines.push(LineMeta {
            start: start as u32,
            len: cells.len() as u32,
            wrapped,
            styled,
            plain,
        });
        line
    }

    /// The cells of line `index` of the block.
    fn line_cells(&self, index: usize) -> StoredCells<'_> {
        let meta = self.lines[index];
        let range = meta.start as usize..(meta.start + meta.len) as usize;
        if meta.plain {
            StoredCells::Plain(&self.bytes[range])
        } else {
            StoredCells::Rich(&self.cells[range])
        }
    }
}

/// A stored line's cells, as they are kept.
#[derive(Clone, Copy, Debug)]
enum StoredCells<'a> {
    Rich(&'a [Cell]),
    Plain(&'a [u8]),
}

impl StoredCells<'_> {
    fn len(self) -> usize {
        match self {
            StoredCells::Rich(cells) => cells.len(),
            StoredCells::Plain(bytes) => bytes.len(),
        }
    }

    fn extend_into(self, out: &mut Vec<Cell>) {
        match self {
            StoredCells::Rich(cells) => out.extend_from_slice(cells),
            StoredCells::Plain(bytes) => {
                out.extend(bytes.iter().map(|&b| Cell::from_plain_byte(b)))
            }
        }
    }
}

/// A line read back from the scrollback.
#[derive(Clone, Copy, Debug)]
pub struct StoredLine<'a> {
    cells: StoredCells<'a>,
    /// True when the line continues on the next one.
    pub wrapped: bool,
    clusters: &'a [(u32, u16, CompactString)],
    images: &'a [(u32, ImageSlice)],
    line: u32,
}

impl<'a> StoredLine<'a> {
    /// Number of cells stored (trailing default blanks omitted).
    pub fn len(self) -> usize {
        self.cells.len()
    }

    /// Appends the stored cells to `out`.
    pub fn extend_cells(self, out: &mut Vec<Cell>) {
        self.cells.extend_into(out);
    }

    /// The grapheme clusters of this line as (column, text).
    pub fn clusters(self) -> impl Iterator<Item = (u16, &'a CompactString)> + 'a {
        let line = self.line;
        self.clusters
            .iter()
            .filter(move |(l, _, _)| *l == line)
            .map(|(_, c, t)| (*c, t))
    }

    /// The slices of images placed on this line.
    pub fn images(self) -> impl Iterator<Item = &'a ImageSlice> + 'a {
        let line = self.line;
        self.images
            .iter()
            .filter(move |(l, _)| *l == line)
            .map(|(_, s)| s)
    }

    /// Turns the stored line back into a row of `cols` columns.
    pub fn to_row(self, cols: usize, generation: u64) -> Row {
        let clusters = self.clusters().map(|(c, t)| (c, t.clone())).collect();
        let mut cells = Vec::with_capacity(cols.max(self.len()));
        self.extend_cells(&mut cells);
        let mut row = Row::from_parts(cells, clusters, self.wrapped, cols, generation);
        for slice in self.images() {
            row.add_image(*slice);
        }
        row.resize(cols);
        row
    }
}

/// The scrollback: at most `limit` lines, oldest dropped first.
#[derive(Debug, Serialize, Deserialize)]
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
    /// The last block dropped, emptied and kept for the next one needed:
    /// a full scrollback writes into memory it already has, instead of
    /// returning a block's pages and faulting in a new one's.
    #[serde(skip)]
    spare: Option<Block>,
}

/// A copy holds the lines, not the spare block: a replay's keyframes are
/// copies, and need no memory for lines to come.
impl Clone for Scrollback {
    fn clone(&self) -> Scrollback {
        Scrollback {
            blocks: self.blocks.clone(),
            spare: None,
            ..*self
        }
    }
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
            spare: None,
        }
    }

    /// An empty scrollback with the same limits.
    pub fn empty_like(&self) -> Scrollback {
        Scrollback {
            blocks: VecDeque::new(),
            skip: 0,
            len: 0,
            spare: None,
            ..*self
        }
    }

    /// Keeps at most `cells` lines x columns from now on.
    pub fn set_cell_budget(&mut self, cells: usize, cols: usize, styles: &mut StyleTable) {
        self.cell_budget = cells;
        self.fit_width(cols, styles);
    }

    /// Fits the limit to lines `cols` wide within the cell budget, dropping
    /// the oldest lines beyond it.
    pub fn fit_width(&mut self, cols: usize, styles: &mut StyleTable) {
        self.limit = self.lines.min(self.cell_budget / cols.max(1));
        while self.len > self.limit {
            self.drop_oldest(styles);
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
    #[inline]
    pub fn push(&mut self, row: &Row, styles: &mut StyleTable) {
        let cells = &row.cells()[..row.stored_len()];
        let bare = !row.is_styled() && row.clusters().is_empty() && !row.has_images();
        if bare && self.push_plain(cells, row.is_wrapped(), styles) {
            return;
        }
        self.push_line(
            cells,
            row.clusters(),
            row.is_wrapped(),
            row.is_styled(),
            styles,
        );
        self.add_images(row.images(), usize::MAX);
    }

    /// [`Scrollback::push`] of a line of default-style cells without
    /// clusters or images (`cells` trimmed of trailing default blanks),
    /// when it is plain and the newest block has room for its bytes: the
    /// common case, kept short. False, storing nothing, for
    /// [`Scrollback::push_line`] to take it.
    #[inline]
    fn push_plain(&mut self, cells: &[Cell], wrapped: bool, styles: &mut StyleTable) -> bool {
        let Some(block) = self.blocks.back_mut() else {
            return false;
        };
        let start = block.bytes.len();
        let room = block.lines.len() < block.lines.capacity().min(BLOCK_LINES)
            && start + cells.len() <= block.bytes.capacity();
        if !room || self.limit == 0 || !is_plain(cells, false) {
            return false;
        }
        // Every cell is plain: its `char` is ASCII. A short line is copied
        // a byte at a time, cheaper than the call `extend` makes.
        let byte = |c: &Cell| c.ch() as u8;
        if cells.len() <= SHORT_LINE {
            cells.iter().for_each(|c| block.bytes.push(byte(c)));
        } else {
            block.bytes.extend(cells.iter().map(byte));
        }
        block.lines.push(LineMeta {
            start: start as u32,
            len: cells.len() as u32,
            wrapped,
            styled: false,
            plain: true,
        });
        self.len += 1;
        while self.len > self.limit {
            self.drop_oldest(styles);
        }
        true
    }

    /// Places image slices on the newest line, clipped to `cols` columns.
    pub fn add_images(&mut self, slices: &[ImageSlice], cols: usize) {
        if slices.is_empty() || self.len == 0 {
            return;
        }
        let cols = cols.min(u16::MAX as usize) as u16;
        if let Some(block) = self.blocks.back_mut() {
            let line = block.lines.len().saturating_sub(1) as u32;
            let kept = slices.iter().filter_map(|s| s.keep(0, cols));
            block.images.extend(kept.map(|slice| (line, slice)));
        }
    }

    /// Every image slice held, for finding the images still in use.
    pub fn images(&self) -> impl Iterator<Item = &ImageSlice> {
        self.blocks
            .iter()
            .flat_map(|b| b.images.iter().map(|(_, s)| s))
    }

    /// Appends a line given as its cells (trailing default blanks are not
    /// stored), its clusters as (column, text) and its wrapped flag.
    pub fn push_parts(
        &mut self,
        cells: &[Cell],
        clusters: &[(u16, CompactString)],
        wrapped: bool,
        styles: &mut StyleTable,
    ) {
        self.push_line(cells, clusters, wrapped, true, styles);
    }

    /// Appends a line; `styled` false promises every cell has the default style.
    fn push_line(
        &mut self,
        cells: &[Cell],
        clusters: &[(u16, CompactString)],
        wrapped: bool,
        styled: bool,
        styles: &mut StyleTable,
    ) {
        if self.limit == 0 {
            return;
        }
        let len = cells
            .iter()
            .rposition(|c| !c.is_default_blank())
            .map_or(0, |i| i + 1);
        let styled = styled && styles.retain_cells(&cells[..len]);
        let plain = is_plain(&cells[..len], styled);
        let needs_block = self.blocks.back().is_none_or(|b| !b.has_room(len, plain));
        if needs_block {
            let block = self.spare.take().unwrap_or_default();
            self.blocks.push_back(block);
        }
        // The block was just ensured above.
        let block = self.blocks.back_mut().expect("a block exists");
        let line = block.add(&cells[..len], wrapped, styled, plain);
        for (col, text) in clusters {
            if (*col as usize) < len {
                block.clusters.push((line, *col, text.clone()));
            }
        }
        self.len += 1;
        while self.len > self.limit {
            self.drop_oldest(styles);
        }
    }

    #[inline(always)]
    fn drop_oldest(&mut self, styles: &mut StyleTable) {
        let Some(block) = self.blocks.front().filter(|_| self.len > 0) else {
            return;
        };
        // A styled line is never plain: its cells are in `cells`, so a
        // block of plain lines (no cells) has none, and its index, cold by
        // now, need not be read.
        let styled = (!block.cells.is_empty())
            .then(|| block.lines.get(self.skip))
            .flatten()
            .filter(|m| m.styled);
        if let Some(meta) = styled {
            let start = meta.start as usize;
            styles.release_cells(&block.cells[start..start + meta.len as usize]);
        }
        self.skip += 1;
        self.len -= 1;
        if self.skip >= block.lines.len() {
            self.spare = self.blocks.pop_front().map(Block::emptied);
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
                return Some(StoredLine {
                    cells: block.line_cells(i),
                    wrapped: block.lines[i].wrapped,
                    clusters: &block.clusters,
                    images: &block.images,
                    line: i as u32,
                });
            }
            i -= block.lines.len();
        }
        None
    }

    /// Removes every line.
    pub fn clear(&mut self, styles: &mut StyleTable) {
        while self.len > 0 {
            self.drop_oldest(styles);
        }
        self.blocks.clear();
        self.spare = None;
        self.skip = 0;
    }

    /// Heap bytes held by the cells, line index and clusters.
    pub fn heap_bytes(&self) -> usize {
        self.blocks
            .iter()
            .chain(&self.spare)
            .map(|b| {
                b.cells.capacity() * std::mem::size_of::<Cell>()
                    + b.bytes.capacity()
                    + b.lines.capacity() * std::mem::size_of::<LineMeta>()
                    + b.clusters.capacity() * std::mem::size_of::<(u32, u16, CompactString)>()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ref_set::Interned;
    use crate::style::{new_style_table, Color, Style, StyleId};

    fn row_with(text: &str, cols: usize) -> Row {
        let mut row = Row::new(cols, StyleId::DEFAULT, 0);
        for (i, ch) in text.chars().enumerate() {
            row.cells_mut()[i] = Cell::new(ch, StyleId::DEFAULT, 1);
        }
        row
    }

    /// Interns a red foreground, a style other than the default.
    fn intern_red(styles: &mut StyleTable) -> u16 {
        let red = Style {
            fg: Color::Indexed(1),
            ..Style::default()
        };
        let Interned::Added(id) = styles.intern(&red) else {
            panic!("a new style")
        };
        id
    }

    #[test]
    fn keeps_at_most_the_limit_and_drops_oldest_first() {
        let mut sb = Scrollback::new(3);
        let mut styles = new_style_table();
        for i in 0..10 {
            sb.push(&row_with(&format!("line {i}"), 20), &mut styles);
        }
        assert_eq!(sb.len(), 3);
        assert_eq!(sb.get(0).unwrap().to_row(20, 0).text(), "line 7");
        assert_eq!(sb.get(2).unwrap().to_row(20, 0).text(), "line 9");
    }

    #[test]
    fn a_full_scrollback_writes_its_new_lines_into_the_block_it_dropped() {
        let mut sb = Scrollback::new(100);
        let mut styles = new_style_table();
        // Not ASCII, so kept as cells: 16 lines of 1,000 fill a block, and
        // 100 lines take seven.
        let line = "é".repeat(1_000);
        for _ in 0..100 {
            sb.push(&row_with(&line, 1_000), &mut styles);
        }
        assert!(sb.spare.is_none(), "nothing dropped yet");
        let first = sb.blocks[0].cells.as_ptr();
        for _ in 0..16 {
            sb.push(&row_with(&line, 1_000), &mut styles);
        }
        let spare = sb.spare.as_ref().expect("the first block was dropped");
        assert_eq!((spare.cells.len(), spare.lines.len()), (0, 0));
        assert_eq!(spare.cells.as_ptr(), first);
        assert!(sb.clone().spare.is_none(), "a copy has no spare");
        for _ in 0..16 {
            sb.push(&row_with(&line, 1_000), &mut styles);
        }
        assert!(
            sb.blocks.iter().any(|b| b.cells.as_ptr() == first),
            "the dropped block took new lines"
        );
        assert_eq!(sb.len(), 100);
        assert_eq!(sb.get(99).unwrap().to_row(1_000, 0).text(), line);
        sb.clear(&mut styles);
        assert!(sb.spare.is_none(), "clearing returns the memory");
    }

    #[test]
    fn the_cell_budget_bounds_the_lines_at_every_width() {
        let mut sb = Scrollback::new(1_000);
        let mut styles = new_style_table();
        sb.set_cell_budget(8_000, 20, &mut styles);
        for i in 0..1_000 {
            sb.push(&row_with(&format!("line {i}"), 20), &mut styles);
        }
        assert_eq!((sb.len(), sb.limit), (400, 400));
        sb.fit_width(80, &mut styles);
        assert_eq!((sb.len(), sb.limit), (100, 100));
        assert_eq!(sb.get(0).unwrap().to_row(80, 0).text(), "line 900");
        sb.fit_width(4, &mut styles);
        assert_eq!(sb.limit, 1_000, "never more than the lines asked for");
        let empty = sb.empty_like();
        assert_eq!((empty.len(), empty.limit), (0, 1_000));
    }

    #[test]
    fn stored_cells_count_as_users_of_their_style_until_dropped() {
        let mut sb = Scrollback::new(2);
        let mut styles = new_style_table();
        let id = intern_red(&mut styles);
        let mut row = row_with("abc", 20);
        row.fill(0, 2, Cell::new('x', StyleId(id), 1));
        sb.push(&row, &mut styles);
        sb.push(&row_with("plain", 20), &mut styles);
        assert_eq!(styles.refs(id), 2);
        sb.push(&row_with("plain", 20), &mut styles);
        assert_eq!(styles.refs(id), 0, "the styled line was dropped");
        sb.push(&row, &mut styles);
        sb.clear(&mut styles);
        assert_eq!((sb.len(), styles.refs(id)), (0, 0));
    }

    /// Each kind of line the scrollback keeps, read back cell for cell.
    #[test]
    fn every_line_reads_back_as_it_was_pushed_whether_kept_as_bytes_or_cells() {
        let mut styles = new_style_table();
        let id = intern_red(&mut styles);
        let mut gap = row_with("ab", 20);
        gap.cells_mut()[5] = Cell::new('c', StyleId::DEFAULT, 1);
        let mut styled = row_with("abc", 20);
        styled.fill(1, 2, Cell::new('x', StyleId(id), 1));
        let mut wide = row_with("a", 20);
        wide.cells_mut()[1] = Cell::new('界', StyleId::DEFAULT, 2);
        wide.cells_mut()[2] = Cell::spacer(StyleId::DEFAULT);
        let mut wrapped = row_with("wrapped", 20);
        wrapped.set_wrapped(true);
        let rows = [
            (row_with("plain ascii ~!", 20), true),
            (gap, true),
            (wrapped, true),
            (row_with("", 20), true),
            (row_with("café", 20), false),
            (styled, false),
            (wide, false),
        ];
        let mut sb = Scrollback::new(100);
        for (row, _) in &rows {
            sb.push(row, &mut styles);
        }
        for (i, (row, plain)) in rows.iter().enumerate() {
            let line = sb.get(i).expect("held");
            assert_eq!(
                matches!(line.cells, StoredCells::Plain(_)),
                *plain,
                "line {i}"
            );
            let back = line.to_row(20, 0);
            assert_eq!(back.cells(), row.cells(), "line {i}");
            assert_eq!(back.is_wrapped(), row.is_wrapped(), "line {i}");
        }
        let mut saved = Vec::new();
        ciborium::into_writer(&sb, &mut saved).expect("saved");
        let restored: Scrollback = ciborium::from_reader(&saved[..]).expect("restored");
        for (i, (row, plain)) in rows.iter().enumerate() {
            let line = restored.get(i).expect("restored");
            assert_eq!(
                matches!(line.cells, StoredCells::Plain(_)),
                *plain,
                "line {i}"
            );
            assert_eq!(line.to_row(20, 0).cells(), row.cells(), "restored line {i}");
        }
    }

    #[test]
    fn plain_lines_take_a_byte_a_cell() {
        let mut sb = Scrollback::new(10_000);
        let mut styles = new_style_table();
        for i in 0..10_000 {
            sb.push(&row_with(&format!("{i:0>100}"), 120), &mut styles);
        }
        let cells = 10_000 * 100;
        assert!(
            sb.heap_bytes() < cells * 5 / 4,
            "{} bytes for {cells} plain cells",
            sb.heap_bytes()
        );
        assert_eq!(
            sb.get(9_999).unwrap().to_row(120, 0).text(),
            format!("{:0>100}", 9_999)
        );
    }

    #[test]
    fn a_saved_line_outside_its_blocks_cells_is_refused() {
        let saved = SavedBlock {
            cells: vec![Cell::new('a', StyleId::DEFAULT, 1)],
            lines: vec![LineMeta {
                start: 0,
                len: 2,
                wrapped: false,
                styled: false,
                plain: false,
            }],
            clusters: Vec::new(),
            images: Vec::new(),
        };
        let mut bytes = Vec::new();
        ciborium::into_writer(&saved, &mut bytes).expect("saved");
        let err = ciborium::from_reader::<Block, _>(&bytes[..]).expect_err("refused");
        assert!(err.to_string().contains("outside its block"), "{err}");
    }

    #[test]
    fn many_lines_share_few_blocks() {
        let mut sb = Scrollback::new(10_000);
        let mut styles = new_style_table();
        for i in 0..10_000 {
            sb.push(&row_with(&format!("{i:>40}"), 120), &mut styles);
        }
        assert_eq!(sb.len(), 10_000);
        assert!(sb.blocks.len() < 40, "{} blocks", sb.blocks.len());
        assert_eq!(sb.get(9_999).unwrap().to_row(120, 0).text().trim(), "9999");
    }
}

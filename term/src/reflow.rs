//! Reflow: the main screen and its scrollback rewrapped at a new width.
//!
//! It works on the text where it lies (the scrollback's blocks, the
//! screen's rows) in phases, and builds a [`Row`] only for the lines that
//! end up on the screen:
//! 1. [`Source`]: the physical lines, scrollback first, without the empty
//!    rows below every cursor;
//! 2. [`Source::for_each_logical`]: soft-wrapped lines joined into logical
//!    lines, one at a time, in a reused buffer;
//! 3. [`Wrapper`]: a logical line cut into rows of the new width;
//! 4. [`measure`]: a first pass counts the rows and finds where the
//!    tracked cursors land, which decides the split between scrollback and
//!    screen;
//! 5. [`write`]: a second pass sends the rows above the split straight
//!    into the new scrollback (only the ones it will keep) and builds the
//!    screen's rows.

use compact_str::CompactString;

use super::cell::Cell;
use super::image::ImageSlice;
use super::row::Row;
use super::screen::Cursor;
use super::scrollback::{Scrollback, StoredLine};
use super::style::StyleTable;

/// One physical line of the source.
enum Physical<'a> {
    Stored(StoredLine<'a>),
    Screen(&'a Row),
}

impl Physical<'_> {
    fn wrapped(&self) -> bool {
        match self {
            Physical::Stored(line) => line.wrapped,
            Physical::Screen(row) => row.is_wrapped(),
        }
    }

    /// The cells that belong to the logical line. A wrapped line counts its
    /// whole width (its trailing blanks are text) but not the blank left by a
    /// wide character that moved to the next line; an unwrapped one ends at
    /// its last non-blank cell.
    fn content(&self, old_cols: usize, out: &mut Vec<Cell>) {
        let start = out.len();
        match self {
            Physical::Stored(line) => line.extend_cells(out),
            Physical::Screen(row) if row.is_wrapped() => out.extend_from_slice(row.cells()),
            Physical::Screen(row) => out.extend_from_slice(&row.cells()[..row.stored_len()]),
        }
        if !self.wrapped() {
            return;
        }
        if out.len() - start < old_cols {
            // A stored line lost its trailing blanks: they were text.
            out.resize(start + old_cols, Cell::EMPTY);
        } else {
            let take = out[start..]
                .iter()
                .rposition(|c| !c.is_wide_pad())
                .map_or(0, |i| i + 1);
            out.truncate(start + take);
        }
    }

    /// Adds the image slices on the line to `out`.
    fn images(&self, out: &mut Vec<ImageSlice>) {
        match self {
            Physical::Stored(line) => out.extend(line.images()),
            Physical::Screen(row) => out.extend_from_slice(row.images()),
        }
    }

    /// The clusters among the first `take` cells, as (column, text).
    fn clusters(&self, take: usize, mut f: impl FnMut(usize, &CompactString)) {
        match self {
            Physical::Stored(line) => line
                .clusters()
                .filter(|(col, _)| (*col as usize) < take)
                .for_each(|(col, text)| f(col as usize, text)),
            Physical::Screen(row) => row
                .clusters()
                .iter()
                .filter(|(col, _)| (*col as usize) < take)
                .for_each(|(col, text)| f(*col as usize, text)),
        }
    }
}

/// The text to reflow: the scrollback and the screen's rows.
pub(super) struct Source<'a> {
    scrollback: &'a Scrollback,
    screen: &'a [Row],
    old_cols: usize,
    /// Physical lines used (trailing empty rows below the cursors left out).
    len: usize,
}

/// A logical line: the cells of a run of soft-wrapped rows, joined.
#[derive(Default)]
struct Logical {
    cells: Vec<Cell>,
    clusters: Vec<(usize, CompactString)>,
    /// The image slices of its physical lines: they go on its first row.
    images: Vec<ImageSlice>,
}

impl<'a> Source<'a> {
    /// The text of `scrollback` then `screen`, `old_cols` wide, keeping every
    /// physical line up to `keep` (the lowest cursor's line + 1).
    pub fn new(
        scrollback: &'a Scrollback,
        screen: &'a [Row],
        old_cols: usize,
        keep: usize,
    ) -> Source<'a> {
        let mut len = scrollback.len() + screen.len();
        while len > keep
            && screen
                .get(len - 1 - scrollback.len())
                .is_some_and(|r| r.stored_len() == 0 && !r.is_wrapped() && !r.has_images())
        {
            len -= 1;
        }
        Source {
            scrollback,
            screen,
            old_cols,
            len,
        }
    }

    fn physical(&self, index: usize) -> Option<Physical<'a>> {
        match index.checked_sub(self.scrollback.len()) {
            None => self.scrollback.get(index).map(Physical::Stored),
            Some(r) => self.screen.get(r).map(Physical::Screen),
        }
    }

    /// Calls `f` with each logical line and the offset in it of every
    /// physical line it is made of, as (physical index, offset).
    fn for_each_logical(&self, mut f: impl FnMut(&Logical, &[(usize, usize)])) {
        let mut line = Logical::default();
        // (physical index, offset in the logical line) of its pieces.
        let mut pieces: Vec<(usize, usize)> = Vec::new();
        let mut last_wrapped = false;
        for index in 0..self.len {
            let Some(physical) = self.physical(index) else {
                break;
            };
            let base = line.cells.len();
            pieces.push((index, base));
            physical.content(self.old_cols, &mut line.cells);
            let take = line.cells.len() - base;
            physical.clusters(take, |col, text| {
                line.clusters.push((base + col, text.clone()))
            });
            physical.images(&mut line.images);
            last_wrapped = physical.wrapped();
            if !last_wrapped {
                f(&line, &pieces);
                line.cells.clear();
                line.clusters.clear();
                line.images.clear();
                pieces.clear();
            }
        }
        if !line.cells.is_empty() || last_wrapped {
            f(&line, &pieces);
        }
    }
}

/// Cuts logical lines into rows of a width, in reused buffers.
struct Wrapper {
    cols: usize,
    cells: Vec<Cell>,
    clusters: Vec<(u16, CompactString)>,
}

/// A row the wrapper made: its cells, clusters, whether it wraps, and the
/// offset in the logical line of its first cell.
struct Out<'a> {
    cells: &'a [Cell],
    clusters: &'a [(u16, CompactString)],
    wrapped: bool,
    start: usize,
    /// The logical line's image slices, on its first row only.
    images: &'a [ImageSlice],
}

impl Wrapper {
    fn new(cols: usize) -> Wrapper {
        Wrapper {
            cols,
            cells: Vec::with_capacity(cols),
            clusters: Vec::new(),
        }
    }

    /// Cuts `line` into rows, calling `emit` with each.
    fn wrap(&mut self, line: &Logical, mut emit: impl FnMut(Out<'_>)) {
        let cols = self.cols;
        self.cells.clear();
        self.clusters.clear();
        let mut clusters = line.clusters.iter().peekable();
        let mut start = 0;
        for (i, cell) in line.cells.iter().enumerate() {
            let need = if cell.width() == 2 { 2 } else { 1 };
            if cell.width() != 0 && self.cells.len() + need > cols && !self.cells.is_empty() {
                // A wide character that does not fit leaves a pad behind.
                self.cells.resize(cols, Cell::wide_pad(Default::default()));
                emit(Out {
                    cells: &self.cells,
                    clusters: &self.clusters,
                    wrapped: true,
                    start,
                    images: if start == 0 { &line.images } else { &[] },
                });
                self.cells.clear();
                self.clusters.clear();
                start = i;
            }
            if cell.width() == 2 && cols < 2 {
                self.cells.push(Cell::blank(cell.style()));
            } else if cell.width() == 0 && self.cells.len() >= cols {
                continue;
            } else {
                while clusters.peek().is_some_and(|(c, _)| *c < i) {
                    clusters.next();
                }
                if let Some((_, text)) = clusters.next_if(|(c, _)| *c == i) {
                    self.clusters.push((self.cells.len() as u16, text.clone()));
                }
                self.cells.push(*cell);
            }
        }
        emit(Out {
            cells: &self.cells,
            clusters: &self.clusters,
            wrapped: false,
            start,
            images: if start == 0 { &line.images } else { &[] },
        });
    }
}

/// Where the rows go: how many there are and where the cursors land.
pub(super) struct Layout {
    /// Rows of text the reflow makes.
    rows: usize,
    /// The tracked cursors' new (row, column), rows counted from the top
    /// of the new scrollback.
    cursors: Vec<(usize, usize)>,
}

/// Phase one: counts the rows at the new width and places the cursors
/// given as (physical line, column).
pub(super) fn measure(source: &Source<'_>, cols: usize, cursors: &[(usize, usize)]) -> Layout {
    let mut wrapper = Wrapper::new(cols);
    let mut rows = 0;
    let mut placed = vec![None; cursors.len()];
    source.for_each_logical(|line, pieces| {
        let first_row = rows;
        // Each cursor on this logical line, as an offset into it.
        let offsets: Vec<(usize, usize)> = cursors
            .iter()
            .enumerate()
            .filter_map(|(i, &(physical, col))| {
                let &(_, base) = pieces.iter().find(|(p, _)| *p == physical)?;
                Some((i, base + col))
            })
            .collect();
        let mut starts = Vec::new();
        wrapper.wrap(line, |out| {
            rows += 1;
            if !offsets.is_empty() {
                starts.push(out.start);
            }
        });
        for (i, offset) in offsets {
            let sub = starts.iter().rposition(|&s| s <= offset).unwrap_or(0);
            let col = (offset - starts.get(sub).copied().unwrap_or(0)).min(cols - 1);
            placed[i] = Some((first_row + sub, col));
        }
    });
    // A cursor below all text sits on an empty line of its own.
    let cursors = placed
        .into_iter()
        .map(|at| match at {
            Some((row, col)) if row < rows => (row, col),
            Some((_, col)) => (rows.saturating_sub(1), col),
            None => (rows.saturating_sub(1), 0),
        })
        .collect();
    Layout { rows, cursors }
}

impl Layout {
    /// The first row on the screen: the screen ends at the last row, but
    /// always shows the main (first) cursor.
    fn split(&self, rows: usize) -> usize {
        let lowest = self.cursors.iter().map(|p| p.0 + 1).max().unwrap_or(0);
        let total = self.rows.max(lowest).max(rows);
        let mut split = total - rows;
        if let Some(main) = self.cursors.first() {
            split = split.min(main.0);
            split = split.max((main.0 + 1).saturating_sub(rows));
        }
        split
    }
}

/// Phase two: writes the rows above the split into `scrollback` (only those
/// it keeps, counted in `styles`) and returns the `rows` screen rows; moves
/// `tracked` to their new places on the screen.
pub(super) fn write(
    source: &Source<'_>,
    layout: &Layout,
    cols: usize,
    rows: usize,
    scrollback: &mut Scrollback,
    styles: &mut StyleTable,
    tracked: &mut [&mut Cursor],
) -> Vec<Row> {
    let split = layout.split(rows);
    let first_kept = split.saturating_sub(scrollback.limit());
    let mut wrapper = Wrapper::new(cols);
    let mut screen = Vec::with_capacity(rows);
    let mut row = 0;
    source.for_each_logical(|line, _| {
        if row >= split + rows {
            return;
        }
        wrapper.wrap(line, |out| {
            if row >= first_kept && row < split {
                scrollback.push_parts(out.cells, out.clusters, out.wrapped, styles);
                scrollback.add_images(out.images, cols);
            } else if row >= split && row < split + rows {
                let mut new = Row::from_parts(
                    out.cells.to_vec(),
                    out.clusters.to_vec(),
                    out.wrapped,
                    cols,
                    0,
                );
                for slice in out.images {
                    new.add_image(*slice);
                }
                new.resize(cols);
                screen.push(new);
            }
            row += 1;
        });
    });
    while screen.len() < rows {
        screen.push(Row::new(cols, Default::default(), 0));
    }
    for (cursor, &(r, c)) in tracked.iter_mut().zip(&layout.cursors) {
        cursor.row = r.saturating_sub(split);
        cursor.col = c;
    }
    screen
}

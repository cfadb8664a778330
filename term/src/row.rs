//! A row of cells with its generation number, soft-wrap flag and the rare
//! out-of-line text of grapheme clusters.

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use super::cell::{style_runs, Cell};
use super::image::slice_cut as cut;
use super::image::ImageSlice;
use super::style::{StyleId, StyleTable};
use super::width::width;

/// Cells cut from a row with their cluster text, columns counted from the
/// span's start (what scrolling inside left and right margins moves).
pub(crate) struct RowSpan {
    cells: Vec<Cell>,
    clusters: Vec<(u16, CompactString)>,
}

/// One line of the grid.
///
/// A row on a screen reports how many of its cells use each style to the
/// style table. It does so lazily: writes only clear `tallied`, and
/// [`Row::update_tally`] settles the difference when the table needs
/// up-to-date counts, so the print path pays one store per write.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Row {
    #[serde(with = "crate::persist::cells::row")]
    cells: Vec<Cell>,
    clusters: Vec<(u16, CompactString)>,
    generation: u64,
    /// Every cell at or after this column is a default blank (an upper
    /// bound, so trimming and clearing need not look further).
    used: usize,
    wrapped: bool,
    /// Some cell may have a style other than the default.
    styled: bool,
    /// Cells per style id (default excluded, sorted by id) as last counted
    /// in the style table.
    tally: Vec<(StyleId, u16)>,
    /// True when `tally` matches the cells.
    tallied: bool,
    /// The slices of images placed on this row.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    images: Vec<ImageSlice>,
}

/// Rows are equal when they show the same thing; the tally is bookkeeping.
impl PartialEq for Row {
    fn eq(&self, other: &Row) -> bool {
        self.cells == other.cells
            && self.clusters == other.clusters
            && self.generation == other.generation
            && self.used == other.used
            && self.wrapped == other.wrapped
            && self.images == other.images
    }
}

impl Eq for Row {}

/// Most image slices one row holds; the oldest go first.
const MAX_SLICES: usize = 16;

impl Row {
    /// A row of `cols` empty cells in `style`.
    pub fn new(cols: usize, style: StyleId, generation: u64) -> Row {
        Row {
            cells: vec![Cell::blank(style); cols],
            clusters: Vec::new(),
            generation,
            used: if style == StyleId::DEFAULT { 0 } else { cols },
            wrapped: false,
            styled: style != StyleId::DEFAULT,
            tally: Vec::new(),
            tallied: style == StyleId::DEFAULT,
            images: Vec::new(),
        }
    }

    /// A row from stored cells and clusters, padded or cut to `cols`.
    pub fn from_parts(
        mut cells: Vec<Cell>,
        clusters: Vec<(u16, CompactString)>,
        wrapped: bool,
        cols: usize,
        generation: u64,
    ) -> Row {
        let used = cells.len().min(cols);
        cells.resize(cols, Cell::EMPTY);
        let clusters = clusters
            .into_iter()
            .filter(|(c, _)| (*c as usize) < cols)
            .collect();
        Row {
            cells,
            clusters,
            generation,
            used,
            wrapped,
            styled: true,
            tally: Vec::new(),
            tallied: false,
            images: Vec::new(),
        }
    }

    /// The cells, one per column.
    #[inline]
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// The cells, for writing anywhere. Callers keep clusters consistent.
    #[inline]
    pub(crate) fn cells_mut(&mut self) -> &mut [Cell] {
        self.used = self.cells.len();
        self.styled = true;
        self.tallied = false;
        &mut self.cells
    }

    /// Writes one cell (the print path): cheaper than `cells_mut` because it
    /// widens the used extent only as far as needed.
    #[inline]
    pub(crate) fn put(&mut self, col: usize, cell: Cell) -> Cell {
        let old = std::mem::replace(&mut self.cells[col], cell);
        self.styled |= cell.style() != StyleId::DEFAULT;
        self.tallied = false;
        if col >= self.used {
            self.used = col + 1;
        }
        old
    }

    /// Writes printable ASCII at `col` in one style, when nothing under it
    /// needs repair (no wide characters or clusters). Returns false, writing
    /// nothing, when the caller must take the general path.
    #[inline]
    pub(crate) fn write_ascii(&mut self, col: usize, text: &[u8], style: StyleId) -> bool {
        let end = col + text.len();
        let target = &mut self.cells[col..end];
        // Readers trust a cell's cluster flag, so stale entries of
        // overwritten clusters need no cleanup here.
        if target.iter().any(Cell::needs_repair) {
            return false;
        }
        for (cell, &b) in target.iter_mut().zip(text) {
            *cell = Cell::new(b as char, style, 1);
        }
        self.wrote_plainly(end, style);
        true
    }

    /// [`Row::write_ascii`] of one character (a line of `y`, a cursor move
    /// and a character), without the loops' set-up; false, writing
    /// nothing, also when an image lies on the row or `col` is off it.
    #[inline]
    pub(crate) fn write_one_ascii(&mut self, col: usize, b: u8, style: StyleId) -> bool {
        let Some(cell) = self.cells.get_mut(col) else {
            return false;
        };
        if cell.needs_repair() || !self.images.is_empty() {
            return false;
        }
        *cell = Cell::new(b as char, style, 1);
        self.wrote_plainly(col + 1, style);
        true
    }

    /// Bookkeeping after cells up to `end` were written in `style`.
    #[inline]
    fn wrote_plainly(&mut self, end: usize, style: StyleId) {
        self.styled |= style != StyleId::DEFAULT;
        self.tallied = false;
        if end > self.used {
            self.used = end;
        }
    }

    /// Writes characters of width 1 or 2 from `col` in one style, as far as
    /// nothing needs the general path: it stops before a character of
    /// another width, one that would reach the last column (where wrapping
    /// begins), or cells that need repair (wide characters, clusters).
    /// Returns how many characters it wrote and the column after them.
    #[inline]
    pub(crate) fn write_text(
        &mut self,
        mut col: usize,
        text: &[char],
        style: StyleId,
    ) -> (usize, usize) {
        let last = self.cells.len().saturating_sub(1);
        let mut written = 0;
        for &c in text {
            let width = match width(c) {
                Some(w @ 1..=2) => w,
                _ => break,
            };
            if col + width > last {
                break;
            }
            let target = &mut self.cells[col..col + width];
            if target.iter().any(Cell::needs_repair) {
                break;
            }
            target[0] = Cell::new(c, style, width as u8);
            if width == 2 {
                target[1] = Cell::spacer(style);
            }
            col += width;
            written += 1;
        }
        self.styled |= style != StyleId::DEFAULT;
        self.tallied = false;
        if col > self.used {
            self.used = col;
        }
        (written, col)
    }

    /// Fills columns `start..end` with `cell`.
    pub(crate) fn fill(&mut self, start: usize, end: usize, cell: Cell) {
        self.cells[start..end].fill(cell);
        self.styled |= cell.style() != StyleId::DEFAULT;
        self.tallied = false;
        if cell.is_default_blank() {
            if end >= self.used {
                self.used = self.used.min(start);
            }
        } else {
            self.used = self.used.max(end);
        }
    }

    /// The generation of the last change to this row.
    #[inline]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Sets the generation (done by the grid when the row changes).
    #[inline]
    pub(crate) fn set_generation(&mut self, generation: u64) {
        self.generation = generation;
    }

    /// True when the text continues on the next row (a soft wrap).
    #[inline]
    pub fn is_wrapped(&self) -> bool {
        self.wrapped
    }

    /// Sets the soft-wrap flag.
    #[inline]
    pub(crate) fn set_wrapped(&mut self, wrapped: bool) {
        self.wrapped = wrapped;
    }

    /// The whole text of the cell at `col`: its cluster if it has one.
    pub fn cluster(&self, col: usize) -> Option<&str> {
        let cell = self.cells.get(col)?;
        if !cell.has_cluster() {
            return None;
        }
        self.clusters
            .iter()
            .find(|(c, _)| *c as usize == col)
            .map(|(_, s)| s.as_str())
    }

    /// All clusters as (column, text).
    pub fn clusters(&self) -> &[(u16, CompactString)] {
        &self.clusters
    }

    /// Appends a zero-width character to the text of the cell at `col`.
    pub(crate) fn push_to_cluster(&mut self, col: usize, extra: char) {
        let Some(cell) = self.cells.get_mut(col) else {
            return;
        };
        let list = &mut self.clusters;
        if cell.has_cluster() {
            if let Some((_, text)) = list.iter_mut().find(|(c, _)| *c as usize == col) {
                // A cluster is bounded so a stream of combining marks cannot grow it forever.
                if text.chars().count() < MAX_CLUSTER_CODEPOINTS {
                    text.push(extra);
                }
                return;
            }
        }
        list.retain(|(c, _)| *c as usize != col);
        let mut text = CompactString::default();
        text.push(if cell.ch() == '\0' { ' ' } else { cell.ch() });
        text.push(extra);
        list.push((col as u16, text));
        cell.mark_cluster();
    }

    /// Forgets the cluster text of cells in `start..end` whose flag is gone or
    /// which were overwritten. Cheap when the row has no clusters.
    #[inline]
    pub(crate) fn drop_clusters(&mut self, start: usize, end: usize) {
        if !self.clusters.is_empty() {
            self.clusters
                .retain(|(c, _)| !((*c as usize) >= start && (*c as usize) < end));
        }
    }

    /// Moves cluster entries after a shift of cells: every column `c` in
    /// `from..` becomes `c + delta`, dropping any that leave `0..cols`.
    pub(crate) fn shift_clusters(&mut self, from: usize, delta: isize, cols: usize) {
        if !self.clusters.is_empty() {
            self.clusters.retain_mut(|(c, _)| {
                if (*c as usize) < from {
                    return true;
                }
                let moved = *c as isize + delta;
                if moved < 0 || moved as usize >= cols {
                    return false;
                }
                *c = moved as u16;
                true
            });
        }
    }

    /// Copies of the cells `start..end` and their cluster text (columns
    /// counted from `start`), to write into another row with [`Row::set_span`].
    pub(crate) fn span(&self, start: usize, end: usize) -> RowSpan {
        RowSpan {
            cells: self.cells[start..end].to_vec(),
            clusters: self
                .clusters
                .iter()
                .filter(|(c, _)| (start..end).contains(&(*c as usize)))
                .map(|(c, text)| (*c - start as u16, text.clone()))
                .collect(),
        }
    }

    /// Writes `span` over the cells from column `start`, replacing their
    /// cluster text.
    pub(crate) fn set_span(&mut self, start: usize, span: RowSpan) {
        let end = start + span.cells.len();
        self.drop_clusters(start, end);
        self.cells_mut()[start..end].copy_from_slice(&span.cells);
        self.clusters.extend(
            span.clusters
                .into_iter()
                .map(|(c, text)| (c + start as u16, text)),
        );
    }

    /// Resets every cell to a blank in `style` and clears the wrap flag.
    #[inline]
    pub(crate) fn reset(&mut self, style: StyleId) {
        let blank = Cell::blank(style);
        if style == StyleId::DEFAULT {
            // Cells from `used` on are default blanks already.
            self.cells[..self.used].fill(blank);
            self.used = 0;
        } else {
            self.cells.fill(blank);
            self.used = self.cells.len();
        }
        self.tallied = false;
        self.styled = style != StyleId::DEFAULT;
        self.clusters.clear();
        self.images.clear();
        self.wrapped = false;
    }

    /// Changes the width, cutting or padding with empty cells.
    pub(crate) fn resize(&mut self, cols: usize) {
        self.cells.resize(cols, Cell::EMPTY);
        self.tallied = false;
        self.used = self.used.min(cols);
        if cols > 0 {
            if let Some(last) = self.cells.last_mut() {
                if last.width() == 2 {
                    *last = Cell::blank(last.style());
                }
            }
        }
        self.shift_clusters(cols, 0, cols);
        if self.has_images() {
            let cols = cols.min(u16::MAX as usize) as u16;
            self.images.retain_mut(|s| match s.keep(0, cols) {
                Some(kept) => {
                    *s = kept;
                    true
                }
                None => false,
            });
        }
    }

    /// The slices of images placed on this row.
    pub fn images(&self) -> &[ImageSlice] {
        &self.images
    }

    /// True when some image is placed on this row.
    #[inline]
    pub fn has_images(&self) -> bool {
        !self.images.is_empty()
    }

    /// Places a slice of an image on this row, over the others; the oldest
    /// go past [`MAX_SLICES`].
    pub(crate) fn add_image(&mut self, slice: ImageSlice) {
        if self.images.len() >= MAX_SLICES {
            self.images.remove(0);
        }
        self.images.push(slice);
    }

    /// Keeps the slices `keep` selects.
    pub(crate) fn retain_images(&mut self, keep: impl FnMut(&ImageSlice) -> bool) {
        self.images.retain(keep);
    }

    /// Cuts columns `start..end` out of the slices text replaces (sixel
    /// and iTerm2 images; kitty placements stay under text).
    #[cold]
    pub(crate) fn cut_images(&mut self, start: usize, end: usize) {
        let clamp = |c: usize| c.min(u16::MAX as usize) as u16;
        cut(
            &mut self.images,
            clamp(start),
            clamp(end),
            ImageSlice::text_cuts,
        );
    }

    /// True when some cell may have a style other than the default.
    #[inline]
    pub(crate) fn is_styled(&self) -> bool {
        self.styled
    }

    /// Brings the style table's counts up to date with this row's cells
    /// (nothing to do unless the row changed since it last did).
    pub(crate) fn update_tally(&mut self, styles: &mut StyleTable) {
        if self.tallied {
            return;
        }
        self.tallied = true;
        let mut tally = Vec::new();
        if self.styled {
            let mut runs: Vec<(StyleId, u32)> = style_runs(&self.cells[..self.used]).collect();
            runs.sort_unstable_by_key(|&(id, _)| id);
            for (id, len) in runs {
                match tally.last_mut() {
                    Some((last, n)) if *last == id => *n += len as u16,
                    _ => tally.push((id, len as u16)),
                }
            }
            self.styled = !tally.is_empty();
        }
        // Counting the new tally before dropping the old one keeps the ids
        // both share from passing through zero.
        for &(id, n) in &tally {
            styles.retain(id.0, n as u32);
        }
        for (id, n) in std::mem::replace(&mut self.tally, tally) {
            styles.release(id.0, n as u32);
        }
    }

    /// Withdraws this row's counts from the style table (the row leaves the
    /// screen without its cells going anywhere else).
    pub(crate) fn release_tally(&mut self, styles: &mut StyleTable) {
        for (id, n) in std::mem::take(&mut self.tally) {
            styles.release(id.0, n as u32);
        }
        self.tallied = false;
    }

    /// True when the row is whole at width `cols`: that many cells, each at
    /// most 2 columns wide, its used extent, clusters and image slices
    /// inside them. What a
    /// row decoded from another process must be before a viewer reads it.
    pub fn fits(&self, cols: usize) -> bool {
        self.cells.len() == cols
            && self.used <= cols
            && self.cells.iter().all(|cell| cell.width() <= 2)
            && self.clusters.iter().all(|(col, _)| (*col as usize) < cols)
            && self.images.len() <= MAX_SLICES
            && self.images.iter().all(|slice| slice.fits(cols))
    }

    /// A copy for a snapshot: the same cells, without the bookkeeping.
    pub(crate) fn published(&self) -> Row {
        Row {
            cells: self.cells.clone(),
            clusters: self.clusters.clone(),
            tally: Vec::new(),
            images: self.images.clone(),
            ..*self
        }
    }

    /// Number of columns up to and including the last non-empty cell (xterm.js's
    /// trimmed length: explicitly written spaces count, erased cells do not).
    pub fn trimmed_len(&self) -> usize {
        self.cells[..self.used]
            .iter()
            .rposition(|c| !c.is_empty())
            .map_or(0, |i| i + 1)
    }

    /// Number of columns up to the last cell that is not a default blank: what
    /// must be stored to reproduce the row.
    pub fn stored_len(&self) -> usize {
        self.cells[..self.used]
            .iter()
            .rposition(|c| !c.is_default_blank())
            .map_or(0, |i| i + 1)
    }

    /// The row as text: wide characters once, clusters whole, empty cells as
    /// spaces, trailing empty cells trimmed.
    pub fn text(&self) -> String {
        let end = self.trimmed_len();
        let mut out = String::with_capacity(end);
        for (col, cell) in self.cells[..end].iter().enumerate() {
            match cell.width() {
                0 => {}
                _ if cell.has_cluster() => out.push_str(self.cluster(col).unwrap_or(" ")),
                _ if cell.ch() == '\0' => out.push(' '),
                _ => out.push(cell.ch()),
            }
        }
        out
    }

    /// Runs `(start, end_exclusive, style)` of adjacent cells sharing a style,
    /// in column order, default-styled cells included. A wide character's run
    /// covers both its columns.
    pub fn style_runs(&self) -> Vec<(usize, usize, StyleId)> {
        let mut runs: Vec<(usize, usize, StyleId)> = Vec::new();
        for (col, cell) in self.cells.iter().enumerate() {
            if cell.width() == 0 {
                if let Some(last) = runs.last_mut() {
                    if last.1 == col {
                        last.1 = col + 1;
                        continue;
                    }
                }
            }
            match runs.last_mut() {
                Some(last) if last.1 == col && last.2 == cell.style() => last.1 = col + 1,
                _ => runs.push((col, col + 1, cell.style())),
            }
        }
        runs
    }
}

/// Most codepoints one cell may hold (the wire protocol's limit too).
pub const MAX_CLUSTER_CODEPOINTS: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_trims_only_never_written_cells() {
        let mut row = Row::new(6, StyleId::DEFAULT, 0);
        row.cells_mut()[0] = Cell::new('a', StyleId::DEFAULT, 1);
        row.cells_mut()[1] = Cell::new(' ', StyleId::DEFAULT, 1);
        assert_eq!(row.text(), "a ");
        assert_eq!(row.trimmed_len(), 2);
    }

    #[test]
    fn clusters_follow_their_base_cell() {
        let mut row = Row::new(4, StyleId::DEFAULT, 0);
        row.cells_mut()[1] = Cell::new('e', StyleId::DEFAULT, 1);
        row.push_to_cluster(1, '\u{301}');
        assert_eq!(row.cluster(1), Some("e\u{301}"));
        assert_eq!(row.text(), " e\u{301}");
        row.shift_clusters(0, 1, 4);
        assert_eq!(row.clusters()[0].0, 2);
    }

    #[test]
    fn clusters_are_bounded() {
        let mut row = Row::new(2, StyleId::DEFAULT, 0);
        row.cells_mut()[0] = Cell::new('a', StyleId::DEFAULT, 1);
        for _ in 0..10_000 {
            row.push_to_cluster(0, '\u{301}');
        }
        assert_eq!(
            row.cluster(0).unwrap().chars().count(),
            MAX_CLUSTER_CODEPOINTS
        );
    }

    #[test]
    fn fits_checks_width_extent_and_clusters() {
        let mut row = Row::new(4, StyleId::DEFAULT, 0);
        assert!(row.fits(4));
        assert!(!row.fits(5));
        row.cells_mut()[3] = Cell::new('e', StyleId::DEFAULT, 1);
        row.push_to_cluster(3, '\u{301}');
        assert!(row.fits(4));
        row.clusters[0].0 = 4;
        assert!(!row.fits(4));
        row.clusters.clear();
        row.cells[0] = Cell::new('x', StyleId::DEFAULT, 3);
        assert!(!row.fits(4));
    }

    #[test]
    fn a_decoded_row_counting_too_many_cells_is_refused() {
        let row = Row::new(3, StyleId::DEFAULT, 0);
        let mut bytes = Vec::new();
        ciborium::into_writer(&row, &mut bytes).unwrap();
        let back: Row = ciborium::from_reader(bytes.as_slice()).unwrap();
        assert_eq!(back, row);
        // The count is the first value of the cells' pair (0x82, an array
        // of two): 3 as one byte (0x03); 0x1b announces a u64 instead.
        let at = bytes
            .windows(6)
            .position(|w| w == b"cells\x82")
            .expect("the cells field")
            + 6;
        assert_eq!(bytes[at], 0x03);
        let mut huge = bytes[..at].to_vec();
        huge.push(0x1b);
        huge.extend_from_slice(&(1u64 << 40).to_be_bytes());
        huge.extend_from_slice(&bytes[at + 1..]);
        let error = ciborium::from_reader::<Row, _>(huge.as_slice()).unwrap_err();
        assert!(error.to_string().contains("more cells counted"), "{error}");
    }
}

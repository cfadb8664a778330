//! One line of cells on the wire: the text of its cells as one string, the
//! columns holding wide cells, the cells whose text is several codepoints, the
//! style runs, and the style of the blank cells to the right of the text.
//!
//! PROTOCOL.md ("Lines") gives the byte layout and the client's algorithm.

use crate::limits::{MAX_CELL_CODEPOINTS, MAX_COLS, MAX_LINE_IMAGES, MAX_LINE_TEXT};
use crate::reader::Reader;
use crate::{writer, DecodeError, ImagePiece, LineError};

/// Consecutive wide cells: the cells starting at `col`, `col + 2`, ...,
/// `col + 2 * (count - 1)` are two columns wide; the column right of each is
/// its spacer and has no text of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WideRun {
    /// Column of the first wide cell.
    pub col: u16,
    /// Number of consecutive wide cells (at least 1).
    pub count: u16,
}

/// A cell whose text is several codepoints (a base character with combining
/// marks, a ZWJ sequence, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// Column of the cell.
    pub col: u16,
    /// Number of codepoints of its text (2 to `MAX_CELL_CODEPOINTS`).
    pub codepoints: u8,
}

/// A run of columns with one style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StyleRun {
    /// Number of columns (spacer columns included).
    pub len: u16,
    /// Style id (0 = the default style).
    pub style: u32,
}

/// One cell of a line, as [`Line::cells`] yields it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell<'a> {
    /// Column of the cell (of its left half, for a wide cell).
    pub col: u16,
    /// Its text: one or more codepoints; `" "` for a blank cell.
    pub text: &'a str,
    /// 1, or 2 for a wide cell (whose right half, column `col + 1`, is a spacer).
    pub width: u8,
    /// Style id.
    pub style: u32,
}

/// The content of one line, ready to encode or just decoded.
///
/// Only [`LineBuilder`] and the decoder make lines, so a `Line` is always
/// consistent: its text, wide runs, clusters and style runs agree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    text: String,
    wrapped: bool,
    wide: Vec<WideRun>,
    clusters: Vec<Cluster>,
    runs: Vec<StyleRun>,
    fill: u32,
    columns: u16,
    images: Vec<ImagePiece>,
}

pub(crate) const WRAPPED: u8 = 1;
pub(crate) const HAS_WIDE: u8 = 1 << 1;
pub(crate) const HAS_CLUSTERS: u8 = 1 << 2;
pub(crate) const HAS_FILL: u8 = 1 << 3;
pub(crate) const HAS_IMAGES: u8 = 1 << 4;
/// Every line flag defined; the others are reserved.
pub(crate) const LINE_FLAGS: u8 = WRAPPED | HAS_WIDE | HAS_CLUSTERS | HAS_FILL | HAS_IMAGES;

impl Line {
    /// Builds a line `cols` columns wide from its cells, left to right, as
    /// `(text, width, style)`; see [`LineBuilder::push`].
    pub fn from_cells<'c>(
        cols: u16,
        wrapped: bool,
        cells: impl IntoIterator<Item = (&'c str, u8, u32)>,
    ) -> Result<Line, LineError> {
        let mut builder = LineBuilder::new(cols);
        for (text, width, style) in cells {
            builder.push(text, width, style)?;
        }
        Ok(builder.finish(wrapped))
    }

    /// The text of the sent cells in column order (spacers have none).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True when the line continues on the next one (it was soft-wrapped).
    pub fn wrapped(&self) -> bool {
        self.wrapped
    }

    /// Columns covered by the sent cells (spacers included). Columns from here
    /// to the right edge are blank cells with the [`fill`](Self::fill) style.
    pub fn columns(&self) -> u16 {
        self.columns
    }

    /// Style id of the blank cells right of the sent cells (0 = default).
    pub fn fill(&self) -> u32 {
        self.fill
    }

    /// The wide cells, as runs.
    pub fn wide_runs(&self) -> &[WideRun] {
        &self.wide
    }

    /// The cells whose text has several codepoints.
    pub fn clusters(&self) -> &[Cluster] {
        &self.clusters
    }

    /// The style runs; their lengths add up to [`columns`](Self::columns).
    pub fn runs(&self) -> &[StyleRun] {
        &self.runs
    }

    /// This line showing `images` (at most
    /// [`MAX_LINE_IMAGES`](crate::limits::MAX_LINE_IMAGES), bottom first; the
    /// rest are dropped), each within the width the line is sent at.
    pub fn with_images(mut self, mut images: Vec<ImagePiece>) -> Line {
        images.truncate(MAX_LINE_IMAGES);
        self.images = images;
        self
    }

    /// The pieces of images this line shows, bottom first.
    pub fn images(&self) -> &[ImagePiece] {
        &self.images
    }

    /// The sent cells, left to right (spacers and fill cells not included).
    pub fn cells(&self) -> Cells<'_> {
        Cells {
            line: self,
            layout: Layout::new(&self.text, &self.wide, &self.clusters),
            run_index: 0,
            run_end: 0,
            style: 0,
        }
    }

    pub(crate) fn encode_into(&self, out: &mut Vec<u8>) {
        let mut flags = 0;
        if self.wrapped {
            flags |= WRAPPED;
        }
        if !self.wide.is_empty() {
            flags |= HAS_WIDE;
        }
        if !self.clusters.is_empty() {
            flags |= HAS_CLUSTERS;
        }
        if self.fill != 0 {
            flags |= HAS_FILL;
        }
        if !self.images.is_empty() {
            flags |= HAS_IMAGES;
        }
        out.push(flags);
        writer::str(out, &self.text);
        if !self.wide.is_empty() {
            writer::len(out, self.wide.len());
            for run in &self.wide {
                writer::uint(out, run.col);
                writer::uint(out, run.count);
            }
        }
        if !self.clusters.is_empty() {
            writer::len(out, self.clusters.len());
            for cluster in &self.clusters {
                writer::uint(out, cluster.col);
                writer::uint(out, cluster.codepoints);
            }
        }
        // One run of the default style over the whole line is sent as no runs.
        let all_default = matches!(self.runs.as_slice(), [StyleRun { style: 0, .. }]);
        if all_default {
            writer::len(out, 0);
        } else {
            writer::len(out, self.runs.len());
            let last = self.runs.len().saturating_sub(1);
            for (i, run) in self.runs.iter().enumerate() {
                writer::uint(out, run.style);
                if i < last {
                    writer::uint(out, run.len);
                }
            }
        }
        if self.fill != 0 {
            writer::uint(out, self.fill);
        }
        if !self.images.is_empty() {
            writer::len(out, self.images.len());
            for piece in &self.images {
                piece.encode_into(out);
            }
        }
    }

    /// Decodes a line that must fit in `cols` columns.
    pub(crate) fn decode(r: &mut Reader<'_>, cols: u16) -> Result<Line, DecodeError> {
        let flags = r.flags(LINE_FLAGS, "line flags")?;
        let text = r.str(MAX_LINE_TEXT, "line text")?;

        let mut wide = Vec::new();
        if flags & HAS_WIDE != 0 {
            let n = nonzero(
                r.count(usize::from(MAX_COLS / 2), "wide runs")?,
                "wide runs",
            )?;
            wide.reserve(n);
            let mut end = 0u32;
            for _ in 0..n {
                let col = r.u16_in(0, MAX_COLS - 1, "wide column")?;
                let count = r.u16_in(1, MAX_COLS / 2, "wide count")?;
                if u32::from(col) < end {
                    return Err(DecodeError::InvalidLine(
                        "wide runs overlap or are out of order",
                    ));
                }
                end = u32::from(col) + 2 * u32::from(count);
                wide.push(WideRun { col, count });
            }
        }

        let mut clusters = Vec::new();
        if flags & HAS_CLUSTERS != 0 {
            let n = nonzero(r.count(usize::from(MAX_COLS), "clusters")?, "clusters")?;
            clusters.reserve(n);
            let mut next = 0u32;
            for _ in 0..n {
                let col = r.u16_in(0, MAX_COLS - 1, "cluster column")?;
                let codepoints =
                    r.u16_in(2, MAX_CELL_CODEPOINTS.into(), "cluster codepoints")? as u8;
                if u32::from(col) < next {
                    return Err(DecodeError::InvalidLine("clusters out of order"));
                }
                next = u32::from(col) + 1;
                clusters.push(Cluster { col, codepoints });
            }
        }

        let columns = measure(text, &wide, &clusters, cols)?;

        let n = r.count(usize::from(MAX_COLS), "style runs")?;
        if n > usize::from(columns) {
            return Err(DecodeError::InvalidLine("more style runs than columns"));
        }
        let mut runs = Vec::with_capacity(n.max(1));
        if n == 0 && columns > 0 {
            runs.push(StyleRun {
                len: columns,
                style: 0,
            });
        }
        let mut used = 0u16;
        for i in 0..n {
            let style = r.u32()?;
            let len = if i + 1 < n {
                let len = r.u16_in(1, MAX_COLS, "style run length")?;
                if u32::from(used) + u32::from(len) >= u32::from(columns) {
                    return Err(DecodeError::InvalidLine("style runs longer than the line"));
                }
                len
            } else {
                columns - used
            };
            used += len;
            runs.push(StyleRun { len, style });
        }

        let fill = if flags & HAS_FILL != 0 { r.u32()? } else { 0 };
        let mut images = Vec::new();
        if flags & HAS_IMAGES != 0 {
            let n = nonzero(r.count(MAX_LINE_IMAGES, "line images")?, "line images")?;
            images.reserve(n);
            for _ in 0..n {
                images.push(ImagePiece::decode(r, cols)?);
            }
        }
        Ok(Line {
            text: text.to_owned(),
            wrapped: flags & WRAPPED != 0,
            wide,
            clusters,
            runs,
            fill,
            columns,
            images,
        })
    }
}

/// Rejects an empty list where the format requires a non-empty one.
fn nonzero(n: usize, field: &'static str) -> Result<usize, DecodeError> {
    if n == 0 {
        return Err(DecodeError::OutOfRange { field });
    }
    Ok(n)
}

/// Lays out the cells of a decoded line and returns the columns they cover,
/// checking that the lists agree with the text and that it fits `cols`.
fn measure(
    text: &str,
    wide: &[WideRun],
    clusters: &[Cluster],
    cols: u16,
) -> Result<u16, DecodeError> {
    let mut layout = Layout::new(text, wide, clusters);
    while layout
        .next_cell()
        .map_err(DecodeError::InvalidLine)?
        .is_some()
    {
        if layout.col > u32::from(cols) {
            return Err(DecodeError::InvalidLine("line wider than the screen"));
        }
    }
    if layout.wide_index < wide.len() {
        return Err(DecodeError::InvalidLine(
            "wide cell past the end of the text",
        ));
    }
    if layout.cluster_index < clusters.len() {
        return Err(DecodeError::InvalidLine("cluster past the end of the text"));
    }
    u16::try_from(layout.col).map_err(|_| DecodeError::InvalidLine("line wider than the screen"))
}

/// Where one cell sits: its column, its text's byte range and its width.
struct Placed {
    col: u32,
    start: usize,
    end: usize,
    width: u8,
}

/// Splits a line's text into cells, the way PROTOCOL.md tells a client to.
struct Layout<'a> {
    text: &'a str,
    wide: &'a [WideRun],
    clusters: &'a [Cluster],
    /// Byte offset of the next cell's text.
    byte: usize,
    /// Column of the next cell.
    col: u32,
    wide_index: usize,
    /// Wide cells of `wide[wide_index]` already placed.
    wide_done: u32,
    cluster_index: usize,
}

impl<'a> Layout<'a> {
    fn new(text: &'a str, wide: &'a [WideRun], clusters: &'a [Cluster]) -> Self {
        Layout {
            text,
            wide,
            clusters,
            byte: 0,
            col: 0,
            wide_index: 0,
            wide_done: 0,
            cluster_index: 0,
        }
    }

    /// The next cell, `None` at the end of the text, or why the lists do not
    /// fit the text.
    fn next_cell(&mut self) -> Result<Option<Placed>, &'static str> {
        let rest = self.text.get(self.byte..).unwrap_or_default();
        if rest.is_empty() {
            return Ok(None);
        }
        let col = self.col;

        let mut codepoints = 1;
        if let Some(cluster) = self.clusters.get(self.cluster_index) {
            let at = u32::from(cluster.col);
            if at == col {
                codepoints = usize::from(cluster.codepoints);
                self.cluster_index += 1;
            } else if at < col {
                return Err("cluster on a spacer column");
            }
        }
        let mut len = 0;
        let mut chars = rest.chars();
        for _ in 0..codepoints {
            let ch = chars
                .next()
                .ok_or("cluster runs past the end of the text")?;
            len += ch.len_utf8();
        }

        let mut width = 1;
        if let Some(run) = self.wide.get(self.wide_index) {
            let at = u32::from(run.col) + 2 * self.wide_done;
            if at == col {
                width = 2;
                self.wide_done += 1;
                if self.wide_done >= u32::from(run.count) {
                    self.wide_index += 1;
                    self.wide_done = 0;
                }
            } else if at < col {
                return Err("wide cell on a spacer column");
            }
        }

        let start = self.byte;
        self.byte += len;
        self.col += u32::from(width);
        Ok(Some(Placed {
            col,
            start,
            end: self.byte,
            width,
        }))
    }
}

/// Iterator over the sent cells of a [`Line`], from [`Line::cells`].
pub struct Cells<'a> {
    line: &'a Line,
    layout: Layout<'a>,
    run_index: usize,
    /// Column where the current style run ends.
    run_end: u32,
    style: u32,
}

impl<'a> Iterator for Cells<'a> {
    type Item = Cell<'a>;

    fn next(&mut self) -> Option<Cell<'a>> {
        let placed = self.layout.next_cell().ok().flatten()?;
        while placed.col >= self.run_end {
            let run = self.line.runs.get(self.run_index)?;
            self.run_index += 1;
            self.run_end += u32::from(run.len);
            self.style = run.style;
        }
        Some(Cell {
            col: u16::try_from(placed.col).ok()?,
            text: self.line.text.get(placed.start..placed.end)?,
            width: placed.width,
            style: self.style,
        })
    }
}

/// Builds a [`Line`] from cells pushed left to right.
///
/// Trailing blank cells are not sent: the client clears the line from the end
/// of the sent cells to the right edge, with the [`Line::fill`] style.
#[derive(Clone, Debug)]
pub struct LineBuilder {
    cols: u16,
    line: Line,
    /// Where the trailing streak of blank cells of one style starts:
    /// (byte offset, column, style).
    blanks: Option<(usize, u16, u32)>,
}

impl LineBuilder {
    /// A builder for a line `cols` columns wide (at most [`MAX_COLS`] are used).
    pub fn new(cols: u16) -> Self {
        LineBuilder {
            cols,
            line: Line::default(),
            blanks: None,
        }
    }

    /// Appends the next cell: its text (one or more codepoints; `""` or `"\0"`
    /// for an empty cell, sent as a space), its width (1, or 2 for a wide
    /// cell: do not push the spacer column after it) and its style id.
    pub fn push(&mut self, text: &str, width: u8, style: u32) -> Result<(), LineError> {
        if !(1..=2).contains(&width) {
            return Err(LineError::InvalidWidth(width));
        }
        let text = if text.is_empty() || text == "\0" {
            " "
        } else {
            text
        };
        let codepoints = text.chars().count();
        if codepoints > usize::from(MAX_CELL_CODEPOINTS) {
            return Err(LineError::ClusterTooLong(codepoints));
        }
        let limit = self.cols.min(MAX_COLS);
        let col = self.line.columns;
        let needed = u32::from(col) + u32::from(width);
        if needed > u32::from(limit) {
            return Err(LineError::TooWide {
                needed,
                cols: limit,
            });
        }
        let width16 = u16::from(width);

        if text == " " && width == 1 {
            if !matches!(self.blanks, Some((_, _, s)) if s == style) {
                self.blanks = Some((self.line.text.len(), col, style));
            }
        } else {
            self.blanks = None;
        }

        let line = &mut self.line;
        line.text.push_str(text);
        if codepoints > 1 {
            line.clusters.push(Cluster {
                col,
                codepoints: codepoints as u8,
            });
        }
        if width == 2 {
            match line.wide.last_mut() {
                Some(run) if run.col + 2 * run.count == col => run.count += 1,
                _ => line.wide.push(WideRun { col, count: 1 }),
            }
        }
        match line.runs.last_mut() {
            Some(run) if run.style == style => run.len += width16,
            _ => line.runs.push(StyleRun {
                len: width16,
                style,
            }),
        }
        line.columns += width16;
        Ok(())
    }

    /// The line. Trailing blanks are dropped: when the cells reach the right
    /// edge, those of the last blank streak become the fill style; otherwise
    /// only default-styled ones are dropped (the rest of the line is default).
    pub fn finish(self, wrapped: bool) -> Line {
        let mut line = self.line;
        line.wrapped = wrapped;
        if let Some((byte, col, style)) = self.blanks {
            if line.columns == self.cols || style == 0 {
                line.text.truncate(byte);
                line.columns = col;
                line.fill = style;
                truncate_runs(&mut line.runs, col);
            }
        }
        line
    }
}

/// Cuts style runs so they cover exactly `columns` columns.
fn truncate_runs(runs: &mut Vec<StyleRun>, columns: u16) {
    let mut used = 0u16;
    let mut keep = 0;
    for run in runs.iter_mut() {
        if used >= columns {
            break;
        }
        run.len = run.len.min(columns - used);
        used += run.len;
        keep += 1;
    }
    runs.truncate(keep);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(line: &Line) -> Vec<u8> {
        let mut out = Vec::new();
        line.encode_into(&mut out);
        out
    }

    fn decode(bytes: &[u8], cols: u16) -> Result<Line, DecodeError> {
        let mut r = Reader::new(bytes);
        let line = Line::decode(&mut r, cols)?;
        r.finish()?;
        Ok(line)
    }

    fn cells(line: &Line) -> Vec<(u16, String, u8, u32)> {
        line.cells()
            .map(|c| (c.col, c.text.to_owned(), c.width, c.style))
            .collect()
    }

    fn ascii(cols: u16, s: &str, style: u32) -> Line {
        let cells: Vec<String> = s.chars().map(String::from).collect();
        Line::from_cells(cols, false, cells.iter().map(|c| (c.as_str(), 1, style))).unwrap()
    }

    #[test]
    fn an_ascii_line_in_the_default_style_is_compact() {
        let line = ascii(80, "hi", 0);
        // flags, text "hi", no runs (= all default).
        assert_eq!(encode(&line), [0x00, 0x02, b'h', b'i', 0x00]);
        assert_eq!(decode(&encode(&line), 80).unwrap(), line);
        assert_eq!(line.columns(), 2);
        assert_eq!(line.runs(), [StyleRun { len: 2, style: 0 }]);
    }

    #[test]
    fn a_styled_line_sends_style_ids_and_all_but_the_last_length() {
        let line = Line::from_cells(80, true, [("a", 1, 5), ("b", 1, 5), ("c", 1, 7)]).unwrap();
        assert_eq!(
            encode(&line),
            [0x01, 0x03, b'a', b'b', b'c', 0x02, 0x05, 0x02, 0x07]
        );
        assert_eq!(decode(&encode(&line), 80).unwrap(), line);
    }

    #[test]
    fn trailing_default_blanks_are_dropped() {
        let line = Line::from_cells(10, false, [("x", 1, 0), ("", 1, 0), (" ", 1, 0)]).unwrap();
        assert_eq!(line.text(), "x");
        assert_eq!(line.columns(), 1);
        assert_eq!(line.fill(), 0);
        let blank = Line::from_cells(10, false, [(" ", 1, 0); 10]).unwrap();
        assert_eq!(blank, Line::default());
        assert_eq!(encode(&blank), [0x00, 0x00, 0x00]);
    }

    #[test]
    fn trailing_styled_blanks_become_the_fill_only_at_the_right_edge() {
        let mut full = vec![("x", 1, 3)];
        full.extend([(" ", 1, 3); 3]);
        let line = Line::from_cells(4, false, full.clone()).unwrap();
        assert_eq!((line.text(), line.columns(), line.fill()), ("x", 1, 3));
        assert_eq!(line.runs(), [StyleRun { len: 1, style: 3 }]);
        assert_eq!(encode(&line), [0x08, 0x01, b'x', 0x01, 0x03, 0x03]);
        assert_eq!(decode(&encode(&line), 4).unwrap(), line);

        // The same cells on a wider line: the rest of it is default, so the
        // styled blanks must be sent.
        let line = Line::from_cells(10, false, full).unwrap();
        assert_eq!((line.text(), line.columns(), line.fill()), ("x   ", 4, 0));
    }

    #[test]
    fn wide_cells_and_clusters_lay_out_in_columns() {
        let line = Line::from_cells(
            20,
            false,
            [
                ("你", 2, 1),
                ("好", 2, 1),
                ("e\u{301}", 1, 0),
                ("!", 1, 0),
                ("👍🏽", 2, 2),
            ],
        )
        .unwrap();
        assert_eq!(
            line.wide_runs(),
            [WideRun { col: 0, count: 2 }, WideRun { col: 6, count: 1 }]
        );
        assert_eq!(
            line.clusters(),
            [
                Cluster {
                    col: 4,
                    codepoints: 2
                },
                Cluster {
                    col: 6,
                    codepoints: 2
                }
            ]
        );
        assert_eq!(line.columns(), 8);
        assert_eq!(
            cells(&line),
            [
                (0, "你".into(), 2, 1),
                (2, "好".into(), 2, 1),
                (4, "e\u{301}".into(), 1, 0),
                (5, "!".into(), 1, 0),
                (6, "👍🏽".into(), 2, 2),
            ]
        );
        let bytes = encode(&line);
        assert_eq!(decode(&bytes, 20).unwrap(), line);
        assert_eq!(
            decode(&bytes, 7),
            Err(DecodeError::InvalidLine("line wider than the screen"))
        );
    }

    #[test]
    fn builder_rejects_bad_cells() {
        let mut b = LineBuilder::new(3);
        assert_eq!(b.push("a", 0, 0), Err(LineError::InvalidWidth(0)));
        assert_eq!(b.push("a", 3, 0), Err(LineError::InvalidWidth(3)));
        let long = "e".to_owned() + &"\u{301}".repeat(40);
        assert_eq!(b.push(&long, 1, 0), Err(LineError::ClusterTooLong(41)));
        b.push("a", 1, 0).unwrap();
        b.push("你", 2, 0).unwrap();
        assert_eq!(
            b.push("b", 1, 0),
            Err(LineError::TooWide { needed: 4, cols: 3 })
        );
        assert_eq!(b.finish(false).text(), "a你");
    }

    #[test]
    fn decoder_rejects_inconsistent_lists() {
        // "ab" with a cluster of 3 codepoints at column 0.
        assert_eq!(
            decode(&[0x04, 0x02, b'a', b'b', 0x01, 0x00, 0x03, 0x00], 80),
            Err(DecodeError::InvalidLine(
                "cluster runs past the end of the text"
            ))
        );
        // "a" with a wide cell at column 1 (past the text).
        assert_eq!(
            decode(&[0x02, 0x01, b'a', 0x01, 0x01, 0x01, 0x00], 80),
            Err(DecodeError::InvalidLine(
                "wide cell past the end of the text"
            ))
        );
        // "ab" with a wide cell at 0 and a cluster on its spacer column 1.
        assert_eq!(
            decode(
                &[0x06, 0x03, b'a', b'b', b'c', 0x01, 0x00, 0x01, 0x01, 0x01, 0x02, 0x00],
                80
            ),
            Err(DecodeError::InvalidLine("cluster on a spacer column"))
        );
        // Overlapping wide runs.
        assert_eq!(
            decode(
                &[0x02, 0x02, b'a', b'b', 0x02, 0x00, 0x01, 0x01, 0x01, 0x00],
                80
            ),
            Err(DecodeError::InvalidLine(
                "wide runs overlap or are out of order"
            ))
        );
        // An empty wide list with its flag set.
        assert_eq!(
            decode(&[0x02, 0x01, b'a', 0x00, 0x00], 80),
            Err(DecodeError::OutOfRange { field: "wide runs" })
        );
        // Two style runs whose first already covers the line.
        assert_eq!(
            decode(&[0x00, 0x02, b'a', b'b', 0x02, 0x01, 0x02, 0x03], 80),
            Err(DecodeError::InvalidLine("style runs longer than the line"))
        );
        // Runs on an empty line.
        assert_eq!(
            decode(&[0x00, 0x00, 0x01, 0x01], 80),
            Err(DecodeError::InvalidLine("more style runs than columns"))
        );
        // Reserved flag bits.
        assert_eq!(
            decode(&[0x20, 0x00, 0x00], 80),
            Err(DecodeError::OutOfRange {
                field: "line flags"
            })
        );
    }

    /// An empty line with one image piece: `col`, `cols`, source `w`.
    fn image_line(col: u8, cols: u8, w: u8) -> Vec<u8> {
        let mut bytes = vec![HAS_IMAGES, 0x00, 0x00, 0x01];
        bytes.extend_from_slice(&[7; 16]);
        bytes.extend_from_slice(&[0x01, col, cols, 0x00, 0x00, w, 0x10]);
        bytes
    }

    #[test]
    fn image_pieces_round_trip_and_stay_inside_the_line() {
        let line = decode(&image_line(3, 2, 0x20), 5).unwrap();
        let piece = line.images()[0];
        assert_eq!(
            (piece.hash, piece.z, piece.col, piece.cols, piece.src),
            ([7; 16], -1, 3, 2, [0, 0, 0x20, 0x10])
        );
        let mut out = Vec::new();
        line.encode_into(&mut out);
        assert_eq!(out, image_line(3, 2, 0x20));
        let past = Err(DecodeError::OutOfRange {
            field: "image columns",
        });
        assert_eq!(decode(&image_line(3, 3, 0x20), 5), past);
        assert_eq!(
            decode(&image_line(5, 1, 0x20), 5),
            Err(DecodeError::OutOfRange {
                field: "image column"
            })
        );
        assert_eq!(
            decode(&image_line(0, 1, 0), 5),
            Err(DecodeError::OutOfRange {
                field: "image source"
            })
        );
        assert_eq!(
            decode(&[HAS_IMAGES, 0x00, 0x00, 0x00], 5),
            Err(DecodeError::OutOfRange {
                field: "line images"
            })
        );
    }

    #[test]
    fn a_line_keeps_at_most_its_share_of_images() {
        let piece = ImagePiece {
            hash: [1; 16],
            z: 0,
            col: 0,
            cols: 1,
            src: [0, 0, 16, 16],
        };
        let line = ascii(4, "a", 0).with_images(vec![piece; MAX_LINE_IMAGES + 3]);
        assert_eq!(line.images().len(), MAX_LINE_IMAGES);
    }

    #[test]
    fn one_explicit_default_run_decodes_like_none() {
        let line = decode(&[0x00, 0x01, b'a', 0x01, 0x00], 80).unwrap();
        assert_eq!(line, ascii(80, "a", 0));
    }
}

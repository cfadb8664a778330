//! SVG: a self-contained image of the screen, fit for a dashboard thumbnail.
//!
//! A cell is [`CELL_WIDTH`] x [`CELL_HEIGHT`] px (the advance and line height
//! of a [`FONT_SIZE`] px monospace font), so an 80x24 screen is 672 x 408 px;
//! `width`, `height` and `viewBox` all say so, and the image scales cleanly.
//! It holds, in painting order: the default background, a rect per run of
//! cells with another background, a `<text>` per run with one x position per
//! cell (so the layout never depends on the font's own advance; a wide
//! character starts at the left of its two cells), and the cursor when it is
//! visible: a translucent block, an underline or a bar. The window title, if
//! any, is the image's `<title>`. Colours come from the built-in [`theme`];
//! hyperlinks, blinking and underline colours are not drawn. Inline images
//! are `<image>`s in `<defs>` (one PNG data URI each), shown per row by a
//! nested `<svg>` over the cells, before the text when their z-index is
//! below 0 and after it otherwise.

use std::fmt::Write;

use std::collections::BTreeMap;

use super::images::{self, Piece};
use super::markup::{cell_text, escape, visible_len};
use super::theme::{self, hex, DEFAULT_BG, DEFAULT_FG};
use panecast_term::image::ImageHash;
use panecast_term::{Attrs, CursorShape, Row, Snapshot, Style, Underline};

pub use panecast_term::{CELL_HEIGHT, CELL_WIDTH};
/// Font size, in px.
pub const FONT_SIZE: f64 = 14.0;
/// Distance from the top of a cell to the text's baseline, in px.
const BASELINE: f64 = 13.0;
/// Thickness of the underline and bar cursors, in px.
const CURSOR_LINE: f64 = 2.0;
/// The font stack.
const FONT: &str = "ui-monospace,Menlo,Consolas,'DejaVu Sans Mono',monospace";

/// The screen as an SVG document.
pub fn render(snapshot: &Snapshot) -> String {
    let width = num(snapshot.cols as f64 * CELL_WIDTH);
    let height = num(snapshot.rows as f64 * CELL_HEIGHT);
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"{FONT}\" font-size=\"{}\" \
         xml:space=\"preserve\">",
        num(FONT_SIZE)
    );
    if !snapshot.title.is_empty() {
        out.push_str("<title>");
        escape(&mut out, &snapshot.title);
        out.push_str("</title>");
    }
    let _ = write!(
        out,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"{}\"/>",
        hex(DEFAULT_BG)
    );
    for (r, row) in snapshot.lines.iter().enumerate() {
        for (start, stop, style) in runs(snapshot, row) {
            let (_, bg) = theme::cell_colors(&style);
            if bg != DEFAULT_BG {
                let _ = write!(
                    out,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>",
                    num(start as f64 * CELL_WIDTH),
                    num(r as f64 * CELL_HEIGHT),
                    num((stop - start) as f64 * CELL_WIDTH),
                    num(CELL_HEIGHT),
                    hex(bg)
                );
            }
        }
    }
    let pieces = images::pieces(snapshot);
    let uris = images::data_uris(snapshot, &pieces);
    if !uris.is_empty() {
        out.push_str("<defs>");
        for (n, (hash, uri)) in uris.iter().enumerate() {
            if let Some(image) = snapshot.image(*hash) {
                let _ = write!(
                    out,
                    "<image id=\"pc-i{n}\" width=\"{}\" height=\"{}\" \
                     preserveAspectRatio=\"none\" href=\"{uri}\"/>",
                    image.width(),
                    image.height()
                );
            }
        }
        out.push_str("</defs>");
    }
    let under = pieces.iter().filter(|p| p.z < 0);
    under.for_each(|p| push_piece(&mut out, p, &uris));
    for (r, row) in snapshot.lines.iter().enumerate() {
        for (start, stop, style) in runs(snapshot, row) {
            if !style.attrs.contains(Attrs::INVISIBLE) {
                push_text(&mut out, row, r, start, stop, &text_attributes(&style));
            }
        }
    }
    let over = pieces.iter().filter(|p| p.z >= 0);
    over.for_each(|p| push_piece(&mut out, p, &uris));
    push_cursor(&mut out, snapshot);
    out.push_str("</svg>\n");
    out
}

/// Appends one row's piece of an image: a nested `<svg>` over its cells
/// whose viewBox is the part of the image they show.
fn push_piece(out: &mut String, piece: &Piece, uris: &BTreeMap<ImageHash, String>) {
    let n = uris.keys().position(|h| *h == piece.image).unwrap_or(0);
    let (a, b) = piece.cols;
    let (vx, vy, vw, vh) = piece.view;
    let _ = write!(
        out,
        "<svg x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"{} {} {} {}\" \
         preserveAspectRatio=\"none\"><use href=\"#pc-i{n}\"/></svg>",
        num(a as f64 * CELL_WIDTH),
        num(piece.row as f64 * CELL_HEIGHT),
        num((b - a) as f64 * CELL_WIDTH),
        num(CELL_HEIGHT),
        num(vx),
        num(vy),
        num(vw),
        num(vh)
    );
}

/// The runs `(start, end_exclusive, style)` of a row worth painting.
fn runs(snapshot: &Snapshot, row: &Row) -> Vec<(usize, usize, Style)> {
    let end = visible_len(snapshot, row);
    row.style_runs()
        .into_iter()
        .filter(|run| run.0 < end)
        .map(|(start, stop, id)| (start, stop.min(end), snapshot.style(id)))
        .collect()
}

/// The attributes of a run's `<text>`: colour, weight, slant, decoration.
fn text_attributes(style: &Style) -> String {
    let (fg, _) = theme::cell_colors(style);
    let mut attrs = format!(" fill=\"{}\"", hex(fg));
    if style.attrs.contains(Attrs::BOLD) {
        attrs.push_str(" font-weight=\"bold\"");
    }
    if style.attrs.contains(Attrs::ITALIC) {
        attrs.push_str(" font-style=\"italic\"");
    }
    let lines = match (
        style.underline != Underline::None,
        style.attrs.contains(Attrs::STRIKE),
    ) {
        (true, true) => "underline line-through",
        (true, false) => "underline",
        (false, true) => "line-through",
        (false, false) => "",
    };
    if !lines.is_empty() {
        let _ = write!(attrs, " text-decoration=\"{lines}\"");
    }
    attrs
}

/// Appends the text of cells `start..stop` of row `r`, each glyph at its
/// cell's x. Blanks at either end are left out, and two or more blanks in a
/// row end a `<text>`: renderers that ignore `xml:space` collapse them, and
/// would then give the glyphs after them the wrong positions. A glyph of more
/// than one UTF-16 unit (a cluster, or a character outside the BMP) ends a
/// `<text>` too: only its first character gets a position, the rest follow it.
fn push_text(out: &mut String, row: &Row, r: usize, start: usize, stop: usize, attrs: &str) {
    let mut columns = Vec::new();
    let mut text = String::new();
    let mut blanks = Vec::new();
    let mut buf = [0; 4];
    for col in start..stop {
        let glyph = cell_text(row, col, &mut buf);
        match glyph {
            "" => continue,
            " " => {
                blanks.push(col);
                continue;
            }
            _ => {}
        }
        match blanks[..] {
            [] => {}
            [blank] if !columns.is_empty() => {
                columns.push(blank);
                text.push(' ');
            }
            _ => flush_text(out, &mut columns, &mut text, r, attrs),
        }
        blanks.clear();
        columns.push(col);
        escape(&mut text, glyph);
        if glyph.encode_utf16().nth(1).is_some() {
            flush_text(out, &mut columns, &mut text, r, attrs);
        }
    }
    flush_text(out, &mut columns, &mut text, r, attrs);
}

/// Writes one `<text>` of the glyphs gathered so far and empties the buffers.
fn flush_text(
    out: &mut String,
    columns: &mut Vec<usize>,
    text: &mut String,
    r: usize,
    attrs: &str,
) {
    if columns.is_empty() {
        return;
    }
    let xs: Vec<String> = columns
        .iter()
        .map(|&col| num(col as f64 * CELL_WIDTH))
        .collect();
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\"{attrs}>{text}</text>",
        xs.join(" "),
        num(r as f64 * CELL_HEIGHT + BASELINE)
    );
    columns.clear();
    text.clear();
}

/// Appends the cursor, when visible: a block over its cell (both cells of a
/// wide character), a line under it, or a bar at its left.
fn push_cursor(out: &mut String, snapshot: &Snapshot) {
    let cursor = snapshot.cursor;
    if !cursor.visible {
        return;
    }
    let (row, col) = (cursor.row as usize, cursor.col as usize);
    let Some(cell) = snapshot
        .lines
        .get(row)
        .and_then(|line| line.cells().get(col))
    else {
        return;
    };
    let cells = if cell.width() == 2 { 2.0 } else { 1.0 };
    let (x, y) = (col as f64 * CELL_WIDTH, row as f64 * CELL_HEIGHT);
    let (x, y, width, height, opacity) = match cursor.shape {
        CursorShape::Block => (x, y, cells * CELL_WIDTH, CELL_HEIGHT, "0.5"),
        CursorShape::Underline => (
            x,
            y + CELL_HEIGHT - CURSOR_LINE,
            cells * CELL_WIDTH,
            CURSOR_LINE,
            "1",
        ),
        CursorShape::Bar => (x, y, CURSOR_LINE, CELL_HEIGHT, "1"),
    };
    let _ = write!(
        out,
        "<rect class=\"cursor\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" \
         fill-opacity=\"{opacity}\"/>",
        num(x),
        num(y),
        num(width),
        num(height),
        hex(DEFAULT_FG)
    );
}

/// A length with at most two decimals and no trailing zeros.
fn num(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use panecast_term::Term;

    fn svg(cols: u16, rows: u16, input: &str) -> String {
        let mut term = Term::new(cols, rows, 0);
        term.advance(input.as_bytes());
        render(&term.snapshot())
    }

    /// Checks that tags balance, attribute values are quoted and every `&`
    /// starts an entity: enough of XML to catch a renderer's mistakes.
    fn check_well_formed(xml: &str) -> Result<(), String> {
        fn check_text(text: &str) -> Result<(), String> {
            for (i, _) in text.match_indices('&') {
                let entity = &text[i..];
                if !["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                    .iter()
                    .any(|e| entity.starts_with(e))
                {
                    return Err(format!("bad entity at {entity:.10}"));
                }
            }
            Ok(())
        }
        let mut open = Vec::new();
        let mut rest = xml;
        while let Some(i) = rest.find('<') {
            check_text(&rest[..i])?;
            let end = rest[i..].find('>').ok_or("unterminated tag")? + i;
            let tag = &rest[i + 1..end];
            rest = &rest[end + 1..];
            if tag.contains('<') || !tag.matches('"').count().is_multiple_of(2) {
                return Err(format!("malformed tag <{tag}>"));
            }
            check_text(tag)?;
            let name = |t: &str| t.split_whitespace().next().unwrap_or("").to_string();
            if let Some(closing) = tag.strip_prefix('/') {
                if open.pop() != Some(name(closing)) {
                    return Err(format!("unbalanced </{closing}>"));
                }
            } else if !tag.ends_with('/') {
                open.push(name(tag));
            }
        }
        check_text(rest)?;
        match open.is_empty() {
            true => Ok(()),
            false => Err(format!("unclosed {open:?}")),
        }
    }

    #[test]
    fn the_checker_catches_mistakes() {
        assert!(check_well_formed("<a><b x=\"1\"/>&amp;</a>").is_ok());
        assert!(check_well_formed("<a><b></a>").is_err());
        assert!(check_well_formed("<a>&</a>").is_err());
        assert!(check_well_formed("<a x=\"1>b</a>").is_err());
    }

    #[test]
    fn an_image_is_well_formed_and_sized() {
        let out = svg(
            80,
            24,
            "\x1b]2;<t&\"itle>\x07<script>&\"'\x1b[31mred\x1b[0m 中 e\u{301}\u{1f600}x\x1b[4;1H\x1b[7m \x1b[m",
        );
        check_well_formed(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
        assert!(out.starts_with(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"672\" height=\"408\" viewBox=\"0 0 672 408\""
        ));
        assert!(out.contains("<title>&lt;t&amp;&quot;itle&gt;</title>"));
        assert!(out.contains("&lt;script&gt;&amp;&quot;&#39;"));
        assert!(out.ends_with("</svg>\n"));
    }

    #[test]
    fn glyphs_sit_in_their_cells() {
        let out = svg(20, 2, "a b  c\r\n中e\u{301}\u{1f600}x");
        assert!(
            out.contains("<text x=\"0 8.4 16.8\" y=\"13\" fill=\"#e5e5e5\">a b</text>"),
            "{out}"
        );
        assert!(
            out.contains("<text x=\"42\" y=\"13\" fill=\"#e5e5e5\">c</text>"),
            "{out}"
        );
        assert!(
            out.contains("<text x=\"0 16.8\" y=\"30\" fill=\"#e5e5e5\">中e\u{301}</text>"),
            "{out}"
        );
        assert!(
            out.contains("<text x=\"25.2\" y=\"30\" fill=\"#e5e5e5\">\u{1f600}</text>"),
            "{out}"
        );
        assert!(
            out.contains("<text x=\"42\" y=\"30\" fill=\"#e5e5e5\">x</text>"),
            "{out}"
        );
    }

    #[test]
    fn coloured_runs_get_a_background_rect_in_the_resolved_colour() {
        let out = svg(10, 2, "\x1b[2;3H\x1b[48;5;196;38;5;244;1mhi\x1b[m");
        assert!(
            out.contains(
                "<rect x=\"16.8\" y=\"17\" width=\"16.8\" height=\"17\" fill=\"#ff0000\"/>"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "<text x=\"16.8 25.2\" y=\"30\" fill=\"#808080\" font-weight=\"bold\">hi</text>"
            ),
            "{out}"
        );
        let inverse = svg(10, 1, "\x1b[7mx");
        assert!(
            inverse.contains("width=\"8.4\" height=\"17\" fill=\"#e5e5e5\"/>"),
            "{inverse}"
        );
    }

    #[test]
    fn the_cursor_is_drawn_only_when_visible() {
        let out = svg(10, 2, "ab");
        assert!(out.contains(
            "<rect class=\"cursor\" x=\"16.8\" y=\"0\" width=\"8.4\" height=\"17\" fill=\"#e5e5e5\" fill-opacity=\"0.5\"/>"
        ), "{out}");
        let bar = svg(10, 2, "\x1b[6 q\x1b[2;2H");
        assert!(
            bar.contains("<rect class=\"cursor\" x=\"8.4\" y=\"17\" width=\"2\" height=\"17\""),
            "{bar}"
        );
        assert!(!svg(10, 2, "\x1b[?25l").contains("cursor"));
    }

    #[test]
    fn invisible_text_is_not_drawn() {
        let out = svg(10, 1, "\x1b[8msecret");
        assert!(!out.contains("secret"));
    }
}

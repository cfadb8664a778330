//! Rows and styles in their wire form.

use panecast_proto as proto;

use super::images::row_pieces;
use panecast_term::{Color, Hyperlink, Row, Snapshot, Style, Underline};

/// A row as a wire line `cols` wide, with the grid's style ids as wire ids
/// and the pieces of images it shows.
pub fn encode_row(row: &Row, cols: u16) -> proto::Line {
    let mut builder = proto::LineBuilder::new(cols);
    let mut buf = [0u8; 4];
    for (col, cell) in row.cells().iter().enumerate().take(cols as usize) {
        if cell.width() == 0 {
            continue;
        }
        let text: &str = match row.cluster(col) {
            Some(cluster) => cluster,
            None if cell.ch() == '\0' => " ",
            None => cell.ch().encode_utf8(&mut buf),
        };
        // The grid never holds more than the wire allows (widths 1-2, at most
        // 32 codepoints a cell, at most `cols` columns), so a refusal here
        // would be a grid bug: degrade to a blank cell rather than drop the row.
        if builder
            .push(text, cell.width(), cell.style().0 as u32)
            .is_err()
        {
            let _ = builder.push(" ", 1, cell.style().0 as u32);
        }
    }
    builder
        .finish(row.is_wrapped())
        .with_images(row_pieces(row, cols))
}

fn wire_color(color: Color) -> proto::Color {
    match color {
        Color::Default => proto::Color::Default,
        Color::Indexed(i) => proto::Color::Indexed(i),
        Color::Rgb(r, g, b) => proto::Color::Rgb(r, g, b),
    }
}

fn wire_underline(underline: Underline) -> proto::UnderlineKind {
    match underline {
        Underline::None => proto::UnderlineKind::None,
        Underline::Single => proto::UnderlineKind::Single,
        Underline::Double => proto::UnderlineKind::Double,
        Underline::Curly => proto::UnderlineKind::Curly,
        Underline::Dotted => proto::UnderlineKind::Dotted,
        Underline::Dashed => proto::UnderlineKind::Dashed,
    }
}

/// A grid style in its wire form, with its hyperlink's URI resolved from
/// `snapshot`.
pub fn wire_style(style: &Style, snapshot: &Snapshot) -> proto::Style {
    wire_style_linked(style, snapshot.link(style))
}

/// A grid style in its wire form, with `link` as its hyperlink.
pub fn wire_style_linked(style: &Style, link: Option<&Hyperlink>) -> proto::Style {
    proto::Style {
        fg: wire_color(style.fg),
        bg: wire_color(style.bg),
        underline_color: wire_color(style.underline_color),
        // The attribute bits are the same on both sides (checked by a test).
        attrs: proto::Attrs::from_bits(style.attrs.bits()).unwrap_or(proto::Attrs::NONE),
        underline: wire_underline(style.underline),
        link: link.map(|l| l.uri.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use panecast_term::{Attrs, StyleId, Term};

    fn first_row(bytes: &[u8]) -> (proto::Line, Snapshot) {
        let mut term = Term::new(10, 2, 0);
        term.advance(bytes);
        let snap = term.snapshot();
        (encode_row(&snap.lines[0], 10), snap)
    }

    #[test]
    fn cells_survive_the_wire() {
        let (line, snap) = first_row("a\u{4e2d}e\u{301}\x1b[31mz".as_bytes());
        let cells: Vec<(u16, String, u8)> = line
            .cells()
            .map(|c| (c.col, c.text.to_string(), c.width))
            .collect();
        assert_eq!(
            cells,
            [
                (0, "a".to_string(), 1),
                (1, "\u{4e2d}".to_string(), 2),
                (3, "e\u{301}".to_string(), 1),
                (4, "z".to_string(), 1)
            ]
        );
        let last = line.cells().last().unwrap();
        assert_eq!(snap.style(StyleId(last.style as u16)).fg, Color::Indexed(1));
    }

    #[test]
    fn attribute_bits_agree_with_the_protocol() {
        for (ours, theirs) in [
            (Attrs::BOLD, proto::Attrs::BOLD),
            (Attrs::DIM, proto::Attrs::DIM),
            (Attrs::ITALIC, proto::Attrs::ITALIC),
            (Attrs::BLINK, proto::Attrs::BLINK),
            (Attrs::INVERSE, proto::Attrs::INVERSE),
            (Attrs::INVISIBLE, proto::Attrs::INVISIBLE),
            (Attrs::STRIKE, proto::Attrs::STRIKE),
        ] {
            assert_eq!(ours.bits(), theirs.bits());
        }
    }

    #[test]
    fn links_are_sent_with_their_style() {
        let (line, snap) = first_row(b"\x1b]8;;https://example.com\x1b\\x\x1b]8;;\x1b\\");
        let style = line.cells().next().unwrap().style;
        let wire = wire_style(&snap.style(StyleId(style as u16)), &snap);
        assert_eq!(wire.link.as_deref(), Some("https://example.com"));
    }
}

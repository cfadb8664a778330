//! HTML: a `<pre class="panecast">` fragment, one line per row, with a
//! `<span style="...">` per run of styled cells.
//!
//! Colours come from the built-in [`theme`]; inverse, dim and invisible are
//! applied to them. A wide character is written once and relies on the
//! monospace font for its width. Hyperlinks whose scheme is one of
//! [`super::LINK_SCHEMES`] become `<a href>` (underlined, as the emulator reports linked
//! text); other targets stay plain text. Blinking is not shown. Trailing cells
//! that are blank and unstyled are left out. Inline images are spans placed
//! absolutely at their cells (in `ch` and `em`), their PNGs given once each
//! as custom properties of the `<pre>`, under the text when their z-index
//! is below 0 and over it otherwise.

use std::fmt::Write;

use super::images::{self, Piece};
use super::markup::{cell_text, escape, is_safe_link, visible_len};
use super::theme::{self, hex, DEFAULT_BG, DEFAULT_FG};
use panecast_term::{Attrs, Color, Row, Snapshot, Style, Underline};

/// The font stack of the fragment.
const FONT: &str = "ui-monospace,Menlo,Consolas,'DejaVu Sans Mono',monospace";

/// The screen as a `<pre>` fragment.
pub fn render(snapshot: &Snapshot) -> String {
    let mut out = String::new();
    let pieces = images::pieces(snapshot);
    let uris = images::data_uris(snapshot, &pieces);
    let mut vars = String::new();
    if !pieces.is_empty() {
        vars.push_str("position:relative;isolation:isolate;");
        for (n, uri) in uris.values().enumerate() {
            let _ = write!(vars, "--pc-i{n}:url({uri});");
        }
    }
    let _ = write!(
        out,
        "<pre class=\"panecast\" style=\"margin:0;font-family:{FONT};line-height:1.2;\
         color:{};background-color:{};{vars}\">",
        hex(DEFAULT_FG),
        hex(DEFAULT_BG)
    );
    for piece in &pieces {
        let n = uris.keys().position(|h| *h == piece.image).unwrap_or(0);
        if let Some(image) = snapshot.image(piece.image) {
            push_piece(&mut out, piece, n, image.width(), image.height());
        }
    }
    for (r, row) in snapshot.lines.iter().enumerate() {
        if r > 0 {
            out.push('\n');
        }
        push_row(&mut out, snapshot, row);
    }
    out.push_str("</pre>\n");
    out
}

/// Appends an absolutely placed span showing one row's piece of an image
/// (custom property `--pc-i{n}`), under the text when its z is below 0.
fn push_piece(out: &mut String, piece: &Piece, n: usize, width: u32, height: u32) {
    let (a, b) = piece.cols;
    let (vx, vy, vw, vh) = piece.view;
    // Cells per image pixel, across (ch) and down (em, 1.2 a row).
    let sx = (b - a) as f64 / vw.max(f64::EPSILON);
    let sy = 1.2 / vh.max(f64::EPSILON);
    let _ = write!(
        out,
        "<span style=\"position:absolute;left:{a}ch;top:{}em;width:{}ch;height:1.2em;\
         z-index:{};background-image:var(--pc-i{n});background-repeat:no-repeat;\
         background-size:{}ch {}em;background-position:{}ch {}em\"></span>",
        num(piece.row as f64 * 1.2),
        b - a,
        if piece.z < 0 { -1 } else { 1 },
        num(f64::from(width) * sx),
        num(f64::from(height) * sy),
        num(-vx * sx),
        num(-vy * sy),
    );
}

/// A CSS number: at most three decimals, no trailing zeros.
fn num(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Appends one row: a span (or link) per run of cells sharing a style.
fn push_row(out: &mut String, snapshot: &Snapshot, row: &Row) {
    let end = visible_len(snapshot, row);
    let mut buf = [0; 4];
    for (start, stop, id) in row.style_runs() {
        if start >= end {
            break;
        }
        let style = snapshot.style(id);
        let href = snapshot
            .link(&style)
            .map(|link| &*link.uri)
            .filter(|uri| is_safe_link(uri));
        let css = css(&style, href.is_some());
        let tag = match (href, css.is_empty()) {
            (Some(_), _) => Some("a"),
            (None, false) => Some("span"),
            (None, true) => None,
        };
        if let Some(tag) = tag {
            let _ = write!(out, "<{tag}");
            if let Some(uri) = href {
                out.push_str(" href=\"");
                escape(out, uri);
                out.push('"');
            }
            let _ = write!(out, " style=\"{css}\">");
        }
        for col in start..stop.min(end) {
            escape(out, cell_text(row, col, &mut buf));
        }
        if let Some(tag) = tag {
            let _ = write!(out, "</{tag}>");
        }
    }
}

/// The inline CSS of a run; empty when it looks like the default.
fn css(style: &Style, is_link: bool) -> String {
    let (fg, bg) = theme::cell_colors(style);
    let mut parts = Vec::new();
    if fg != DEFAULT_FG || is_link {
        parts.push(format!("color:{}", hex(fg)));
    }
    if bg != DEFAULT_BG {
        parts.push(format!("background-color:{}", hex(bg)));
    }
    if style.attrs.contains(Attrs::BOLD) {
        parts.push("font-weight:bold".to_string());
    }
    if style.attrs.contains(Attrs::ITALIC) {
        parts.push("font-style:italic".to_string());
    }
    let underline = style.underline != Underline::None || is_link;
    let lines = match (underline, style.attrs.contains(Attrs::STRIKE)) {
        (true, true) => "underline line-through",
        (true, false) => "underline",
        (false, true) => "line-through",
        (false, false) => "none",
    };
    if lines != "none" || is_link {
        parts.push(format!("text-decoration-line:{lines}"));
    }
    let shape = match style.underline {
        Underline::Double => "double",
        Underline::Curly => "wavy",
        Underline::Dotted => "dotted",
        Underline::Dashed => "dashed",
        Underline::None | Underline::Single => "",
    };
    if !shape.is_empty() {
        parts.push(format!("text-decoration-style:{shape}"));
    }
    if underline && style.underline_color != Color::Default {
        let color = hex(theme::resolve(style.underline_color, true));
        parts.push(format!("text-decoration-color:{color}"));
    }
    parts.join(";")
}

#[cfg(test)]
mod tests {
    use super::*;
    use panecast_term::Term;

    fn html(cols: u16, rows: u16, input: &str) -> String {
        let mut term = Term::new(cols, rows, 0);
        term.advance(input.as_bytes());
        render(&term.snapshot())
    }

    #[test]
    fn a_plain_screen_is_a_pre_of_escaped_lines() {
        let out = html(10, 3, "<a&b>\"c'\r\n\r\n  x");
        assert!(out.starts_with("<pre class=\"panecast\" style=\"margin:0;font-family:"));
        assert!(
            out.ends_with(">&lt;a&amp;b&gt;&quot;c&#39;\n\n  x</pre>\n"),
            "{out}"
        );
    }

    #[test]
    fn colours_and_attributes_become_inline_styles() {
        let out = html(
            20,
            1,
            "\x1b[1;31mred\x1b[0;48;5;196;3m on \x1b[0;38;2;1;2;3;4:3;58;5;2mrgb\x1b[m.",
        );
        assert!(
            out.contains(
                ">\
             <span style=\"color:#cd0000;font-weight:bold\">red</span>\
             <span style=\"background-color:#ff0000;font-style:italic\"> on </span>\
             <span style=\"color:#010203;text-decoration-line:underline;\
             text-decoration-style:wavy;text-decoration-color:#00cd00\">rgb</span>.</pre>"
            ),
            "{out}"
        );
    }

    #[test]
    fn inverse_dim_and_invisible_change_the_colours() {
        let out = html(
            20,
            1,
            "\x1b[7minv\x1b[0;2;38;2;200;100;0mdim\x1b[0;8;41msecret",
        );
        assert!(
            out.contains("<span style=\"color:#1e1e1e;background-color:#e5e5e5\">inv</span>"),
            "{out}"
        );
        assert!(
            out.contains("<span style=\"color:#73410f\">dim</span>"),
            "{out}"
        );
        assert!(
            out.contains("<span style=\"color:#cd0000;background-color:#cd0000\">secret</span>"),
            "{out}"
        );
    }

    #[test]
    fn backgrounds_of_blank_cells_are_painted() {
        let out = html(6, 1, "ab\x1b[44m\x1b[K");
        assert!(
            out.contains(">ab<span style=\"background-color:#0000ee\">    </span></pre>"),
            "{out}"
        );
    }

    #[test]
    fn safe_links_become_anchors_and_others_plain_text() {
        let out = html(
            40,
            1,
            "\x1b]8;;https://e.com/?a=1&b=\"2\"\x1b\\ok\x1b]8;;\x1b\\ \
             \x1b]8;;javascript:alert(1)\x1b\\bad\x1b]8;;\x1b\\",
        );
        assert!(
            out.contains(
                "<a href=\"https://e.com/?a=1&amp;b=&quot;2&quot;\" \
                 style=\"color:#e5e5e5;text-decoration-line:underline\">ok</a> bad</pre>"
            ),
            "{out}"
        );
        assert!(!out.contains("javascript"));
    }

    #[test]
    fn wide_characters_are_written_once() {
        let out = html(10, 1, "中e\u{301}x");
        assert!(out.contains(">中e\u{301}x</pre>"), "{out}");
    }
}

//! Unit tests of the emulator, one module per feature family.
//!
//! Every test drives the public [`Term`] API with bytes, as a program would,
//! and asserts concrete screens, cursor positions and styles. Where xterm.js
//! (the reference the conformance corpus was recorded with, `@xterm/headless`
//! 6.0) differs from a textbook reading of the standards, the tests follow
//! xterm.js and say so.
//!
//! The helpers below keep setup out of the tests: [`screen`] builds a terminal
//! that has read some bytes, [`lines`] and [`cursor`] read it back.

mod alt_screen;
mod charsets;
mod checksum;
mod clipboard;
mod colors;
mod cursor;
mod device_reports;
mod editing;
mod file_offer;
mod generations;
mod grapheme;
mod images;
mod keyboard;
mod kitty_delete;
mod margins;
mod modes;
mod osc;
mod rectangles;
mod reset;
mod resize;
mod reverse_wrap;
mod scroll;
mod scrollback;
mod sgr_grid;
mod status_strings;
mod style_table;
mod tabs;
mod termcap;
mod wide;
mod window_ops;
mod work;
mod wrap;

use crate::{Cell, Color, Style, Term};

/// Scrollback lines the test terminals keep.
pub(super) const SCROLLBACK: usize = 100;

/// A `cols` x `rows` terminal (100 lines of scrollback) that has read `bytes`.
pub(super) fn screen(cols: u16, rows: u16, bytes: impl AsRef<[u8]>) -> Term {
    let mut term = Term::new(cols, rows, SCROLLBACK);
    term.advance(bytes.as_ref());
    term
}

/// Every visible row's text (trailing blanks trimmed), top to bottom.
pub(super) fn lines(term: &mut Term) -> Vec<String> {
    term.snapshot().lines.iter().map(|row| row.text()).collect()
}

/// The cursor as (row, col), zero-based.
pub(super) fn cursor(term: &mut Term) -> (u16, u16) {
    let cursor = term.snapshot().cursor;
    (cursor.row, cursor.col)
}

/// The cell at (`row`, `col`) of the visible screen.
pub(super) fn cell(term: &mut Term, row: usize, col: usize) -> Cell {
    term.snapshot().lines[row].cells()[col]
}

/// The style of the cell at (`row`, `col`) of the visible screen.
pub(super) fn style_at(term: &mut Term, row: usize, col: usize) -> Style {
    let snapshot = term.snapshot();
    snapshot.style(snapshot.lines[row].cells()[col].style())
}

/// The replies the terminal queued, as text.
pub(super) fn replies(term: &mut Term) -> String {
    String::from_utf8(term.take_replies()).expect("replies are UTF-8")
}

/// The text of scrollback line `index` (0 is the oldest).
pub(super) fn scrollback_text(term: &Term, index: usize) -> String {
    term.scrollback_row(index)
        .unwrap_or_else(|| panic!("no scrollback line {index}"))
        .text()
}

/// A style with only a background colour: what erasing leaves behind.
pub(super) fn bg_only(bg: Color) -> Style {
    Style {
        bg,
        ..Style::default()
    }
}

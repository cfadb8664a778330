//! Resize: the main screen reflows soft-wrapped lines (scrollback included)
//! and keeps the cursor on its text; growing pulls lines back from the
//! scrollback; the alternate screen is cut or padded, never reflowed.

use super::{cursor, lines, screen, scrollback_text};
use crate::Term;

const THIRTY: &str = "abcdefghijklmnopqrstuvwxyz0123";

#[test]
fn narrowing_wraps_and_widening_joins() {
    let mut term = screen(40, 5, THIRTY);
    assert_eq!(lines(&mut term)[0], THIRTY);
    term.resize(20, 5);
    assert_eq!(lines(&mut term), [&THIRTY[..20], &THIRTY[20..], "", "", ""]);
    assert!(term.snapshot().lines[0].is_wrapped());
    assert_eq!(cursor(&mut term), (1, 10));
    term.resize(40, 5);
    assert_eq!(lines(&mut term), [THIRTY, "", "", "", ""]);
    assert!(!term.snapshot().lines[0].is_wrapped());
    assert_eq!(cursor(&mut term), (0, 30));
}

#[test]
fn a_line_wrapped_by_printing_joins_when_widened() {
    let mut term = screen(20, 5, format!("{THIRTY}\r\nnext"));
    assert_eq!(
        lines(&mut term),
        [&THIRTY[..20], &THIRTY[20..], "next", "", ""]
    );
    term.resize(40, 5);
    assert_eq!(lines(&mut term), [THIRTY, "next", "", "", ""]);
    assert_eq!(cursor(&mut term), (1, 4));
}

#[test]
fn hard_line_breaks_are_kept() {
    let mut term = screen(20, 5, "short\r\nlines");
    term.resize(10, 5);
    assert_eq!(lines(&mut term), ["short", "lines", "", "", ""]);
    term.resize(40, 5);
    assert_eq!(lines(&mut term), ["short", "lines", "", "", ""]);
}

#[test]
fn the_cursor_stays_on_its_text() {
    // Cursor on the `u` (column 20) of the 30-character line.
    let mut term = screen(40, 5, format!("{THIRTY}\x1b[1;21H"));
    term.resize(20, 5);
    assert_eq!(cursor(&mut term), (1, 0));
    term.advance(b"X");
    assert_eq!(lines(&mut term)[1], format!("X{}", &THIRTY[21..]));
    term.resize(40, 5);
    assert_eq!(cursor(&mut term), (0, 21));
}

#[test]
fn scrollback_lines_reflow_too() {
    // Two 30-character lines at 20 columns on a 2-row screen: the first one's
    // two rows are in the scrollback.
    let mut term = screen(20, 2, format!("{THIRTY}\r\n{}", THIRTY.to_uppercase()));
    assert_eq!(term.scrollback_len(), 2);
    assert_eq!(scrollback_text(&term, 0), &THIRTY[..20]);
    term.resize(40, 2);
    assert_eq!(
        lines(&mut term),
        [THIRTY.to_string(), THIRTY.to_uppercase()]
    );
    assert_eq!(term.scrollback_len(), 0);
    term.resize(10, 2);
    assert_eq!(term.scrollback_len(), 4);
    assert_eq!(scrollback_text(&term, 0), &THIRTY[..10]);
    assert!(term.scrollback_row(0).unwrap().is_wrapped());
    assert_eq!(scrollback_text(&term, 2), &THIRTY[20..]);
    assert!(!term.scrollback_row(2).unwrap().is_wrapped());
    assert_eq!(
        lines(&mut term),
        [&THIRTY.to_uppercase()[10..20], &THIRTY.to_uppercase()[20..]]
    );
}

#[test]
fn growing_pulls_lines_back_from_the_scrollback() {
    let text: String = (0..10).map(|i| format!("l{i}\r\n")).collect();
    let mut term = screen(10, 5, format!("{text}end"));
    assert_eq!(term.scrollback_len(), 6);
    assert_eq!(lines(&mut term), ["l6", "l7", "l8", "l9", "end"]);
    term.resize(10, 8);
    assert_eq!(term.scrollback_len(), 3);
    assert_eq!(
        lines(&mut term),
        ["l3", "l4", "l5", "l6", "l7", "l8", "l9", "end"]
    );
    assert_eq!(cursor(&mut term), (7, 3));
}

#[test]
fn shrinking_rows_keeps_the_cursor_line_visible() {
    let mut term = screen(10, 6, "a\r\nb\r\nc\r\nd");
    term.resize(10, 2);
    assert_eq!(lines(&mut term), ["c", "d"]);
    assert_eq!(cursor(&mut term), (1, 1));
    assert_eq!(term.scrollback_len(), 2);
    assert_eq!(scrollback_text(&term, 1), "b");
}

#[test]
fn wide_characters_reflow_whole() {
    let mut term = screen(10, 3, "abc\u{4e2d}\u{6587}de");
    term.resize(4, 3);
    assert_eq!(lines(&mut term), ["abc", "\u{4e2d}\u{6587}", "de"]);
    term.resize(10, 3);
    assert_eq!(lines(&mut term), ["abc\u{4e2d}\u{6587}de", "", ""]);
}

#[test]
fn the_alternate_screen_is_cut_and_padded_not_reflowed() {
    let mut term = screen(20, 3, "main line that wraps\x1b[?1049h");
    term.advance(format!("\x1b[H{THIRTY}").as_bytes());
    assert_eq!(lines(&mut term), [&THIRTY[..20], &THIRTY[20..], ""]);
    term.resize(10, 3);
    assert_eq!(lines(&mut term), [&THIRTY[..10], &THIRTY[20..30], ""]);
    term.resize(30, 4);
    assert_eq!(lines(&mut term), [&THIRTY[..10], &THIRTY[20..30], "", ""]);
    assert_eq!(term.scrollback_len(), 0);
    // The main screen was reflowed behind it.
    term.advance(b"\x1b[?1049l");
    assert_eq!(lines(&mut term)[0], "main line that wraps");
}

#[test]
fn resizing_resets_the_scroll_region() {
    let mut term = screen(10, 4, "\x1b[2;3r");
    term.resize(10, 5);
    term.advance(b"\x1b[5;1H\nx");
    assert_eq!(term.scrollback_len(), 1);
}

#[test]
fn sizes_are_clamped() {
    let mut term = screen(10, 4, "");
    term.resize(0, 0);
    assert_eq!((term.cols(), term.rows()), (1, 1));
    term.advance(b"abc\r\nd");
    assert_eq!(lines(&mut term), ["d"]);
    term.resize(5000, 3);
    assert_eq!(term.cols(), crate::MAX_DIMENSION);
    let snapshot = term.snapshot();
    assert_eq!(snapshot.lines.len(), 3);
    assert!(snapshot.lines.iter().all(|l| l.cells().len() == 1000));
}

#[test]
fn a_one_column_terminal_survives_a_wide_character() {
    // A wide character cannot be shown on one column: it is dropped.
    let mut term = screen(1, 3, "a\u{4e2d}b");
    let snapshot = term.snapshot();
    assert!(snapshot.lines.iter().all(|l| l.cells().len() == 1));
    assert_eq!(lines(&mut term), ["a", "b", ""]);
    let mut term = screen(5, 3, "");
    term.resize(1, 3);
    term.advance("\u{4e2d}\u{4e2d}".as_bytes());
    assert_eq!(cursor(&mut term).1, 0);
}

#[test]
fn a_wider_resize_keeps_the_scrollback_within_its_cell_budget() {
    let mut term = Term::new(10, 2, 1_000);
    term.limit_scrollback_cells(2_000);
    for i in 0..500 {
        term.advance(format!("{i}\r\n").as_bytes());
    }
    assert_eq!(term.scrollback_len(), 200, "2,000 cells of 10 columns");
    term.resize(100, 2);
    assert_eq!(term.scrollback_len(), 20, "2,000 cells of 100 columns");
    assert_eq!(
        term.scrollback_row(19).map(|row| row.text()).as_deref(),
        Some("498")
    );
}

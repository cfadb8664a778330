//! Autowrap: the pending-wrap state after the last column, DECAWM off, wide
//! characters that do not fit the last column, and the soft-wrap flag.

use super::{cell, cursor, lines, screen};

#[test]
fn printing_the_last_column_leaves_the_cursor_there() {
    let mut term = screen(5, 3, "abcde");
    assert_eq!(lines(&mut term), ["abcde", "", ""]);
    assert_eq!(cursor(&mut term), (0, 4));
    assert!(!term.snapshot().lines[0].is_wrapped());
}

#[test]
fn the_next_character_wraps_and_marks_the_soft_wrap() {
    let mut term = screen(5, 3, "abcdef");
    assert_eq!(lines(&mut term), ["abcde", "f", ""]);
    assert_eq!(cursor(&mut term), (1, 1));
    let snapshot = term.snapshot();
    assert!(snapshot.lines[0].is_wrapped());
    assert!(!snapshot.lines[1].is_wrapped());
}

#[test]
fn a_hard_newline_is_not_a_soft_wrap() {
    let mut term = screen(5, 3, "abcde\r\nf");
    let snapshot = term.snapshot();
    assert!(!snapshot.lines[0].is_wrapped());
    assert_eq!(lines(&mut term), ["abcde", "f", ""]);
}

#[test]
fn a_long_line_wraps_over_several_rows() {
    let mut term = screen(4, 4, "abcdefghij");
    assert_eq!(lines(&mut term), ["abcd", "efgh", "ij", ""]);
    let snapshot = term.snapshot();
    let flags: Vec<bool> = snapshot.lines.iter().map(|l| l.is_wrapped()).collect();
    assert_eq!(flags, [true, true, false, false]);
}

#[test]
fn wrapping_at_the_bottom_scrolls_and_keeps_the_flag_in_the_scrollback() {
    let mut term = screen(4, 2, "abcdefghij");
    assert_eq!(lines(&mut term), ["efgh", "ij"]);
    assert_eq!(term.scrollback_len(), 1);
    let first = term.scrollback_row(0).expect("one scrollback line");
    assert_eq!(first.text(), "abcd");
    assert!(first.is_wrapped());
}

#[test]
fn motion_cancels_the_pending_wrap() {
    let mut term = screen(5, 3, "abcde\rX");
    assert_eq!(lines(&mut term), ["Xbcde", "", ""]);
    let mut term = screen(5, 3, "abcde\x1b[1;2HX");
    assert_eq!(lines(&mut term), ["aXcde", "", ""]);
    // BS from the pending wrap goes back one column from the last (as xterm.js).
    let mut term = screen(5, 3, "abcde\x08X");
    assert_eq!(lines(&mut term), ["abcXe", "", ""]);
}

#[test]
fn line_feed_keeps_the_column_of_a_pending_wrap() {
    // As xterm.js: LF moves down and the next character lands in the last column.
    let mut term = screen(5, 3, "abcde\nX");
    assert_eq!(lines(&mut term), ["abcde", "    X", ""]);
    assert!(!term.snapshot().lines[0].is_wrapped());
}

#[test]
fn decawm_off_overwrites_the_last_column() {
    let mut term = screen(5, 3, "\x1b[?7labcdefg");
    assert_eq!(lines(&mut term), ["abcdg", "", ""]);
    assert_eq!(cursor(&mut term), (0, 4));
    assert!(!term.snapshot().lines[0].is_wrapped());
    // Turning it back on wraps again.
    term.advance(b"\x1b[?7h\rabcdefg");
    assert_eq!(lines(&mut term), ["abcde", "fg", ""]);
}

#[test]
fn a_wide_character_that_does_not_fit_wraps_and_leaves_the_column_blank() {
    let mut term = screen(5, 3, "abcd\u{4e2d}");
    assert_eq!(lines(&mut term), ["abcd", "\u{4e2d}", ""]);
    assert_eq!(cursor(&mut term), (1, 2));
    let pad = cell(&mut term, 0, 4);
    assert!(pad.is_empty(), "{pad:?}");
    assert!(term.snapshot().lines[0].is_wrapped());
    assert_eq!(cell(&mut term, 1, 0).width(), 2);
}

#[test]
fn a_wide_character_with_decawm_off_is_dropped_when_it_does_not_fit() {
    // xterm.js: without autowrap a wide character that does not fit before the
    // right margin is not printed at all; the line and cursor stay.
    let mut term = screen(5, 3, "\x1b[?7labcd\u{4e2d}");
    assert_eq!(lines(&mut term), ["abcd", "", ""]);
    assert_eq!(cursor(&mut term), (0, 4));
}

#[test]
fn a_wide_character_filling_the_last_two_columns_sets_the_pending_wrap() {
    let mut term = screen(5, 3, "abc\u{4e2d}");
    assert_eq!(lines(&mut term), ["abc\u{4e2d}", "", ""]);
    assert_eq!(cursor(&mut term), (0, 4));
    term.advance(b"x");
    assert_eq!(lines(&mut term), ["abc\u{4e2d}", "x", ""]);
}

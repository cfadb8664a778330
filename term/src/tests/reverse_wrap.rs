//! Reverse wraparound, as xterm 383 and later: mode 45 takes BS and CUB back
//! into a soft-wrapped row only, mode 1045 into any row and round the
//! region; both need DECAWM.

use super::{cursor, lines, screen};

#[test]
fn mode_45_goes_back_into_soft_wrapped_rows_only() {
    // Row 0 ends with a line feed, row 1 wraps into row 2.
    let mut term = screen(5, 4, "\x1b[?45hab\r\nabcdefg");
    assert_eq!(cursor(&mut term), (2, 2));
    term.advance(b"\x08\x08\x08");
    assert_eq!(cursor(&mut term), (1, 4));
    // CUB goes the same way, and stops at column 0 of the first wrapped row.
    term.advance(b"\x1b[3;3H\x1b[20D");
    assert_eq!(cursor(&mut term), (1, 0));
}

#[test]
fn mode_1045_goes_back_into_any_row_and_round_the_region() {
    let mut term = screen(10, 6, "\x1b[?1045h\x1b[3;1H\x08");
    assert_eq!(cursor(&mut term), (1, 9));
    // From the region's top row to its bottom row.
    term.advance(b"\x1b[2;5r\x1b[2;1H\x08");
    assert_eq!(cursor(&mut term), (4, 9));
    // CUB counts the wrap as one column.
    term.advance(b"\x1b[3;3H\x1b[4D");
    assert_eq!(cursor(&mut term), (1, 8));
}

#[test]
fn reverse_wrap_lands_on_the_right_margin() {
    // From the left margin and from left of it, to the right margin above.
    let setup = "\x1b[?1045h\x1b[?69h\x1b[3;6s";
    assert_eq!(
        cursor(&mut screen(10, 4, format!("{setup}\x1b[3;3H\x08"))),
        (1, 5)
    );
    assert_eq!(
        cursor(&mut screen(10, 4, format!("{setup}\x1b[3;1H\x08"))),
        (1, 5)
    );
}

#[test]
fn a_pending_wrap_counts_as_the_first_column() {
    // With reverse wraparound BS only cancels the pending wrap...
    let mut term = screen(5, 2, "\x1b[?45habcde\x08X");
    assert_eq!(lines(&mut term), ["abcdX", ""]);
    // ...and without it BS moves one column back from the last.
    let mut term = screen(5, 2, "abcde\x08X");
    assert_eq!(lines(&mut term), ["abcXe", ""]);
}

#[test]
fn reverse_wrap_needs_autowrap() {
    let mut term = screen(10, 4, "\x1b[?1045h\x1b[?7l\x1b[3;1H\x08");
    assert_eq!(cursor(&mut term), (2, 0));
    let mut term = screen(5, 4, "\x1b[?45habcdefg\x1b[?7l\x1b[2;1H\x08");
    assert_eq!(cursor(&mut term), (1, 0));
}

#[test]
fn decstr_turns_extended_reverse_wrap_off() {
    let mut term = screen(10, 4, "\x1b[?1045h\x1b[!p\x1b[3;1H\x08");
    assert_eq!(cursor(&mut term), (2, 0));
}

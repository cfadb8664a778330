//! Tab stops: HT to the default stops every eight columns, HTS, TBC 0 and 3,
//! CHT and CBT, and what a reset or resize does to the stops.

use super::{cursor, lines, screen};

#[test]
fn ht_moves_to_every_eighth_column() {
    let mut term = screen(30, 2, "\tA\tB\tC");
    assert_eq!(lines(&mut term), ["        A       B       C", ""]);
    assert_eq!(cursor(&mut term), (0, 25));
    assert_eq!(cursor(&mut screen(30, 2, "abc\t")), (0, 8));
    assert_eq!(cursor(&mut screen(30, 2, "\x1b[1;9H\t")), (0, 16));
}

#[test]
fn ht_stops_at_the_last_column() {
    assert_eq!(cursor(&mut screen(20, 2, "\t\t\t\t")), (0, 19));
    let mut term = screen(10, 2, "\t\tX");
    assert_eq!(lines(&mut term), ["         X", ""]);
}

#[test]
fn ht_moves_without_writing() {
    let mut term = screen(20, 2, "abcdefghij\r\tX");
    assert_eq!(lines(&mut term), ["abcdefghXj", ""]);
}

#[test]
fn hts_sets_and_tbc_clears_stops() {
    // Clear all, then set stops at columns 3 and 6.
    let mut term = screen(10, 2, "\x1b[3g\x1b[1;4H\x1bH\x1b[1;7H\x1bH\x1b[H\tA\tB\tC");
    assert_eq!(lines(&mut term), ["   A  B  C", ""]);
    // TBC 0 clears only the stop under the cursor.
    let mut term = screen(20, 2, "\x1b[1;9H\x1b[0g\x1b[H\tA");
    assert_eq!(lines(&mut term), ["                A", ""]);
    let mut term = screen(20, 2, "\x1b[1;9H\x1b[g\x1b[H\tA");
    assert_eq!(cursor(&mut term), (0, 17));
    // TBC 3 clears them all: a tab goes to the last column.
    assert_eq!(cursor(&mut screen(20, 2, "\x1b[3g\t")), (0, 19));
}

#[test]
fn cht_moves_forward_n_stops() {
    assert_eq!(cursor(&mut screen(40, 2, "\x1b[2I")), (0, 16));
    assert_eq!(cursor(&mut screen(40, 2, "\x1b[I")), (0, 8));
    assert_eq!(cursor(&mut screen(40, 2, "\x1b[1;5H\x1b[3I")), (0, 24));
    assert_eq!(cursor(&mut screen(40, 2, "\x1b[99I")), (0, 39));
}

#[test]
fn cbt_moves_back_n_stops() {
    assert_eq!(cursor(&mut screen(40, 2, "\x1b[1;20H\x1b[Z")), (0, 16));
    assert_eq!(cursor(&mut screen(40, 2, "\x1b[1;20H\x1b[2Z")), (0, 8));
    assert_eq!(cursor(&mut screen(40, 2, "\x1b[1;17H\x1b[Z")), (0, 8));
    assert_eq!(cursor(&mut screen(40, 2, "\x1b[1;20H\x1b[9Z")), (0, 0));
    let mut term = screen(20, 2, "\tA\x1b[2IB\x1b[1;20H\x1b[2ZC");
    assert_eq!(lines(&mut term), ["        C          B", ""]);
}

#[test]
fn ris_restores_the_default_stops() {
    assert_eq!(cursor(&mut screen(20, 2, "\x1b[3g\x1bc\t")), (0, 8));
}

#[test]
fn widening_gives_new_columns_default_stops() {
    let mut term = screen(10, 2, "");
    term.resize(30, 2);
    term.advance(b"\t\t\t");
    assert_eq!(cursor(&mut term), (0, 24));
}

#[test]
fn the_curses_fix_wraps_a_tab_at_a_pending_wrap() {
    // Mode 41: the tab goes to the next row's first stop.
    let mut term = screen(10, 3, "\x1b[?41h0123456789\tx");
    assert_eq!(lines(&mut term), ["0123456789", "        x", ""]);
    // Without it the tab stays in the last column and the pending wrap holds.
    let mut term = screen(10, 3, "0123456789\tx");
    assert_eq!(lines(&mut term), ["0123456789", "x", ""]);
}

//! Left and right margins (DECLRMM and DECSLRM) and the functions that
//! honour them: autowrap, CR, cursor motion, scrolling, insertion and
//! deletion of lines, characters and columns, DECBI and DECFI.

use super::{cursor, lines, replies, screen};

/// A 6x4 screen filled with distinct letters per row, margins at columns
/// 2-4 (1-based), cursor home.
fn with_margins() -> crate::Term {
    screen(
        6,
        4,
        "abcdef\r\nghijkl\r\nmnopqr\r\nstuvwx\x1b[?69h\x1b[2;4s",
    )
}

#[test]
fn decslrm_needs_declrmm_and_homes_the_cursor() {
    // Without DECLRMM, `CSI s` saves the cursor.
    let mut term = screen(6, 4, "\x1b[2;3H\x1b[2;4s\x1b[H\x1b[u");
    assert_eq!(cursor(&mut term), (1, 2));
    let mut term = screen(6, 4, "\x1b[2;3H\x1b[?69h\x1b[2;4s");
    assert_eq!(cursor(&mut term), (0, 0));
    term.advance(b"\x1bP$qs\x1b\\");
    assert_eq!(replies(&mut term), "\x1bP1$r2;4s\x1b\\");
}

#[test]
fn resetting_declrmm_removes_the_margins() {
    let mut term = with_margins();
    term.advance(b"\x1b[?69l\x1bP$qs\x1b\\");
    assert_eq!(replies(&mut term), "\x1bP1$r1;6s\x1b\\");
}

#[test]
fn printing_wraps_at_the_right_margin_to_the_left_margin() {
    let mut term = with_margins();
    term.advance(b"\x1b[1;2HXYZW");
    assert_eq!(lines(&mut term)[..2], ["aXYZef", "gWijkl"]);
}

#[test]
fn carriage_return_goes_to_the_left_margin() {
    let mut term = with_margins();
    term.advance(b"\x1b[1;4H\r");
    assert_eq!(cursor(&mut term), (0, 1));
    // From left of the margin, to column 0.
    term.advance(b"\x1b[1;1H\r");
    assert_eq!(cursor(&mut term), (0, 0));
}

#[test]
fn cursor_motion_stops_at_the_margins_from_inside() {
    let mut term = with_margins();
    term.advance(b"\x1b[1;3H\x1b[9C");
    assert_eq!(cursor(&mut term), (0, 3));
    term.advance(b"\x1b[9D");
    assert_eq!(cursor(&mut term), (0, 1));
    // From outside, to the screen's edge.
    term.advance(b"\x1b[1;6H\x1b[9D");
    assert_eq!(cursor(&mut term), (0, 1));
}

#[test]
fn origin_mode_addresses_columns_from_the_left_margin() {
    let mut term = with_margins();
    term.advance(b"\x1b[?6h\x1b[1;1HX\x1b[1;9HY");
    assert_eq!(lines(&mut term)[0], "aXcYef");
    term.advance(b"\x1b[1;2H\x1b[6n");
    assert_eq!(replies(&mut term), "\x1b[1;2R");
}

#[test]
fn line_feed_at_the_bottom_scrolls_only_between_the_margins() {
    let mut term = with_margins();
    term.advance(b"\x1b[4;2H\n");
    assert_eq!(lines(&mut term), ["ahijef", "gnopkl", "mtuvqr", "s   wx"]);
    assert_eq!(term.scrollback_len(), 0);
}

#[test]
fn line_feed_outside_the_margins_does_not_scroll() {
    let mut term = with_margins();
    term.advance(b"\x1b[4;6H\n");
    assert_eq!(lines(&mut term), ["abcdef", "ghijkl", "mnopqr", "stuvwx"]);
    assert_eq!(cursor(&mut term), (3, 5));
}

#[test]
fn insert_and_delete_lines_work_inside_the_margins() {
    let mut term = with_margins();
    term.advance(b"\x1b[2;3H\x1b[L");
    assert_eq!(lines(&mut term), ["abcdef", "g   kl", "mhijqr", "snopwx"]);
    assert_eq!(cursor(&mut term), (1, 1));
    term.advance(b"\x1b[M");
    assert_eq!(lines(&mut term), ["abcdef", "ghijkl", "mnopqr", "s   wx"]);
}

#[test]
fn insert_and_delete_characters_stop_at_the_right_margin() {
    let mut term = with_margins();
    term.advance(b"\x1b[1;2H\x1b[@");
    assert_eq!(lines(&mut term)[0], "a bcef");
    term.advance(b"\x1b[2P");
    assert_eq!(lines(&mut term)[0], "ac  ef");
    // Outside the margins nothing happens.
    term.advance(b"\x1b[2;6H\x1b[@\x1b[P");
    assert_eq!(lines(&mut term)[1], "ghijkl");
}

#[test]
fn scroll_up_and_down_move_the_block_between_the_margins() {
    let mut term = with_margins();
    term.advance(b"\x1b[S");
    assert_eq!(lines(&mut term), ["ahijef", "gnopkl", "mtuvqr", "s   wx"]);
    term.advance(b"\x1b[2T");
    assert_eq!(lines(&mut term), ["a   ef", "g   kl", "mhijqr", "snopwx"]);
}

#[test]
fn decic_and_decdc_stop_at_the_right_margin() {
    let mut term = with_margins();
    term.advance(b"\x1b[1;3H\x1b['}");
    assert_eq!(lines(&mut term), ["ab cef", "gh ikl", "mn oqr", "st uwx"]);
    term.advance(b"\x1b[2'~");
    assert_eq!(lines(&mut term), ["ab  ef", "gh  kl", "mn  qr", "st  wx"]);
}

#[test]
fn decbi_and_decfi_scroll_the_block_at_the_margins() {
    let mut term = with_margins();
    term.advance(b"\x1b[1;2H\x1b6");
    assert_eq!(lines(&mut term), ["a bcef", "g hikl", "m noqr", "s tuwx"]);
    assert_eq!(cursor(&mut term), (0, 1));
    term.advance(b"\x1b[1;4H\x1b9");
    assert_eq!(lines(&mut term), ["abc ef", "ghi kl", "mno qr", "stu wx"]);
    // Away from the margins they move the cursor.
    term.advance(b"\x1b[1;3H\x1b9");
    assert_eq!(cursor(&mut term), (0, 3));
    term.advance(b"\x1b6\x1b6");
    assert_eq!(cursor(&mut term), (0, 1));
}

#[test]
fn decbi_at_the_left_edge_scrolls_the_whole_screen() {
    let mut term = screen(4, 2, "abcd\r\nefgh\x1b[1;1H\x1b6");
    assert_eq!(lines(&mut term), [" abc", " efg"]);
}

#[test]
fn rectangles_count_from_the_left_margin_in_origin_mode() {
    let mut term = with_margins();
    term.advance(b"\x1b[?6h\x1b[1;1;1;1$z");
    assert_eq!(lines(&mut term)[0], "a cdef");
}

#[test]
fn soft_reset_and_resize_remove_the_margins() {
    let mut term = with_margins();
    term.advance(b"\x1b[!p\x1bP$qs\x1b\\");
    assert_eq!(replies(&mut term), "\x1bP1$r1;6s\x1b\\");
    let mut term = with_margins();
    term.resize(8, 4);
    term.advance(b"\x1bP$qs\x1b\\");
    assert_eq!(replies(&mut term), "\x1bP1$r1;8s\x1b\\");
}

#[test]
fn a_line_feed_on_a_one_row_screen_with_side_margins_clears_between_them() {
    // The block scrolled is one row high: it is erased, nothing moves, and
    // the cell outside the margins stays (this used to underflow and index
    // past the screen, a panic).
    let mut term = screen(6, 1, "\x1b[?69h\x1b[2;5sabcde\x1b[1;3Hx\n");
    assert_eq!(lines(&mut term), ["a"]);
}

#[test]
fn nel_right_of_the_margins_at_the_bottom_does_not_scroll() {
    // Region rows 2-4, columns 2-4; the cursor on the region's bottom row,
    // right of the margins: NEL lands on the left margin without scrolling.
    let mut term = screen(8, 5, "\x1b[2;4r\x1b[?69h\x1b[2;4s\x1b[4;3Hx\x1b[4;6H\x1bE");
    assert_eq!(cursor(&mut term), (3, 1));
    assert_eq!(lines(&mut term)[3], "  x");
    // From inside the margins it scrolls the region.
    term.advance(b"\x1b[4;3H\x1bE");
    assert_eq!(lines(&mut term)[2], "  x");
}

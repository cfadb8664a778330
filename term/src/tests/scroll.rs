//! Scrolling and the scroll region: DECSTBM, LF/IND/NEL at the bottom margin,
//! RI at the top margin, SU and SD, which lines reach the scrollback, and the
//! colour of the lines scrolled in.

use super::{bg_only, cursor, lines, screen, scrollback_text, style_at};
use crate::Color;

/// Five lines `a`..`e` on a 10x5 screen, the cursor after `e`.
const FULL: &str = "a\r\nb\r\nc\r\nd\r\ne";

#[test]
fn line_feed_at_the_bottom_scrolls_into_the_scrollback() {
    let mut term = screen(10, 3, "a\r\nb\r\nc\r\nd");
    assert_eq!(lines(&mut term), ["b", "c", "d"]);
    assert_eq!(cursor(&mut term), (2, 1));
    assert_eq!(term.scrollback_len(), 1);
    assert_eq!(scrollback_text(&term, 0), "a");
}

#[test]
fn a_region_scrolls_alone_and_feeds_no_scrollback() {
    let mut term = screen(10, 5, format!("{FULL}\x1b[2;4r\x1b[4;1Hx\ny\nz"));
    assert_eq!(lines(&mut term), ["a", "x", " y", "  z", "e"]);
    assert_eq!(cursor(&mut term), (3, 3));
    assert_eq!(term.scrollback_len(), 0);
}

#[test]
fn a_region_starting_at_the_top_row_feeds_the_scrollback() {
    // xterm.js: lines leaving a region whose top margin is the first row go to
    // the scrollback even when the region ends above the last row.
    let mut term = screen(10, 5, format!("{FULL}\x1b[1;3r\x1b[3;1Hx\ny\nz"));
    assert_eq!(lines(&mut term), ["x", " y", "  z", "d", "e"]);
    assert_eq!(term.scrollback_len(), 2);
    assert_eq!(scrollback_text(&term, 0), "a");
    assert_eq!(scrollback_text(&term, 1), "b");
}

#[test]
fn line_feed_below_the_region_does_not_scroll() {
    let mut term = screen(10, 5, format!("{FULL}\x1b[1;3r\x1b[5;1H\nX"));
    assert_eq!(lines(&mut term), ["a", "b", "c", "d", "X"]);
    assert_eq!(cursor(&mut term), (4, 1));
    assert_eq!(term.scrollback_len(), 0);
}

#[test]
fn decstbm_without_parameters_resets_the_region() {
    let mut term = screen(10, 5, format!("{FULL}\x1b[2;3r\x1b[r\x1b[5;1H\nX"));
    assert_eq!(lines(&mut term), ["b", "c", "d", "e", "X"]);
    assert_eq!(term.scrollback_len(), 1);
}

#[test]
fn ind_moves_down_keeping_the_column() {
    let mut term = screen(10, 3, "ab\x1bDc");
    assert_eq!(lines(&mut term), ["ab", "  c", ""]);
    let mut term = screen(10, 2, "a\r\nb\x1bDc");
    assert_eq!(lines(&mut term), ["b", " c"]);
    assert_eq!(term.scrollback_len(), 1);
}

#[test]
fn nel_moves_to_the_start_of_the_next_line() {
    let mut term = screen(10, 3, "ab\x1bEc");
    assert_eq!(lines(&mut term), ["ab", "c", ""]);
    assert_eq!(cursor(&mut term), (1, 1));
    let mut term = screen(10, 2, "a\r\nb\x1bEc");
    assert_eq!(lines(&mut term), ["b", "c"]);
}

#[test]
fn ri_moves_up_and_scrolls_down_at_the_top() {
    let mut term = screen(10, 4, "a\r\nb\r\nc\r\nd\x1bM");
    assert_eq!(cursor(&mut term), (2, 1));
    assert_eq!(lines(&mut term), ["a", "b", "c", "d"]);
    term.advance(b"\x1b[H\x1bMx");
    assert_eq!(lines(&mut term), ["x", "a", "b", "c"]);
    assert_eq!(cursor(&mut term), (0, 1));
}

#[test]
fn ri_at_the_region_top_scrolls_the_region_only() {
    let mut term = screen(10, 5, format!("{FULL}\x1b[2;4r\x1b[2;1H\x1bMX"));
    assert_eq!(lines(&mut term), ["a", "X", "b", "c", "e"]);
    assert_eq!(cursor(&mut term), (1, 1));
}

#[test]
fn su_scrolls_up_without_moving_the_cursor() {
    let mut term = screen(10, 5, format!("{FULL}\x1b[3;4H\x1b[2S"));
    assert_eq!(lines(&mut term), ["c", "d", "e", "", ""]);
    assert_eq!(cursor(&mut term), (2, 3));
}

#[test]
fn su_does_not_feed_the_scrollback() {
    // xterm.js: CSI S deletes the lines at the top of the region; unlike a line
    // feed at the bottom margin it never adds them to the scrollback.
    let term = screen(10, 5, format!("{FULL}\x1b[2S"));
    assert_eq!(term.scrollback_len(), 0);
    let term = screen(10, 5, format!("{FULL}\x1b[1;3r\x1b[2S"));
    assert_eq!(term.scrollback_len(), 0);
}

#[test]
fn su_and_sd_stay_inside_the_region() {
    let mut term = screen(10, 5, format!("{FULL}\x1b[2;4r\x1b[S"));
    assert_eq!(lines(&mut term), ["a", "c", "d", "", "e"]);
    let mut term = screen(10, 5, format!("{FULL}\x1b[2;4r\x1b[2T"));
    assert_eq!(lines(&mut term), ["a", "", "", "b", "e"]);
    // More lines than the region holds clear it.
    let mut term = screen(10, 5, format!("{FULL}\x1b[2;4r\x1b[99S"));
    assert_eq!(lines(&mut term), ["a", "", "", "", "e"]);
}

#[test]
fn sd_scrolls_down_without_moving_the_cursor() {
    let mut term = screen(10, 4, "a\r\nb\r\nc\r\nd\x1b[2T");
    assert_eq!(lines(&mut term), ["", "", "a", "b"]);
    assert_eq!(cursor(&mut term), (3, 1));
    assert_eq!(term.scrollback_len(), 0);
}

#[test]
fn lines_scrolled_in_take_the_current_background() {
    let mut term = screen(5, 3, "a\r\nb\r\nc\x1b[41;1m\n");
    assert_eq!(lines(&mut term), ["b", "c", ""]);
    assert_eq!(style_at(&mut term, 2, 0), bg_only(Color::Indexed(1)));
    assert_eq!(style_at(&mut term, 2, 4), bg_only(Color::Indexed(1)));
    assert_eq!(style_at(&mut term, 1, 4), Default::default());
    // RI and SU use the background too.
    let mut term = screen(5, 3, "\x1b[44m\x1bM");
    assert_eq!(style_at(&mut term, 0, 0), bg_only(Color::Indexed(4)));
    assert_eq!(style_at(&mut term, 1, 0), Default::default());
    let mut term = screen(5, 3, "\x1b[44m\x1b[S");
    assert_eq!(style_at(&mut term, 2, 0), bg_only(Color::Indexed(4)));
    assert_eq!(style_at(&mut term, 1, 0), Default::default());
}

#[test]
fn sd_inserts_lines_in_the_default_style() {
    // xterm.js: unlike every other scroll, SD (CSI T) blanks the new lines with
    // the default attributes, not the current background.
    let mut term = screen(5, 3, "a\r\nb\r\nc\x1b[41m\x1b[T");
    assert_eq!(lines(&mut term), ["", "a", "b"]);
    assert_eq!(style_at(&mut term, 0, 0), Default::default());
}

#[test]
fn the_alternate_screen_never_feeds_the_scrollback() {
    let mut term = screen(10, 3, "a\r\nb\r\nc\r\nd");
    assert_eq!(term.scrollback_len(), 1);
    term.advance(b"\x1b[?1049h1\r\n2\r\n3\r\n4\r\n5\r\n6\x1b[2S");
    assert_eq!(lines(&mut term), ["6", "", ""]);
    term.advance(b"\x1b[H1\r\n2\r\n3\r\n4\r\n5\r\n6");
    assert_eq!(lines(&mut term), ["4", "5", "6"]);
    assert_eq!(term.scrollback_len(), 1);
    term.advance(b"\x1b[?1049l");
    assert_eq!(lines(&mut term), ["b", "c", "d"]);
    assert_eq!(term.scrollback_len(), 1);
    assert_eq!(scrollback_text(&term, 0), "a");
}

#[test]
fn lnm_makes_line_feed_return_the_carriage() {
    let mut term = screen(10, 3, "ab\x1b[20h\ncd\x1b[20l\nef");
    assert_eq!(lines(&mut term), ["ab", "cd", "  ef"]);
}

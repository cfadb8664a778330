//! Editing: insert and delete of characters and lines (ICH, DCH, IL, DL),
//! ECH, REP, erase in line and display (EL/ED 0, 1, 2 and ED 3) with the
//! current background, selective erase with DECSCA, and insert mode (IRM).

use super::{bg_only, cursor, lines, screen, scrollback_text, style_at};
use crate::{Color, Style};

const FULL: &str = "a\r\nb\r\nc\r\nd\r\ne";

#[test]
fn ich_inserts_blanks_and_drops_what_falls_off() {
    let mut term = screen(10, 2, "abcdef\x1b[1;2H\x1b[2@");
    assert_eq!(lines(&mut term), ["a  bcdef", ""]);
    assert_eq!(cursor(&mut term), (0, 1));
    let mut term = screen(6, 2, "abcdef\x1b[1;2H\x1b[2@");
    assert_eq!(lines(&mut term), ["a  bcd", ""]);
    let mut term = screen(6, 2, "abcdef\x1b[1;2H\x1b[99@");
    assert_eq!(lines(&mut term), ["a", ""]);
}

#[test]
fn dch_deletes_and_pulls_the_rest_left() {
    let mut term = screen(10, 2, "abcdef\x1b[1;2H\x1b[2P");
    assert_eq!(lines(&mut term), ["adef", ""]);
    assert_eq!(cursor(&mut term), (0, 1));
    let mut term = screen(10, 2, "abcdef\x1b[1;2H\x1b[99P");
    assert_eq!(lines(&mut term), ["a", ""]);
}

#[test]
fn ich_and_dch_fill_with_the_current_background() {
    let mut term = screen(6, 2, "abcdef\x1b[1;31;42m\x1b[1;2H\x1b[@");
    assert_eq!(style_at(&mut term, 0, 1), bg_only(Color::Indexed(2)));
    let mut term = screen(6, 2, "abcdef\x1b[1;31;42m\x1b[1;2H\x1b[P");
    assert_eq!(lines(&mut term), ["acdef", ""]);
    assert_eq!(style_at(&mut term, 0, 5), bg_only(Color::Indexed(2)));
    assert_eq!(style_at(&mut term, 0, 4), Style::default());
}

#[test]
fn ech_blanks_without_moving() {
    let mut term = screen(10, 2, "abcdef\x1b[1;2H\x1b[2X");
    assert_eq!(lines(&mut term), ["a  def", ""]);
    assert_eq!(cursor(&mut term), (0, 1));
    let mut term = screen(10, 2, "abcdef\x1b[1;3H\x1b[X");
    assert_eq!(lines(&mut term), ["ab def", ""]);
    let mut term = screen(10, 2, "abcdef\x1b[1;3H\x1b[99X");
    assert_eq!(lines(&mut term), ["ab", ""]);
    let mut term = screen(10, 2, "abcdef\x1b[44m\x1b[1;3H\x1b[X");
    assert_eq!(style_at(&mut term, 0, 2), bg_only(Color::Indexed(4)));
}

#[test]
fn rep_repeats_the_preceding_character() {
    let mut term = screen(10, 2, "x\x1b[5b");
    assert_eq!(lines(&mut term), ["xxxxxx", ""]);
    assert_eq!(cursor(&mut term), (0, 6));
    let mut term = screen(10, 2, "ab\x1b[b");
    assert_eq!(lines(&mut term), ["abb", ""]);
    // REP wraps like printing does.
    let mut term = screen(4, 2, "x\x1b[5b");
    assert_eq!(lines(&mut term), ["xxxx", "xx"]);
    // The repetitions are printed with the current pen.
    let mut term = screen(10, 2, "\x1b[31mx\x1b[2b");
    assert_eq!(style_at(&mut term, 0, 2).fg, Color::Indexed(1));
}

#[test]
fn rep_needs_a_character_printed_right_before() {
    // As xterm.js: any control or sequence in between forgets the character.
    let mut term = screen(10, 2, "x\x1b[C\x1b[3b");
    assert_eq!(lines(&mut term), ["x", ""]);
    let mut term = screen(10, 2, "x\r\n\x1b[3b");
    assert_eq!(lines(&mut term), ["x", ""]);
    let mut term = screen(10, 2, "\x1b[3b");
    assert_eq!(lines(&mut term), ["", ""]);
}

#[test]
fn il_inserts_lines_at_the_cursor_and_homes_the_column() {
    let mut term = screen(10, 5, format!("{FULL}\x1b[2;3H\x1b[L"));
    assert_eq!(lines(&mut term), ["a", "", "b", "c", "d"]);
    assert_eq!(cursor(&mut term), (1, 0));
    assert_eq!(term.scrollback_len(), 0);
}

#[test]
fn dl_deletes_lines_at_the_cursor() {
    let mut term = screen(10, 5, format!("{FULL}\x1b[2;3H\x1b[2M"));
    assert_eq!(lines(&mut term), ["a", "d", "e", "", ""]);
    assert_eq!(cursor(&mut term), (1, 0));
    assert_eq!(term.scrollback_len(), 0);
}

#[test]
fn il_and_dl_work_inside_the_region_only() {
    let mut term = screen(10, 5, format!("{FULL}\x1b[2;4r\x1b[3;1H\x1b[L"));
    assert_eq!(lines(&mut term), ["a", "b", "", "c", "e"]);
    let mut term = screen(10, 5, format!("{FULL}\x1b[2;4r\x1b[2;1H\x1b[M"));
    assert_eq!(lines(&mut term), ["a", "c", "d", "", "e"]);
    // Outside the region they do nothing.
    let mut term = screen(
        10,
        5,
        format!("{FULL}\x1b[2;4r\x1b[5;1H\x1b[L\x1b[1;1H\x1b[M"),
    );
    assert_eq!(lines(&mut term), ["a", "b", "c", "d", "e"]);
}

#[test]
fn il_and_dl_fill_with_the_current_background() {
    let mut term = screen(5, 3, "a\r\nb\r\nc\x1b[4;45m\x1b[1;1H\x1b[L");
    assert_eq!(style_at(&mut term, 0, 3), bg_only(Color::Indexed(5)));
    let mut term = screen(5, 3, "a\r\nb\r\nc\x1b[4;45m\x1b[1;1H\x1b[M");
    assert_eq!(style_at(&mut term, 2, 3), bg_only(Color::Indexed(5)));
    assert_eq!(style_at(&mut term, 1, 3), Style::default());
}

#[test]
fn el_erases_right_left_and_whole_line() {
    let mut term = screen(10, 2, "abcdef\x1b[1;3H\x1b[K");
    assert_eq!(lines(&mut term), ["ab", ""]);
    assert_eq!(cursor(&mut term), (0, 2));
    let mut term = screen(10, 2, "abcdef\x1b[1;3H\x1b[0K");
    assert_eq!(lines(&mut term), ["ab", ""]);
    // EL 1 erases up to and including the cursor column.
    let mut term = screen(10, 2, "abcdef\x1b[1;3H\x1b[1K");
    assert_eq!(lines(&mut term), ["   def", ""]);
    let mut term = screen(10, 2, "abcdef\r\nxy\x1b[1;3H\x1b[2K");
    assert_eq!(lines(&mut term), ["", "xy"]);
}

#[test]
fn el_with_a_pending_wrap_counts_the_cursor_past_the_last_column() {
    // xterm.js: after writing the last column the cursor is one past it, so
    // EL 0 erases nothing and EL 1 erases the whole line.
    let mut term = screen(5, 2, "abcde\x1b[K");
    assert_eq!(lines(&mut term), ["abcde", ""]);
    let mut term = screen(5, 2, "abcde\x1b[1K");
    assert_eq!(lines(&mut term), ["", ""]);
}

#[test]
fn erase_keeps_only_the_background_of_the_pen() {
    let pen = "\x1b[1;3;4;7;31;41m";
    let mut term = screen(10, 2, format!("abcdef{pen}\x1b[1;3H\x1b[K"));
    for col in 2..10 {
        assert_eq!(
            style_at(&mut term, 0, col),
            bg_only(Color::Indexed(1)),
            "col {col}"
        );
    }
    assert_eq!(style_at(&mut term, 0, 1), Style::default());
    let mut term = screen(10, 2, format!("{pen}\x1b[2J"));
    assert_eq!(style_at(&mut term, 1, 9), bg_only(Color::Indexed(1)));
    let mut term = screen(10, 2, "\x1b[48;2;1;2;3m\x1b[2K");
    assert_eq!(style_at(&mut term, 0, 0), bg_only(Color::Rgb(1, 2, 3)));
    // With the default background the erased cells are plain.
    let mut term = screen(10, 2, "\x1b[1;31mabc\x1b[H\x1b[K");
    assert_eq!(style_at(&mut term, 0, 0), Style::default());
}

#[test]
fn ed_erases_below_above_and_all() {
    let full = "abc\r\ndef\r\nghi";
    let mut term = screen(5, 3, format!("{full}\x1b[2;2H\x1b[J"));
    assert_eq!(lines(&mut term), ["abc", "d", ""]);
    let mut term = screen(5, 3, format!("{full}\x1b[2;2H\x1b[1J"));
    assert_eq!(lines(&mut term), ["", "  f", "ghi"]);
    let mut term = screen(5, 3, format!("{full}\x1b[2;2H\x1b[2J"));
    assert_eq!(lines(&mut term), ["", "", ""]);
    // ED 2 does not move the cursor.
    assert_eq!(cursor(&mut term), (1, 1));
}

#[test]
fn ed_3_clears_the_scrollback_and_keeps_the_screen() {
    let mut term = screen(10, 3, "a\r\nb\r\nc\r\nd\r\ne");
    assert_eq!(term.scrollback_len(), 2);
    assert_eq!(scrollback_text(&term, 0), "a");
    term.advance(b"\x1b[3J");
    assert_eq!(term.scrollback_len(), 0);
    assert_eq!(lines(&mut term), ["c", "d", "e"]);
}

#[test]
fn selective_erase_spares_protected_cells() {
    // DECSCA 1 protects what is printed next; DECSEL/DECSED (CSI ? K/J) skip it.
    let mut term = screen(10, 2, "ab\x1b[1\"qcd\x1b[0\"qef\x1b[?2K");
    assert_eq!(lines(&mut term), ["  cd", ""]);
    let mut term = screen(10, 2, "ab\x1b[1\"qcd\x1b[0\"qef\r\ngh\x1b[?2J");
    assert_eq!(lines(&mut term), ["  cd", ""]);
    let mut term = screen(10, 2, "ab\x1b[1\"qcd\x1b[0\"qef\x1b[1;4H\x1b[?1K");
    assert_eq!(lines(&mut term), ["  cdef", ""]);
}

#[test]
fn normal_erase_ignores_protection() {
    let mut term = screen(10, 2, "ab\x1b[1\"qcd\x1b[0\"qef\x1b[2K");
    assert_eq!(lines(&mut term), ["", ""]);
    let mut term = screen(10, 2, "\x1b[1\"qcd\x1b[0\"q\x1b[2J");
    assert_eq!(lines(&mut term), ["", ""]);
}

#[test]
fn insert_mode_shifts_the_line_right() {
    let mut term = screen(10, 2, "abc\r\x1b[4hX");
    assert_eq!(lines(&mut term), ["Xabc", ""]);
    assert_eq!(cursor(&mut term), (0, 1));
    term.advance(b"\x1b[4lY");
    assert_eq!(lines(&mut term), ["XYbc", ""]);
    // Characters pushed past the right edge are lost.
    let mut term = screen(5, 2, "abcde\r\x1b[4hXY");
    assert_eq!(lines(&mut term), ["XYabc", ""]);
    assert_eq!(cursor(&mut term), (0, 2));
    // A wide character makes room for two cells.
    let mut term = screen(6, 2, "abcd\r\x1b[4h\u{4e2d}");
    assert_eq!(lines(&mut term), ["\u{4e2d}abcd", ""]);
}

#[test]
fn iso_protected_areas_guard_against_plain_erases_only() {
    // SPA ... EPA protects "cd" from ED, EL and ECH.
    let mut term = screen(6, 2, "ab\x1bVcd\x1bWef\x1b[2J");
    assert_eq!(lines(&mut term)[0], "  cd");
    let mut term = screen(6, 2, "ab\x1bVcd\x1bWef\x1b[1;1H\x1b[6X");
    assert_eq!(lines(&mut term)[0], "  cd");
    // The selective erases ignore it.
    let mut term = screen(6, 2, "ab\x1bVcd\x1bWef\x1b[?2K");
    assert_eq!(lines(&mut term)[0], "");
}

#[test]
fn decsca_protection_guards_against_selective_erases_only() {
    let mut term = screen(6, 2, "ab\x1b[1\"qcd\x1b[0\"qef\x1b[?2K");
    assert_eq!(lines(&mut term)[0], "  cd");
    let mut term = screen(6, 2, "ab\x1b[1\"qcd\x1b[0\"qef\x1b[2K");
    assert_eq!(lines(&mut term)[0], "");
}

//! Wide characters and grapheme clusters: CJK takes two cells (the spacer has
//! width 0), overwriting or editing half of a wide character blanks the other
//! half, combining marks and ZWJ stay in their base cell.

use super::{cell, cursor, lines, screen};

#[test]
fn a_cjk_character_takes_two_cells() {
    let mut term = screen(6, 2, "\u{4e2d}a");
    assert_eq!(lines(&mut term), ["\u{4e2d}a", ""]);
    assert_eq!(cursor(&mut term), (0, 3));
    let left = cell(&mut term, 0, 0);
    assert_eq!((left.ch(), left.width()), ('\u{4e2d}', 2));
    assert_eq!(cell(&mut term, 0, 1).width(), 0);
    assert_eq!(cell(&mut term, 0, 2).ch(), 'a');
    // Emoji are wide too.
    let mut term = screen(6, 2, "\u{1f600}b");
    assert_eq!(cell(&mut term, 0, 0).width(), 2);
    assert_eq!(cursor(&mut term), (0, 3));
}

#[test]
fn overwriting_the_right_half_blanks_the_left() {
    let mut term = screen(6, 2, "a\u{4e2d}b\x1b[1;3Hx");
    assert_eq!(lines(&mut term), ["a xb", ""]);
    let blank = cell(&mut term, 0, 1);
    assert!(blank.is_empty(), "{blank:?}");
}

#[test]
fn overwriting_the_left_half_blanks_the_right() {
    let mut term = screen(6, 2, "a\u{4e2d}b\x1b[1;2Hx");
    assert_eq!(lines(&mut term), ["ax b", ""]);
    assert_eq!(cell(&mut term, 0, 2).width(), 1);
}

#[test]
fn a_wide_character_over_two_halves_blanks_both_neighbours() {
    let mut term = screen(6, 2, "\u{4e2d}\u{4e2d}\x1b[1;2H\u{65e5}");
    assert_eq!(lines(&mut term), [" \u{65e5}", ""]);
    assert!(cell(&mut term, 0, 0).is_empty());
    assert!(cell(&mut term, 0, 3).is_empty());
    assert_eq!(cell(&mut term, 0, 1).width(), 2);
}

#[test]
fn erasing_or_deleting_half_of_a_wide_character_removes_all_of_it() {
    let mut term = screen(6, 2, "\u{4e2d}x\x1b[1;2H\x1b[X");
    assert_eq!(lines(&mut term), ["  x", ""]);
    let mut term = screen(6, 2, "\u{4e2d}x\x1b[1;2H\x1b[P");
    assert_eq!(lines(&mut term), [" x", ""]);
    let mut term = screen(6, 2, "x\u{4e2d}\x1b[1;2H\x1b[K");
    assert_eq!(lines(&mut term), ["x", ""]);
}

#[test]
fn inserting_at_the_right_half_of_a_wide_character_leaves_no_orphan() {
    // As xterm.js: both halves become blanks and the rest moves right.
    let mut term = screen(6, 2, "\u{4e2d}x\x1b[1;2H\x1b[@");
    assert_eq!(lines(&mut term), ["   x", ""]);
    let snapshot = term.snapshot();
    assert!(snapshot.lines[0]
        .cells()
        .iter()
        .take(3)
        .all(|c| c.width() == 1));
}

#[test]
fn a_wide_character_pushed_off_the_edge_disappears_whole() {
    let mut term = screen(6, 2, "abcd\u{4e2d}\x1b[1;5H\x1b[@");
    assert_eq!(lines(&mut term), ["abcd", ""]);
    assert!(term.snapshot().lines[0]
        .cells()
        .iter()
        .all(|c| c.width() == 1));
}

#[test]
fn combining_marks_stay_in_their_base_cell() {
    let mut term = screen(6, 2, "e\u{301}x");
    assert_eq!(lines(&mut term), ["e\u{301}x", ""]);
    assert_eq!(cursor(&mut term), (0, 2));
    let snapshot = term.snapshot();
    let row = &snapshot.lines[0];
    assert_eq!(row.cluster(0), Some("e\u{301}"));
    assert_eq!(row.cells()[0].ch(), 'e');
    assert!(row.cells()[0].has_cluster());
    assert_eq!(row.cluster(1), None);
    assert_eq!(row.cells()[1].ch(), 'x');
}

#[test]
fn several_marks_join_one_cell() {
    let mut term = screen(6, 2, "a\u{301}\u{323}\u{308}b");
    assert_eq!(
        term.snapshot().lines[0].cluster(0),
        Some("a\u{301}\u{323}\u{308}")
    );
    assert_eq!(cursor(&mut term), (0, 2));
}

#[test]
fn a_mark_after_a_wide_character_joins_it() {
    let mut term = screen(6, 2, "\u{4e2d}\u{301}a");
    let snapshot = term.snapshot();
    assert_eq!(snapshot.lines[0].cluster(0), Some("\u{4e2d}\u{301}"));
    assert_eq!(snapshot.lines[0].text(), "\u{4e2d}\u{301}a");
}

#[test]
fn a_mark_after_the_last_column_joins_it() {
    let mut term = screen(5, 2, "abcde\u{301}f");
    assert_eq!(lines(&mut term), ["abcde\u{301}", "f"]);
    assert_eq!(term.snapshot().lines[0].cluster(4), Some("e\u{301}"));
}

#[test]
fn zwj_stays_in_the_base_cell() {
    // Widths come per character (as xterm.js with Unicode 11): the joiner joins
    // the first emoji's cell, the second emoji takes cells of its own.
    let family = "\u{1f468}\u{200d}\u{1f469}";
    let mut term = screen(8, 2, family);
    let snapshot = term.snapshot();
    let row = &snapshot.lines[0];
    assert_eq!(row.cluster(0), Some("\u{1f468}\u{200d}"));
    assert_eq!(row.cells()[2].ch(), '\u{1f469}');
    assert_eq!(row.text(), family);
    assert_eq!(cursor(&mut term), (0, 4));
}

#[test]
fn overwriting_a_cluster_drops_its_text() {
    let mut term = screen(6, 2, "e\u{301}f\x1b[1;1Hx");
    let snapshot = term.snapshot();
    assert_eq!(snapshot.lines[0].cluster(0), None);
    assert_eq!(snapshot.lines[0].text(), "xf");
    let mut term = screen(6, 2, "e\u{301}f\x1b[1;1H\x1b[K");
    assert_eq!(lines(&mut term), ["", ""]);
}

#[test]
fn clusters_move_with_their_cells() {
    let mut term = screen(8, 2, "ae\u{301}b\x1b[1;1H\x1b[2@");
    assert_eq!(lines(&mut term), ["  ae\u{301}b", ""]);
    assert_eq!(term.snapshot().lines[0].cluster(3), Some("e\u{301}"));
    let mut term = screen(8, 2, "ae\u{301}b\x1b[1;1H\x1b[P");
    assert_eq!(lines(&mut term), ["e\u{301}b", ""]);
    assert_eq!(term.snapshot().lines[0].cluster(0), Some("e\u{301}"));
}

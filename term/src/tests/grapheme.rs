//! Grapheme clustering (mode 2027): DECRQM and the resets, the widths of
//! emoji sequences with and without the mode, clusters extended by a later
//! write, and a cluster that widens in the last column.

use super::{cell, cursor, lines, replies, screen};

const ON: &str = "\x1b[?2027h";

#[test]
fn decrqm_reports_the_mode_and_ris_resets_it_but_decstr_does_not() {
    let mut term = screen(10, 2, "\x1b[?2027$p");
    assert_eq!(replies(&mut term), "\x1b[?2027;2$y");
    term.advance(b"\x1b[?2027h\x1b[?2027$p");
    assert_eq!(replies(&mut term), "\x1b[?2027;1$y");
    assert!(term.modes().get(crate::modes::Mode::GraphemeCluster));
    term.advance(b"\x1b[!p\x1b[?2027$p");
    assert_eq!(replies(&mut term), "\x1b[?2027;1$y");
    term.advance(b"\x1bc\x1b[?2027$p");
    assert_eq!(replies(&mut term), "\x1b[?2027;2$y");
    term.advance(b"\x1b[?2027h\x1b[?2027l\x1b[?2027$p");
    assert_eq!(replies(&mut term), "\x1b[?2027;2$y");
}

/// Where the cursor ends after `text` on a fresh line, with the mode or without.
fn column(text: &str, clustering: bool) -> u16 {
    let prefix = if clustering { ON } else { "" };
    cursor(&mut screen(20, 3, format!("{prefix}{text}"))).1
}

#[test]
fn without_the_mode_each_character_keeps_its_own_width() {
    assert_eq!(column("\u{2764}\u{fe0f}", false), 1);
    assert_eq!(column("\u{1f1fa}\u{1f1f8}", false), 2);
    assert_eq!(
        column("\u{1f469}\u{200d}\u{1f469}\u{200d}\u{1f467}", false),
        6
    );
    assert_eq!(column("\u{1f44b}\u{1f3fb}", false), 4);
}

#[test]
fn with_the_mode_a_cluster_takes_the_width_of_its_presentation() {
    // VS16 makes a text-default emoji wide; VS15 a wide one narrow.
    assert_eq!(column("\u{2764}\u{fe0f}", true), 2);
    assert_eq!(column("\u{231a}\u{fe0e}", true), 1);
    assert_eq!(column("\u{231a}", true), 2);
    // A VS16 after a character without an emoji form changes nothing.
    assert_eq!(column("x\u{fe0f}", true), 1);
    // Flags, ZWJ sequences, skin tones and keycaps.
    assert_eq!(column("\u{1f1fa}\u{1f1f8}", true), 2);
    assert_eq!(column("\u{1f1fa}\u{1f1f8}\u{1f1eb}\u{1f1f7}", true), 4);
    assert_eq!(
        column("\u{1f469}\u{200d}\u{1f469}\u{200d}\u{1f467}", true),
        2
    );
    assert_eq!(column("\u{1f44b}\u{1f3fb}", true), 2);
    assert_eq!(column("1\u{fe0f}\u{20e3}", true), 2);
    assert_eq!(column("1\u{20e3}", true), 1);
    // Unqualified: the joined emoji makes it wide (as Ghostty and WezTerm).
    assert_eq!(column("\u{2764}\u{200d}\u{1f525}", true), 2);
    // Plain text is unchanged.
    assert_eq!(column("e\u{301}\u{4e2d}a", true), 4);
}

#[test]
fn the_cluster_is_one_cell_with_its_whole_text() {
    let family = "\u{1f469}\u{200d}\u{1f469}\u{200d}\u{1f467}";
    let mut term = screen(10, 2, format!("{ON}{family}x"));
    assert_eq!(lines(&mut term), [format!("{family}x"), String::new()]);
    assert_eq!(cell(&mut term, 0, 0).width(), 2);
    assert_eq!(cell(&mut term, 0, 1).width(), 0);
    assert_eq!(cell(&mut term, 0, 2).ch(), 'x');
    let snapshot = term.snapshot();
    assert_eq!(snapshot.lines[0].cluster(0), Some(family));
}

#[test]
fn a_cluster_split_across_writes_is_joined_and_widened() {
    let mut term = screen(10, 2, format!("{ON}a\u{2764}"));
    assert_eq!(cursor(&mut term), (0, 2));
    term.advance("\u{fe0f}".as_bytes());
    assert_eq!(cursor(&mut term), (0, 3));
    term.advance(b"b");
    assert_eq!(lines(&mut term), ["a\u{2764}\u{fe0f}b", ""]);
    // A flag's second half in a later write.
    let mut term = screen(10, 2, format!("{ON}\u{1f1eb}"));
    term.advance("\u{1f1f7}".as_bytes());
    assert_eq!(cursor(&mut term), (0, 2));
    assert_eq!(cell(&mut term, 0, 0).width(), 2);
}

#[test]
fn widening_overwrites_the_next_cell_and_narrowing_blanks_the_spacer() {
    // A VS16 after the cursor moved back onto the next cell.
    let mut term = screen(10, 2, format!("{ON}\u{2764}x\x1b[1;2H\u{fe0f}"));
    assert_eq!(lines(&mut term), ["\u{2764}\u{fe0f}", ""]);
    assert_eq!(cursor(&mut term), (0, 2));
    // VS15 brings the cursor back to the column after the cluster.
    let mut term = screen(10, 2, format!("{ON}\u{231a}\u{fe0e}y"));
    assert_eq!(lines(&mut term), ["\u{231a}\u{fe0e}y", ""]);
    assert_eq!(cursor(&mut term), (0, 2));
    assert!(cell(&mut term, 0, 2).is_empty());
}

#[test]
fn a_cluster_widened_in_the_last_column_moves_to_the_next_line() {
    let mut term = screen(5, 3, format!("{ON}abcd\u{2764}"));
    assert_eq!(cursor(&mut term), (0, 4));
    term.advance("\u{fe0f}z".as_bytes());
    assert_eq!(lines(&mut term), ["abcd", "\u{2764}\u{fe0f}z", ""]);
    assert_eq!(cursor(&mut term), (1, 3));
    assert!(cell(&mut term, 0, 4).is_wide_pad());
    assert!(term.snapshot().lines[0].is_wrapped());
    // In the column before the last, it fills the row and a wrap is pending.
    let mut term = screen(5, 3, format!("{ON}abc\u{2764}\u{fe0f}"));
    assert_eq!(cursor(&mut term), (0, 4));
    term.advance(b"z");
    assert_eq!(lines(&mut term), ["abc\u{2764}\u{fe0f}", "z", ""]);
    // Without autowrap it stays narrow where it is.
    let mut term = screen(5, 3, format!("{ON}\x1b[?7labcd\u{2764}\u{fe0f}"));
    assert_eq!(lines(&mut term), ["abcd\u{2764}\u{fe0f}", "", ""]);
    assert_eq!(cursor(&mut term), (0, 4));
}

#[test]
fn ascii_and_new_clusters_start_new_cells() {
    let mut term = screen(10, 2, format!("{ON}\u{1f600}\u{1f600}a\u{4e2d}"));
    assert_eq!(cursor(&mut term), (0, 7));
    assert_eq!(cell(&mut term, 0, 2).ch(), '\u{1f600}');
}

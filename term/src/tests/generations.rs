//! Generations: which rows changed since `observe()` or a snapshot, the scroll
//! count behind the scroll hint, and snapshots sharing unchanged rows.

use std::sync::Arc;

use super::screen;
use crate::Term;

const FULL: &str = "a\r\nb\r\nc\r\nd\r\ne";

fn changed(term: &mut Term, since: u64) -> Vec<usize> {
    term.changed_rows(since).collect()
}

#[test]
fn printing_on_a_row_changes_exactly_that_row() {
    let mut term = screen(10, 5, FULL);
    let since = term.observe();
    assert_eq!(changed(&mut term, since), Vec::<usize>::new());
    term.advance(b"\x1b[4;1Hx");
    assert_eq!(changed(&mut term, since), [3]);
    assert!(term.generation() > since);
    // Cursor motion alone changes no row.
    let since = term.observe();
    term.advance(b"\x1b[2;2H\x1b[5;5H");
    assert_eq!(changed(&mut term, since), Vec::<usize>::new());
}

#[test]
fn a_snapshot_also_marks_the_screen_seen() {
    let mut term = screen(10, 5, FULL);
    let snapshot = term.snapshot();
    term.advance(b"\x1b[2;1Hx\x1b[5;1Hy");
    assert_eq!(changed(&mut term, snapshot.generation), [1, 4]);
}

#[test]
fn a_full_screen_scroll_counts_lines_and_changes_only_the_new_ones() {
    let mut term = screen(10, 5, FULL);
    let snapshot = term.snapshot();
    assert_eq!(term.scrolled_since(snapshot.scroll_count), 0);
    term.advance(b"\r\nf\r\ng");
    assert_eq!(term.scrolled_since(snapshot.scroll_count), 2);
    assert_eq!(changed(&mut term, snapshot.generation), [3, 4]);
    let next = term.snapshot();
    assert_eq!(next.scroll_count, snapshot.scroll_count + 2);
}

#[test]
fn a_region_scroll_marks_the_regions_rows() {
    let mut term = screen(10, 5, format!("{FULL}\x1b[2;4r"));
    let snapshot = term.snapshot();
    term.advance(b"\x1b[4;1H\n");
    assert_eq!(term.scrolled_since(snapshot.scroll_count), 0);
    assert_eq!(changed(&mut term, snapshot.generation), [1, 2, 3]);
}

#[test]
fn erase_and_edit_mark_their_rows() {
    let mut term = screen(10, 5, FULL);
    let since = term.observe();
    term.advance(b"\x1b[3;1H\x1b[K");
    assert_eq!(changed(&mut term, since), [2]);
    let since = term.observe();
    term.advance(b"\x1b[2;1H\x1b[L");
    assert_eq!(changed(&mut term, since), [1, 2, 3, 4]);
    let since = term.observe();
    term.advance(b"\x1b[3;1H\x1b[J");
    assert_eq!(changed(&mut term, since), [2, 3, 4]);
}

#[test]
fn switching_screens_and_resizing_change_every_row() {
    let mut term = screen(10, 3, FULL);
    let since = term.observe();
    term.advance(b"\x1b[?1049h");
    assert_eq!(changed(&mut term, since), [0, 1, 2]);
    let since = term.observe();
    term.advance(b"\x1b[?1049l");
    assert_eq!(changed(&mut term, since), [0, 1, 2]);
    let since = term.observe();
    term.resize(12, 4);
    assert_eq!(changed(&mut term, since), [0, 1, 2, 3]);
}

#[test]
fn snapshots_share_unchanged_rows() {
    let mut term = screen(10, 5, FULL);
    let first = term.snapshot();
    term.advance(b"\x1b[4;1Hx");
    let second = term.snapshot();
    for r in 0..5 {
        assert_eq!(
            Arc::ptr_eq(&first.lines[r], &second.lines[r]),
            r != 3,
            "row {r}"
        );
    }
    assert_eq!(second.lines[3].text(), "x");
    assert_eq!(first.lines[3].text(), "d");
    // Nothing changed: everything is shared.
    let third = term.snapshot();
    assert!((0..5).all(|r| Arc::ptr_eq(&second.lines[r], &third.lines[r])));
}

#[test]
fn snapshots_share_rows_that_scrolled() {
    let mut term = screen(10, 5, FULL);
    let before = term.snapshot();
    term.advance(b"\r\nf");
    let after = term.snapshot();
    for r in 0..4 {
        assert!(
            Arc::ptr_eq(&after.lines[r], &before.lines[r + 1]),
            "row {r}"
        );
    }
    assert_eq!(after.lines[4].text(), "f");
}

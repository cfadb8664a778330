//! The scrollback: its line limit, what `scrollback_row` gives back (text,
//! styles, clusters, wide characters, soft wraps) and that its memory follows
//! the limit rather than the lines fed.

use super::{screen, scrollback_text, SCROLLBACK};
use crate::{Color, Term};

fn numbered_lines(count: usize) -> String {
    (0..count).map(|i| format!("line {i}\r\n")).collect()
}

#[test]
fn the_line_limit_holds() {
    let mut term = screen(80, 24, numbered_lines(5_000));
    assert_eq!(term.scrollback_len(), SCROLLBACK);
    assert_eq!(term.snapshot().scrollback_len, SCROLLBACK);
    // 5,000 lines and a final empty row: 23 on screen, the 100 before them kept.
    assert_eq!(scrollback_text(&term, 0), "line 4877");
    assert_eq!(scrollback_text(&term, 99), "line 4976");
    assert!(term.scrollback_row(100).is_none());
    let snapshot = term.snapshot();
    assert_eq!(snapshot.lines[0].text(), "line 4977");
    assert_eq!(snapshot.lines[22].text(), "line 4999");
    assert_eq!(snapshot.lines[23].text(), "");
}

#[test]
fn lines_come_back_in_order_at_the_current_width() {
    let term = screen(10, 2, numbered_lines(5));
    assert_eq!(term.scrollback_len(), 4);
    for i in 0..4 {
        let row = term.scrollback_row(i).expect("stored line");
        assert_eq!(row.text(), format!("line {i}"));
        assert_eq!(row.cells().len(), 10);
        assert!(!row.is_wrapped());
    }
}

#[test]
fn a_zero_limit_keeps_nothing() {
    let mut term = Term::new(10, 2, 0);
    term.advance(numbered_lines(50).as_bytes());
    assert_eq!(term.scrollback_len(), 0);
    assert!(term.scrollback_row(0).is_none());
    assert_eq!(term.scrollback_heap_bytes(), 0);
}

#[test]
fn stored_lines_keep_styles_clusters_and_wide_characters() {
    let mut term = screen(10, 2, "\x1b[31mred\x1b[m e\u{301} \u{4e2d}\r\n\r\n\r\n");
    let row = term.scrollback_row(0).expect("stored line");
    assert_eq!(row.text(), "red e\u{301} \u{4e2d}");
    assert_eq!(row.cluster(4), Some("e\u{301}"));
    assert_eq!(row.cells()[6].width(), 2);
    assert_eq!(row.cells()[7].width(), 0);
    let snapshot = term.snapshot();
    assert_eq!(snapshot.style(row.cells()[0].style()).fg, Color::Indexed(1));
    assert_eq!(snapshot.style(row.cells()[3].style()).fg, Color::Default);
}

#[test]
fn stored_lines_keep_a_coloured_background_to_the_edge() {
    let mut term = screen(10, 2, "\x1b[44m\x1b[2Kab\x1b[m\r\n\r\n\r\n");
    let row = term.scrollback_row(0).expect("stored line");
    assert_eq!(row.text(), "ab");
    let snapshot = term.snapshot();
    assert_eq!(snapshot.style(row.cells()[9].style()).bg, Color::Indexed(4));
}

#[test]
fn memory_follows_the_limit_not_the_input() {
    let mut term = Term::new(120, 24, 1_000);
    let line = format!("{}\r\n", "x".repeat(100));
    let batch = line.repeat(5_000);
    term.advance(batch.as_bytes());
    let after_one = term.scrollback_heap_bytes();
    for _ in 0..4 {
        term.advance(batch.as_bytes());
    }
    let after_five = term.scrollback_heap_bytes();
    assert_eq!(term.scrollback_len(), 1_000);
    // 1,000 lines of 100 cells of 8 bytes is 800 KB; blocks may hold some slack.
    assert!(after_five < 4 * 1024 * 1024, "{after_five} bytes");
    assert!(
        after_five <= after_one * 2,
        "{after_one} then {after_five} bytes"
    );
}

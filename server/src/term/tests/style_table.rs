//! The style table: more distinct styles than 16-bit ids are fed; compaction
//! renumbers the ids in use and the screen keeps showing the right colours.

use std::fmt::Write as _;

use crate::term::{Color, Term, MAX_DIMENSION};

/// The colour of the `i`th style fed: distinct for every `i` below 2^24.
fn colour(i: u32) -> Color {
    Color::Rgb((i >> 16) as u8, (i >> 8) as u8, i as u8)
}

/// `count` cells, each `X` in a colour of its own.
fn distinct_cells(count: u32) -> String {
    distinct_cells_from(0, count)
}

/// `count` cells in the colours `colour(first)` onwards.
fn distinct_cells_from(first: u32, count: u32) -> String {
    let mut out = String::with_capacity(count as usize * 24);
    for i in first..first + count {
        let Color::Rgb(r, g, b) = colour(i) else {
            unreachable!()
        };
        write!(out, "\x1b[38;2;{r};{g};{b}mX").unwrap();
    }
    out
}

#[test]
fn compaction_keeps_the_visible_colours() {
    const COUNT: u32 = 70_000;
    let (cols, rows) = (80u32, 24u32);
    let mut term = Term::new(cols as u16, rows as u16, 100);
    term.advance(distinct_cells(COUNT).as_bytes());
    let snapshot = term.snapshot();
    assert!(snapshot.style_epoch > 0, "the table was compacted");
    assert!(snapshot.styles.len() <= 1 << 16);
    // 70,000 cells fill exactly 875 rows: the screen holds the last 1,920.
    let first_on_screen = COUNT - cols * rows;
    for row in 0..rows {
        for col in 0..cols {
            let cell = snapshot.lines[row as usize].cells()[col as usize];
            assert_eq!(cell.ch(), 'X');
            let expected = colour(first_on_screen + row * cols + col);
            assert_eq!(
                snapshot.style(cell.style()).fg,
                expected,
                "row {row} col {col}"
            );
        }
    }
    // The scrollback's ids were renumbered too.
    let newest = term.scrollback_row(99).expect("scrollback line");
    for col in 0..cols {
        let expected = colour(first_on_screen - cols + col);
        assert_eq!(
            snapshot.style(newest.cells()[col as usize].style()).fg,
            expected
        );
    }
    // New styles still work after the compaction.
    term.advance(b"\x1b[H\x1b[38;5;9mY");
    let snapshot = term.snapshot();
    assert_eq!(
        snapshot.style(snapshot.lines[0].cells()[0].style()).fg,
        Color::Indexed(9)
    );
}

#[test]
fn a_table_full_of_live_styles_falls_back_without_panicking() {
    // 260 x 260 cells can hold more live styles than there are ids. Only a
    // few styles are fed past the limit: each one costs a full compaction.
    let side = 260u16.min(MAX_DIMENSION);
    let count = (1 << 16) + 64;
    let mut term = Term::new(side, side, 0);
    term.advance(distinct_cells(count).as_bytes());
    let snapshot = term.snapshot();
    assert!(snapshot.styles.len() <= 1 << 16);
    // The first cells keep their colours; once every id is taken, new styles
    // fall back to the default one.
    let first = snapshot.lines[0].cells()[0];
    assert_eq!(snapshot.style(first.style()).fg, colour(0));
    let at =
        |i: u32| snapshot.lines[(i / side as u32) as usize].cells()[(i % side as u32) as usize];
    assert_eq!(
        snapshot.style(at((1 << 16) - 2).style()).fg,
        colour((1 << 16) - 2)
    );
    let last = at(count - 1);
    assert_eq!(last.ch(), 'X');
    assert_eq!(snapshot.style(last.style()).fg, Color::Default);
}

#[test]
fn a_full_table_is_not_compacted_for_every_new_style() {
    // Once every id is held by a visible cell, a compaction frees nothing;
    // running one per new style costs a scan of every cell per SGR (about
    // 4 ms on a 260x260 screen in a release build).
    let mut term = Term::new(260, 260, 0);
    term.advance(distinct_cells(1 << 16).as_bytes());
    let before = term.snapshot().style_epoch;
    term.advance(distinct_cells_from(1 << 16, 100).as_bytes());
    let compactions = term.snapshot().style_epoch - before;
    assert!(
        compactions <= 2,
        "{compactions} compactions for 100 new styles"
    );
}

//! The style and link tables: more distinct styles and links than there are
//! ids are fed; ids freed with their last cell are reused, and the screen
//! keeps showing the right colours and links.

use std::fmt::Write as _;

use crate::{Color, Term, MAX_DIMENSION};

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
fn freed_ids_are_reused_and_the_colours_stay_right() {
    const COUNT: u32 = 70_000;
    let (cols, rows) = (80u32, 24u32);
    let mut term = Term::new(cols as u16, rows as u16, 100);
    for chunk in distinct_cells(COUNT).as_bytes().chunks(4096) {
        term.advance(chunk);
        term.audit_style_counts().expect("counts match the cells");
    }
    let snapshot = term.snapshot();
    assert_eq!(snapshot.style_epoch, 0, "nothing was renumbered");
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
    let newest = term.scrollback_row(99).expect("scrollback line");
    for col in 0..cols {
        let expected = colour(first_on_screen - cols + col);
        assert_eq!(
            snapshot.style(newest.cells()[col as usize].style()).fg,
            expected
        );
    }
    term.advance(b"\x1b[H\x1b[38;5;9mY");
    let snapshot = term.snapshot();
    assert_eq!(
        snapshot.style(snapshot.lines[0].cells()[0].style()).fg,
        Color::Indexed(9)
    );
}

#[test]
fn a_table_full_of_live_styles_falls_back_without_panicking() {
    // 260 x 260 cells can hold more live styles than there are ids.
    let side = 260u16.min(MAX_DIMENSION);
    let count = (1 << 16) + 64;
    let mut term = Term::new(side, side, 0);
    term.advance(distinct_cells(count).as_bytes());
    term.audit_style_counts().expect("counts match the cells");
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
    // Overwriting the first row frees its 260 ids for the next new styles.
    term.advance(b"\x1b[H\x1b[m");
    term.advance(" ".repeat(side as usize).as_bytes());
    term.advance(b"\x1b[2;1H");
    term.advance(distinct_cells_from(1 << 20, 10).as_bytes());
    let snapshot = term.snapshot();
    for col in 0..10 {
        let cell = snapshot.lines[1].cells()[col];
        assert_eq!(
            snapshot.style(cell.style()).fg,
            colour((1 << 20) + col as u32)
        );
    }
    term.audit_style_counts().expect("counts match the cells");
}

#[test]
fn links_are_freed_with_the_last_cell_that_shows_them() {
    let mut term = Term::new(40, 3, 2);
    for i in 0..20_000 {
        term.advance(
            format!("\x1b]8;;https://example.com/{i}\x1b\\L{i}\x1b]8;;\x1b\\\r\n").as_bytes(),
        );
        if i % 1000 == 0 {
            term.audit_style_counts().expect("counts match the cells");
        }
    }
    let snapshot = term.snapshot();
    let links = snapshot.links.iter().filter(|l| !l.uri.is_empty()).count();
    assert!(links <= crate::links::MAX_LINKS, "{links} links");
    // The lines still shown keep their links: the newest was 19,999.
    let row = &snapshot.lines[1];
    let style = snapshot.style(row.cells()[0].style());
    let link = snapshot.link(&style).expect("the last line's link");
    assert_eq!(&*link.uri, "https://example.com/19999");
    term.audit_style_counts().expect("counts match the cells");
}

//! OSC strings: the window title (OSC 0 and 2) and OSC 8 hyperlinks.

use super::{cell, lines, screen};
use crate::Term;

/// The hyperlink URI of the cell at (`row`, `col`), if any.
fn link_at(term: &mut Term, row: usize, col: usize) -> Option<String> {
    let snapshot = term.snapshot();
    let style = snapshot.style(snapshot.lines[row].cells()[col].style());
    snapshot.link(&style).map(|link| link.uri.to_string())
}

#[test]
fn osc_0_and_2_set_the_title() {
    let mut term = screen(10, 2, "\x1b]0;first\x07");
    assert_eq!(term.title(), "first");
    assert_eq!(&*term.snapshot().title, "first");
    term.advance(b"\x1b]2;second\x1b\\");
    assert_eq!(term.title(), "second");
    assert_eq!(&*term.snapshot().title, "second");
    term.advance(b"\x1b]2;\x07");
    assert_eq!(term.title(), "");
    // The title is not printed.
    assert_eq!(lines(&mut term), ["", ""]);
}

#[test]
fn other_osc_numbers_leave_the_title() {
    let term = screen(
        10,
        2,
        "\x1b]0;kept\x07\x1b]1;icon\x07\x1b]7;file:///tmp\x07\x1b]999;x\x07",
    );
    assert_eq!(term.title(), "kept");
}

#[test]
fn a_title_may_contain_semicolons() {
    let term = screen(10, 2, "\x1b]0;vim a;b;c.txt\x07");
    assert_eq!(term.title(), "vim a;b;c.txt");
    let term = screen(10, 2, "\x1b]2;;leading\x07");
    assert_eq!(term.title(), ";leading");
}

#[test]
fn a_title_keeps_utf8_and_drops_control_characters() {
    let term = screen(10, 2, "\x1b]0;caf\u{e9} \u{4e2d}\x07");
    assert_eq!(term.title(), "caf\u{e9} \u{4e2d}");
    // C1 controls arrive as UTF-8 characters inside the string; they are dropped.
    let term = screen(10, 2, "\x1b]0;a\u{9b}b\u{85}c\u{7f}d\x07");
    assert_eq!(term.title(), "abcd");
    assert!(!term.title().chars().any(char::is_control));
}

#[test]
fn a_title_is_capped() {
    let long: String = (0..5000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let term = screen(10, 2, format!("\x1b]0;{long}\x07after"));
    let title = term.title();
    assert!(!title.is_empty());
    assert!(
        title.chars().count() <= 1024,
        "{} chars",
        title.chars().count()
    );
    assert!(long.starts_with(title));
}

#[test]
fn osc_8_links_the_cells_printed_while_open() {
    let mut term = screen(20, 2, "\x1b]8;;https://a.example/\x07link\x1b]8;;\x07 no");
    assert_eq!(lines(&mut term), ["link no", ""]);
    for col in 0..4 {
        assert_eq!(
            link_at(&mut term, 0, col).as_deref(),
            Some("https://a.example/")
        );
    }
    for col in 4..7 {
        assert_eq!(link_at(&mut term, 0, col), None, "col {col}");
    }
}

#[test]
fn osc_8_keeps_the_id_and_semicolons_in_the_uri() {
    let mut term = screen(
        20,
        2,
        "\x1b]8;id=x1;http://b.example/?a=1;b=2\x1b\\L\x1b]8;;\x1b\\",
    );
    let snapshot = term.snapshot();
    let style = snapshot.style(snapshot.lines[0].cells()[0].style());
    let link = snapshot.link(&style).expect("linked");
    assert_eq!(&*link.uri, "http://b.example/?a=1;b=2");
    assert_eq!(link.id.as_deref(), Some("x1"));
}

#[test]
fn the_same_link_is_interned_once() {
    let mut term = screen(
        20,
        2,
        "\x1b]8;;u\x07a\x1b]8;;\x07b\x1b]8;;u\x07c\x1b]8;;\x07",
    );
    let snapshot = term.snapshot();
    let links = snapshot.links.iter().filter(|l| !l.uri.is_empty());
    assert_eq!(links.count(), 1, "one link besides id 0 (none)");
    let cells = snapshot.lines[0].cells();
    assert_eq!(cells[0].style(), cells[2].style());
    assert_eq!(link_at(&mut term, 0, 1), None);
}

#[test]
fn a_link_survives_sgr_changes_and_keeps_the_colour() {
    // As xterm.js: SGR 0 does not end a hyperlink.
    let mut term = screen(20, 2, "\x1b]8;;u\x07\x1b[31ma\x1b[0mb\x1b]8;;\x07c");
    assert_eq!(link_at(&mut term, 0, 0).as_deref(), Some("u"));
    assert_eq!(link_at(&mut term, 0, 1).as_deref(), Some("u"));
    assert_eq!(link_at(&mut term, 0, 2), None);
}

#[test]
fn erased_cells_carry_no_link() {
    let mut term = screen(20, 2, "\x1b]8;;u\x07abc\x1b[H\x1b[K");
    assert_eq!(link_at(&mut term, 0, 0), None);
    assert!(cell(&mut term, 0, 0).is_empty());
}

#[test]
fn a_title_keeps_many_semicolons() {
    // As xterm.js: everything after `2;` is the title.
    let title: String = (b'a'..=b'z').map(|c| format!("{};", c as char)).collect();
    let term = screen(10, 2, format!("\x1b]2;{title}\x07"));
    assert_eq!(term.title(), title);
}

#[test]
fn links_keep_working_after_thousands_of_old_ones() {
    // The old links scrolled out of a 100-line scrollback long ago.
    let mut term = screen(20, 2, "");
    for i in 0..5_000 {
        term.advance(format!("\x1b]8;;https://example.com/{i}\x07x\x1b]8;;\x07\r\n").as_bytes());
    }
    term.advance(b"\x1b]8;;https://example.com/new\x07new\x1b]8;;\x07");
    assert_eq!(lines(&mut term)[1], "new");
    assert_eq!(
        link_at(&mut term, 1, 0).as_deref(),
        Some("https://example.com/new")
    );
}

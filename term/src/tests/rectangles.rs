//! VT420 rectangle operations: DECFRA, DECERA, DECSERA, DECCRA, DECCARA,
//! DECRARA and DECSACE, including origin mode and clipping.

use super::{lines, screen, style_at};
use crate::Attrs;

/// A 6x4 screen filled with distinct letters per row.
fn filled() -> crate::Term {
    screen(6, 4, "abcdef\r\nghijkl\r\nmnopqr\r\nstuvwx")
}

#[test]
fn decfra_fills_a_rectangle_with_a_character() {
    let mut term = filled();
    term.advance(b"\x1b[42;2;2;3;4$x");
    assert_eq!(lines(&mut term), ["abcdef", "g***kl", "m***qr", "stuvwx"]);
}

#[test]
fn decfra_ignores_unprintable_characters() {
    let mut term = filled();
    term.advance(b"\x1b[7;1;1;4;6$x");
    assert_eq!(lines(&mut term), ["abcdef", "ghijkl", "mnopqr", "stuvwx"]);
}

#[test]
fn decera_erases_a_rectangle_and_clips_to_the_screen() {
    let mut term = filled();
    term.advance(b"\x1b[3;5;99;99$z");
    assert_eq!(lines(&mut term), ["abcdef", "ghijkl", "mnop", "stuv"]);
}

#[test]
fn decsera_spares_protected_cells() {
    let mut term = screen(6, 2, "ab\x1b[1\"qcd\x1b[0\"qef");
    term.advance(b"\x1b[1;1;1;6${");
    assert_eq!(lines(&mut term)[0], "  cd");
}

#[test]
fn deccra_copies_and_handles_overlap() {
    let mut term = filled();
    term.advance(b"\x1b[1;1;2;3;1;3;4;1$v");
    assert_eq!(lines(&mut term), ["abcdef", "ghijkl", "mnoabc", "stughi"]);
    // Overlapping: shift row 1 right by one.
    let mut term = filled();
    term.advance(b"\x1b[1;1;1;5;1;1;2;1$v");
    assert_eq!(lines(&mut term)[0], "aabcde");
}

#[test]
fn deccra_is_clipped_at_the_destination_edge() {
    let mut term = filled();
    term.advance(b"\x1b[1;1;2;6;1;4;5;1$v");
    assert_eq!(lines(&mut term), ["abcdef", "ghijkl", "mnopqr", "stuvab"]);
}

#[test]
fn an_inverted_rectangle_does_nothing() {
    let mut term = filled();
    term.advance(b"\x1b[3;1;2;6$z\x1b[1;4;2;3$z");
    assert_eq!(lines(&mut term), ["abcdef", "ghijkl", "mnopqr", "stuvwx"]);
}

#[test]
fn origin_mode_makes_rectangles_relative_to_the_region() {
    let mut term = filled();
    term.advance(b"\x1b[2;3r\x1b[?6h\x1b[1;1;1;2$z");
    assert_eq!(lines(&mut term), ["abcdef", "  ijkl", "mnopqr", "stuvwx"]);
}

#[test]
fn deccara_changes_attributes_in_the_stream_by_default() {
    let mut term = filled();
    term.advance(b"\x1b[1;3;2;4;1$r");
    assert!(style_at(&mut term, 0, 5).attrs.contains(Attrs::BOLD));
    assert!(style_at(&mut term, 1, 0).attrs.contains(Attrs::BOLD));
    assert!(style_at(&mut term, 1, 3).attrs.contains(Attrs::BOLD));
    assert!(!style_at(&mut term, 0, 1).attrs.contains(Attrs::BOLD));
    assert!(!style_at(&mut term, 1, 4).attrs.contains(Attrs::BOLD));
}

#[test]
fn deccara_covers_the_rectangle_after_decsace_2() {
    let mut term = filled();
    term.advance(b"\x1b[2*x\x1b[1;5;2;6;7$r");
    assert!(style_at(&mut term, 1, 5).attrs.contains(Attrs::INVERSE));
    assert!(!style_at(&mut term, 1, 0).attrs.contains(Attrs::INVERSE));
    // 0 clears what was set.
    term.advance(b"\x1b[1;5;2;6;0$r");
    assert!(!style_at(&mut term, 1, 5).attrs.contains(Attrs::INVERSE));
}

#[test]
fn decrara_toggles_attributes() {
    let mut term = screen(6, 2, "a\x1b[1mb\x1b[m");
    term.advance(b"\x1b[2*x\x1b[1;1;1;2;1$t");
    assert!(style_at(&mut term, 0, 0).attrs.contains(Attrs::BOLD));
    assert!(!style_at(&mut term, 0, 1).attrs.contains(Attrs::BOLD));
}

#[test]
fn decsera_ignores_iso_protected_areas() {
    let mut term = screen(6, 2, "ab\x1bVcd\x1bWef");
    term.advance(b"\x1b[1;1;1;6${");
    assert_eq!(lines(&mut term)[0], "");
}

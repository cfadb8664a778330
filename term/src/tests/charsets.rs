//! Character sets: DEC special graphics and the UK set designated into G0
//! and G1 (`ESC ( F`, `ESC ) F`), shifted in with SI and SO.

use super::{lines, screen};

#[test]
fn dec_special_graphics_in_g0_draws_lines() {
    let mut term = screen(10, 2, "\x1b(0lqqk\r\nmqqj\x1b(B");
    assert_eq!(lines(&mut term), ["┌──┐", "└──┘"]);
    // Back to ASCII, the same letters print as themselves.
    term.advance(b"\x1b[Hlqqk");
    assert_eq!(lines(&mut term), ["lqqk", "└──┘"]);
}

#[test]
fn dec_special_graphics_maps_only_its_range() {
    let mut term = screen(20, 2, "\x1b(0ABC123xnaf~`");
    assert_eq!(lines(&mut term), ["ABC123│┼▒°·◆", ""]);
}

#[test]
fn g1_is_used_between_so_and_si() {
    let mut term = screen(10, 2, "\x1b)0q\x0eq\x0fq");
    assert_eq!(lines(&mut term), ["q─q", ""]);
}

#[test]
fn designating_g1_does_not_change_what_g0_prints() {
    let mut term = screen(10, 2, "\x1b(0\x1b)Bq\x0eq");
    assert_eq!(lines(&mut term), ["─q", ""]);
}

#[test]
fn the_uk_set_replaces_the_hash_sign() {
    let mut term = screen(10, 2, "\x1b(A#a\x1b(B#");
    assert_eq!(lines(&mut term), ["£a#", ""]);
}

#[test]
fn an_unknown_set_reads_as_ascii() {
    let mut term = screen(10, 2, "\x1b(0\x1b(Zq");
    assert_eq!(lines(&mut term), ["q", ""]);
}

#[test]
fn ris_returns_to_ascii() {
    let mut term = screen(10, 2, "\x1b)0\x0e\x1bcq");
    assert_eq!(lines(&mut term), ["q", ""]);
}

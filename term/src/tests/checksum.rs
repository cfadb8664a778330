//! DECRQCRA: the checksum of a rectangle, in xterm's (pre-patch-279)
//! format: the 16-bit negated sum of the characters, erased cells as spaces.

use super::{replies, screen};

/// The reply DECRQCRA gives for request `id` when the characters sum to `sum`.
fn checksum_reply(id: u16, sum: u32) -> String {
    format!("\x1bP{id}!~{:04X}\x1b\\", (sum as u16).wrapping_neg())
}

#[test]
fn a_single_cell_sums_its_character() {
    let mut term = screen(10, 3, "AB\x1b[1;1;1;1;1;1*y");
    assert_eq!(replies(&mut term), checksum_reply(1, 'A' as u32));
    term.advance(b"\x1b[7;1;1;2;1;2*y");
    assert_eq!(replies(&mut term), checksum_reply(7, 'B' as u32));
}

#[test]
fn a_rectangle_sums_every_cell_and_erased_cells_count_as_spaces() {
    let mut term = screen(10, 3, "ab\r\ncd\x1b[3;0;1;1;2;3*y");
    let expected = ['a', 'b', 'c', 'd'].iter().map(|&c| c as u32).sum::<u32>() + 2 * 32;
    assert_eq!(replies(&mut term), checksum_reply(3, expected));
}

#[test]
fn defaults_cover_the_whole_screen() {
    let mut term = screen(4, 2, "x\x1b[1*y");
    assert_eq!(replies(&mut term), checksum_reply(1, 'x' as u32 + 7 * 32));
}

#[test]
fn origin_mode_counts_from_the_scroll_region() {
    let mut term = screen(5, 5, "\x1b[3;4r\x1b[3;1HQ\x1b[?6h\x1b[2;;1;1;1;1*y");
    assert_eq!(replies(&mut term), checksum_reply(2, 'Q' as u32));
}

#[test]
fn an_empty_or_inverted_rectangle_sums_to_zero() {
    let mut term = screen(5, 5, "abc\x1b[4;;3;1;1;1*y");
    assert_eq!(replies(&mut term), "\x1bP4!~0000\x1b\\");
}

#[test]
fn attributes_do_not_count() {
    let mut term = screen(5, 2, "\x1b[1;4;7mZ\x1b[5;;1;1;1;1*y");
    assert_eq!(replies(&mut term), checksum_reply(5, 'Z' as u32));
}

//! Colour control: OSC 4/5 palette and special colours, OSC 10-19 dynamic
//! colours, and their resets (104, 105, 110-119). Queries report the theme
//! until a program sets a colour, then what it set.

use super::{replies, screen};

#[test]
fn palette_queries_report_the_theme() {
    let mut term = screen(10, 3, "\x1b]4;1;?\x07\x1b]4;196;?\x07");
    assert_eq!(
        replies(&mut term),
        "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\\x1b]4;196;rgb:ffff/0000/0000\x1b\\"
    );
}

#[test]
fn dynamic_queries_report_the_theme_defaults() {
    let mut term = screen(10, 3, "\x1b]10;?\x07\x1b]11;?\x07");
    assert_eq!(
        replies(&mut term),
        "\x1b]10;rgb:e5e5/e5e5/e5e5\x1b\\\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\"
    );
}

#[test]
fn a_set_palette_colour_is_reported_until_reset() {
    let mut term = screen(
        10,
        3,
        "\x1b]4;0;#102030;1;rgb:ffff/8080/0000\x07\x1b]4;0;?;1;?\x07",
    );
    assert_eq!(
        replies(&mut term),
        "\x1b]4;0;rgb:1010/2020/3030\x1b\\\x1b]4;1;rgb:ffff/8080/0000\x1b\\"
    );
    term.advance(b"\x1b]104;0\x07\x1b]4;0;?;1;?\x07");
    assert_eq!(
        replies(&mut term),
        "\x1b]4;0;rgb:0000/0000/0000\x1b\\\x1b]4;1;rgb:ffff/8080/0000\x1b\\"
    );
    term.advance(b"\x1b]104\x07\x1b]4;1;?\x07");
    assert_eq!(replies(&mut term), "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\");
}

#[test]
fn dynamic_colours_set_in_sequence_and_reset_one_by_one() {
    let mut term = screen(10, 3, "\x1b]10;#111;#222\x07\x1b]10;?;?\x07");
    assert_eq!(
        replies(&mut term),
        "\x1b]10;rgb:1010/1010/1010\x1b\\\x1b]11;rgb:2020/2020/2020\x1b\\"
    );
    term.advance(b"\x1b]110\x07\x1b]10;?;?\x07");
    assert_eq!(
        replies(&mut term),
        "\x1b]10;rgb:e5e5/e5e5/e5e5\x1b\\\x1b]11;rgb:2020/2020/2020\x1b\\"
    );
}

#[test]
fn special_colours_are_kept_apart_from_the_palette() {
    let mut term = screen(
        10,
        3,
        "\x1b]5;0;#aaaabbbbcccc\x07\x1b]5;0;?\x07\x1b]4;0;?\x07",
    );
    assert_eq!(
        replies(&mut term),
        "\x1b]5;0;rgb:aaaa/bbbb/cccc\x1b\\\x1b]4;0;rgb:0000/0000/0000\x1b\\"
    );
    term.advance(b"\x1b]105\x07\x1b]4;256;?\x07");
    assert_eq!(replies(&mut term), "\x1b]4;256;rgb:e5e5/e5e5/e5e5\x1b\\");
}

#[test]
fn bad_specs_and_indices_are_ignored() {
    let mut term = screen(10, 3, "\x1b]4;1;nonsense;999;#fff;x;?\x07\x1b]4;1;?\x07");
    assert_eq!(replies(&mut term), "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\");
}

#[test]
fn a_full_reset_forgets_set_colours() {
    let mut term = screen(10, 3, "\x1b]4;1;#fff\x07\x1bc\x1b]4;1;?\x07");
    assert_eq!(replies(&mut term), "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\");
}

//! The kitty keyboard protocol's flags stack (`CSI > u`, `CSI < u`,
//! `CSI = u`, `CSI ? u`), one per screen, and xterm's `modifyOtherKeys`
//! (`CSI > 4 ; n m`, `CSI > 4 n`, `CSI ? 4 m`).

use super::{replies, screen};
use crate::Term;

/// The kitty flags in force, as the input encoder sees them.
fn flags(term: &Term) -> u8 {
    term.modes().keyboard().flags.bits()
}

/// The `modifyOtherKeys` level, as the input encoder sees it.
fn other_keys(term: &Term) -> u8 {
    term.modes().keyboard().other_keys.level()
}

#[test]
fn push_pop_set_and_query() {
    let mut term = screen(10, 2, "\x1b[?u");
    assert_eq!(replies(&mut term), "\x1b[?0u");
    term.advance(b"\x1b[>1u\x1b[>11u\x1b[?u");
    assert_eq!(
        (flags(&term), replies(&mut term).as_str()),
        (11, "\x1b[?11u")
    );
    term.advance(b"\x1b[=16;2u");
    assert_eq!(flags(&term), 27);
    term.advance(b"\x1b[=3;3u");
    assert_eq!(flags(&term), 24);
    // Mode defaults to 1: set exactly these flags.
    term.advance(b"\x1b[=4u");
    assert_eq!(flags(&term), 4);
    term.advance(b"\x1b[<u");
    assert_eq!(flags(&term), 1);
    term.advance(b"\x1b[<u\x1b[?u");
    assert_eq!((flags(&term), replies(&mut term).as_str()), (0, "\x1b[?0u"));
    // Popping an empty stack is harmless; a push with no flags pushes 0.
    term.advance(b"\x1b[<5u\x1b[>u");
    assert_eq!(flags(&term), 0);
    // Undefined bits are dropped.
    term.advance(b"\x1b[>255u");
    assert_eq!(flags(&term), 31);
}

#[test]
fn the_alternate_screen_has_its_own_stack() {
    let mut term = screen(10, 2, "\x1b[>1u");
    term.advance(b"\x1b[?1049h");
    assert_eq!(flags(&term), 0, "the alternate screen starts empty");
    term.advance(b"\x1b[>27u");
    assert_eq!(flags(&term), 27);
    term.advance(b"\x1b[?1049l");
    assert_eq!(flags(&term), 1, "the main screen's flags are back");
    term.advance(b"\x1b[<u\x1b[?1049h");
    assert_eq!(flags(&term), 27, "the alternate stack is kept, as kitty");
    term.advance(b"\x1b[?u");
    assert_eq!(replies(&mut term), "\x1b[?27u");
}

#[test]
fn resets_empty_both_stacks() {
    for reset in ["\x1bc", "\x1b[!p"] {
        let mut term = screen(10, 2, "\x1b[>1u\x1b[?1049h\x1b[>3u");
        term.advance(reset.as_bytes());
        assert_eq!(flags(&term), 0, "{reset:?}");
        term.advance(b"\x1b[?1049h\x1b[?1049l");
        assert_eq!(flags(&term), 0, "{reset:?}");
    }
}

#[test]
fn a_million_pushes_do_not_grow_the_stack() {
    let mut term = screen(10, 2, "");
    term.advance("\x1b[>9u".repeat(1_000_000).as_bytes());
    term.advance(b"\x1b[>1u");
    // Eight entries are kept: seven pops leave the newest 9 but one.
    term.advance(b"\x1b[<7u");
    assert_eq!(flags(&term), 9);
    term.advance(b"\x1b[<u");
    assert_eq!(flags(&term), 0, "older entries were evicted");
}

#[test]
fn modify_other_keys_levels_reset_and_query() {
    let mut term = screen(10, 2, "\x1b[?4m");
    assert_eq!(replies(&mut term), "\x1b[>4;0m");
    term.advance(b"\x1b[>4;2m\x1b[?4m");
    assert_eq!(
        (other_keys(&term), replies(&mut term).as_str()),
        (2, "\x1b[>4;2m")
    );
    term.advance(b"\x1b[>4;1m");
    assert_eq!(other_keys(&term), 1);
    // A level xterm does not define is ignored.
    term.advance(b"\x1b[>4;7m");
    assert_eq!(other_keys(&term), 1);
    term.advance(b"\x1b[>4m");
    assert_eq!(other_keys(&term), 0);
    term.advance(b"\x1b[>4;2m\x1b[>4n");
    assert_eq!(other_keys(&term), 0);
    term.advance(b"\x1b[>4;2m\x1b[>m");
    assert_eq!(other_keys(&term), 0);
    // Another resource (1, modifyCursorKeys) leaves it alone.
    term.advance(b"\x1b[>4;2m\x1b[>1;2m\x1b[>1n");
    assert_eq!(other_keys(&term), 2);
    term.advance(b"\x1b[>4;2m\x1bc");
    assert_eq!(other_keys(&term), 0);
    // Another resource's query gets no answer; SGR is untouched.
    term.advance(b"\x1b[?1m\x1b[>4;1m");
    assert_eq!((replies(&mut term).as_str(), other_keys(&term)), ("", 1));
}

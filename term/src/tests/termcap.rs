//! XTGETTCAP: capability queries by hex-encoded name.

use super::{replies, screen};

#[test]
fn colours_and_name_are_answered() {
    // "Co" and "TN", hex-encoded.
    let mut term = screen(10, 3, "\x1bP+q436F;544E\x1b\\");
    assert_eq!(
        replies(&mut term),
        "\x1bP1+r436F=323536\x1b\\\x1bP1+r544E=787465726D2D323536636F6C6F72\x1b\\"
    );
}

#[test]
fn an_unknown_capability_ends_the_answer() {
    // "xx", then "Co": xterm stops at the first unknown name.
    let mut term = screen(10, 3, "\x1bP+q7878;436F\x1b\\");
    assert_eq!(replies(&mut term), "\x1bP0+r7878\x1b\\");
}

#[test]
fn malformed_hex_is_not_found() {
    let mut term = screen(10, 3, "\x1bP+q4G6F\x1b\\");
    assert_eq!(replies(&mut term), "\x1bP0+r4G6F\x1b\\");
}

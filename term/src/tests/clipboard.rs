//! OSC 52: the latest write is kept for the session; reads are never answered.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;

use super::{lines, replies, screen};
use crate::{Effect, Term};

/// The clipboard write the terminal asks its host to carry out, if any.
fn clipboard(term: &mut Term) -> Option<String> {
    term.take_effects().find_map(|effect| match effect {
        Effect::Clipboard(text) => Some(text),
        _ => None,
    })
}

fn osc52(text: &str) -> Vec<u8> {
    let mut bytes = b"\x1b]52;c;".to_vec();
    bytes.extend_from_slice(BASE64.encode(text).as_bytes());
    bytes.push(0x07);
    bytes
}

#[test]
fn a_write_is_taken_once_and_the_latest_wins() {
    let mut term = screen(20, 4, b"\x1b]52;c;b25l\x07x\x1b]52;;w4l0w6k=\x1b\\");
    assert_eq!(clipboard(&mut term).as_deref(), Some("\u{c9}t\u{e9}"));
    assert_eq!(clipboard(&mut term), None);
    assert_eq!(lines(&mut term)[0], "x");
}

#[test]
fn padding_is_optional() {
    assert_eq!(
        clipboard(&mut screen(20, 4, b"\x1b]52;c;aGk\x07")).as_deref(),
        Some("hi")
    );
    assert_eq!(
        clipboard(&mut screen(20, 4, b"\x1b]52;c;aGk=\x07")).as_deref(),
        Some("hi")
    );
}

#[test]
fn reads_and_malformed_writes_are_ignored_and_never_answered() {
    for bad in [
        &b"\x1b]52;c;?\x07"[..],
        b"\x1b]52;c;not base64!\x07",
        b"\x1b]52;c;//79\x07",
        b"\x1b]52;c\x07",
    ] {
        let mut term = screen(20, 4, bad);
        assert_eq!(clipboard(&mut term), None, "{bad:?}");
        assert_eq!(replies(&mut term), "", "{bad:?}");
    }
}

#[test]
fn a_write_the_osc_limit_would_cut_is_dropped_whole() {
    let long = "a".repeat(7000);
    assert_eq!(clipboard(&mut screen(20, 4, osc52(&long))), None);
    let short = "a".repeat(3000);
    assert_eq!(clipboard(&mut screen(20, 4, osc52(&short))), Some(short));
}

#[test]
fn replies_and_a_clipboard_write_leave_as_effects_in_that_order() {
    let mut term = screen(20, 4, b"\x1b]52;c;aGk=\x07\x1b[5n");
    let effects: Vec<Effect> = term.take_effects().collect();
    assert_eq!(
        effects,
        [
            Effect::Reply(b"\x1b[0n".to_vec()),
            Effect::Clipboard("hi".into())
        ]
    );
    assert_eq!(term.take_effects().count(), 0, "taken once");
}

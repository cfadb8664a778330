//! Byte streams for the emulator's property tests, biased toward the bytes
//! that matter to the parser: ESC, `[`, `]`, `\\`, digits, `;`, `:`, final
//! bytes, BEL, CR, LF, multibyte and invalid UTF-8, colours, the alternate
//! screen, scroll regions, OSC 8 links and queries that provoke replies.
//! Shared by `split_invariance.rs` and `state_restore.rs`.

#![allow(dead_code)] // Each test binary uses a different part of this module.

use proptest::prelude::*;
use proptest::sample::{select, Index};

/// One piece of a stream.
pub fn token() -> impl Strategy<Value = Vec<u8>> {
    let bytes = |set: &'static [u8]| select(set).prop_map(|b| vec![b]);
    prop_oneof![
        6 => Just(b"\x1b".to_vec()),
        4 => Just(b"[".to_vec()),
        4 => (0u32..300).prop_map(|n| n.to_string().into_bytes()),
        1 => Just(b"99999".to_vec()),
        3 => Just(b";".to_vec()),
        1 => Just(b":".to_vec()),
        2 => bytes(b"?>$\"! '#()*+=78cDEHM"),
        4 => bytes(b"@ABCDEFGHIJKLMPSTXZ`abcdefghlmnpqrstu"),
        2 => Just(b"\x07".to_vec()),
        2 => Just(b"\r".to_vec()),
        2 => Just(b"\n".to_vec()),
        2 => bytes(b"\x00\x08\x09\x0b\x0e\x0f\x18\x1a\x7f"),
        2 => Just(b"]".to_vec()),
        2 => Just(b"\\".to_vec()),
        1 => bytes(b"0128"),
        3 => select(&["\u{e9}", "\u{4e2d}", "\u{301}", "\u{200d}", "\u{1f600}", "\u{fe0f}", "\u{fb01}", "\u{fffd}", "\u{9b}"][..])
            .prop_map(|s| s.as_bytes().to_vec()),
        1 => any::<u8>().prop_map(|b| vec![b]),
        1 => bytes(b"\x80\xbf\xc3\xe4\xf0\xff"),
        4 => "[ -~]{1,12}".prop_map(String::into_bytes),
        2 => (0..=1u8, any::<[u8; 3]>()).prop_map(|(ground, [r, g, b])| {
            format!("\x1b[{};2;{r};{g};{b}m", 38 + 10 * ground).into_bytes()
        }),
        1 => select(&[
            "\x1b]0;a;b\x07",
            "\x1b]8;id=1;http://x/\x1b\\",
            "\x1b]8;;\x07",
            "\x1b[?1049h",
            "\x1b[?1049l",
            "\x1b[?6h",
            "\x1b[2;5r",
            "\x1b[4h",
            "\x1b[6n",
            "\x1b[?2004$p",
            "\x1b(0",
            "\x1bP1$rm\x1b\\",
        ][..])
        .prop_map(|s| s.as_bytes().to_vec()),
    ]
}

/// A stream of up to `max` tokens. With `long`, one in ten streams also
/// holds an OSC string longer than the guard lets through, so that its cut is
/// split too.
pub fn stream(max: usize, long: bool) -> impl Strategy<Value = Vec<u8>> {
    let extra = if long {
        prop::option::weighted(0.1, (Just(long_osc()), any::<Index>())).boxed()
    } else {
        Just(None).boxed()
    };
    (prop::collection::vec(token(), 0..max), extra).prop_map(|(mut tokens, extra)| {
        if let Some((osc, at)) = extra {
            tokens.insert(at.index(tokens.len() + 1), osc);
        }
        tokens.concat()
    })
}

/// An unterminated OSC string of 9,000 bytes: the tokens after it end it.
pub fn long_osc() -> Vec<u8> {
    let mut osc = b"\x1b]0;".to_vec();
    osc.extend(std::iter::repeat_n(b'z', 9000));
    osc
}

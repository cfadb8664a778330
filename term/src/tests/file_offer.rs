//! OSC 1337 File with inline=0: a program offers a file for download; the
//! terminal takes it within the host's cap and drops anything else
//! without a stall.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::lines;
use crate::{Effect, FileOffer, Term};

/// The file offer the terminal asks its host to carry out, if any.
fn offer(term: &mut Term, bytes: &[u8]) -> Option<FileOffer> {
    term.advance(bytes);
    term.take_effects().find_map(|effect| match effect {
        Effect::FileOffer(offer) => Some(offer),
        _ => None,
    })
}

fn sequence(name: &str, size: Option<usize>, data: &[u8], end: &str) -> Vec<u8> {
    let size = size.map_or(String::new(), |s| format!(";size={s}"));
    format!(
        "\x1b]1337;File=name={}{size};inline=0:{}{end}",
        STANDARD.encode(name),
        STANDARD.encode(data)
    )
    .into_bytes()
}

fn term(cap: u64) -> Term {
    let mut term = Term::new(20, 5, 0);
    term.offer_files(cap);
    term
}

#[test]
fn a_whole_file_is_offered_once_with_its_name() {
    let data: Vec<u8> = (0..=255).collect();
    let mut t = term(1 << 20);
    let got = offer(
        &mut t,
        &sequence("dir/r\u{e9}sum\u{e9}.bin", Some(256), &data, "\x07"),
    );
    assert_eq!(
        got,
        Some(FileOffer {
            name: "r\u{e9}sum\u{e9}.bin".to_owned(),
            data: data.clone()
        })
    );
    assert_eq!(offer(&mut t, b""), None, "taken once");
    // ST ends it too, and text after it prints.
    let mut bytes = sequence("a", None, b"xyz", "\x1b\\");
    bytes.extend_from_slice(b"after");
    let got = offer(&mut t, &bytes).expect("offered");
    assert_eq!((got.name.as_str(), got.data.as_slice()), ("a", &b"xyz"[..]));
    assert_eq!(lines(&mut t)[0], "after");
}

#[test]
fn a_file_split_across_chunks_anywhere_is_whole() {
    let data = vec![42u8; 10_000];
    let bytes = sequence("f", Some(10_000), &data, "\x07");
    for split in [1, 3, 7, 13, 20, 4096] {
        let mut t = term(1 << 20);
        for chunk in bytes.chunks(split) {
            t.advance(chunk);
        }
        let got = offer(&mut t, b"").map(|f| f.data);
        assert!(got.as_ref() == Some(&data), "split every {split}");
    }
}

#[test]
fn over_the_cap_malformed_cancelled_or_inline_is_dropped_and_the_terminal_goes_on() {
    let big = vec![1u8; 1001];
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "over the cap, size said",
            sequence("f", Some(1001), &big, "\x07"),
        ),
        ("over the cap, no size", sequence("f", None, &big, "\x07")),
        (
            "size does not match",
            sequence("f", Some(5), b"abc", "\x07"),
        ),
        (
            "bad base64",
            b"\x1b]1337;File=name=Zg==;inline=0:!!!!\x07".to_vec(),
        ),
        (
            "cut inside a character",
            b"\x1b]1337;File=name=Zg==:YWJjZ\x07".to_vec(),
        ),
        ("cancelled", sequence("f", None, b"abc", "\x18")),
        (
            "inline",
            b"\x1b]1337;File=name=Zg==;inline=1:YWJj\x07".to_vec(),
        ),
    ];
    for (what, mut bytes) in cases {
        let mut t = term(1000);
        bytes.extend_from_slice(b"ok");
        assert_eq!(offer(&mut t, &bytes), None, "{what}");
        assert_eq!(lines(&mut t)[0], "ok", "{what}: the text after prints");
    }
    let mut t = term(1000);
    let at_cap = sequence("f", None, &big[1..], "\x07");
    assert_eq!(offer(&mut t, &at_cap).map(|f| f.data.len()), Some(1000));
}

#[test]
fn without_a_cap_nothing_is_taken() {
    let mut t = Term::new(20, 5, 0);
    let mut bytes = sequence("f", None, b"abc", "\x07");
    bytes.extend_from_slice(b"ok");
    assert_eq!(offer(&mut t, &bytes), None);
    assert_eq!(lines(&mut t)[0], "ok");
}

#[test]
fn a_nameless_or_dotted_name_becomes_download() {
    let mut t = term(100);
    let got = offer(&mut t, b"\x1b]1337;File=inline=0:YWJj\x07").expect("offered");
    assert_eq!(
        (got.name.as_str(), got.data.as_slice()),
        ("download", &b"abc"[..])
    );
    let got = offer(&mut t, &sequence("..", None, b"x", "\x07")).expect("offered");
    assert_eq!(got.name, "download");
}

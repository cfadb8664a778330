//! Property test of the terminal's saved state: a byte stream split at a
//! random byte (inside an escape sequence or a UTF-8 character too), the
//! first part fed, the terminal saved and restored into a fresh one, the
//! rest fed there, leaves exactly what feeding the stream without a break
//! leaves: both screens, the scrollback's text and styles, cursor, modes,
//! title, bells, replies written back to the program (before and after the
//! break), and the published snapshot, rows, generations and style table
//! included. A fixed epilogue then shows the main screen again and asks for
//! replies, so the next bytes' effect is compared too. Some cases resize
//! the terminal before the break, so reflowed states are saved too.

use panecast::render::ScreenJson;
use panecast_term::{Modes, Style, Term};
use proptest::prelude::*;
use proptest::sample::{select, Index};

#[path = "support/streams.rs"]
mod streams;

/// The shared stream pieces, and the state this test must also carry over:
/// the title stack, colour overrides and their queries, tab stops, saved
/// cursors, charsets and the device attribute queries.
fn token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        12 => streams::token(),
        1 => select(&[
            "\x1b[22;0t",
            "\x1b[23;0t",
            "\x1b]2;second\x07",
            "\x1b]4;1;rgb:11/22/33\x07",
            "\x1b]4;1;?\x07",
            "\x1b]10;?\x07",
            "\x1b]11;#123456\x1b\\",
            "\x1bH",
            "\x1b[3g",
            "\x1b7",
            "\x1b8",
            "\x1b)0\x0e",
            "\x0f",
            "\x1b[c",
            "\x1b[>c",
            "\x1b[5n",
            "\x1b[?25l",
            "\x1b[4 q",
            "\x1b[?69h\x1b[3;10s",
            "\x1b[1;4;7;9;53m",
        ][..])
        .prop_map(|s| s.as_bytes().to_vec()),
    ]
}

/// A stream of up to `max` tokens.
fn stream(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(token(), 0..max).prop_map(|tokens| tokens.concat())
}

/// Shows the main screen, and asks for the cursor position, a mode and a
/// colour: what a program could do next.
const EPILOGUE: &[u8] = b"\x1b[?1049l\x1b[6n\x1b[?2004$p\x1b]4;1;?\x07\x1b]11;?\x07\x1b[c";

/// A run of a scrollback line: start, end (exclusive), style and link.
type Run = (usize, usize, Style, Option<String>);

/// Everything a viewer or the program could observe.
#[derive(Debug, PartialEq)]
struct Observed {
    screen: ScreenJson,
    /// The whole published snapshot, rows with their generations, the style
    /// and link tables with their stamps, the push log and counters.
    snapshot: String,
    modes: Modes,
    title: String,
    bells: u64,
    /// Each scrollback line's text and its runs of styles (with links).
    scrollback: Vec<(String, Vec<Run>)>,
}

fn observe(term: &mut Term) -> Observed {
    let snapshot = term.snapshot();
    let scrollback = (0..term.scrollback_len())
        .filter_map(|i| term.scrollback_row(i))
        .map(|row| {
            let runs = row
                .style_runs()
                .into_iter()
                .map(|(start, end, id)| {
                    let (_, style, link) = term.style_now(id);
                    (start, end, style, link.map(|l| l.uri.to_string()))
                })
                .collect();
            (row.text(), runs)
        })
        .collect();
    Observed {
        screen: ScreenJson::from_snapshot(&snapshot),
        snapshot: format!("{snapshot:?}"),
        modes: term.modes(),
        title: term.title().to_string(),
        bells: term.bells(),
        scrollback,
    }
}

/// How the host behaves at the break.
#[derive(Clone, Copy, Debug)]
struct AtBreak {
    /// Takes a snapshot before the break (viewers saw the screen).
    snapshot: bool,
    /// Takes the replies before saving (else they travel in the state).
    drain: bool,
    /// Resizes the terminal before the break (reflowing the main screen).
    resize: Option<(u16, u16)>,
}

/// Feeds `bytes` cut at `cut`, with `restore` between the parts, and
/// returns what was observed after the stream and after the epilogue, with
/// every reply in order.
fn run(
    size: (u16, u16),
    bytes: &[u8],
    cut: usize,
    at: AtBreak,
    restore: bool,
) -> (Observed, Observed, Vec<u8>) {
    let mut term = Term::new(size.0, size.1, 40);
    let mut replies = Vec::new();
    term.advance(&bytes[..cut]);
    if let Some((cols, rows)) = at.resize {
        term.resize(cols, rows);
    }
    if at.snapshot {
        term.snapshot();
    }
    if at.drain {
        replies.extend(term.take_replies());
    }
    if restore {
        term = Term::restore(&term.save()).expect("a saved state reads back");
    }
    term.advance(&bytes[cut..]);
    replies.extend(term.take_replies());
    let after = observe(&mut term);
    term.advance(EPILOGUE);
    replies.extend(term.take_replies());
    let epilogue = observe(&mut term);
    term.audit_style_counts()
        .expect("style and link counts intact");
    (after, epilogue, replies)
}

proptest! {
    /// Saving and restoring at any byte changes nothing observable.
    #[test]
    fn saving_and_restoring_anywhere_changes_nothing(
        cols in 1..=40u16,
        rows in 1..=12u16,
        bytes in stream(200),
        cut in any::<Index>(),
        snapshot in any::<bool>(),
        drain in any::<bool>(),
        resize in prop::option::weighted(0.3, (1..=40u16, 1..=12u16)),
    ) {
        let cut = cut.index(bytes.len() + 1);
        let at = AtBreak { snapshot, drain, resize };
        let unbroken = run((cols, rows), &bytes, cut, at, false);
        let restored = run((cols, rows), &bytes, cut, at, true);
        prop_assert_eq!(restored, unbroken);
    }
}

/// A break inside each kind of unfinished input: a UTF-8 character, a CSI
/// sequence, an OSC string, a DCS string and an escape's intermediate.
#[test]
fn a_break_inside_any_unfinished_input_is_carried_over() {
    let cases: [&[u8]; 5] = [
        "a\u{1F600}b".as_bytes(),
        b"\x1b[38;2;1;2;3mX",
        b"\x1b]0;a long title\x07",
        b"\x1bP$qm\x1b\\",
        b"\x1b(0qq",
    ];
    for bytes in cases {
        for cut in 0..=bytes.len() {
            let at = AtBreak {
                snapshot: true,
                drain: false,
                resize: None,
            };
            let unbroken = run((20, 3), bytes, cut, at, false);
            let restored = run((20, 3), bytes, cut, at, true);
            assert_eq!(restored, unbroken, "{bytes:?} cut at {cut}");
        }
    }
}

//! Round trips and refusals of the terminal state format.

use super::{StateError, HEADER_LEN, MAGIC, STATE_VERSION};
use crate::Term;

/// A terminal with a bit of everything, stopped in the middle of a CSI
/// sequence.
fn busy() -> Term {
    let mut term = Term::new(20, 5, 100);
    term.advance(
        b"\x1b]0;title\x07\x1b[31;1mred\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\r\n",
    );
    for i in 0..10 {
        term.advance(format!("line {i}\r\n").as_bytes());
    }
    term.advance(b"\x1b[?1049h\x1b[2;4r\x1b[3;5Halt\x1b[4");
    term
}

#[test]
fn a_state_reads_back_and_goes_on_identically() {
    let mut whole = busy();
    let mut restored = Term::restore(&whole.save()).expect("reads back");
    for term in [&mut whole, &mut restored] {
        term.advance("2mé\u{1F600}\x1b[6n".as_bytes());
    }
    assert_eq!(restored.take_replies(), whole.take_replies());
    assert_eq!(restored.title(), "title");
    let (a, b) = (whole.snapshot(), restored.snapshot());
    assert_eq!(format!("{:?}", a.lines), format!("{:?}", b.lines));
    assert_eq!(a.cursor, b.cursor);
    assert_eq!(a.modes, b.modes);
    assert_eq!(restored.scrollback_len(), whole.scrollback_len());
    restored.audit_style_counts().expect("counts intact");
}

#[test]
fn grapheme_clustering_and_a_cut_cluster_survive_a_restore() {
    let mut term = Term::new(10, 2, 0);
    term.advance("\x1b[?2027h\u{2764}".as_bytes());
    let mut restored = Term::restore(&term.save()).expect("reads back");
    restored.advance("\u{fe0f}".as_bytes());
    let snapshot = restored.snapshot();
    assert!(snapshot.modes.get(crate::Mode::GraphemeCluster));
    assert_eq!(snapshot.lines[0].cells()[0].width(), 2);
    assert_eq!(snapshot.cursor.col, 2);
}

#[test]
fn an_unknown_version_is_refused() {
    let mut state = busy().save();
    state[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&(STATE_VERSION + 1).to_le_bytes());
    let err = Term::restore(&state).err().expect("refused");
    assert_eq!(
        err,
        StateError::UnknownVersion {
            found: STATE_VERSION + 1
        }
    );
    assert!(
        err.to_string()
            .contains(&format!("version {} is not known", STATE_VERSION + 1)),
        "{err}"
    );
}

#[test]
fn other_bytes_are_not_a_state() {
    assert_eq!(Term::restore(b"").err(), Some(StateError::NotAState));
    assert_eq!(
        Term::restore(b"hello, world").err(),
        Some(StateError::NotAState)
    );
}

#[test]
fn truncation_trailing_bytes_and_corruption_are_refused() {
    let state = busy().save();
    let short = Term::restore(&state[..state.len() - 1]).err();
    assert!(
        matches!(short, Some(StateError::Truncated { .. })),
        "{short:?}"
    );
    let header_only = Term::restore(&state[..HEADER_LEN - 1]).err();
    assert!(
        matches!(header_only, Some(StateError::Truncated { .. })),
        "{header_only:?}"
    );
    let mut long = state.clone();
    long.push(0);
    assert_eq!(
        Term::restore(&long).err(),
        Some(StateError::TrailingBytes(1))
    );
    let mut flipped = state.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    assert_eq!(Term::restore(&flipped).err(), Some(StateError::Checksum));
}

#[test]
fn a_payload_of_the_wrong_shape_is_refused() {
    let payload = {
        let mut out = Vec::new();
        ciborium::into_writer(&("not", "a", "terminal"), &mut out).expect("serializes");
        out
    };
    let err = Term::restore(&super::frame(&payload)).err();
    assert!(matches!(err, Some(StateError::Decode(_))), "{err:?}");
}

mod never_panics {
    use proptest::prelude::*;

    use super::busy;
    use crate::persist::{frame, HEADER_LEN};
    use crate::Term;

    proptest! {
        /// Random bytes, with or without a valid header, are refused.
        #[test]
        fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512), framed in any::<bool>()) {
            let input = if framed { frame(&bytes) } else { bytes };
            let _ = Term::restore(&input);
        }

        /// Every truncation of a valid state is refused.
        #[test]
        fn truncations(cut in any::<prop::sample::Index>()) {
            let state = busy().save();
            let cut = cut.index(state.len());
            prop_assert!(Term::restore(&state[..cut]).is_err());
        }

        /// A valid state with bytes of its payload changed, and its checksum
        /// made to match, is decoded or refused, never a panic.
        #[test]
        fn changed_payloads(
            changes in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        ) {
            let state = busy().save();
            let mut payload = state[HEADER_LEN..].to_vec();
            for (at, byte) in changes {
                let at = at.index(payload.len());
                payload[at] = byte;
            }
            let _ = Term::restore(&frame(&payload));
        }
    }
}

#[test]
fn a_full_scrollback_costs_about_eight_bytes_a_cell() {
    let mut term = Term::new(80, 24, 1000);
    for i in 0..1100 {
        term.advance(
            format!("\x1b[3{}mline {i:>5} {}\x1b[0m\r\n", i % 8, "x".repeat(60)).as_bytes(),
        );
    }
    let cells = (1000 + 24) * 80;
    let bytes = term.save().len();
    eprintln!("{bytes} bytes for {cells} cells");
    assert!(bytes < cells * 10, "{bytes} bytes for {cells} cells");
}

#[test]
fn a_state_whose_parts_do_not_fit_is_refused() {
    let mut term = busy();
    term.emu.misplace_cursor_for_test();
    let err = Term::restore(&term.save()).err();
    assert_eq!(
        err,
        Some(StateError::Inconsistent(
            "the shown screen does not fit the size"
        ))
    );
}

/// `busy()`'s state with one field of its parser set to `value`.
fn with_parser_field(path: &[&str], value: ciborium::Value) -> Vec<u8> {
    let state = busy().save();
    let mut doc: ciborium::Value =
        ciborium::from_reader(&state[HEADER_LEN..]).expect("a saved state decodes");
    let mut at = &mut doc;
    for key in ["parser"].iter().chain(path) {
        let ciborium::Value::Map(entries) = at else {
            panic!("{key} is not in a map");
        };
        at = entries
            .iter_mut()
            .find(|(k, _)| k.as_text() == Some(key))
            .map(|(_, v)| v)
            .unwrap_or_else(|| panic!("no field {key}"));
    }
    *at = value;
    let mut payload = Vec::new();
    ciborium::into_writer(&doc, &mut payload).expect("serializes");
    super::frame(&payload)
}

#[test]
fn a_parser_holding_what_no_parser_could_is_refused() {
    let unchanged = with_parser_field(&["intermediate_len"], 0.into());
    assert!(Term::restore(&unchanged).is_ok());
    let cases = [
        (
            vec!["intermediate_len"],
            9,
            "the parser holds too many intermediates",
        ),
        (
            vec!["partial", "len"],
            4,
            "the parser holds a whole character as a partial one",
        ),
    ];
    for (path, value, reason) in cases {
        let state = with_parser_field(&path, value.into());
        assert_eq!(
            Term::restore(&state).err(),
            Some(StateError::Inconsistent(reason)),
            "{path:?}"
        );
    }
    let long = ciborium::Value::Bytes(vec![b'x'; crate::parser::MAX_OSC_BYTES + 1]);
    assert_eq!(
        Term::restore(&with_parser_field(&["osc"], long)).err(),
        Some(StateError::Inconsistent(
            "the parser holds a string longer than its bound"
        ))
    );
}

#[test]
fn an_idle_screen_saves_small() {
    let mut term = Term::new(80, 24, 10_000);
    term.advance(b"$ cat\r\n");
    let _ = term.snapshot();
    let saved = term.save();
    // Both screens, the published rows and the ring of recent pushes whole
    // were some 46 KB; without what was never written, about 6 (most of it
    // the rows' field names).
    assert!(
        saved.len() < 8 << 10,
        "an idle 80x24 terminal saves {} bytes",
        saved.len()
    );
    let restored = Term::restore(&saved).expect("restores");
    assert_eq!(restored.save(), saved);
}

#[test]
fn keyboard_flags_of_both_screens_and_modify_other_keys_are_kept() {
    let mut term = Term::new(20, 5, 100);
    term.advance(b"\x1b[>1u\x1b[>4;2m\x1b[?1049h\x1b[>27u");
    let mut restored = Term::restore(&term.save()).expect("reads back");
    let keyboard = restored.modes().keyboard();
    assert_eq!(
        (keyboard.flags.bits(), keyboard.other_keys.level()),
        (27, 2)
    );
    restored.advance(b"\x1b[?1049l");
    assert_eq!(restored.modes().keyboard().flags.bits(), 1);
}

//! Differential test: panecast's parser against `vte` (the parser the
//! design card named). The same bytes go to both and the actions must
//! agree in the normal form of `support/vte_oracle.rs`, after normalising
//! only the differences on purpose its table names. Inputs: every recorded
//! stream of the shared corpus, xterm's escape-sequence files (the
//! corpus's `xterm-escape`), every vtebench payload (whole, and cut
//! into odd-sized chunks), hand-written cases for each difference on
//! purpose, and proptest streams biased toward escape sequences.

use std::path::PathBuf;

use proptest::prelude::*;
use proptest::sample::select;

#[path = "support/streams.rs"]
mod streams;
#[path = "support/vte_oracle.rs"]
mod vte_oracle;

use vte_oracle::{compare, panecast_actions, vte_actions, Action, DIFFERENCES};

/// The shared data directory: `$PANECAST_SHARED`, else `../../shared`.
fn shared_dir() -> PathBuf {
    match std::env::var_os("PANECAST_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// The files named `*.EXT` in `dir` under the shared directory, sorted,
/// with their names.
fn shared_files(dir: &str, ext: &str) -> Vec<(String, Vec<u8>)> {
    let dir = shared_dir().join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == ext))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let name = path.file_stem().expect("a file name").to_string_lossy();
            let bytes =
                std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            (name.into_owned(), bytes)
        })
        .collect()
}

/// Cuts every `step` bytes.
fn every(step: usize, len: usize) -> Vec<usize> {
    (step..len).step_by(step).collect()
}

/// Compares every file whole and in chunks of 4093 and 61 bytes (odd sizes,
/// so cuts land inside sequences and characters); returns how many
/// actions agreed and which differences were normalised, failing on the
/// first disagreement.
fn agree_on(files: &[(String, Vec<u8>)]) -> (usize, Vec<&'static str>) {
    let mut actions = 0;
    let mut applied = Vec::new();
    for (name, bytes) in files {
        for cuts in [Vec::new(), every(4093, bytes.len()), every(61, bytes.len())] {
            let comparison = compare(bytes, &cuts);
            assert!(
                comparison.agrees(),
                "{name} (cut in {} chunks): {}",
                cuts.len() + 1,
                comparison.first_difference()
            );
            actions += comparison.panecast.len();
            for case in comparison.applied {
                if !applied.contains(&case) {
                    applied.push(case);
                }
            }
        }
    }
    (actions, applied)
}

#[test]
fn the_recorded_corpus_parses_as_vte_parses_it() {
    let mut files = shared_files("corpus/cases", "bin");
    assert!(
        files.len() >= 50,
        "expected the corpus, found {}",
        files.len()
    );
    let xterm = shared_files("corpus/xterm-escape", "in");
    assert!(
        xterm.len() >= 50,
        "expected xterm's files, found {}",
        xterm.len()
    );
    files.extend(xterm);
    let (actions, applied) = agree_on(&files);
    assert!(actions > 50_000, "only {actions} actions compared");
    eprintln!(
        "{} corpus streams and xterm files, {actions} actions agree; normalised: {applied:?}",
        files.len()
    );
}

#[test]
fn the_vtebench_payloads_parse_as_vte_parses_them() {
    let files = shared_files("bench/vtebench", "bin");
    assert!(
        files.len() >= 10,
        "expected the payloads, found {}",
        files.len()
    );
    let (actions, applied) = agree_on(&files);
    assert!(actions > 100_000, "only {actions} actions compared");
    // No payload holds a difference on purpose: they agree unnormalised.
    assert_eq!(applied, Vec::<&str>::new());
    eprintln!("{} payloads, {actions} actions agree", files.len());
}

/// Each difference on purpose, shown by the smallest input that has it:
/// the raw lists differ, the named normalisation (and no other) makes
/// them agree. A table entry no input needs would fail here.
#[test]
fn each_difference_on_purpose_is_needed_and_narrow() {
    let many_params = format!("\x1b]{}\x07", ["p"; 20].join(";"));
    let long_osc = format!("\x1b]2;{}\x1b\\", "t".repeat(9000));
    let cases: [(&str, &[u8], &[usize]); 3] = [
        // Text on both sides: vte prints one run, panecast two around the APC.
        (vte_oracle::APC_REPORTED, b"a\x1b_Ga=T;AAAA\x1b\\b", &[]),
        (
            vte_oracle::OSC_LAST_PARAM_KEEPS_REST,
            many_params.as_bytes(),
            &[],
        ),
        (vte_oracle::OSC_LENGTH_BOUND, long_osc.as_bytes(), &[]),
    ];
    assert_eq!(cases.len(), DIFFERENCES.len());
    for (name, bytes, cuts) in cases {
        assert!(
            DIFFERENCES.iter().any(|d| d.name == name),
            "{name} in the table"
        );
        assert_ne!(
            panecast_actions(bytes, cuts),
            vte_actions(bytes, cuts),
            "{name}: the parsers already agree"
        );
        let comparison = compare(bytes, cuts);
        assert!(
            comparison.agrees(),
            "{name}: {}",
            comparison.first_difference()
        );
        assert_eq!(comparison.applied, vec![name]);
    }
}

/// Why vte is fed whole: on these inputs its actions change with where a
/// chunk ends, and panecast's do not (they match vte's for the whole input).
#[test]
fn vte_is_fed_whole_because_its_actions_depend_on_chunks() {
    for &(bytes, cut, what) in vte_oracle::VTE_CHUNK_BUGS {
        assert_ne!(
            vte_actions(bytes, &[cut]),
            vte_actions(bytes, &[]),
            "{what}"
        );
        assert_eq!(
            panecast_actions(bytes, &[cut]),
            vte_actions(bytes, &[]),
            "{what}"
        );
    }
    assert_eq!(
        panecast_actions(b"a\xc2\x85b", &[2]),
        vec![
            Action::Print("a".into()),
            Action::Execute(0x85),
            Action::Print("b".into()),
        ]
    );
}

/// Pieces that open the strings and sequences the shared stream tokens
/// reach rarely.
const RARE: &[&[u8]] = &[
    b"\x1bP",
    b"\x1b_",
    b"\x1b_G",
    b"\x1b^",
    b"\x1bX",
    b"\x1b\\",
    b"\x1b]",
    b"\x9c",
    b"\x90",
    b"\x9b",
    b"\x9d",
    b"\xc2\x9c",
    b"\x1bP0;1q#0;2;0;0;0~-",
    b"\x1b[>",
    b"\x1b[?1;2;3$p",
    b"\x1b[1:2:3;4::5m",
    b"\x1b#8",
    b"\x1b (B",
    b"\x1b!!!p",
];

/// Bytes that open the strings and sequences the shared stream tokens
/// reach rarely: DCS, APC, PM, SOS, long parameter lists, 8-bit controls.
fn rare_token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        select(RARE).prop_map(<[u8]>::to_vec),
        (1usize..40).prop_map(|n| vec![b';'; n]),
        (1usize..40).prop_map(|n| vec![b':'; n]),
        (1usize..40).prop_map(|n| "9".repeat(n).into_bytes()),
    ]
}

/// A stream of shared tokens mixed with rare ones, and where to cut it.
fn stream_and_cuts() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    let piece = prop_oneof![
        3 => streams::stream(12, true),
        1 => rare_token(),
        1 => prop::collection::vec(any::<u8>(), 0..16),
    ];
    prop::collection::vec(piece, 0..24)
        .prop_map(|pieces| pieces.concat())
        .prop_flat_map(|bytes| {
            let len = bytes.len();
            let cuts = prop::collection::vec(0..=len, 0..6).prop_map(|mut cuts| {
                cuts.sort_unstable();
                cuts
            });
            (Just(bytes), cuts)
        })
}

proptest! {
    /// Random streams biased toward escape sequences, cut anywhere: the
    /// parsers agree after the table's normalisations.
    #[test]
    fn random_streams_parse_as_vte_parses_them((bytes, cuts) in stream_and_cuts()) {
        let comparison = compare(&bytes, &cuts);
        prop_assert!(comparison.agrees(), "{}", comparison.first_difference());
    }
}

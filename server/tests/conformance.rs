//! Conformance: replays every recorded stream in the shared corpus and
//! compares the screen with the reference xterm.js produced (checking the
//! style counts along the way), does the same for the project's own corpus
//! of what xterm.js does not do (`tests/corpus/`), and replays xterm's own
//! escape-sequence files against the text xterm showed.

use std::path::{Path, PathBuf};

use panecast::render::ScreenJson;
use panecast_term::Term;

/// Cases where panecast deliberately differs from the xterm.js reference.
const CASE_SKIPS: &[(&str, &str)] = &[];

/// xterm escape files skipped, with the reason. (Files named `.in_`, such as
/// t0031-HPB, are disabled upstream and not replayed at all.)
const XTERM_SKIPS: &[(&str, &str)] = &[
    ("t0055-EL", "xterm.js skips it"),
    ("t0084-CBT", "xterm.js skips it"),
    ("t0101-NLM", "xterm.js skips it"),
    ("t0103-reverse_wrap", "xterm.js skips it"),
    ("t0504-vim", "xterm.js skips it"),
];

fn shared_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("PANECAST_SHARED") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

fn files_with_suffix(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    files
}

fn name_of(path: &Path, suffix: &str) -> String {
    let file = path.file_name().unwrap().to_string_lossy();
    file.trim_end_matches(suffix).to_string()
}

#[test]
fn corpus_cases_match_the_reference() {
    let dir = shared_dir().join("corpus/cases");
    replay_cases(&dir, 50);
}

/// The project's own corpus (`server/tests/corpus/`): inline images,
/// grapheme clusters and the kitty keyboard protocol, which the xterm.js
/// reference does not do; each expected screen was established by hand
/// (see its README.md).
#[test]
fn own_corpus_cases_match_their_expected_screens() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/cases");
    replay_cases(&dir, 8);
}

/// Replays every case of `dir` (at least `min` of them) and fails with
/// every case whose screen differs from its expected one.
fn replay_cases(dir: &Path, min: usize) {
    let cases = files_with_suffix(dir, ".expected.json");
    assert!(
        cases.len() >= min,
        "expected at least {min} cases at {}",
        dir.display()
    );
    let mut failures = Vec::new();
    let mut passed = 0;
    for expected_path in &cases {
        let name = name_of(expected_path, ".expected.json");
        if CASE_SKIPS.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join(format!("{name}.json"))).unwrap())
                .unwrap();
        let expected_bytes = std::fs::read(expected_path).unwrap();
        let expected: ScreenJson = serde_json::from_slice(&expected_bytes).unwrap();
        let extra: serde_json::Value = serde_json::from_slice(&expected_bytes).unwrap();
        let bytes = std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
        let mut term = Term::new(
            meta["cols"].as_u64().unwrap() as u16,
            meta["rows"].as_u64().unwrap() as u16,
            10_000,
        );
        // Small chunks with a snapshot after each, as a session takes them:
        // every snapshot frees and reuses style ids, which must not show.
        for chunk in bytes.chunks(512) {
            term.advance(chunk);
            term.snapshot();
            if let Err(problem) = term.audit_style_counts() {
                failures.push(format!("{name}: {problem}"));
            }
        }
        let actual = ScreenJson::from_snapshot(&term.snapshot());
        let diff = compare(&expected, &actual)
            .or_else(|| compare_placements(extra.get("placements"), &actual));
        match diff {
            None => passed += 1,
            Some(diff) => failures.push(format!("{name}: {diff}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} passed, {} failed:\n{}",
        passed,
        failures.len(),
        failures.join("\n")
    );
}

/// Compares the optional `placements` field of an expected screen (each
/// image placement's top row, left column, last visible row and size in
/// pixels, bottom first) with the placements the screen shows. A case
/// without the field checks nothing here.
fn compare_placements(expected: Option<&serde_json::Value>, actual: &ScreenJson) -> Option<String> {
    let expected = expected?;
    let actual: Vec<serde_json::Value> = actual
        .images
        .iter()
        .map(|p| {
            serde_json::json!({
                "row": p.row,
                "col": p.col,
                "last_row": p.last_row,
                "width": p.width,
                "height": p.height,
            })
        })
        .collect();
    let actual = serde_json::Value::Array(actual);
    (*expected != actual)
        .then(|| format!("placements:\n  expected {expected}\n  actual   {actual}"))
}

fn compare(expected: &ScreenJson, actual: &ScreenJson) -> Option<String> {
    for (i, (e, a)) in expected.lines.iter().zip(&actual.lines).enumerate() {
        if e != a {
            return Some(format!("line {i}:\n  expected {e:?}\n  actual   {a:?}"));
        }
    }
    if expected.cursor != actual.cursor {
        return Some(format!(
            "cursor: expected {:?}, actual {:?}",
            expected.cursor, actual.cursor
        ));
    }
    if expected.alternate != actual.alternate {
        return Some(format!("alternate: expected {}", expected.alternate));
    }
    if expected.title != actual.title {
        return Some(format!(
            "title: expected {:?}, actual {:?}",
            expected.title, actual.title
        ));
    }
    for (i, (e, a)) in expected.styles.iter().zip(&actual.styles).enumerate() {
        if e != a {
            return Some(format!(
                "styles of line {i}:\n  expected {e:?}\n  actual   {a:?}"
            ));
        }
    }
    None
}

/// Turns LF into CR LF, as the pty's line discipline (ONLCR) does.
fn onlcr(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 16);
    for &b in bytes {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

#[test]
fn xterm_escape_files_match_xterm() {
    let dir = shared_dir().join("corpus/xterm-escape");
    let inputs = files_with_suffix(&dir, ".in");
    assert!(
        inputs.len() >= 70,
        "expected the escape files at {}",
        dir.display()
    );
    let mut failures = Vec::new();
    let mut passed = 0;
    for input in &inputs {
        let name = name_of(input, ".in");
        if XTERM_SKIPS.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let expected = std::fs::read_to_string(dir.join(format!("{name}.text"))).unwrap();
        let mut term = Term::new(80, 25, 10_000);
        term.advance(b"\x1bc\x1b[H");
        term.advance(&onlcr(&std::fs::read(input).unwrap()));
        let snapshot = term.snapshot();
        let actual: Vec<String> = snapshot
            .lines
            .iter()
            .map(|l| l.text().trim_end().to_string())
            .collect();
        let expected: Vec<String> = expected
            .lines()
            .map(|l| l.trim_end().to_string())
            .take(25)
            .collect();
        let mismatch =
            (0..25).find(|&i| expected.get(i).map(String::as_str).unwrap_or("") != actual[i]);
        match mismatch {
            None => passed += 1,
            Some(i) => failures.push(format!(
                "{name} line {i}:\n  expected {:?}\n  actual   {:?}",
                expected.get(i).map(String::as_str).unwrap_or(""),
                actual[i]
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} passed, {} failed:\n{}",
        passed,
        failures.len(),
        failures.join("\n")
    );
}

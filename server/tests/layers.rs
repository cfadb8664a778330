//! The layers of the server, checked by reading its source: the session
//! sits on the emulator, the pty, the recordings, input encoding, access
//! and the emulator pool, and knows nothing of the transport (the stream
//! encoders, the API) or of the cluster. From the wire's crate it takes
//! only the vocabulary its commands and state are made of, never an
//! encoder.

use std::fs;
use std::path::{Path, PathBuf};

/// The modules of this crate the session may use.
const SESSION_MAY_USE: &[&str] = &[
    "access", "input", "pool", "pty", "record", "session",
    // A leaf like the standard library: random bits for session ids.
    "random",
];

/// Modules the session still uses that it should not: each goes when its
/// use does (the test fails on an entry that is no longer used, so the
/// list only shrinks).
const SESSION_STILL_USES: &[&str] = &[
    // The scrollback answer the actor encodes for the wire
    // (`stream::answer`, `stream::ScrollbackLines`).
    "stream", // The configured limits a registry enforces (`config::Limits`).
    "config",
];

/// The wire's vocabulary the session's commands and state are made of:
/// roles, size policies, themes, mouse events, the room and the replay's
/// controls and state, and the limits on what they carry.
const PROTO_MAY_USE: &[&str] = &[
    "MemberKind",
    "MouseEvent",
    "ReplayControl",
    "ReplayMarker",
    "ReplayState",
    "Role",
    "Role::Control",
    "Room",
    "RoomEntry",
    "SizePolicy",
    "Theme",
    "limits::MAX_MARKER_LABEL",
    "limits::MAX_MEMBER_NAME",
    "limits::MAX_REPLAY_MARKERS",
    "limits::MAX_ROOM_ENTRIES",
    "limits::MAX_TITLE",
];

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).expect("the session's sources are readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found
}

/// The code of `text`: its lines but comments (docs name what they like).
fn code_of(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| line.split(" // ").next().unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a use tree at the start of `text` names, each whole
/// (`a::{b, c::d}` gives `a::b` and `a::c::d`).
fn paths(text: &str) -> Vec<String> {
    let text = text.trim_start();
    if let Some(group) = text.strip_prefix('{') {
        let mut depth = 0;
        let mut parts = Vec::new();
        let mut start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    parts.push(&group[start..i]);
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&group[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        return parts
            .into_iter()
            .filter(|part| !part.trim().is_empty())
            .flat_map(paths)
            .collect();
    }
    let head: String = text
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let rest = &text[head.len()..];
    match rest.strip_prefix("::") {
        Some(rest) if rest.starts_with(|c: char| c == '{' || c.is_alphanumeric() || c == '_') => {
            paths(rest)
                .into_iter()
                .map(|tail| format!("{head}::{tail}"))
                .collect()
        }
        _ => vec![head],
    }
}

/// The paths `code` names after each `prefix` (`crate::`, `panecast_proto::`).
fn named_after(code: &str, prefix: &str) -> Vec<String> {
    code.match_indices(prefix)
        .filter(|(at, _)| {
            let before = code[..*at].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
        })
        .flat_map(|(at, _)| paths(&code[at + prefix.len()..]))
        .collect()
}

/// The crate's modules the session's code names, with the file of each
/// (by `crate::`, or by as many `super::` as lead out of the crate's root).
fn session_uses() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let session = root.join("session");
    let mut uses = Vec::new();
    for file in sources(&session) {
        let code = code_of(&fs::read_to_string(&file).expect("a source file is readable"));
        let relative = file.strip_prefix(&root).expect("under src");
        let mut depth = relative.components().count();
        if file.file_name().is_some_and(|n| n == "mod.rs") {
            depth -= 1;
        }
        let out_of_root = "super::".repeat(depth);
        for prefix in ["crate::", out_of_root.as_str()] {
            for path in named_after(&code, prefix) {
                let module = path.split("::").next().unwrap_or_default().to_owned();
                uses.push((module, file.clone()));
            }
        }
    }
    uses
}

#[test]
fn the_session_uses_only_the_layers_below_it() {
    let uses = session_uses();
    let wrong: Vec<_> = uses
        .iter()
        .filter(|(module, _)| {
            !SESSION_MAY_USE.contains(&module.as_str())
                && !SESSION_STILL_USES.contains(&module.as_str())
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "the session uses modules above it or beside it: {wrong:?}"
    );
}

#[test]
fn the_modules_the_session_still_should_not_use_are_all_still_used() {
    let uses = session_uses();
    for module in SESSION_STILL_USES {
        assert!(
            uses.iter().any(|(used, _)| used == module),
            "the session no longer uses `{module}`: strike it from SESSION_STILL_USES"
        );
    }
}

#[test]
fn the_session_takes_only_the_wires_vocabulary() {
    let session = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/session");
    let mut wrong = Vec::new();
    for file in sources(&session) {
        let code = code_of(&fs::read_to_string(&file).expect("a source file is readable"));
        for path in named_after(&code, "panecast_proto::") {
            if !PROTO_MAY_USE.contains(&path.as_str()) {
                wrong.push((path, file.clone()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the session takes more of the wire: {wrong:?}"
    );
}

#[test]
fn use_trees_are_read_whole() {
    assert_eq!(paths("a::{b, c::{d, e}};"), ["a::b", "a::c::d", "a::c::e"]);
    assert_eq!(paths("stream::answer(term)"), ["stream::answer"]);
    assert_eq!(
        named_after("x; super::super::pty::Pty", "super::super::"),
        ["pty::Pty"]
    );
    assert!(named_after("y::super::super::pty", "super::super::").is_empty());
}

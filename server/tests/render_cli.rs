//! `panecast render` as a user runs it: the real binary, every format, input
//! from a file or standard input, and the errors bad arguments give.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// A small screen: a title, a coloured word, a wide character.
const INPUT: &[u8] = "\x1b]2;demo\x07\x1b[31mred\x1b[m <plain>\r\n中文".as_bytes();

/// Runs `panecast render ARGS` with `stdin` as standard input.
fn render(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_panecast"))
        .arg("render")
        .args(args)
        .env_remove("PANECAST_COLS")
        .env_remove("PANECAST_ROWS")
        .env_remove("PANECAST_FORMAT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the panecast binary runs");
    // Dropping the handle after writing closes standard input.
    let mut input = child.stdin.take().expect("stdin is piped");
    // The child may exit early on bad arguments without reading: ignore EPIPE.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("panecast finishes")
}

/// Standard output of a successful run.
fn stdout_of(args: &[&str], stdin: &[u8]) -> String {
    let out = render(args, stdin);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "{args:?} wrote to stderr");
    String::from_utf8(out.stdout).expect("output is UTF-8")
}

/// The error of a failed run: it exits non-zero, prints nothing on stdout,
/// and states the error on one line of stderr (clap may add its usual
/// "For more information, try '--help'." hint after it).
fn error_of(args: &[&str]) -> String {
    let out = render(args, INPUT);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
    let stderr = String::from_utf8(out.stderr).expect("stderr is UTF-8");
    let mut lines = stderr.lines().filter(|l| !l.trim().is_empty());
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("{args:?} printed no error"));
    assert!(
        first.starts_with("error: ") || first.starts_with("panecast: "),
        "{first}"
    );
    for line in lines {
        assert!(
            line.starts_with("For more information"),
            "extra line: {line}"
        );
    }
    first.to_string()
}

fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, contents).expect("temporary file");
    path
}

#[test]
fn text_is_the_trimmed_lines() {
    let out = stdout_of(&["--cols", "20", "--rows", "3", "--format", "text"], INPUT);
    assert_eq!(out, "red <plain>\n中文\n\n");
}

#[test]
fn json_is_the_screen_json() {
    let out = stdout_of(&["--cols", "20", "--rows", "3", "--format", "json"], INPUT);
    let json: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(json["cols"], 20);
    assert_eq!(json["rows"], 3);
    assert_eq!(json["title"], "demo");
    assert_eq!(json["lines"][0], "red <plain>");
    assert_eq!(json["styles"][0][0], serde_json::json!([0, 3, "fg:1"]));
    assert_eq!(json["cursor"], serde_json::json!({"row": 1, "col": 4}));
}

#[test]
fn ansi_redraws_the_same_screen() {
    let size = ["--cols", "20", "--rows", "3"];
    let ansi = stdout_of(&[&size[..], &["--format", "ansi"]].concat(), INPUT);
    assert!(
        ansi.starts_with("\x1b[?25l\x1b[0m\x1b[H\x1b[2J"),
        "{ansi:?}"
    );
    assert!(
        ansi.contains("\x1b[0;31m\x1b[1Hred\x1b[0m <plain>"),
        "{ansi:?}"
    );
    let json = |bytes: &[u8]| stdout_of(&[&size[..], &["--format", "json"]].concat(), bytes);
    assert_eq!(json(ansi.as_bytes()), json(INPUT));
}

#[test]
fn html_is_a_pre_fragment() {
    let out = stdout_of(&["--cols", "20", "--rows", "3", "--format", "html"], INPUT);
    assert!(out.starts_with("<pre class=\"panecast\" style=\""), "{out}");
    assert!(
        out.contains("><span style=\"color:#cd0000\">red</span> &lt;plain&gt;\n中文\n</pre>"),
        "{out}"
    );
}

#[test]
fn svg_is_an_image_of_the_screen() {
    let out = stdout_of(&["--cols", "20", "--rows", "3", "--format", "svg"], INPUT);
    assert!(
        out.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"168\" height=\"51\""),
        "{out}"
    );
    assert!(out.contains("<title>demo</title>"), "{out}");
    assert!(out.contains(">&lt;plain&gt;</text>"), "{out}");
    assert!(out.contains("class=\"cursor\""), "{out}");
    assert!(out.ends_with("</svg>\n"), "{out}");
}

#[test]
fn the_default_is_text_at_80_by_24() {
    let out = stdout_of(&[], INPUT);
    assert_eq!(out.lines().count(), 24);
    assert!(out.starts_with("red <plain>\n"));
}

#[test]
fn input_comes_from_a_file_or_standard_input() {
    let path = temp_file("render_cli_input.bin", INPUT);
    let path = path.to_str().expect("UTF-8 temporary path");
    let from_file = stdout_of(&["--format", "json", path], b"ignored");
    assert_eq!(stdout_of(&["--format", "json", "-"], INPUT), from_file);
    assert_eq!(stdout_of(&["--format", "json"], INPUT), from_file);
}

#[test]
fn an_unreadable_file_is_an_error() {
    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("render_cli_missing.bin");
    let missing = missing.to_str().expect("UTF-8 temporary path");
    let error = error_of(&[missing]);
    assert!(
        error.contains("cannot read") && error.contains(missing),
        "{error}"
    );
    let dir = error_of(&[env!("CARGO_TARGET_TMPDIR")]);
    assert!(dir.contains("cannot read"), "{dir}");
}

#[test]
fn bad_sizes_are_errors() {
    for (args, value) in [
        (vec!["--cols", "0"], "0"),
        (vec!["--cols", "1001"], "1001"),
        (vec!["--rows", "abc"], "abc"),
        (vec!["--rows=-3"], "-3"),
    ] {
        let error = error_of(&args);
        assert!(error.contains(value) && error.contains("1000"), "{error}");
    }
}

#[test]
fn an_unknown_format_lists_the_known_ones() {
    let error = error_of(&["--format", "bogus"]);
    assert!(error.contains("bogus"), "{error}");
    assert!(error.contains("text, json, ansi, html or svg"), "{error}");
}

/// A recording: "one" at 1 s, a resize to 12x3 at 2 s, "two" at 3 s.
const CAST: &str = concat!(
    "{\"version\": 2, \"width\": 10, \"height\": 2, \"title\": \"demo\"}\n",
    "[1.0, \"o\", \"one\"]\n",
    "[2.0, \"r\", \"12x3\"]\n",
    "[3.0, \"o\", \"\\r\\ntwo \\u001b[1mbold\"]\n",
);

#[test]
fn recordings_are_detected_by_their_header_and_rendered_at_a_moment() {
    let text = |args: &[&str]| stdout_of(args, CAST.as_bytes());
    assert_eq!(text(&[]), "one\ntwo bold\n\n");
    assert_eq!(text(&["--at", "1.5"]), "one\n\n");
    assert_eq!(text(&["--at", "0"]), "\n\n");
    let json: serde_json::Value =
        serde_json::from_str(&text(&["--at", "2.5", "--format", "json"])).expect("json");
    assert_eq!(
        (json["cols"].as_u64(), json["rows"].as_u64()),
        (Some(12), Some(3))
    );
    let svg = text(&["--at", "3", "--format", "svg"]);
    assert!(
        svg.starts_with("<svg") && svg.contains("bold"),
        "{svg:.200}"
    );
}

#[test]
fn at_needs_a_recording_and_a_time() {
    assert!(error_of(&["--at", "1"]).contains("asciicast"));
    assert!(error_of(&["--at=-1"]).contains("seconds"));
    assert!(error_of(&["--at", "soon"]).contains("seconds"));
}

#[test]
fn a_header_longer_than_the_first_read_is_still_a_recording() {
    // The binary reads 16 KiB at a time; a header runs up to 64 KiB.
    let title = "t".repeat(40_000);
    let cast = format!(
        "{{\"version\": 2, \"width\": 12, \"height\": 3, \"title\": \"{title}\"}}\n\
         [0.5, \"o\", \"one\"]\n"
    );
    assert_eq!(stdout_of(&[], cast.as_bytes()), "one\n\n\n");
    // Raw bytes that merely start with a brace are fed to the terminal
    // whole: 40,000 characters fill 400 rows of 100 exactly.
    let raw = format!("{{{}\r\nend", "x".repeat(39_999));
    let out = stdout_of(&["--cols", "100", "--rows", "2"], raw.as_bytes());
    assert_eq!(out, format!("{}\nend\n", "x".repeat(100)));
}

//! The request span cannot be used to forge log fields: the path is an
//! escaped string field in the text and in the JSON logs.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use crate::common::process::startup_line;

/// A path with a quote and a `key=value` after it, as a client may send
/// it unencoded.
const FORGED: &str = r#"/api/forged"level=ERROR"#;

/// Runs the binary with `format` logs, sends one request for [`FORGED`],
/// stops it, and returns its standard error.
fn logs(format: &str) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_panecast"));
    for (name, _) in std::env::vars() {
        if name.starts_with("PANECAST_") {
            command.env_remove(name);
        }
    }
    let mut child = command
        .args(["serve", "--listen", "127.0.0.1:0", "--log-format", format])
        .env("PANECAST_TOKEN", "logs-test-token-0123")
        .env("RUST_LOG", "debug")
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the panecast binary");
    let addr = startup_line(&mut child).1.expect("the listening address");
    let mut stream = TcpStream::connect(addr).expect("connect");
    write!(
        stream,
        "GET {FORGED} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    // SAFETY: kill only sends SIGTERM to the server this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read logs");
    stderr
}

#[test]
fn a_forged_path_is_logged_quoted_and_escaped_in_text_logs() {
    let stderr = logs("text");
    let answered: Vec<&str> = stderr.lines().filter(|l| l.contains("answered")).collect();
    assert_eq!(answered.len(), 1, "{stderr}");
    assert!(
        answered[0].contains(r#"path="/api/forged\"level=ERROR""#),
        "the path is one quoted field: {}",
        answered[0]
    );
}

#[test]
fn a_forged_path_is_one_string_field_in_json_logs() {
    let stderr = logs("json");
    let answered: Vec<serde_json::Value> = stderr
        .lines()
        .filter(|l| l.contains("answered"))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(answered.len(), 1, "{stderr}");
    let event = &answered[0];
    let path = event["span"]["path"]
        .as_str()
        .or_else(|| event["spans"][0]["path"].as_str());
    assert_eq!(path, Some(FORGED), "{event}");
    assert_ne!(event["level"], "ERROR");
}

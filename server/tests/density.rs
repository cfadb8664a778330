//! Density: a server with 1,000 idle `cat` sessions (each with a uid of
//! its own) has no more than 2 x cores + 8 threads and no more than 2
//! descriptors per session (its pty master, and its uid's lock file), and
//! every session still echoes. The reduced scale of `bench/sessions.sh`.

mod common;

use std::time::{Duration, Instant};

use common::process::ServerProcess;
use serde_json::{json, Value};

const TOKEN: &str = "density-test-token";
/// Sessions created.
const SESSIONS: usize = 1000;
/// How long the test waits for a screen to show what it should.
const WAIT: Duration = Duration::from_secs(30);

/// A config for `SESSIONS` sessions with uids of their own, homes in `dir`.
fn config(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("density.toml");
    let text = format!(
        "session_uids = [70000, 71999]\nsession_homes = \"{}\"\n[limits]\nmax_sessions = {}\n",
        dir.join("homes").display(),
        SESSIONS + 10
    );
    std::fs::write(&path, text).expect("write the config");
    path
}

/// A figure of the server's `/proc/PID/status` (`Threads:`).
fn status(server: &ServerProcess, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id()))
        .expect("the server's /proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc status"))
}

/// The server's open descriptors.
fn fds(server: &ServerProcess) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", server.child.id()))
        .expect("the server's /proc fd")
        .count()
}

fn create(server: &ServerProcess) -> String {
    let body = json!({ "command": ["cat"], "cols": 80, "rows": 24 }).to_string();
    let response = server.call("POST", "/api/sessions", Some(&body));
    assert_eq!(response.status, 201, "create: {}", response.body);
    response.json()["id"].as_str().expect("an id").to_owned()
}

/// Types `text` into session `id` and waits for its echo on the screen.
fn echoes(server: &ServerProcess, id: &str, text: &str) {
    let body = json!({ "text": text }).to_string();
    let response = server.call("POST", &format!("/api/sessions/{id}/input"), Some(&body));
    assert_eq!(response.status, 204, "input: {}", response.body);
    let start = Instant::now();
    loop {
        let screen = server.call("GET", &format!("/api/sessions/{id}/screen"), None);
        if screen.body.contains(text) {
            return;
        }
        assert!(start.elapsed() < WAIT, "no echo of {text} in {id}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_thousand_idle_sessions_take_bounded_threads_and_one_or_two_fds_each() {
    let dir = std::env::temp_dir().join(format!("panecast-density-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let config = config(&dir);
    let server = ServerProcess::start_with(TOKEN, &["--config", config.to_str().expect("utf-8")]);
    let first = create(&server);
    echoes(&server, &first, "warm");
    let fds_before = fds(&server);

    let mut ids = vec![first];
    for _ in 1..SESSIONS {
        ids.push(create(&server));
    }
    let list = server.call("GET", "/api/sessions", None);
    assert_eq!(list.status, 200);
    let listed: Value = list.json();
    let running = listed
        .as_array()
        .or_else(|| listed["sessions"].as_array())
        .expect("a list of sessions")
        .len();
    assert_eq!(running, SESSIONS, "every session is listed");

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let threads = status(&server, "Threads:");
    let added = fds(&server) - fds_before;
    eprintln!(
        "{SESSIONS} sessions: {threads} threads ({cores} cores), {:.2} fds per session",
        added as f64 / (SESSIONS - 1) as f64
    );
    assert!(
        threads <= 2 * cores + 8,
        "{threads} threads for {SESSIONS} sessions on {cores} cores"
    );
    assert!(
        added <= 2 * (SESSIONS - 1),
        "{added} descriptors for {} sessions",
        SESSIONS - 1
    );
    // The first, the middle and the last session still echo.
    for (n, id) in [&ids[0], &ids[SESSIONS / 2], &ids[SESSIONS - 1]]
        .into_iter()
        .enumerate()
    {
        echoes(&server, id, &format!("echo-{n}"));
    }
    // SIGTERM ends every session (their homes and uids with them).
    // SAFETY: kill sends a signal to the server, our child, not yet reaped.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) };
    let mut server = server;
    let start = Instant::now();
    while server
        .child
        .try_wait()
        .expect("the server's status")
        .is_none()
    {
        assert!(start.elapsed() < WAIT, "the server did not end on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

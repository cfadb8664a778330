//! What the end-to-end tests share: the real server started in-process on
//! an ephemeral loopback port, a minimal blocking HTTP/1.1 client, polling
//! with a deadline, and process inspection through /proc.

#![allow(dead_code)] // Each test binary uses a different part of this module.

pub mod cluster;
pub mod http;
pub mod isolation;
pub mod netsim;
pub mod process;
pub mod sse;
pub mod ws;

use std::net::SocketAddr;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use panecast::api::{serve, Settings};
use panecast::config::Config;
use serde_json::Value;
use tokio::sync::oneshot;

pub use http::{http, Response};

/// How long any wait may last before the test fails. Generous: the machine
/// may be loaded, and polling returns as soon as the condition holds.
pub const DEADLINE: Duration = Duration::from_secs(10);
/// How long a test waits for a flood it started only to set a session up
/// (filling a scrollback) to be parsed. Floods run at a low priority (the
/// emulator pool's bulk lane, niceness 10), so on a loaded machine a debug
/// build may take longer than [`DEADLINE`]; the test's assertions never
/// rest on this wait.
pub const FLOOD_WAIT: Duration = Duration::from_secs(120);
const POLL: Duration = Duration::from_millis(20);
pub const TOKEN: &str = "test-token-0123456789";

/// The address in the line `panecast serve` prints first
/// (`... http://127.0.0.1:PORT/?token=...`), for tests that run the binary.
pub fn address_in_startup_line(line: &str) -> SocketAddr {
    line.split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|addr| addr.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
}

/// A running server; dropping it shuts it down and waits for it to end.
pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// A configuration for tests: short grace and linger times.
pub fn test_config() -> Config {
    let mut config = Config::default();
    config.limits.grace_ms = 300;
    config.limits.linger_secs = 60;
    config
}

impl Server {
    /// Starts a server with `--allow-any-command`.
    pub fn start(config: Config) -> Server {
        Server::start_with(config, true)
    }

    pub fn start_with(config: Config, allow_any_command: bool) -> Server {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        listener
            .set_nonblocking(true)
            .expect("nonblocking listener");
        let addr = listener.local_addr().expect("local address");
        let (stop, stopped) = oneshot::channel::<()>();
        let settings = Settings {
            config,
            token: TOKEN.to_owned(),
            allow_any_command,
        };
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("tokio runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
                let shutdown = async move {
                    let _ = stopped.await;
                };
                serve(settings, listener, shutdown).await.expect("serve");
            });
            runtime.shutdown_timeout(Duration::from_secs(1));
        });
        Server {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Shuts the server down and waits until `serve` has returned.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// A request with the bearer token.
    pub fn call(&self, method: &str, path: &str, body: Option<&str>) -> Response {
        let auth = format!("Bearer {TOKEN}");
        http(
            self.addr,
            method,
            path,
            &[("Authorization", &auth)],
            body.map(str::as_bytes),
        )
    }

    /// A request with any headers and no token unless given.
    pub fn raw(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> Response {
        http(self.addr, method, path, headers, body)
    }

    /// Creates a session running `argv` (with extra JSON fields), expecting 201.
    pub fn create(&self, argv: &[&str], extra: Value) -> Value {
        let mut body = serde_json::json!({ "command": argv });
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        let response = self.call("POST", "/api/sessions", Some(&body.to_string()));
        assert_eq!(response.status, 201, "create {argv:?}: {}", response.body);
        response.json()
    }

    /// The screen as text.
    pub fn screen(&self, id: &str) -> String {
        let response = self.call("GET", &format!("/api/sessions/{id}/screen"), None);
        assert_eq!(response.status, 200, "screen: {}", response.body);
        response.body
    }

    /// The screen as the screen JSON (`?format=json`).
    pub fn screen_json(&self, id: &str) -> Value {
        let response = self.call(
            "GET",
            &format!("/api/sessions/{id}/screen?format=json"),
            None,
        );
        assert_eq!(response.status, 200, "screen: {}", response.body);
        response.json()
    }

    /// The session object.
    pub fn session(&self, id: &str) -> Value {
        let response = self.call("GET", &format!("/api/sessions/{id}"), None);
        assert_eq!(response.status, 200, "session: {}", response.body);
        response.json()
    }

    /// Types `line` into a shell session, then an echo of marker `n`
    /// (quoted so that the typed line does not show it), and waits for the
    /// marker's line: `line` has run.
    pub fn run_line(&self, id: &str, line: &str, n: u32) {
        let body = serde_json::json!({ "text": format!("{line}; echo 'DO''NE{n}'\r") }).to_string();
        let r = self.call("POST", &format!("/api/sessions/{id}/input"), Some(&body));
        assert_eq!(r.status, 204, "{}", r.body);
        let marker = format!("DONE{n}");
        self.wait_screen(id, &marker, |s| {
            s.lines().any(|l| l.trim_end().ends_with(&marker))
        });
    }

    /// Polls the screen until `done` holds, and returns it.
    pub fn wait_screen(&self, id: &str, what: &str, done: impl Fn(&str) -> bool) -> String {
        self.wait_screen_within(id, what, DEADLINE, done)
    }

    /// [`Self::wait_screen`], failing after `within` instead of [`DEADLINE`].
    pub fn wait_screen_within(
        &self,
        id: &str,
        what: &str,
        within: Duration,
        done: impl Fn(&str) -> bool,
    ) -> String {
        let mut last = String::new();
        eventually_within(what, within, || {
            last = self.screen(id);
            done(&last).then(|| last.clone())
        })
    }

    /// Polls the session until its child has exited, and returns it.
    pub fn wait_exit(&self, id: &str) -> Value {
        eventually("the session to exit", || {
            let session = self
                .call("GET", &format!("/api/sessions/{id}"), None)
                .json();
            (session["running"] == false).then_some(session)
        })
    }

    pub fn delete(&self, id: &str) -> Response {
        self.call("DELETE", &format!("/api/sessions/{id}"), None)
    }

    /// Waits for the line `bg=PID` the tests' commands print, and returns PID.
    pub fn background_pid(&self, id: &str) -> u32 {
        let screen = self.wait_screen(id, "the background pid", |s| s.contains("bg="));
        screen
            .split("bg=")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|pid| pid.parse().ok())
            .expect("a pid after bg=")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The id of a session object.
pub fn session_id(session: &Value) -> String {
    session["id"].as_str().expect("an id").to_owned()
}

/// Calls `check` every 20 ms until it returns `Some`, failing after the deadline.
pub fn eventually<T>(what: &str, check: impl FnMut() -> Option<T>) -> T {
    eventually_within(what, DEADLINE, check)
}

/// [`eventually`], failing after `within`.
pub fn eventually_within<T>(
    what: &str,
    within: Duration,
    mut check: impl FnMut() -> Option<T>,
) -> T {
    let start = Instant::now();
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(start.elapsed() < within, "timed out waiting for {what}");
        std::thread::sleep(POLL);
    }
}

/// Processes of group `pgid` that are alive (zombies are dead, just not reaped).
pub fn live_group_members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| process_stat(pid).is_some_and(|(state, pgrp)| pgrp == pgid && state != 'Z'))
        .collect()
}

/// True while `pid` exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    process_stat(pid).is_some_and(|(state, _)| state != 'Z')
}

/// The state letter and process group of a process.
fn process_stat(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields follow the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// Open descriptors of this process.
pub fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |dir| dir.count())
}

/// The differences between the model and the screen JSON (lines with
/// trailing spaces trimmed, size, cursor, title); empty when they agree.
pub fn differences(model: &ws::Model, screen: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let lines: Vec<String> = screen["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l.as_str().expect("a line").trim_end().to_owned())
        .collect();
    let ours = model.text();
    if ours != lines {
        for (r, (a, b)) in ours.iter().zip(&lines).enumerate() {
            if a != b {
                out.push(format!("row {r}: model {a:?}, screen {b:?}"));
            }
        }
        if ours.len() != lines.len() {
            out.push(format!(
                "{} rows in the model, {} on the screen",
                ours.len(),
                lines.len()
            ));
        }
    }
    let size = (screen["cols"].as_u64(), screen["rows"].as_u64());
    if size != (Some(model.cols as u64), Some(model.rows as u64)) {
        out.push(format!(
            "size: model {}x{}, screen {size:?}",
            model.cols, model.rows
        ));
    }
    let cursor = (
        screen["cursor"]["row"].as_u64(),
        screen["cursor"]["col"].as_u64(),
    );
    if cursor != (Some(model.cursor.row as u64), Some(model.cursor.col as u64)) {
        out.push(format!(
            "cursor: model {:?}, screen {cursor:?}",
            model.cursor
        ));
    }
    if screen["title"].as_str() != Some(model.title.as_str()) {
        out.push(format!(
            "title: model {:?}, screen {}",
            model.title, screen["title"]
        ));
    }
    out
}

/// Reads until the model equals `/screen` (which must have stopped
/// changing), re-reading the screen as it goes.
pub async fn converge(server: &Server, id: &str, client: &mut ws::Client, what: &str) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let screen = server.screen_json(id);
        let diff = differences(&client.model, &screen);
        if diff.is_empty() {
            return;
        }
        let step = (tokio::time::Instant::now() + Duration::from_millis(50)).min(deadline);
        let stuck = client.closed.is_some() || tokio::time::Instant::now() >= deadline;
        if stuck || (client.next(step).await.is_none() && client.closed.is_some()) {
            // One last look: the screen may have changed since it was read.
            let diff = differences(&client.model, &server.screen_json(id));
            if !diff.is_empty() {
                panic!(
                    "{what}: the model did not converge to /screen (closed: {:?}):\n{}",
                    client.closed,
                    diff.join("\n")
                );
            }
            return;
        }
    }
}

//! `panecast serve` run as a child process, for the tests that watch the
//! server's own memory or its exit: started on an ephemeral loopback port
//! with `--allow-any-command` and a token, and killed when dropped.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use super::http::{http, Response};

/// Waits for the line a started `panecast serve` prints first (its
/// stdout piped): the line (empty when the server exited without one), and
/// the address in it when there is one.
pub fn startup_line(child: &mut Child) -> (String, Option<SocketAddr>) {
    let mut line = String::new();
    let stdout = child.stdout.take().expect("piped stdout");
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the startup line");
    let addr = (!line.is_empty()).then(|| super::address_in_startup_line(&line));
    (line, addr)
}

/// The server binary running as a child of the test.
pub struct ServerProcess {
    /// The child process.
    pub child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    token: String,
}

impl ServerProcess {
    /// Starts the server with `token` and waits for its startup line.
    pub fn start(token: &str) -> ServerProcess {
        ServerProcess::start_from(env!("CARGO_BIN_EXE_panecast").as_ref(), token, &[])
    }

    /// Starts the server with `token` and more arguments (`--config F`),
    /// and waits for its startup line.
    pub fn start_with(token: &str, args: &[&str]) -> ServerProcess {
        ServerProcess::start_from(env!("CARGO_BIN_EXE_panecast").as_ref(), token, args)
    }

    /// Starts the server from `binary` with `token` and `extra` arguments,
    /// and waits for its startup line.
    pub fn start_from(binary: &std::path::Path, token: &str, extra: &[&str]) -> ServerProcess {
        let mut child = Command::new(binary)
            .args(["serve", "--listen", "127.0.0.1:0", "--token", token])
            .arg("--allow-any-command")
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start panecast serve");
        let (_, addr) = startup_line(&mut child);
        let addr = addr.expect("the listening address");
        ServerProcess {
            child,
            addr,
            token: token.to_owned(),
        }
    }

    /// One request with the server's token.
    pub fn call(&self, method: &str, path: &str, body: Option<&str>) -> Response {
        let auth = format!("Bearer {}", self.token);
        http(
            self.addr,
            method,
            path,
            &[("Authorization", &auth)],
            body.map(str::as_bytes),
        )
    }

    /// The session's screen as text (`?format=text`).
    pub fn screen(&self, id: &str) -> String {
        let response = self.call(
            "GET",
            &format!("/api/sessions/{id}/screen?format=text"),
            None,
        );
        assert_eq!(response.status, 200, "{}", response.body);
        response.body
    }

    /// Waits until the session's screen satisfies `done`, and returns it.
    pub fn wait_screen(&self, id: &str, what: &str, done: impl Fn(&str) -> bool) -> String {
        super::eventually(what, || {
            let text = self.screen(id);
            done(&text).then_some(text)
        })
    }

    /// The session object.
    pub fn session(&self, id: &str) -> serde_json::Value {
        let response = self.call("GET", &format!("/api/sessions/{id}"), None);
        assert_eq!(response.status, 200, "{}", response.body);
        response.json()
    }

    /// Resident memory in bytes.
    pub fn rss(&self) -> u64 {
        self.memory("VmRSS:")
    }

    /// A memory figure of /proc/PID/status (`VmRSS:`, `VmHWM:`) in bytes.
    pub fn memory(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the server's /proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
            .unwrap_or_else(|| panic!("{field} in /proc status"))
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

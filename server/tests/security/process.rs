//! The real binary: children cannot read the admin token from the server's
//! /proc entries, the startup line prints only a generated token, and no
//! token, cookie or query string ever reaches the logs, which hold the
//! audit lines.

use std::io::Read;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::process::startup_line;
use crate::common::{eventually, http};

const ADMIN: &str = "admin-secret-for-the-proc-test";

struct Binary {
    child: Child,
    addr: SocketAddr,
}

impl Binary {
    fn start(args: &[&str], env: &[(&str, &str)]) -> (Binary, String) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_panecast"))
            .args(["serve", "--listen", "127.0.0.1:0", "--allow-any-command"])
            .args(args)
            .envs(env.iter().copied())
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the panecast binary");
        let (line, addr) = startup_line(&mut child);
        let addr = addr.expect("the listening address");
        (Binary { child, addr }, line)
    }

    fn call(&self, token: &str, method: &str, path: &str, body: Option<Value>) -> http::Response {
        let auth = format!("Bearer {token}");
        let body = body.map(|b| b.to_string());
        http(
            self.addr,
            method,
            path,
            &[("Authorization", &auth)],
            body.as_deref().map(str::as_bytes),
        )
    }

    /// Stops the server and returns everything it logged.
    fn stop(mut self) -> String {
        // SAFETY: kill only sends SIGTERM to the server this test started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
        let mut logs = String::new();
        if let Some(mut stderr) = self.child.stderr.take() {
            let _ = stderr.read_to_string(&mut logs);
        }
        logs
    }
}

#[test]
fn children_cannot_read_the_token_and_logs_never_hold_one() {
    let (server, startup) = Binary::start(&[], &[("PANECAST_TOKEN", ADMIN)]);
    assert!(
        !startup.contains(ADMIN),
        "a supplied token is not printed: {startup}"
    );
    let id = read_parent(&server);

    // Use every kind of credential, and a wrong one, so the logs have
    // something to hold.
    let link = server.call(
        ADMIN,
        "POST",
        &format!("/api/sessions/{id}/links"),
        Some(json!({"role": "view"})),
    );
    let link_token = link.json()["token"].as_str().expect("token").to_owned();
    let link_id = link.json()["id"].as_str().expect("id").to_owned();
    assert_eq!(
        server
            .call(
                &link_token,
                "GET",
                &format!("/api/sessions/{id}/screen?format=json"),
                None
            )
            .status,
        200
    );
    assert_eq!(
        server
            .call(
                "wrong-token-value",
                "GET",
                "/api/sessions?token=query-secret",
                None
            )
            .status,
        401
    );
    let page = http(server.addr, "GET", &format!("/?token={ADMIN}"), &[], None);
    assert_eq!(page.status, 303);
    assert_eq!(
        server
            .call(
                ADMIN,
                "DELETE",
                &format!("/api/sessions/{id}/links/{link_id}"),
                None
            )
            .status,
        204
    );
    assert_eq!(
        server
            .call(ADMIN, "DELETE", &format!("/api/sessions/{id}"), None)
            .status,
        200
    );
    std::thread::sleep(Duration::from_millis(100));
    let logs = server.stop();

    for secret in [
        ADMIN,
        link_token.as_str(),
        "wrong-token-value",
        "query-secret",
    ] {
        assert!(
            !logs.contains(secret),
            "a secret reached the logs: {secret}\n{logs}"
        );
    }
    for event in [
        "auth_failed",
        "link_minted",
        "link_revoked",
        "session_created",
        "session_deleted",
    ] {
        assert!(
            logs.contains(&format!("event=\"{event}\""))
                || logs.contains(&format!("event={event}")),
            "no {event} line:\n{logs}"
        );
    }
    assert!(logs.contains(&format!("link=\"{link_id}\"")), "{logs}");
    assert!(logs.contains("peer=127.0.0.1"), "{logs}");
    assert!(
        logs.contains("path=\"/api/sessions\""),
        "the full path, without the query: {logs}"
    );
}

/// Starts a session that prints its parent's (the server's) environment
/// and command line, checks the token is not among them, and returns it.
fn read_parent(server: &Binary) -> String {
    let created = server.call(ADMIN, "POST", "/api/sessions", Some(json!({
        "command": ["sh", "-c", "cat /proc/$PPID/environ /proc/$PPID/cmdline 2>&1 | tr '\\0' ' ' | fold -w 70; echo; echo done-reading; exec cat"],
        "cols": 80,
        "rows": 60
    })));
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.json()["id"].as_str().expect("id").to_owned();
    let screen = eventually("the child to read /proc", || {
        let s = server
            .call(ADMIN, "GET", &format!("/api/sessions/{id}/screen"), None)
            .body;
        s.contains("done-reading").then_some(s)
    });
    let flat: String = screen.split_whitespace().collect();
    assert!(
        !flat.contains(ADMIN),
        "the token leaked to a child:\n{screen}"
    );
    assert!(
        screen.contains("serve") || screen.contains("Permission denied"),
        "it read something: {screen}"
    );
    id
}

#[test]
fn a_token_on_the_command_line_is_warned_about() {
    let (server, startup) = Binary::start(&["--token", ADMIN], &[]);
    assert!(!startup.contains(ADMIN), "{startup}");
    read_parent(&server);
    let logs = server.stop();
    assert!(logs.contains("command line"), "{logs}");
    assert!(!logs.contains(ADMIN), "{logs}");
}

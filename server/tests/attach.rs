//! `panecast attach` as a person uses it: the real binary in a tmux pane
//! of a fixed size (the local terminal), keys typed with `tmux send-keys`,
//! the pane read with `tmux capture-pane`. The pane shows the same screen
//! as `GET /screen?format=text`, keys typed in it reach the program, the
//! window's size drives the session's, the detach key exits 0 with the
//! terminal restored, the end of the session exits 0 with its reason, a
//! view link cannot type and its revocation ends the attach; bad URLs and
//! refused credentials fail with one line and their exit codes. Every
//! wait is for a condition (tests/run.sh installs tmux).
//!
//! The server is the binary in a process of its own: a server in this
//! process would reap the tmux clients it runs (it reaps orphans).

mod common;

use std::process::{Command, Output, Stdio};

use common::process::ServerProcess;
use common::{eventually, TOKEN};
use serde_json::json;
use tmux::{trimmed, Tmux, COLS, ROWS};

#[path = "attach/tmux.rs"]
mod tmux;

/// The server, the binary `cargo test` built.
fn server() -> ServerProcess {
    ServerProcess::start(TOKEN)
}

/// A session running `sh` with the prompt `$ `, the pane's size, at its
/// first prompt; returns its id.
fn shell(server: &ServerProcess) -> String {
    let body = json!({
        "command": ["sh"],
        "env": {"PS1": "$ ", "ENV": ""},
        "cols": COLS,
        "rows": ROWS,
    });
    let created = server.call("POST", "/api/sessions", Some(&body.to_string()));
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.json()["id"].as_str().expect("an id").to_owned();
    server.wait_screen(&id, "the prompt", |s| s.starts_with('$'));
    id
}

/// Waits until the pane shows exactly the session's screen.
fn wait_same_screen(server: &ServerProcess, tmux: &Tmux, name: &str, id: &str) -> String {
    let mut last = (String::new(), String::new());
    let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        eventually("the pane to show the session's screen", || {
            let screen = trimmed(&server.screen(id));
            let pane = tmux.pane(name);
            last = (screen.clone(), pane.clone());
            (screen == pane && !screen.is_empty()).then_some(screen)
        })
    }));
    found.unwrap_or_else(|_| panic!("the screen:\n{}\n\nthe pane:\n{}", last.0, last.1))
}

fn page(server: &ServerProcess, id: &str) -> String {
    format!("http://{}/s/{id}", server.addr)
}

#[test]
fn a_controller_sees_the_screen_types_resizes_and_detaches() {
    let server = server();
    let id = shell(&server);
    let tmux = Tmux::new();
    tmux.attach("a", &format!("PANECAST_TOKEN={TOKEN}"), &page(&server, &id));
    wait_same_screen(&server, &tmux, "a", &id);

    tmux.keys("a", &["echo $((6*7))", "Enter"]);
    server.wait_screen(&id, "the program's answer", |s| {
        s.lines().any(|l| l == "42")
    });
    let screen = wait_same_screen(&server, &tmux, "a", &id);
    assert!(screen.contains("$ echo $((6*7))\n42"), "{screen}");

    // Output that scrolls the screen (frames with a scroll hint).
    tmux.keys("a", &["seq 1 40", "Enter"]);
    server.wait_screen(&id, "the end of seq", |s| s.contains("\n40\n$"));
    let screen = wait_same_screen(&server, &tmux, "a", &id);
    assert!(screen.starts_with("18\n19\n"), "{screen}");

    // The window drives the session's size (it is the only controller).
    tmux.run(&["resize-window", "-t", "a", "-x", "100", "-y", "30"]);
    eventually("the session to take the window's size", || {
        let session = server.session(&id);
        (session["cols"] == 100 && session["rows"] == 30).then_some(())
    });
    tmux.keys("a", &["printf '%s\\n' \"$(stty size)\"", "Enter"]);
    server.wait_screen(&id, "the new size", |s| s.lines().any(|l| l == "30 100"));
    wait_same_screen(&server, &tmux, "a", &id);

    // The program's cursor-key mode reaches the local terminal, so an arrow
    // key sends what the program asked for (ESC O A, not ESC [ A).
    tmux.keys(
        "a",
        &["printf '\\033[?1h'; stty raw -echo; head -c 3 | od -An -c; stty sane; printf '\\033[?1l'", "Enter"],
    );
    eventually("the pane to take application cursor keys", || {
        let flag = tmux.run(&["display", "-p", "-t", "a", "#{keypad_cursor_flag}"]);
        (flag.trim() == "1").then_some(())
    });
    tmux.keys("a", &["Up"]);
    server.wait_screen(&id, "the arrow key's bytes", |s| s.contains("033   O   A"));

    tmux.keys("a", &["C-\\"]);
    let pane = tmux.wait_exit("a");
    let lines: Vec<&str> = pane.lines().collect();
    assert_eq!(
        lines,
        ["exit=0", "icanon", "echo"],
        "the terminal is restored"
    );
    let modes = tmux.run(&["display", "-p", "-t", "a", "#{alternate_on} #{cursor_flag}"]);
    assert_eq!(modes.trim(), "0 1", "main screen, cursor shown");
    assert_eq!(
        server.session(&id)["running"],
        true,
        "a detach leaves the session running"
    );
}

#[test]
fn the_end_of_the_session_ends_the_attach_with_its_reason() {
    let server = server();
    let id = shell(&server);
    let tmux = Tmux::new();
    tmux.attach(
        "a",
        &format!("PANECAST_TOKEN={TOKEN}"),
        &format!("http://{} --session {id}", server.addr),
    );
    wait_same_screen(&server, &tmux, "a", &id);
    tmux.keys("a", &["exit 3", "Enter"]);
    let pane = tmux.wait_exit("a");
    assert_eq!(
        pane,
        "panecast: the session ended: its program exited with status 3\nexit=0\nicanon\necho"
    );
}

#[test]
fn an_upgrade_in_place_is_followed_at_once() {
    let server = server();
    let id = shell(&server);
    let tmux = Tmux::new();
    tmux.attach("a", &format!("PANECAST_TOKEN={TOKEN}"), &page(&server, &id));
    wait_same_screen(&server, &tmux, "a", &id);
    // A viewer of the test's own says when the old image has closed the
    // streams (1012): the attach's connection is closed then too.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut viewer = runtime.block_on(common::ws::open(server.addr, TOKEN, &id, "view"));
    // SAFETY: kill sends a signal to the server this test started.
    assert_eq!(
        unsafe { libc::kill(server.child.id() as i32, libc::SIGUSR2) },
        0
    );
    let closed = runtime.block_on(viewer.close_code(std::time::Duration::from_secs(30)));
    assert_eq!(
        closed.code,
        Some(panecast_proto::close::SERVICE_RESTART),
        "{closed:?}"
    );
    // Keys typed while the old image closes its streams (its sessions
    // already frozen) are lost: type once the new image serves a viewer
    // opened now, and the attach's control connection is back in the room.
    let mut again = runtime.block_on(common::ws::open(server.addr, TOKEN, &id, "view"));
    runtime.block_on(again.until(
        "the new image's first frame",
        std::time::Duration::from_secs(30),
        |m| m.frames > 0,
    ));
    eventually("the attach to connect to the new image", || {
        (server.session(&id)["viewers"]["control"] == 1).then_some(())
    });
    tmux.keys("a", &["echo after", "Enter"]);
    server.wait_screen(&id, "the keys typed after the upgrade", |s| {
        s.lines().any(|l| l == "after")
    });
    let screen = wait_same_screen(&server, &tmux, "a", &id);
    assert!(!screen.contains("exit="), "{screen}");
}

/// The first `cols` columns of the first `rows` rows of `screen`, trimmed.
fn top_left(screen: &str, cols: usize, rows: usize) -> String {
    let clipped: Vec<String> = screen
        .lines()
        .take(rows)
        .map(|l| l.chars().take(cols).collect())
        .collect();
    trimmed(&clipped.join("\n"))
}

#[test]
fn a_window_that_does_not_drive_is_clipped_until_it_takes_control() {
    let server = server();
    let id = shell(&server);
    let tmux = Tmux::new();
    let env = format!("PANECAST_TOKEN={TOKEN}");
    tmux.attach("a", &env, &page(&server, &id));
    wait_same_screen(&server, &tmux, "a", &id);
    tmux.keys(
        "a",
        &[
            "echo 0123456789012345678901234567890123456789abcdef",
            "Enter",
        ],
    );
    server.wait_screen(&id, "the long line", |s| s.contains("\n0123"));

    // A second controller in a 40x10 window: the first still drives.
    tmux.attach_sized("b", (40, 10), &env, &page(&server, &id));
    let clipped = eventually("pane b to show the screen's top-left corner", || {
        let expected = top_left(&server.screen(&id), 40, 10);
        (tmux.pane("b") == expected).then_some(expected)
    });
    assert!(
        clipped.contains("\n0123456789012345678901234567890123456789\n"),
        "{clipped}"
    );
    tmux.keys("a", &["stty size", "Enter"]);
    server.wait_screen(&id, "the size the program sees", |s| {
        s.contains("\n24 80\n")
    });

    // A third one takes control: the session takes its window's size, and
    // the first window shows it from its top-left corner.
    tmux.attach_sized(
        "c",
        (40, 10),
        &env,
        &format!("{} --take-control", page(&server, &id)),
    );
    eventually("the session to take the 40x10 window's size", || {
        let session = server.session(&id);
        (session["cols"] == 40 && session["rows"] == 10).then_some(())
    });
    tmux.keys("c", &["clear; stty size", "Enter"]);
    let screen = server.wait_screen(&id, "the new size", |s| s.starts_with("10 40\n"));
    assert_eq!(screen.lines().count(), 10, "{screen}");
    for pane in ["a", "b", "c"] {
        wait_same_screen(&server, &tmux, pane, &id);
    }

    // SIGTERM ends an attach with the terminal restored.
    let shell_pid = tmux.run(&["display", "-p", "-t", "b", "#{pane_pid}"]);
    let shell_pid = shell_pid.trim();
    let children = std::fs::read_to_string(format!("/proc/{shell_pid}/task/{shell_pid}/children"))
        .expect("the pane's shell's children");
    let attach: i32 = children
        .split_whitespace()
        .next()
        .expect("the attach")
        .parse()
        .expect("a pid");
    // SAFETY: kill sends a signal to the attach this test started.
    assert_eq!(unsafe { libc::kill(attach, libc::SIGTERM) }, 0);
    let pane = tmux.wait_exit("b");
    assert_eq!(pane, "panecast: terminated (SIGTERM)\nexit=1\nicanon\necho");
}

#[test]
fn a_view_link_watches_cannot_type_and_ends_when_revoked() {
    let server = server();
    let id = shell(&server);
    let link = server.call(
        "POST",
        &format!("/api/sessions/{id}/links"),
        Some(r#"{"role": "view", "label": "watcher"}"#),
    );
    assert_eq!(link.status, 201, "{}", link.body);
    let link = link.json();
    let url = link["url"].as_str().expect("the link's page").to_owned();
    assert!(url.contains("#t="), "{url}");
    let tmux = Tmux::new();
    tmux.attach("c", &format!("PANECAST_TOKEN={TOKEN}"), &page(&server, &id));
    // No PANECAST_TOKEN: the link's token in the URL is the credential.
    tmux.attach("v", "env -u PANECAST_TOKEN", &format!("'{url}'"));
    tmux.attach("w", "env -u PANECAST_TOKEN", &format!("'{url}'"));
    wait_same_screen(&server, &tmux, "v", &id);
    wait_same_screen(&server, &tmux, "w", &id);

    // Keys typed in a view window go nowhere, and the detach key still works.
    tmux.keys("v", &["echo nope", "Enter", "C-\\"]);
    assert_eq!(tmux.wait_exit("v"), "exit=0\nicanon\necho");
    tmux.keys("c", &["echo marker", "Enter"]);
    let screen = server.wait_screen(&id, "the controller's keys", |s| {
        s.lines().any(|l| l == "marker")
    });
    assert!(!screen.contains("nope"), "{screen}");
    let screen = wait_same_screen(&server, &tmux, "w", &id);
    assert!(
        screen.contains("marker"),
        "the watcher sees what the controller typed"
    );

    let revoked = server.call(
        "DELETE",
        &format!(
            "/api/sessions/{id}/links/{}",
            link["id"].as_str().expect("an id")
        ),
        None,
    );
    assert_eq!(revoked.status, 204, "{}", revoked.body);
    let pane = tmux.wait_exit("w");
    assert!(pane.starts_with("panecast: access revoked"), "{pane}");
    assert!(pane.ends_with("\nexit=3\nicanon\necho"), "{pane}");
}

/// Runs `panecast attach ARGS` without a terminal.
fn attach_plain(args: &[&str], token: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_panecast"));
    command
        .arg("attach")
        .args(args)
        .env_remove("PANECAST_TOKEN");
    if let Some(token) = token {
        command.env("PANECAST_TOKEN", token);
    }
    command
        .stdin(Stdio::null())
        .output()
        .expect("panecast runs")
}

/// Checks the exit code and that standard error is one line saying `what`.
fn fails(out: &Output, code: i32, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.starts_with("panecast: ") && stderr.contains(what),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing on standard output");
}

#[test]
fn bad_urls_and_refused_credentials_fail_with_one_line() {
    let server = server();
    let id = shell(&server);
    let addr = server.addr;
    for url in [
        "nonsense",
        &format!("ftp://{addr}/s/{id}"),
        &format!("http://{addr}/"),
        &format!("http://{addr}/x/{id}"),
    ] {
        fails(
            &attach_plain(&[url], Some(TOKEN)),
            2,
            "is not a session URL",
        );
    }
    fails(
        &attach_plain(&[&page(&server, &id)], Some("wrong-token-0123456789")),
        3,
        "HTTP 401",
    );
    fails(&attach_plain(&[&page(&server, &id)], None), 3, "HTTP 401");
    fails(
        &attach_plain(
            &[&format!("{}#t=not-a-live-link-token", page(&server, &id))],
            None,
        ),
        3,
        "HTTP 401",
    );
    fails(
        &attach_plain(&[&page(&server, "nosuch")], Some(TOKEN)),
        4,
        "HTTP 404",
    );
    fails(
        &attach_plain(&[&page(&server, &id)], Some(TOKEN)),
        1,
        "must be a terminal",
    );
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = closed.local_addr().expect("its address").port();
    drop(closed);
    fails(
        &attach_plain(&[&format!("http://127.0.0.1:{port}/s/{id}")], Some(TOKEN)),
        1,
        "cannot connect",
    );
    assert_eq!(
        server.session(&id)["viewers"]["control"],
        0,
        "no attach stayed"
    );
}

/// The binary serving HTTPS with `cert` and `key`; killed on drop.
struct TlsServer {
    child: std::process::Child,
    port: u16,
}

impl TlsServer {
    fn start(cert: &std::path::Path, key: &std::path::Path) -> TlsServer {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_panecast"))
            .args(["serve", "--listen", "127.0.0.1:0", "--tls-cert"])
            .arg(cert)
            .arg("--tls-key")
            .arg(key)
            .env("PANECAST_TOKEN", TOKEN)
            .env_remove("PANECAST_CONFIG")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("panecast serve starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout is piped"))
            .read_line(&mut line)
            .expect("the startup line");
        let port = line
            .split("https://127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no https URL in {line:?}"));
        TlsServer { child, port }
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn https_urls_use_wss_and_take_a_private_ca() {
    let tmux = Tmux::new(); // Only for its temporary directory.
    let (cert, key) = (tmux.dir.join("cert.pem"), tmux.dir.join("key.pem"));
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("a certificate");
    std::fs::write(&cert, certified.cert.pem()).expect("write the certificate");
    std::fs::write(&key, certified.key_pair.serialize_pem()).expect("write the key");
    let server = TlsServer::start(&cert, &key);
    let url = format!("https://localhost:{}/s/nosuch", server.port);
    let ca = cert.to_str().expect("a UTF-8 path");
    // Trusted: the upgrade reaches the server over TLS, which reads the
    // credential (a wrong one is 401) and finds no such session (404).
    fails(
        &attach_plain(&[&url, "--ca-file", ca], Some(TOKEN)),
        4,
        "HTTP 404",
    );
    fails(
        &attach_plain(&[&url, "--ca-file", ca], Some("wrong-token-0123456789")),
        3,
        "HTTP 401",
    );
    // A self-signed certificate is not trusted by default.
    fails(&attach_plain(&[&url], Some(TOKEN)), 1, "TLS with localhost");
    let missing = tmux.dir.join("missing.pem");
    let missing = missing.to_str().expect("a UTF-8 path");
    fails(
        &attach_plain(&[&url, "--ca-file", missing], Some(TOKEN)),
        2,
        "--ca-file",
    );
}

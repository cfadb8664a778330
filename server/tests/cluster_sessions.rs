//! One session, any node: real `panecast serve --cluster` processes on a
//! real `nats-server` (see `common::cluster`). A session started on node A
//! is viewed and driven from node B through B's mirror of it, and the
//! failures the cluster must survive: the owner killed, NATS restarted,
//! the owner paused.
//!
//! Skipped, with a line saying so, when `nats-server` is not installed
//! (`tests/run.sh` installs it).

use std::net::SocketAddr;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use panecast_proto::{close, ClientMessage};
use serde_json::{json, Value};

mod common;

use common::cluster::{call, runtime, serve_node, signal, Nats, TempDir, TTL_S};
use common::ws::{open, Client, Model};

/// Kills every child when dropped, so that a failed test leaves nothing.
struct Nodes(Vec<Child>);

impl Drop for Nodes {
    fn drop(&mut self) {
        for child in &mut self.0 {
            // A paused child is woken to die; one already gone is not there.
            // SAFETY: kill(2) on a pid this test started and has not reaped.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGCONT) };
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Starts nodes named `names` on `nats`, with one config in `dir`.
fn start_nodes(nats: &Nats, dir: &Path, names: &[&str]) -> (Nodes, Vec<SocketAddr>) {
    start_nodes_with(nats, &nats.config_file(dir), names)
}

/// Starts nodes named `names` on `nats` with the config file `config`.
fn start_nodes_with(nats: &Nats, config: &Path, names: &[&str]) -> (Nodes, Vec<SocketAddr>) {
    let (children, addrs) = names
        .iter()
        .map(|name| serve_node(&nats.url, name, config))
        .unzip();
    (Nodes(children), addrs)
}

/// A config file in `dir` with the tests' `[cluster]` section after `top`.
fn config_with(nats: &Nats, dir: &Path, top: &str) -> std::path::PathBuf {
    let config = dir.join("custom.toml");
    std::fs::write(&config, format!("{top}\n\n{}", nats.cluster_section())).expect("write config");
    config
}

/// Starts the session `body` asks for on node `node`, asking the node at
/// `addr`; its id.
fn start_session(addr: SocketAddr, node: &str, mut body: Value) -> String {
    body["node"] = json!(node);
    let (status, session) = call(addr, "POST", "/api/sessions", Some(body));
    assert_eq!(status, 201, "{session}");
    session["id"].as_str().expect("an id").to_owned()
}

/// The screen of session `id` as the node at `addr` shows it (JSON).
fn screen(addr: SocketAddr, id: &str) -> Value {
    let (status, screen) = call(
        addr,
        "GET",
        &format!("/api/sessions/{id}/screen?format=json"),
        None,
    );
    assert_eq!(status, 200, "{screen}");
    screen
}

/// Screen rows with their trailing blanks trimmed.
fn rows(screen: &Value) -> Vec<String> {
    screen["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l.as_str().expect("a line").trim_end().to_owned())
        .collect()
}

/// Waits until the screen of `id` on `addr` has a row holding `text`.
fn wait_for_text(addr: SocketAddr, id: &str, text: &str, limit: Duration) {
    let start = Instant::now();
    loop {
        let shown = rows(&screen(addr, id));
        if shown.iter().any(|row| row.contains(text)) {
            return;
        }
        assert!(
            start.elapsed() < limit,
            "{text:?} never showed on {addr}:\n{}",
            shown.join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until the viewer's model equals the owner's screen, row for row.
async fn until_same(viewer: &mut Client, owner: SocketAddr, id: &str, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        let want = rows(&screen(owner, id));
        if viewer.model.text() == want {
            return;
        }
        if Instant::now() >= deadline {
            panic!(
                "the viewer's screen is not the owner's:\nviewer:\n{}\nowner:\n{}",
                viewer.model.text().join("\n"),
                want.join("\n")
            );
        }
        viewer
            .next(tokio::time::Instant::now() + Duration::from_millis(100))
            .await;
    }
}

fn typed(text: &str) -> ClientMessage {
    ClientMessage::Text {
        text: text.to_owned(),
    }
}

/// The ids of the sessions the node at `addr` lists.
fn listed(addr: SocketAddr) -> Vec<String> {
    let (status, list) = call(addr, "GET", "/api/sessions", None);
    assert_eq!(status, 200, "{list}");
    list["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["id"].as_str().expect("an id").to_owned())
        .collect()
}

fn model_has(model: &Model, text: &str) -> bool {
    model.text().iter().any(|row| row.contains(text))
}

#[test]
fn a_session_on_a_is_viewed_and_driven_from_b() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("drive");
    let (_nodes, addrs) = start_nodes(&nats, &dir.0, &["A", "B"]);
    let (a, b) = (addrs[0], addrs[1]);
    let id = start_session(
        a,
        "A",
        json!({ "command": ["bash", "--norc", "--noprofile"], "name": "shared" }),
    );

    // The session object on B names its owner; B finds it by name too.
    let (status, seen) = call(b, "GET", "/api/sessions/shared", None);
    assert_eq!(status, 200, "{seen}");
    assert_eq!(
        (seen["id"].as_str(), seen["node"].as_str()),
        (Some(id.as_str()), Some("A"))
    );

    runtime().block_on(async {
        let mut viewer = open(b, common::TOKEN, &id, "control").await;
        viewer
            .until("the first frame", common::DEADLINE, |m| m.frames > 0)
            .await;
        // Typed on B, run on A, shown on B.
        viewer.send(&typed("echo typed-on-$((6*7))\r")).await;
        viewer
            .until("the echo", common::DEADLINE, |m| {
                model_has(m, "typed-on-42")
            })
            .await;
        wait_for_text(a, &id, "typed-on-42", common::DEADLINE);
        until_same(&mut viewer, a, &id, common::DEADLINE).await;

        // Input through B's HTTP API, in order.
        for i in 0..20 {
            let (status, body) = call(
                b,
                "POST",
                &format!("/api/sessions/{id}/input"),
                Some(json!({ "text": format!("echo line-{i}\r") })),
            );
            assert_eq!(status, 204, "{body}");
        }
        let output =
            |row: &String| -> Option<u32> { row.trim_end().strip_prefix("line-")?.parse().ok() };
        viewer
            .until("the last line's output", common::DEADLINE, |m| {
                m.text().iter().any(|row| output(row) == Some(19))
            })
            .await;
        until_same(&mut viewer, a, &id, common::DEADLINE).await;
        // The outputs the screen still shows (how many depends on how the
        // terminal echoed the typing): in order, each once, the last last.
        let outputs: Vec<u32> = viewer.model.text().iter().filter_map(output).collect();
        assert!(
            outputs.len() >= 5
                && outputs.windows(2).all(|w| w[0] < w[1])
                && outputs.last() == Some(&19),
            "outputs on the screen: {outputs:?}"
        );

        // A wait on B (the mirror) for what its input made A's program
        // print, after the revision B answered the input with.
        let auth = format!("Bearer {}", common::TOKEN);
        let input = common::http(
            b,
            "POST",
            &format!("/api/sessions/{id}/input"),
            &[("Authorization", &auth)],
            Some(
                json!({ "text": "echo waited-$((6*7))\r" })
                    .to_string()
                    .as_bytes(),
            ),
        );
        assert_eq!(input.status, 204, "{}", input.body);
        let after: u64 = input
            .header("panecast-revision")
            .and_then(|r| r.parse().ok())
            .expect("a revision");
        let (status, waited) = call(
            b,
            "POST",
            &format!("/api/sessions/{id}/wait"),
            Some(json!({ "text": "waited-42", "after": after, "timeout_ms": 10_000 })),
        );
        assert_eq!(
            (status, &waited["matched"]),
            (200, &json!("text")),
            "{waited}"
        );
        assert!(waited["revision"].as_u64() > Some(after), "{waited}");

        // Resized on B: the owner's terminal and the viewer follow.
        let (status, body) = call(
            b,
            "POST",
            &format!("/api/sessions/{id}/resize"),
            Some(json!({ "cols": 100, "rows": 30 })),
        );
        assert_eq!(status, 204, "{body}");
        let owner = screen(a, &id);
        assert_eq!(
            (owner["cols"].as_u64(), owner["rows"].as_u64()),
            (Some(100), Some(30))
        );
        viewer
            .until("the new size", common::DEADLINE, |m| {
                m.cols == 100 && m.rows == 30
            })
            .await;

        // Search and scrollback on B read the owner's.
        let (status, found) = call(
            b,
            "GET",
            &format!("/api/sessions/{id}/search?q=line-1"),
            None,
        );
        assert_eq!(status, 200, "{found}");
        assert!(
            found["matches"].as_array().expect("matches").len() >= 11,
            "{found}"
        );
        for i in 0..40 {
            viewer.send(&typed(&format!("echo scrolled-{i}\r"))).await;
        }
        viewer
            .until("forty more lines", common::DEADLINE, |m| {
                model_has(m, "scrolled-39")
            })
            .await;
        viewer
            .send(&ClientMessage::ScrollbackRequest {
                start: 1,
                count: 400,
            })
            .await;
        viewer
            .until("the scrollback", common::DEADLINE, |m| {
                !m.scrollback.is_empty()
            })
            .await;
        let lines: Vec<String> = viewer.model.scrollback[0]
            .lines
            .iter()
            .map(|l| l.text().trim_end().to_owned())
            .collect();
        assert!(lines.iter().any(|l| l == "scrolled-0"), "{lines:?}");
        assert!(lines.iter().any(|l| l == "scrolled-0"), "{lines:?}");
        assert!(lines.iter().any(|l| l == "typed-on-42"), "{lines:?}");

        // ALiS (asciinema-player's live stream) from B: the magic, then the
        // screen as ANSI, the echo in it.
        let auth = format!("Bearer {}", common::TOKEN);
        let mut alis = common::ws::connect(
            b,
            &format!("/api/sessions/{id}/alis"),
            &[("Authorization", &auth)],
            None,
        )
        .await
        .unwrap_or_else(|r| panic!("ALiS refused: {} {}", r.status, r.body));
        let deadline = tokio::time::Instant::now() + common::DEADLINE;
        let mut received = Vec::new();
        while !String::from_utf8_lossy(&received).contains("scrolled-39") {
            let message = alis.next_raw(deadline).await.expect("ALiS messages");
            received.extend_from_slice(&message);
        }
        assert!(received.starts_with(b"ALiS\x01"), "{:?}", &received[..8]);

        // Deleted on B: the owner ends it, and B's viewer is told so.
        let (status, body) = call(b, "DELETE", &format!("/api/sessions/{id}"), None);
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["node"], "A", "{body}");
        let closed = viewer.close_code(common::DEADLINE).await;
        assert_eq!(closed.code, Some(close::SESSION_DELETED), "{closed:?}");
        assert!(!listed(a).contains(&id));
        let (status, _) = call(b, "GET", &format!("/api/sessions/{id}"), None);
        assert_eq!(status, 404);
    });
}

#[test]
fn a_killed_owners_viewers_are_told_within_5s_and_its_sessions_leave_the_lists() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("kill");
    let (mut nodes, addrs) = start_nodes(&nats, &dir.0, &["A", "B", "C"]);
    let id = start_session(addrs[0], "A", json!({ "command": ["sleep", "600"] }));
    runtime().block_on(async {
        let mut viewers = Vec::new();
        for addr in [addrs[1], addrs[2]] {
            let mut viewer = open(addr, common::TOKEN, &id, "view").await;
            viewer
                .until("the first frame", common::DEADLINE, |m| m.frames > 0)
                .await;
            viewers.push(viewer);
        }
        let killed = Instant::now();
        let _ = nodes.0[0].kill();
        let _ = nodes.0[0].wait();
        for viewer in &mut viewers {
            let closed = viewer.close_code(Duration::from_secs(10)).await;
            assert_eq!(closed.code, Some(close::NODE_GONE), "{closed:?}");
            assert!(
                killed.elapsed() < Duration::from_secs(5),
                "told after {:?}",
                killed.elapsed()
            );
            assert_eq!(
                viewer.model.exit, None,
                "no Exit: how it ended is not known"
            );
        }
    });
    let start = Instant::now();
    for addr in [addrs[1], addrs[2]] {
        while listed(addr).contains(&id) {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "still listed after 30 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    assert!(
        start.elapsed() < Duration::from_secs(2 * TTL_S + 2),
        "left the lists after {:?}",
        start.elapsed()
    );
}

#[test]
fn after_nats_restarts_mirrors_resync_and_input_works_again() {
    let Some(mut nats) = Nats::start() else {
        return;
    };
    let dir = TempDir::new("restart");
    let (_nodes, addrs) = start_nodes(&nats, &dir.0, &["A", "B"]);
    let (a, b) = (addrs[0], addrs[1]);
    let id = start_session(
        a,
        "A",
        json!({ "command": ["bash", "--norc", "--noprofile"] }),
    );
    runtime().block_on(async {
        let mut viewer = open(b, common::TOKEN, &id, "control").await;
        viewer.send(&typed("echo before\r")).await;
        viewer
            .until("the echo", common::DEADLINE, |m| model_has(m, "before"))
            .await;

        nats.restart();
        // Output while the mirror may have missed messages.
        let (status, body) = call(
            a,
            "POST",
            &format!("/api/sessions/{id}/input"),
            Some(json!({ "text": "echo during\r" })),
        );
        assert_eq!(status, 204, "{body}");

        // Input from B works again within 5 s of NATS being back.
        let back = Instant::now();
        let mut n = 0;
        loop {
            n += 1;
            viewer.send(&typed(&format!("echo after-{n}\r"))).await;
            let shown = tokio::time::Instant::now() + Duration::from_millis(500);
            while !model_has(&viewer.model, &format!("after-{n}")) {
                if viewer.next(shown).await.is_none() {
                    break;
                }
            }
            if model_has(&viewer.model, &format!("after-{n}")) {
                break;
            }
            assert!(viewer.closed.is_none(), "closed: {:?}", viewer.closed);
            assert!(
                back.elapsed() < Duration::from_secs(5),
                "input did not work again within 5 s"
            );
        }
        // The screen is the owner's exactly, "during" included.
        until_same(&mut viewer, a, &id, common::DEADLINE).await;
        assert!(model_has(&viewer.model, "during"));
    });
}

#[test]
fn a_paused_owners_viewers_resync_to_its_exact_screen() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("pause");
    let (nodes, addrs) = start_nodes(&nats, &dir.0, &["A", "B"]);
    let (a, b) = (addrs[0], addrs[1]);
    let id = start_session(
        a,
        "A",
        json!({ "command": ["bash", "--norc", "--noprofile"] }),
    );
    // A counter the paused program goes on with as soon as it runs again.
    let (status, body) = call(
        a,
        "POST",
        &format!("/api/sessions/{id}/input"),
        Some(json!({ "text": "for i in $(seq 1 400); do echo tick-$i; sleep 0.05; done\r" })),
    );
    assert_eq!(status, 204, "{body}");
    runtime().block_on(async {
        let mut viewer = open(b, common::TOKEN, &id, "view").await;
        viewer
            .until("ticks", common::DEADLINE, |m| model_has(m, "tick-5"))
            .await;
        signal(&nodes.0[0], libc::SIGSTOP);
        let paused = Instant::now();
        while paused.elapsed() < Duration::from_secs(10) {
            viewer
                .next(tokio::time::Instant::now() + Duration::from_millis(200))
                .await;
            assert!(
                viewer.closed.is_none(),
                "closed while paused: {:?}",
                viewer.closed
            );
        }
        signal(&nodes.0[0], libc::SIGCONT);
        viewer
            .until("the ticks go on", Duration::from_secs(20), |m| {
                model_has(m, "tick-400")
            })
            .await;
        until_same(&mut viewer, a, &id, common::DEADLINE).await;
    });
}

#[test]
fn a_thousand_by_thousand_screen_crosses_nodes_whole() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("big");
    let (_nodes, addrs) = start_nodes(&nats, &dir.0, &["A", "B"]);
    let (a, b) = (addrs[0], addrs[1]);
    let script = "for r in $(seq 1 2000); do printf '\\033[38;5;%dm%0999d\\n' $((r % 256)) $r; done; sleep 600";
    let id = start_session(
        a,
        "A",
        json!({ "command": ["bash", "-c", script], "cols": 1000, "rows": 1000, "scrollback": 1000 }),
    );
    wait_for_text(a, &id, &format!("{:0999}", 2000), common::FLOOD_WAIT);
    let owner = screen(a, &id);
    let mirrored = screen(b, &id);
    assert_eq!(
        (mirrored["cols"].as_u64(), mirrored["rows"].as_u64()),
        (Some(1000), Some(1000))
    );
    assert_eq!(rows(&mirrored), rows(&owner));
    let ansi = |addr| {
        let auth = format!("Bearer {}", common::TOKEN);
        let path = format!("/api/sessions/{id}/screen?format=ansi");
        let response = common::http(addr, "GET", &path, &[("Authorization", &auth)], None);
        assert_eq!(response.status, 200);
        response.body
    };
    assert_eq!(ansi(b), ansi(a), "colours and all");
}

/// A request with `token` as the bearer: the status.
fn status_as(addr: SocketAddr, token: &str, path: &str) -> u16 {
    let auth = format!("Bearer {token}");
    common::http(addr, "GET", path, &[("Authorization", &auth)], None).status
}

#[test]
fn a_link_works_on_every_node_and_a_revocation_ends_it_everywhere_within_a_second() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("links");
    let (_nodes, addrs) = start_nodes(&nats, &dir.0, &["A", "B", "C"]);
    let (a, b, c) = (addrs[0], addrs[1], addrs[2]);
    let id = start_session(a, "A", json!({ "command": ["sleep", "600"] }));
    let (status, link) = call(
        a,
        "POST",
        &format!("/api/sessions/{id}/links"),
        Some(json!({ "role": "view" })),
    );
    assert_eq!(status, 201, "{link}");
    let (token, link_id) = (
        link["token"].as_str().expect("a token").to_owned(),
        link["id"].as_str().expect("an id").to_owned(),
    );
    let session_path = format!("/api/sessions/{id}");
    // Minted on A: it reaches the session from every node, and only it.
    let start = Instant::now();
    while status_as(b, &token, &session_path) != 200 || status_as(c, &token, &session_path) != 200 {
        assert!(
            start.elapsed() < common::DEADLINE,
            "the link never worked on B and C"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let other = start_session(b, "B", json!({ "command": ["sleep", "600"] }));
    assert_eq!(status_as(c, &token, &format!("/api/sessions/{other}")), 404);
    // C lists it, without its token.
    let (status, listed) = call(c, "GET", &format!("/api/sessions/{id}/links"), None);
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["links"][0]["id"], link_id.as_str(), "{listed}");
    assert!(listed["links"][0].get("token").is_none());

    let revoked = runtime().block_on(async {
        let mut viewer = open(b, &token, &id, "view").await;
        viewer
            .until("the first frame", common::DEADLINE, |m| m.frames > 0)
            .await;
        // Revoked on C: B's stream is closed within a second.
        let (status, body) = call(
            c,
            "DELETE",
            &format!("/api/sessions/{id}/links/{link_id}"),
            None,
        );
        assert!(status < 300, "{body}");
        let revoked = Instant::now();
        let closed = viewer.close_code(Duration::from_secs(5)).await;
        assert_eq!(closed.code, Some(close::ACCESS_REVOKED), "{closed:?}");
        assert!(
            revoked.elapsed() < Duration::from_secs(1),
            "closed after {:?}",
            revoked.elapsed()
        );
        revoked
    });
    // C, where it was revoked, refuses it at once; A and B within a
    // second of the revocation, once the bucket's watch delivered it.
    assert_eq!(status_as(c, &token, &session_path), 401, "on C");
    for addr in [a, b] {
        while status_as(addr, &token, &session_path) != 401 {
            assert!(
                revoked.elapsed() < Duration::from_secs(1),
                "{addr} still takes the link after {:?}",
                revoked.elapsed()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn a_session_starts_on_the_node_asked_for_or_the_one_with_the_most_room() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("place");
    let config = config_with(&nats, &dir.0, "[limits]\nmax_sessions = 2");
    let (_nodes, addrs) = start_nodes_with(&nats, &config, &["A", "B"]);
    let (a, b) = (addrs[0], addrs[1]);
    let sleeper = |node: Option<&str>| {
        let mut body = json!({ "command": ["sleep", "600"] });
        if let Some(node) = node {
            body["node"] = json!(node);
        }
        call(a, "POST", "/api/sessions", Some(body))
    };
    // Asked for B, through A: it runs on B, and A answers with its view.
    let (status, on_b) = sleeper(Some("B"));
    assert_eq!(status, 201, "{on_b}");
    assert_eq!(on_b["node"], "B", "{on_b}");
    let id = on_b["id"].as_str().expect("an id");
    let (status, seen) = call(b, "GET", &format!("/api/sessions/{id}"), None);
    assert_eq!((status, seen["node"].as_str()), (200, Some("B")), "{seen}");
    // A name is the cluster's, whichever node runs it or is asked.
    let (status, named) = call(
        a,
        "POST",
        "/api/sessions",
        Some(json!({ "command": ["sleep", "600"], "name": "x", "node": "B" })),
    );
    assert_eq!(
        (status, named["node"].as_str()),
        (201, Some("B")),
        "{named}"
    );
    let (status, taken) = call(
        b,
        "POST",
        "/api/sessions",
        Some(json!({ "command": ["sleep", "600"], "name": "x", "node": "A" })),
    );
    assert_eq!(
        (status, taken["code"].as_str()),
        (409, Some("name_taken")),
        "{taken}"
    );
    // Without a node: B is full (2), so A, twice, and then no node has room.
    for _ in 0..2 {
        let (status, session) = sleeper(None);
        assert_eq!(
            (status, session["node"].as_str()),
            (201, Some("A")),
            "{session}"
        );
    }
    let (status, full) = sleeper(None);
    assert_eq!(status, 429, "{full}");
    assert_eq!(full["code"], "too_many_sessions", "{full}");
    let (status, unknown) = sleeper(Some("Z"));
    assert_eq!(status, 404, "{unknown}");
    assert_eq!(unknown["code"], "node_not_found", "{unknown}");
}

#[test]
fn a_recording_on_a_is_listed_read_replayed_and_deleted_from_b() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("rec");
    // Each node its own recordings directory, as on two machines.
    let (children, addrs): (Vec<Child>, Vec<SocketAddr>) = ["A", "B"]
        .iter()
        .map(|name| {
            let recordings = dir.0.join(format!("recordings-{name}"));
            std::fs::create_dir_all(&recordings).expect("a recordings directory");
            let config = dir.0.join(format!("{name}.toml"));
            std::fs::write(
                &config,
                format!(
                    "recordings_dir = {:?}\n\n{}",
                    recordings.display().to_string(),
                    nats.cluster_section()
                ),
            )
            .expect("write config");
            serve_node(&nats.url, name, &config)
        })
        .unzip();
    let _nodes = Nodes(children);
    let (a, b) = (addrs[0], addrs[1]);
    let (status, session) = call(
        a,
        "POST",
        "/api/sessions",
        Some(json!({
            "command": ["bash", "-c", "for i in $(seq 1 25000); do echo recorded-line-$i; done; sleep 0.3"],
            "record": true,
            "node": "A",
        })),
    );
    assert_eq!(status, 201, "{session}");
    let name = session["recording"]
        .as_str()
        .expect("a recording")
        .to_owned();
    let id = session["id"].as_str().expect("an id").to_owned();
    wait_for_text(a, &id, "recorded-line-25000", common::DEADLINE);

    // Listed on B with its node.
    let start = Instant::now();
    let listed = loop {
        let (status, list) = call(b, "GET", "/api/recordings", None);
        assert_eq!(status, 200, "{list}");
        let found = list["recordings"]
            .as_array()
            .expect("recordings")
            .iter()
            .find(|r| r["name"] == name.as_str() && r["live"] == false)
            .cloned();
        if let Some(found) = found {
            break found;
        }
        assert!(
            start.elapsed() < common::DEADLINE,
            "not listed whole on B: {list}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(listed["node"], "A", "{listed}");

    // Read from B: the same bytes as A's, in parts of 512 KiB.
    let download = |addr| {
        let auth = format!("Bearer {}", common::TOKEN);
        let path = format!("/api/recordings/{name}");
        let response = common::http(addr, "GET", &path, &[("Authorization", &auth)], None);
        assert_eq!(response.status, 200, "{}", response.body);
        response.body
    };
    let (on_a, on_b) = (download(a), download(b));
    assert!(on_a.len() > 512 << 10, "{} bytes: one part", on_a.len());
    assert!(on_a.contains("recorded-line-25000"));
    assert_eq!(on_b, on_a);

    // Replayed from B.
    runtime().block_on(async {
        let auth = format!("Bearer {}", common::TOKEN);
        let mut replay = common::ws::connect(
            b,
            &format!("/api/recordings/{name}/ws"),
            &[("Authorization", &auth)],
            None,
        )
        .await
        .unwrap_or_else(|r| panic!("the replay was refused: {} {}", r.status, r.body));
        replay
            .send(&ClientMessage::Replay(panecast_proto::ReplayControl::Seek(
                3_600_000,
            )))
            .await;
        replay
            .until("the end of the recording", common::DEADLINE, |m| {
                model_has(m, "recorded-line-25000")
            })
            .await;
    });

    // Deleted from B, once its session is over.
    let (status, _) = call(a, "DELETE", &format!("/api/sessions/{id}"), None);
    assert_eq!(status, 200);
    let (status, body) = call(b, "DELETE", &format!("/api/recordings/{name}"), None);
    assert_eq!(status, 204, "{body}");
    let (status, body) = call(a, "GET", &format!("/api/recordings/{name}"), None);
    assert_eq!(status, 404, "{body}");
}

#[test]
fn a_mirrors_viewers_see_the_last_screen_before_the_exit() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("exit");
    let (_nodes, addrs) = start_nodes(&nats, &dir.0, &["A", "B"]);
    let (a, b) = (addrs[0], addrs[1]);
    runtime().block_on(async {
        for round in 0..5 {
            // Waits for its viewer, floods, prints its last line and exits.
            let id = start_session(
                a,
                "A",
                json!({
                    "command": ["bash", "-c", format!("read; seq 1 30000; echo last-line-{round}")],
                    "node": "A",
                }),
            );
            let mut viewer = open(b, common::TOKEN, &id, "control").await;
            viewer
                .until("the first frame", common::DEADLINE, |m| m.frames > 0)
                .await;
            viewer.send(&typed("\r")).await;
            viewer
                .until("the exit", common::FLOOD_WAIT, |m| m.exit.is_some())
                .await;
            assert!(
                model_has(&viewer.model, &format!("last-line-{round}")),
                "round {round}: the Exit came before the last screen:\n{}",
                viewer.model.text().join("\n")
            );
        }
    });
}

#[test]
fn an_owner_upgraded_in_place_keeps_serving_and_unregistering_its_sessions() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("upgrade");
    let (nodes, addrs) = start_nodes(&nats, &dir.0, &["A", "B"]);
    let (a, b) = (addrs[0], addrs[1]);
    let id = start_session(
        a,
        "A",
        json!({ "command": ["bash", "--norc", "--noprofile"], "name": "kept", "node": "A" }),
    );
    // SAFETY: kill(2) on a child this test started and has not reaped.
    assert_eq!(
        unsafe { libc::kill(nodes.0[0].id() as libc::pid_t, libc::SIGUSR2) },
        0
    );
    // The same process, a new image: the session is there, and B drives
    // it again through its mirror.
    let start = Instant::now();
    loop {
        let (status, _) = call(
            b,
            "POST",
            "/api/sessions/kept/input",
            Some(json!({ "text": "echo after-the-upgrade\r" })),
        );
        if status == 204
            && rows(&screen(b, &id))
                .iter()
                .any(|r| r == "after-the-upgrade")
        {
            break;
        }
        assert!(
            start.elapsed() < common::DEADLINE,
            "B never drove the session again"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // Deleted on A after the upgrade: its record leaves B's list.
    let (status, body) = call(a, "DELETE", &format!("/api/sessions/{id}"), None);
    assert_eq!(status, 200, "{body}");
    let start = Instant::now();
    while listed(b).contains(&id) {
        assert!(
            start.elapsed() < common::DEADLINE,
            "the upgraded session stayed listed on B"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_session_created_on_a_is_found_on_b_at_once() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("at-once");
    let (_nodes, addrs) = start_nodes(&nats, &dir.0, &["A", "B"]);
    let (a, b) = (addrs[0], addrs[1]);
    for _ in 0..30 {
        let id = start_session(a, "A", json!({ "command": ["sleep", "600"] }));
        // No wait: B's copy of the registry catches up on a miss.
        let (status, seen) = call(b, "GET", &format!("/api/sessions/{id}"), None);
        assert_eq!((status, seen["node"].as_str()), (200, Some("A")), "{seen}");
        let (status, _) = call(a, "DELETE", &format!("/api/sessions/{id}"), None);
        assert_eq!(status, 200);
    }
}

#[test]
fn a_programs_clipboard_reaches_control_viewers_on_other_nodes() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("clipboard");
    let config = config_with(&nats, &dir.0, "clipboard = \"control\"");
    let (_nodes, addrs) = start_nodes_with(&nats, &config, &["A", "B"]);
    let (a, b) = (addrs[0], addrs[1]);
    let id = start_session(
        a,
        "A",
        json!({ "command": ["bash", "--norc", "--noprofile"] }),
    );
    runtime().block_on(async {
        let mut control = open(b, common::TOKEN, &id, "control").await;
        let mut view = open(b, common::TOKEN, &id, "view").await;
        for viewer in [&mut control, &mut view] {
            viewer
                .until("the first frame", common::DEADLINE, |m| m.frames > 0)
                .await;
        }
        // OSC 52 with "copied on A" in base64.
        control
            .send(&typed(
                "printf '\\033]52;c;Y29waWVkIG9uIEE=\\a'; echo printed\r",
            ))
            .await;
        control
            .until("the clipboard", common::DEADLINE, |m| {
                !m.clipboard.is_empty()
            })
            .await;
        assert_eq!(control.model.clipboard, ["copied on A"]);
        view.until("the output after it", common::DEADLINE, |m| {
            m.text().iter().any(|row| row.trim_end() == "printed")
        })
        .await;
        assert!(
            view.model.clipboard.is_empty(),
            "a view stream gets no clipboard"
        );
    });
}

#[test]
fn files_move_on_the_sessions_node_and_another_node_refuses_them() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("files");
    let config = config_with(
        &nats,
        &dir.0,
        "[profiles.files]\ncommand = \"/bin/sh\"\nfiles = true\n",
    );
    let (_nodes, addrs) = start_nodes_with(&nats, &config, &["A", "B"]);
    let (a, b) = (addrs[0], addrs[1]);
    let id = start_session(a, "A", json!({ "profile": "files" }));
    let auth = format!("Bearer {}", common::TOKEN);
    let put = |addr| {
        let path = format!("/api/sessions/{id}/files/note.txt");
        common::http(addr, "PUT", &path, &[("Authorization", &auth)], Some(b"x"))
    };
    let r = put(b);
    assert_eq!(
        (r.status, r.code().as_str()),
        (409, "files_on_owner"),
        "{}",
        r.body
    );
    let (status, body) = call(b, "GET", &format!("/api/sessions/{id}/files?path=x"), None);
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("files_on_owner"))
    );
    let r = put(a);
    assert_eq!(r.status, 201, "{}", r.body);
}

//! Upgrading in place (SIGUSR2) against a real `panecast serve` run from a
//! copy of the binary in a temporary directory, so the test can replace
//! the file: two upgrades on one server, and between them one whose check
//! fails (the file replaced by a script that refuses), which leaves the
//! old server serving. Across the upgrades: a recorded counter whose
//! screen and recording hold each number exactly once, in order; a
//! flooding session and its viewer (closed with 1012, back at once); a
//! share link minted before; a program exiting after, its exit code
//! reported; the same pid and the same session ids.

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::process::ServerProcess;
use common::{eventually, session_id};
use panecast_proto::close;
use serde_json::{json, Value};

const TOKEN: &str = "upgrade-test-token-0123456789";
/// Numbers the counter prints in each of its three runs.
const PER_RUN: u32 = 300;

/// A temporary directory (755: sessions run as uids of their own) holding
/// a copy of the binary, the config and the recordings.
struct Place {
    dir: PathBuf,
}

impl Place {
    /// A place for a server of at most `sessions` sessions.
    fn new(what: &str, sessions: usize) -> Place {
        let dir = std::env::temp_dir().join(format!(
            "panecast-upgrade-test-{}-{what}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("recordings")).expect("the test's directory");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let config = format!(
            "recordings_dir = {:?}\nsession_uids = [60600, {}]\n\
             [limits]\nlinger_secs = 120\ngrace_ms = 300\nmax_sessions = {sessions}\n",
            dir.join("recordings").to_str().expect("utf-8 path"),
            60600 + sessions + 100,
        );
        std::fs::write(dir.join("config.toml"), config).expect("the config");
        let place = Place { dir };
        place.install_binary();
        place
    }

    fn binary(&self) -> PathBuf {
        self.dir.join("panecast")
    }

    /// Puts a fresh copy of the real binary at [`Place::binary`] (a new
    /// file renamed over the old one, as a package manager does); returns
    /// its inode.
    fn install_binary(&self) -> u64 {
        self.install(&std::fs::read(source_binary()).expect("the binary"))
    }

    /// Puts `contents`, executable, at [`Place::binary`]; returns its inode.
    fn install(&self, contents: &[u8]) -> u64 {
        let staged = self.dir.join("panecast.new");
        std::fs::write(&staged, contents).expect("stage the binary");
        std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        std::fs::rename(&staged, self.binary()).expect("replace the binary");
        std::fs::metadata(self.binary()).expect("the binary").ino()
    }
}

/// The server binary under test: this build's, or the one
/// `PANECAST_UPGRADE_BINARY` names (to measure a release build).
fn source_binary() -> PathBuf {
    std::env::var_os("PANECAST_UPGRADE_BINARY").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_panecast")),
        PathBuf::from,
    )
}

impl Drop for Place {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The inode of the file the process `pid` runs.
fn running_inode(pid: u32) -> u64 {
    std::fs::metadata(format!("/proc/{pid}/exe"))
        .expect("the server's /proc exe")
        .ino()
}

fn create(server: &ServerProcess, body: Value) -> String {
    let response = server.call("POST", "/api/sessions", Some(&body.to_string()));
    assert_eq!(response.status, 201, "{}", response.body);
    session_id(&response.json())
}

fn input(server: &ServerProcess, id: &str, text: &str) {
    let body = json!({ "text": text }).to_string();
    let response = server.call("POST", &format!("/api/sessions/{id}/input"), Some(&body));
    assert_eq!(response.status, 204, "{}", response.body);
}

/// The numbers on the screen, in order.
fn numbers(text: &str) -> Vec<u32> {
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

fn ids(server: &ServerProcess) -> Vec<String> {
    let mut ids: Vec<String> = server.call("GET", "/api/sessions", None).json()["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(session_id)
        .collect();
    ids.sort();
    ids
}

fn signal_upgrade(server: &ServerProcess) {
    // SAFETY: kill sends a signal to our own child, which is not reaped.
    assert_eq!(
        unsafe { libc::kill(server.child.id() as i32, libc::SIGUSR2) },
        0
    );
}

/// Upgrades: the viewer is closed with 1012 (and answers, as a browser
/// does), and a viewer opened at once (it waits in the backlog) is sent the
/// screen by the new image. Returns the new viewer and the pause, signal
/// to its first frame.
async fn upgrade(
    server: &ServerProcess,
    mut viewer: common::ws::Client,
    id: &str,
) -> (common::ws::Client, Duration) {
    let signalled = Instant::now();
    signal_upgrade(server);
    let closed = viewer.close_code(Duration::from_secs(30)).await;
    assert_eq!(closed.code, Some(close::SERVICE_RESTART), "{closed:?}");
    viewer.close().await;
    let mut again = common::ws::open(server.addr, TOKEN, id, "view").await;
    again
        .until(
            "the first frame after the upgrade",
            Duration::from_secs(30),
            |m| m.frames > 0,
        )
        .await;
    (again, signalled.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upgrades_keep_every_program_and_byte_and_a_refused_check_keeps_the_old_server() {
    let place = Place::new("whole", 64);
    let config = place.dir.join("config.toml");
    let mut server = ServerProcess::start_from(
        &place.binary(),
        TOKEN,
        &["--config", config.to_str().expect("utf-8 path")],
    );
    let pid = server.child.id();
    // Three runs of PER_RUN numbers, each started by a line of input, paced
    // so that a run goes on while the server upgrades.
    let script = format!(
        "i=0; for run in 1 2 3; do read go; end=$((i + {PER_RUN})); \
         while [ $i -lt $end ]; do i=$((i + 1)); echo $i; \
         [ $((i % 10)) = 0 ] && sleep 0.03; done; done; echo counted; exec sleep 1000"
    );
    let counter = create(
        &server,
        json!({"command": ["sh", "-c", script], "rows": 1000, "cols": 40, "record": true}),
    );
    let flood = create(&server, json!({"command": ["yes", "flood"]}));
    let exits = create(
        &server,
        json!({"command": ["sh", "-c", "echo waiting; read x; exit 7"]}),
    );
    let link = server.call(
        "POST",
        &format!("/api/sessions/{counter}/links"),
        Some(r#"{"role": "view", "ttl": 3600}"#),
    );
    assert_eq!(link.status, 201, "{}", link.body);
    let link_token = link.json()["token"].as_str().expect("a token").to_owned();
    let by_link = |server: &ServerProcess| {
        common::http(
            server.addr,
            "GET",
            &format!("/api/sessions/{counter}/screen?format=text"),
            &[("Authorization", &format!("Bearer {link_token}"))],
            None,
        )
    };
    let before = ids(&server);
    eventually("the exiting program to wait", || {
        server.screen(&exits).contains("waiting").then_some(())
    });

    // Upgrade 1, to a new copy of the binary, while the counter counts.
    let mut flood_viewer = common::ws::open(server.addr, TOKEN, &flood, "view").await;
    flood_viewer
        .until("the flood's first frame", Duration::from_secs(10), |m| {
            m.frames > 0
        })
        .await;
    let new_inode = place.install_binary();
    input(&server, &counter, "\r");
    eventually("the counter to start", || {
        (!numbers(&server.screen(&counter)).is_empty()).then_some(())
    });
    let (mut flood_viewer, pause) = upgrade(&server, flood_viewer, &flood).await;
    eprintln!(
        "upgrade 1: {} ms from the signal to a viewer's first frame",
        pause.as_millis()
    );
    assert_eq!(running_inode(pid), new_inode, "the new binary runs");
    assert_eq!(ids(&server), before, "the same sessions");
    flood_viewer
        .until("the flood goes on", Duration::from_secs(10), |m| {
            m.text().iter().any(|l| l.contains("flood"))
        })
        .await;
    assert_eq!(
        by_link(&server).status,
        200,
        "a link minted before works after"
    );
    input(&server, &exits, "\r");
    let ended = server_wait_exit(&server, &exits);
    assert_eq!(ended["exit_code"], 7, "{ended}");

    // A check that fails: the old server goes on, untouched.
    let checked = place.dir.join("checked");
    let refusing = format!(
        "#!/bin/sh\necho 'this binary refuses' >&2\ntouch {}\nexit 1\n",
        checked.display()
    );
    place.install(refusing.as_bytes());
    input(&server, &counter, "\r");
    let mut counter_viewer = common::ws::open(server.addr, TOKEN, &counter, "view").await;
    signal_upgrade(&server);
    eventually("the check to run", || checked.exists().then_some(()));
    let seen = numbers(&server.screen(&counter))
        .last()
        .copied()
        .unwrap_or(0);
    counter_viewer
        .until(
            "the counter goes on after the refused check",
            Duration::from_secs(20),
            |m| {
                numbers(&m.text().join("\n")).last().copied().unwrap_or(0) > seen
                    || m.text().iter().any(|l| l.contains("counted"))
            },
        )
        .await;
    assert!(counter_viewer.closed.is_none(), "no viewer was closed");
    counter_viewer.close().await;
    assert_eq!(running_inode(pid), new_inode, "the same image runs");
    assert_eq!(server.call("GET", "/healthz", None).status, 200);

    // Upgrade 2, back to the real binary, while the counter counts.
    let real_inode = place.install_binary();
    eventually("the second run to finish", || {
        numbers(&server.screen(&counter))
            .last()
            .is_some_and(|&n| n == 2 * PER_RUN)
            .then_some(())
    });
    input(&server, &counter, "\r");
    let (mut flood_viewer, pause) = upgrade(&server, flood_viewer, &flood).await;
    eprintln!(
        "upgrade 2: {} ms from the signal to a viewer's first frame",
        pause.as_millis()
    );
    assert_eq!(running_inode(pid), real_inode);
    assert_eq!(
        server.child.try_wait().expect("wait"),
        None,
        "the same process"
    );
    assert_eq!(ids(&server), before, "the same sessions");
    assert_eq!(by_link(&server).status, 200);
    let ended = server
        .call("GET", &format!("/api/sessions/{exits}"), None)
        .json();
    assert_eq!(
        (ended["running"].clone(), ended["exit_code"].clone()),
        (json!(false), json!(7))
    );
    flood_viewer
        .until("the flood goes on", Duration::from_secs(10), |m| {
            m.text().iter().any(|l| l.contains("flood"))
        })
        .await;

    // Every number exactly once, in order: on the screen and in the recording.
    let text = eventually("the counter to finish", || {
        let text = server.screen(&counter);
        text.contains("counted").then_some(text)
    });
    let expected: Vec<u32> = (1..=3 * PER_RUN).collect();
    assert_eq!(numbers(&text), expected, "the screen");
    let name = server
        .call("GET", &format!("/api/sessions/{counter}"), None)
        .json()["recording"]
        .as_str()
        .expect("recorded")
        .to_owned();
    let recorded = eventually("the recording to hold the end", || {
        let cast = server.call("GET", &format!("/api/recordings/{name}"), None);
        let output = recorded_output(&cast.body);
        output.contains("counted").then_some(output)
    });
    assert_eq!(numbers(&recorded), expected, "the recording");
    let _ = server.child.kill();
    let _ = server.child.wait();
    assert_no_state_left(pid);
}

/// The stream of `id` as a page opens it: numbering its input from 1.
async fn open_numbered(server: &ServerProcess, id: &str) -> common::ws::Client {
    let auth = format!("Bearer {TOKEN}");
    let path = format!(
        "{}&client=0123456789abcdef0123456789abcdef&input=1",
        common::ws::ws_path(id, Some("control"))
    );
    common::ws::connect(server.addr, &path, &[("Authorization", &auth)], None)
        .await
        .unwrap_or_else(|r| panic!("refused: {} {}", r.status, r.body))
}

/// A page that numbers its input sends again, after the 1012 of an
/// upgrade, what it does not know was applied: the new image knows what
/// the old one applied, and applies each input once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inputs_applied_before_an_upgrade_are_not_applied_again_after_it() {
    use panecast_proto::ClientMessage;
    let place = Place::new("inputs", 4);
    let config = place.dir.join("config.toml");
    let server = ServerProcess::start_from(
        &place.binary(),
        TOKEN,
        &["--config", config.to_str().expect("utf-8 path")],
    );
    let id = create(&server, json!({"command": ["cat"]}));
    let text = |t: &str| ClientMessage::Text { text: t.to_owned() };
    let mut before = open_numbered(&server, &id).await;
    before.send(&text("one")).await;
    before.send(&text("two")).await;
    eventually("both applied", || {
        server.screen(&id).contains("onetwo").then_some(())
    });
    signal_upgrade(&server);
    let closed = before.close_code(Duration::from_secs(30)).await;
    assert_eq!(closed.code, Some(close::SERVICE_RESTART), "{closed:?}");
    before.close().await;
    // The page never saw a Sync for them: it sends them again, and more.
    let mut after = open_numbered(&server, &id).await;
    for part in ["one", "two", "three", "\r"] {
        after.send(&text(part)).await;
    }
    eventually("the line written back", || {
        server
            .screen(&id)
            .lines()
            .any(|l| l == "onetwothree")
            .then_some(())
    });
    let shown = server.screen(&id);
    assert!(!shown.contains("onetwoone"), "applied twice: {shown}");
    assert_eq!(
        shown.lines().filter(|l| *l == "onetwothree").count(),
        2,
        "echoed once, written back once: {shown}"
    );
}

/// The upgrade pause with many idle sessions (`PANECAST_UPGRADE_SESSIONS`,
/// default 1000): signal to a viewer's first frame from the new image.
/// Run by hand: `PANECAST_UPGRADE_BINARY=target/release/panecast cargo test
/// --test upgrade -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: starts many sessions"]
async fn upgrade_pause_with_many_sessions() {
    let count: usize = std::env::var("PANECAST_UPGRADE_SESSIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let place = Place::new("many", count);
    let config = place.dir.join("config.toml");
    let server = ServerProcess::start_from(
        &place.binary(),
        TOKEN,
        &["--config", config.to_str().expect("utf-8 path")],
    );
    let started = Instant::now();
    let mut sessions = Vec::with_capacity(count);
    for _ in 0..count {
        sessions.push(create(&server, json!({"command": ["cat"]})));
    }
    eprintln!(
        "{count} sessions started in {} ms",
        started.elapsed().as_millis()
    );
    let watched = sessions[count / 2].clone();
    let mut viewer = common::ws::open(server.addr, TOKEN, &watched, "view").await;
    viewer
        .until("the first frame", Duration::from_secs(30), |m| m.frames > 0)
        .await;
    for round in 1..=2 {
        let (next, pause) = upgrade(&server, viewer, &watched).await;
        viewer = next;
        eprintln!(
            "upgrade {round} with {count} sessions: {} ms from the signal to a viewer's first frame",
            pause.as_millis()
        );
        assert_eq!(ids(&server).len(), count, "every session taken back");
    }
    input(&server, &watched, "after\r");
    viewer
        .until(
            "the echo after the upgrades",
            Duration::from_secs(10),
            |m| m.text().iter().any(|l| l.contains("after")),
        )
        .await;
}

fn server_wait_exit(server: &ServerProcess, id: &str) -> Value {
    eventually("the program to exit", || {
        let session = server
            .call("GET", &format!("/api/sessions/{id}"), None)
            .json();
        (session["running"] == false).then_some(session)
    })
}

/// The output events of an asciicast, joined; their times must not go back.
fn recorded_output(cast: &str) -> String {
    let mut last = 0.0;
    let mut output = String::new();
    for line in cast.lines().skip(1) {
        let (time, code, data): (f64, String, String) =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(time >= last, "time goes back at {line}");
        last = time;
        if code == "o" {
            output.push_str(&data);
        }
    }
    output
}

/// The state files are removed once read.
fn assert_no_state_left(pid: u32) {
    let dir: &Path = &std::env::temp_dir().join(format!("panecast-upgrade-{pid}"));
    assert!(!dir.exists(), "{} is left", dir.display());
}

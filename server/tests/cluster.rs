//! The cluster's registry and membership on a real NATS server: Debian's
//! `nats-server` with JetStream on a temporary directory, and real
//! `panecast serve --cluster` processes.
//!
//! The tests that need `nats-server` are skipped, with a line saying so,
//! when it is not installed: `tests/run.sh` installs it, so they run there;
//! a bare `cargo test` on a machine without it still passes the rest.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use panecast::cluster::{Registry, RegistryError, SessionRecord};

mod common;

use common::cluster::{
    private_file, quiet_port, runtime, serve_node, signal, Nats, TempDir, TTL_S,
};

/// A control key scoped to the sessions it starts, that may start the
/// profile `nap` (`sleep 60`).
const CI_KEY: &str = "ci-key-0123456789abcdef0123456789";
/// A view key scoped to the session named `build`.
const VIEW_KEY: &str = "view-key-0123456789abcdef01234567";

/// A config file with the tests' `[cluster]` section, the profile `nap`
/// and the keys [`CI_KEY`] and [`VIEW_KEY`].
fn config_file_with_keys(nats: &Nats, dir: &Path) -> PathBuf {
    let path = dir.join("panecast-keys.toml");
    std::fs::write(
        &path,
        format!(
            "{}\n\
             [profiles.nap]\ncommand = \"sleep\"\nargs = [\"60\"]\n\n\
             [[keys]]\nname = \"ci\"\n\
             sha256 = \"bdfc72583d1dfd61eebe2832606115319be0450f3e374042b9b703a2afb3f4ce\"\n\
             role = \"control\"\nsessions = []\nprofiles = [\"nap\"]\n\n\
             [[keys]]\nname = \"viewer\"\n\
             sha256 = \"899eb08a1dd01e0ddc1806febcb7b7e616e1e2a152a2e48b82d9e38d4a4d90f0\"\n\
             role = \"view\"\nsessions = [\"build\"]\n",
            nats.cluster_section()
        ),
    )
    .expect("write config");
    path
}

/// `POST /api/sessions` on the node at `addr`, to start on `node` (the
/// node asked, in these tests): the status and the body.
fn create(addr: SocketAddr, node: &str, body: &serde_json::Value) -> (u16, serde_json::Value) {
    create_as(addr, node, common::TOKEN, body)
}

/// `POST /api/sessions` with credential `token`.
fn create_as(
    addr: SocketAddr,
    node: &str,
    token: &str,
    body: &serde_json::Value,
) -> (u16, serde_json::Value) {
    let auth = format!("Bearer {token}");
    let mut body = body.clone();
    body["node"] = serde_json::json!(node);
    let response = common::http(
        addr,
        "POST",
        "/api/sessions",
        &[("Authorization", &auth)],
        Some(body.to_string().as_bytes()),
    );
    (response.status, response.json())
}

/// A registry for node `node` that keeps itself alive, as a node does.
async fn join(node: &str, nats: &Nats) -> std::sync::Arc<Registry> {
    let registry = Registry::connect(&nats.url, node, &nats.cluster_config())
        .await
        .unwrap_or_else(|e| panic!("node {node} joins: {e}"));
    let registry = std::sync::Arc::new(registry);
    std::sync::Arc::clone(&registry).spawn_heartbeat();
    registry
}

fn record(id: &str, node: &str, name: Option<&str>) -> SessionRecord {
    SessionRecord {
        id: id.to_owned(),
        node: node.to_owned(),
        name: name.map(str::to_owned),
        profile: Some("shell".to_owned()),
        cols: 80,
        rows: 24,
        state: "running".to_owned(),
        ..SessionRecord::default()
    }
}

#[test]
fn unreachable_nats_at_start_exits_naming_the_url() {
    let url = format!("nats://127.0.0.1:{}", quiet_port());
    let dir = TempDir::new("unreachable");
    let (key, password) = (dir.0.join("cluster.key"), dir.0.join("nats-password"));
    private_file(&key, &"k".repeat(40));
    private_file(&password, "pw");
    let config = dir.0.join("panecast.toml");
    std::fs::write(
        &config,
        format!(
            "[cluster]\nkey_file = {key:?}\nuser = \"panecast\"\npassword_file = {password:?}\n"
        ),
    )
    .expect("write config");
    let output = Command::new(env!("CARGO_BIN_EXE_panecast"))
        .args(["serve", "--listen", "127.0.0.1:0", "--token", common::TOKEN])
        .args(["--cluster", &url, "--node", "A", "--config"])
        .arg(&config)
        .env_remove("PANECAST_CONFIG")
        .stdin(Stdio::null())
        .output()
        .expect("run panecast serve");
    assert!(!output.status.success(), "serve ran without NATS");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot connect to NATS at {url}")),
        "{stderr}"
    );
    assert!(
        !String::from_utf8_lossy(&output.stdout).contains("listening"),
        "it listened before joining the cluster"
    );
}

#[test]
fn a_session_registered_on_a_is_listed_from_b_with_its_owner() {
    let Some(nats) = Nats::start() else { return };
    runtime().block_on(async {
        let (a, b) = (join("A", &nats).await, join("B", &nats).await);
        a.register(&record("s1", "A", Some("build")))
            .await
            .expect("register on A");
        b.register(&record("s2", "B", None))
            .await
            .expect("register on B");
        let listed = b.list().await.expect("list from B");
        assert_eq!(
            listed,
            vec![record("s1", "A", Some("build")), record("s2", "B", None)]
        );
        assert_eq!(b.owner("s1").await.expect("owner"), Some("A".to_owned()));
        assert_eq!(b.owner("nope").await.expect("owner"), None);

        let mut resized = record("s1", "A", Some("build"));
        resized.cols = 132;
        resized.state = "exited".to_owned();
        a.update(&resized).await.expect("update on A");
        assert_eq!(b.get("s1").await.expect("get"), Some(resized.clone()));

        a.unregister(&resized).await.expect("unregister on A");
        assert_eq!(b.list().await.expect("list"), vec![record("s2", "B", None)]);
    });
}

#[test]
fn a_name_taken_on_a_cannot_be_taken_on_b_until_freed() {
    let Some(nats) = Nats::start() else { return };
    runtime().block_on(async {
        let (a, b) = (join("A", &nats).await, join("B", &nats).await);
        let first = record("s1", "A", Some("build"));
        a.register(&first).await.expect("the name is free");
        match b.register(&record("s2", "B", Some("build"))).await {
            Err(RegistryError::NameTaken(name)) => assert_eq!(name, "build"),
            other => panic!("a second 'build' on B: {other:?}"),
        }
        assert_eq!(b.get("s2").await.expect("get"), None, "no record written");
        a.unregister(&first).await.expect("unregister");
        b.register(&record("s2", "B", Some("build")))
            .await
            .expect("the freed name");
    });
}

#[test]
fn a_killed_node_leaves_the_nodes_bucket_within_the_ttl() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("nodes");
    let config = nats.config_file(&dir.0);
    let (mut a, _) = serve_node(&nats.url, "A", &config);
    let (mut b, _) = serve_node(&nats.url, "B", &config);
    let (mut c, _) = serve_node(&nats.url, "C", &config);
    runtime().block_on(async {
        let observer = Registry::connect(&nats.url, "observer", &nats.cluster_config())
            .await
            .expect("the observer joins");
        let nodes = observer.live_nodes().await.expect("nodes");
        assert_eq!(nodes, ["A", "B", "C", "observer"]);

        // SIGKILL: no chance to leave cleanly.
        a.kill().expect("kill node A");
        let killed = Instant::now();
        let _ = a.wait();
        // B and C keep refreshing across several TTLs; A's last refresh
        // expires within one TTL of the kill, and the server's expiry
        // timer and a loaded machine get 2 s more.
        let bound = Duration::from_secs(TTL_S + 2);
        loop {
            observer.heartbeat().await.expect("the observer stays");
            let nodes = observer.live_nodes().await.expect("nodes");
            if !nodes.contains(&"A".to_owned()) {
                assert!(
                    killed.elapsed() <= bound,
                    "A left after {:?}",
                    killed.elapsed()
                );
                break;
            }
            assert!(killed.elapsed() <= bound, "A is still listed: {nodes:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_secs(2 * TTL_S)).await;
        observer.heartbeat().await.expect("the observer stays");
        let nodes = observer.live_nodes().await.expect("nodes");
        assert_eq!(nodes, ["B", "C", "observer"]);

        // SIGTERM: a clean shutdown leaves at once.
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(b.id() as i32, libc::SIGTERM) };
        let _ = b.wait();
        let nodes = observer.live_nodes().await.expect("nodes");
        assert_eq!(nodes, ["C", "observer"]);
    });
    let _ = c.kill();
    let _ = c.wait();
}

#[test]
fn sessions_created_through_the_api_are_in_the_registry_and_names_unique() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("api");
    let config = nats.config_file(&dir.0);
    let (mut a, a_addr) = serve_node(&nats.url, "A", &config);
    let (mut b, b_addr) = serve_node(&nats.url, "B", &config);
    let sleeper = serde_json::json!({ "command": ["sleep", "60"], "name": "build" });
    let (status, session) = create(a_addr, "A", &sleeper);
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().expect("an id").to_owned();

    let (status, refused) = create(b_addr, "B", &sleeper);
    assert_eq!(status, 409, "the name is A's: {refused}");
    assert_eq!(refused["code"], "name_taken", "{refused}");

    runtime().block_on(async {
        let observer = join("observer", &nats).await;
        let listed = observer.list().await.expect("list");
        let nodes = observer.live_nodes().await.expect("nodes");
        assert_eq!(listed.len(), 1, "{listed:?}, live nodes {nodes:?}");
        assert_eq!(listed[0].id, id);
        assert_eq!(listed[0].node, "A");
        assert_eq!(listed[0].name.as_deref(), Some("build"));
        assert_eq!((listed[0].cols, listed[0].rows), (80, 24));
        assert_eq!(listed[0].state, "running");

        // Resized on A: the record follows.
        let auth = format!("Bearer {}", common::TOKEN);
        let resized = common::http(
            a_addr,
            "POST",
            &format!("/api/sessions/{id}/resize"),
            &[("Authorization", &auth)],
            Some(br#"{"cols": 100, "rows": 30}"#),
        );
        assert!(resized.status < 300, "resize: {}", resized.body);
        let start = Instant::now();
        loop {
            let listed = observer.list().await.expect("list");
            if (listed[0].cols, listed[0].rows) == (100, 30) {
                break;
            }
            assert!(
                start.elapsed() < common::DEADLINE,
                "the record kept its size: {listed:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }

        // Deleted on A: gone from the registry, and the name free for B.
        let deleted = common::http(
            a_addr,
            "DELETE",
            &format!("/api/sessions/{id}"),
            &[("Authorization", &auth)],
            None,
        );
        assert!(deleted.status < 300, "delete: {}", deleted.body);
        let start = Instant::now();
        while !observer.list().await.expect("list").is_empty() {
            assert!(
                start.elapsed() < common::DEADLINE,
                "the session stayed listed"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let (status, session) = create(b_addr, "B", &sleeper);
    assert_eq!(status, 201, "the freed name on B: {session}");
    for child in [&mut a, &mut b] {
        let _ = child.kill();
        let _ = child.wait();
    }
}

#[test]
fn a_dead_nodes_sessions_leave_the_list_and_free_their_names() {
    let Some(nats) = Nats::start() else { return };
    runtime().block_on(async {
        // X announces itself once and never again, as a killed node.
        let x = Registry::connect(&nats.url, "X", &nats.cluster_config())
            .await
            .expect("node X joins");
        x.register(&record("s1", "X", Some("build")))
            .await
            .expect("register on X");
        let b = join("B", &nats).await;
        match b.register(&record("s2", "B", Some("build"))).await {
            Err(RegistryError::NameTaken(_)) => {}
            other => panic!("X is alive and holds the name: {other:?}"),
        }
        let start = Instant::now();
        while b
            .live_nodes()
            .await
            .expect("nodes")
            .contains(&"X".to_owned())
        {
            assert!(start.elapsed() < Duration::from_secs(TTL_S + 2), "X stayed");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(b.list().await.expect("list"), vec![]);
        b.register(&record("s2", "B", Some("build")))
            .await
            .expect("a dead node's name");
        assert_eq!(
            b.list().await.expect("list"),
            vec![record("s2", "B", Some("build"))]
        );
    });
}

#[test]
fn three_hundred_sessions_over_three_nodes_are_listed_whole_from_each() {
    let Some(nats) = Nats::start() else { return };
    runtime().block_on(async {
        let nodes = [
            join("A", &nats).await,
            join("B", &nats).await,
            join("C", &nats).await,
        ];
        let names = ["A", "B", "C"];
        let mut expected = Vec::new();
        for i in 0..300 {
            let node = i % 3;
            let id = format!("s{i:03}");
            let name = format!("n{i}");
            let record = record(
                &id,
                names[node],
                i.is_multiple_of(2).then_some(name.as_str()),
            );
            nodes[node].register(&record).await.expect("register");
            expected.push(record);
        }
        for (node, registry) in nodes.iter().enumerate() {
            let start = Instant::now();
            let listed = registry.list().await.expect("list");
            eprintln!(
                "node {}: listed {} sessions in {:?}",
                names[node],
                listed.len(),
                start.elapsed()
            );
            assert_eq!(listed, expected, "the list from {}", names[node]);
        }

        // Every tenth ends on its owner and every seventh is resized:
        // each node sees the others' changes at its next list.
        for record in expected.iter_mut() {
            let i: usize = record.id[1..].parse().expect("a number");
            let owner = &nodes[i % 3];
            if i.is_multiple_of(7) {
                record.cols = 132;
                owner.update(record).await.expect("update");
            }
        }
        let (gone, kept): (Vec<_>, Vec<_>) = expected
            .into_iter()
            .partition(|record| record.id.ends_with('0'));
        for record in &gone {
            let i: usize = record.id[1..].parse().expect("a number");
            nodes[i % 3].unregister(record).await.expect("unregister");
        }
        for (node, registry) in nodes.iter().enumerate() {
            let start = Instant::now();
            let listed = registry.list().await.expect("list");
            eprintln!(
                "node {}: listed {} sessions in {:?} after the changes",
                names[node],
                listed.len(),
                start.elapsed()
            );
            assert_eq!(listed, kept, "the list from {}", names[node]);
        }
    });
}

/// `GET /api/sessions` on the node at `addr` with `token`: each session's
/// (id, node), in the list's order.
fn list_as(addr: SocketAddr, token: &str) -> Vec<(String, String)> {
    let auth = format!("Bearer {token}");
    let response = common::http(
        addr,
        "GET",
        "/api/sessions",
        &[("Authorization", &auth)],
        None,
    );
    assert_eq!(response.status, 200, "{}", response.body);
    let list = response.json();
    list["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| {
            (
                s["id"].as_str().expect("id").to_owned(),
                s["node"].as_str().expect("node").to_owned(),
            )
        })
        .collect()
}

#[test]
fn every_node_lists_the_clusters_sessions_by_the_same_access_rule() {
    let Some(nats) = Nats::start() else { return };
    let dir = TempDir::new("list");
    let config = config_file_with_keys(&nats, &dir.0);
    let (mut a, a_addr) = serve_node(&nats.url, "A", &config);
    let (mut b, b_addr) = serve_node(&nats.url, "B", &config);
    let id = |(status, session): (u16, serde_json::Value)| {
        assert_eq!(status, 201, "{session}");
        session["id"].as_str().expect("an id").to_owned()
    };
    let build = id(create(
        a_addr,
        "A",
        &serde_json::json!({ "command": ["sleep", "60"], "name": "build" }),
    ));
    let other = id(create(
        a_addr,
        "A",
        &serde_json::json!({ "command": ["sleep", "60"] }),
    ));
    let ci = id(create_as(
        a_addr,
        "A",
        CI_KEY,
        &serde_json::json!({ "profile": "nap" }),
    ));
    let on_b = id(create(
        b_addr,
        "B",
        &serde_json::json!({ "command": ["sleep", "60"] }),
    ));

    let everything = vec![
        (build.clone(), "A".to_owned()),
        (other, "A".to_owned()),
        (ci.clone(), "A".to_owned()),
        (on_b.clone(), "B".to_owned()),
    ];
    for addr in [a_addr, b_addr] {
        assert_eq!(list_as(addr, common::TOKEN), everything, "oldest first");
        // A key reaches the sessions it started, wherever it lists.
        assert_eq!(list_as(addr, CI_KEY), vec![(ci.clone(), "A".to_owned())]);
        // A key scoped by name reaches the session of that name.
        assert_eq!(
            list_as(addr, VIEW_KEY),
            vec![(build.clone(), "A".to_owned())]
        );
    }
    let auth = format!("Bearer {}", common::TOKEN);
    let shown = common::http(
        b_addr,
        "GET",
        &format!("/api/sessions/{on_b}"),
        &[("Authorization", &auth)],
        None,
    );
    assert_eq!(shown.json()["node"], "B", "{}", shown.body);
    for child in [&mut a, &mut b] {
        let _ = child.kill();
        let _ = child.wait();
    }
}

#[test]
fn the_lowest_live_node_removes_a_dead_nodes_records() {
    let Some(nats) = Nats::start() else { return };
    runtime().block_on(async {
        // X announces itself once and never again, as a killed node.
        let x = Registry::connect(&nats.url, "X", &nats.cluster_config())
            .await
            .expect("node X joins");
        x.register(&record("s1", "X", Some("build")))
            .await
            .expect("register on X");
        x.register(&record("s2", "X", None))
            .await
            .expect("register on X");
        let (b, _c) = (join("B", &nats).await, join("C", &nats).await);
        assert_eq!(
            b.get("s1").await.expect("get").map(|r| r.node),
            Some("X".to_owned())
        );
        let start = Instant::now();
        // X's key expires within the TTL; B (the lowest) sees it gone at
        // its next heartbeat, a third of the TTL later, and removes its
        // records once it has seen it gone for one more TTL.
        let bound = Duration::from_secs(2 * TTL_S + 2 * (TTL_S / 3) + 2);
        while b.get("s1").await.expect("get").is_some() || b.get("s2").await.expect("get").is_some()
        {
            assert!(start.elapsed() < bound, "X's records stayed");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        eprintln!("X's records removed after {:?}", start.elapsed());
        // Its name can be taken again.
        x.register(&record("s3", "X", Some("build")))
            .await
            .expect("the freed name");
    });
}

/// `GET /api/sessions` on the node at `addr` as the admin: each session's
/// (id, node, name), in the list's order.
fn list_named(addr: SocketAddr) -> Vec<(String, String, Option<String>)> {
    let auth = format!("Bearer {}", common::TOKEN);
    let response = common::http(
        addr,
        "GET",
        "/api/sessions",
        &[("Authorization", &auth)],
        None,
    );
    assert_eq!(response.status, 200, "{}", response.body);
    response.json()["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| {
            (
                s["id"].as_str().expect("id").to_owned(),
                s["node"].as_str().expect("node").to_owned(),
                s["name"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

/// Polls `list_named(addr)` until `done` holds of it, failing after
/// `bound` with `what` and the last list.
fn wait_for_list(
    addr: SocketAddr,
    bound: Duration,
    what: &str,
    done: impl Fn(&[(String, String, Option<String>)]) -> bool,
) -> Duration {
    let start = Instant::now();
    loop {
        let listed = list_named(addr);
        if done(&listed) {
            return start.elapsed();
        }
        assert!(start.elapsed() < bound, "{what}: {listed:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Two real nodes and a session named `build` on A, with A stopped
/// (SIGSTOP) until B's list no longer shows the session and its record is
/// reaped (2 x TTL after A's last refresh, plus the reaper's tick). The
/// nodes are killed when it drops.
struct Paused {
    a: Child,
    b: Child,
    a_addr: SocketAddr,
    b_addr: SocketAddr,
    id: String,
    _dir: TempDir,
    nats: Nats,
}

impl Paused {
    /// Starts it all, or `None` when `nats-server` is not installed.
    fn start() -> Option<Paused> {
        let nats = Nats::start()?;
        let dir = TempDir::new("paused");
        let config = nats.config_file(&dir.0);
        let (a, a_addr) = serve_node(&nats.url, "A", &config);
        let (b, b_addr) = serve_node(&nats.url, "B", &config);
        let sleeper = serde_json::json!({ "command": ["sleep", "120"], "name": "build" });
        let (status, session) = create(a_addr, "A", &sleeper);
        assert_eq!(status, 201, "{session}");
        let id = session["id"].as_str().expect("an id").to_owned();
        let named = (id.clone(), "A".to_owned(), Some("build".to_owned()));
        wait_for_list(
            b_addr,
            common::DEADLINE,
            "B never listed A's session",
            |l| l.contains(&named),
        );
        signal(&a, libc::SIGSTOP);
        let paused = Paused {
            a,
            b,
            a_addr,
            b_addr,
            id,
            _dir: dir,
            nats,
        };
        // A's key expires within the TTL (plus a refresh's third).
        let gone = wait_for_list(
            b_addr,
            Duration::from_secs(TTL_S + 2),
            "A's session stayed in B's list",
            |l| l.iter().all(|(id, _, _)| id != &paused.id),
        );
        // Its record is reaped 2 x TTL after A's last refresh, not before.
        runtime().block_on(async {
            let observer =
                Registry::connect(&paused.nats.url, "observer", &paused.nats.cluster_config())
                    .await
                    .expect("observer joins");
            let start = Instant::now();
            while observer.get(&paused.id).await.expect("get").is_some() {
                assert!(
                    start.elapsed() < Duration::from_secs(TTL_S + TTL_S / 3 + 3),
                    "A's record was never reaped"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            // Reaped a TTL after A left the list (its key expired), not at
            // the reaper's next tick.
            assert!(
                start.elapsed() >= Duration::from_secs(TTL_S - 1),
                "A's record was reaped {:?} after A left the list",
                start.elapsed()
            );
            eprintln!(
                "A left B's list after {gone:?}, its record was reaped {:?} later",
                start.elapsed()
            );
        });
        Some(paused)
    }
}

impl Drop for Paused {
    fn drop(&mut self) {
        for child in [&mut self.a, &mut self.b] {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Within this of SIGCONT a node is back in every list: its next
/// heartbeat (a third of the TTL) and a list's wait.
fn back_within() -> Duration {
    Duration::from_secs(TTL_S / 3 + 1) + common::DEADLINE
}

#[test]
fn a_paused_node_comes_back_with_its_sessions_and_names() {
    let Some(paused) = Paused::start() else {
        return;
    };
    signal(&paused.a, libc::SIGCONT);
    let named = (paused.id.clone(), "A".to_owned(), Some("build".to_owned()));
    let back = wait_for_list(
        paused.b_addr,
        back_within(),
        "A's session did not come back to B's list with its name",
        |l| l == [named.clone()],
    );
    eprintln!("A's session back in B's list {back:?} after SIGCONT");
    // The name is A's session's again: B cannot take it.
    let sleeper = serde_json::json!({ "command": ["sleep", "120"], "name": "build" });
    let (status, refused) = create(paused.b_addr, "B", &sleeper);
    assert_eq!(status, 409, "the name is A's again: {refused}");
    assert_eq!(list_named(paused.a_addr), [named]);
}

#[test]
fn a_paused_nodes_name_taken_meanwhile_stays_with_the_new_session() {
    let Some(paused) = Paused::start() else {
        return;
    };
    // While A is gone its name is free: B's new session takes it.
    let sleeper = serde_json::json!({ "command": ["sleep", "120"], "name": "build" });
    let (status, session) = create(paused.b_addr, "B", &sleeper);
    assert_eq!(status, 201, "A's name while A is gone: {session}");
    let taker = session["id"].as_str().expect("an id").to_owned();
    signal(&paused.a, libc::SIGCONT);
    // A's session is back, running, without the name; B's keeps it; both
    // nodes list the same two sessions, one named.
    let mut expected = vec![
        (paused.id.clone(), "A".to_owned(), None),
        (taker, "B".to_owned(), Some("build".to_owned())),
    ];
    expected.sort();
    for addr in [paused.b_addr, paused.a_addr] {
        wait_for_list(
            addr,
            back_within(),
            "A's session did not come back without the name",
            |l| {
                let mut l = l.to_vec();
                l.sort();
                l == expected
            },
        );
    }
}

#[test]
fn nodes_started_together_on_a_fresh_nats_all_join() {
    let Some(nats) = Nats::start() else { return };
    runtime().block_on(async {
        // Four nodes make the buckets at once: each finds none, and all
        // but one find their create refused.
        let config = nats.cluster_config();
        let joined = futures_util::future::join_all(
            ["A", "B", "C", "D"].map(|node| Registry::connect(&nats.url, node, &config)),
        )
        .await;
        for registry in joined {
            let registry = registry.expect("every node joins");
            registry
                .share_links(
                    std::sync::Arc::new(
                        panecast::access::Access::new(
                            common::TOKEN,
                            &[],
                            Duration::from_secs(60),
                            4,
                        )
                        .expect("access"),
                    ),
                    Duration::from_secs(60),
                )
                .await
                .expect("and shares links");
        }
    });
}

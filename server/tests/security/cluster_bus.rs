//! The cluster bus (the third way in of the second trial): a process on
//! the bus that holds the nodes' own NATS credentials (the worst case) but
//! not the bus key can neither forge, change nor replay an ask; an ask
//! sealed with the key is still checked by the session's owner as if it
//! came from outside; and in the documented setup a session's program
//! cannot connect to the bus at all. Real nats-server, real nodes.

use std::net::SocketAddr;
use std::process::Child;
use std::time::Duration;

use async_nats::Client;
use ciborium::Value;
use futures_util::StreamExt;
use panecast::cluster::{BusKey, Kind, Seal};
use serde_json::json;

use crate::common::cluster::{call, runtime, serve_node_with, Nats, TempDir};
use crate::common::isolation::runs_as_root;
use crate::common::{self, eventually};

/// A view key of the nodes' configuration.
const VIEW_KEY: &str = "bus-view-key-0123456789abcdef0123";

/// Two nodes, A (no `--allow-any-command`, its log kept) and B (with it),
/// killed when dropped.
struct Pair {
    nodes: Vec<Child>,
    a: SocketAddr,
    b: SocketAddr,
    log: std::path::PathBuf,
    _dir: TempDir,
}

impl Drop for Pair {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            let _ = node.kill();
            let _ = node.wait();
        }
    }
}

fn pair(nats: &Nats) -> Pair {
    let dir = TempDir::new("bus");
    let config = dir.0.join("panecast.toml");
    let digest =
        panecast::access::secret::hex(&panecast::access::secret::hash(VIEW_KEY.as_bytes()));
    std::fs::write(
        &config,
        format!(
            "{}\n[profiles.shell]\ncommand = \"/bin/sh\"\n\n\
             [[keys]]\nname = \"watcher\"\nsha256 = \"{digest}\"\nrole = \"view\"\n",
            nats.cluster_section()
        ),
    )
    .expect("write config");
    let log = dir.0.join("a.log");
    let (node_a, a) = serve_node_with(&nats.url, "A", &config, &[], Some(&log));
    let (node_b, b) = serve_node_with(&nats.url, "B", &config, &["--allow-any-command"], None);
    Pair {
        nodes: vec![node_a, node_b],
        a,
        b,
        log,
        _dir: dir,
    }
}

/// The count of `panecast_bus_refused_total` for `reason` on the node.
fn refused(addr: SocketAddr, reason: &str) -> u64 {
    let auth = format!("Bearer {}", common::TOKEN);
    let metrics = common::http(addr, "GET", "/metrics", &[("Authorization", &auth)], None).body;
    let line = format!("panecast_bus_refused_total{{reason=\"{reason}\"}} ");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(&line))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {line} in {metrics}"))
}

/// The number of `panecast_bus_denied_total` on the node.
fn denied(addr: SocketAddr) -> u64 {
    let auth = format!("Bearer {}", common::TOKEN);
    let metrics = common::http(addr, "GET", "/metrics", &[("Authorization", &auth)], None).body;
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("panecast_bus_denied_total "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no panecast_bus_denied_total in {metrics}"))
}

/// A client of the bus with the nodes' NATS user (but not the bus key).
async fn intruder(nats: &Nats) -> Client {
    let seed = std::fs::read_to_string(nats.seed_file()).expect("the seed");
    async_nats::ConnectOptions::with_nkey(seed.trim().to_owned())
        .connect(&nats.url)
        .await
        .expect("the nodes' user connects")
}

/// The payload of a sealed message: the bytes between its fixed header
/// (version, kind, sender, boot, seq, time) and its tag. A seal signs,
/// it does not hide: anyone on the bus reads an ask.
fn payload_of(sealed: &[u8]) -> Option<&[u8]> {
    let sender_len = usize::from(*sealed.get(2)?);
    sealed.get(3 + sender_len + 24..sealed.len().checked_sub(32)?)
}

/// What a sealed ask carries, as CBOR.
fn ask_of(sealed: &[u8]) -> Option<Value> {
    ciborium::from_reader(payload_of(sealed)?).ok()
}

/// The name of an ask's variant (`Create`, `Input`, `Watch`, ...).
fn variant(ask: &Value) -> Option<String> {
    match ask {
        Value::Map(entries) => entries.first()?.0.as_text().map(str::to_owned),
        Value::Text(name) => Some(name.clone()),
        _ => None,
    }
}

/// The Create and Input asks to node A a session named `name` is started
/// with and typed `text` into, through node B, as the intruder sees them:
/// each its subject and its sealed bytes.
async fn sniff_session(
    client: &Client,
    b: SocketAddr,
    name: &str,
    text: &str,
) -> [(String, Vec<u8>); 2] {
    let mut asks = client
        .subscribe("panecast.ask.A.>")
        .await
        .expect("subscribe");
    client.flush().await.expect("flush");
    let start = json!({"profile": "shell", "node": "A", "name": name});
    let (status, body) = call(b, "POST", "/api/sessions", Some(start));
    assert_eq!(status, 201, "{body}");
    let typed = json!({ "text": text });
    let path = format!("/api/sessions/{name}/input");
    let (status, body) = call(b, "POST", &path, Some(typed));
    assert_eq!(status, 204, "{body}");
    // Both were answered before their calls returned: each is on its way
    // to this subscriber too, however late it reads.
    let mut create = None;
    let mut input = None;
    let mut seen = Vec::new();
    while create.is_none() || input.is_none() {
        let message = tokio::time::timeout(common::DEADLINE, asks.next())
            .await
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("no Create and Input asks among {seen:?}"));
        let Some(name) = ask_of(&message.payload).as_ref().and_then(variant) else {
            continue;
        };
        let found = Some((message.subject.to_string(), message.payload.to_vec()));
        match name.as_str() {
            "Create" => create = found,
            "Input" => input = found,
            _ => {}
        }
        seen.push(name);
    }
    // The loop ends only once both are found.
    [create, input].map(|ask| ask.expect("found"))
}

/// Whether anything answers `payload` published on `subject` within a
/// second (a refused ask is never answered).
async fn answered(client: &Client, subject: &str, payload: Vec<u8>) -> bool {
    let request = async_nats::Request::new()
        .payload(payload.into())
        .timeout(Some(Duration::from_secs(1)));
    client
        .send_request(subject.to_owned(), request)
        .await
        .is_ok()
}

/// The screen's text of session `id` on `addr`.
fn screen(addr: SocketAddr, id: &str) -> String {
    let auth = format!("Bearer {}", common::TOKEN);
    let path = format!("/api/sessions/{id}/screen?format=text");
    common::http(addr, "GET", &path, &[("Authorization", &auth)], None).body
}

/// The screen of session `id` once it shows `marker`; on the deadline, a
/// failure that shows the screen as it last was.
fn screen_showing(addr: SocketAddr, id: &str, marker: &str) -> String {
    let start = std::time::Instant::now();
    loop {
        let text = screen(addr, id);
        if text.contains(marker) {
            return text;
        }
        assert!(
            start.elapsed() < common::DEADLINE,
            "no {marker} on the screen by the deadline: {text}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn key_of(nats: &Nats) -> BusKey {
    BusKey::load(&nats.key_file()).expect("the bus key")
}

#[test]
fn forged_replayed_and_tampered_asks_are_refused_and_logged() {
    let Some(nats) = Nats::start() else { return };
    let nodes = pair(&nats);
    runtime().block_on(async {
        let client = intruder(&nats).await;
        // A session on A, started and typed into through B: the asks the
        // intruder sniffs.
        let [(create_subject, create), (input_subject, input)] =
            sniff_session(&client, nodes.b, "target", "echo one-$((40+2))\r").await;
        let id = input_subject.rsplit('.').next().expect("an id").to_owned();
        eventually("the echo", || {
            screen(nodes.a, &id).contains("one-42").then_some(())
        });
        let before = screen(nodes.a, &id).matches("one-42").count();

        // Replayed as they were: never answered, never applied.
        assert!(
            !answered(&client, &create_subject, create.clone()).await,
            "a replayed create was answered"
        );
        assert!(
            !answered(&client, &input_subject, input.clone()).await,
            "a replayed input was answered"
        );
        assert_eq!(refused(nodes.a, "replayed"), 2);
        // Changed: one byte of what each carries (as the trial set user to
        // root in a create), then sealed with a key of the intruder's own,
        // then not sealed at all (the ask's CBOR alone).
        let stranger = Seal::new(
            &BusKey::from_secret("the-intruders-own-key-0123456789ab").expect("a key"),
            "B",
        )
        .expect("a seal");
        for (subject, sealed) in [(&create_subject, &create), (&input_subject, &input)] {
            let mut changed = sealed.clone();
            let middle = changed.len() / 2;
            changed[middle] ^= 0x01;
            assert!(!answered(&client, subject, changed).await, "{subject}");
            let payload = payload_of(sealed).expect("a payload");
            let forged = stranger.seal(Kind::Ask, subject, payload);
            assert!(!answered(&client, subject, forged).await, "{subject}");
            assert!(
                !answered(&client, subject, payload.to_vec()).await,
                "{subject}"
            );
        }
        assert_eq!(refused(nodes.a, "bad_tag"), 4);
        assert_eq!(refused(nodes.a, "malformed"), 2);

        // Nothing of it reached the session or the node.
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(screen(nodes.a, &id).matches("one-42").count(), before);
        let (_, list) = call(nodes.a, "GET", "/api/sessions", None);
        assert_eq!(list["sessions"].as_array().map(Vec::len), Some(1), "{list}");
        let log = std::fs::read_to_string(&nodes.log).expect("A's log");
        assert!(log.contains("bus_refused"), "{log}");
    });
}

/// `ask` with its `by` replaced by `principal`.
fn acting_for(mut ask: Value, principal: Value) -> Value {
    if let Value::Map(entries) = &mut ask {
        if let Some((_, Value::Map(fields))) = entries.first_mut() {
            for (name, value) in fields.iter_mut() {
                if name.as_text() == Some("by") {
                    *value = principal.clone();
                }
            }
        }
    }
    ask
}

/// A principal of the key named `name`, as nodes write one.
fn key_principal(name: &str) -> Value {
    Value::Map(vec![
        (
            Value::Text("credential".into()),
            Value::Map(vec![(Value::Text("Key".into()), Value::Text(name.into()))]),
        ),
        (Value::Text("groups".into()), Value::Array(vec![])),
        (Value::Text("link".into()), Value::Null),
    ])
}

/// Sends `ask` sealed with the nodes' key to `subject`; the answer's
/// variant and body.
async fn ask_sealed(client: &Client, seal: &Seal, subject: &str, ask: &Value) -> Value {
    let mut cbor = Vec::new();
    ciborium::into_writer(ask, &mut cbor).expect("cbor");
    let request = async_nats::Request::new()
        .payload(seal.seal(Kind::Ask, subject, &cbor).into())
        .timeout(Some(Duration::from_secs(5)));
    let answer = client
        .send_request(subject.to_owned(), request)
        .await
        .expect("a sealed ask is answered");
    let opened = seal
        .open(Kind::Answer, answer.subject.as_str(), &answer.payload)
        .expect("the owner seals its answer");
    ciborium::from_reader(opened.payload).expect("an answer")
}

#[test]
fn a_sealed_ask_is_still_checked_as_if_it_came_from_outside() {
    let Some(nats) = Nats::start() else { return };
    let nodes = pair(&nats);
    runtime().block_on(async {
        let client = intruder(&nats).await;
        // A node that holds the key: what it seals opens, and is judged.
        let node = Seal::new(&key_of(&nats), "mallory").expect("a seal");
        let [(create_subject, create), (input_subject, input)] =
            sniff_session(&client, nodes.b, "judged", "true\r").await;
        let create = ask_of(&create).expect("cbor");
        let input = ask_of(&input).expect("cbor");

        // Typed by a view key: refused by A's own role table.
        let answer = ask_sealed(
            &client,
            &node,
            &input_subject,
            &acting_for(input, key_principal("watcher")),
        )
        .await;
        assert_eq!(variant(&answer).as_deref(), Some("Refused"), "{answer:?}");
        // Started by a view key, or by a key A has never heard of.
        for who in ["watcher", "nobody"] {
            let answer = ask_sealed(
                &client,
                &node,
                &create_subject,
                &acting_for(create.clone(), key_principal(who)),
            )
            .await;
            assert_eq!(
                variant(&answer).as_deref(),
                Some("NotCreated"),
                "{who}: {answer:?}"
            );
        }
        // A request that names a user (the trial's `user: root`), or a
        // command A does not allow (it runs without --allow-any-command).
        for body in [
            json!({"profile": "shell", "user": "root"}),
            json!({"command": ["id"]}),
        ] {
            let mut ask = create.clone();
            if let Value::Map(entries) = &mut ask {
                if let Some((_, Value::Map(fields))) = entries.first_mut() {
                    for (name, value) in fields.iter_mut() {
                        if name.as_text() == Some("request") {
                            *value = Value::Bytes(body.to_string().into_bytes());
                        }
                    }
                }
            }
            let answer = ask_sealed(&client, &node, &create_subject, &ask).await;
            assert_eq!(
                variant(&answer).as_deref(),
                Some("NotCreated"),
                "{body}: {answer:?}"
            );
        }
        assert_eq!(denied(nodes.a), 5);
        // Through the real path too: B takes a command (it runs with
        // --allow-any-command), A does not.
        let (status, body) = call(
            nodes.b,
            "POST",
            "/api/sessions",
            Some(json!({"command": ["id"], "node": "A"})),
        );
        assert_eq!(
            (status, body["code"].as_str()),
            (403, Some("forbidden")),
            "{body}"
        );
        assert_eq!(denied(nodes.a), 6);
        let (_, list) = call(nodes.a, "GET", "/api/sessions", None);
        assert_eq!(list["sessions"].as_array().map(Vec::len), Some(1), "{list}");
        let log = std::fs::read_to_string(&nodes.log).expect("A's log");
        assert!(
            log.contains("bus_denied") && log.contains("mallory"),
            "{log}"
        );
    });
}

#[test]
fn a_sessions_program_cannot_reach_the_bus() {
    if !runs_as_root() {
        return;
    }
    let Some(nats) = Nats::start() else { return };
    let nodes = pair(&nats);
    let port = nats.url.rsplit(':').next().expect("a port").to_owned();
    let (seed, key) = (nats.seed_file(), nats.key_file());
    // What a session's program tries: the nodes' secrets, then the bus
    // itself without them (NATS's protocol by hand: CONNECT, SUB, PING).
    // The three lines go in one write (coreutils' printf buffers a socket;
    // bash's builtin writes line by line): NATS closes the connection on
    // the CONNECT, and a later write would kill the shell with SIGPIPE.
    let script = format!(
        "cat {seed} {key}; \
         timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} || exit; \
         /usr/bin/printf \"CONNECT {{\\\"verbose\\\":false}}\\r\\nSUB panecast.> 1\\r\\nPING\\r\\n\" >&3; \
         timeout 2 cat <&3'; echo bus=$?; \
         echo; echo done=1",
        seed = seed.display(),
        key = key.display(),
    );
    let (status, body) = call(
        nodes.b,
        "POST",
        "/api/sessions",
        Some(json!({"command": ["/bin/bash", "-c", script], "node": "B"})),
    );
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_str().expect("an id").to_owned();
    let shown = screen_showing(nodes.b, &id, "done=1");
    assert_eq!(shown.matches("Permission denied").count(), 2, "{shown}");
    assert!(shown.contains("ERR 'Authorization Violation'"), "{shown}");
    let secret = std::fs::read_to_string(&seed).expect("the seed");
    assert!(!shown.contains(secret.trim()), "the seed leaked: {shown}");
}

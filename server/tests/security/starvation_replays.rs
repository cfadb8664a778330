//! Replay slots: clients that leave free theirs at once, even while the
//! replay is still being prepared, and no credential takes every slot.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use crate::common::ws::{self, Client};
use crate::common::{Server, TOKEN};
use crate::support::{keyed_config, VIEW_KEY};

const LIMIT: Duration = Duration::from_secs(60);
/// Erases in the recording.
const ERASES: usize = 800;

/// A small recording whose preparation takes seconds: a 1000x1000
/// terminal erased over and over (each erase touches a million cells).
fn slow_recording() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("panecast-starved-replays-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the recordings directory");
    let mut text = String::from("{\"version\": 2, \"width\": 1000, \"height\": 1000}\n");
    let screen = "\x1b[41m\x1b[2J".repeat(ERASES / 100);
    for i in 0..100 {
        let event = serde_json::to_string(&(i as f64 * 0.01, "o", &screen)).expect("json");
        text.push_str(&event);
        text.push('\n');
    }
    std::fs::write(dir.join("big.cast"), text).expect("write the recording");
    dir
}

/// Sends the upgrade request for the replay of `big` with `token`, reads
/// the status code, and leaves (the socket closes).
fn upgrade_and_leave(addr: SocketAddr, token: &str) -> u16 {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(LIMIT))
        .expect("a read timeout");
    let request = format!(
        "GET /api/recordings/big/ws HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
         Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: panecast.v1\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).expect("a status line");
    let line = String::from_utf8_lossy(&head).into_owned();
    line[9..12]
        .parse()
        .unwrap_or_else(|_| panic!("not a status line: {line}"))
}

/// Opens the replay of `big` with `token`.
async fn open(addr: SocketAddr, token: &str) -> Result<Client, u16> {
    let auth = format!("Bearer {token}");
    ws::connect(
        addr,
        "/api/recordings/big/ws",
        &[("Authorization", &auth)],
        None,
    )
    .await
    .map_err(|refused| refused.status)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_slots_of_clients_that_left_are_free_at_once_and_no_credential_takes_them_all() {
    let mut config = keyed_config();
    config.recordings_dir = slow_recording();
    config.limits.max_replays = 3;
    let server = Server::start(config);
    let addr = server.addr;

    // What one preparation costs: from the upgrade to the replay's state.
    let started = Instant::now();
    let mut first = open(addr, TOKEN).await.expect("a replay");
    first
        .until("the replay is prepared", LIMIT, |m| {
            m.replay.as_ref().is_some_and(|r| r.duration_ms > 0)
        })
        .await;
    let prepared = started.elapsed();
    first.close().await;

    // The attack: ten upgrades whose clients leave at once. Each replay
    // stops preparing when its client has gone, and its slot is free:
    // together they take less than one preparation.
    let started = Instant::now();
    let attack = tokio::task::spawn_blocking(move || {
        for _ in 0..10 {
            while upgrade_and_leave(addr, TOKEN) != 101 {
                assert!(started.elapsed() < LIMIT, "the slots never came back");
                // The slot is given back as the server sees the socket close.
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    });
    attack.await.expect("the attack ran");
    let cut = started.elapsed();
    assert!(
        cut < prepared,
        "ten left upgrades took {cut:?}, one preparation {prepared:?}"
    );

    // No credential takes every slot: the admin token holds its two, and
    // a third is refused while the view key still gets one.
    let mut held = Vec::new();
    while held.len() < 2 {
        match open(addr, TOKEN).await {
            Ok(client) => held.push(client),
            Err(status) => assert_eq!(status, 429, "only busy slots delay"),
        }
    }
    assert_eq!(open(addr, TOKEN).await.err(), Some(429));
    let other = open(addr, VIEW_KEY).await;
    assert!(other.is_ok(), "the view key gets the third slot");
}

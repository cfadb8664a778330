//! Flow (PROTOCOL.md, "Flow"), end to end: a real server, a program that
//! floods its terminal, and a WebSocket client on an emulated mobile link
//! (tools/netsim: 150 ms round trip, 1.6 Mbit/s down). A client that
//! reports what it has had (`Received`) is sent frames only while its
//! window allows, so the screen it shows stays within a second of the
//! program's output however long the flood lasts; one that reports nonsense
//! is closed.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::netsim::Netsim;
use common::ws::{self, Kind};
use common::{session_id, test_config, Server, TOKEN};
use panecast_proto::{close, ClientMessage};
use serde_json::json;
use tokio::time::Instant;

/// Writes lines as fast as the terminal takes them, each starting with the
/// time it was written (milliseconds since the epoch) and filled with
/// random hex, which compresses to about half: on a 200 by 60 screen the
/// frames want more than the link carries.
const FLOOD: &str = "import os, sys, time\n\
w = sys.stdout.write\n\
while True:\n    w('%d %s\\n' % (time.time() * 1000, os.urandom(90).hex()))\n";

/// A client reports at least this often (PROTOCOL.md asks for every 16 KiB).
const REPORT_EVERY: u64 = 16 * 1024;

fn now_ms() -> u64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970");
    since.as_millis() as u64
}

/// The newest time stamp the screen shows, if any line has one.
fn newest_stamp(lines: &[String]) -> Option<u64> {
    lines
        .iter()
        .filter_map(|line| line.split(' ').next()?.parse::<u64>().ok())
        .max()
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_reporting_what_it_had_stays_within_a_second_of_a_flood_on_a_mobile_link() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(
        &["/usr/bin/python3", "-c", FLOOD],
        json!({ "cols": 200, "rows": 60 }),
    ));
    let netsim = Netsim::start(server.addr, "mobile").await;
    let auth = format!("Bearer {TOKEN}");
    let path = format!("{}&deflate=1", ws::ws_path(&id, Some("view")));
    let mut client = ws::connect(netsim.addr, &path, &[("Authorization", &auth)], None)
        .await
        .unwrap_or_else(|r| panic!("refused: {} {}", r.status, r.body));
    let start = Instant::now();
    // The first seconds open the window from its least: not measured.
    let measure_from = start + Duration::from_secs(3);
    let end = start + Duration::from_secs(12);
    let mut reported = 0;
    let mut lags = Vec::new();
    while let Some(kind) = client.next(end).await {
        if kind == Kind::Sync || client.bytes - reported >= REPORT_EVERY {
            reported = client.bytes;
            client
                .send(&ClientMessage::Received { bytes: reported })
                .await;
        }
        if kind == Kind::Frame && Instant::now() >= measure_from {
            if let Some(stamp) = newest_stamp(&client.model.text()) {
                lags.push(now_ms().saturating_sub(stamp));
            }
        }
    }
    assert!(client.closed.is_none(), "closed: {:?}", client.closed);
    lags.sort_unstable();
    assert!(lags.len() >= 20, "only {} frames in 9 s", lags.len());
    let (p50, p99) = (percentile(&lags, 0.5), percentile(&lags, 0.99));
    eprintln!(
        "{} frames: the screen shown lagged the program by p50 {p50} ms, p99 {p99} ms; {} bytes",
        lags.len(),
        client.bytes
    );
    assert!(p99 < 1000, "p99 lag {p99} ms (p50 {p50} ms)");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_report_of_more_than_was_sent_closes_the_connection() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["sleep", "60"], json!({})));
    let mut client = ws::open(server.addr, TOKEN, &id, "view").await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while client.model.frames == 0 {
        client.next(deadline).await.expect("the first frame");
    }
    client
        .send(&ClientMessage::Received {
            bytes: client.bytes + 1_000_000,
        })
        .await;
    let closed = client.close_code(Duration::from_secs(10)).await;
    assert_eq!(closed.code, Some(close::PROTOCOL_ERROR), "{closed:?}");
    assert!(closed.reason.contains("more bytes"), "{closed:?}");
}

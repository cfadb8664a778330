//! Slow viewers' memory: viewers of a big screen that never read cost the
//! server one shared encoding and a bounded queue each, never a copy of
//! the screen each, even when the screen changes under every one of them.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::process::ServerProcess;
use crate::common::{eventually, ws};
use crate::support::runtime;

const TOKEN: &str = "memory-test-token-0123";
/// Viewers that never read.
const VIEWERS: usize = 64;
/// Most the server's memory may grow for all of them together.
const GROWTH_BOUND: u64 = 24 << 20;
/// Most the server's memory may grow for them when the screen changes under
/// them: a MiB a viewer, with the allocator's slack from encoding a screen
/// for each. (A screen of their own, as each held before, is 8 MiB.)
const CHANGING_GROWTH_BOUND: u64 = (VIEWERS as u64) << 20;

/// A session whose 1000x1000 screen is full of coloured text, and then
/// stays as it is; returns its id.
fn full_screen(server: &ServerProcess) -> String {
    let fill = "i=0; while [ $i -lt 1000 ]; do printf '\\033[3%dm%0990d\\n' $((i % 8)) $i; \
                i=$((i + 1)); done; printf done; sleep 600";
    let body = json!({ "command": ["sh", "-c", fill], "cols": 1000, "rows": 1000 }).to_string();
    let created = server.call("POST", "/api/sessions", Some(&body));
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.json()["id"].as_str().expect("an id").to_owned();
    let screen = format!("/api/sessions/{id}/screen");
    eventually("the screen is full", || {
        server
            .call("GET", &screen, None)
            .body
            .contains("done")
            .then_some(())
    });
    id
}

#[test]
fn viewers_of_a_big_screen_that_never_read_do_not_each_hold_a_copy_of_it() {
    let server = ServerProcess::start(TOKEN);
    let id = full_screen(&server);
    let runtime = runtime();
    let auth = format!("Bearer {TOKEN}");
    let path = ws::ws_path(&id, Some("view"));
    // One viewer that reads the whole screen: the shared encoding exists.
    runtime.block_on(read_until(server.addr, &path, &auth, "done"));
    let before = server.rss();
    // The attack: viewers with a tiny receive buffer that never read.
    let _silent: Vec<ws::Client> = runtime.block_on(async {
        let mut silent = Vec::new();
        for _ in 0..VIEWERS {
            let client =
                ws::connect(server.addr, &path, &[("Authorization", &auth)], Some(4096)).await;
            silent.push(client.expect("a viewer"));
        }
        silent
    });
    let session = format!("/api/sessions/{id}");
    eventually("every silent viewer has joined", || {
        let views = server.call("GET", &session, None).json()["viewers"]["view"].as_u64();
        (views == Some(VIEWERS as u64)).then_some(())
    });
    // Each viewer's first frame is under way as it joins: watch the
    // server's memory for a while for its peak.
    let (mut peak, until) = (0, Instant::now() + Duration::from_secs(2));
    while Instant::now() < until {
        peak = peak.max(server.rss());
        std::thread::sleep(Duration::from_millis(50));
    }
    let growth = peak.saturating_sub(before);
    assert!(
        growth < GROWTH_BOUND,
        "{VIEWERS} silent viewers grew the server from {} to {} MiB",
        before >> 20,
        peak >> 20
    );
    // The server still serves a reading viewer at once.
    runtime.block_on(read_until(server.addr, &path, &auth, "done"));
}

#[test]
fn viewers_of_a_changing_big_screen_that_never_read_hold_one_piece_each() {
    let server = ServerProcess::start(TOKEN);
    // A 1000x1000 screen rewritten over and over: each viewer that joins
    // starts from a screen no other viewer has.
    let flood = "i=0; while :; do i=$((i+1)); printf '\\033[H'; \
                 yes \"line $i\" | head -c 2000000; done";
    let body =
        json!({ "command": ["sh", "-c", flood], "cols": 1000, "rows": 1000, "scrollback": 0 })
            .to_string();
    let created = server.call("POST", "/api/sessions", Some(&body));
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.json()["id"].as_str().expect("an id").to_owned();
    let runtime = runtime();
    let auth = format!("Bearer {TOKEN}");
    let path = ws::ws_path(&id, Some("view"));
    let before = server.rss();
    let mut silent = Vec::new();
    let mut peak = before;
    for _ in 0..VIEWERS {
        let client = runtime.block_on(ws::connect(
            server.addr,
            &path,
            &[("Authorization", &auth)],
            Some(4096),
        ));
        silent.push(client.expect("a viewer"));
        // The screen moves on before the next one joins.
        std::thread::sleep(Duration::from_millis(20));
        peak = peak.max(server.rss());
    }
    // Each has stalled on its first frame, then let go of the rest of it.
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        peak = peak.max(server.rss());
        std::thread::sleep(Duration::from_millis(50));
    }
    let settled = server.rss();
    let growth = settled.saturating_sub(before);
    assert!(
        growth < CHANGING_GROWTH_BOUND,
        "{VIEWERS} silent viewers of a changing screen hold the server at {} MiB (from {} MiB, peak {} MiB)",
        settled >> 20,
        before >> 20,
        peak >> 20
    );
    // A reader still gets the screen.
    runtime.block_on(read_until(server.addr, &path, &auth, "line "));
    drop(silent);
}

/// Opens a viewer at `path` that reads until a line of the screen starts
/// with `start`, then closes.
async fn read_until(addr: std::net::SocketAddr, path: &str, auth: &str, start: &str) {
    let mut reader = ws::connect(addr, path, &[("Authorization", auth)], None)
        .await
        .expect("a viewer");
    reader
        .until(
            &format!("a line starting with {start:?}"),
            Duration::from_secs(60),
            |m| m.text().iter().any(|l| l.starts_with(start)),
        )
        .await;
    reader.close().await;
}

#[test]
fn a_viewer_that_stalls_then_reads_again_gets_the_whole_screen() {
    let server = ServerProcess::start(TOKEN);
    let id = full_screen(&server);
    let runtime = runtime();
    let auth = format!("Bearer {TOKEN}");
    let path = ws::ws_path(&id, Some("view"));
    runtime.block_on(async {
        let mut viewer = ws::connect(server.addr, &path, &[("Authorization", &auth)], Some(4096))
            .await
            .expect("a viewer");
        // Long enough for the server to give up the rest of the first
        // frame; the screen does not change after, so only the server's
        // making good the frame it gave up brings the last rows.
        tokio::time::sleep(Duration::from_secs(3)).await;
        viewer
            .until("the whole screen", Duration::from_secs(60), |m| {
                m.text().iter().any(|l| l.starts_with("done"))
            })
            .await;
    });
}

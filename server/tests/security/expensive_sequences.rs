//! A program printing expensive sequences cannot hold its session: DECRARA
//! over a 1000x1000 screen (`ESC[;;;;7$t`, 9 bytes for a million cells)
//! printed in a loop is parsed a slice of work at a time, so a resize, a
//! DELETE and the server's shutdown are served between slices instead of
//! after the whole chunk (a 64 KiB chunk of it once took minutes).

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{session_id, test_config, Server};

/// Longest wait for a command to a session whose program loops DECRARA.
const COMMAND_BOUND: Duration = Duration::from_secs(1);
/// Longest shutdown of a server with such a session.
const SHUTDOWN_BOUND: Duration = Duration::from_secs(5);

/// A 1000x1000 session printing `x` and a whole-screen DECRARA, forever;
/// returned once the loop's output is on the screen.
fn decrara_loop(server: &Server) -> String {
    let session = server.create(
        &["yes", "x\x1b[;;;;7$t"],
        json!({ "cols": 1000, "rows": 1000 }),
    );
    let id = session_id(&session);
    server.wait_screen(&id, "the DECRARA loop's output", |s| s.contains('x'));
    id
}

#[test]
fn a_decrara_loop_cannot_delay_resize_or_delete() {
    let server = Server::start(test_config());
    let id = decrara_loop(&server);

    let start = Instant::now();
    let r = server.call(
        "POST",
        &format!("/api/sessions/{id}/resize"),
        Some(&json!({ "cols": 1000, "rows": 999 }).to_string()),
    );
    let took = start.elapsed();
    assert_eq!(r.status, 204, "resize: {}", r.body);
    assert!(took < COMMAND_BOUND, "resize took {took:?}");

    let start = Instant::now();
    let r = server.delete(&id);
    let took = start.elapsed();
    assert_eq!(r.status, 200, "delete: {}", r.body);
    eprintln!("DELETE of a DECRARA loop took {took:?}");
    assert!(took < COMMAND_BOUND, "DELETE took {took:?}");
}

#[test]
fn a_decrara_loop_cannot_delay_shutdown() {
    let server = Server::start(test_config());
    decrara_loop(&server);
    let start = Instant::now();
    server.stop();
    let took = start.elapsed();
    eprintln!("shutdown with a DECRARA loop took {took:?}");
    assert!(took < SHUTDOWN_BOUND, "shutdown took {took:?}");
}

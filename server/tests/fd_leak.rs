//! After 100 sessions come and go, the server's open descriptors are back
//! where they started. Alone in its binary: the count is per process, and
//! other tests running beside it would open descriptors of their own.

mod common;

use std::time::{Duration, Instant};

use common::{alive, eventually, open_fds, test_config, Server, DEADLINE};
use serde_json::json;

#[test]
fn a_hundred_sessions_leave_no_descriptor_behind() {
    let server = Server::start(test_config());
    // One session first, so anything opened once and kept (a lazily opened
    // /dev/ptmx helper, a thread-local) is in the baseline.
    let warm_up = server.create(&["true"], json!({}));
    let id = warm_up["id"].as_str().expect("id").to_owned();
    server.wait_exit(&id);
    assert_eq!(server.delete(&id).status, 200);
    let baseline = eventually("the warm-up to settle", || {
        let before = open_fds();
        std::thread::sleep(Duration::from_millis(100));
        (open_fds() == before).then_some(before)
    });

    for i in 0..100 {
        // Half exit by themselves, half are deleted while running.
        let argv: &[&str] = if i % 2 == 0 {
            &["sh", "-c", "echo done"]
        } else {
            &["cat"]
        };
        let session = server.create(argv, json!({ "cols": 40, "rows": 10 }));
        let id = session["id"].as_str().expect("id").to_owned();
        if i % 2 == 0 {
            server.wait_exit(&id);
        }
        let response = server.delete(&id);
        assert_eq!(response.status, 200, "{}", response.body);
    }

    // A session whose child leaves a process holding the terminal open (out
    // of reach of the hangup): ending it must still release every descriptor.
    let session = server.create(
        &[
            "sh",
            "-c",
            "trap '' HUP; setsid sleep 1000 & echo bg=$!; exit 0",
        ],
        json!({}),
    );
    let id = session["id"].as_str().expect("id").to_owned();
    let escaped = server.background_pid(&id);
    server.wait_exit(&id);
    assert!(
        alive(escaped),
        "the escaped process held the terminal after the exit"
    );
    assert_eq!(server.delete(&id).status, 200);

    let list = server.call("GET", "/api/sessions", None).json();
    assert_eq!(list["sessions"], json!([]));
    // Threads and sockets close just after the answers: poll, don't sleep.
    let start = Instant::now();
    let mut open = open_fds();
    while open > baseline && start.elapsed() < DEADLINE {
        std::thread::sleep(Duration::from_millis(20));
        open = open_fds();
    }
    // SAFETY: kill only sends a signal to the process this test started
    // (deleting the session has normally ended it already).
    unsafe { libc::kill(escaped as i32, libc::SIGKILL) };
    assert!(
        open <= baseline,
        "{open} descriptors open, {baseline} before"
    );
}

//! `/metrics` counts what operators watch: viewers by role, stream frames
//! and bytes sent, input bytes, and authentication failures.

mod common;

use std::time::Duration;

use common::{session_id, test_config, Server, TOKEN};

/// The value of the sample `name` (with its labels) in a metrics body.
fn sample(body: &str, name: &str) -> u64 {
    body.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {name} in\n{body}"))
        .parse()
        .expect("a number")
}

#[tokio::test]
async fn viewers_frames_input_and_auth_failures_are_counted() {
    let server = Server::start(test_config());
    let metrics = || {
        let response = server.call("GET", "/metrics", None);
        assert_eq!(response.status, 200, "{}", response.body);
        response.body
    };
    let before = metrics();
    assert_eq!(sample(&before, "panecast_viewers{role=\"view\"}"), 0);
    assert_eq!(sample(&before, "panecast_auth_failures_total"), 0);

    let id = session_id(&server.create(&["cat"], serde_json::json!({})));
    let mut viewer = common::ws::open(server.addr, TOKEN, &id, "view").await;
    let mut controller = common::ws::open(server.addr, TOKEN, &id, "control").await;
    for client in [&mut viewer, &mut controller] {
        client
            .until("the first frame", Duration::from_secs(10), |m| m.frames > 0)
            .await;
    }
    let typed = server.call(
        "POST",
        &format!("/api/sessions/{id}/input"),
        Some(r#"{"text": "hello\r"}"#),
    );
    assert_eq!(typed.status, 204, "{}", typed.body);
    let refused = server.raw(
        "GET",
        "/api/sessions",
        &[("Authorization", "Bearer wrong")],
        None,
    );
    assert_eq!(refused.status, 401);

    let after = metrics();
    assert_eq!(sample(&after, "panecast_viewers{role=\"view\"}"), 1);
    assert_eq!(sample(&after, "panecast_viewers{role=\"control\"}"), 1);
    assert_eq!(sample(&after, "panecast_input_bytes_total"), 6);
    assert_eq!(sample(&after, "panecast_auth_failures_total"), 1);
    let frames = sample(&after, "panecast_stream_frames_sent_total");
    let bytes = sample(&after, "panecast_stream_bytes_sent_total");
    assert!(frames >= 4, "hello and a frame to each viewer: {frames}");
    assert!(bytes > frames, "{bytes} bytes in {frames} messages");
    viewer.close().await;
    controller.close().await;
}

#[tokio::test]
async fn backpressure_and_skipped_frames_are_counted() {
    let server = Server::start(test_config());
    let metrics = || server.call("GET", "/metrics", None).body;
    assert_eq!(
        sample(&metrics(), "panecast_pty_backpressure_waits_total"),
        0
    );
    assert_eq!(
        sample(&metrics(), "panecast_stream_frames_skipped_total"),
        0
    );
    // A flood of long lines in a wide terminal outruns the parser (the
    // reader waits for the session), and a viewer with a small receive
    // buffer that stops reading skips screens.
    let id = session_id(&server.create(
        &[
            "sh",
            "-c",
            "read go; seq -f %0180.0f 1 100000; echo flood-done; exec cat",
        ],
        serde_json::json!({"cols": 200, "rows": 50}),
    ));
    let auth = format!("Bearer {TOKEN}");
    let path = common::ws::ws_path(&id, Some("view"));
    let mut viewer =
        common::ws::connect(server.addr, &path, &[("Authorization", &auth)], Some(4096))
            .await
            .unwrap_or_else(|r| panic!("refused: {} {}", r.status, r.body));
    viewer
        .until("the first frame", Duration::from_secs(10), |m| m.frames > 0)
        .await;
    server.call(
        "POST",
        &format!("/api/sessions/{id}/input"),
        Some(r#"{"text": "\r"}"#),
    );
    common::eventually("the flood to end", || {
        server.screen(&id).contains("flood-done").then_some(())
    });
    viewer
        .until("the last screen", Duration::from_secs(30), |m| {
            (0..m.lines.len()).any(|r| m.row_text(r) == "flood-done")
        })
        .await;
    let after = metrics();
    assert!(
        sample(&after, "panecast_pty_backpressure_waits_total") > 0,
        "{after}"
    );
    assert!(
        sample(&after, "panecast_stream_frames_skipped_total") > 0,
        "{after}"
    );
    viewer.close().await;
}

//! Resizing beyond the limits, over both transports: the session enforces
//! them, so neither can bypass them.

use std::time::Duration;

use panecast_proto::{close, ClientMessage};
use serde_json::json;

use crate::common::{session_id, test_config, ws, Server, TOKEN};

#[tokio::test]
async fn no_transport_resizes_past_the_limits() {
    let mut config = test_config();
    config.limits.max_cols = 200;
    config.limits.max_rows = 100;
    let server = Server::start(config);
    let id = session_id(&server.create(&["cat"], json!({"cols": 80, "rows": 24})));
    for body in [
        r#"{"cols": 201, "rows": 24}"#,
        r#"{"cols": 80, "rows": 101}"#,
        r#"{"cols": 0, "rows": 24}"#,
        r#"{"cols": 70000, "rows": 24}"#,
    ] {
        let r = server.call("POST", &format!("/api/sessions/{id}/resize"), Some(body));
        assert_eq!((r.status, r.code().as_str()), (400, "bad_size"), "{body}");
    }
    let auth = format!("Bearer {TOKEN}");
    let mut client = ws::connect(
        server.addr,
        &ws::ws_path(&id, Some("control")),
        &[("Authorization", &auth)],
        None,
    )
    .await
    .unwrap_or_else(|r| panic!("refused: {}", r.status));
    client
        .until("hello", Duration::from_secs(10), |m| m.hello.is_some())
        .await;
    client
        .send(&ClientMessage::Resize {
            cols: 1000,
            rows: 1000,
        })
        .await;
    client
        .until("a warning", Duration::from_secs(10), |m| {
            m.errors
                .iter()
                .any(|(code, _)| *code == close::INPUT_DROPPED)
        })
        .await;
    let message = &client.model.errors[0].1;
    assert!(message.contains("out of range"), "{message}");
    let session = server.session(&id);
    assert_eq!(
        (session["cols"].clone(), session["rows"].clone()),
        (json!(80), json!(24))
    );
}

/// A viewer that is not the driver never resizes the program, and a view
/// connection cannot take the driver's seat: a phone that opens a session
/// does not shrink it for everyone.
#[tokio::test]
async fn only_the_driver_resizes_and_a_viewer_cannot_take_control() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["cat"], json!({"cols": 80, "rows": 24})));
    let open = |role: &'static str| {
        let addr = server.addr;
        let id = id.clone();
        async move {
            let mut client = ws::open(addr, TOKEN, &id, role).await;
            client
                .until("the first frame", Duration::from_secs(10), |m| m.frames > 0)
                .await;
            client
        }
    };
    let mut driver = open("control").await;
    let mut phone = open("control").await;
    phone
        .send(&ClientMessage::Resize { cols: 40, rows: 20 })
        .await;
    phone.send(&ClientMessage::Ping { token: 7 }).await;
    phone
        .until("the pong", Duration::from_secs(10), |m| {
            m.pongs.contains(&7)
        })
        .await;
    let mut watcher = open("view").await;
    watcher.send(&ClientMessage::TakeControl).await;
    let closed = watcher.close_code(Duration::from_secs(10)).await;
    assert_eq!(closed.code, Some(close::POLICY_VIOLATION));
    let session = server.session(&id);
    assert_eq!(
        (session["cols"].clone(), session["rows"].clone()),
        (json!(80), json!(24))
    );
    let people = &session["viewers"]["people"];
    assert_eq!(people[0]["drives"], true, "{people}");
    driver
        .send(&ClientMessage::Resize {
            cols: 100,
            rows: 30,
        })
        .await;
    driver
        .until("its own size", Duration::from_secs(10), |m| {
            m.full_sizes.last() == Some(&(100, 30))
        })
        .await;
}

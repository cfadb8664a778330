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

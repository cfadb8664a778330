//! Cross-site requests riding the browser's cookie: writes and the stream.

use serde_json::json;

use crate::common::{session_id, ws, Server, TOKEN};
use crate::support::keyed_config;

#[test]
fn a_cookie_write_from_another_origin_or_not_json_is_refused() {
    let server = Server::start(keyed_config());
    let cookie = format!("panecast_token={TOKEN}");
    let same = format!("http://{}", server.addr);
    for (what, origin, content_type) in [
        (
            "another origin on the same site",
            Some("http://127.0.0.1:8080"),
            "application/json",
        ),
        (
            "a foreign site",
            Some("https://evil.example"),
            "application/json",
        ),
        ("no Origin", None, "application/json"),
        (
            "a form post (text/plain)",
            Some(same.as_str()),
            "text/plain",
        ),
    ] {
        let mut headers = vec![("Cookie", cookie.as_str()), ("Content-Type", content_type)];
        if let Some(origin) = origin {
            headers.push(("Origin", origin));
        }
        let r = server.raw("POST", "/api/sessions", &headers, Some(b"{}"));
        assert_eq!((r.status, r.code().as_str()), (403, "csrf"), "{what}");
    }
    assert!(server.call("GET", "/api/sessions", None).json()["sessions"]
        .as_array()
        .expect("list")
        .is_empty());
    // The same page, as JSON: allowed.
    let r = server.raw(
        "POST",
        "/api/sessions",
        &[
            ("Cookie", &cookie),
            ("Content-Type", "application/json"),
            ("Origin", &same),
        ],
        Some(br#"{"profile": "cat"}"#),
    );
    assert_eq!(r.status, 201, "{}", r.body);
}

#[tokio::test]
async fn cross_site_websocket_hijacking_is_refused() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let cookie = format!("panecast_token={TOKEN}");
    let closed = ws::refused_for_origin(
        server.addr,
        &ws::ws_path(&id, Some("control")),
        &[("Cookie", &cookie), ("Origin", "https://evil.example")],
    )
    .await;
    assert!(closed.reason.contains("allowed_origins"), "{closed:?}");
}

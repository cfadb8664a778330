//! `base_path`: every page, asset, API route, the WebSocket stream and the
//! cookie live under the prefix, and nothing answers outside it.

mod common;

use std::time::Duration;

use common::ws;
use common::{session_id, test_config, Server, TOKEN};

fn server_under(base: &str) -> Server {
    let mut config = test_config();
    config.base_path = base.to_owned();
    Server::start(config)
}

#[test]
fn every_route_lives_under_the_prefix() {
    let server = server_under("/term");
    let auth = format!("Bearer {TOKEN}");
    let headers = [("Authorization", auth.as_str())];
    for path in [
        "/term/",
        "/term/healthz",
        "/term/metrics",
        "/term/web/page.js",
        "/term/api/sessions",
        "/term/api/profiles",
    ] {
        let response = server.raw("GET", path, &headers, None);
        assert_eq!(response.status, 200, "{path}: {}", response.body);
    }
    for path in [
        "/",
        "/healthz",
        "/metrics",
        "/web/page.js",
        "/api/sessions",
        "/termx/",
    ] {
        let response = server.raw("GET", path, &headers, None);
        assert_eq!(response.status, 404, "{path}: {}", response.body);
        assert_eq!(response.code(), "not_found", "{path}");
    }
}

#[test]
fn the_bare_prefix_redirects_to_the_session_list() {
    let server = server_under("/term");
    let response = server.raw("GET", "/term", &[], None);
    assert_eq!(response.status, 308, "{}", response.body);
    assert_eq!(response.header("location"), Some("/term/"));
}

#[test]
fn the_token_cookie_is_scoped_to_the_prefix_and_the_redirect_keeps_it() {
    let server = server_under("/a/b");
    let response = server.raw(
        "GET",
        &format!("/a/b/s/x?token={TOKEN}&role=view"),
        &[],
        None,
    );
    assert_eq!(response.status, 303, "{}", response.body);
    assert_eq!(response.header("location"), Some("/a/b/s/x?role=view"));
    let cookie = response.header("set-cookie").expect("a cookie");
    assert!(cookie.contains("; Path=/a/b/;"), "{cookie}");
    let root = server_under("");
    let response = root.raw("GET", &format!("/?token={TOKEN}"), &[], None);
    assert_eq!(response.header("location"), Some("/"));
    let cookie = response.header("set-cookie").expect("a cookie");
    assert!(cookie.contains("; Path=/;"), "{cookie}");
}

#[tokio::test]
async fn sessions_and_the_stream_work_under_the_prefix() {
    let server = server_under("/term");
    let body = serde_json::json!({ "command": ["cat"] }).to_string();
    let auth = format!("Bearer {TOKEN}");
    let response = server.raw(
        "POST",
        "/term/api/sessions",
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        Some(body.as_bytes()),
    );
    assert_eq!(response.status, 201, "{}", response.body);
    let id = session_id(&response.json());
    let page = server.raw(
        "GET",
        &format!("/term/s/{id}"),
        &[("Authorization", &auth)],
        None,
    );
    assert_eq!(page.status, 200, "{}", page.body);
    let path = format!("/term/api/sessions/{id}/ws?role=view");
    let mut client = ws::connect(server.addr, &path, &[("Authorization", &auth)], None)
        .await
        .unwrap_or_else(|r| panic!("the upgrade was refused: {} {}", r.status, r.body));
    client
        .until("the first frame", Duration::from_secs(10), |m| m.frames > 0)
        .await;
    assert_eq!(client.model.cols, 80);
    let outside = format!("/api/sessions/{id}/ws?role=view");
    let refused = ws::connect(server.addr, &outside, &[("Authorization", &auth)], None).await;
    assert_eq!(refused.err().map(|r| r.status), Some(404));
}

#[test]
fn pages_send_no_referrer() {
    let server = server_under("");
    let page = server.raw("GET", "/", &[], None);
    assert_eq!(page.status, 200);
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
}

//! The Origin checks compare the scheme too: a page served over http is
//! not the origin of a server reached over https (directly or through a
//! trusted proxy that says so), and the other way round.

use serde_json::json;

use crate::common::{session_id, test_config, ws, Server, TOKEN};

/// A cookie-authenticated input from a page on `origin`.
fn input(server: &Server, origin: &str, proto: Option<&str>) -> (u16, String) {
    let id = session_id(&server.create(&["cat"], json!({})));
    let cookie = format!("panecast_token={TOKEN}");
    let mut headers = vec![
        ("Cookie", cookie.as_str()),
        ("Content-Type", "application/json"),
        ("Origin", origin),
    ];
    if let Some(proto) = proto {
        headers.push(("X-Forwarded-Proto", proto));
    }
    let r = server.raw(
        "POST",
        &format!("/api/sessions/{id}/input"),
        &headers,
        Some(br#"{"text": "x"}"#),
    );
    let code = if r.body.starts_with('{') {
        r.code()
    } else {
        String::new()
    };
    (r.status, code)
}

#[test]
fn an_http_page_may_not_write_to_the_server_reached_over_https() {
    let mut config = test_config();
    config.trusted_proxies = vec!["127.0.0.1".into()];
    let server = Server::start(config);
    let http = format!("http://{}", server.addr);
    let https = format!("https://{}", server.addr);
    assert_eq!(input(&server, &http, Some("https")), (403, "csrf".into()));
    assert_eq!(input(&server, &https, Some("https")).0, 204);
}

#[test]
fn an_https_page_is_not_the_origin_of_a_plain_http_server() {
    let server = Server::start(test_config());
    let http = format!("http://{}", server.addr);
    let https = format!("https://{}", server.addr);
    assert_eq!(input(&server, &https, None), (403, "csrf".into()));
    // An untrusted peer's X-Forwarded-Proto changes nothing.
    assert_eq!(input(&server, &https, Some("https")), (403, "csrf".into()));
    assert_eq!(input(&server, &http, None).0, 204);
}

#[tokio::test]
async fn a_stream_from_a_page_of_the_other_scheme_is_refused() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let cookie = format!("panecast_token={TOKEN}");
    let origin = format!("https://{}", server.addr);
    let closed = ws::refused_for_origin(
        server.addr,
        &ws::ws_path(&id, Some("view")),
        &[("Cookie", &cookie), ("Origin", &origin)],
    )
    .await;
    assert!(closed.reason.contains("X-Forwarded-Proto"), "{closed:?}");
}

#[tokio::test]
async fn a_proxy_that_drops_the_port_from_host_is_named_as_the_cause() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let cookie = format!("panecast_token={TOKEN}");
    // What nginx's `proxy_set_header Host $host;` sends for a page on :8443.
    let closed = ws::refused_for_origin(
        server.addr,
        &ws::ws_path(&id, Some("view")),
        &[
            ("Cookie", &cookie),
            ("Origin", "http://127.0.0.1:8443"),
            ("Host", "127.0.0.1"),
        ],
    )
    .await;
    assert!(closed.reason.contains("$http_host"), "{closed:?}");
    // The event stream (plain HTTP) answers 403 with the whole reason.
    let response = crate::common::http(
        server.addr,
        "GET",
        &format!("/api/sessions/{id}/events"),
        &[
            ("Cookie", &cookie),
            ("Origin", "http://127.0.0.1:8443"),
            ("Host", "127.0.0.1"),
        ],
        None,
    );
    assert_eq!(response.status, 403, "{}", response.body);
    assert!(
        response.body.contains("origin_forbidden") && response.body.contains("$http_host"),
        "{}",
        response.body
    );
}

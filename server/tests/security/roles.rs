//! The role table and scopes: what view, control and scoped credentials
//! may not do, and that out-of-scope sessions do not exist for them.

use std::time::Duration;

use panecast_proto::{self as proto, close, ClientMessage};
use serde_json::{json, Value};

use crate::common::{session_id, ws, Server};
use crate::support::{
    as_, keyed_config, mint, status, CONTROL_KEY, SCOPED_KEY, STARTER_KEY, VIEW_KEY,
};

const LIMIT: Duration = Duration::from_secs(10);

#[test]
fn a_view_key_cannot_create_type_delete_or_share() {
    let server = Server::start_with(keyed_config(), false);
    let id = session_id(
        &server
            .call("POST", "/api/sessions", Some(r#"{"profile": "cat"}"#))
            .json(),
    );
    let cases = [
        (
            "POST",
            "/api/sessions".to_owned(),
            Some(r#"{"profile": "cat"}"#),
        ),
        (
            "POST",
            format!("/api/sessions/{id}/input"),
            Some(r#"{"text": "x"}"#),
        ),
        (
            "POST",
            format!("/api/sessions/{id}/resize"),
            Some(r#"{"cols": 10, "rows": 5}"#),
        ),
        ("DELETE", format!("/api/sessions/{id}"), None),
        ("POST", format!("/api/sessions/{id}/links"), Some("{}")),
        ("GET", format!("/api/sessions/{id}/links"), None),
    ];
    for (method, path, body) in cases {
        let r = as_(&server, VIEW_KEY, method, &path, body);
        assert_eq!(
            (r.status, r.code().as_str()),
            (403, "forbidden"),
            "view key: {method} {path}"
        );
    }
    assert_eq!(
        status(
            &server,
            VIEW_KEY,
            "GET",
            &format!("/api/sessions/{id}/screen"),
            None
        ),
        200
    );
    // A control key types and resizes, but does not delete or share.
    assert_eq!(
        status(
            &server,
            CONTROL_KEY,
            "POST",
            &format!("/api/sessions/{id}/input"),
            Some(r#"{"text": "x"}"#)
        ),
        204
    );
    assert_eq!(
        status(
            &server,
            CONTROL_KEY,
            "DELETE",
            &format!("/api/sessions/{id}"),
            None
        ),
        403
    );
    assert_eq!(
        status(
            &server,
            CONTROL_KEY,
            "POST",
            &format!("/api/sessions/{id}/links"),
            Some("{}")
        ),
        403
    );
    let view: Value = as_(
        &server,
        VIEW_KEY,
        "GET",
        &format!("/api/sessions/{id}"),
        None,
    )
    .json();
    assert_eq!(view["access"], "view");
}

#[test]
fn a_scoped_key_sees_only_its_sessions_and_gets_404_for_others() {
    let server = Server::start_with(keyed_config(), false);
    let htop = session_id(
        &server
            .call(
                "POST",
                "/api/sessions",
                Some(r#"{"profile": "cat", "name": "htop"}"#),
            )
            .json(),
    );
    let other = session_id(
        &server
            .call("POST", "/api/sessions", Some(r#"{"profile": "cat"}"#))
            .json(),
    );
    let list: Value = as_(&server, SCOPED_KEY, "GET", "/api/sessions", None).json();
    let ids: Vec<&str> = list["sessions"]
        .as_array()
        .expect("list")
        .iter()
        .map(|s| s["id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(ids, [htop.as_str()]);
    for path in [
        format!("/api/sessions/{other}"),
        format!("/api/sessions/{other}/screen"),
        format!("/api/sessions/{other}/ws"),
    ] {
        let r = as_(&server, SCOPED_KEY, "GET", &path, None);
        assert_eq!(
            (r.status, r.code().as_str()),
            (404, "session_not_found"),
            "{path}"
        );
    }
    // The name reaches the session wherever the id does.
    assert_eq!(
        status(
            &server,
            SCOPED_KEY,
            "GET",
            "/api/sessions/htop/screen",
            None
        ),
        200
    );
    // A second running session cannot take the name.
    let r = server.call(
        "POST",
        "/api/sessions",
        Some(r#"{"profile": "cat", "name": "htop"}"#),
    );
    assert_eq!((r.status, r.code().as_str()), (409, "name_taken"));
}

#[test]
fn a_starting_key_starts_its_profiles_and_reaches_only_what_it_started() {
    let server = Server::start_with(keyed_config(), false);
    let foreign = session_id(
        &server
            .call("POST", "/api/sessions", Some(r#"{"profile": "cat"}"#))
            .json(),
    );
    let r = as_(
        &server,
        STARTER_KEY,
        "POST",
        "/api/sessions",
        Some(r#"{"profile": "cat"}"#),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let mine = session_id(&r.json());
    assert_eq!(
        status(
            &server,
            STARTER_KEY,
            "POST",
            &format!("/api/sessions/{mine}/input"),
            Some(r#"{"text": "x"}"#)
        ),
        204
    );
    assert_eq!(
        status(
            &server,
            STARTER_KEY,
            "GET",
            &format!("/api/sessions/{foreign}"),
            None
        ),
        404
    );
    let r = as_(
        &server,
        STARTER_KEY,
        "POST",
        "/api/sessions",
        Some(r#"{"profile": "shell"}"#),
    );
    assert_eq!((r.status, r.code().as_str()), (403, "forbidden"));
    let profiles: Value = as_(&server, STARTER_KEY, "GET", "/api/profiles", None).json();
    assert_eq!(profiles, json!(["cat"]));
}

#[tokio::test]
async fn a_view_link_gets_a_view_stream_and_typing_closes_it_with_1008() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let link = mint(&server, &id, "view");
    let auth = format!("Bearer {}", link["token"].as_str().expect("token"));
    let mut client = ws::connect(
        server.addr,
        &ws::ws_path(&id, Some("control")),
        &[("Authorization", &auth)],
        None,
    )
    .await
    .unwrap_or_else(|r| panic!("refused: {} {}", r.status, r.body));
    client.until("hello", LIMIT, |m| m.hello.is_some()).await;
    assert_eq!(
        client.model.hello.as_ref().map(|h| h.role),
        Some(proto::Role::View),
        "asked control, told view"
    );
    client
        .send(&ClientMessage::Text {
            text: "rm -rf /\r".into(),
        })
        .await;
    let closed = client.close_code(LIMIT).await;
    assert_eq!(closed.code, Some(close::POLICY_VIOLATION));
    // Over HTTP: 403.
    let r = as_(
        &server,
        link["token"].as_str().expect("token"),
        "POST",
        &format!("/api/sessions/{id}/input"),
        Some(r#"{"text": "x"}"#),
    );
    assert_eq!(r.status, 403);
}

//! Share links: one session only, revocation closes streams within a
//! second with 4003, and they end with their session.

use std::time::{Duration, Instant};

use panecast_proto::close;
use serde_json::{json, Value};

use crate::common::{session_id, ws, Server};
use crate::support::{as_, keyed_config, mint, revoke, status};

const LIMIT: Duration = Duration::from_secs(10);

#[test]
fn a_link_reaches_its_own_session_and_nothing_else() {
    let server = Server::start(keyed_config());
    let mine = session_id(&server.create(&["cat"], json!({})));
    let other = session_id(&server.create(&["cat"], json!({})));
    let link = mint(&server, &mine, "control");
    let token = link["token"].as_str().expect("token");
    assert!(link["url"]
        .as_str()
        .expect("url")
        .ends_with(&format!("/s/{mine}#t={token}")));
    assert_eq!(
        status(
            &server,
            token,
            "GET",
            &format!("/api/sessions/{mine}/screen"),
            None
        ),
        200
    );
    assert_eq!(
        status(
            &server,
            token,
            "GET",
            &format!("/api/sessions/{other}/screen"),
            None
        ),
        404
    );
    assert_eq!(
        status(
            &server,
            token,
            "POST",
            &format!("/api/sessions/{other}/input"),
            Some(r#"{"text":"x"}"#)
        ),
        404
    );
    let list: Value = as_(&server, token, "GET", "/api/sessions", None).json();
    assert_eq!(list["sessions"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        status(&server, token, "POST", "/api/sessions", Some("{}")),
        403
    );
    // Listing shows no token.
    let listed = server.call("GET", &format!("/api/sessions/{mine}/links"), None);
    assert!(!listed.body.contains(token), "{}", listed.body);
    assert_eq!(listed.json()["links"][0]["role"], "control");
}

#[tokio::test]
async fn revoking_closes_the_links_streams_within_a_second() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let link = mint(&server, &id, "view");
    let protocol = format!(
        "panecast, panecast.token.{}",
        link["token"].as_str().expect("token")
    );
    let mut client = ws::connect(
        server.addr,
        &ws::ws_path(&id, Some("view")),
        &[("Sec-WebSocket-Protocol", &protocol)],
        None,
    )
    .await
    .unwrap_or_else(|r| panic!("refused: {} {}", r.status, r.body));
    client
        .until("the first frame", LIMIT, |m| m.frames > 0)
        .await;
    let listed: Value = server
        .call("GET", &format!("/api/sessions/{id}/links"), None)
        .json();
    assert_eq!(listed["links"][0]["viewers"], 1);
    assert_eq!(
        server.session(&id)["viewers"],
        json!({"view": 1, "control": 0, "people": [
            {"name": "", "kind": "link", "role": "view", "drives": false, "connections": 1},
        ]})
    );
    let start = Instant::now();
    let link_id = link["id"].as_str().expect("id");
    assert_eq!(revoke(&server, &id, link_id), 204);
    let closed = client.close_code(LIMIT).await;
    assert_eq!(closed.code, Some(close::ACCESS_REVOKED));
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "closed after {:?}",
        start.elapsed()
    );
    let again = server.call(
        "DELETE",
        &format!("/api/sessions/{id}/links/{link_id}"),
        None,
    );
    assert_eq!(
        (again.status, again.code().as_str()),
        (404, "link_not_found")
    );
}

#[test]
fn links_end_with_their_session() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let link = mint(&server, &id, "view");
    assert_eq!(server.delete(&id).status, 200);
    assert_eq!(
        status(
            &server,
            link["token"].as_str().expect("token"),
            "GET",
            "/api/sessions",
            None
        ),
        401
    );
}

#[test]
fn a_link_dies_with_a_session_that_ends_by_itself() {
    let mut config = keyed_config();
    config.limits.linger_secs = 0;
    let server = Server::start(config);
    let id = session_id(&server.create(&["sh", "-c", "read x"], json!({})));
    let link = mint(&server, &id, "view");
    let token = link["token"].as_str().expect("token");
    assert_eq!(status(&server, token, "GET", "/api/sessions", None), 200);
    server.call(
        "POST",
        &format!("/api/sessions/{id}/input"),
        Some(r#"{"text": "\r"}"#),
    );
    crate::common::eventually("the session to be gone", || {
        (server
            .call("GET", &format!("/api/sessions/{id}"), None)
            .status
            == 404)
            .then_some(())
    });
    assert_eq!(status(&server, token, "GET", "/api/sessions", None), 401);
}

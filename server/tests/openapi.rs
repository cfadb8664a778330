//! `GET /api/openapi.json` on a live server: readable with any credential,
//! and every operation it documents is one the router answers (neither the
//! router's 404 `not_found` nor its 405).

mod common;

use common::{test_config, Server, TOKEN};
use serde_json::{json, Value};

/// A path of the document with its parameters filled in: ids no session
/// or link has (so the answer is the guard's 404 `session_not_found`, not the
/// router's `not_found`), and a file the client has.
fn concrete(path: &str) -> String {
    path.replace("{id}", "no-such-session")
        .replace("{link_id}", "no-such-link")
        .replace("{name}", "index.js")
        .replace(
            "/api/recordings/index.js",
            "/api/recordings/no-such-recording",
        )
}

#[test]
fn every_documented_operation_is_routed() {
    let server = Server::start(test_config());
    let response = server.call("GET", "/api/openapi.json", None);
    assert_eq!(response.status, 200, "{}", response.body);
    let doc: Value = response.json();
    assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));
    let paths = doc["paths"].as_object().expect("paths");
    let mut operations = 0;
    for (path, item) in paths {
        for method in item.as_object().expect("a path item").keys() {
            let method = method.to_uppercase();
            // A body that fails validation, so nothing is created.
            let body = (method == "POST").then_some(r#"{"no_such_field": 1}"#);
            let answer = server.call(&method, &concrete(path), body);
            let code = serde_json::from_str::<Value>(&answer.body)
                .map(|body| body["code"].clone())
                .unwrap_or(Value::Null);
            assert!(
                code != "not_found" && code != "method_not_allowed",
                "{method} {path}: {} {}",
                answer.status,
                answer.body
            );
            operations += 1;
        }
    }
    assert_eq!(operations, 34);
}

#[test]
fn readable_with_a_view_link() {
    let server = Server::start(test_config());
    let session = server.create(&["sleep", "30"], json!({}));
    let id = session["id"].as_str().expect("id");
    let link = server.call(
        "POST",
        &format!("/api/sessions/{id}/links"),
        Some(r#"{"role": "view"}"#),
    );
    assert_eq!(link.status, 201, "{}", link.body);
    let token = link.json()["token"].as_str().expect("token").to_owned();
    assert_ne!(token, TOKEN);
    let auth = format!("Bearer {token}");
    let answer = server.raw(
        "GET",
        "/api/openapi.json",
        &[("Authorization", &auth)],
        None,
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.json()["paths"]["/api/sessions"].is_object());
    let anonymous = server.raw("GET", "/api/openapi.json", &[], None);
    assert_eq!(anonymous.status, 401);
}

//! `/mcp` is behind the same guard as `/api`: no credential is 401, a
//! scoped key cannot reach another session through a tool (it answers
//! `session_not_found`, as for a session that does not exist), a view key
//! cannot type, and a cross-site write carried by a cookie is refused.

use serde_json::{json, Value};

use crate::common::{session_id, Response, Server, TOKEN};
use crate::support::{keyed_config, SCOPED_KEY, VIEW_KEY};

/// A JSON-RPC `tools/call` of `tool` with `arguments`, with `headers`.
fn call_with(server: &Server, headers: &[(&str, &str)], tool: &str, arguments: Value) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": { "name": tool, "arguments": arguments },
    })
    .to_string();
    let mut all = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    all.extend_from_slice(headers);
    server.raw("POST", "/mcp", &all, Some(body.as_bytes()))
}

/// The tool's result as `secret` calls it: `(isError, the JSON it carries)`.
fn call(server: &Server, secret: &str, tool: &str, arguments: Value) -> (bool, Value) {
    let auth = format!("Bearer {secret}");
    let r = call_with(server, &[("Authorization", &auth)], tool, arguments);
    assert_eq!(r.status, 200, "{}", r.body);
    let result = &r.json()["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let carried = serde_json::from_str(text).unwrap_or(Value::String(text.to_owned()));
    (result["isError"] == json!(true), carried)
}

#[test]
fn no_credential_is_401_and_runs_no_tool() {
    let server = Server::start(keyed_config());
    let r = call_with(&server, &[], "list_sessions", json!({}));
    assert_eq!(r.status, 401, "{}", r.body);
    assert_eq!(r.code(), "unauthorized");
    let r = call_with(
        &server,
        &[("Authorization", "Bearer not-a-credential")],
        "list_sessions",
        json!({}),
    );
    assert_eq!(r.status, 401, "{}", r.body);
}

#[test]
fn a_scoped_key_cannot_reach_another_session_through_mcp() {
    let server = Server::start(keyed_config());
    let other = session_id(&server.create(&["cat"], json!({ "name": "other" })));
    let htop = session_id(&server.create(&["cat"], json!({ "name": "htop" })));
    // By id and by name: the answer of a session that does not exist.
    for asked in [other.as_str(), "other"] {
        for tool in ["read_screen", "search", "read_scrollback"] {
            let mut args = json!({ "session": asked });
            if tool == "search" {
                args["pattern"] = json!("x");
            }
            let (error, body) = call(&server, SCOPED_KEY, tool, args);
            assert!(error, "{tool} {asked}: {body}");
            assert_eq!(body["code"], "session_not_found", "{tool}: {body}");
            assert_eq!(
                body["error"],
                format!("no session with id or name '{asked}'")
            );
        }
    }
    let (error, missing) = call(
        &server,
        SCOPED_KEY,
        "read_screen",
        json!({ "session": "nothing-here" }),
    );
    assert!(error);
    assert_eq!(missing["code"], "session_not_found");
    // Its list holds its own session only.
    let (error, list) = call(&server, SCOPED_KEY, "list_sessions", json!({}));
    assert!(!error, "{list}");
    let ids: Vec<&str> = list["sessions"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(ids, [htop.as_str()]);
    let (error, _) = call(
        &server,
        SCOPED_KEY,
        "read_screen",
        json!({ "session": "htop" }),
    );
    assert!(!error);
}

#[test]
fn a_view_key_cannot_type_start_or_end_through_mcp() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let (error, body) = call(
        &server,
        VIEW_KEY,
        "type",
        json!({ "session": id, "text": "refused\n" }),
    );
    assert!(error, "{body}");
    assert_eq!(body["code"], "forbidden");
    let (error, body) = call(&server, VIEW_KEY, "end_session", json!({ "session": id }));
    assert!(error, "{body}");
    assert_eq!(body["code"], "forbidden");
    let (error, body) = call(
        &server,
        VIEW_KEY,
        "start_session",
        json!({ "profile": "cat" }),
    );
    assert!(error, "{body}");
    assert_eq!(body["code"], "forbidden");
    // Input is ordered: once the admin's later keys show, the view key's
    // would have shown before them.
    let (error, body) = call(
        &server,
        TOKEN,
        "type",
        json!({ "session": id, "text": "allowed\n" }),
    );
    assert!(!error, "{body}");
    let screen = server.wait_screen(&id, "the admin's keys", |s| s.contains("allowed"));
    assert!(!screen.contains("refused"), "{screen}");
}

#[test]
fn a_cross_site_write_carried_by_a_cookie_is_refused() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let cookie = format!("panecast_token={TOKEN}");
    let r = call_with(
        &server,
        &[("Cookie", &cookie), ("Origin", "https://evil.example")],
        "type",
        json!({ "session": id, "text": "forged\n" }),
    );
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(r.code(), "csrf");
}

#[test]
fn the_server_keeps_no_mcp_session() {
    // An agent cannot fill memory by opening MCP sessions: none is opened.
    let server = Server::start(keyed_config());
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "probe", "version": "1" },
        },
    })
    .to_string();
    let auth = format!("Bearer {VIEW_KEY}");
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let r = server.raw("POST", "/mcp", &headers, Some(body.as_bytes()));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["serverInfo"]["name"], "panecast");
    assert_eq!(r.header("mcp-session-id"), None);
    // Nor is there a stream to hold open, or a session to end.
    for method in ["GET", "DELETE"] {
        let r = server.raw(method, "/mcp", &headers, None);
        assert_eq!(r.status, 405, "{method}: {}", r.body);
    }
}

#[test]
fn arguments_off_the_schema_are_a_tool_error_with_a_code() {
    let server = Server::start(keyed_config());
    for arguments in [json!({}), json!({ "session": "x", "bogus": 1 })] {
        let (error, body) = call(&server, TOKEN, "read_screen", arguments);
        assert!(error, "{body}");
        assert_eq!(body["code"], "bad_arguments", "{body}");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("session") || e.contains("bogus")),
            "{body}"
        );
    }
}

//! Findings from trying the running server: profiles are the whole list,
//! lingering sessions give way, HTTP input shares the session's rate, Host
//! checks, /metrics needs a credential, and methods are checked after
//! authentication.

use serde_json::json;

use crate::common::{session_id, test_config, Server, TOKEN};

#[test]
fn only_configured_profiles_run_and_requests_cannot_change_them() {
    let config =
        panecast::config::Config::parse("[profiles.logs]\ncommand = \"cat\"\n").expect("valid");
    let server = Server::start_with(config, false);
    // No built-in shell beside the configured profile, empty body included.
    for body in ["", r#"{"profile": "shell"}"#] {
        let r = server.call("POST", "/api/sessions", Some(body));
        assert_eq!(
            (r.status, r.code().as_str()),
            (400, "unknown_profile"),
            "{body:?}"
        );
    }
    for (body, field) in [
        (r#"{"profile": "logs", "cwd": "/"}"#, "cwd"),
        (r#"{"profile": "logs", "env": {"X": "1"}}"#, "env"),
        (r#"{"command": ["sh"]}"#, "command"),
    ] {
        let r = server.call("POST", "/api/sessions", Some(body));
        assert_eq!((r.status, r.code().as_str()), (403, "forbidden"), "{field}");
    }
    assert_eq!(
        server
            .call("POST", "/api/sessions", Some(r#"{"profile": "logs"}"#))
            .status,
        201
    );
}

#[test]
fn exited_sessions_do_not_hold_slots() {
    let mut config = test_config();
    config.limits.max_sessions = 2;
    let server = Server::start(config);
    for _ in 0..6 {
        let id = session_id(&server.create(&["true"], json!({})));
        server.wait_exit(&id);
    }
    // Two running sessions fill the limit; then 429.
    let a = session_id(&server.create(&["cat"], json!({})));
    let _b = session_id(&server.create(&["cat"], json!({})));
    let r = server.call("POST", "/api/sessions", Some(r#"{"command": ["cat"]}"#));
    assert_eq!((r.status, r.code().as_str()), (429, "too_many_sessions"));
    assert_eq!(server.delete(&a).status, 200);
}

#[test]
fn http_input_shares_the_sessions_rate_limit() {
    let mut config = test_config();
    config.limits.input_rate = 64 * 1024;
    config.limits.input_burst = 256 * 1024;
    let server = Server::start(config);
    // A program that never reads its input.
    let id = session_id(&server.create(&["sleep", "60"], json!({})));
    let chunk = json!({ "text": "x".repeat(100 * 1024) }).to_string();
    let codes: Vec<u16> = (0..6)
        .map(|_| {
            server
                .call("POST", &format!("/api/sessions/{id}/input"), Some(&chunk))
                .status
        })
        .collect();
    assert_eq!(&codes[..2], &[204, 204], "{codes:?}");
    let limited = server.call("POST", &format!("/api/sessions/{id}/input"), Some(&chunk));
    assert_eq!(
        (limited.status, limited.code().as_str()),
        (429, "input_rate_limited"),
        "{codes:?}"
    );
}

#[test]
fn unknown_host_names_are_misdirected() {
    let server = Server::start(test_config());
    let auth = format!("Bearer {TOKEN}");
    for host in ["attacker.example", "rebind.test:7681"] {
        let r = server.raw(
            "GET",
            "/api/sessions",
            &[("Host", host), ("Authorization", &auth)],
            None,
        );
        assert_eq!(
            (r.status, r.code().as_str()),
            (421, "unknown_host"),
            "{host}"
        );
    }
    let r = server.raw(
        "GET",
        "/api/sessions",
        &[("Host", "localhost:7681"), ("Authorization", &auth)],
        None,
    );
    assert_eq!(r.status, 200);
    let mut config = test_config();
    config.public_names = vec!["term.example.com".into()];
    let named = Server::start(config);
    let r = named.raw("GET", "/healthz", &[("Host", "term.example.com")], None);
    assert_eq!(r.status, 200);
}

#[test]
fn metrics_need_a_credential_unless_open() {
    let server = Server::start(test_config());
    assert_eq!(server.raw("GET", "/metrics", &[], None).status, 401);
    assert_eq!(server.call("GET", "/metrics", None).status, 200);
    let mut config = test_config();
    config.metrics = panecast::config::MetricsAccess::Open;
    let open = Server::start(config);
    assert_eq!(open.raw("GET", "/metrics", &[], None).status, 200);
}

#[test]
fn wrong_methods_are_answered_only_after_authentication() {
    let server = Server::start(test_config());
    for (method, path) in [
        ("PUT", "/api/sessions"),
        ("PATCH", "/api/sessions/x"),
        ("GET", "/api/sessions/x/input"),
    ] {
        assert_eq!(
            server.raw(method, path, &[], None).status,
            401,
            "{method} {path}"
        );
    }
    assert_eq!(server.call("PUT", "/api/sessions", None).status, 405);
}

//! People signed in through a trusted proxy (`[auth.proxy]`): the user
//! header is believed only from `trusted_proxies`, and forging it straight
//! to the server gets nothing; a person reaches only what a rule gives.

use panecast::access::{AuthConfig, ProxyAuth, Role, RuleConfig};
use panecast::config::Config;

use crate::common::{self, Server};

/// `[auth]` for the user header, with alice (control, the session named
/// `build`) and the group ops (view).
fn auth() -> AuthConfig {
    AuthConfig {
        proxy: Some(ProxyAuth {
            user_header: "X-Forwarded-User".into(),
            groups_header: Some("X-Forwarded-Groups".into()),
        }),
        rules: vec![
            RuleConfig {
                users: vec!["alice".into()],
                groups: vec![],
                role: Role::Control,
                sessions: vec!["build".into()],
                profiles: vec!["shell".into()],
            },
            RuleConfig {
                users: vec![],
                groups: vec!["ops".into()],
                role: Role::View,
                sessions: vec!["build".into()],
                profiles: vec![],
            },
        ],
        oidc: None,
    }
}

fn server(trusted: &str) -> Server {
    let config = Config {
        auth: auth(),
        trusted_proxies: vec![trusted.into()],
        ..Config::default()
    };
    Server::start_with(config, true)
}

fn get_as(server: &Server, path: &str, headers: &[(&str, &str)]) -> common::Response {
    server.raw("GET", path, headers, None)
}

#[test]
fn a_user_header_from_an_untrusted_peer_is_ignored() {
    // The tests connect from 127.0.0.1, which is not the trusted proxy.
    let server = server("192.0.2.1");
    server.create(&["sleep", "60"], serde_json::json!({ "name": "build" }));
    let forged = get_as(&server, "/api/sessions", &[("X-Forwarded-User", "alice")]);
    assert_eq!(forged.status, 401, "{}", forged.body);
    let admin = get_as(
        &server,
        "/api/sessions",
        &[("X-Forwarded-User", "admin"), ("X-Forwarded-Groups", "ops")],
    );
    assert_eq!(admin.status, 401, "{}", admin.body);
}

#[test]
fn a_person_reaches_what_a_rule_gives_and_no_rule_is_403() {
    let server = server("127.0.0.1");
    let build = server.create(&["sleep", "60"], serde_json::json!({ "name": "build" }));
    let other = server.create(&["sleep", "60"], serde_json::json!({ "name": "other" }));
    let (build, other) = (build["id"].as_str().unwrap(), other["id"].as_str().unwrap());
    let alice = [("X-Forwarded-User", "alice")];
    assert_eq!(
        get_as(&server, &format!("/api/sessions/{build}"), &alice).status,
        200
    );
    // Outside her rule: as if it did not exist.
    assert_eq!(
        get_as(&server, &format!("/api/sessions/{other}"), &alice).status,
        404
    );
    let listed = get_as(&server, "/api/sessions", &alice).json();
    let ids: Vec<&str> = listed["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["id"].as_str().expect("an id"))
        .collect();
    assert_eq!(ids, [build]);
    // A member of ops views but does not type.
    let ops = [
        ("X-Forwarded-User", "bob"),
        ("X-Forwarded-Groups", "dev, ops"),
    ];
    assert_eq!(
        get_as(&server, &format!("/api/sessions/{build}"), &ops).status,
        200
    );
    let typed = server.raw(
        "POST",
        &format!("/api/sessions/{build}/input"),
        &[
            ops[0],
            ops[1],
            ("Content-Type", "application/json"),
            ("Origin", &format!("http://{}", server.addr)),
        ],
        Some(br#"{"text": "x"}"#),
    );
    assert_eq!(typed.status, 403, "{}", typed.body);
    // Signed in, but no rule names mallory.
    let nobody = get_as(&server, "/api/sessions", &[("X-Forwarded-User", "mallory")]);
    assert_eq!(
        (nobody.status, nobody.code()),
        (403, "no_rule".to_owned()),
        "{}",
        nobody.body
    );
    // What she starts is hers: its owner names her, she reaches it, and
    // the group ops (scoped to `build`) does not.
    let origin = format!("http://{}", server.addr);
    let started = server.raw(
        "POST",
        "/api/sessions",
        &[
            alice[0],
            ("Content-Type", "application/json"),
            ("Origin", &origin),
        ],
        Some(br#"{"profile": "shell"}"#),
    );
    assert_eq!(started.status, 201, "{}", started.body);
    let hers = started.json();
    assert_eq!(hers["owner"], "user:alice", "{hers}");
    let path = format!("/api/sessions/{}", hers["id"].as_str().expect("an id"));
    assert_eq!(get_as(&server, &path, &alice).status, 200);
    assert_eq!(get_as(&server, &path, &ops).status, 404);
    // A user header that names no one is no sign-in.
    let blank = get_as(&server, "/api/sessions", &[("X-Forwarded-User", "  ")]);
    assert_eq!(blank.status, 401, "{}", blank.body);
}

#[test]
fn a_write_signed_in_by_the_proxy_needs_the_same_site_checks() {
    let server = server("127.0.0.1");
    // The proxy adds the header to a cross-site form's POST too.
    let cross_site = server.raw(
        "POST",
        "/api/sessions",
        &[
            ("X-Forwarded-User", "alice"),
            ("Origin", "https://evil.example"),
            ("Content-Type", "text/plain"),
        ],
        Some(b"{}"),
    );
    assert_eq!(
        (cross_site.status, cross_site.code()),
        (403, "csrf".to_owned()),
        "{}",
        cross_site.body
    );
}

//! People signed in through a trusted proxy (`[auth.proxy]`): the user
//! header is believed only from `trusted_proxies` with the proxy's proof
//! (the secret of `proxy_secret_file` in `X-Panecast-Proxy`), so forging
//! it straight to the server gets nothing, from an address of the host
//! too; a person reaches only what a rule gives.

use std::os::unix::fs::PermissionsExt;

use panecast::access::{AuthConfig, ProxyAuth, Role, RuleConfig};
use panecast::api::{app_state, Settings};
use panecast::config::Config;

use crate::common::cluster::TempDir;
use crate::common::{self, Server};

/// The secret the proxy of these tests sends.
const PROXY_SECRET: &str = "proxy-proof-0123456789abcdef-0123456789";

/// The proof header, as the proxy adds it.
const PROOF: (&str, &str) = ("X-Panecast-Proxy", PROXY_SECRET);

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

/// The configuration: `[auth]` trusting `trusted`, with the proxy's
/// secret in a private file in `dir`.
fn config(trusted: &str, dir: &TempDir) -> Config {
    let secret = dir.0.join("proxy-secret");
    std::fs::write(&secret, format!("{PROXY_SECRET}\n")).expect("write the secret");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    Config {
        auth: auth(),
        trusted_proxies: vec![trusted.into()],
        proxy_secret_file: Some(secret),
        ..Config::default()
    }
}

fn server(trusted: &str) -> (Server, TempDir) {
    let dir = TempDir::new("proxy-header");
    (Server::start_with(config(trusted, &dir), true), dir)
}

/// A GET through the proxy: `headers` and the proof.
fn get_as(server: &Server, path: &str, headers: &[(&str, &str)]) -> common::Response {
    let mut through = headers.to_vec();
    through.push(PROOF);
    server.raw("GET", path, &through, None)
}

#[test]
fn a_user_header_from_an_untrusted_peer_is_ignored() {
    // The tests connect from 127.0.0.1, which is not the trusted proxy.
    let (server, _dir) = server("192.0.2.1");
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
    let (server, _dir) = server("127.0.0.1");
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
            PROOF,
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
            PROOF,
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
    let (server, _dir) = server("127.0.0.1");
    // The proxy adds the header to a cross-site form's POST too.
    let cross_site = server.raw(
        "POST",
        "/api/sessions",
        &[
            ("X-Forwarded-User", "alice"),
            PROOF,
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

#[test]
fn a_user_header_from_the_proxys_own_address_without_its_proof_is_ignored() {
    // The second trial: a session's program on the proxy's host sends the
    // header from loopback, the very address the proxy connects from.
    let (server, _dir) = server("127.0.0.1");
    server.create(&["sleep", "60"], serde_json::json!({ "name": "build" }));
    let bare = server.raw(
        "GET",
        "/api/sessions",
        &[("X-Forwarded-User", "alice")],
        None,
    );
    assert_eq!(bare.status, 401, "{}", bare.body);
    for wrong in ["guess", &PROXY_SECRET[1..], &format!("{PROXY_SECRET}0")] {
        let guessed = server.raw(
            "GET",
            "/api/sessions",
            &[("X-Forwarded-User", "alice"), ("X-Panecast-Proxy", wrong)],
            None,
        );
        assert_eq!(guessed.status, 401, "{wrong}: {}", guessed.body);
    }
    // The same request with the proxy's secret: the proxy's.
    let proven = get_as(&server, "/api/sessions", &[("X-Forwarded-User", "alice")]);
    assert_eq!(proven.status, 200, "{}", proven.body);
}

#[test]
fn a_proxys_sign_in_without_proof_is_refused_at_start() {
    let dir = TempDir::new("proxy-header-start");
    let unproven = Config {
        proxy_secret_file: None,
        ..config("127.0.0.1", &dir)
    };
    let settings = Settings {
        config: unproven,
        token: common::TOKEN.to_owned(),
        allow_any_command: false,
    };
    let refused = app_state(settings, None)
        .err()
        .expect("[auth.proxy] without proof is refused")
        .to_string();
    assert!(
        refused.contains("set proxy_secret_file") && refused.contains("X-Panecast-Proxy"),
        "{refused}"
    );
}

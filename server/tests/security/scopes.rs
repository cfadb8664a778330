//! A scoped key creates only names in its scope, and a name declared in
//! `[[sessions]]` belongs to its declaration: no API caller can start
//! another program under it, or evict the declared session once it has
//! exited, and so take over what keys scoped to that name watch.

use panecast::access::secret;
use panecast::config::Config;
use serde_json::json;

use crate::common::{eventually, test_config, Server};
use crate::support::as_;

const MINE_KEY: &str = "mine-key-secret-0123";
const WATCH_KEY: &str = "watch-key-secret-0123";
const TYPIST_KEY: &str = "typist-key-secret-0123";

fn key(name: &str, secret_text: &str, role: &str, extra: &str) -> String {
    format!(
        "[[keys]]\nname = \"{name}\"\nsha256 = \"{}\"\nrole = \"{role}\"\n{extra}\n",
        secret::hex(&secret::hash(secret_text.as_bytes()))
    )
}

/// `htop` is declared (its program exits at once and is not restarted);
/// `mine` (control, may start `shell`, scoped to `mine`), `watch` (view,
/// scoped to `htop`) and `typist` (control, every session, may start
/// `shell`).
fn config() -> Config {
    let text = [
        "[profiles.shell]\ncommand = \"cat\"\n[profiles.top]\ncommand = \"true\"\n".to_owned(),
        "[[sessions]]\nname = \"htop\"\nprofile = \"top\"\nrestart = \"never\"\n".to_owned(),
        key(
            "mine",
            MINE_KEY,
            "control",
            "sessions = [\"mine\"]\nprofiles = [\"shell\"]",
        ),
        key("watch", WATCH_KEY, "view", "sessions = [\"htop\"]"),
        key("typist", TYPIST_KEY, "control", "profiles = [\"shell\"]"),
    ]
    .concat();
    let mut config = Config::parse(&text).expect("valid test config");
    let defaults = test_config();
    config.limits.grace_ms = defaults.limits.grace_ms;
    config.limits.linger_secs = defaults.limits.linger_secs;
    config
}

fn create(server: &Server, secret: &str, name: &str) -> (u16, String) {
    let body = json!({ "name": name, "profile": "shell" }).to_string();
    let r = as_(server, secret, "POST", "/api/sessions", Some(&body));
    (r.status, r.code())
}

#[test]
fn a_scoped_key_creates_only_names_in_its_scope() {
    let server = Server::start_with(config(), false);
    assert_eq!(
        create(&server, MINE_KEY, "other"),
        (403, "forbidden".into())
    );
    let r = as_(
        &server,
        MINE_KEY,
        "POST",
        "/api/sessions",
        Some(r#"{"name":"other","profile":"shell"}"#),
    );
    assert!(
        r.json()["error"]
            .as_str()
            .is_some_and(|e| e.contains("scope")),
        "{}",
        r.body
    );
    assert_eq!(create(&server, MINE_KEY, "mine").0, 201);
    // Unnamed sessions stay possible: the key reaches them as their owner.
    let r = as_(
        &server,
        MINE_KEY,
        "POST",
        "/api/sessions",
        Some(r#"{"profile":"shell"}"#),
    );
    assert_eq!(r.status, 201, "{}", r.body);
}

#[test]
fn a_declared_name_cannot_be_taken_or_evicted_through_the_api() {
    let server = Server::start_with(config(), false);
    // The declared session starts, and its program exits: it lingers.
    let declared = eventually("the declared session to have exited", || {
        let r = as_(&server, WATCH_KEY, "GET", "/api/sessions/htop", None);
        (r.status == 200 && r.json()["running"] == false).then(|| r.json())
    });
    for secret in [MINE_KEY, TYPIST_KEY] {
        assert_eq!(
            create(&server, secret, "htop"),
            (409, "name_reserved".into()),
            "{secret}"
        );
    }
    let r = server.call(
        "POST",
        "/api/sessions",
        Some(r#"{"name":"htop","command":["sh"]}"#),
    );
    assert_eq!(
        (r.status, r.code().as_str()),
        (409, "name_reserved"),
        "not even the admin"
    );
    // The view key scoped to the name still sees the declared session.
    let r = as_(&server, WATCH_KEY, "GET", "/api/sessions/htop", None);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["id"],
        declared["id"],
        "the declared session was not evicted"
    );
}

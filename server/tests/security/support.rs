//! What the security cases share: a server with keys of every role.

use panecast::access::secret;
use panecast::config::Config;
use serde_json::{json, Value};

use crate::common::{test_config, Response, Server};

/// Secrets of the keys [`keyed_config`] declares.
pub const VIEW_KEY: &str = "view-key-secret";
pub const CONTROL_KEY: &str = "control-key-secret";
pub const SCOPED_KEY: &str = "scoped-key-secret";
pub const STARTER_KEY: &str = "starter-key-secret";

fn key(name: &str, secret_text: &str, role: &str, extra: &str) -> String {
    format!(
        "[[keys]]\nname = \"{name}\"\nsha256 = \"{}\"\nrole = \"{role}\"\n{extra}\n",
        secret::hex(&secret::hash(secret_text.as_bytes()))
    )
}

/// A config with a `shell` and a `cat` profile and four keys: `viewer`
/// (view, all sessions), `typist` (control, all), `dash` (view, only the
/// session named `htop`) and `starter` (control, may start `cat`, no
/// session named).
pub fn keyed_config() -> Config {
    let text = [
        "[profiles.shell]\ncommand = \"/bin/sh\"\n[profiles.cat]\ncommand = \"cat\"\n".to_owned(),
        key("viewer", VIEW_KEY, "view", ""),
        key("typist", CONTROL_KEY, "control", ""),
        key("dash", SCOPED_KEY, "view", "sessions = [\"htop\"]"),
        key(
            "starter",
            STARTER_KEY,
            "control",
            "sessions = []\nprofiles = [\"cat\"]",
        ),
    ]
    .concat();
    let mut config = Config::parse(&text).expect("valid test config");
    let defaults = test_config();
    config.limits.grace_ms = defaults.limits.grace_ms;
    config.limits.linger_secs = defaults.limits.linger_secs;
    config
}

/// A request with a bearer credential.
pub fn as_(
    server: &Server,
    secret: &str,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> Response {
    let auth = format!("Bearer {secret}");
    server.raw(
        method,
        path,
        &[("Authorization", &auth)],
        body.map(str::as_bytes),
    )
}

/// Mints a link (as admin) and returns its JSON.
pub fn mint(server: &Server, id: &str, role: &str) -> Value {
    let r = server.call(
        "POST",
        &format!("/api/sessions/{id}/links"),
        Some(&json!({ "role": role }).to_string()),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()
}

/// The status of a request with a bearer credential.
pub fn status(server: &Server, secret: &str, method: &str, path: &str, body: Option<&str>) -> u16 {
    as_(server, secret, method, path, body).status
}

/// Revokes a link (as admin) and returns the status.
pub fn revoke(server: &Server, id: &str, link_id: &str) -> u16 {
    server
        .call(
            "DELETE",
            &format!("/api/sessions/{id}/links/{link_id}"),
            None,
        )
        .status
}

/// A single-threaded runtime for a test's async clients.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

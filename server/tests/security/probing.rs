//! Probing names: a session outside a credential's scope is answered
//! exactly like one that does not exist, and the answer never carries the
//! real session id.

use serde_json::json;

use crate::common::{session_id, Server};
use crate::support::{as_, keyed_config, SCOPED_KEY};

#[test]
fn out_of_scope_and_missing_sessions_get_the_same_404_without_the_id() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["cat"], json!({ "name": "secret-build" })));
    let asked = |name: &str| {
        let r = as_(
            &server,
            SCOPED_KEY,
            "GET",
            &format!("/api/sessions/{name}/screen"),
            None,
        );
        (r.status, r.body)
    };
    let (status, existing) = asked("secret-build");
    assert_eq!(status, 404);
    assert!(!existing.contains(&id), "the id leaked: {existing}");
    let (status, missing) = asked("no-such-name");
    assert_eq!(status, 404);
    assert_eq!(
        existing.replace("secret-build", "X"),
        missing.replace("no-such-name", "X")
    );
    // By id, too: the id asked is echoed, nothing more.
    let (status, by_id) = asked(&id);
    assert_eq!(status, 404);
    assert_eq!(
        by_id.replace(&id, "X"),
        missing.replace("no-such-name", "X")
    );
}

//! Oversized and malformed request bodies.

use crate::common::{test_config, Server};

#[test]
fn oversized_and_malformed_bodies_are_refused_clearly() {
    let mut config = test_config();
    config.limits.max_body_bytes = 1024;
    let server = Server::start(config);
    let big = format!("{{\"text\": \"{}\"}}", "x".repeat(4096));
    let r = server.call("POST", "/api/sessions", Some(&big));
    assert_eq!((r.status, r.code().as_str()), (413, "body_too_large"));
    for (body, code) in [
        ("{", "bad_json"),
        ("[1,2]", "bad_json"),
        (r#"{"profile": 7}"#, "bad_json"),
        (r#"{"unknown": 1}"#, "bad_json"),
        ("\u{0}", "bad_json"),
    ] {
        let r = server.call("POST", "/api/sessions", Some(body));
        assert_eq!((r.status, r.code().as_str()), (400, code), "{body:?}");
    }
}

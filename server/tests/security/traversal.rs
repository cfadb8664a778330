//! Path traversal on the web client's files and on session names.

use crate::common::{test_config, Server};

#[test]
fn web_files_stay_inside_the_compiled_in_set() {
    let server = Server::start(test_config());
    for path in [
        "/web/..%2F..%2FCargo.toml",
        "/web/%2e%2e%2fsrc%2fmain.rs",
        "/web/../../etc/passwd",
        "/web/..",
        "/web/%2Fetc%2Fpasswd",
    ] {
        let r = server.raw("GET", path, &[], None);
        assert_eq!(r.status, 404, "{path}: {}", r.body);
        assert!(!r.body.contains("root:"), "{path}");
    }
    assert_eq!(server.raw("GET", "/web/terminal.js", &[], None).status, 200);
}

#[test]
fn session_names_are_plain_words() {
    let server = Server::start(test_config());
    for name in [
        "../x",
        "a/b",
        "..",
        "a b",
        "0123456789abcdef0123456789abcdef",
        "",
    ] {
        let body = serde_json::json!({ "command": ["cat"], "name": name }).to_string();
        let r = server.call("POST", "/api/sessions", Some(&body));
        assert_eq!((r.status, r.code().as_str()), (400, "bad_name"), "{name:?}");
    }
    let r = server.call("GET", "/api/sessions/..%2F..%2Fetc", None);
    assert_eq!(r.status, 404);
}

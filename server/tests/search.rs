//! End to end: `GET /api/sessions/{id}/search` on a real session.

mod common;

use common::{eventually, session_id, test_config, Server};
use serde_json::json;

#[test]
fn search_finds_matches_in_scrollback_and_screen() {
    let server = Server::start(test_config());
    let session = server.create(
        &[
            "sh",
            "-c",
            "seq 1 200; printf 'needle in the HAYSTACK'; sleep 60",
        ],
        json!({ "cols": 12, "rows": 5 }),
    );
    let id = session_id(&session);
    server.wait_screen(&id, "the output", |s| s.contains("STACK"));
    let found = eventually("the search", || {
        let r = server.call(
            "GET",
            &format!("/api/sessions/{id}/search?q=1[05]0$&regex=1"),
            None,
        );
        (r.status == 200).then(|| r.json())
    });
    // Lines 100 and 150 are in the scrollback: absolute rows 99 and 149.
    let at: Vec<(u64, u64, u64)> = found["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|m| {
            (
                m["line"].as_u64().unwrap_or(0),
                m["start"].as_u64().unwrap_or(0),
                m["end"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(at, vec![(99, 0, 3), (149, 0, 3)], "{found}");
    assert_eq!(found["truncated"], false);
    assert_eq!(found["cols"], 12);
    let top = found["screen_top"].as_u64().expect("screen_top");
    // "needle in the HAYSTACK" wraps at 12 columns: the match crosses the wrap.
    let r = server.call(
        "GET",
        &format!("/api/sessions/{id}/search?q=the%20haystack"),
        None,
    );
    assert_eq!(r.status, 200);
    let m = &r.json()["matches"][0];
    assert_eq!(
        (m["start"].as_u64(), m["end"].as_u64()),
        (Some(10), Some(22)),
        "{m}"
    );
    assert!(m["line"].as_u64() >= Some(top), "on the screen");
    // Case-sensitive finds nothing; the limit truncates.
    let r = server.call(
        "GET",
        &format!("/api/sessions/{id}/search?q=haystack&case=1"),
        None,
    );
    assert_eq!(r.json()["matches"], json!([]));
    let r = server.call(
        "GET",
        &format!("/api/sessions/{id}/search?q=1&limit=3"),
        None,
    );
    assert_eq!(r.json()["matches"].as_array().map(Vec::len), Some(3));
    assert_eq!(r.json()["truncated"], true);
}

#[test]
fn bad_searches_get_clear_errors() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["sh", "-c", "echo hi; sleep 60"], json!({})));
    for (query, status, code) in [
        ("q=(&regex=1", 400, "bad_pattern"),
        ("q=", 400, "bad_pattern"),
        ("q=a&limit=0", 400, "bad_limit"),
        ("q=a&limit=5000", 400, "bad_limit"),
        ("q=a&regex=2", 400, "bad_query"),
        ("regex=1", 400, "bad_query"),
        ("q=a%7B1000%7D%7B1000%7D&regex=1", 400, "bad_pattern"),
    ] {
        let r = server.call("GET", &format!("/api/sessions/{id}/search?{query}"), None);
        assert_eq!((r.status, r.code()), (status, code.to_string()), "{query}");
    }
    let r = server.call("GET", "/api/sessions/nope/search?q=a", None);
    assert_eq!((r.status, r.code()), (404, "session_not_found".to_string()));
}

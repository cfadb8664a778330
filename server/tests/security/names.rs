//! A session name is unique among running sessions, even when many
//! creates race for it: the check and the reservation are one step.

use std::sync::{Arc, Barrier};

use serde_json::json;

use crate::common::Server;

#[test]
fn eight_concurrent_creates_of_one_name_start_exactly_one_session() {
    let server = Arc::new(Server::start(crate::common::test_config()));
    let body = json!({ "name": "dup", "command": ["cat"] }).to_string();
    let start = Arc::new(Barrier::new(8));
    let racers: Vec<_> = (0..8)
        .map(|_| {
            let (server, start, body) = (Arc::clone(&server), Arc::clone(&start), body.clone());
            std::thread::spawn(move || {
                start.wait();
                let r = server.call("POST", "/api/sessions", Some(&body));
                (r.status, r.code())
            })
        })
        .collect();
    let mut answers: Vec<(u16, String)> = racers
        .into_iter()
        .map(|r| r.join().expect("a racer"))
        .map(|(status, code)| (status, if status == 201 { String::new() } else { code }))
        .collect();
    answers.sort();
    let mut expected = vec![(201, String::new())];
    expected.extend((0..7).map(|_| (409, "name_taken".to_owned())));
    assert_eq!(answers, expected);
    let named = server.call("GET", "/api/sessions", None).json()["sessions"]
        .as_array()
        .expect("a list")
        .iter()
        .filter(|s| s["name"] == "dup")
        .count();
    assert_eq!(named, 1, "one running session named 'dup'");
}

#[test]
fn a_name_whose_start_failed_is_free_again() {
    let server = Server::start(crate::common::test_config());
    let body = json!({ "name": "again", "command": ["/nonexistent/program"] }).to_string();
    let r = server.call("POST", "/api/sessions", Some(&body));
    assert_eq!((r.status, r.code().as_str()), (400, "spawn_failed"));
    server.create(&["cat"], json!({ "name": "again" }));
}

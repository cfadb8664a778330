//! End to end: `POST /api/sessions/{id}/wait` on real sessions, for each
//! condition, `after`, the time-out and the refusals.

mod common;

use common::{eventually, session_id, test_config, Response, Server};
use serde_json::{json, Value};

fn wait(server: &Server, id: &str, body: Value) -> Response {
    server.call(
        "POST",
        &format!("/api/sessions/{id}/wait"),
        Some(&body.to_string()),
    )
}

/// Types `text` and returns the revision the input answered.
fn type_text(server: &Server, id: &str, text: &str) -> u64 {
    let r = server.call(
        "POST",
        &format!("/api/sessions/{id}/input"),
        Some(&json!({ "text": text }).to_string()),
    );
    assert_eq!(r.status, 204, "{}", r.body);
    r.header("panecast-revision")
        .and_then(|v| v.parse().ok())
        .expect("a Panecast-Revision header")
}

#[test]
fn text_and_regex_answer_with_where_and_the_screen() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(
        &["sh", "-c", "sleep 0.3; echo 'ready at 42'; sleep 60"],
        json!({}),
    ));
    let r = wait(&server, &id, json!({ "text": "ready", "timeout_ms": 5000 }));
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = r.json();
    assert_eq!(answer["matched"], "text");
    assert_eq!(answer["at"], json!({ "row": 0, "start": 0, "end": 5 }));
    assert!(
        answer["screen"]["lines"][0]
            .as_str()
            .is_some_and(|l| l.starts_with("ready at 42")),
        "{answer}"
    );
    assert_eq!(answer["revision"], answer["screen"]["revision"]);
    let r = wait(
        &server,
        &id,
        json!({ "regex": r"at \d+", "timeout_ms": 5000 }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["matched"], "regex");
    assert_eq!(r.json()["at"], json!({ "row": 0, "start": 6, "end": 11 }));
    // The screen JSON carries the revision too; nothing changed since.
    let screen = server.screen_json(&id);
    assert_eq!(screen["revision"], answer["revision"], "{screen}");
}

#[test]
fn after_a_revision_only_new_rows_match() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["sh", "-c", "echo 42; exec cat"], json!({})));
    let r = wait(&server, &id, json!({ "text": "42", "timeout_ms": 5000 }));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["at"]["row"], 0);
    // Typed after the 42 was on screen: the old 42 does not answer.
    let revision = type_text(&server, &id, "x\r");
    let r = wait(
        &server,
        &id,
        json!({ "text": "42", "after": revision, "timeout_ms": 300 }),
    );
    assert_eq!(r.status, 408, "{}", r.body);
    assert_eq!(r.code(), "wait_timeout");
    assert!(
        r.json()["screen"]["lines"][1]
            .as_str()
            .is_some_and(|l| l.starts_with('x')),
        "{}",
        r.body
    );
    // The program's new 42 does (cat's echo, then its copy).
    let revision = type_text(&server, &id, "6*7=42\r");
    let r = wait(
        &server,
        &id,
        json!({ "text": "42", "after": revision, "timeout_ms": 5000 }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = r.json();
    assert!(
        answer["at"]["row"].as_u64() >= Some(3),
        "a new row: {answer}"
    );
    assert!(answer["revision"].as_u64() > Some(revision), "{answer}");
}

#[test]
fn idle_and_exit() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["sh", "-c", "echo started; sleep 60"], json!({})));
    let r = wait(&server, &id, json!({ "idle_ms": 200, "timeout_ms": 5000 }));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["matched"], "idle");
    assert!(r.json().get("at").is_none());
    let id = session_id(&server.create(&["sh", "-c", "sleep 0.3; echo bye"], json!({})));
    let r = wait(&server, &id, json!({ "exit": true, "timeout_ms": 5000 }));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["matched"], "exit");
    // Waiting for a text on a program that ended: 409, not a time-out.
    let r = wait(&server, &id, json!({ "text": "never", "timeout_ms": 5000 }));
    assert_eq!(
        (r.status, r.code()),
        (409, "session_exited".to_owned()),
        "{}",
        r.body
    );
    // Its final screen still answers a text that is on it.
    let r = wait(&server, &id, json!({ "text": "bye", "timeout_ms": 5000 }));
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn the_first_condition_to_hold_answers() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["sh", "-c", "sleep 0.3; echo done; sleep 60"], json!({})));
    let r = wait(
        &server,
        &id,
        json!({ "text": "done", "exit": true, "timeout_ms": 5000 }),
    );
    assert_eq!(r.json()["matched"], "text", "{}", r.body);
}

#[test]
fn bad_waits_get_clear_errors() {
    let mut config = test_config();
    config.limits.max_wait_ms = 1000;
    let server = Server::start(config);
    let id = session_id(&server.create(&["sh", "-c", "sleep 60"], json!({})));
    for (body, code) in [
        (json!({ "regex": "(" }), "bad_pattern"),
        (json!({ "text": "" }), "bad_pattern"),
        (json!({ "text": "x", "timeout_ms": 1001 }), "bad_timeout"),
        (json!({ "timeout_ms": 100 }), "bad_wait"),
        (json!({ "exit": false }), "bad_wait"),
        (json!({ "text": "x", "colour": 1 }), "bad_json"),
    ] {
        let r = wait(&server, &id, body.clone());
        assert_eq!(
            (r.status, r.code()),
            (400, code.to_owned()),
            "{body}: {}",
            r.body
        );
    }
    // No timeout_ms: the default is capped by limits.max_wait_ms.
    let r = wait(&server, &id, json!({ "text": "never" }));
    assert_eq!(r.status, 408, "{}", r.body);
}

#[test]
fn waits_past_the_session_limit_are_refused() {
    let mut config = test_config();
    config.limits.max_waits_per_session = 2;
    let server = Server::start(config);
    let id = session_id(&server.create(&["sh", "-c", "sleep 60"], json!({})));
    // Two waits that hold their slots; each tries again while the probes
    // below hold one for a moment.
    let held: Vec<_> = (0..2)
        .map(|_| {
            let addr = server.addr;
            let id = id.clone();
            std::thread::spawn(move || loop {
                let status = common::http(
                    addr,
                    "POST",
                    &format!("/api/sessions/{id}/wait"),
                    &[("Authorization", &format!("Bearer {}", common::TOKEN))],
                    Some(
                        json!({ "text": "never", "timeout_ms": 3000 })
                            .to_string()
                            .as_bytes(),
                    ),
                )
                .status;
                if status != 429 {
                    return status;
                }
            })
        })
        .collect();
    // A wait that checks once and answers: 408 while a slot is free.
    let refused = eventually("both waits to be open", || {
        let r = wait(&server, &id, json!({ "text": "never", "timeout_ms": 0 }));
        (r.status == 429).then_some(r)
    });
    assert_eq!(refused.code(), "too_many_waits");
    for waiter in held {
        assert_eq!(waiter.join().ok(), Some(408));
    }
    let r = wait(&server, &id, json!({ "text": "never", "timeout_ms": 0 }));
    assert_eq!(r.status, 408, "the slots came back: {}", r.body);
}

//! Waits cannot crowd a session out: a credential holds at most
//! `limits.max_waits_per_credential` waits on one session (429
//! `too_many_waits` past it), other credentials keep theirs, and the
//! server answers everything else meanwhile. A wait only reads, so a view
//! key and a view link may wait; a wait's time-out is capped (400
//! `bad_timeout`), so no wait holds its slot for longer than the limit.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{eventually, http, session_id, Server};
use crate::support::{as_, keyed_config, mint, CONTROL_KEY, VIEW_KEY};

/// How long a request to the server may take while waits are held (a
/// debug build on a loaded machine; a starved server takes seconds).
const RESPONSIVE: Duration = Duration::from_millis(500);

fn wait_body(timeout_ms: u64) -> String {
    json!({ "text": "never", "timeout_ms": timeout_ms }).to_string()
}

/// A wait as `secret` that holds its slot until its time-out, tried again
/// while refused for a moment (the probes hold one briefly).
fn hold(server: &Server, secret: &str, id: &str) -> JoinHandle<u16> {
    let (addr, auth, path) = (
        server.addr,
        format!("Bearer {secret}"),
        format!("/api/sessions/{id}/wait"),
    );
    std::thread::spawn(move || loop {
        let body = wait_body(3000);
        let status = http(
            addr,
            "POST",
            &path,
            &[("Authorization", &auth)],
            Some(body.as_bytes()),
        )
        .status;
        if status != 429 {
            return status;
        }
    })
}

#[test]
fn a_credential_past_its_waits_gets_429_and_others_are_served() {
    let mut config = keyed_config();
    config.limits.max_waits_per_credential = 2;
    config.limits.max_wait_ms = 5000;
    let server = Server::start(config);
    let id = session_id(&server.create(&["sh", "-c", "echo hi; sleep 60"], json!({})));
    let path = format!("/api/sessions/{id}/wait");
    let held = [hold(&server, VIEW_KEY, &id), hold(&server, VIEW_KEY, &id)];
    let refused = eventually("the view key's two waits to be open", || {
        let r = as_(&server, VIEW_KEY, "POST", &path, Some(&wait_body(0)));
        (r.status == 429).then_some(r)
    });
    assert_eq!(refused.code(), "too_many_waits", "{}", refused.body);
    // Another credential waits, and the server answers at once.
    let started = Instant::now();
    let r = as_(
        &server,
        CONTROL_KEY,
        "POST",
        &path,
        Some(&json!({ "text": "hi" }).to_string()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = server.call("GET", "/api/sessions", None);
    assert_eq!(r.status, 200);
    assert!(started.elapsed() < RESPONSIVE, "{:?}", started.elapsed());
    for waiter in held {
        assert_eq!(waiter.join().ok(), Some(408));
    }
    // A wait may not ask to hold its slot longer than the limit.
    let r = as_(&server, VIEW_KEY, "POST", &path, Some(&wait_body(5001)));
    assert_eq!(
        (r.status, r.code()),
        (400, "bad_timeout".to_owned()),
        "{}",
        r.body
    );
}

#[test]
fn view_keys_and_links_may_wait() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["sh", "-c", "echo hi; sleep 60"], json!({})));
    let path = format!("/api/sessions/{id}/wait");
    let body = json!({ "text": "hi", "timeout_ms": 5000 }).to_string();
    let r = as_(&server, VIEW_KEY, "POST", &path, Some(&body));
    assert_eq!(r.status, 200, "{}", r.body);
    let link = mint(&server, &id, "view")["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    let r = as_(&server, &link, "POST", &path, Some(&body));
    assert_eq!(r.status, 200, "{}", r.body);
    // A link of another session reaches nothing here.
    let other = session_id(&server.create(&["sh", "-c", "sleep 60"], json!({})));
    let r = as_(
        &server,
        &link,
        "POST",
        &format!("/api/sessions/{other}/wait"),
        Some(&body),
    );
    assert_eq!(r.status, 404, "{}", r.body);
}

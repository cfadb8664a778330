//! End to end: `GET /api/sessions/{id}/events`, the Server-Sent Events
//! stream, read off the socket (chunked transfer decoded by hand).

mod common;

use common::sse::EventStream;
use common::{session_id, test_config, Server, TOKEN};
use serde_json::{json, Value};

fn auth() -> String {
    format!("Bearer {TOKEN}")
}

fn rows_text(data: &Value) -> Vec<(u64, String)> {
    data["changed"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["row"].as_u64().unwrap_or(999),
                r["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn type_text(server: &Server, id: &str, text: &str) {
    let r = server.call(
        "POST",
        &format!("/api/sessions/{id}/input"),
        Some(&json!({ "text": text }).to_string()),
    );
    assert_eq!(r.status, 204, "{}", r.body);
}

#[test]
fn screen_title_bell_resize_viewer_and_exit_events() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(
        &["sh", "-c", "echo ready; exec cat"],
        json!({ "cols": 40, "rows": 5 }),
    ));
    server.wait_screen(&id, "ready", |s| s.contains("ready"));
    let auth = auth();
    let mut events = EventStream::open(
        &server,
        &format!("/api/sessions/{id}/events"),
        &[("Authorization", &auth)],
    );
    assert_eq!(events.status, 200);
    let first = events.next().expect("a first event");
    assert_eq!(first.name, "screen");
    assert_eq!(first.data["full"], true);
    assert_eq!(rows_text(&first.data)[0], (0, "ready".to_owned()));
    assert_eq!(
        first.id,
        first.data["revision"].as_u64().map(|r| format!("{r}.0")),
        "the id is the revision and the scroll count"
    );
    // Typed text comes as the rows that changed.
    type_text(&server, &id, "hello\r");
    let screen = events.until("screen", |d| rows_text(d).iter().any(|(_, t)| t == "hello"));
    assert_eq!(screen.data["full"], false);
    // A title and a bell (cat echoes what it reads).
    type_text(&server, &id, "\x1b]2;my title\x07\x07\r");
    let title = events.until("title", |_| true);
    assert_eq!(title.data["title"], "my title");
    let bell = events.until("bell", |_| true);
    assert!(bell.data["count"].as_u64() >= Some(1), "{:?}", bell.data);
    let r = server.call(
        "POST",
        &format!("/api/sessions/{id}/resize"),
        Some(&json!({ "cols": 50, "rows": 6 }).to_string()),
    );
    assert_eq!(r.status, 204);
    let resize = events.until("resize", |_| true);
    assert_eq!(resize.data, json!({ "cols": 50, "rows": 6 }));
    // Another viewer joins and leaves, by name.
    let other = EventStream::open(
        &server,
        &format!("/api/sessions/{id}/events"),
        &[("Authorization", &auth)],
    );
    let joined = events.until("viewer", |_| true);
    assert_eq!(
        joined.data,
        json!({ "change": "joined", "name": "admin", "kind": "admin", "role": "view" })
    );
    drop(other);
    let left = events.until("viewer", |_| true);
    assert_eq!(left.data["change"], "left");
    // The program ends: the exit event, then the end of the stream.
    type_text(&server, &id, "\x04");
    let exit = events.until("exit", |_| true);
    assert_eq!(exit.data, json!({ "code": 0, "signal": null }));
    assert!(events.next().is_none(), "the stream ends after exit");
}

#[test]
fn last_event_id_resumes_with_what_changed() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(
        &["sh", "-c", "echo one; exec cat"],
        json!({ "cols": 40, "rows": 5 }),
    ));
    server.wait_screen(&id, "one", |s| s.contains("one"));
    let auth = auth();
    let path = format!("/api/sessions/{id}/events");
    let mut events = EventStream::open(&server, &path, &[("Authorization", &auth)]);
    let first = events.next().expect("a first event");
    let last = first.id.expect("an id");
    drop(events);
    type_text(&server, &id, "two\r");
    server.wait_screen(&id, "two twice", |s| s.matches("two").count() == 2);
    let mut resumed = EventStream::open(
        &server,
        &path,
        &[("Authorization", &auth), ("Last-Event-ID", &last)],
    );
    let screen = resumed.next().expect("a screen event");
    assert_eq!(screen.name, "screen");
    assert_eq!(screen.data["full"], false);
    assert_eq!(
        rows_text(&screen.data),
        vec![(1, "two".to_owned()), (2, "two".to_owned())],
        "only the rows changed since {last}"
    );
    // An id it cannot use: the whole screen.
    let mut fresh = EventStream::open(
        &server,
        &path,
        &[("Authorization", &auth), ("Last-Event-ID", "nonsense")],
    );
    assert_eq!(
        fresh.next().map(|e| e.data["full"].clone()),
        Some(json!(true))
    );
}

#[test]
fn an_ended_session_answers_its_screen_and_exit() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["sh", "-c", "echo bye; exit 3"], json!({})));
    server.wait_exit(&id);
    let auth = auth();
    let mut events = EventStream::open(
        &server,
        &format!("/api/sessions/{id}/events"),
        &[("Authorization", &auth)],
    );
    assert_eq!(events.next().map(|e| e.name), Some("screen".to_owned()));
    let exit = events.next().expect("the exit");
    assert_eq!(
        (exit.name.as_str(), exit.data["code"].clone()),
        ("exit", json!(3))
    );
    assert!(events.next().is_none());
}

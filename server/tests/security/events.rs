//! The event stream (`GET .../events`) is a stream like the WebSocket:
//! it takes a viewer slot, so a credential cannot hold more than its
//! share of a session's streams (429 `too_many_viewers`, while others
//! still connect), and a view link's events end when the link is revoked.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::sse::EventStream;
use crate::common::{session_id, Server};
use crate::support::{keyed_config, mint, revoke, CONTROL_KEY, VIEW_KEY};

#[test]
fn a_credential_cannot_open_more_event_streams_than_its_share() {
    let mut config = keyed_config();
    config.limits.max_viewers_per_credential = 2;
    let server = Server::start(config);
    let id = session_id(&server.create(&["sh", "-c", "sleep 60"], json!({})));
    let path = format!("/api/sessions/{id}/events");
    let view = format!("Bearer {VIEW_KEY}");
    let mut held: Vec<EventStream> = (0..2)
        .map(|_| EventStream::open(&server, &path, &[("Authorization", &view)]))
        .collect();
    for stream in &mut held {
        assert_eq!(stream.status, 200);
        assert_eq!(stream.next().map(|e| e.name), Some("screen".to_owned()));
    }
    let refused = server.raw("GET", &path, &[("Authorization", &view)], None);
    assert_eq!(
        (refused.status, refused.code()),
        (429, "too_many_viewers".to_owned()),
        "{}",
        refused.body
    );
    let control = format!("Bearer {CONTROL_KEY}");
    let mut other = EventStream::open(&server, &path, &[("Authorization", &control)]);
    assert_eq!(other.status, 200, "another credential has its own share");
    assert_eq!(other.next().map(|e| e.name), Some("screen".to_owned()));
    // A slot comes back when its stream closes.
    drop(held.pop());
    crate::common::eventually("the slot to come back", || {
        let mut again = EventStream::open(&server, &path, &[("Authorization", &view)]);
        (again.status == 200).then(|| again.next())
    });
}

#[test]
fn a_view_links_events_end_when_it_is_revoked() {
    let server = Server::start(keyed_config());
    let id = session_id(&server.create(&["sh", "-c", "sleep 60"], json!({})));
    let link = mint(&server, &id, "view");
    let token = format!("Bearer {}", link["token"].as_str().expect("a token"));
    let mut events = EventStream::open(
        &server,
        &format!("/api/sessions/{id}/events"),
        &[("Authorization", &token)],
    );
    assert_eq!(events.status, 200);
    assert_eq!(events.next().map(|e| e.name), Some("screen".to_owned()));
    assert_eq!(
        revoke(&server, &id, link["id"].as_str().expect("an id")),
        204
    );
    // The stream ends at once (a read would otherwise wait 10 s for the
    // next keep-alive or time out).
    let revoked = Instant::now();
    while let Some(event) = events.next() {
        assert_ne!(event.name, "exit", "the session did not end");
    }
    assert!(
        revoked.elapsed() < Duration::from_secs(5),
        "{:?}",
        revoked.elapsed()
    );
    let again = server.raw(
        "GET",
        &format!("/api/sessions/{id}/events"),
        &[("Authorization", &token)],
        None,
    );
    assert_eq!(again.status, 401);
}

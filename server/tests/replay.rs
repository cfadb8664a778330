//! Replays end to end: a recording played over the WebSocket stream,
//! seeking (the screen equals what `render --at` shows), playing to the
//! end, marker jumps, refused messages, who may open a replay, and the
//! markers API.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::ws::{self, Client};
use common::{eventually, http, session_id, test_config, Server, TOKEN};
use panecast::config::Config;
use panecast::record::{Cast, EventKind};
use panecast::render::{render, Format};
use panecast_proto::{close, ClientMessage, ReplayControl};
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(10);

fn fresh_dir(what: &str) -> PathBuf {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "panecast-replay-{}-{}-{what}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the recordings directory");
    dir
}

fn config(dir: &Path) -> Config {
    let mut config = test_config();
    config.recordings_dir = dir.to_owned();
    config
}

/// 30 s of numbered coloured lines, 0.1 s apart, an escape sequence cut
/// across two events now and then, a resize at 12 s, markers at 5 s and
/// 20 s; no pause is long enough to be shortened.
fn sample() -> String {
    let mut text =
        String::from("{\"version\": 2, \"width\": 40, \"height\": 6, \"title\": \"demo\"}\n");
    let mut push = |t: f64, code: &str, data: &str| {
        text.push_str(&serde_json::to_string(&(t, code, data)).expect("json"));
        text.push('\n');
    };
    for i in 0..300 {
        let t = i as f64 / 10.0;
        if i % 9 == 4 {
            push(t, "o", "\x1b[3");
            push(t, "o", &format!("{}mline {i}\r\n", i % 8));
        } else {
            push(t, "o", &format!("\x1b[1;3{}mline {i}\x1b[m\r\n", i % 8));
        }
        match i {
            50 => push(t, "m", "five"),
            120 => push(t, "r", "30x5"),
            200 => push(t, "m", "twenty"),
            _ => {}
        }
    }
    text
}

/// The screen's lines at `at` seconds, as `panecast render --at` shows it.
fn rendered_at(cast: &Cast, at: f64) -> Vec<String> {
    let mut term = cast.term_at(at);
    let mut lines: Vec<String> = render(&term.snapshot(), Format::Text)
        .lines()
        .map(str::to_owned)
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// The model's lines, trailing blank lines dropped as `render` does.
fn shown(client: &Client) -> Vec<String> {
    let mut lines = client.model.text();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// A server whose recordings directory holds `demo.cast` ([`sample`]).
fn demo_server(what: &str) -> Server {
    let dir = fresh_dir(what);
    std::fs::write(dir.join("demo.cast"), sample()).expect("write the recording");
    Server::start(config(&dir))
}

async fn open_replay(server: &Server, name: &str) -> Client {
    let auth = format!("Bearer {TOKEN}");
    let mut client = ws::connect(
        server.addr,
        &format!("/api/recordings/{name}/ws"),
        &[("Authorization", &auth)],
        None,
    )
    .await
    .unwrap_or_else(|r| panic!("the replay was refused: {} {}", r.status, r.body));
    client
        .until("the replay's state", LIMIT, |m| {
            m.replay.as_ref().is_some_and(|r| r.duration_ms > 0)
        })
        .await;
    client
}

#[tokio::test]
async fn seeking_shows_the_screen_render_at_shows() {
    let cast = Cast::parse(sample().as_bytes()).expect("a valid recording");
    let server = demo_server("seek");
    let mut client = open_replay(&server, "demo").await;
    let state = client.model.replay.clone().expect("a state");
    assert_eq!(state.duration_ms, 29_900);
    assert_eq!(
        (state.position_ms, state.playing, state.speed),
        (0, false, 100)
    );
    let markers: Vec<(u64, &str)> = state
        .markers
        .iter()
        .map(|m| (m.time_ms, m.label.as_str()))
        .collect();
    assert_eq!(markers, [(5_000, "five"), (20_000, "twenty")]);
    assert!(client
        .model
        .hello
        .as_ref()
        .is_some_and(|h| h.role == panecast_proto::Role::View));

    // Forward, back, across the resize, to the end and past it.
    for ms in [
        3_350, 27_000, 1_000, 12_000, 11_950, 29_900, 60_000, 0, 15_430,
    ] {
        client
            .send(&ClientMessage::Replay(ReplayControl::Seek(ms)))
            .await;
        let at = ms.min(29_900) as f64 / 1000.0;
        let expected = rendered_at(&cast, at);
        client
            .until(&format!("the screen at {at} s"), LIMIT, |m| {
                m.replay
                    .as_ref()
                    .is_some_and(|r| r.position_ms == ms.min(29_900))
            })
            .await;
        let cols = cast.term_at(at).cols();
        client
            .until(&format!("the text at {at} s"), LIMIT, |m| {
                m.cols == cols && {
                    let mut lines = m.text();
                    while lines.last().is_some_and(String::is_empty) {
                        lines.pop();
                    }
                    lines == expected
                }
            })
            .await;
        assert_eq!(shown(&client), expected, "at {at} s");
    }
    client.close().await;
}

/// Jumps to the next (or previous) marker and waits for the replay to
/// stand at `position_ms`.
async fn jump(client: &mut Client, next: bool, position_ms: u64, what: &str) {
    client
        .send(&ClientMessage::Replay(ReplayControl::Marker(next)))
        .await;
    client
        .until(what, LIMIT, |m| {
            m.replay
                .as_ref()
                .is_some_and(|r| r.position_ms == position_ms)
        })
        .await;
}

#[tokio::test]
async fn a_replay_plays_to_the_end_and_jumps_between_markers() {
    let cast = Cast::parse(sample().as_bytes()).expect("a valid recording");
    let server = demo_server("play");
    let mut client = open_replay(&server, "demo.cast").await;

    jump(&mut client, true, 5_000, "the first marker").await;
    jump(&mut client, true, 20_000, "the second marker").await;
    jump(&mut client, false, 5_000, "back to the first marker").await;

    // From 25 s at 8x: the last 4.9 s take about 0.6 s.
    client
        .send(&ClientMessage::Replay(ReplayControl::Seek(25_000)))
        .await;
    client
        .send(&ClientMessage::Replay(ReplayControl::Speed(800)))
        .await;
    client
        .send(&ClientMessage::Replay(ReplayControl::Play))
        .await;
    client
        .until("playing at 8x", LIMIT, |m| {
            m.replay
                .as_ref()
                .is_some_and(|r| r.playing && r.speed == 800)
        })
        .await;
    client
        .until("the end", LIMIT, |m| {
            m.replay
                .as_ref()
                .is_some_and(|r| !r.playing && r.position_ms == r.duration_ms)
        })
        .await;
    let expected = rendered_at(&cast, f64::INFINITY);
    client
        .until("the last screen", LIMIT, |m| {
            let mut lines = m.text();
            while lines.last().is_some_and(String::is_empty) {
                lines.pop();
            }
            lines == expected
        })
        .await;
    client.close().await;
}

#[tokio::test]
async fn a_replay_refuses_input_and_bad_controls_and_a_live_session_refuses_controls() {
    let server = demo_server("refuse");

    let mut client = open_replay(&server, "demo").await;
    client
        .send(&ClientMessage::Text {
            text: "ls\r".into(),
        })
        .await;
    let closed = client.close_code(LIMIT).await;
    assert_eq!(closed.code, Some(close::POLICY_VIOLATION), "{closed:?}");
    assert_eq!(closed.reason, "a replay takes no input");

    let mut client = open_replay(&server, "demo").await;
    // Speed 900% (over 8x): a decode error.
    client
        .send_raw(tokio_tungstenite::tungstenite::Message::Binary(
            vec![0x8c, 0x84, 0x07].into(),
        ))
        .await;
    let closed = client.close_code(LIMIT).await;
    assert_eq!(closed.code, Some(close::PROTOCOL_ERROR), "{closed:?}");

    let id = session_id(&server.create(&["cat"], json!({})));
    let mut live = ws::open(server.addr, TOKEN, &id, "control").await;
    live.until("the first frame", LIMIT, |m| m.frames > 0).await;
    live.send(&ClientMessage::Replay(ReplayControl::Play)).await;
    let closed = live.close_code(LIMIT).await;
    assert_eq!(closed.code, Some(close::POLICY_VIOLATION), "{closed:?}");
    assert_eq!(closed.reason, "replay controls need a replay");
    let mut view = ws::open(server.addr, TOKEN, &id, "view").await;
    view.until("the first frame", LIMIT, |m| m.frames > 0).await;
    view.send(&ClientMessage::Replay(ReplayControl::Seek(0)))
        .await;
    let closed = view.close_code(LIMIT).await;
    assert_eq!(closed.code, Some(close::POLICY_VIOLATION), "{closed:?}");
}

/// The status of an upgrade to the replay of `name` with `token`: 101
/// when accepted.
async fn upgrade_status(server: &Server, name: &str, token: Option<&str>) -> (u16, String) {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    match ws::connect(
        server.addr,
        &format!("/api/recordings/{name}/ws"),
        &headers,
        None,
    )
    .await
    {
        Ok(client) => {
            client.close().await;
            (101, String::new())
        }
        Err(refused) => {
            let code = serde_json::from_str::<serde_json::Value>(&refused.body)
                .ok()
                .and_then(|v| v["code"].as_str().map(str::to_owned))
                .unwrap_or_default();
            (refused.status, code)
        }
    }
}

#[tokio::test]
async fn who_may_open_a_replay() {
    let dir = fresh_dir("access");
    std::fs::write(dir.join("imported.cast"), sample()).expect("write the recording");
    std::fs::write(
        dir.join("broken.cast"),
        "{\"version\": 2, \"width\": 5, \"height\": 2}\n[1, oops]\n[2, \"o\", \"x\"]\n",
    )
    .expect("write");
    let server = Server::start(config(&dir));
    let upgrade = |name: &'static str, token: Option<String>| {
        let server = &server;
        async move { upgrade_status(server, name, token.as_deref()).await }
    };
    let admin = || Some(TOKEN.to_owned());
    assert_eq!(upgrade("imported", admin()).await.0, 101);
    assert_eq!(upgrade("imported", None).await.0, 401);
    assert_eq!(
        upgrade("missing", admin()).await,
        (404, "recording_not_found".into())
    );
    assert_eq!(
        upgrade("..%2Fetc", admin()).await,
        (400, "bad_recording_name".into())
    );
    assert_eq!(
        upgrade("broken", admin()).await,
        (422, "bad_recording".into())
    );

    // A link to a recorded session reaches that recording's replay, not a
    // file of no session.
    let session = server.create(&["cat"], json!({ "record": true }));
    let id = session_id(&session);
    let name = session["recording"]
        .as_str()
        .expect("a recording")
        .to_owned();
    let link = server
        .call(
            "POST",
            &format!("/api/sessions/{id}/links"),
            Some(r#"{"role": "view"}"#),
        )
        .json();
    let token = link["token"].as_str().expect("a token");
    // The file has its header as soon as the session starts.
    assert_eq!(upgrade_status(&server, &name, Some(token)).await.0, 101);
    assert_eq!(upgrade("imported", Some(token.to_owned())).await.0, 404);

    // A file over the replay size cap is refused before it is read.
    let mut small = config(&dir);
    small.recordings.max_replay_bytes = 1000;
    let capped = Server::start(small);
    assert_eq!(
        upgrade_status(&capped, "imported", Some(TOKEN)).await,
        (413, "recording_too_large".into())
    );

    // The page itself holds no secret.
    let page = server.call("GET", "/r/imported", None);
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("/web/replay.bundle.js?v="),
        "{}",
        page.body
    );
}

#[test]
fn markers_go_into_the_recording() {
    let dir = fresh_dir("markers");
    let server = Server::start(config(&dir));
    let session = server.create(&["cat"], json!({ "record": true }));
    let id = session_id(&session);
    let name = session["recording"]
        .as_str()
        .expect("a recording")
        .to_owned();
    let mark = |id: &str, body: &str| {
        server.call("POST", &format!("/api/sessions/{id}/markers"), Some(body))
    };
    assert_eq!(mark(&id, r#"{"label": "deploy ✓"}"#).status, 204);
    let long = json!({ "label": "x".repeat(257) }).to_string();
    let response = mark(&id, &long);
    assert_eq!(
        (response.status, response.code()),
        (400, "bad_marker".into())
    );
    let response = mark(&id, r#"{"labels": "typo"}"#);
    assert_eq!(response.status, 400, "{}", response.body);

    let plain = session_id(&server.create(&["cat"], json!({})));
    let response = mark(&plain, r#"{"label": "x"}"#);
    assert_eq!(
        (response.status, response.code()),
        (409, "not_recording".into())
    );

    let view = server
        .call(
            "POST",
            &format!("/api/sessions/{id}/links"),
            Some(r#"{"role": "view"}"#),
        )
        .json();
    let auth = format!("Bearer {}", view["token"].as_str().expect("a token"));
    let response = http(
        server.addr,
        "POST",
        &format!("/api/sessions/{id}/markers"),
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        Some(br#"{"label": "x"}"#),
    );
    assert_eq!(response.status, 403, "{}", response.body);

    let cast = eventually("the marker in the file", || {
        let response = server.call("GET", &format!("/api/recordings/{name}"), None);
        let cast = Cast::parse(response.body.as_bytes()).ok()?;
        cast.events
            .iter()
            .any(|e| e.kind == EventKind::Marker("deploy ✓".into()))
            .then_some(cast)
    });
    assert_eq!(
        cast.events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Marker(_)))
            .count(),
        1
    );
}

#[tokio::test]
async fn a_replay_viewer_gets_going_away_when_the_server_stops() {
    let server = demo_server("shutdown");
    let mut client = open_replay(&server, "demo").await;
    let stopping = tokio::task::spawn_blocking(move || server.stop());
    let closed = client.close_code(LIMIT).await;
    assert_eq!(closed.code, Some(close::GOING_AWAY), "{closed:?}");
    stopping.await.expect("the server stopped");
}

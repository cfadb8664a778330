//! The stream's `Sync` (PROTOCOL.md, 0x10), end to end with a real server,
//! real ptys and a real WebSocket client: what a client predicting echo and
//! resuming after a drop is told, and that the server keeps its word.
//!
//! - the terminal's echo state, read from the pty: a shell's cooked
//!   terminal, a password prompt, a raw program;
//! - inputs acknowledged once their echo time has passed, the echo on the
//!   screen by then;
//! - inputs sent again after a reconnect, applied once;
//! - a connection that resumes from a revision gets a diff, not the whole
//!   screen, and ends with the exact screen.

mod common;

use std::time::Duration;

use common::ws::{self, Client, Model};
use common::{converge, differences, session_id, test_config, Server, TOKEN};
use panecast_proto::{self as proto, ClientMessage};
use serde_json::json;
use tokio::time::Instant;

/// How long any wait may last; polling returns as soon as it can.
const LIMIT: Duration = Duration::from_secs(10);

/// A client id, as a page makes one.
const CLIENT: &str = "0123456789abcdef0123456789abcdef";

/// Opens the stream of `id` with `query` appended (after `role=control`).
async fn open_with(server: &Server, id: &str, query: &str) -> Client {
    let auth = format!("Bearer {TOKEN}");
    let path = format!("{}&{query}", ws::ws_path(id, Some("control")));
    ws::connect(server.addr, &path, &[("Authorization", &auth)], None)
        .await
        .unwrap_or_else(|r| panic!("refused: {} {}", r.status, r.body))
}

fn text(message: &str) -> ClientMessage {
    ClientMessage::Text {
        text: message.to_owned(),
    }
}

/// Reads until a `Sync` satisfies `done`; returns it.
async fn sync_until(
    client: &mut Client,
    what: &str,
    done: impl Fn(&proto::Sync) -> bool,
) -> proto::Sync {
    client
        .until(what, LIMIT, |m| m.syncs.last().is_some_and(&done))
        .await;
    *client.model.syncs.last().expect("a sync")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_echo_state_follows_the_program_from_cooked_to_password_to_raw() {
    let server = Server::start(test_config());
    let script = "printf 'cooked\\n'; read a; stty -echo; printf 'Password: '; read b; \
                  stty echo; stty raw -echo; printf '\\nraw\\n'; exec sleep 60";
    let id = session_id(&server.create(&["sh", "-c", script], json!({})));
    let mut client = open_with(&server, &id, "").await;
    let cooked = sync_until(&mut client, "the first sync", |s| s.echo.known).await;
    assert_eq!(
        (cooked.echo.echo, cooked.echo.canonical),
        (true, true),
        "a cooked terminal that echoes: {cooked:?}"
    );
    assert_eq!(
        (cooked.revision.cols, cooked.revision.rows),
        (client.model.cols, client.model.rows)
    );
    client.send(&text("\r")).await;
    let password = sync_until(&mut client, "the password prompt", |s| !s.echo.echo).await;
    assert!(password.echo.canonical, "{password:?}");
    assert!(
        !password.echo.may_predict(),
        "never predicted: {password:?}"
    );
    client.send(&text("hunter2\r")).await;
    let raw = sync_until(&mut client, "raw mode", |s| !s.echo.canonical).await;
    assert!(raw.echo.may_predict(), "raw: predicted, confirmed first");
    client
        .until("the raw line", LIMIT, |m| {
            m.text().iter().any(|l| l.trim_start() == "raw")
        })
        .await;
    assert!(
        !client.model.text().iter().any(|l| l.contains("hunter2")),
        "the password was never echoed: {:?}",
        client.model.text()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_input_is_acknowledged_once_its_echo_is_on_the_screen() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let mut client = open_with(&server, &id, &format!("client={CLIENT}&input=1")).await;
    let first = sync_until(&mut client, "the first sync", |_| true).await;
    assert_eq!(first.input, 0, "nothing typed yet");
    client.send(&text("abc")).await;
    client
        .send(&ClientMessage::Key {
            key: proto::Key::Char('d'),
            mods: proto::Modifiers::NONE,
            event: proto::KeyEvent::Press,
        })
        .await;
    let acked = sync_until(&mut client, "inputs 1 and 2 acknowledged", |s| s.input >= 2).await;
    assert_eq!(acked.input, 2, "two input messages");
    // The Sync comes after the frames it speaks of: the echo is there.
    assert_eq!(client.model.row_text(0), "abcd");
    assert_eq!(
        acked.revision.generation,
        client
            .model
            .syncs
            .last()
            .expect("a sync")
            .revision
            .generation
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn inputs_sent_again_after_a_reconnect_are_applied_once() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let query = format!("client={CLIENT}&input=1");
    let mut first = open_with(&server, &id, &query).await;
    first.send(&text("a")).await;
    first.send(&text("b")).await;
    sync_until(&mut first, "a and b applied", |s| s.input >= 2).await;
    first.close().await;
    // Not knowing what arrived, the client sends everything again, and
    // more: the first two are repeats.
    let mut again = open_with(&server, &id, &query).await;
    let told = sync_until(&mut again, "the first sync", |_| true).await;
    assert_eq!(told.input, 2, "the session says what it applied");
    for part in ["a", "b", "c", "\r"] {
        again.send(&text(part)).await;
    }
    server.wait_screen(&id, "the line, once", |s| s.contains("abc\nabc"));
    let screen = server.screen(&id);
    assert!(!screen.contains("abab"), "applied twice: {screen}");
    // Another client's inputs count on their own.
    let mut other = open_with(
        &server,
        &id,
        "client=ffffffffffffffffffffffffffffffff&input=1",
    )
    .await;
    other.send(&text("z\r")).await;
    server.wait_screen(&id, "the other client's line", |s| s.contains("z\nz"));
}

/// Waits for the first frame and the `Sync` after the screen shows `text`;
/// returns the model and that sync's revision.
async fn synced_at(client: &mut Client, text: &str) -> proto::Revision {
    client
        .until("the text, then its sync", LIMIT, |m| {
            m.text().iter().any(|l| l.contains(text))
                && m.syncs
                    .last()
                    .is_some_and(|s| s.revision.generation > 0 || m.frames > 0)
        })
        .await;
    // The sync after the last frame applied.
    let deadline = Instant::now() + Duration::from_millis(300);
    while client.next(deadline).await.is_some() {}
    client.model.syncs.last().expect("a sync").revision
}

/// Bytes a new connection (no resume) takes to the first frame.
async fn whole_screen_bytes(server: &Server, id: &str) -> u64 {
    let mut fresh = open_with(server, id, "").await;
    fresh.until("a frame", LIMIT, |m| m.frames > 0).await;
    fresh.bytes
}

#[tokio::test(flavor = "multi_thread")]
async fn a_connection_resumed_from_a_revision_gets_a_diff_to_the_exact_screen() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(
        &[
            "sh",
            "-c",
            "for i in $(seq 1 11); do echo \"line $i of the screen, long enough\"; done; \
             read x; echo twelve; read y; seq 100 160; printf '\\033]2;later\\007'; exec cat",
        ],
        json!({"cols": 40, "rows": 12}),
    ));
    server.wait_screen(&id, "the first lines", |s| s.contains("line 11"));
    let type_enter = || {
        server.call(
            "POST",
            &format!("/api/sessions/{id}/input"),
            Some(&json!({"text": "\r"}).to_string()),
        )
    };

    // Away while one line comes: the resumed connection gets just that.
    let mut first = open_with(&server, &id, "").await;
    let revision = synced_at(&mut first, "line 11").await;
    let held: Model = first.model.clone();
    first.close().await;
    type_enter();
    server.wait_screen(&id, "one more line", |s| s.contains("twelve"));
    let mut resumed = open_with(&server, &id, &format!("resume={}", revision.to_query())).await;
    resumed.model = held.resumed();
    converge(&server, &id, &mut resumed, "resumed after one line").await;
    assert_eq!(resumed.model.full_frames, held.full_frames, "no full frame");
    let whole = whole_screen_bytes(&server, &id).await;
    assert!(
        resumed.bytes * 2 < whole,
        "a line's diff costs less than the screen whole: {} bytes, whole {whole}",
        resumed.bytes
    );

    // Away while sixty lines scroll by and the title is set: still a diff,
    // and the exact screen.
    let revision = synced_at(&mut resumed, "twelve").await;
    let held = resumed.model.clone();
    resumed.close().await;
    type_enter();
    server.wait_screen(&id, "the rest", |s| s.contains("160"));
    let mut again = open_with(&server, &id, &format!("resume={}", revision.to_query())).await;
    again.model = held.resumed();
    converge(&server, &id, &mut again, "resumed after sixty lines").await;
    assert_eq!(again.model.full_frames, held.full_frames, "no full frame");
    assert_eq!(again.model.title, "later");

    // A revision of another size, or one the session never reached: the
    // first frame is whole, and right.
    for stale in [
        proto::Revision {
            cols: 80,
            ..revision
        },
        proto::Revision {
            generation: u64::MAX,
            ..revision
        },
    ] {
        let mut whole = open_with(&server, &id, &format!("resume={}", stale.to_query())).await;
        whole.model = held.resumed();
        whole.until("a frame", LIMIT, |m| m.frames > 0).await;
        assert_eq!(whole.model.full_frames, held.full_frames + 1, "{stale:?}");
        let diff = differences(&whole.model, &server.screen_json(&id));
        assert!(diff.is_empty(), "{diff:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_parameters_are_refused_with_bad_query() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["cat"], json!({})));
    let auth = format!("Bearer {TOKEN}");
    for query in [
        "client=xyz",
        "input=0",
        "resume=1.2.3",
        "resume=1.2.3.4.0.24",
    ] {
        let path = format!("{}&{query}", ws::ws_path(&id, Some("control")));
        let refused = ws::connect(server.addr, &path, &[("Authorization", &auth)], None).await;
        match refused {
            Err(r) => {
                assert_eq!(r.status, 400, "{query}");
                assert!(r.body.contains("bad_query"), "{query}: {}", r.body);
            }
            Ok(_) => panic!("{query} was accepted"),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_profile_with_predict_false_bars_prediction_and_others_do_not() {
    let mut config = test_config();
    for (name, predict) in [("exact", false), ("typed", true)] {
        config.profiles.insert(
            name.to_owned(),
            panecast::config::Profile {
                command: Some("/bin/cat".to_owned()),
                predict,
                ..Default::default()
            },
        );
    }
    let server = Server::start(config);
    for (profile, barred) in [("exact", true), ("typed", false)] {
        let body = json!({ "profile": profile }).to_string();
        let response = server.call("POST", "/api/sessions", Some(&body));
        assert_eq!(response.status, 201, "{}", response.body);
        let id = session_id(&response.json());
        let mut client = open_with(&server, &id, "").await;
        let first = sync_until(&mut client, "the echo state", |s| s.echo.known).await;
        assert_eq!(first.echo.barred, barred, "{profile}: {first:?}");
        assert_eq!(first.echo.may_predict(), !barred, "{profile}: cat echoes");
    }
}

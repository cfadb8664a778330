//! Images on the stream, end to end (real server, real pty, a WebSocket
//! client that checks every piece names a picture it was sent before):
//! a viewer gets a picture once however many frames place it; a second
//! viewer and a reconnect get it; a viewer that arrives after it scrolled
//! off the screen gets it with the scrollback answer that places it; once
//! it scrolled beyond the scrollback, nobody is sent it.

mod common;

use std::time::Duration;

use common::ws::{self, Client};
use common::{session_id, test_config, Server, TOKEN};
use panecast_proto::ClientMessage;
use serde_json::json;

/// How long any wait may last; polling returns as soon as it can.
const LIMIT: Duration = Duration::from_secs(10);

/// A line of text, then a 16 x 12 red sixel on the row below it.
const PROGRAM: &str =
    r#"echo shown; printf '\033Pq#1;2;100;0;0#1!16~-#1!16~\033\\'; echo; exec cat"#;

/// Opens a connection and reads up to its first frame.
async fn attach(server: &Server, id: &str, role: &str) -> Client {
    let mut client = ws::open(server.addr, TOKEN, id, role).await;
    client
        .until("the first frame", LIMIT, |m| m.frames > 0)
        .await;
    client
}

/// True when a row of the client's screen places an image.
fn placed(client: &Client) -> bool {
    client.model.lines.iter().any(|l| !l.images().is_empty())
}

/// Types `line` and a return into `cat` and waits for its echo.
async fn type_line(control: &mut Client, line: &str) {
    control
        .send(&ClientMessage::Text {
            text: format!("{line}\r"),
        })
        .await;
    let what = format!("the echo of {line}");
    control
        .until(&what, LIMIT, |m| {
            m.text().iter().filter(|row| row.as_str() == line).count() >= 2
        })
        .await;
}

/// Asks for scrollback lines 1 to 5 and waits for the answer.
async fn scrollback(client: &mut Client) -> Vec<panecast_proto::Line> {
    client
        .send(&ClientMessage::ScrollbackRequest { start: 1, count: 5 })
        .await;
    client
        .until("the scrollback answer", LIMIT, |m| !m.scrollback.is_empty())
        .await;
    client.model.scrollback.pop().expect("an answer").lines
}

#[tokio::test]
async fn each_connection_gets_a_picture_once_and_only_while_something_places_it() {
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["sh", "-c", PROGRAM], json!({"scrollback": 5})));
    server.wait_screen(&id, "the text after the picture", |s| s.contains("shown"));

    let mut viewer = attach(&server, &id, "view").await;
    viewer
        .until("the picture placed", LIMIT, |m| {
            m.lines.iter().any(|l| !l.images().is_empty())
        })
        .await;
    assert_eq!(viewer.model.images.len(), 1, "the picture came first");
    let picture = viewer.model.images[0].clone();
    assert_eq!((picture.width, picture.height), (16, 12));
    assert!(picture.png.starts_with(b"\x89PNG"), "as a PNG file");

    // More frames that still place it: the viewer is not sent it again
    // (its model refuses a picture sent twice).
    let mut control = attach(&server, &id, "control").await;
    let frames = viewer.model.frames;
    for line in ["one", "two"] {
        type_line(&mut control, line).await;
    }
    viewer
        .until("the echoes", LIMIT, |m| m.text().iter().any(|r| r == "two"))
        .await;
    assert!(viewer.model.frames > frames, "new frames came");
    assert!(placed(&viewer), "still placed");
    assert_eq!(viewer.model.images.len(), 1, "sent once");
    assert_eq!(
        control.model.images,
        std::slice::from_ref(&picture),
        "a second viewer"
    );

    drop(viewer);
    let again = attach(&server, &id, "view").await;
    assert_eq!(
        again.model.images,
        std::slice::from_ref(&picture),
        "a reconnect"
    );

    // Scroll it off the screen, into the scrollback.
    let mut n = 0;
    while placed(&control) {
        n += 1;
        type_line(&mut control, &format!("up{n}")).await;
    }
    let mut late = attach(&server, &id, "view").await;
    assert!(late.model.images.is_empty(), "nothing on its screen");
    let lines = scrollback(&mut late).await;
    assert!(
        lines.iter().any(|l| !l.images().is_empty()),
        "the answer places it"
    );
    assert_eq!(late.model.images, [picture], "sent before the answer");

    // Beyond the scrollback (5 lines; each typed line is two).
    for i in 0..4 {
        type_line(&mut control, &format!("gone{i}")).await;
    }
    let mut last = attach(&server, &id, "view").await;
    let lines = scrollback(&mut last).await;
    assert!(lines.iter().all(|l| l.images().is_empty()));
    assert!(last.model.images.is_empty(), "never sent");
}

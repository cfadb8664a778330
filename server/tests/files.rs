//! End to end: files in and out of a session over HTTP
//! (`PUT /api/sessions/{id}/files/{name}`, `GET /api/sessions/{id}/files`),
//! into the working directory of the session's foreground process.

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use std::time::Duration;

use common::ws::{open, Client};
use common::{session_id, test_config, Server};
use panecast::config::{Config, Profile};
use panecast_proto::ClientMessage;
use serde_json::json;

/// A config whose `files` profile runs `/bin/sh` with files on, and whose
/// `plain` profile runs it without.
fn files_config() -> Config {
    let mut config = test_config();
    for (name, files) in [("files", true), ("plain", false)] {
        config.profiles.insert(
            name.to_owned(),
            Profile {
                command: Some("/bin/sh".to_owned()),
                files,
                ..Profile::default()
            },
        );
    }
    config
}

/// Starts a `files` session and waits for its shell.
fn start(server: &Server) -> String {
    let response = server.call("POST", "/api/sessions", Some(r#"{"profile":"files"}"#));
    assert_eq!(response.status, 201, "{}", response.body);
    let id = session_id(&response.json());
    server.run_line(&id, "true", 0);
    id
}

fn put(server: &Server, id: &str, name: &str, body: &[u8]) -> common::Response {
    let auth = format!("Bearer {}", common::TOKEN);
    server.raw(
        "PUT",
        &format!("/api/sessions/{id}/files/{name}"),
        &[("Authorization", &auth)],
        Some(body),
    )
}

#[test]
fn an_upload_lands_in_the_shells_directory_and_comes_back() {
    let server = Server::start(files_config());
    let id = start(&server);
    let r = put(&server, &id, "hello.txt", b"hello, files\n");
    assert_eq!(r.status, 201, "{}", r.body);
    let answer = r.json();
    assert_eq!(answer["name"], "hello.txt");
    assert_eq!(answer["size"], 13);
    let dir = PathBuf::from(answer["directory"].as_str().expect("a directory"));
    let on_disk = dir.join("hello.txt");
    assert_eq!(std::fs::read(&on_disk).expect("written"), b"hello, files\n");
    // Nothing else: the temporary file was renamed.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("listed")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.contains("panecast"))
        .collect();
    assert!(names.is_empty(), "no temporary file left: {names:?}");
    // The shell sees it.
    server.run_line(&id, "cat hello.txt | tr a-z A-Z", 1);
    assert!(server.screen(&id).contains("HELLO, FILES"));

    let r = server.call(
        "GET",
        &format!("/api/sessions/{id}/files?path=hello.txt"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body, "hello, files\n");
    assert_eq!(
        r.header("content-disposition"),
        Some("attachment; filename=\"hello.txt\"; filename*=UTF-8''hello.txt")
    );
    // An existing name is refused, then replaced when asked.
    let r = put(&server, &id, "hello.txt", b"other");
    assert_eq!((r.status, r.code()), (409, "file_exists".to_owned()));
    assert_eq!(std::fs::read(&on_disk).expect("kept"), b"hello, files\n");
    let r = put(&server, &id, "hello.txt?overwrite=true", b"other");
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(std::fs::read(&on_disk).expect("replaced"), b"other");
    if unsafe { libc::geteuid() } == 0 {
        let session_uid = std::fs::metadata(format!("/proc/{}", server.session(&id)["pid"]))
            .expect("the session's process")
            .uid();
        assert_ne!(session_uid, 0, "the session has a uid of its own");
        assert_eq!(
            std::fs::metadata(&on_disk).expect("file").uid(),
            session_uid
        );
    }
}

#[test]
fn the_directory_follows_the_shells_cd() {
    let server = Server::start(files_config());
    let id = start(&server);
    server.run_line(&id, "mkdir sub && cd sub", 1);
    let r = put(&server, &id, "there.txt", b"in sub");
    assert_eq!(r.status, 201, "{}", r.body);
    let dir = PathBuf::from(r.json()["directory"].as_str().expect("a directory"));
    assert!(dir.ends_with("sub"), "{dir:?}");
    server.run_line(&id, "ls", 2);
    assert!(server.screen(&id).contains("there.txt"));
    server.run_line(&id, "cd ..", 3);
    let r = server.call(
        "GET",
        &format!("/api/sessions/{id}/files?path=sub/there.txt"),
        None,
    );
    assert_eq!((r.status, r.body.as_str()), (200, "in sub"));
    let r = server.call(
        "GET",
        &format!("/api/sessions/{id}/files?path=there.txt"),
        None,
    );
    assert_eq!((r.status, r.code()), (404, "file_not_found".to_owned()));
    // A program in the foreground is followed: its directory is the one
    // a download starts from.
    // The shell stays in the home directory; the subshell in the
    // foreground is in sub (the marker is printed from there).
    let body = json!({ "text": "(cd sub && echo 'DO''NE4' && exec sleep 60)\r" }).to_string();
    server.call("POST", &format!("/api/sessions/{id}/input"), Some(&body));
    server.wait_screen(&id, "DONE4", |s| s.lines().any(|l| l.trim_end() == "DONE4"));
    let r = server.call(
        "GET",
        &format!("/api/sessions/{id}/files?path=there.txt"),
        None,
    );
    assert_eq!((r.status, r.body.as_str()), (200, "in sub"));
}

const LIMIT: Duration = Duration::from_secs(10);

async fn attach(server: &Server, id: &str, role: &str) -> Client {
    let mut client = open(server.addr, common::TOKEN, id, role).await;
    client
        .until("the first frame", LIMIT, |m| m.frames > 0)
        .await;
    client
}

/// Types `line` on `client`, then a marker line once the offer was
/// printed; returns when both clients show the marker: an offer due to
/// either has surely been received by then.
async fn print_then_mark(client: &mut Client, other: &mut Client, line: &str) {
    let typed = |text: &str| ClientMessage::Text {
        text: text.to_owned(),
    };
    client.send(&typed(&format!("{line}\r"))).await;
    client.send(&typed("echo 'MA''RK'\r")).await;
    for c in [&mut *client, &mut *other] {
        c.until("the marker", LIMIT, |m| {
            m.text().iter().any(|l| l.trim_end().ends_with("MARK"))
        })
        .await;
    }
}

/// `printf` of an OSC 1337 File offer of `hello\n` named `a b.txt`.
const OFFER: &str = r"printf '\033]1337;File=name=YSBiLnR4dA==;size=6;inline=0:aGVsbG8K\007'";

#[tokio::test]
async fn a_programs_file_offer_reaches_control_viewers_of_a_files_profile_only() {
    let server = Server::start(files_config());
    let r = server.call("POST", "/api/sessions", Some(r#"{"profile":"files"}"#));
    let id = session_id(&r.json());
    let mut control = attach(&server, &id, "control").await;
    let mut view = attach(&server, &id, "view").await;
    print_then_mark(&mut control, &mut view, OFFER).await;
    control
        .until("the offer", LIMIT, |m| !m.files.is_empty())
        .await;
    assert_eq!(
        control.model.files,
        [("a b.txt".to_owned(), b"hello\n".to_vec())]
    );
    assert!(
        view.model.files.is_empty(),
        "a view connection never gets it"
    );

    let r = server.call("POST", "/api/sessions", Some(r#"{"profile":"plain"}"#));
    let id = session_id(&r.json());
    let mut control = attach(&server, &id, "control").await;
    let mut other = attach(&server, &id, "control").await;
    print_then_mark(&mut control, &mut other, OFFER).await;
    assert!(control.model.files.is_empty(), "no files in this profile");
}

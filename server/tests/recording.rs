//! Recording end to end: sessions recorded as asciicast v2 files, the
//! recordings API, its name checks, the byte cap, retention, and a server
//! killed mid-flood leaving a file readable up to its last line.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use common::{eventually, session_id, test_config, Server};
use panecast::config::Config;
use panecast::record::{Cast, EventKind};
use serde_json::json;

/// A fresh, empty directory for one test's recordings.
fn fresh_dir(what: &str) -> PathBuf {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "panecast-rec-{}-{}-{what}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the recordings directory");
    dir
}

fn recording_config(dir: &Path) -> Config {
    let mut config = test_config();
    config.recordings_dir = dir.to_owned();
    config
}

/// The text of every `o` event, joined.
fn output_of(cast: &Cast) -> String {
    cast.events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Output(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn download(server: &Server, name: &str) -> Cast {
    let response = server.call("GET", &format!("/api/recordings/{name}"), None);
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(
        response.header("content-type"),
        Some("application/x-asciicast")
    );
    Cast::parse(response.body.as_bytes()).expect("a valid recording")
}

#[test]
fn a_recorded_session_is_listed_downloaded_and_redirected_to() {
    let dir = fresh_dir("basic");
    let server = Server::start(recording_config(&dir));
    let session = server.create(&["cat"], json!({ "record": true, "cols": 50, "rows": 7 }));
    let id = session_id(&session);
    let name = session["recording"]
        .as_str()
        .expect("a recording")
        .to_owned();
    assert!(name.ends_with(&id), "{name}");

    // Live: listed as such, readable, not deletable.
    let list = server.call("GET", "/api/recordings", None).json();
    assert_eq!(list["recordings"][0]["name"], name.as_str());
    assert_eq!(list["recordings"][0]["session"], id.as_str());
    assert_eq!(list["recordings"][0]["live"], true);
    let cast = download(&server, &name);
    assert_eq!((cast.header.width, cast.header.height), (50, 7));
    let response = server.call("DELETE", &format!("/api/recordings/{name}"), None);
    assert_eq!(
        (response.status, response.code()),
        (409, "recording_live".to_owned())
    );

    let input = |text: &str| {
        let body = json!({ "text": text }).to_string();
        let response = server.call("POST", &format!("/api/sessions/{id}/input"), Some(&body));
        assert_eq!(response.status, 204, "{}", response.body);
    };
    input("héllo wörld ✓\r");
    server.wait_screen(&id, "the echo", |s| s.matches("wörld").count() == 2);
    let response = server.call(
        "POST",
        &format!("/api/sessions/{id}/resize"),
        Some(r#"{"cols": 60, "rows": 9}"#),
    );
    assert_eq!(response.status, 204);
    // Written within a second, while the session still runs: the echo and
    // then the resize (the writer may flush between the two).
    let cast = eventually("the echo and the resize in the live recording", || {
        let cast = download(&server, &name);
        let resized = cast
            .events
            .iter()
            .any(|e| e.kind == EventKind::Resize(60, 9));
        (resized && output_of(&cast).contains("wörld ✓\r\n")).then_some(cast)
    });
    // Input is not recorded unless the profile asks.
    assert!(!cast
        .events
        .iter()
        .any(|e| matches!(e.kind, EventKind::Input(_))));

    let response = server.call("GET", &format!("/api/sessions/{id}/recording"), None);
    assert_eq!(response.status, 302);
    assert_eq!(
        response.header("location"),
        Some(format!("/api/recordings/{name}").as_str())
    );

    assert_eq!(server.delete(&id).status, 200);
    let info = eventually("the recording to end", || {
        let list = server.call("GET", "/api/recordings", None).json();
        let info = list["recordings"][0].clone();
        (info["live"] == false).then_some(info)
    });
    assert!(info["bytes"].as_u64().expect("bytes") > 100, "{info}");
    assert!(info["duration"].as_f64().expect("duration") > 0.0, "{info}");
    let response = server.call("DELETE", &format!("/api/recordings/{name}.cast"), None);
    assert_eq!(response.status, 204);
    let response = server.call("GET", &format!("/api/recordings/{name}"), None);
    assert_eq!(
        (response.status, response.code()),
        (404, "recording_not_found".to_owned())
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unrecorded_session_has_no_recording() {
    let dir = fresh_dir("none");
    let server = Server::start(recording_config(&dir));
    let id = session_id(&server.create(&["cat"], json!({})));
    let response = server.call("GET", &format!("/api/sessions/{id}/recording"), None);
    assert_eq!(
        (response.status, response.code()),
        (404, "not_recorded".to_owned())
    );
    let list = server.call("GET", "/api/recordings", None).json();
    assert_eq!(list["recordings"], json!([]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn profiles_record_input_only_when_they_say_so_and_record_all_records_everything() {
    let dir = fresh_dir("input");
    let mut config = recording_config(&dir);
    config.profiles.insert(
        "typed".to_owned(),
        toml::from_str("command = \"cat\"\nrecord = true\nrecord_input = true").expect("profile"),
    );
    let server = Server::start(config);
    let session = server.call("POST", "/api/sessions", Some("{}")).json();
    assert!(session.get("recording").is_none(), "{session}");
    let typed = server.call("POST", "/api/sessions", Some(r#"{"profile": "typed"}"#));
    assert_eq!(typed.status, 201, "{}", typed.body);
    let typed = typed.json();
    let id = session_id(&typed);
    let name = typed["recording"]
        .as_str()
        .expect("recorded by its profile");
    let body = json!({ "text": "secret\r" }).to_string();
    server.call("POST", &format!("/api/sessions/{id}/input"), Some(&body));
    let cast = eventually("the input event", || {
        let cast = download(&server, name);
        cast.events
            .iter()
            .any(|e| e.kind == EventKind::Input("secret\r".to_owned()))
            .then_some(cast)
    });
    let list = server.call("GET", "/api/recordings", None).json();
    assert_eq!(list["recordings"][0]["profile"], "typed");
    assert_eq!(cast.header.title.as_deref(), Some("typed"));
    drop(server);

    let mut config = recording_config(&dir);
    config.record = panecast::config::RecordPolicy::All;
    let server = Server::start(config);
    let session = server.create(&["true"], json!({ "record": false }));
    assert!(session["recording"].is_string(), "{session}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn names_never_leave_the_recordings_directory() {
    let dir = fresh_dir("names");
    let outside = dir.with_extension("outside.cast");
    std::fs::write(&outside, "{\"version\": 2, \"width\": 1, \"height\": 1}\n").expect("write");
    std::os::unix::fs::symlink(&outside, dir.join("link.cast")).expect("symlink");
    std::fs::create_dir(dir.join("adir.cast")).expect("a directory named like a recording");
    let server = Server::start(recording_config(&dir));
    let outside_name = outside
        .file_name()
        .and_then(|n| n.to_str())
        .expect("name")
        .trim_end_matches(".cast")
        .to_owned();
    let bad = [
        "..".to_owned(),
        "..%2F..%2Fetc%2Fpasswd".to_owned(),
        "%2e%2e%2f%2e%2e%2fetc%2fpasswd".to_owned(),
        format!("..%2F{outside_name}"),
        "a%00b".to_owned(),
        "a.b".to_owned(),
        "%2Fetc%2Fpasswd".to_owned(),
        "x".repeat(200),
    ];
    for name in &bad {
        for method in ["GET", "DELETE"] {
            let response = server.call(method, &format!("/api/recordings/{name}"), None);
            assert_eq!(
                (response.status, response.code()),
                (400, "bad_recording_name".to_owned()),
                "{method} {name}: {}",
                response.body
            );
        }
    }
    // Routing alone never reaches a file outside either.
    let response = server.call("GET", "/api/recordings/../../etc/passwd", None);
    assert_ne!(response.status, 200);
    // A link is not followed, and a directory is not a recording.
    for name in ["link", "adir"] {
        for method in ["GET", "DELETE"] {
            let response = server.call(method, &format!("/api/recordings/{name}"), None);
            assert_eq!(response.status, 404, "{method} {name}: {}", response.body);
        }
    }
    let list = server.call("GET", "/api/recordings", None).json();
    assert_eq!(
        list["recordings"],
        json!([]),
        "links and directories are not listed"
    );
    assert!(outside.exists(), "the file outside is untouched");
    let _ = std::fs::remove_file(&outside);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_recording_stops_at_its_byte_cap_with_a_marker() {
    let dir = fresh_dir("cap");
    let mut config = recording_config(&dir);
    config.recordings.max_bytes = 20_000;
    let server = Server::start(config);
    let session = server.create(&["seq", "1", "100000"], json!({ "record": true }));
    let id = session_id(&session);
    let name = session["recording"].as_str().expect("recorded").to_owned();
    server.wait_exit(&id);
    let path = dir.join(format!("{name}.cast"));
    let size = std::fs::metadata(&path).expect("the file").len();
    assert!(
        (20_000 - 200..=20_000 + 200).contains(&size),
        "{size} bytes"
    );
    let cast = download(&server, &name);
    let last = cast.events.last().expect("events");
    match &last.kind {
        EventKind::Marker(label) => assert!(label.contains("byte cap of 20000"), "{label}"),
        other => panic!("the last event is {other:?}, not the cap marker"),
    }
    // The output up to the cap is kept, whatever the chunks were.
    let output = output_of(&cast);
    assert!(output.len() > 12_000, "{} bytes of output", output.len());
    assert!(output.starts_with("1\r\n2\r\n3\r\n"));
    // The session itself ran to its end.
    assert!(server.screen(&id).contains("100000"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn retention_deletes_old_files_and_then_the_oldest_at_start() {
    let dir = fresh_dir("retention");
    let header = "{\"version\": 2, \"width\": 10, \"height\": 2}\n";
    let day = Duration::from_secs(86_400);
    let now = SystemTime::now();
    for (name, age_days, size) in [
        ("ancient", 40, 100),
        ("old", 5, 3000),
        ("newer", 3, 3000),
        ("new", 0, 3000),
    ] {
        let path = dir.join(format!("{name}.cast"));
        let mut text = header.to_owned();
        text.push_str(&"[0.1, \"o\", \"x\"]\n".repeat(size / 16));
        std::fs::write(&path, text).expect("write");
        let file = std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("open");
        file.set_modified(now - day * age_days)
            .expect("set the time");
    }
    let mut config = recording_config(&dir);
    config.recordings.max_age_days = 30;
    config.recordings.max_total_bytes = 7000;
    let server = Server::start(config);
    let names = eventually("retention to run", || {
        let list = server.call("GET", "/api/recordings", None).json();
        let names: Vec<String> = list["recordings"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|r| r["name"].as_str().unwrap_or_default().to_owned())
            .collect();
        (names.len() == 2).then_some(names)
    });
    let mut names = names;
    names.sort();
    assert_eq!(names, ["new", "newer"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The server process killed with SIGKILL while a program floods: the file
/// holds whole lines up to the last one written out, and its output is a
/// prefix of what the program wrote.
#[test]
fn a_killed_server_leaves_a_recording_readable_to_its_last_line() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    let dir = fresh_dir("crash");
    let config = dir.join("panecast.toml");
    std::fs::write(
        &config,
        format!("recordings_dir = {:?}\n", dir.to_str().expect("utf-8 path")),
    )
    .expect("write the config");
    let mut server = Command::new(env!("CARGO_BIN_EXE_panecast"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--token",
            "crash-test-token-0123",
        ])
        .arg("--allow-any-command")
        .arg("--config")
        .arg(&config)
        .env_remove("PANECAST_LISTEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start panecast");
    let mut line = String::new();
    BufReader::new(server.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the listening line");
    let addr: std::net::SocketAddr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|addr| addr.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    let auth = [("Authorization", "Bearer crash-test-token-0123")];
    let body = json!({ "command": ["seq", "1", "50000000"], "record": true }).to_string();
    let response = common::http(addr, "POST", "/api/sessions", &auth, Some(body.as_bytes()));
    assert_eq!(response.status, 201, "{}", response.body);
    let name = response.json()["recording"]
        .as_str()
        .expect("recorded")
        .to_owned();
    let path = dir.join(format!("{name}.cast"));
    eventually("a megabyte recorded", || {
        (std::fs::metadata(&path).map_or(0, |m| m.len()) > 1 << 20).then_some(())
    });
    server.kill().expect("SIGKILL the server");
    server.wait().expect("reap the server");

    let bytes = std::fs::read(&path).expect("the recording");
    let text = String::from_utf8(bytes).expect("UTF-8");
    let mut lines: Vec<&str> = text.split('\n').collect();
    let cut = lines.pop().expect("at least one piece");
    // Every line but a cut-off last one parses on its own.
    for (i, line) in lines.iter().enumerate().skip(1) {
        let event: (f64, String, String) = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {}: {e}: {line:.80}", i + 1));
        assert_eq!(event.1, "o");
    }
    assert!(lines.len() > 2, "{} lines", lines.len());
    let cast = Cast::parse(text.as_bytes()).expect("the recording parses");
    let output = output_of(&cast);
    let mut expected = String::new();
    for n in 1.. {
        if expected.len() >= output.len() {
            break;
        }
        expected.push_str(&format!("{n}\r\n"));
    }
    assert!(
        expected.starts_with(&output),
        "not a prefix of seq's output"
    );
    assert!(cut.len() < 200_000, "the cut piece is at most one event");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_share_link_reaches_its_sessions_recordings_only_and_cannot_delete() {
    let dir = fresh_dir("access");
    std::fs::write(
        dir.join("foreign.cast"),
        "{\"version\": 2, \"width\": 10, \"height\": 2}\n[0.1, \"o\", \"x\"]\n",
    )
    .expect("a file of no session");
    let server = Server::start(recording_config(&dir));
    let mine = server.create(&["true"], json!({ "record": true }));
    let other = server.create(&["true"], json!({ "record": true }));
    let (mine_id, mine_name) = (
        session_id(&mine),
        mine["recording"].as_str().expect("recorded"),
    );
    let other_name = other["recording"].as_str().expect("recorded");
    server.wait_exit(&mine_id);
    server.wait_exit(&session_id(&other));
    let link = server.call(
        "POST",
        &format!("/api/sessions/{mine_id}/links"),
        Some(r#"{"role": "control"}"#),
    );
    assert_eq!(link.status, 201, "{}", link.body);
    let token = link.json()["token"].as_str().expect("a token").to_owned();
    let auth = format!("Bearer {token}");
    let as_link =
        |method: &str, path: &str| server.raw(method, path, &[("Authorization", &auth)], None);

    let list = as_link("GET", "/api/recordings").json();
    let names: Vec<&str> = list["recordings"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(names, [mine_name], "only its session's recording");
    assert_eq!(
        as_link("GET", &format!("/api/recordings/{mine_name}")).status,
        200
    );
    assert_eq!(
        as_link("GET", &format!("/api/sessions/{mine_id}/recording")).status,
        302
    );
    for name in [other_name, "foreign"] {
        for method in ["GET", "DELETE"] {
            let response = as_link(method, &format!("/api/recordings/{name}"));
            assert_eq!(
                (response.status, response.code()),
                (404, "recording_not_found".to_owned()),
                "{method} {name}"
            );
        }
    }
    let response = as_link("DELETE", &format!("/api/recordings/{mine_name}"));
    assert_eq!(
        response.status, 403,
        "only admins delete: {}",
        response.body
    );
    // The admin reaches all three, the foreign file included.
    let list = server.call("GET", "/api/recordings", None).json();
    assert_eq!(list["recordings"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        server
            .call("DELETE", "/api/recordings/foreign", None)
            .status,
        204
    );
    let _ = std::fs::remove_dir_all(&dir);
}

//! End to end: the real server on an ephemeral loopback port, real ptys and
//! children, real HTTP.

mod common;

use std::time::{Duration, Instant};

use common::{alive, eventually, live_group_members, test_config, Server, TOKEN};
use serde_json::json;

fn id(session: &serde_json::Value) -> String {
    session["id"].as_str().expect("an id").to_owned()
}

#[test]
fn printf_output_shows_in_the_screen() {
    let server = Server::start(test_config());
    let session = server.create(&["printf", "hello from printf\\nsecond line"], json!({}));
    let id = id(&session);
    assert_eq!(id.len(), 32, "128 bits in hex");
    assert_eq!(session["cols"], 80);
    assert_eq!(session["rows"], 24);
    let screen = server.wait_screen(&id, "printf's output", |s| s.contains("second line"));
    assert!(
        screen.starts_with("hello from printf\nsecond line"),
        "{screen:?}"
    );

    let response = server.call(
        "GET",
        &format!("/api/sessions/{id}/screen?format=json"),
        None,
    );
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    let screen = response.json();
    assert_eq!(screen["lines"][0], "hello from printf");
    assert_eq!(screen["cols"], 80);

    let response = server.call(
        "GET",
        &format!("/api/sessions/{id}/screen?format=nope"),
        None,
    );
    assert_eq!(
        (response.status, response.code()),
        (400, "bad_format".to_owned())
    );
}

#[test]
fn text_input_to_cat_comes_back() {
    let server = Server::start(test_config());
    let id = id(&server.create(&["cat"], json!({})));
    let response = server.call(
        "POST",
        &format!("/api/sessions/{id}/input"),
        Some(r#"{"text": "ping 123\r"}"#),
    );
    assert_eq!(response.status, 204, "{}", response.body);
    // Once echoed by the terminal, once written back by cat.
    server.wait_screen(&id, "the echo and cat's copy", |s| {
        s.matches("ping 123").count() == 2
    });
}

#[test]
fn named_keys_follow_the_terminal_modes() {
    let server = Server::start(test_config());
    // cat -v shows escape sequences; the printf turns application cursor mode on.
    let id = id(&server.create(
        &["sh", "-c", "printf 'ready\\033[?1h\\n'; exec cat -v"],
        json!({}),
    ));
    server.wait_screen(&id, "the prompt", |s| s.contains("ready"));
    let keys = json!({ "keys": ["Up", "C-Left", "F5", "a", "Enter"] }).to_string();
    let response = server.call("POST", &format!("/api/sessions/{id}/input"), Some(&keys));
    assert_eq!(response.status, 204, "{}", response.body);
    server.wait_screen(&id, "the keys as cat -v shows them", |s| {
        s.contains("^[OA^[[1;5D^[[15~a")
    });

    let response = server.call(
        "POST",
        &format!("/api/sessions/{id}/input"),
        Some(r#"{"keys": ["C-c"]}"#),
    );
    assert_eq!(response.status, 204);
    let session = server.wait_exit(&id);
    assert_eq!(session["exit_signal"], "Interrupt", "{session}");
}

#[test]
fn resize_then_stty_size_shows_the_new_size() {
    let server = Server::start(test_config());
    let id = id(&server.create(
        &["sh", "-c", "stty size; read line; stty size; sleep 60"],
        json!({ "cols": 90, "rows": 20 }),
    ));
    server.wait_screen(&id, "the first size", |s| s.contains("20 90"));
    let response = server.call(
        "POST",
        &format!("/api/sessions/{id}/resize"),
        Some(r#"{"cols": 120, "rows": 40}"#),
    );
    assert_eq!(response.status, 204, "{}", response.body);
    let session = server
        .call("GET", &format!("/api/sessions/{id}"), None)
        .json();
    assert_eq!(
        (session["cols"].clone(), session["rows"].clone()),
        (json!(120), json!(40))
    );
    server.call(
        "POST",
        &format!("/api/sessions/{id}/input"),
        Some(r#"{"text": "\r"}"#),
    );
    server.wait_screen(&id, "the new size", |s| s.contains("40 120"));

    for body in [
        r#"{"cols": 0, "rows": 10}"#,
        r#"{"cols": 10, "rows": 1001}"#,
    ] {
        let response = server.call("POST", &format!("/api/sessions/{id}/resize"), Some(body));
        assert_eq!(
            (response.status, response.code()),
            (400, "bad_size".to_owned()),
            "{body}"
        );
    }
}

#[test]
fn exit_code_is_reported_and_the_final_screen_kept() {
    let server = Server::start(test_config());
    let id = id(&server.create(&["sh", "-c", "echo last words; exit 3"], json!({})));
    let session = server.wait_exit(&id);
    assert_eq!(session["exit_code"], 3, "{session}");
    assert!(session.get("exit_signal").is_none(), "{session}");
    assert!(session["exited_at"].is_string());
    assert!(server.screen(&id).starts_with("last words"));

    let response = server.call(
        "POST",
        &format!("/api/sessions/{id}/input"),
        Some(r#"{"text": "too late"}"#),
    );
    assert_eq!(
        (response.status, response.code()),
        (409, "session_exited".to_owned())
    );
    let response = server.call(
        "POST",
        &format!("/api/sessions/{id}/resize"),
        Some(r#"{"cols": 10, "rows": 10}"#),
    );
    assert_eq!(response.status, 409);
}

#[test]
fn input_to_a_program_that_does_not_read_is_refused_not_queued_forever() {
    let server = Server::start(test_config());
    // In raw mode the terminal holds what the program does not read (in
    // canonical mode it drops what overflows the line).
    let id = id(&server.create(
        &["sh", "-c", "stty raw -echo; echo ready; exec sleep 1000"],
        json!({}),
    ));
    server.wait_screen(&id, "raw mode", |s| s.contains("ready"));
    let chunk = json!({ "text": "x".repeat(8192) }).to_string();
    let path = format!("/api/sessions/{id}/input");
    // The terminal takes a few KiB, the writer blocks, its queue fills up.
    let busy = (0..200).find_map(|_| {
        let response = server.call("POST", &path, Some(&chunk));
        (response.status != 204).then_some(response)
    });
    let busy = busy.expect("input is refused once the queue is full");
    assert_eq!((busy.status, busy.code()), (429, "input_busy".to_owned()));
    // The session still answers, and ends normally.
    assert_eq!(server.delete(&id).status, 200);
}

#[test]
fn an_exited_session_goes_away_after_the_linger_time() {
    let mut config = test_config();
    config.limits.linger_secs = 1;
    let server = Server::start(config);
    let id = id(&server.create(&["true"], json!({})));
    server.wait_exit(&id);
    eventually("the session to be dropped", || {
        (server
            .call("GET", &format!("/api/sessions/{id}"), None)
            .status
            == 404)
            .then_some(())
    });
}

#[test]
fn delete_hangs_up_the_whole_process_group() {
    let server = Server::start(test_config());
    let session = server.create(&["sh", "-c", "sleep 1000 & echo bg=$!; wait"], json!({}));
    let (id, pgid) = (id(&session), session["pid"].as_u64().expect("pid") as u32);
    let sleeper = server.background_pid(&id);
    assert!(live_group_members(pgid).contains(&sleeper));

    let response = server.delete(&id);
    assert_eq!(response.status, 200, "{}", response.body);
    let session = response.json();
    assert_eq!(session["running"], false);
    assert_eq!(session["exit_signal"], "Hangup", "{session}");
    eventually("the group to be gone", || {
        live_group_members(pgid).is_empty().then_some(())
    });
    assert!(!alive(sleeper));
    assert_eq!(
        server
            .call("GET", &format!("/api/sessions/{id}"), None)
            .status,
        404
    );
}

#[test]
fn delete_kills_a_group_that_ignores_the_hangup() {
    let server = Server::start(test_config());
    let session = server.create(
        &["sh", "-c", "trap '' HUP; sleep 1000 & echo bg=$!; wait"],
        json!({}),
    );
    let (id, pgid) = (id(&session), session["pid"].as_u64().expect("pid") as u32);
    let sleeper = server.background_pid(&id);
    let start = Instant::now();
    let session = server.delete(&id).json();
    assert!(
        start.elapsed() >= Duration::from_millis(300),
        "the grace period passed first"
    );
    assert_eq!(session["exit_signal"], "Killed", "{session}");
    eventually("the group to be gone", || {
        live_group_members(pgid).is_empty().then_some(())
    });
    assert!(!alive(sleeper));
}

#[test]
fn an_exit_is_seen_even_when_an_escaped_process_keeps_the_terminal_open() {
    let server = Server::start(test_config());
    // setsid takes the sleep out of the group (and the ignored hangup keeps it
    // alive until then), but it keeps the terminal open.
    let id = id(&server.create(
        &[
            "sh",
            "-c",
            "trap '' HUP; setsid sleep 1000 & echo bg=$!; exit 4",
        ],
        json!({}),
    ));
    let escaped = server.background_pid(&id);
    let session = server.wait_exit(&id);
    assert_eq!(session["exit_code"], 4, "{session}");
    assert!(
        alive(escaped),
        "out of reach of the hangup, as setsid meant"
    );
    // Deleting the session ends what it left behind.
    assert_eq!(server.delete(&id).status, 200);
    eventually("the escaped process to be gone", || {
        (!alive(escaped)).then_some(())
    });
}

#[test]
fn the_child_environment_is_built_from_scratch() {
    let server = Server::start(test_config());
    let id = id(&server.create(
        &["sh", "-c", "env | sort; echo END"],
        json!({ "env": { "GREETING": "hi there" }, "rows": 40 }),
    ));
    let screen = server.wait_screen(&id, "env's output", |s| s.contains("END"));
    assert!(screen.contains("TERM=xterm-256color"), "{screen}");
    assert!(screen.contains("COLORTERM=truecolor"), "{screen}");
    assert!(screen.contains("GREETING=hi there"), "{screen}");
    assert!(screen.contains("PATH="), "{screen}");
    // The test process has CARGO_* variables: none may reach the child.
    assert!(!screen.contains("CARGO"), "{screen}");
}

#[test]
fn every_api_route_needs_the_token() {
    let server = Server::start(test_config());
    for (method, path) in [
        ("GET", "/api/sessions"),
        ("POST", "/api/sessions"),
        ("GET", "/api/sessions/0123"),
        ("GET", "/api/nothing-here"),
        ("PUT", "/api/sessions"),
    ] {
        let response = server.raw(method, path, &[], None);
        assert_eq!(
            (response.status, response.code()),
            (401, "unauthorized".to_owned()),
            "{method} {path}"
        );
        let response = server.raw(method, path, &[("Authorization", "Bearer wrong")], None);
        assert_eq!(response.status, 401, "{method} {path} with a wrong token");
    }
    // A token in an API URL is not a credential (it would be logged).
    let response = server.raw("GET", &format!("/api/sessions?token={TOKEN}"), &[], None);
    assert_eq!(response.status, 401);

    // ?token= on a page is traded for the cookie by a redirect that drops
    // it from the URL; the cookie then suffices.
    let response = server.raw("GET", &format!("/?token={TOKEN}"), &[], None);
    assert_eq!(response.status, 303);
    assert_eq!(response.header("location"), Some("/"));
    let cookie = response.header("set-cookie").expect("a cookie").to_owned();
    assert!(
        cookie.starts_with(&format!("panecast_token={TOKEN};")),
        "{cookie}"
    );
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let cookie_header = format!("panecast_token={TOKEN}");
    let response = server.raw("GET", "/api/sessions", &[("Cookie", &cookie_header)], None);
    assert_eq!(response.status, 200);
    assert_eq!(response.json(), json!({ "sessions": [] }));

    // Health is open; metrics need a credential by default.
    assert_eq!(server.raw("GET", "/healthz", &[], None).status, 200);
    assert_eq!(server.raw("GET", "/metrics", &[], None).status, 401);
    let metrics = server.call("GET", "/metrics", None);
    assert_eq!(metrics.status, 200);
    assert!(
        metrics.body.contains("panecast_sessions 0"),
        "{}",
        metrics.body
    );
}

#[test]
fn unknown_ids_are_404() {
    let server = Server::start(test_config());
    let unknown = "0123456789abcdef0123456789abcdef";
    for (method, path, body) in [
        ("GET", format!("/api/sessions/{unknown}"), None),
        ("DELETE", format!("/api/sessions/{unknown}"), None),
        ("GET", format!("/api/sessions/{unknown}/screen"), None),
        (
            "POST",
            format!("/api/sessions/{unknown}/input"),
            Some(r#"{"text": "x"}"#),
        ),
        (
            "POST",
            format!("/api/sessions/{unknown}/resize"),
            Some(r#"{"cols": 9, "rows": 9}"#),
        ),
    ] {
        let response = server.call(method, &path, body);
        assert_eq!(response.status, 404, "{method} {path}");
        assert_eq!(response.code(), "session_not_found");
    }
    let response = server.call("GET", "/api/nothing-here", None);
    assert_eq!(
        (response.status, response.code()),
        (404, "not_found".to_owned())
    );
}

#[test]
fn bad_bodies_are_400_and_big_ones_413() {
    let server = Server::start(test_config());
    let id = id(&server.create(&["cat"], json!({})));
    let input = format!("/api/sessions/{id}/input");
    for (path, body, code) in [
        ("/api/sessions", "{not json", "bad_json"),
        ("/api/sessions", r#"{"cols": "wide"}"#, "bad_json"),
        ("/api/sessions", r#"{"colour": true}"#, "bad_json"),
        ("/api/sessions", r#"{"cols": 5000}"#, "bad_size"),
        ("/api/sessions", r#"{"profile": "nope"}"#, "unknown_profile"),
        (
            input.as_str(),
            r#"{"keys": ["Enter", "Hyper-x"]}"#,
            "unknown_key",
        ),
        (
            input.as_str(),
            r#"{"text": "a", "keys": ["b"]}"#,
            "bad_request",
        ),
        (input.as_str(), "[]", "bad_json"),
    ] {
        let response = server.call("POST", path, Some(body));
        assert_eq!(
            (response.status, response.code()),
            (400, code.to_owned()),
            "{path} {body}"
        );
        assert!(!response.json()["error"]
            .as_str()
            .unwrap_or_default()
            .is_empty());
    }
    let response = server.call(
        "POST",
        "/api/sessions",
        Some(r#"{"command": ["no-such-program-here"]}"#),
    );
    assert_eq!(
        (response.status, response.code()),
        (400, "spawn_failed".to_owned())
    );

    let big = format!(r#"{{"text": "{}"}}"#, "x".repeat(2 << 20));
    let response = server.call("POST", &input, Some(&big));
    assert_eq!(
        (response.status, response.code()),
        (413, "body_too_large".to_owned())
    );
}

#[test]
fn commands_need_allow_any_command() {
    let server = Server::start_with(test_config(), false);
    let response = server.call("POST", "/api/sessions", Some(r#"{"command": ["ls"]}"#));
    assert_eq!(
        (response.status, response.code()),
        (403, "forbidden".to_owned())
    );
}

#[test]
fn the_session_limit_answers_429() {
    let mut config = test_config();
    config.limits.max_sessions = 2;
    let server = Server::start(config);
    let first = id(&server.create(&["cat"], json!({})));
    server.create(&["cat"], json!({}));
    let response = server.call("POST", "/api/sessions", Some(r#"{"command": ["cat"]}"#));
    assert_eq!(
        (response.status, response.code()),
        (429, "too_many_sessions".to_owned())
    );
    let list = server.call("GET", "/api/sessions", None).json();
    assert_eq!(list["sessions"].as_array().map(Vec::len), Some(2));

    assert_eq!(server.delete(&first).status, 200);
    server.create(&["cat"], json!({}));
}

#[test]
fn shutdown_ends_every_child_quickly() {
    let server = Server::start(test_config());
    let session = server.create(
        &["sh", "-c", "trap '' HUP; sleep 1000 & echo bg=$!; wait"],
        json!({}),
    );
    let (id, pgid) = (id(&session), session["pid"].as_u64().expect("pid") as u32);
    let sleeper = server.background_pid(&id);
    let start = Instant::now();
    server.stop();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    // SIGKILL was sent and the child reaped; the grandchild dies just after.
    eventually("the group to be gone", || {
        live_group_members(pgid).is_empty().then_some(())
    });
    assert!(!alive(sleeper));
}

#[test]
fn declared_sessions_start_at_boot_under_their_name_and_restart() {
    let mut config = panecast::config::Config::parse(
        "[profiles.blink]\ncommand = \"sh\"\nargs = [\"-c\", \"echo up; sleep 0.2\"]\n\n[[sessions]]\nname = \"blink\"\nprofile = \"blink\"\nrestart = \"always\"\n",
    )
    .expect("valid config");
    config.limits.grace_ms = 300;
    let server = Server::start_with(config, false);
    let first = eventually("the declared session", || {
        let r = server.call("GET", "/api/sessions/blink", None);
        (r.status == 200).then(|| r.json())
    });
    assert_eq!(first["name"], "blink");
    let first_id = first["id"].as_str().expect("id").to_owned();
    // It exits, and a new program runs under the same name.
    let second = eventually("the restart", || {
        let r = server.call("GET", "/api/sessions/blink", None);
        let s = r.json();
        (r.status == 200 && s["id"] != first_id.as_str()).then_some(s)
    });
    assert_eq!(second["name"], "blink");
    assert_eq!(second["profile"], "blink");
}

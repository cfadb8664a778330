//! Failed sign-ins are limited per client address: after
//! `limits.auth_failures_per_minute` wrong credentials the address gets 429
//! (even with a right one) for the rest of the minute, through the API, a
//! page's `?token=` and `/metrics` alike; another address is unaffected.

use crate::common::{test_config, Server, TOKEN};

const LIMIT: u32 = 5;

fn server() -> Server {
    let mut config = test_config();
    config.limits.auth_failures_per_minute = LIMIT;
    // The test's requests come from 127.0.0.1, a trusted proxy: each
    // `X-Forwarded-For` is another client.
    config.trusted_proxies = vec!["127.0.0.1".into()];
    Server::start(config)
}

fn get(server: &Server, from: &str, path: &str, token: &str) -> (u16, String, Option<String>) {
    let auth = format!("Bearer {token}");
    let r = server.raw(
        "GET",
        path,
        &[("X-Forwarded-For", from), ("Authorization", &auth)],
        None,
    );
    let retry = r.header("retry-after").map(str::to_owned);
    let code = if r.body.starts_with('{') {
        r.code()
    } else {
        String::new()
    };
    (r.status, code, retry)
}

#[test]
fn an_address_that_guesses_is_refused_and_others_are_not() {
    let server = server();
    let guesser = "203.0.113.66";
    for i in 0..LIMIT {
        let wrong = format!("wrong-token-guess-{i:04}");
        assert_eq!(
            get(&server, guesser, "/api/sessions", &wrong).0,
            401,
            "guess {i}"
        );
    }
    let (status, code, retry) = get(&server, guesser, "/api/sessions", "wrong-token-guess-last");
    assert_eq!((status, code.as_str()), (429, "too_many_auth_failures"));
    let retry: u64 = retry.expect("Retry-After").parse().expect("seconds");
    assert!((1..=60).contains(&retry), "{retry}");
    // Even the right token: guessing must not tell a hit from a miss.
    assert_eq!(get(&server, guesser, "/api/sessions", TOKEN).0, 429);
    assert_eq!(get(&server, guesser, "/metrics", TOKEN).0, 429);
    let page = server.raw(
        "GET",
        &format!("/?token={TOKEN}"),
        &[("X-Forwarded-For", guesser)],
        None,
    );
    assert_eq!(page.status, 429, "a page's ?token= too");
    // Another address signs in as usual.
    assert_eq!(get(&server, "198.51.100.7", "/api/sessions", TOKEN).0, 200);
    assert_eq!(get(&server, "198.51.100.7", "/metrics", TOKEN).0, 200);
}

#[test]
fn wrong_tokens_on_pages_and_metrics_count_too() {
    let server = server();
    let guesser = "203.0.113.77";
    for i in 0..LIMIT {
        let path = if i % 2 == 0 {
            format!("/?token=wrong-page-guess-{i:04}")
        } else {
            "/metrics".to_owned()
        };
        let (status, _, _) = get(
            &server,
            guesser,
            &path,
            &format!("wrong-metrics-guess-{i:04}"),
        );
        assert_eq!(status, 401, "guess {i}: {path}");
    }
    assert_eq!(get(&server, guesser, "/api/sessions", TOKEN).0, 429);
}

#[test]
fn a_blocked_address_is_logged_once() {
    use std::io::Read;
    use std::process::{Command, Stdio};

    let dir = std::env::temp_dir().join(format!("panecast-signin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = dir.join("panecast.toml");
    std::fs::write(&config, "[limits]\nauth_failures_per_minute = 2\n").expect("config");
    let mut command = Command::new(env!("CARGO_BIN_EXE_panecast"));
    for (name, _) in std::env::vars() {
        if name.starts_with("PANECAST_") {
            command.env_remove(name);
        }
    }
    let mut child = command
        .args(["serve", "--listen", "127.0.0.1:0", "--config"])
        .arg(&config)
        .env("PANECAST_TOKEN", "signin-log-token-0123")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the panecast binary");
    let addr = crate::common::process::startup_line(&mut child)
        .1
        .expect("the listening address");
    let statuses: Vec<u16> = (0..4)
        .map(|i| {
            let auth = format!("Bearer wrong-token-guess-{i:04}");
            crate::common::http(
                addr,
                "GET",
                "/api/sessions",
                &[("Authorization", &auth)],
                None,
            )
            .status
        })
        .collect();
    // SAFETY: kill only sends SIGTERM to the server this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();
    let mut logs = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut logs)
        .expect("read logs");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(statuses, [401, 401, 429, 429]);
    let blocked: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains("auth_blocked"))
        .collect();
    assert_eq!(blocked.len(), 1, "{logs}");
    assert!(blocked[0].contains("127.0.0.1"), "{}", blocked[0]);
}

//! `panecast serve` and `panecast health` as an operator runs them: the real
//! binary, its environment variables, the health probe's exit codes, JSON
//! logs, and a clean exit on SIGTERM.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Output, Stdio};

const TOKEN: &str = "serve-cli-test-token";

/// `panecast ARGS` with no PANECAST_ variable from the test's environment.
fn panecast(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_panecast"));
    command.args(args);
    for (name, _) in std::env::vars() {
        if name.starts_with("PANECAST_") {
            command.env_remove(name);
        }
    }
    command
}

/// A `panecast serve` on an ephemeral loopback port, and the URL it printed.
struct Served {
    child: Child,
    url: String,
}

impl Served {
    fn start(env: &[(&str, &str)]) -> Served {
        let mut command = panecast(&["serve", "--listen", "127.0.0.1:0"]);
        command
            .env("PANECAST_TOKEN", TOKEN)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("panecast serve starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the first line");
        let url = line
            .split_whitespace()
            .find(|word| word.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_owned();
        Served { child, url }
    }

    /// `http://127.0.0.1:PORT` of the printed URL.
    fn origin(&self) -> &str {
        let end = self.url["http://".len()..]
            .find('/')
            .expect("a path after the host");
        &self.url[.."http://".len() + end]
    }

    /// Sends SIGTERM and waits; the exit status and standard error.
    fn terminate(mut self) -> Output {
        let pid = i32::try_from(self.child.id()).expect("a pid fits");
        // SAFETY: kill(2) with a pid this test started and a valid signal.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let status = self.child.wait().expect("serve exits");
        let mut stderr = Vec::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            pipe.read_to_end(&mut stderr).expect("read stderr");
        }
        Output {
            status,
            stdout: Vec::new(),
            stderr,
        }
    }
}

impl Drop for Served {
    /// A test that does not call `terminate` (or fails first) must not
    /// leave its server running.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn health(args: &[&str]) -> Output {
    panecast(&["health"])
        .args(args)
        .output()
        .expect("panecast health runs")
}

#[test]
fn health_exits_0_for_a_running_server_and_1_otherwise() {
    let served = Served::start(&[]);
    let url = format!("{}/healthz", served.origin());
    let out = health(&[&url]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let missing = health(&[&format!("{}/nothing", served.origin())]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("404"));
    let output = served.terminate();
    assert!(output.status.success(), "serve exits 0 on SIGTERM");
    let down = health(&[&url]);
    assert_eq!(down.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&down.stderr).starts_with("panecast: "));
}

#[test]
fn health_finds_the_server_from_its_environment() {
    let served = Served::start(&[("PANECAST_BASE_PATH", "/term/")]);
    assert!(served.url.contains("/term/?token="), "{}", served.url);
    let listen = served.origin().trim_start_matches("http://").to_owned();
    let out = panecast(&["health"])
        .env("PANECAST_LISTEN", &listen)
        .env("PANECAST_BASE_PATH", "/term")
        .output()
        .expect("panecast health runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = panecast(&["health", "--listen", &listen])
        .output()
        .expect("panecast health runs");
    assert_eq!(out.status.code(), Some(1), "no /healthz outside the prefix");
}

/// One raw HTTP/1.1 GET of `path` (query included) on `origin`.
fn get(origin: &str, path: &str) {
    use std::io::Write;
    let addr = origin.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    assert!(answer.starts_with("HTTP/1.1 "), "{answer}");
}

#[test]
fn json_logs_are_one_object_per_line_with_a_span_per_request_and_no_secret() {
    let served = Served::start(&[("PANECAST_LOG_FORMAT", "json"), ("RUST_LOG", "debug")]);
    let secret = "query-secret-123";
    get(served.origin(), &format!("/api/sessions?token={secret}"));
    get(served.origin(), &format!("/?token={TOKEN}"));
    let output = served.terminate();
    let stderr = String::from_utf8(output.stderr).expect("UTF-8 logs");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(!lines.is_empty(), "shutting down is logged");
    for line in lines {
        let event: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(event["level"].is_string(), "{line}");
        assert!(!line.contains(TOKEN), "the token is never logged: {line}");
        assert!(!line.contains(secret), "no query string is logged: {line}");
    }
    let answered: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("\"answered\"") && l.contains("\"path\":\"/api/sessions\""))
        .collect();
    assert_eq!(
        answered.len(),
        1,
        "one request span for the API call:\n{stderr}"
    );
    assert!(answered[0].contains("\"status\":401"), "{}", answered[0]);
}

#[test]
fn a_bad_log_format_or_base_path_is_refused_with_a_message() {
    let out = panecast(&["serve", "--log-format", "xml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let out = panecast(&["serve", "--listen", "127.0.0.1:0", "--base-path", "term"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("base_path"));
}

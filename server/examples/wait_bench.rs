//! The wait benchmark (run by `bench/wait.sh` against a release server):
//! from output to the waiter's answer. A session runs `cat`; each round
//! opens a wait for a new marker after the current revision on one
//! keep-alive connection, types the marker on another, and times from the
//! input's write to the wait's answer (the program's echo, its publish and
//! the wait's wake-up and answer are all inside). Prints p50, p99 and max.
//!
//! Then WAITERS waits (1,000 by default) are opened on one session at once:
//! the server's CPU time while they wait on a quiet session (a wait never
//! polls: about nothing), its RSS per wait, and the time from typing the
//! marker they all wait for to the last answer.
//!
//! Usage: wait_bench ADDR TOKEN SERVER_PID [ROUNDS] [WAITERS]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// An answer: its status, headers (lower-cased names) and body.
type Answer = (u16, Vec<(String, String)>, String);

/// One keep-alive HTTP/1.1 connection.
struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    host: String,
    token: String,
}

impl Connection {
    fn open(addr: &str, token: &str) -> std::io::Result<Connection> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        Ok(Connection {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
            host: addr.to_owned(),
            token: token.to_owned(),
        })
    }

    /// Sends a request without reading its answer.
    fn send(&mut self, method: &str, path: &str, body: &str) -> std::io::Result<()> {
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.host,
            self.token,
            body.len()
        );
        self.writer.write_all(request.as_bytes())
    }

    /// Reads one answer: its status, headers (lower-cased names) and body.
    fn receive(&mut self) -> std::io::Result<Answer> {
        let mut line = String::new();
        self.reader.read_line(&mut line)?;
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut headers = Vec::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line)?;
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                break;
            }
            if let Some((name, value)) = trimmed.split_once(':') {
                headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
            }
        }
        let length = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body)?;
        Ok((status, headers, String::from_utf8_lossy(&body).into_owned()))
    }

    fn call(&mut self, method: &str, path: &str, body: &str) -> std::io::Result<Answer> {
        self.send(method, path, body)?;
        self.receive()
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

fn run(addr: &str, token: &str, rounds: usize) -> std::io::Result<Vec<Duration>> {
    let mut control = Connection::open(addr, token)?;
    let mut waiter = Connection::open(addr, token)?;
    let (status, _, body) = control.call(
        "POST",
        "/api/sessions",
        &json!({ "command": ["cat"], "cols": 80, "rows": 24 }).to_string(),
    )?;
    let session: Value = serde_json::from_str(&body).unwrap_or_default();
    let Some(id) = session["id"].as_str().filter(|_| status == 201) else {
        return Err(std::io::Error::other(format!("create: {status} {body}")));
    };
    let (status, _, body) =
        control.call("GET", &format!("/api/sessions/{id}/screen?format=json"), "")?;
    let screen: Value = serde_json::from_str(&body).unwrap_or_default();
    let mut revision = screen["revision"]
        .as_u64()
        .filter(|_| status == 200)
        .unwrap_or(0);
    let mut times = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let marker = format!("m{round}k");
        let wait = json!({ "text": marker, "after": revision, "timeout_ms": 5000 });
        waiter.send(
            "POST",
            &format!("/api/sessions/{id}/wait"),
            &wait.to_string(),
        )?;
        // Give the wait a moment to be open (were it late, it would find
        // the marker at once: the time would still start at the input).
        std::thread::sleep(Duration::from_millis(2));
        let typed = Instant::now();
        control.send(
            "POST",
            &format!("/api/sessions/{id}/input"),
            &json!({ "text": format!("{marker}\r") }).to_string(),
        )?;
        let (status, _, body) = waiter.receive()?;
        let took = typed.elapsed();
        if status != 200 {
            return Err(std::io::Error::other(format!("wait: {status} {body}")));
        }
        let (_, headers, _) = control.receive()?;
        let answer: Value = serde_json::from_str(&body).unwrap_or_default();
        revision = answer["revision"].as_u64().unwrap_or(revision);
        if let Some((_, r)) = headers.iter().find(|(n, _)| n == "panecast-revision") {
            revision = revision.max(r.parse().unwrap_or(0));
        }
        times.push(took);
        // Let cat's second copy of the line land before the next round.
        std::thread::sleep(Duration::from_millis(3));
    }
    control.call("DELETE", &format!("/api/sessions/{id}"), "")?;
    Ok(times)
}

/// The server's CPU time so far (user and system), from `/proc`.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command's closing parenthesis; utime and stime
    // are the 12th and 13th of them, in clock ticks (100 a second).
    let fields: Vec<u64> = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .filter_map(|f| f.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    let ticks = fields.get(10).copied().unwrap_or(0) + fields.get(11).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

/// The server's resident memory in KiB, from `/proc`.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// `waiters` waits at once on one `cat` session; prints a table row.
fn many(addr: &str, token: &str, pid: u32, waiters: usize) -> std::io::Result<()> {
    let mut control = Connection::open(addr, token)?;
    let (status, _, body) = control.call(
        "POST",
        "/api/sessions",
        &json!({ "command": ["cat"] }).to_string(),
    )?;
    let session: Value = serde_json::from_str(&body).unwrap_or_default();
    let Some(id) = session["id"]
        .as_str()
        .filter(|_| status == 201)
        .map(str::to_owned)
    else {
        return Err(std::io::Error::other(format!("create: {status} {body}")));
    };
    let rss_before = rss_kib(pid);
    let mut open = Vec::with_capacity(waiters);
    for _ in 0..waiters {
        let mut waiter = Connection::open(addr, token)?;
        let wait = json!({ "text": "all-go", "timeout_ms": 60_000 });
        waiter.send(
            "POST",
            &format!("/api/sessions/{id}/wait"),
            &wait.to_string(),
        )?;
        open.push(waiter);
    }
    // Let every wait reach its session, then measure them idle.
    std::thread::sleep(Duration::from_secs(1));
    let (cpu_before, idle_from) = (cpu_time(pid), Instant::now());
    std::thread::sleep(Duration::from_secs(2));
    let idle_cpu = cpu_time(pid).saturating_sub(cpu_before);
    let idle_for = idle_from.elapsed();
    let rss_after = rss_kib(pid);
    let typed = Instant::now();
    control.call(
        "POST",
        &format!("/api/sessions/{id}/input"),
        &json!({ "text": "all-go\r" }).to_string(),
    )?;
    let answers: Vec<_> = open
        .into_iter()
        .map(|mut waiter| {
            std::thread::spawn(move || waiter.receive().map(|a| (a.0, Instant::now())))
        })
        .collect();
    let mut last = typed;
    let mut answered = 0;
    for answer in answers {
        if let Ok(Ok((200, at))) = answer.join() {
            answered += 1;
            last = last.max(at);
        }
    }
    control.call("DELETE", &format!("/api/sessions/{id}"), "")?;
    println!(
        "| {waiters} waits open on one session | {answered} answered, the last **{:.1} ms** after the input; server CPU while they waited {:.0} ms in {:.1} s; RSS +{} KiB (**{:.1} KiB a wait**, socket included) | no polling, about an idle viewer each |",
        (last - typed).as_secs_f64() * 1000.0,
        idle_cpu.as_secs_f64() * 1000.0,
        idle_for.as_secs_f64(),
        rss_after.saturating_sub(rss_before),
        rss_after.saturating_sub(rss_before) as f64 / waiters as f64,
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(addr), Some(token), Some(pid)) = (
        args.get(1),
        args.get(2),
        args.get(3).and_then(|p| p.parse::<u32>().ok()),
    ) else {
        eprintln!("usage: wait_bench ADDR TOKEN SERVER_PID [ROUNDS] [WAITERS]");
        return ExitCode::FAILURE;
    };
    let rounds = args.get(4).and_then(|r| r.parse().ok()).unwrap_or(1000);
    let waiters = args.get(5).and_then(|r| r.parse().ok()).unwrap_or(1000);
    match run(addr, token, rounds) {
        Ok(mut times) => {
            times.sort();
            let ms = |d: Duration| d.as_secs_f64() * 1000.0;
            println!(
                "| output to the wait's answer, {rounds} rounds (`cat`) | p50 **{:.2} ms**, p99 **{:.2} ms**, max {:.2} ms | p99 < 5 ms |",
                ms(percentile(&times, 0.5)),
                ms(percentile(&times, 0.99)),
                ms(percentile(&times, 1.0)),
            );
        }
        Err(e) => {
            eprintln!("wait_bench: {e}");
            return ExitCode::FAILURE;
        }
    }
    match many(addr, token, pid, waiters) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wait_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

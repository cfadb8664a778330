//! The client side of the density benchmark (`bench/sessions.sh`): against
//! a running `panecast serve` (its pid given, to read `/proc`), creates N
//! idle 80x24 `cat` sessions one after another, then prints the figures of
//! issue 20's table: sessions reached, server threads, fds per session,
//! RSS, create p50/p99, `GET .../screen` p99, the time to list every
//! session, the server's CPU over 10 idle seconds, and the echo p99 of
//! one session while another floods.
//!
//! Usage: `sessions_bench ADDR TOKEN SERVER_PID N FLOOD_FILE`; with
//! `BENCH_PROFILE=NAME` in the environment, the idle sessions are of that
//! profile (whose command is `cat`).

#[path = "../tests/common/http.rs"]
#[allow(dead_code)] // The tests use more of the client than this does.
mod http;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Screens read for the `GET .../screen` percentile.
const SCREEN_READS: usize = 1000;
/// Echoes timed while another session floods.
const ECHOES: usize = 100;
/// How long the idle CPU is measured.
const IDLE: Duration = Duration::from_secs(10);
/// How long an echo may take before the benchmark gives up.
const ECHO_WAIT: Duration = Duration::from_secs(10);

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("sessions_bench: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The server under test.
struct Server {
    addr: SocketAddr,
    auth: String,
    pid: u32,
}

impl Server {
    fn call(&self, method: &str, path: &str, body: Option<&str>) -> http::Response {
        http::http(
            self.addr,
            method,
            path,
            &[("Authorization", &self.auth)],
            body.map(str::as_bytes),
        )
    }

    /// A field of `/proc/PID/status`, its first number.
    fn status(&self, field: &str) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.pid))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix(field))
                    .and_then(|v| v.split_whitespace().next()?.parse().ok())
            })
            .unwrap_or(0)
    }

    fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid)).map_or(0, |d| d.count())
    }

    /// User and system CPU time so far, in clock ticks.
    fn cpu_ticks(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).unwrap_or_default();
        let rest = stat.rfind(')').map_or("", |i| &stat[i + 2..]);
        let fields: Vec<&str> = rest.split(' ').collect();
        // utime and stime: the 14th and 15th fields of proc(5).
        let field = |i: usize| {
            fields
                .get(i)
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        };
        field(11) + field(12)
    }

    /// Creates a session running `command`, or the profile named by
    /// `BENCH_PROFILE` in the environment when `command` is `None`.
    fn create(&self, command: Option<&[&str]>) -> Result<String, String> {
        let mut body = json!({ "cols": 80, "rows": 24 });
        match (command, std::env::var("BENCH_PROFILE")) {
            (Some(command), _) => body["command"] = json!(command),
            (None, Ok(profile)) => body["profile"] = json!(profile),
            (None, Err(_)) => body["command"] = json!(["cat"]),
        }
        let body = body.to_string();
        let response = self.call("POST", "/api/sessions", Some(&body));
        if response.status != 201 {
            return Err(format!("{} {}", response.status, response.body.trim()));
        }
        let id = response.json()["id"].as_str().map(str::to_owned);
        id.ok_or_else(|| "no id in the answer".to_owned())
    }

    /// Types `text` and Enter into `id` and times until the screen shows
    /// `text` (each on a line of its own, so no wrap splits it).
    fn echo(&self, id: &str, text: &str) -> Result<Duration, String> {
        let body = json!({ "text": format!("{text}\r") }).to_string();
        let start = Instant::now();
        let input = self.call("POST", &format!("/api/sessions/{id}/input"), Some(&body));
        if input.status != 204 {
            return Err(format!("input answered {}", input.status));
        }
        while start.elapsed() < ECHO_WAIT {
            let screen = self.call("GET", &format!("/api/sessions/{id}/screen"), None);
            if screen.body.contains(text) {
                return Ok(start.elapsed());
            }
        }
        Err(format!("no echo of {text} within {ECHO_WAIT:?}"))
    }
}

/// The `q`-th fraction of `times` (sorted here), in milliseconds.
fn percentile(times: &mut [Duration], q: f64) -> f64 {
    if times.is_empty() {
        return f64::NAN;
    }
    times.sort();
    let i = ((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1;
    times[i].as_secs_f64() * 1000.0
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [addr, token, pid, count, flood_file] = args.as_slice() else {
        return Err("usage: sessions_bench ADDR TOKEN SERVER_PID N FLOOD_FILE".to_owned());
    };
    let server = Server {
        addr: addr.parse().map_err(|_| format!("bad address '{addr}'"))?,
        auth: format!("Bearer {token}"),
        pid: pid.parse().map_err(|_| format!("bad pid '{pid}'"))?,
    };
    let count: usize = count.parse().map_err(|_| format!("bad count '{count}'"))?;

    let fds_before = server.fds();
    let mut ids = Vec::with_capacity(count);
    let mut creates = Vec::with_capacity(count);
    let started = Instant::now();
    let mut stopped = None;
    while ids.len() < count {
        let start = Instant::now();
        match server.create(None) {
            Ok(id) => {
                creates.push(start.elapsed());
                ids.push(id);
            }
            Err(e) => {
                stopped = Some(e);
                break;
            }
        }
        if ids.len() % 1000 == 0 {
            eprintln!(
                "  {} sessions, {:.0} s",
                ids.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    let reached = ids.len();
    println!("sessions reached     {reached} of {count}");
    if let Some(e) = stopped {
        println!("  creating stopped:  {e}");
    }
    if reached == 0 {
        return Err("no session could be created".to_owned());
    }
    let threads = server.status("Threads:");
    let fds = server.fds().saturating_sub(fds_before);
    let rss_kib = server.status("VmRSS:");
    println!("server threads       {threads}");
    println!("fds per session      {:.2}", fds as f64 / reached as f64);
    println!(
        "server RSS           {:.0} MiB ({:.1} KiB per session)",
        rss_kib as f64 / 1024.0,
        rss_kib as f64 / reached as f64
    );
    println!(
        "create p50 / p99     {:.1} / {:.1} ms",
        percentile(&mut creates, 0.5),
        percentile(&mut creates, 0.99)
    );

    let mut screens = Vec::with_capacity(SCREEN_READS);
    for n in 0..SCREEN_READS {
        let id = &ids[n * 7919 % reached];
        let start = Instant::now();
        let response = server.call("GET", &format!("/api/sessions/{id}/screen"), None);
        screens.push(start.elapsed());
        if response.status != 200 {
            return Err(format!("screen answered {}", response.status));
        }
    }
    println!(
        "GET screen p99       {:.1} ms",
        percentile(&mut screens, 0.99)
    );

    let mut lists = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let response = server.call("GET", "/api/sessions", None);
        lists.push(start.elapsed());
        let listed: Value = response.json();
        let n = listed
            .as_array()
            .or_else(|| listed["sessions"].as_array())
            .map_or(0, Vec::len);
        if n < reached {
            return Err(format!("the list holds {n} sessions, not {reached}"));
        }
    }
    println!("list all (median)    {:.1} ms", percentile(&mut lists, 0.5));

    // SAFETY: sysconf only reads a constant of the system.
    let ticks_per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let before = server.cpu_ticks();
    std::thread::sleep(IDLE);
    let used = (server.cpu_ticks() - before) as f64 / ticks_per_second;
    println!(
        "idle CPU             {:.2}% of a core",
        100.0 * used / IDLE.as_secs_f64()
    );

    let echoing = &ids[0];
    let script = format!("while :; do cat {flood_file}; done");
    let flooding = server.create(Some(&["sh", "-c", &script]))?;
    // Let the flood get going.
    std::thread::sleep(Duration::from_millis(500));
    let mut echoes = Vec::with_capacity(ECHOES);
    for n in 0..ECHOES {
        echoes.push(server.echo(echoing, &format!("e{n}x"))?);
        std::thread::sleep(Duration::from_millis(20));
    }
    server.call("DELETE", &format!("/api/sessions/{flooding}"), None);
    println!(
        "echo p99 (flooding)  {:.1} ms",
        percentile(&mut echoes, 0.99)
    );
    Ok(())
}

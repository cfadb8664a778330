//! The stream benchmarks (`bench/stream.sh`), against a running
//! `panecast serve` (a separate process, so its memory is its own). Every
//! connection asks for compressed frames (`deflate=1`), as the web client
//! and `panecast attach` do:
//!
//! 1. **Wire bytes**: a `cat` of FILE in a 104x59 session with one viewer;
//!    the bytes of every WebSocket message it received (payload plus the
//!    WebSocket frame header; TCP/IP headers not counted) against the bytes
//!    the program wrote.
//! 2. **Echo latency**: a session running `cat` on a raw terminal (so cat
//!    itself writes each key back); 1,000 `Key` messages, one at a time,
//!    each timed from its send to the first frame whose model screen shows
//!    the character (after 20 unmeasured keys).
//! 3. **Fan-out**: the flood of 1 with 1 viewer and with VIEWERS viewers,
//!    in alternating rounds: the flood's time (from the input that starts
//!    it to the session's exit, polled every 5 ms), whether every viewer's
//!    model converged to the final `/screen`, and the server's peak RSS
//!    (VmHWM of SERVER_PID, reset through `/proc/PID/clear_refs` before
//!    each flood).
//!
//! Viewers keep the messages they receive during a flood and apply them
//! to their model afterwards, so that the clients' own decoding (on the
//! same 2 cores as the server) does not slow the flood down more than it
//! must. Prints a markdown table.
//!
//! Usage: `stream_bench ADDR TOKEN SERVER_PID FILE`
//! Environment: `VIEWERS` (default 200), `ROUNDS` (default 3), `KEYS` (default 1000).

#[path = "../tests/common/http.rs"]
#[allow(dead_code)] // The tests use more of the client than this does.
mod http;
#[path = "../tests/common/ws.rs"]
#[allow(dead_code)]
mod ws;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use panecast_proto::{ClientMessage, Key, KeyEvent, Modifiers};
use serde_json::{json, Value};
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Bytes;

const COLS: u16 = 104;
const ROWS: u16 = 59;
/// The longest any one step may take.
const LIMIT: Duration = Duration::from_secs(300);

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("stream_bench: {message}");
            ExitCode::FAILURE
        }
    }
}

fn env_number(name: &str, default: usize) -> Result<usize, String> {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .map_err(|_| format!("{name} is not a number: '{value}'")),
        Err(_) => Ok(default),
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [addr, token, pid, file] = args.as_slice() else {
        return Err("usage: stream_bench ADDR TOKEN SERVER_PID FILE".to_owned());
    };
    let bench = Bench {
        addr: addr.parse().map_err(|_| format!("bad address '{addr}'"))?,
        token: token.clone(),
        pid: pid.parse().map_err(|_| format!("bad pid '{pid}'"))?,
        file: file.clone(),
        file_bytes: std::fs::metadata(file)
            .map_err(|e| format!("{file}: {e}"))?
            .len(),
        runtime: tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?,
    };
    let viewers = env_number("VIEWERS", 200)?;
    let rounds = env_number("ROUNDS", 3)?.max(1);
    let keys = env_number("KEYS", 1000)?.max(1);

    eprintln!("== echo latency: {keys} keys");
    let echo = bench.echo(keys)?;
    let mut one = Vec::new();
    let mut many = Vec::new();
    for round in 1..=rounds {
        one.push(bench.flood(1)?);
        many.push(bench.flood(viewers)?);
        let (a, b) = (&one[one.len() - 1], &many[many.len() - 1]);
        eprintln!(
            "   round {round}: 1 viewer {:.3} s ({} frames, {} bytes), {viewers} viewers {:.3} s \
             ({}/{viewers} converged), peak RSS {:.1} / {:.1} MiB",
            a.seconds,
            a.frames,
            a.wire_bytes,
            b.seconds,
            b.converged,
            mib(a.peak_rss_kib),
            mib(b.peak_rss_kib)
        );
    }
    let median = |runs: &[Flood], f: fn(&Flood) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(f).collect();
        values.sort_by(f64::total_cmp);
        values[(values.len() - 1) / 2]
    };
    let one_time = median(&one, |r| r.seconds);
    let many_time = median(&many, |r| r.seconds);
    let wire = median(&one, |r| r.wire_bytes as f64);
    let frames = median(&one, |r| r.frames as f64);
    let converged_all =
        many.iter().all(|r| r.converged == viewers) && one.iter().all(|r| r.converged == 1);
    let rss_one = one.iter().map(|r| r.peak_rss_kib).max().unwrap_or(0);
    let rss_many = many.iter().map(|r| r.peak_rss_kib).max().unwrap_or(0);
    let percent = 100.0 * wire / bench.file_bytes as f64;

    println!("| benchmark | result | target |");
    println!("|---|---|---|");
    println!(
        "| wire bytes, `cat` of {:.1} MB at {COLS}x{ROWS}, 1 viewer | {:.0} KB in {frames:.0} frames = **{percent:.3}%** of the bytes written | < 0.3% |",
        bench.file_bytes as f64 / 1e6,
        wire / 1e3
    );
    println!(
        "| echo latency, {keys} keys through `cat` | p50 **{:.2} ms**, p99 **{:.2} ms** (max {:.2} ms) | p99 < 5 ms |",
        echo.p50, echo.p99, echo.max
    );
    println!(
        "| fan-out flood time | 1 viewer {one_time:.2} s, {viewers} viewers {many_time:.2} s = **{:.2}x** | <= 1.5x |",
        many_time / one_time
    );
    println!(
        "| viewers converged to the final screen | {} | all |",
        if converged_all {
            format!("all ({viewers}/{viewers} in every round)")
        } else {
            "NO (see above)".to_owned()
        }
    );
    println!(
        "| server peak RSS (VmHWM of the server process) | 1 viewer {:.1} MiB, {viewers} viewers {:.1} MiB | report |",
        mib(rss_one),
        mib(rss_many)
    );
    println!();
    println!("(medians of {rounds} rounds; RSS: the highest round)");
    Ok(())
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

struct Bench {
    addr: SocketAddr,
    token: String,
    pid: u32,
    file: String,
    file_bytes: u64,
    runtime: Runtime,
}

/// One flood's numbers.
struct Flood {
    seconds: f64,
    /// Bytes the first viewer received: message payloads plus frame headers.
    wire_bytes: u64,
    /// Frames the first viewer received.
    frames: u64,
    /// Viewers whose model ended equal to `/screen`.
    converged: usize,
    peak_rss_kib: u64,
}

/// Echo latencies in milliseconds.
struct Echo {
    p50: f64,
    p99: f64,
    max: f64,
}

impl Bench {
    fn call(&self, method: &str, path: &str, body: Option<&str>) -> http::Response {
        let auth = format!("Bearer {}", self.token);
        http::http(
            self.addr,
            method,
            path,
            &[("Authorization", &auth)],
            body.map(str::as_bytes),
        )
    }

    fn create(&self, command: &[&str], cols: u16, rows: u16) -> Result<String, String> {
        let body = json!({ "command": command, "cols": cols, "rows": rows }).to_string();
        let created = self.call("POST", "/api/sessions", Some(&body));
        if created.status != 201 {
            return Err(format!(
                "create answered {}: {}",
                created.status, created.body
            ));
        }
        created.json()["id"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| "no id in the answer".to_owned())
    }

    fn type_text(&self, id: &str, text: &str) -> Result<(), String> {
        let body = json!({ "text": text }).to_string();
        let response = self.call("POST", &format!("/api/sessions/{id}/input"), Some(&body));
        match response.status {
            204 => Ok(()),
            status => Err(format!("input answered {status}: {}", response.body)),
        }
    }

    fn screen(&self, id: &str) -> Value {
        self.call(
            "GET",
            &format!("/api/sessions/{id}/screen?format=json"),
            None,
        )
        .json()
    }

    fn peak_rss_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.pid))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            })
            .unwrap_or(0)
    }

    fn reset_peak_rss(&self) {
        // "5" resets the peak RSS (VmHWM) to the current RSS.
        let _ = std::fs::write(format!("/proc/{}/clear_refs", self.pid), "5");
    }

    /// A flood with `viewers` view connections attached before it starts.
    fn flood(&self, viewers: usize) -> Result<Flood, String> {
        let script = "read x; exec cat \"$0\"";
        let id = self.create(&["sh", "-c", script, &self.file], COLS, ROWS)?;
        let mut clients = Vec::with_capacity(viewers);
        for _ in 0..viewers {
            let mut client =
                self.runtime
                    .block_on(ws::open_deflated(self.addr, &self.token, &id, "view"));
            self.runtime
                .block_on(client.until("the first frame", LIMIT, |m| m.frames > 0));
            clients.push(client);
        }
        let readers: Vec<JoinHandle<(ws::Client, Vec<Bytes>)>> = clients
            .into_iter()
            .map(|mut client| {
                self.runtime.spawn(async move {
                    let deadline = tokio::time::Instant::now() + LIMIT;
                    let mut messages = Vec::new();
                    while let Some(message) = client.next_raw(deadline).await {
                        messages.push(message);
                    }
                    (client, messages)
                })
            })
            .collect();

        self.reset_peak_rss();
        let start = Instant::now();
        self.type_text(&id, "\r")?;
        let path = format!("/api/sessions/{id}");
        while self.call("GET", &path, None).json()["running"] != false {
            if start.elapsed() > LIMIT {
                return Err("the flood did not end".to_owned());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let seconds = start.elapsed().as_secs_f64();
        let peak_rss_kib = self.peak_rss_kib();

        let screen = self.screen(&id);
        let mut flood = Flood {
            seconds,
            wire_bytes: 0,
            frames: 0,
            converged: 0,
            peak_rss_kib,
        };
        for (i, reader) in readers.into_iter().enumerate() {
            let (mut client, messages) =
                self.runtime.block_on(reader).map_err(|e| e.to_string())?;
            for message in &messages {
                client.model.apply(message)?;
            }
            if i == 0 {
                flood.frames = client.model.frames;
                // Before the flood: the hello and the first frame; then the rest.
                flood.wire_bytes = client.bytes + ws_headers(&messages);
            }
            if same_screen(&client.model, &screen) {
                flood.converged += 1;
            }
        }
        self.call("DELETE", &path, None);
        Ok(flood)
    }

    /// Keystroke echo latency through a raw-mode `cat`.
    fn echo(&self, keys: usize) -> Result<Echo, String> {
        const WARM_UP: usize = 20;
        let cols = 80usize;
        let rows = (keys + WARM_UP).div_ceil(cols) + 2;
        let rows = u16::try_from(rows).map_err(|_| "too many keys".to_owned())?;
        let script = "stty raw -echo; printf 'ready\\r\\n'; exec cat";
        let id = self.create(&["sh", "-c", script], cols as u16, rows.max(3))?;
        let mut latencies = self.runtime.block_on(async {
            let mut client = ws::open_deflated(self.addr, &self.token, &id, "control").await;
            client
                .until("ready", LIMIT, |m| m.row_text(0) == "ready")
                .await;
            let mut latencies = Vec::with_capacity(keys);
            for k in 0..keys + WARM_UP {
                let ch = (b'a' + (k % 26) as u8) as char;
                let (row, col) = (1 + k / cols, (k % cols) as u16);
                let key = ClientMessage::Key {
                    key: Key::Char(ch),
                    mods: Modifiers::NONE,
                    event: KeyEvent::Press,
                };
                let sent = Instant::now();
                client.send(&key).await;
                let mut buf = [0; 4];
                let want = &*ch.encode_utf8(&mut buf);
                client
                    .until("the echo", LIMIT, |m| m.cell_text(row, col) == Some(want))
                    .await;
                if k >= WARM_UP {
                    latencies.push(sent.elapsed().as_secs_f64() * 1e3);
                }
            }
            client.close().await;
            latencies
        });
        self.call("DELETE", &format!("/api/sessions/{id}"), None);
        latencies.sort_by(f64::total_cmp);
        let at = |q: f64| {
            latencies[((latencies.len() as f64 * q).ceil() as usize).clamp(1, latencies.len()) - 1]
        };
        Ok(Echo {
            p50: at(0.50),
            p99: at(0.99),
            max: at(1.0),
        })
    }
}

/// WebSocket frame header bytes of server messages (unmasked): 2, plus 2
/// for payloads of 126 to 65535 bytes, plus 8 above.
fn ws_headers(messages: &[Bytes]) -> u64 {
    messages
        .iter()
        .map(|m| match m.len() {
            0..=125 => 2,
            126..=65535 => 4,
            _ => 10,
        })
        .sum()
}

/// The model's text and cursor equal the screen JSON's.
fn same_screen(model: &ws::Model, screen: &Value) -> bool {
    let lines: Vec<String> = screen["lines"]
        .as_array()
        .map(|lines| {
            lines
                .iter()
                .map(|l| l.as_str().unwrap_or_default().trim_end().to_owned())
                .collect()
        })
        .unwrap_or_default();
    let cursor = (
        screen["cursor"]["row"].as_u64(),
        screen["cursor"]["col"].as_u64(),
    );
    model.text() == lines
        && cursor == (Some(model.cursor.row as u64), Some(model.cursor.col as u64))
}

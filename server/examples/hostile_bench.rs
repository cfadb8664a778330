//! The hostile-load benchmark (`bench/hostile.sh`), against a running
//! `panecast serve`: each attack of the trust issue's part 2 runs while
//! two probes time what other users feel, and the table says how much
//! they suffered.
//!
//! The probes, every 20 ms while an attack runs:
//! - **healthz**: `GET /healthz` on a fresh connection, from connect to the
//!   end of the answer;
//! - **echo**: a key typed into another session (a raw-mode `cat`, or the
//!   attacked session itself where the attack aims at a session's actor),
//!   timed until a frame shows it.
//!
//! A probe that gets no answer within 5 s counts as 5 s and as a failure.
//! Each row gives p99 of both, failures, and the server's peak RSS (VmHWM,
//! reset before the attack).
//!
//! Usage: `hostile_bench ADDR TOKEN SERVER_PID`. Environment: `ATTACK_SECONDS`
//! (each attack's length, default 5), `SCALE` (1 = the trial's figures;
//! 0.25 for a quick run).

#[path = "../tests/common/http.rs"]
#[allow(dead_code)] // The tests use more of the client than this does.
mod http;
#[path = "../tests/common/ws.rs"]
#[allow(dead_code)]
mod ws;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use panecast_proto::ClientMessage;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::runtime::Runtime;
use tokio::task::JoinSet;

/// The longest a probe waits before it counts as a failure.
const PROBE_LIMIT: Duration = Duration::from_secs(5);
/// The longest a DELETE may take before the benchmark gives up.
const DELETE_LIMIT: Duration = Duration::from_secs(300);
/// Time between probes.
const PROBE_EVERY: Duration = Duration::from_millis(20);
/// The receive buffer of a client that never reads (small, so that the
/// server's side fills as soon as possible).
const NO_READ_BUFFER: u32 = 4096;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("hostile_bench: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [addr, token, pid] = args.as_slice() else {
        return Err("usage: hostile_bench ADDR TOKEN SERVER_PID".to_owned());
    };
    let seconds: f64 = env_parse("ATTACK_SECONDS", 5.0)?;
    let scale: f64 = env_parse("SCALE", 1.0)?;
    let bench = Bench {
        addr: addr.parse().map_err(|_| format!("bad address '{addr}'"))?,
        token: token.clone(),
        pid: pid.parse().map_err(|_| format!("bad pid '{pid}'"))?,
        length: Duration::from_secs_f64(seconds),
        scale,
        runtime: tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?,
    };
    let mut rows = Vec::new();
    let echo = bench.echo_session(&["sh", "-c", "stty raw -echo; exec cat"], 80, 24)?;
    rows.push(bench.attack("none (baseline)", &echo, |_| Ok(Attack::none()))?);
    rows.push(bench.attack(
        &format!("{} idle keep-alive sockets, no credential", bench.n(1100)),
        &echo,
        |b| b.keep_alive_sockets(b.n(1100)),
    )?);
    rows.push(bench.attack(
        &format!(
            "{} non-reading `/alis` sockets from one view link",
            bench.n(256)
        ),
        &echo,
        |b| b.alis_hoard(b.n(256)),
    )?);
    rows.push(bench.attack(
        &format!("{} non-reading viewers of a 1000x1000 screen", bench.n(256)),
        &echo,
        |b| b.slow_viewers(b.n(256)),
    )?);
    rows.push(bench.attack(
        &format!(
            "{} `/alis` readers of a flooding 1000x1000 session",
            bench.n(60)
        ),
        &echo,
        |b| b.alis_readers(b.n(60)),
    )?);
    rows.push(bench.attack(
        "10 replay upgrades closed at once",
        &echo,
        Bench::closed_replays,
    )?);
    rows.push(bench.attack(
        "`ESC[;;;;7$t` (DECRARA) in a loop at 1000x1000",
        &echo,
        Bench::decrara_loop,
    )?);
    // The attacks on one session's actor time the echo of that session.
    let victim = bench.echo_session(
        &["sh", "-c", "seq 1 30000; stty raw -echo; exec cat"],
        80,
        24,
    )?;
    rows.push(
        bench.attack("4 regex search loops from a view link", &victim, |b| {
            b.search_loops(&victim.id, 4)
        })?,
    );
    rows.push(bench.attack(
        "scrollback requests in a loop from a view link",
        &victim,
        |b| b.scrollback_flood(&victim.id, 4),
    )?);

    println!(
        "| attack | `/healthz` p99 | echo p99 | failed probes | peak RSS | RSS at the end | notes |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|");
    for row in &rows {
        println!(
            "| {} | {:.1} ms | {:.1} ms | {} | {:.0} MiB | {:.0} MiB | {} |",
            row.name,
            row.healthz_p99,
            row.echo_p99,
            row.failures,
            row.peak_rss_kib as f64 / 1024.0,
            row.end_rss_kib as f64 / 1024.0,
            row.notes.join("; ")
        );
    }
    let (delete, exit) = bench.delete_and_shutdown()?;
    println!();
    println!(
        "DELETE of a session printing DECRARA in a loop at 1000x1000: {delete:.0} ms; \
         SIGTERM to exit with that loop running: {exit:.0} ms"
    );
    Ok(())
}

fn env_parse<T: std::str::FromStr>(name: &str, default: T) -> Result<T, String> {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .map_err(|_| format!("{name} is not a number: '{value}'")),
        Err(_) => Ok(default),
    }
}

/// One attack's figures.
struct Row {
    name: String,
    healthz_p99: f64,
    echo_p99: f64,
    failures: usize,
    peak_rss_kib: u64,
    /// RSS at the attack's end, before it is torn down.
    end_rss_kib: u64,
    notes: Vec<String>,
}

/// A running attack: its tasks (aborted at the end), the sessions it made
/// (deleted at the end), and what it observed.
struct Attack {
    tasks: JoinSet<()>,
    /// Set at the end: tasks that loop on blocking calls check it.
    stop: Arc<AtomicBool>,
    sessions: Vec<String>,
    notes: Vec<String>,
}

impl Attack {
    fn none() -> Attack {
        Attack {
            tasks: JoinSet::new(),
            stop: Arc::new(AtomicBool::new(false)),
            sessions: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// A session whose echo the probes time, and the control stream typing into it.
struct Echo {
    id: String,
}

struct Bench {
    addr: SocketAddr,
    token: String,
    pid: u32,
    length: Duration,
    scale: f64,
    runtime: Runtime,
}

impl Bench {
    /// `count` scaled by `SCALE`, at least 1.
    fn n(&self, count: usize) -> usize {
        ((count as f64 * self.scale).round() as usize).max(1)
    }

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

    fn create(
        &self,
        command: &[&str],
        cols: u16,
        rows: u16,
        extra: Value,
    ) -> Result<String, String> {
        let mut body = json!({ "command": command, "cols": cols, "rows": rows });
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        let created = self.call("POST", "/api/sessions", Some(&body.to_string()));
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

    /// Deletes session `id`, waiting as long as the server takes (a hostile
    /// session may hold the answer up: that is one of the figures).
    fn delete(&self, id: &str) -> Result<(), String> {
        let request = format!(
            "DELETE /api/sessions/{id} HTTP/1.1\r\nHost: 127.0.0.1\r\n\
             Authorization: Bearer {}\r\nConnection: close\r\n\r\n",
            self.token
        );
        let answer = self.runtime.block_on(async {
            let exchange = async {
                let mut stream = TcpStream::connect(self.addr).await?;
                stream.write_all(request.as_bytes()).await?;
                let mut answer = Vec::new();
                stream.read_to_end(&mut answer).await?;
                Ok::<_, std::io::Error>(answer)
            };
            tokio::time::timeout(DELETE_LIMIT, exchange).await
        });
        match answer.unwrap_or_else(|_| Err(std::io::ErrorKind::TimedOut.into())) {
            Ok(answer) if answer.starts_with(b"HTTP/1.1 2") => Ok(()),
            Ok(answer) => Err(format!(
                "DELETE answered {}",
                String::from_utf8_lossy(&answer[..answer.len().min(200)])
            )),
            Err(e) => Err(format!("DELETE failed: {e}")),
        }
    }

    /// A fresh view link to session `id`: its token.
    fn view_link(&self, id: &str) -> Result<String, String> {
        let minted = self.call(
            "POST",
            &format!("/api/sessions/{id}/links"),
            Some(r#"{"role": "view", "ttl": 3600}"#),
        );
        if minted.status != 201 {
            return Err(format!("mint answered {}: {}", minted.status, minted.body));
        }
        minted.json()["token"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| "no token in the answer".to_owned())
    }

    fn echo_session(&self, command: &[&str], cols: u16, rows: u16) -> Result<Echo, String> {
        let id = self.create(command, cols, rows, json!({ "scrollback": 30000 }))?;
        Ok(Echo { id })
    }

    fn peak_rss_kib(&self) -> u64 {
        self.memory_kib("VmHWM:")
    }

    /// A figure of the server's /proc status (`VmRSS:`, `VmHWM:`), in KiB.
    fn memory_kib(&self, field: &str) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.pid))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix(field))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            })
            .unwrap_or(0)
    }

    fn reset_peak_rss(&self) {
        // "5" resets the peak RSS (VmHWM) to the current RSS.
        let _ = std::fs::write(format!("/proc/{}/clear_refs", self.pid), "5");
    }

    /// Runs `start`'s attack for the benchmark's length while probing.
    fn attack(
        &self,
        name: &str,
        echo: &Echo,
        start: impl FnOnce(&Bench) -> Result<Attack, String>,
    ) -> Result<Row, String> {
        eprintln!("== {name}");
        self.reset_peak_rss();
        let mut attack = start(self)?;
        // Give the attack a moment to take hold before measuring.
        std::thread::sleep(Duration::from_millis(500));
        let (healthz, echoes) = self.runtime.block_on(self.probe(&echo.id));
        let peak_rss_kib = self.peak_rss_kib();
        let end_rss_kib = self.memory_kib("VmRSS:");
        attack.stop.store(true, Ordering::Relaxed);
        attack.tasks.abort_all();
        self.runtime
            .block_on(async { while attack.tasks.join_next().await.is_some() {} });
        for id in &attack.sessions {
            self.delete(id)?;
        }
        let failures = healthz
            .iter()
            .chain(&echoes)
            .filter(|&&ms| ms.is_nan())
            .count();
        let row = Row {
            name: name.to_owned(),
            healthz_p99: p99(&healthz),
            echo_p99: p99(&echoes),
            failures,
            peak_rss_kib,
            end_rss_kib,
            notes: attack.notes,
        };
        eprintln!(
            "   healthz p99 {:.1} ms, echo p99 {:.1} ms, {} failed, peak RSS {:.0} MiB",
            row.healthz_p99,
            row.echo_p99,
            row.failures,
            row.peak_rss_kib as f64 / 1024.0
        );
        Ok(row)
    }

    /// Times `/healthz` and the echo of session `id` every [`PROBE_EVERY`]
    /// for the benchmark's length. Latencies in ms; NaN for a failure.
    async fn probe(&self, id: &str) -> (Vec<f64>, Vec<f64>) {
        let addr = self.addr;
        let length = self.length;
        let healthz = tokio::spawn(async move {
            let end = Instant::now() + length;
            let mut times = Vec::new();
            while Instant::now() < end {
                let sent = Instant::now();
                let answered = tokio::time::timeout(PROBE_LIMIT, healthz(addr)).await;
                times.push(match answered {
                    Ok(true) => sent.elapsed().as_secs_f64() * 1e3,
                    _ => f64::NAN,
                });
                tokio::time::sleep(PROBE_EVERY).await;
            }
            times
        });
        let echoes = self.echo_probe(id).await;
        (healthz.await.unwrap_or_default(), echoes)
    }

    async fn echo_probe(&self, id: &str) -> Vec<f64> {
        let auth = format!("Bearer {}", self.token);
        let path = ws::ws_path(id, Some("control"));
        let headers = [("Authorization", auth.as_str())];
        let connected =
            tokio::time::timeout(PROBE_LIMIT, ws::connect(self.addr, &path, &headers, None)).await;
        let Ok(Ok(mut client)) = connected else {
            return vec![f64::NAN];
        };
        let end = Instant::now() + self.length;
        let mut times = Vec::new();
        let mut k = 0usize;
        while Instant::now() < end {
            // Each probe types CR and a letter: the letter lands in the
            // first column of the cursor's row, whatever came before.
            let ch = (b'a' + (k % 26) as u8) as char;
            k += 1;
            let sent = Instant::now();
            client
                .send(&ClientMessage::Text {
                    text: format!("\r{ch}"),
                })
                .await;
            let deadline = tokio::time::Instant::now() + PROBE_LIMIT;
            let mut buf = [0; 4];
            let want = &*ch.encode_utf8(&mut buf);
            let mut seen = false;
            while !seen {
                if client.next(deadline).await.is_none() {
                    break;
                }
                let cursor = client.model.cursor;
                seen =
                    cursor.col == 1 && client.model.cell_text(cursor.row as usize, 0) == Some(want);
            }
            times.push(if seen {
                sent.elapsed().as_secs_f64() * 1e3
            } else {
                f64::NAN
            });
            if client.closed.is_some() {
                break;
            }
            tokio::time::sleep(PROBE_EVERY).await;
        }
        times
    }

    /// Keep-alive sockets with no credential, each asking `/healthz` every 4 s.
    fn keep_alive_sockets(&self, count: usize) -> Result<Attack, String> {
        let mut attack = Attack::none();
        let addr = self.addr;
        let _guard = self.runtime.enter();
        for _ in 0..count {
            attack.tasks.spawn(async move {
                let Ok(mut stream) = TcpStream::connect(addr).await else {
                    return;
                };
                let mut buf = vec![0u8; 4096];
                loop {
                    let request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
                    if stream.write_all(request).await.is_err() {
                        return;
                    }
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                    tokio::time::sleep(Duration::from_secs(4)).await;
                }
            });
        }
        Ok(attack)
    }

    /// `count` `/alis` sockets of one view link that never read, on a busy
    /// session; then whether the admin's control stream still opens.
    fn alis_hoard(&self, count: usize) -> Result<Attack, String> {
        let id = self.create(&["sh", "-c", "while :; do date; done"], 80, 24, json!({}))?;
        let link = self.view_link(&id)?;
        let mut attack = Attack::none();
        attack.sessions.push(id.clone());
        self.hoard(&mut attack, &id, "alis", count, &link);
        let admin = self.runtime.block_on(async {
            let auth = format!("Bearer {}", self.token);
            let path = ws::ws_path(&id, Some("control"));
            let headers = [("Authorization", auth.as_str())];
            match ws::connect(self.addr, &path, &headers, None).await {
                Ok(mut client) => {
                    let deadline = tokio::time::Instant::now() + PROBE_LIMIT;
                    while client.model.frames == 0 && client.next(deadline).await.is_some() {}
                    match &client.closed {
                        Some(closed) => format!("closed {:?} {}", closed.code, closed.reason),
                        None if client.model.frames > 0 => "streams".to_owned(),
                        None => "no frame".to_owned(),
                    }
                }
                Err(refused) => format!("refused {}", refused.status),
            }
        });
        attack.notes.push(format!("admin control stream: {admin}"));
        Ok(attack)
    }

    /// `count` viewers that never read, of a 1000x1000 screen that keeps changing.
    fn slow_viewers(&self, count: usize) -> Result<Attack, String> {
        let script = "i=0; while :; do i=$((i+1)); printf '\\033[H'; \
                      yes \"line $i $(date +%N)\" | head -c 2000000; done";
        let id = self.create(
            &["sh", "-c", script],
            1000,
            1000,
            json!({ "scrollback": 0 }),
        )?;
        let mut attack = Attack::none();
        attack.sessions.push(id.clone());
        self.hoard(&mut attack, &id, "ws?role=view", count, &self.token);
        Ok(attack)
    }

    /// Opens `count` streams at `/api/sessions/{id}/{path}` with `token`
    /// that never read.
    fn hoard(&self, attack: &mut Attack, id: &str, path: &str, count: usize, token: &str) {
        let opened = self.runtime.block_on(async {
            let mut opened = 0;
            for _ in 0..count {
                let auth = format!("Bearer {token}");
                let path = format!("/api/sessions/{id}/{path}");
                let headers = [("Authorization", auth.as_str())];
                if let Ok(client) =
                    ws::connect(self.addr, &path, &headers, Some(NO_READ_BUFFER)).await
                {
                    opened += 1;
                    attack.tasks.spawn(async move {
                        let _held = client;
                        std::future::pending::<()>().await;
                    });
                }
            }
            opened
        });
        attack.notes.push(format!("{opened} of {count} opened"));
    }

    /// `count` ALiS readers of a 1000x1000 session that floods.
    fn alis_readers(&self, count: usize) -> Result<Attack, String> {
        let script = "yes 'the quick brown fox jumps over the lazy dog'";
        let id = self.create(
            &["sh", "-c", script],
            1000,
            1000,
            json!({ "scrollback": 0 }),
        )?;
        let mut attack = Attack::none();
        attack.sessions.push(id.clone());
        let _guard = self.runtime.enter();
        for _ in 0..count {
            let (addr, token, id) = (self.addr, self.token.clone(), id.clone());
            attack.tasks.spawn(async move {
                let auth = format!("Bearer {token}");
                let path = format!("/api/sessions/{id}/alis");
                let headers = [("Authorization", auth.as_str())];
                let Ok(mut client) = ws::connect(addr, &path, &headers, None).await else {
                    return;
                };
                let far = tokio::time::Instant::now() + Duration::from_secs(3600);
                while client.next_raw(far).await.is_some() {}
            });
        }
        Ok(attack)
    }

    /// Ten replay upgrades, each closed as soon as it is answered; then
    /// whether a new replay still opens.
    fn closed_replays(&self) -> Result<Attack, String> {
        let script = "seq 1 300000";
        let id = self.create(&["sh", "-c", script], 80, 24, json!({ "record": true }))?;
        let path = format!("/api/sessions/{id}");
        let start = Instant::now();
        while self.call("GET", &path, None).json()["running"] != false {
            if start.elapsed() > Duration::from_secs(60) {
                return Err("the recorded session did not end".to_owned());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let recording = self.call("GET", &path, None).json()["recording"]
            .as_str()
            .map(str::to_owned)
            .ok_or("the session has no recording")?;
        let mut attack = Attack::none();
        attack.sessions.push(id);
        let replay = format!("/api/recordings/{recording}/ws");
        let auth = format!("Bearer {}", self.token);
        let headers = [("Authorization", auth.as_str())];
        let outcome = self.runtime.block_on(async {
            for _ in 0..10 {
                if let Ok(client) = ws::connect(self.addr, &replay, &headers, None).await {
                    drop(client);
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            match ws::connect(self.addr, &replay, &headers, None).await {
                Ok(mut client) => {
                    let deadline = tokio::time::Instant::now() + PROBE_LIMIT;
                    while client.model.frames == 0 && client.next(deadline).await.is_some() {}
                    match &client.closed {
                        Some(closed) => format!("closed {:?} {}", closed.code, closed.reason),
                        None if client.model.frames > 0 => "plays".to_owned(),
                        None => "no frame".to_owned(),
                    }
                }
                Err(refused) => format!("refused {} {}", refused.status, refused.body),
            }
        });
        attack.notes.push(format!("an 11th replay: {outcome}"));
        Ok(attack)
    }

    /// A 1000x1000 session printing DECRARA over the whole screen in a loop.
    fn decrara_loop(&self) -> Result<Attack, String> {
        let id = self.decrara_session()?;
        let mut attack = Attack::none();
        attack.sessions.push(id);
        Ok(attack)
    }

    fn decrara_session(&self) -> Result<String, String> {
        let script = "printf 'x%.0s' $(seq 1 2000); while :; do printf '\\033[;;;;7$t'; done";
        self.create(
            &["sh", "-c", script],
            1000,
            1000,
            json!({ "scrollback": 0 }),
        )
    }

    /// `loops` tasks searching session `id` with a slow regex through a view link.
    fn search_loops(&self, id: &str, loops: usize) -> Result<Attack, String> {
        let link = self.view_link(id)?;
        let mut attack = Attack::none();
        for _ in 0..loops {
            let (addr, link, id) = (self.addr, link.clone(), id.to_owned());
            let stop = attack.stop.clone();
            let search = move || {
                let auth = format!("Bearer {link}");
                // ^(\d+)*\d*9$: backtracking-free in the regex crate, but
                // every line of the scrollback is tried.
                let path = format!(
                    "/api/sessions/{id}/search?regex=true&limit=1000&q=%5E%28%5Cd%2B%29%2A%5Cd%2A9%24"
                );
                while !stop.load(Ordering::Relaxed) {
                    http::http(addr, "GET", &path, &[("Authorization", &auth)], None);
                }
            };
            attack
                .tasks
                .spawn_blocking_on(search, self.runtime.handle());
        }
        Ok(attack)
    }

    /// `loops` view streams of session `id` asking for scrollback as fast as they can.
    fn scrollback_flood(&self, id: &str, loops: usize) -> Result<Attack, String> {
        let link = self.view_link(id)?;
        let mut attack = Attack::none();
        let _guard = self.runtime.enter();
        for _ in 0..loops {
            let (addr, link, id) = (self.addr, link.clone(), id.to_owned());
            attack.tasks.spawn(async move {
                let Ok(mut client) = open_as(addr, &link, &id, "view").await else {
                    return;
                };
                let mut start = 1u64;
                loop {
                    client
                        .send(&ClientMessage::ScrollbackRequest { start, count: 1000 })
                        .await;
                    start = start % 28_000 + 1000;
                    let deadline = tokio::time::Instant::now() + Duration::from_millis(1);
                    while client.next_raw(deadline).await.is_some() {}
                    if client.closed.is_some() {
                        return;
                    }
                }
            });
        }
        Ok(attack)
    }

    /// Times DELETE of a DECRARA-looping session, then SIGTERM of the server
    /// with another one running (the server is gone after this).
    fn delete_and_shutdown(&self) -> Result<(f64, f64), String> {
        let id = self.decrara_session()?;
        std::thread::sleep(Duration::from_secs(1));
        let start = Instant::now();
        self.delete(&id)?;
        let delete = start.elapsed().as_secs_f64() * 1e3;
        self.decrara_session()?;
        std::thread::sleep(Duration::from_secs(1));
        let start = Instant::now();
        // SAFETY: kill only sends a signal, to the server this benchmark was given.
        unsafe { libc::kill(self.pid as libc::pid_t, libc::SIGTERM) };
        while std::path::Path::new(&format!("/proc/{}/status", self.pid)).exists()
            && !zombie(self.pid)
        {
            if start.elapsed() > Duration::from_secs(300) {
                return Err("the server did not exit within 300 s of SIGTERM".to_owned());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok((delete, start.elapsed().as_secs_f64() * 1e3))
    }
}

/// True when `pid` has exited and waits to be reaped.
fn zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rfind(')').map(|i| stat[i + 2..].starts_with('Z')))
        .unwrap_or(true)
}

/// Opens the stream of session `id` with a bearer credential.
async fn open_as(addr: SocketAddr, token: &str, id: &str, role: &str) -> Result<ws::Client, ()> {
    let auth = format!("Bearer {token}");
    let path = ws::ws_path(id, Some(role));
    ws::connect(addr, &path, &[("Authorization", &auth)], None)
        .await
        .map_err(|_| ())
}

/// `GET /healthz` on a fresh connection: true when a 200 came back whole.
async fn healthz(addr: SocketAddr) -> bool {
    let Ok(socket) = TcpSocket::new_v4() else {
        return false;
    };
    let Ok(mut stream) = socket.connect(addr).await else {
        return false;
    };
    let request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if stream.write_all(request).await.is_err() {
        return false;
    }
    let mut answer = Vec::new();
    if stream.read_to_end(&mut answer).await.is_err() {
        return false;
    }
    answer.starts_with(b"HTTP/1.1 200")
}

/// The 99th percentile of `values` (a NaN, a failure, counts as the probe limit).
fn p99(values: &[f64]) -> f64 {
    let mut sorted: Vec<f64> = values
        .iter()
        .map(|&v| {
            if v.is_nan() {
                PROBE_LIMIT.as_secs_f64() * 1e3
            } else {
                v
            }
        })
        .collect();
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() as f64 * 0.99).ceil() as usize).clamp(1, sorted.len()) - 1]
}

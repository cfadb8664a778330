//! No session can stall the server. The real binary runs two sessions that
//! flood it with adversarial output (a new 24-bit colour every cell, hostile
//! inline images, 100,000 hyperlinks, a 20 MB line without a newline) while one of them is resized
//! to 10 columns and back; meanwhile `/healthz` and a third session's echo
//! are timed. Then the floods are deleted, the server's memory must fall
//! back; a 1000x1000 session printing a whole-screen DECRARA in a loop (9
//! bytes for a million cells) must not slow the echo either, and must be
//! deleted promptly; and SIGTERM must end the server promptly even with
//! such a loop running.
//!
//! The bounds are correctness bounds for a stall (a blocked async worker
//! shows up as hundreds of milliseconds to seconds), generous enough for a
//! loaded 2-core machine running a debug build.

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::process::ServerProcess;
use common::{http, Response};
use serde_json::{json, Value};

const TOKEN: &str = "stall-test-token";
/// Longest 99th-percentile latency of `/healthz` and of an echo.
const P99_BOUND: Duration = Duration::from_millis(50);
/// Longest DELETE of a flooding session.
const DELETE_BOUND: Duration = Duration::from_secs(1);
/// Longest time from SIGTERM to the server's exit.
const SIGTERM_BOUND: Duration = Duration::from_secs(5);
/// How long the test waits for anything else (a flood to reach its end).
const WAIT: Duration = Duration::from_secs(120);

/// The server binary, run as a child so its RSS and its exit can be observed.
struct Server(ServerProcess);

impl std::ops::Deref for Server {
    type Target = ServerProcess;
    fn deref(&self) -> &ServerProcess {
        &self.0
    }
}

impl Server {
    fn start() -> Server {
        Server(ServerProcess::start(TOKEN))
    }

    fn post(&self, method: &str, path: &str, body: Option<Value>) -> Response {
        let body = body.map(|b| b.to_string());
        self.0.call(method, path, body.as_deref())
    }

    fn create(&self, argv: &[&str]) -> String {
        let response = self.post("POST", "/api/sessions", Some(json!({ "command": argv })));
        assert_eq!(response.status, 201, "create: {}", response.body);
        response.json()["id"].as_str().expect("an id").to_owned()
    }

    fn screen(&self, id: &str) -> String {
        let response = self.call("GET", &format!("/api/sessions/{id}/screen"), None);
        assert_eq!(response.status, 200, "screen: {}", response.body);
        response.body
    }
}

/// A person typing into the echo session: a control stream, as the web
/// client has, through which a fresh token is typed and timed until the
/// stream shows it echoed.
struct Typist {
    runtime: tokio::runtime::Runtime,
    client: common::ws::Client,
}

impl Typist {
    fn attach(server: &Server, id: &str) -> Typist {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let auth = format!("Bearer {TOKEN}");
        let path = common::ws::ws_path(id, Some("control"));
        let mut client = runtime
            .block_on(common::ws::connect(
                server.addr,
                &path,
                &[("Authorization", &auth)],
                None,
            ))
            .unwrap_or_else(|r| panic!("refused: {} {}", r.status, r.body));
        runtime.block_on(client.until("the first frame", WAIT, |m| m.frames > 0));
        Typist { runtime, client }
    }

    /// Types `echo{n}z` and Enter, and times until the screen shows it.
    fn echo(&mut self, n: usize) -> Duration {
        let token = format!("echo{n}z");
        let start = Instant::now();
        let client = &mut self.client;
        self.runtime.block_on(async {
            client
                .send(&panecast_proto::ClientMessage::Text {
                    text: format!("{token}\r"),
                })
                .await;
            client
                .until(&format!("the echo of {token}"), WAIT, |m| {
                    (0..m.lines.len()).any(|r| m.row_text(r).contains(&token))
                })
                .await;
        });
        start.elapsed()
    }
}

/// The adversarial payloads, written once to a temporary directory.
struct Payloads {
    dir: PathBuf,
}

impl Payloads {
    fn write() -> Payloads {
        let dir = std::env::temp_dir().join(format!("panecast-stall-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("payload directory");
        let mut colours = Vec::new();
        for i in 0u32..100_000 {
            let (r, g, b) = ((i >> 16) as u8, (i >> 8) as u8, i as u8);
            colours.extend_from_slice(format!("\x1b[38;2;{r};{g};{b}m#").as_bytes());
        }
        colours.extend_from_slice(b"\x1b[m\r\n");
        let mut links = Vec::new();
        for i in 0..100_000 {
            links.extend_from_slice(
                format!("\x1b]8;;https://example.com/{i}\x07L\x1b]8;;\x07").as_bytes(),
            );
        }
        links.extend_from_slice(b"\r\n");
        let line = vec![b'w'; 20 << 20];
        let images = hostile_images();
        for (name, bytes) in [
            ("colours", colours),
            ("links", links),
            ("line", line),
            ("images", images),
        ] {
            std::fs::write(dir.join(name), bytes).expect("write a payload");
        }
        Payloads { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }

    /// A shell command that prints every payload `times` times (0: forever),
    /// then `done`, then waits.
    fn flood(&self, times: u32, done: &str) -> String {
        let each = format!(
            "cat {} {} {} {}",
            self.path("colours"),
            self.path("images"),
            self.path("links"),
            self.path("line")
        );
        let repeat = if times == 0 {
            format!("while :; do {each}; done")
        } else {
            format!("for i in $(seq {times}); do {each}; done")
        };
        format!("{repeat}; printf '\\r\\n{done}\\r\\n'; exec sleep 600")
    }
}

impl Drop for Payloads {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Hostile inline images: a sixel declaring 20,000 x 20,000 and painting
/// 20,000-pixel bands, bad base64 (kitty and iTerm2), a PNG declaring
/// 60,000 x 60,000, a zlib bomb (16 MiB of zeros for a 512 x 512 image), a
/// thousand distinct images, and last a kitty chunk sequence that never ends.
fn hostile_images() -> Vec<u8> {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use panecast_term::image::Image;

    let mut out = b"\x1bPq\"1;1;20000;20000#1;2;100;0;0#1!20000~-!20000~-!20000~\x1b\\".to_vec();
    out.extend_from_slice(b"\x1b_Ga=T,f=100,i=2;!!!!\x1b\\\x1b]1337;File=inline=1:%%%%\x07");
    let mut png = Image::new(1, 1, vec![1, 2, 3, 4])
        .expect("an image")
        .png()
        .to_vec();
    png[16..20].copy_from_slice(&60_000u32.to_be_bytes());
    png[20..24].copy_from_slice(&60_000u32.to_be_bytes());
    out.extend(format!("\x1b_Ga=T,f=100,i=3;{}\x1b\\", STANDARD.encode(png)).bytes());
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut z, &vec![0u8; 16 << 20]).expect("deflate");
    let bomb = STANDARD.encode(z.finish().expect("deflate"));
    out.extend(format!("\x1b_Ga=T,f=32,s=512,v=512,o=z,i=4;{bomb}\x1b\\").bytes());
    for i in 0..1000u32 {
        let pixels: Vec<u8> = (0..32 * 32).flat_map(|_| i.to_le_bytes()).collect();
        out.extend(format!("\x1b_Ga=T,f=32,s=32,v=32;{}\x1b\\", STANDARD.encode(pixels)).bytes());
    }
    out.extend(
        format!(
            "\x1b_Ga=T,f=32,s=4,v=4,i=1,m=1;{}\x1b\\\r\n",
            "AAAA".repeat(1000)
        )
        .bytes(),
    );
    out
}

/// Times `/healthz` every 10 ms until stopped.
struct Prober {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<Duration>>,
}

impl Prober {
    fn start(addr: SocketAddr) -> Prober {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut times = Vec::new();
            while !stopped.load(Ordering::Relaxed) {
                let start = Instant::now();
                let response = http(addr, "GET", "/healthz", &[], None);
                assert_eq!(response.status, 200, "healthz: {}", response.body);
                times.push(start.elapsed());
                std::thread::sleep(Duration::from_millis(10));
            }
            times
        });
        Prober { stop, thread }
    }

    fn finish(self) -> Vec<Duration> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("the healthz prober")
    }
}

/// The 99th percentile.
fn p99(mut times: Vec<Duration>) -> Duration {
    assert!(!times.is_empty(), "no samples");
    times.sort();
    times[(times.len() * 99).div_ceil(100) - 1]
}

fn assert_p99(what: &str, times: Vec<Duration>) {
    let count = times.len();
    let worst = times.iter().max().copied().unwrap_or_default();
    let p99 = p99(times);
    eprintln!("{what}: {count} samples, p99 {p99:?}, max {worst:?}");
    assert!(
        p99 < P99_BOUND,
        "{what}: p99 {p99:?} over {count} samples (max {worst:?})"
    );
}

fn resize(server: &Server, id: &str, cols: u16) {
    let response = server.post(
        "POST",
        &format!("/api/sessions/{id}/resize"),
        Some(json!({ "cols": cols, "rows": 24 })),
    );
    assert_eq!(response.status, 204, "resize: {}", response.body);
}

#[test]
fn hostile_sessions_do_not_stall_the_server_and_give_their_memory_back() {
    let payloads = Payloads::write();
    let server = Server::start();
    let echo = server.create(&["cat"]);
    let mut typist = Typist::attach(&server, &echo);
    for n in 0..5 {
        typist.echo(n);
    }
    let fresh_rss = server.rss();

    let prober = Prober::start(server.addr);
    let once = payloads.flood(1, "FLOOD-DONE");
    let forever = payloads.flood(0, "never");
    let resized = server.create(&["sh", "-c", &once]);
    let flooding = server.create(&["sh", "-c", &forever]);

    let mut echoes = Vec::new();
    let mut n = 5;
    let mut measure = |_: &Server, echoes: &mut Vec<Duration>| {
        echoes.push(typist.echo(n));
        n += 1;
        std::thread::sleep(Duration::from_millis(20));
    };
    let start = Instant::now();
    while !server.screen(&resized).contains("FLOOD-DONE") {
        assert!(start.elapsed() < WAIT, "the first flood never ended");
        measure(&server, &mut echoes);
    }
    // The 20 MB line fills the scrollback: reflow it to 10 columns and back.
    resize(&server, &resized, 10);
    for _ in 0..10 {
        measure(&server, &mut echoes);
    }
    resize(&server, &resized, 80);
    for _ in 0..10 {
        measure(&server, &mut echoes);
    }

    for id in [&resized, &flooding] {
        let start = Instant::now();
        let response = server.post("DELETE", &format!("/api/sessions/{id}"), None);
        let took = start.elapsed();
        assert_eq!(response.status, 200, "delete: {}", response.body);
        eprintln!("DELETE took {took:?}");
        assert!(took < DELETE_BOUND, "DELETE took {took:?}");
    }
    assert_p99("healthz", prober.finish());
    assert_p99("echo", echoes);

    // The deleted sessions' memory goes back to the system.
    let start = Instant::now();
    let mut rss = server.rss();
    while rss > 2 * fresh_rss {
        assert!(
            start.elapsed() < WAIT,
            "RSS {rss} bytes, over twice the fresh server's {fresh_rss}"
        );
        std::thread::sleep(Duration::from_millis(50));
        rss = server.rss();
    }
    eprintln!(
        "RSS: fresh {fresh_rss} bytes, peak {} bytes, after the floods {rss} bytes",
        server.memory("VmHWM:")
    );

    // A DECRARA loop neither slows another session nor holds up its DELETE.
    let prober = Prober::start(server.addr);
    let decrara = decrara_loop(&server);
    let mut echoes = Vec::new();
    for _ in 0..20 {
        measure(&server, &mut echoes);
    }
    let start = Instant::now();
    let response = server.post("DELETE", &format!("/api/sessions/{decrara}"), None);
    let took = start.elapsed();
    assert_eq!(response.status, 200, "delete: {}", response.body);
    eprintln!("DELETE of a DECRARA loop took {took:?}");
    assert!(
        took < DELETE_BOUND,
        "DELETE of a DECRARA loop took {took:?}"
    );
    assert_p99("healthz beside a DECRARA loop", prober.finish());
    assert_p99("echo beside a DECRARA loop", echoes);

    // SIGTERM ends the server even with a flood and a DECRARA loop running.
    let _flood = server.create(&["sh", "-c", &forever]);
    decrara_loop(&server);
    terminate(server);
}

/// Starts a 1000x1000 session printing `x` and a whole-screen DECRARA
/// forever; returns its id once the loop's output is on the screen.
fn decrara_loop(server: &Server) -> String {
    let response = server.post(
        "POST",
        "/api/sessions",
        Some(json!({ "command": ["yes", "x\x1b[;;;;7$t"], "cols": 1000, "rows": 1000 })),
    );
    assert_eq!(response.status, 201, "create: {}", response.body);
    let id = response.json()["id"].as_str().expect("an id").to_owned();
    let start = Instant::now();
    while !server.screen(&id).contains('x') {
        assert!(start.elapsed() < WAIT, "the DECRARA loop never printed");
        std::thread::sleep(Duration::from_millis(20));
    }
    id
}

/// Sends SIGTERM and checks the server exits in time.
fn terminate(mut server: Server) {
    let pid = server.0.child.id() as libc::pid_t;
    let start = Instant::now();
    // SAFETY: kill has no memory-safety preconditions; pid is our child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0, "SIGTERM");
    loop {
        if let Some(status) = server.0.child.try_wait().expect("wait for the server") {
            let took = start.elapsed();
            eprintln!("SIGTERM: exited with {status} after {took:?}");
            assert!(status.success(), "the server exited with {status}");
            assert!(took < SIGTERM_BOUND, "SIGTERM took {took:?}");
            return;
        }
        assert!(
            start.elapsed() < SIGTERM_BOUND,
            "the server still runs {SIGTERM_BOUND:?} after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

//! The cluster benchmarks (`bench/cluster.sh`, issue 21's targets), against
//! three running `panecast serve --cluster` nodes A, B and C on one
//! `nats-server`, and one `panecast serve` without a cluster (SOLO) for the
//! single-node baselines. Every server shares TOKEN.
//!
//! 1. **Fan-out across nodes**: a `cat` of FILE in a 104x59 session owned
//!    by A, with VIEWERS view streams on each of A, B and C (B's and C's
//!    through their mirrors), against the same flood on SOLO with one
//!    viewer, in alternating rounds (and, for the record, on A with one
//!    local viewer and no mirror). A flood's time runs from the input that
//!    starts it until the last viewer received its last message (the
//!    `Exit`, after which the server closes the stream); every viewer's
//!    model must then equal the owner's final `/screen`.
//! 2. **Bytes between nodes**: NATS's own counters (`/varz` in_bytes and
//!    out_bytes on its monitoring port, and `/connz` per node) before the
//!    flood starts and after the last viewer is done, against the bytes
//!    the program wrote (FILE's size).
//! 3. **Echo**: `cat` on a raw terminal in a session owned by A, typed
//!    into from a control stream on B (1,000 `Key` messages, one at a
//!    time, each timed until a frame shows its echo); the same from a
//!    control stream on A and on SOLO, for comparison.
//! 4. **First frame of a remote session**: FIRST sessions (`cat`) created
//!    on A, each printing a line of its own first; for each, a view stream
//!    opened on B (which has no mirror of it yet), timed from the connect
//!    until the first `Frame` arrives, which must show that line; the same
//!    on A for comparison.
//! 5. **List**: SESSIONS idle `cat` sessions, a third created on each
//!    node; once every node lists them all, 20 `GET /api/sessions` on each.
//!
//! Viewers keep the messages they receive during a flood and apply them
//! to their model afterwards (as `stream_bench` does), so that the
//! clients' decoding, on the same cores as the servers, slows the flood no
//! more than it must. Prints a markdown table with PASS or MISS per target.
//!
//! Usage: `cluster_bench TOKEN FILE NATS_MONITOR SOLO A B C` (addresses
//! host:port; NATS_MONITOR is nats-server's `-m` port's address).
//! Environment: `VIEWERS` (per node, default 300), `ROUNDS` (default 3),
//! `KEYS` (default 1000), `FIRST` (default 100), `SESSIONS` (default
//! 3000), `LISTS` (default 20), `CPU_PIDS` (`name=pid,...`: the processes
//! whose CPU time is reported for each flood).

#[path = "../tests/common/http.rs"]
#[allow(dead_code)] // The tests use more of the client than this does.
mod http;
#[path = "../tests/common/ws.rs"]
#[allow(dead_code)]
mod ws;

use std::collections::BTreeMap;
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
            eprintln!("cluster_bench: {message}");
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

fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    text.parse().map_err(|_| format!("bad address '{text}'"))
}

fn pass(ok: bool) -> &'static str {
    if ok {
        "PASS"
    } else {
        "MISS"
    }
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [token, file, monitor, solo, a, b, c] = args.as_slice() else {
        return Err("usage: cluster_bench TOKEN FILE NATS_MONITOR SOLO A B C".to_owned());
    };
    let cpu_pids = std::env::var("CPU_PIDS")
        .unwrap_or_default()
        .split(',')
        .filter_map(|p| p.split_once('='))
        .filter_map(|(name, pid)| Some((name.to_owned(), pid.parse().ok()?)))
        .chain([("client".to_owned(), 0)])
        .collect();
    let bench = Bench {
        token: token.clone(),
        file: file.clone(),
        file_bytes: std::fs::metadata(file)
            .map_err(|e| format!("{file}: {e}"))?
            .len(),
        monitor: parse_addr(monitor)?,
        solo: parse_addr(solo)?,
        a: parse_addr(a)?,
        b: parse_addr(b)?,
        c: parse_addr(c)?,
        cpu_pids,
        name_nodes: std::cell::Cell::new(true),
        runtime: tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?,
    };
    let viewers = env_number("VIEWERS", 300)?.max(1);
    let rounds = env_number("ROUNDS", 3)?.max(1);
    let keys = env_number("KEYS", 1000)?.max(1);
    let first = env_number("FIRST", 100)?.max(1);
    let sessions = env_number("SESSIONS", 3000)?;
    let lists = env_number("LISTS", 20)?.max(1);
    let mut rows: Vec<String> = Vec::new();

    // 1 and 2: the floods.
    let mut solo_runs = Vec::new();
    let mut local_runs = Vec::new();
    let mut cluster_runs = Vec::new();
    let mut fan_runs = Vec::new();
    for round in 1..=rounds {
        let one = bench.flood(bench.solo, &[(bench.solo, 1)])?;
        eprintln!("   round {round}: SOLO, 1 viewer: {}", one.describe());
        let local = bench.flood(bench.a, &[(bench.a, 1)])?;
        eprintln!("   round {round}: A, 1 local viewer: {}", local.describe());
        let many = bench.flood(
            bench.a,
            &[(bench.a, viewers), (bench.b, viewers), (bench.c, viewers)],
        )?;
        eprintln!(
            "   round {round}: A+B+C, {viewers} viewers each: {}",
            many.describe()
        );
        let fan = bench.flood(bench.a, &[(bench.a, viewers)])?;
        eprintln!(
            "   round {round}: A, {viewers} local viewers only: {}",
            fan.describe()
        );
        fan_runs.push(fan);
        solo_runs.push(one);
        local_runs.push(local);
        cluster_runs.push(many);
    }
    let median = |runs: &[Flood], f: &dyn Fn(&Flood) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(f).collect();
        values.sort_by(f64::total_cmp);
        values[(values.len() - 1) / 2]
    };
    let one_time = median(&solo_runs, &|r| r.seconds);
    let local_time = median(&local_runs, &|r| r.seconds);
    let many_time = median(&cluster_runs, &|r| r.seconds);
    let per_node: Vec<String> = ["A", "B", "C"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            format!(
                "{name} {:.2} s",
                median(&cluster_runs, &|r| r
                    .node_seconds
                    .get(i)
                    .copied()
                    .unwrap_or(0.0))
            )
        })
        .collect();
    let fan_time = median(&fan_runs, &|r| r.seconds);
    let total = 3 * viewers;
    let converged_all = cluster_runs.iter().all(|r| r.converged == total)
        && solo_runs.iter().all(|r| r.converged == 1)
        && local_runs.iter().all(|r| r.converged == 1);
    let ratio = many_time / one_time;
    rows.push(format!(
        "| 1. flood time, `cat` of {:.1} MB at {COLS}x{ROWS} owned by A, {viewers} viewers on each of A, B, C ({total}) vs 1 viewer on one node | 1 viewer (single node) {one_time:.2} s; {total} viewers {many_time:.2} s (last viewer done per node: {}) = **{ratio:.2}x**; 1 local viewer on A (cluster mode, no mirror) {local_time:.2} s | <= 1.2x | {} |",
        bench.file_bytes as f64 / 1e6,
        per_node.join(", "),
        pass(ratio <= 1.2)
    ));
    rows.push(format!(
        "| 1. (for the record) the same flood with {viewers} local viewers on A only (no mirror) | {fan_time:.2} s = {:.2}x the single node's 1 viewer | - | - |",
        fan_time / one_time
    ));
    let cpu = |runs: &[Flood]| {
        let run = &runs[(runs.len() - 1) / 2];
        run.cpu
            .iter()
            .filter(|(_, s)| *s >= 0.005)
            .map(|(n, s)| format!("{n} {s:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    rows.push(format!(
        "| 1. CPU seconds during the flood (round {}) | 1 viewer on the single node: {}; {total} viewers: {}; {viewers} local on A: {} | report | - |",
        rounds.div_ceil(2),
        cpu(&solo_runs),
        cpu(&cluster_runs),
        cpu(&fan_runs)
    ));
    rows.push(format!(
        "| 1. viewers converged to the final screen | {} | all | {} |",
        if converged_all {
            format!("all ({total}/{total} in every round)")
        } else {
            format!(
                "NO: {} of {total} per round",
                cluster_runs
                    .iter()
                    .map(|r| r.converged.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        pass(converged_all)
    ));
    // The round of the median total, for every NATS figure.
    let mut order: Vec<usize> = (0..cluster_runs.len()).collect();
    order.sort_by_key(|&i| cluster_runs[i].nats_in + cluster_runs[i].nats_out);
    let mid = &cluster_runs[order[(order.len() - 1) / 2]];
    let nats_in = mid.nats_in as f64;
    let nats_out = mid.nats_out as f64;
    let nats_percent = 100.0 * (nats_in + nats_out) / bench.file_bytes as f64;
    let slow: u64 = cluster_runs.iter().map(|r| r.slow_consumers).sum();
    let in_msgs = mid.nats_in_msgs as f64;
    let by_conn = &mid.by_connection;
    rows.push(format!(
        "| 2. bytes between nodes during the flood (NATS /varz: into NATS + out of NATS; the round of the median total) | {:.0} KB in + {:.0} KB out = {:.0} KB = **{nats_percent:.3}%** of the {:.1} MB written (in alone {:.3}%, {in_msgs:.0} messages in, {:.0} B each); per connection (in/out KB): {}; new slow consumers: {slow} | <= 2% | {} |",
        nats_in / 1e3,
        nats_out / 1e3,
        (nats_in + nats_out) / 1e3,
        bench.file_bytes as f64 / 1e6,
        100.0 * nats_in / bench.file_bytes as f64,
        nats_in / in_msgs.max(1.0),
        by_conn
            .iter()
            .map(|(name, (i, o))| format!("{name} {:.0}/{:.0}", *i as f64 / 1e3, *o as f64 / 1e3))
            .collect::<Vec<_>>()
            .join(", "),
        pass(nats_percent <= 2.0)
    ));
    let local_nats = median(&local_runs, &|r| (r.nats_in + r.nats_out) as f64);
    rows.push(format!(
        "| 2. (for the record) NATS bytes during the flood with 1 local viewer on A and no mirror | {:.0} KB = {:.3}% | - | - |",
        local_nats / 1e3,
        100.0 * local_nats / bench.file_bytes as f64
    ));

    // 3. Echo.
    eprintln!(
        "== echo: {keys} keys, B into A's session; A local; SOLO (load {})",
        load()
    );
    let remote = bench.echo(bench.a, bench.b, keys)?;
    let local = bench.echo(bench.a, bench.a, keys)?;
    let solo_echo = bench.echo(bench.solo, bench.solo, keys)?;
    rows.push(format!(
        "| 3. echo, {keys} keys through `cat` owned by A, typed on B | p50 {:.2} ms, **p99 {:.2} ms** (max {:.2} ms); local on A: p50 {:.2} ms, p99 {:.2} ms; single node: p50 {:.2} ms, p99 {:.2} ms | p99 < 2 ms | {} |",
        remote.p50, remote.p99, remote.max, local.p50, local.p99, solo_echo.p50, solo_echo.p99,
        pass(remote.p99 < 2.0)
    ));

    // 5 (before 4, which leaves thousands of sessions behind).
    eprintln!(
        "== first frame: {first} sessions on A, opened on B (load {})",
        load()
    );
    let (mut remote_first, mut local_first) = bench.first_frames(first)?;
    let remote_p99 = percentile(&mut remote_first, 0.99);
    rows.push(format!(
        "| 5. first frame of a session on A opened on B (no mirror yet), {first} sessions | p50 {:.1} ms, **p99 {remote_p99:.1} ms** (max {:.1} ms); on A (local): p50 {:.1} ms, p99 {:.1} ms | p99 < 50 ms | {} |",
        percentile(&mut remote_first, 0.5),
        percentile(&mut remote_first, 1.0),
        percentile(&mut local_first, 0.5),
        percentile(&mut local_first, 0.99),
        pass(remote_p99 < 50.0)
    ));

    // 4. List.
    if sessions > 0 {
        eprintln!(
            "== list: {sessions} sessions over A, B, C (load {})",
            load()
        );
        let (timings, created) = bench.list(sessions, lists)?;
        rows.push(format!(
            "| 4. (for the record) creating the sessions, round-robin over A, B, C | {created} | - | - |"
        ));
        for (name, mut times) in timings {
            let p99 = percentile(&mut times, 0.99);
            rows.push(format!(
                "| 4. GET /api/sessions on {name}, {sessions} sessions ({} per node), {lists} lists | p50 {:.1} ms, **p99 {p99:.1} ms** | < 50 ms | {} |",
                sessions / 3,
                percentile(&mut times, 0.5),
                pass(p99 < 50.0)
            ));
        }
    }

    println!("| benchmark | result | target | |");
    println!("|---|---|---|---|");
    for row in rows {
        println!("{row}");
    }
    println!();
    println!(
        "(floods: medians of {rounds} rounds; load average at the end {})",
        load()
    );
    Ok(())
}

/// The `q` quantile (nearest rank) of `values`, in milliseconds.
fn percentile(values: &mut [f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    values[((values.len() as f64 * q).ceil() as usize).clamp(1, values.len()) - 1]
}

struct Bench {
    token: String,
    file: String,
    file_bytes: u64,
    monitor: SocketAddr,
    solo: SocketAddr,
    a: SocketAddr,
    b: SocketAddr,
    c: SocketAddr,
    cpu_pids: Vec<(String, u32)>,
    runtime: Runtime,
    /// Whether the servers take `"node"` in a create (a cluster that
    /// places sessions itself does; an older one refuses the field).
    name_nodes: std::cell::Cell<bool>,
}

/// One flood's numbers.
struct Flood {
    seconds: f64,
    /// The same, per node of the placement: its last viewer's last message.
    node_seconds: Vec<f64>,
    /// Viewers whose model ended equal to the owner's `/screen`.
    converged: usize,
    viewers: usize,
    /// Viewers that got the `Exit`.
    exits: usize,
    /// Messages and bytes the first viewer received.
    frames: u64,
    wire_bytes: u64,
    /// NATS's counters over the flood.
    nats_in: u64,
    nats_out: u64,
    nats_in_msgs: u64,
    nats_out_msgs: u64,
    slow_consumers: u64,
    /// Per NATS connection name: (in, out) bytes over the flood.
    by_connection: BTreeMap<String, (u64, u64)>,
    /// CPU seconds per process over the flood (this client's as "client").
    cpu: Vec<(String, f64)>,
    /// Share of the machine's CPU time (all cores) busy over the flood.
    busy_percent: f64,
    /// The first `Exit` any viewer received (about when the program ended).
    first_exit: f64,
}

impl Flood {
    fn describe(&self) -> String {
        format!(
            "{:.3} s (first Exit {:.3} s; last viewer per node {}), {}/{} converged, {} exits, first viewer {} frames {} bytes, NATS {} B in {} msgs, {} B out {} msgs, CPU s {}, machine {:.0}% busy; load {}",
            self.seconds,
            self.first_exit,
            self.node_seconds
                .iter()
                .map(|s| format!("{s:.3}"))
                .collect::<Vec<_>>()
                .join("/"),
            self.converged,
            self.viewers,
            self.exits,
            self.frames,
            self.wire_bytes,
            self.nats_in,
            self.nats_in_msgs,
            self.nats_out,
            self.nats_out_msgs,
            self.cpu
                .iter()
                .map(|(n, s)| format!("{n} {s:.2}"))
                .collect::<Vec<_>>()
                .join(", "),
            self.busy_percent,
            load()
        )
    }
}

/// Echo latencies in milliseconds.
struct Echo {
    p50: f64,
    p99: f64,
    max: f64,
}

/// NATS's counters at one moment.
struct NatsCounters {
    in_bytes: u64,
    out_bytes: u64,
    in_msgs: u64,
    out_msgs: u64,
    slow_consumers: u64,
    by_connection: BTreeMap<String, (u64, u64)>,
}

/// (busy, total) jiffies of the whole machine, from /proc/stat.
fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    let total: u64 = fields.iter().take(8).sum();
    // idle and iowait are the 4th and 5th.
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    (total - idle, total)
}

fn cpu_ticks(pid: u32) -> u64 {
    let path = if pid == 0 {
        "/proc/self/stat".to_owned()
    } else {
        format!("/proc/{pid}/stat")
    };
    std::fs::read_to_string(path)
        .ok()
        .and_then(|stat| {
            // Fields after the command (which may hold spaces): utime and
            // stime are the 12th and 13th after ") ".
            let rest = stat.rsplit_once(") ")?.1;
            let fields: Vec<&str> = rest.split(' ').collect();
            Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
        })
        .unwrap_or(0)
}

impl Bench {
    fn call(
        &self,
        addr: SocketAddr,
        method: &str,
        path: &str,
        body: Option<&str>,
    ) -> http::Response {
        let auth = format!("Bearer {}", self.token);
        http::http(
            addr,
            method,
            path,
            &[("Authorization", &auth)],
            body.map(str::as_bytes),
        )
    }

    fn create(
        &self,
        addr: SocketAddr,
        command: &[&str],
        size: Option<(u16, u16)>,
    ) -> Result<String, String> {
        let mut body = match size {
            Some((cols, rows)) => json!({ "command": command, "cols": cols, "rows": rows }),
            None => json!({ "command": command }),
        };
        // A cluster may start a session on any node unless told which: the
        // session is to be the node's own that the request goes to.
        let node = self.node_name(addr);
        if let (Some(node), true) = (node, self.name_nodes.get()) {
            body["node"] = json!(node);
        }
        let mut created = self.call(addr, "POST", "/api/sessions", Some(&body.to_string()));
        if created.status == 400 && created.body.contains("node") && self.name_nodes.get() {
            // A version that starts every session on the node asked.
            self.name_nodes.set(false);
            if let Some(map) = body.as_object_mut() {
                map.remove("node");
            }
            created = self.call(addr, "POST", "/api/sessions", Some(&body.to_string()));
        }
        if created.status != 201 {
            return Err(format!(
                "create on {addr} answered {}: {}",
                created.status, created.body
            ));
        }
        let view = created.json();
        if let (Some(node), Some(on)) = (node, view["node"].as_str()) {
            if on != node {
                return Err(format!("a session created on {node} started on {on}"));
            }
        }
        view["id"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| "no id in the answer".to_owned())
    }

    /// The cluster node name of `addr` (`None` for the single node).
    fn node_name(&self, addr: SocketAddr) -> Option<&'static str> {
        [(self.a, "A"), (self.b, "B"), (self.c, "C")]
            .into_iter()
            .find(|(a, _)| *a == addr)
            .map(|(_, name)| name)
    }

    fn type_text(&self, addr: SocketAddr, id: &str, text: &str) -> Result<(), String> {
        let body = json!({ "text": text }).to_string();
        let response = self.call(
            addr,
            "POST",
            &format!("/api/sessions/{id}/input"),
            Some(&body),
        );
        match response.status {
            204 => Ok(()),
            status => Err(format!("input answered {status}: {}", response.body)),
        }
    }

    fn listed(&self, addr: SocketAddr) -> Result<Vec<Value>, String> {
        let response = self.call(addr, "GET", "/api/sessions", None);
        if response.status != 200 {
            return Err(format!(
                "list on {addr} answered {}: {}",
                response.status, response.body
            ));
        }
        Ok(response.json()["sessions"]
            .as_array()
            .cloned()
            .unwrap_or_default())
    }

    /// Waits until `addr` lists every one of `ids`.
    fn wait_listed(&self, addr: SocketAddr, ids: &[String]) -> Result<(), String> {
        let start = Instant::now();
        loop {
            let listed = self.listed(addr)?;
            let known: std::collections::HashSet<&str> =
                listed.iter().filter_map(|s| s["id"].as_str()).collect();
            let missing = ids.iter().filter(|id| !known.contains(id.as_str())).count();
            if missing == 0 {
                return Ok(());
            }
            if start.elapsed() > LIMIT {
                return Err(format!("{addr} still misses {missing} sessions"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn nats(&self) -> Result<NatsCounters, String> {
        let varz = http::http(self.monitor, "GET", "/varz", &[], None).json();
        let connz = http::http(self.monitor, "GET", "/connz?limit=1000", &[], None).json();
        let mut by_connection = BTreeMap::new();
        for conn in connz["connections"].as_array().into_iter().flatten() {
            let name = conn["name"]
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| format!("cid {}", conn["cid"]));
            let entry = by_connection.entry(name).or_insert((0, 0));
            entry.0 += conn["in_bytes"].as_u64().unwrap_or(0);
            entry.1 += conn["out_bytes"].as_u64().unwrap_or(0);
        }
        Ok(NatsCounters {
            in_bytes: varz["in_bytes"].as_u64().ok_or("no in_bytes in /varz")?,
            out_bytes: varz["out_bytes"].as_u64().ok_or("no out_bytes in /varz")?,
            in_msgs: varz["in_msgs"].as_u64().unwrap_or(0),
            out_msgs: varz["out_msgs"].as_u64().unwrap_or(0),
            slow_consumers: varz["slow_consumers"].as_u64().unwrap_or(0),
            by_connection,
        })
    }

    /// A flood in a session on `owner`, with the view streams of
    /// `placement` ((node, count)) attached before it starts.
    fn flood(&self, owner: SocketAddr, placement: &[(SocketAddr, usize)]) -> Result<Flood, String> {
        let script = "read x; exec cat \"$0\"";
        let id = self.create(owner, &["sh", "-c", script, &self.file], Some((COLS, ROWS)))?;
        for (node, _) in placement {
            if *node != owner {
                self.wait_listed(*node, std::slice::from_ref(&id))?;
            }
        }
        let mut clients = Vec::new();
        for (n, (node, count)) in placement.iter().enumerate() {
            for _ in 0..*count {
                let mut client = self
                    .runtime
                    .block_on(ws::open(*node, &self.token, &id, "view"));
                self.runtime
                    .block_on(client.until("the first frame", LIMIT, |m| m.frames > 0));
                clients.push((n, client));
            }
        }
        type Reader = JoinHandle<(usize, ws::Client, Vec<Bytes>, Option<Instant>)>;
        let readers: Vec<Reader> = clients
            .into_iter()
            .map(|(n, mut client)| {
                self.runtime.spawn(async move {
                    let deadline = tokio::time::Instant::now() + LIMIT;
                    let mut messages = Vec::new();
                    let mut last = None;
                    while let Some(message) = client.next_raw(deadline).await {
                        messages.push(message);
                        last = Some(Instant::now());
                    }
                    (n, client, messages, last)
                })
            })
            .collect();

        let before = self.nats()?;
        let cpu_before: Vec<u64> = self.cpu_pids.iter().map(|(_, p)| cpu_ticks(*p)).collect();
        let machine_before = machine_ticks();
        let start = Instant::now();
        self.type_text(owner, &id, "\r")?;
        let mut results = Vec::new();
        for reader in readers {
            results.push(self.runtime.block_on(reader).map_err(|e| e.to_string())?);
        }
        let after = self.nats()?;
        let machine_after = machine_ticks();
        // SAFETY: sysconf only reads a constant of the system.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
        let cpu = self
            .cpu_pids
            .iter()
            .zip(cpu_before)
            .map(|((name, pid), t)| (name.clone(), (cpu_ticks(*pid) - t) as f64 / ticks))
            .collect();

        let screen = self
            .call(
                owner,
                "GET",
                &format!("/api/sessions/{id}/screen?format=json"),
                None,
            )
            .json();
        let mut flood = Flood {
            seconds: 0.0,
            node_seconds: vec![0.0; placement.len()],
            converged: 0,
            viewers: results.len(),
            exits: 0,
            frames: 0,
            wire_bytes: 0,
            nats_in: after.in_bytes - before.in_bytes,
            nats_out: after.out_bytes - before.out_bytes,
            nats_in_msgs: after.in_msgs - before.in_msgs,
            nats_out_msgs: after.out_msgs - before.out_msgs,
            slow_consumers: after.slow_consumers - before.slow_consumers,
            by_connection: after
                .by_connection
                .iter()
                .map(|(name, (i, o))| {
                    let (bi, bo) = before.by_connection.get(name).copied().unwrap_or((0, 0));
                    (name.clone(), (i.saturating_sub(bi), o.saturating_sub(bo)))
                })
                .collect(),
            cpu,
            busy_percent: 100.0 * (machine_after.0 - machine_before.0) as f64
                / (machine_after.1 - machine_before.1).max(1) as f64,
            first_exit: f64::INFINITY,
        };
        let mut node_screens = Vec::new();
        for (node, _) in placement {
            node_screens.push(
                self.call(
                    *node,
                    "GET",
                    &format!("/api/sessions/{id}/screen?format=json"),
                    None,
                )
                .json(),
            );
        }
        let mut misses = 0;
        for (i, (n, mut client, messages, last)) in results.into_iter().enumerate() {
            for message in &messages {
                client.model.apply(message)?;
            }
            let seconds = last.map_or(LIMIT.as_secs_f64(), |l| (l - start).as_secs_f64());
            flood.seconds = flood.seconds.max(seconds);
            flood.node_seconds[n] = flood.node_seconds[n].max(seconds);
            if client.model.exit.is_some() {
                flood.first_exit = flood.first_exit.min(seconds);
            }
            if i == 0 {
                flood.frames = client.model.frames;
                flood.wire_bytes = client.bytes;
            }
            if client.model.exit.is_some() {
                flood.exits += 1;
            }
            if same_screen(&client.model, &screen) {
                flood.converged += 1;
            } else {
                misses += 1;
                if misses <= 3 {
                    eprintln!(
                        "   viewer {i} (placement {n}) did not converge: {}; its node's /screen {} the owner's; closed {:?}, exit {:?}, errors {:?}, {} frames",
                        first_difference(&client.model, &screen),
                        if node_screens[n] == screen { "equals" } else { "DIFFERS from" },
                        client.closed,
                        client.model.exit,
                        client.model.errors,
                        client.model.frames
                    );
                }
            }
        }
        self.call(owner, "DELETE", &format!("/api/sessions/{id}"), None);
        Ok(flood)
    }

    /// Keystroke echo latency through a raw-mode `cat` owned by `owner`,
    /// typed on a control stream on `via`.
    fn echo(&self, owner: SocketAddr, via: SocketAddr, keys: usize) -> Result<Echo, String> {
        const WARM_UP: usize = 20;
        let cols = 80usize;
        let rows = (keys + WARM_UP).div_ceil(cols) + 2;
        let rows = u16::try_from(rows).map_err(|_| "too many keys".to_owned())?;
        let script = "stty raw -echo; printf 'ready\\r\\n'; exec cat";
        let id = self.create(
            owner,
            &["sh", "-c", script],
            Some((cols as u16, rows.max(3))),
        )?;
        if via != owner {
            self.wait_listed(via, std::slice::from_ref(&id))?;
        }
        let mut latencies = self.runtime.block_on(async {
            let mut client = ws::open(via, &self.token, &id, "control").await;
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
        self.call(owner, "DELETE", &format!("/api/sessions/{id}"), None);
        Ok(Echo {
            p50: percentile(&mut latencies, 0.50),
            p99: percentile(&mut latencies, 0.99),
            max: percentile(&mut latencies, 1.0),
        })
    }

    /// Time to the first frame of `n` sessions on A opened on B (none
    /// viewed there before), and of the same sessions opened on A.
    fn first_frames(&self, n: usize) -> Result<(Vec<f64>, Vec<f64>), String> {
        let mut ids = Vec::with_capacity(n);
        for k in 0..n {
            let script = "printf 'first frame %s\\r\\n' \"$0\"; exec cat";
            ids.push(self.create(self.a, &["sh", "-c", script, &k.to_string()], None)?);
        }
        self.wait_listed(self.b, &ids)?;
        // Every session has printed its line before a stream opens.
        for (k, id) in ids.iter().enumerate() {
            let want = format!("first frame {k}");
            let start = Instant::now();
            loop {
                let screen = self
                    .call(
                        self.a,
                        "GET",
                        &format!("/api/sessions/{id}/screen?format=json"),
                        None,
                    )
                    .json();
                if screen["lines"][0].as_str().map(str::trim_end) == Some(want.as_str()) {
                    break;
                }
                if start.elapsed() > LIMIT {
                    return Err(format!("session {id} did not print its line"));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let blank = std::cell::Cell::new(0usize);
        let time = |addr: SocketAddr, id: &str, k: usize| {
            self.runtime.block_on(async {
                let start = Instant::now();
                let mut client = ws::open(addr, &self.token, id, "view").await;
                client
                    .until("the first frame", LIMIT, |m| m.frames > 0)
                    .await;
                let ms = start.elapsed().as_secs_f64() * 1e3;
                // The first frame must already show the session's screen.
                if client.model.row_text(0) != format!("first frame {k}") {
                    blank.set(blank.get() + 1);
                }
                client.close().await;
                ms
            })
        };
        let mut remote = Vec::with_capacity(n);
        let mut local = Vec::with_capacity(n);
        for (k, id) in ids.iter().enumerate() {
            remote.push(time(self.b, id, k));
            local.push(time(self.a, id, k));
        }
        if blank.get() > 0 {
            return Err(format!(
                "{} first frames did not show the session's screen",
                blank.get()
            ));
        }
        for id in &ids {
            self.call(self.a, "DELETE", &format!("/api/sessions/{id}"), None);
        }
        Ok((remote, local))
    }

    /// `sessions` idle `cat` sessions, a third created on each node; then
    /// `lists` timed lists on each node, in milliseconds.
    #[allow(clippy::type_complexity)]
    fn list(
        &self,
        sessions: usize,
        lists: usize,
    ) -> Result<(Vec<(&'static str, Vec<f64>)>, String), String> {
        let nodes = [("A", self.a), ("B", self.b), ("C", self.c)];
        let mut ids = Vec::with_capacity(sessions);
        let mut creates = Vec::with_capacity(sessions);
        let start = Instant::now();
        for k in 0..sessions {
            let one = Instant::now();
            ids.push(self.create(nodes[k % 3].1, &["cat"], None)?);
            creates.push(one.elapsed().as_secs_f64() * 1e3);
            if (k + 1) % 500 == 0 {
                eprintln!(
                    "   {} created in {:.1} s (load {})",
                    k + 1,
                    start.elapsed().as_secs_f64(),
                    load()
                );
            }
        }
        let total = start.elapsed().as_secs_f64();
        let part = (sessions / 10).max(1);
        let mut first = creates[..part.min(sessions)].to_vec();
        let mut last = creates[sessions.saturating_sub(part)..].to_vec();
        let created = format!(
            "{sessions} created one after another in {total:.1} s; first {part}: p50 {:.1} ms, p99 {:.1} ms; last {part}: p50 {:.1} ms, p99 {:.1} ms",
            percentile(&mut first, 0.5),
            percentile(&mut first, 0.99),
            percentile(&mut last, 0.5),
            percentile(&mut last, 0.99)
        );
        let mut out = Vec::new();
        for (name, addr) in nodes {
            self.wait_listed(addr, &ids)?;
            // One untimed list first.
            self.listed(addr)?;
            let mut times = Vec::with_capacity(lists);
            for _ in 0..lists {
                let start = Instant::now();
                let listed = self.listed(addr)?;
                times.push(start.elapsed().as_secs_f64() * 1e3);
                if listed.len() < sessions {
                    return Err(format!(
                        "{name} lists {} sessions, not {sessions}",
                        listed.len()
                    ));
                }
            }
            out.push((name, times));
        }
        Ok((out, created))
    }
}

/// Where the model first differs from the screen JSON.
fn first_difference(model: &ws::Model, screen: &Value) -> String {
    let lines: Vec<String> = screen["lines"]
        .as_array()
        .map(|lines| {
            lines
                .iter()
                .map(|l| l.as_str().unwrap_or_default().trim_end().to_owned())
                .collect()
        })
        .unwrap_or_default();
    let text = model.text();
    let differing: Vec<usize> = (0..text.len().max(lines.len()))
        .filter(|&r| text.get(r) != lines.get(r))
        .collect();
    match differing.first() {
        Some(&r) => format!(
            "{} rows differ, first row {r}: model {:?} vs screen {:?}",
            differing.len(),
            text.get(r),
            lines.get(r)
        ),
        None => format!(
            "same text, cursor {:?} vs screen {}",
            (model.cursor.row, model.cursor.col),
            screen["cursor"]
        ),
    }
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

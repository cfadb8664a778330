//! Real clusters for the tests: Debian's `nats-server` with JetStream on
//! a temporary directory, configured by the documented
//! `deploy/cluster/nats.conf` as it is (one user, panecast's subjects
//! only), and `panecast serve --cluster` processes signing in as that
//! user and sealing with one bus key.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use panecast::cluster::ClusterConfig;

use super::process::startup_line;

/// The node TTL the tests run with: short so that a killed node leaves
/// soon, long enough that a live node starved on a loaded machine (three
/// refreshes per TTL) is not taken for dead. One run at load 7 with 2 s
/// lost node A from the list once.
pub const TTL_S: u64 = 3;

/// A loopback port nothing listens on, below the kernel's ephemeral range.
///
/// A port from `bind(":0")` is free only until the kernel hands it out
/// again, to a listener or as the local end of a connection, which it may
/// do before nats-server binds it or while nats-server restarts. The kernel
/// never picks a port below the ephemeral range by itself, so there a port
/// stays ours: each call of this process takes the next one, from an
/// offset of its own, and skips any that something holds.
pub fn quiet_port() -> u16 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    const SPAN: u32 = 8_000;
    let below = ephemeral_low().saturating_sub(SPAN).max(1_024);
    let offset = std::process::id().wrapping_mul(613);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        // `below + SPAN` is at most the range's low end, a u16.
        let port = u16::try_from(below + (offset.wrapping_add(n) % SPAN)).expect("under 65536");
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// The lowest port the kernel picks by itself (Linux's default when it
/// does not say).
fn ephemeral_low() -> u32 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

/// A temporary directory removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(what: &str) -> TempDir {
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "panecast-cluster-{what}-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).expect("make a temporary directory");
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The documented NATS configuration, run as it is.
pub const NATS_CONF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/cluster/nats.conf");

/// `nats-server -c deploy/cluster/nats.conf -js` on a free loopback port,
/// killed when dropped; with the nkey seed of its one user and the bus key
/// the nodes of a test share, each in a file of its own (0600).
pub struct Nats {
    pub child: Child,
    pub url: String,
    port: u16,
    store: TempDir,
    /// The public key of its user.
    user: String,
}

impl Nats {
    /// Starts one, or `None` (after saying so) when `nats-server` is not
    /// installed; under `CI=true`, where the test command installs it,
    /// its absence fails the test instead.
    pub fn start() -> Option<Nats> {
        if Command::new("nats-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_err()
        {
            let why = "nats-server is not installed (tests/run.sh installs it)";
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "this test cannot run here (CI=true): {why}"
            );
            eprintln!("skipped: {why}");
            return None;
        }
        let store = TempDir::new("nats");
        let pair = nkeys::KeyPair::new_user();
        private_file(&store.0.join("nats.nk"), &pair.seed().expect("a seed"));
        private_file(
            &store.0.join("cluster.key"),
            &panecast::random::hex128().expect("randomness").repeat(2),
        );
        let user = pair.public_key();
        // A process outside this one may hold the port between our check
        // and nats-server's bind: then it exits, and the next port serves.
        let (child, port) = std::iter::repeat_with(quiet_port)
            .take(5)
            .find_map(|port| Some((spawn_nats(port, &store.0, &user)?, port)))
            .expect("nats-server listened on none of five free ports");
        Some(Nats {
            child,
            url: format!("nats://127.0.0.1:{port}"),
            port,
            store,
            user,
        })
    }

    /// Kills it and starts it again on the same port and store, as a
    /// restart does.
    pub fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = spawn_nats(self.port, &self.store.0, &self.user)
            .unwrap_or_else(|| panic!("nats-server did not listen again on {}", self.port));
    }

    /// The `[cluster]` section every node of a test uses: the bus key, the
    /// user's seed, the short TTL.
    pub fn cluster_config(&self) -> ClusterConfig {
        ClusterConfig {
            key_file: Some(self.key_file()),
            nkey_seed_file: Some(self.seed_file()),
            node_ttl_s: Some(TTL_S),
            ..ClusterConfig::default()
        }
    }

    /// The file of the bus key the nodes of a test share.
    pub fn key_file(&self) -> PathBuf {
        self.store.0.join("cluster.key")
    }

    /// The file of its user's nkey seed.
    pub fn seed_file(&self) -> PathBuf {
        self.store.0.join("nats.nk")
    }

    /// [`Nats::cluster_config`] as the `[cluster]` section of a file.
    pub fn cluster_section(&self) -> String {
        format!(
            "[cluster]\nnode_ttl_s = {TTL_S}\nkey_file = {:?}\nnkey_seed_file = {:?}\n",
            self.key_file().display().to_string(),
            self.seed_file().display().to_string()
        )
    }

    /// A config file in `dir` with the tests' `[cluster]` section.
    pub fn config_file(&self, dir: &Path) -> PathBuf {
        let path = dir.join("panecast.toml");
        std::fs::write(&path, self.cluster_section()).expect("write config");
        path
    }
}

/// Writes `text` to a new file at `path` only its owner may read.
pub fn private_file(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).expect("write a secret");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).expect("chmod 600");
}

/// `nats-server` with the documented configuration on loopback port
/// `port` with its store in `store`, its one user the nkey `user`, once it
/// listens, or `None` when it exited instead (the port was taken).
///
/// That it listens is known from the ports file nats-server writes, named
/// by its pid, once its listeners are up: a connection to the port could
/// reach another process's listener, or the probing socket itself.
fn spawn_nats(port: u16, store: &Path, user: &str) -> Option<Child> {
    let ports_dir = store.join("ports");
    let _ = std::fs::remove_dir_all(&ports_dir);
    std::fs::create_dir_all(&ports_dir).expect("make the ports file directory");
    let mut child = Command::new("nats-server")
        .args(["-c", NATS_CONF])
        .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
        .arg(store)
        .arg("--ports_file_dir")
        .arg(&ports_dir)
        .env("PANECAST_NATS_NKEY", user)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(store.join("nats.log")).expect("a log file"))
        .spawn()
        .expect("start nats-server");
    let ports_file = ports_dir.join(format!("nats-server_{}.ports", child.id()));
    let listed = format!(":{port}\"");
    let start = Instant::now();
    loop {
        if let Ok(ports) = std::fs::read_to_string(&ports_file) {
            if ports.contains(&listed) {
                return Some(child);
            }
        }
        if child.try_wait().expect("nats-server's status").is_some() {
            let log = std::fs::read_to_string(store.join("nats.log")).unwrap_or_default();
            eprintln!("nats-server on port {port} exited: {log}");
            return None;
        }
        assert!(
            start.elapsed() < super::DEADLINE,
            "nats-server did not listen"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// `panecast serve --cluster URL --node NODE` as a child process, and
/// where it listens.
pub fn serve_node(url: &str, node: &str, config: &Path) -> (Child, SocketAddr) {
    serve_node_with(url, node, config, &["--allow-any-command"], None)
}

/// [`serve_node`] with `args` instead of `--allow-any-command`, and its
/// log (standard error) in the file `log` when given.
pub fn serve_node_with(
    url: &str,
    node: &str,
    config: &Path,
    args: &[&str],
    log: Option<&Path>,
) -> (Child, SocketAddr) {
    let stderr = match log {
        Some(path) => Stdio::from(std::fs::File::create(path).expect("a log file")),
        None => Stdio::null(),
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_panecast"))
        .args(["serve", "--listen", "127.0.0.1:0", "--token", super::TOKEN])
        .args(args)
        .args(["--cluster", url, "--node", node, "--config"])
        .arg(config)
        .env_remove("PANECAST_CLUSTER")
        .env_remove("PANECAST_NODE")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("start panecast serve --cluster");
    let (line, addr) = startup_line(&mut child);
    assert!(!line.is_empty(), "node {node} exited before listening");
    (child, addr.expect("the listening address"))
}

/// A request to the node at `addr` with the admin token: the status and
/// the body as JSON (or `null`).
pub fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<serde_json::Value>,
) -> (u16, serde_json::Value) {
    let auth = format!("Bearer {}", super::TOKEN);
    let body = body.map(|b| b.to_string());
    let response = super::http(
        addr,
        method,
        path,
        &[("Authorization", &auth)],
        body.as_deref().map(str::as_bytes),
    );
    let json = serde_json::from_str(&response.body).unwrap_or(serde_json::Value::Null);
    (response.status, json)
}

/// Sends `signal` to child `child`.
pub fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: kill(2) on our own child's pid.
    let sent = unsafe { libc::kill(child.id() as i32, signal) };
    assert_eq!(sent, 0, "kill({}, {signal})", child.id());
}

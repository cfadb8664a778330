//! Real clusters for the tests: Debian's `nats-server` with JetStream on
//! a temporary directory, and `panecast serve --cluster` processes.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use panecast::cluster::ClusterConfig;

use super::process::startup_line;

/// The node TTL the tests run with: short so that a killed node leaves
/// soon, long enough that a live node starved on a loaded machine (three
/// refreshes per TTL) is not taken for dead. One run at load 7 with 2 s
/// lost node A from the list once.
pub const TTL_S: u64 = 3;

/// A port nothing listens on at the moment.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port");
    listener.local_addr().expect("its address").port()
}

/// A temporary directory removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(what: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!(
            "panecast-cluster-{what}-{}-{}",
            std::process::id(),
            free_port()
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

/// `nats-server -js` on a free loopback port, killed when dropped.
pub struct Nats {
    pub child: Child,
    pub url: String,
    port: u16,
    store: TempDir,
}

impl Nats {
    /// Starts one, or `None` (after saying so) when `nats-server` is not
    /// installed.
    pub fn start() -> Option<Nats> {
        if Command::new("nats-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_err()
        {
            eprintln!("skipped: nats-server is not installed (tests/run.sh installs it)");
            return None;
        }
        let store = TempDir::new("nats");
        let port = free_port();
        let child = spawn_nats(port, &store.0);
        Some(Nats {
            child,
            url: format!("nats://127.0.0.1:{port}"),
            port,
            store,
        })
    }

    /// Kills it and starts it again on the same port and store, as a
    /// restart does.
    pub fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = spawn_nats(self.port, &self.store.0);
    }
}

/// `nats-server -js` on loopback port `port` with its store in `store`,
/// once it listens.
fn spawn_nats(port: u16, store: &Path) -> Child {
    let child = Command::new("nats-server")
        .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
        .arg(store)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start nats-server");
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let start = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(
            start.elapsed() < super::DEADLINE,
            "nats-server did not listen"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `[cluster]` section every node of a test uses.
pub fn cluster_config() -> ClusterConfig {
    ClusterConfig {
        node_ttl_s: Some(TTL_S),
        ..ClusterConfig::default()
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// A config file with the tests' `[cluster]` section.
pub fn config_file(dir: &Path) -> PathBuf {
    let path = dir.join("panecast.toml");
    std::fs::write(&path, format!("[cluster]\nnode_ttl_s = {TTL_S}\n")).expect("write config");
    path
}

/// `panecast serve --cluster URL --node NODE` as a child process, and
/// where it listens.
pub fn serve_node(url: &str, node: &str, config: &Path) -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_panecast"))
        .args(["serve", "--listen", "127.0.0.1:0", "--token", super::TOKEN])
        .arg("--allow-any-command")
        .args(["--cluster", url, "--node", node, "--config"])
        .arg(config)
        .env_remove("PANECAST_CLUSTER")
        .env_remove("PANECAST_NODE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start panecast serve --cluster");
    let (line, addr) = startup_line(&mut child);
    assert!(!line.is_empty(), "node {node} exited before listening");
    (child, addr.expect("the listening address"))
}

/// Sends `signal` to child `child`.
pub fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: kill(2) on our own child's pid.
    let sent = unsafe { libc::kill(child.id() as i32, signal) };
    assert_eq!(sent, 0, "kill({}, {signal})", child.id());
}

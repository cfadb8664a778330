//! The workspace's `netsim` (tools/netsim) between a test's clients and its
//! server: started on a free port with a profile, driven by its stdin
//! commands. The binary is the one `cargo test --workspace` built beside
//! this test's own; without it the test fails and says how to build it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How long netsim may take to start or answer before the test calls it
/// hung (it answers in microseconds).
const HANG: Duration = Duration::from_secs(30);

/// A running netsim.
pub struct Netsim {
    _child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    /// Where clients connect.
    pub addr: SocketAddr,
}

/// The built `netsim` beside this test binary (`target/<profile>/netsim`).
fn binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps/<test>");
    let path = dir.join("netsim");
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build -p panecast-netsim` \
         (`cargo test --workspace` does)",
        path.display()
    );
    path
}

impl Netsim {
    /// netsim in front of `upstream`, with `profile` (`lan`, `broadband`,
    /// `mobile`, `satellite`) and a fixed seed.
    pub async fn start(upstream: SocketAddr, profile: &str) -> Netsim {
        let mut child = Command::new(binary())
            .args([
                "--listen",
                "127.0.0.1:0",
                "--seed",
                "7",
                "--profile",
                profile,
            ])
            .arg("--upstream")
            .arg(upstream.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("netsim starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let mut netsim = Netsim {
            _child: child,
            stdin,
            stdout,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        };
        let banner = netsim.line().await;
        let rest = banner
            .strip_prefix("netsim listening on ")
            .unwrap_or_else(|| panic!("netsim's first line: {banner:?}"));
        let addr = rest.split(' ').next().expect("split yields one item");
        netsim.addr = addr.parse().expect("a socket address");
        netsim
    }

    async fn line(&mut self) -> String {
        tokio::time::timeout(HANG, self.stdout.next_line())
            .await
            .expect("netsim answers")
            .expect("netsim's stdout reads")
            .expect("netsim still runs")
    }

    /// Sends a command (`blackhole 5`, `reset`, `profile lan`, `stats`) and
    /// returns its answer, which must start with `ok`.
    pub async fn command(&mut self, command: &str) -> String {
        self.stdin
            .write_all(format!("{command}\n").as_bytes())
            .await
            .expect("netsim reads stdin");
        self.stdin.flush().await.expect("netsim reads stdin");
        // netsim says when a blackhole ends on its own: not an answer.
        let mut answer = self.line().await;
        while answer == "blackhole over" {
            answer = self.line().await;
        }
        assert!(answer.starts_with("ok"), "{command}: {answer}");
        answer
    }
}

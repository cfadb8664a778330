//! Running the built `netsim` and talking to it as other tests will: flags on
//! the command line, commands on stdin, answers and the listening address on
//! stdout. Plus the upstream servers and data the tests use.

use std::future::Future;
use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How long any one step may take before the test calls it hung. Not a
/// measure of speed: every step here takes well under a second unless
/// something is broken, and a hang would otherwise never end.
const HANG: Duration = Duration::from_secs(60);

/// Awaits `future`, failing the test if it takes longer than [`HANG`].
pub async fn within<F: Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(HANG, future)
        .await
        .unwrap_or_else(|_| panic!("{what}: nothing after {HANG:?}"))
}

/// A running netsim.
pub struct Netsim {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    /// Where it listens, read from its first line.
    pub address: SocketAddr,
    /// Its first line.
    pub banner: String,
}

impl Netsim {
    /// Starts netsim on a free loopback port in front of `upstream`, with
    /// more `flags`, and reads its first line.
    pub async fn start(upstream: SocketAddr, flags: &[&str]) -> Netsim {
        let mut child = Command::new(env!("CARGO_BIN_EXE_netsim"))
            .args(["--listen", "127.0.0.1:0", "--upstream"])
            .arg(upstream.to_string())
            .args(flags)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("netsim starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let mut netsim = Netsim {
            child,
            stdin,
            stdout,
            address: SocketAddr::from(([0, 0, 0, 0], 0)),
            banner: String::new(),
        };
        netsim.banner = netsim.line().await;
        let rest = netsim
            .banner
            .strip_prefix("netsim listening on ")
            .unwrap_or_else(|| panic!("first line: {:?}", netsim.banner));
        let address = rest.split(' ').next().expect("split yields one item");
        netsim.address = address.parse().expect("a socket address");
        netsim
    }

    /// The next line on stdout.
    pub async fn line(&mut self) -> String {
        within("a line from netsim", self.stdout.next_line())
            .await
            .expect("stdout reads")
            .expect("netsim still writes")
    }

    /// Sends one command and returns the line that answers it.
    pub async fn command(&mut self, command: &str) -> String {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin
            .write_all(format!("{command}\n").as_bytes())
            .await
            .expect("netsim reads stdin");
        stdin.flush().await.expect("netsim reads stdin");
        self.line().await
    }

    /// Closes netsim's stdin.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The process, to signal or wait for.
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// A new client connection through netsim.
    pub async fn connect(&self) -> TcpStream {
        within("connecting to netsim", TcpStream::connect(self.address))
            .await
            .expect("netsim accepts")
    }

    /// The counters, as `stats` answers them: open, total, up, down.
    pub async fn stats(&mut self) -> [u64; 4] {
        let answer = self.command("stats").await;
        let values: Vec<u64> = answer
            .strip_prefix("ok ")
            .unwrap_or_else(|| panic!("stats answered {answer:?}"))
            .split(' ')
            .map(|field| {
                let (_, value) = field.split_once('=').expect("name=value");
                value.parse().expect("a count")
            })
            .collect();
        values.try_into().expect("four counters")
    }
}

/// A loopback listener for an upstream the test drives by hand.
pub async fn upstream() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind upstream");
    let address = listener.local_addr().expect("bound address");
    (listener, address)
}

/// Accepts one connection on `listener`.
pub async fn accept(listener: &TcpListener) -> TcpStream {
    within("upstream accepting", listener.accept())
        .await
        .expect("accept")
        .0
}

/// An upstream that sends back whatever it reads, and closes its sending
/// side when the reading side ends.
pub async fn echo_server() -> SocketAddr {
    let (listener, address) = upstream().await;
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let (mut from, mut to) = stream.split();
                if tokio::io::copy(&mut from, &mut to).await.is_ok() {
                    let _ = to.shutdown().await;
                }
            });
        }
    });
    address
}

/// A small seeded generator for test data (xorshift64*).
pub struct Noise(u64);

impl Noise {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Noise {
        Noise(seed | 1)
    }

    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `low..=high`.
    pub fn between(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low + 1) as u64) as usize
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

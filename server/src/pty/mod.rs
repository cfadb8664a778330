//! Children in pseudo-terminals: spawning as the session's user
//! ([`spawn`](self::spawn) module), the master's input and output on the
//! one pty event loop ([`io`] module: one non-blocking master per session,
//! no thread of its own), one process-wide reaper woken by `SIGCHLD`
//! ([`reaper`] module), signals to the child's process group while it is
//! unreaped, and the session's sandbox ([`Isolation`]) that ends every
//! process it started.
//! A running child in an existing master is taken in with [`adopt`] (how
//! an upgraded server takes back its programs); [`Pty::pause`] stops the
//! I/O without losing a byte, for the hand-over.
//!
//! The output is not read while the session's channel is full, so a slow
//! consumer makes the child block on write: memory stays flat however fast
//! the child prints. Input goes through a bounded queue written whenever
//! the master is writable, so the session never blocks on a child that
//! does not read.

mod cgroup;
mod env;
mod helper;
mod io;
mod leftovers;
mod reaper;
mod sandbox;
mod spawn;
mod uids;

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

pub use env::child_env;
pub use helper::{fork_worker, run_helper, HelperEnd};
pub use io::READ_BUFFER;
pub use leftovers::{become_subreaper, kill_leftovers, reap_orphans, MARKER};
pub use reaper::{claim_programs, ChildState, ExitStatus};
pub use sandbox::{EnterError, Isolation, Mode, Sandbox, SavedSandbox, User};
pub use spawn::Identity;

/// Chunks of output queued between the output task and the session.
pub const OUTPUT_QUEUE: usize = 4;
/// Writes queued for the input task before input is refused.
pub const INPUT_QUEUE: usize = 64;

/// What to run, where, and at which size.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SpawnSpec {
    /// Program and arguments; the program is looked up in the `PATH` of `env`.
    pub argv: Vec<String>,
    /// The child's whole environment (see [`child_env`]).
    pub env: Vec<(String, String)>,
    /// Working directory; `None`: the `HOME` of `env`.
    pub cwd: Option<PathBuf>,
    /// The user to run as; `None`: the server's.
    pub identity: Option<Identity>,
    /// The `cgroup.procs` file of the cgroup the child joins before exec.
    pub cgroup_procs: Option<PathBuf>,
    /// Width in columns.
    pub cols: u16,
    /// Height in rows.
    pub rows: u16,
}

/// A child could not be started.
#[derive(Debug, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error("cannot start {program}: {reason}")]
pub struct SpawnError {
    /// The program.
    pub program: String,
    /// Why.
    pub reason: String,
    /// What the system ran short of, when that is why.
    pub short_of: Option<Shortage>,
}

/// A resource of the system that can run short when starting a child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Shortage {
    /// Open files: the server's (`EMFILE`) or the system's (`ENFILE`).
    Descriptors,
    /// Processes: no pid, or a process limit (`EAGAIN` from fork).
    Processes,
    /// Pseudo-terminals (`ENOSPC` from opening one: `kernel.pty.max`).
    Terminals,
}

impl Shortage {
    /// The shortage `error` reports, if it reports one.
    pub fn of(error: &std::io::Error) -> Option<Shortage> {
        match error.raw_os_error()? {
            libc::EMFILE | libc::ENFILE => Some(Shortage::Descriptors),
            libc::EAGAIN => Some(Shortage::Processes),
            libc::ENOSPC => Some(Shortage::Terminals),
            _ => None,
        }
    }
}

/// How the child's terminal treats what is typed: its line discipline's
/// `ECHO` and `ICANON` flags, as `tcgetattr` on the master reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct LineDiscipline {
    /// The terminal echoes what is typed.
    pub echo: bool,
    /// The terminal edits a line before the program reads it (cooked
    /// mode); off in raw mode, where the program echoes for itself.
    pub canonical: bool,
}

/// Input could not be queued for the child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The writer's queue is full: the child is not reading its input.
    #[error("the program is not reading its input")]
    Busy,
    /// The writer has stopped: the child's terminal is gone.
    #[error("the program's terminal is closed")]
    Closed,
}

/// The session's side of a running child: its terminal, its input queue and
/// its process groups. Dropping it ends the input and output tasks and
/// closes the master, its one descriptor.
pub struct Pty {
    master: io::Master,
    child: Arc<ChildState>,
    /// The input queue and the tasks; `None` while paused.
    io: Option<Io>,
    /// Counts the output task's waits for a session that is behind.
    waits: Arc<AtomicU64>,
}

/// The input and output of a pty that is not paused.
struct Io {
    input: mpsc::Sender<Vec<u8>>,
    tasks: io::Tasks,
}

/// What the child produces: output chunks (the channel closes at end of
/// file) and, once, its exit status.
pub struct PtyEvents {
    /// Output in chunks of up to 64 KiB.
    pub output: mpsc::Receiver<Vec<u8>>,
    /// The exit status, sent when the child has been reaped.
    pub exit: oneshot::Receiver<ExitStatus>,
}

/// Starts `spec` in a new pty. Blocks briefly (fork and exec): call it from
/// a blocking context.
/// `waits` counts the output task's waits for a session that is behind.
pub fn spawn(spec: &SpawnSpec, waits: Arc<AtomicU64>) -> Result<(Pty, PtyEvents), SpawnError> {
    let program = spec.argv.first().cloned().unwrap_or_default();
    let fail = |reason: String| SpawnError {
        program: program.clone(),
        reason,
        short_of: None,
    };
    if program.is_empty() {
        return Err(fail("the command is empty".to_owned()));
    }
    let home = spec
        .env
        .iter()
        .find(|(name, _)| name == "HOME")
        .map_or("/", |(_, home)| home.as_str());
    let child = spawn::Child {
        argv: &spec.argv,
        env: &spec.env,
        cwd: spec.cwd.as_deref().unwrap_or(Path::new(home)),
        size: (spec.cols, spec.rows),
        identity: spec.identity.as_ref(),
        cgroup_procs: spec.cgroup_procs.as_deref(),
    };
    let io_err = |e: std::io::Error| SpawnError {
        program: program.clone(),
        reason: e.to_string(),
        short_of: Shortage::of(&e),
    };
    // The reaper runs before the child exists, so no failure can leave a
    // child unreaped.
    start_reaper().map_err(io_err)?;
    // The orphan reaper must never reap a program: the pid is registered
    // before it can look again.
    let mut programs = reaper::programs();
    let (master, pid) = spawn::spawn(&child).map_err(io_err)?;
    let registered = reaper::register(&mut programs, pid);
    drop(programs);
    start(master, registered, waits).map_err(io_err)
}

/// Takes over `pid`, a running child of this process (or one that has
/// exited unreaped), whose terminal is `master`: registers it with the
/// reaper and starts its input and output on the pty event loop. For
/// programs started by an earlier server image (an upgrade): call it
/// before anything reaps orphans (or claim it first with
/// [`claim_programs`]), or the program's status may be lost. On failure
/// the child's process group is killed (and reaped).
/// `waits` counts the output task's waits for a session that is behind.
pub fn adopt(
    master: OwnedFd,
    pid: libc::pid_t,
    waits: Arc<AtomicU64>,
) -> std::io::Result<(Pty, PtyEvents)> {
    start_reaper()?;
    let registered =
        reaper::claimed(pid).unwrap_or_else(|| reaper::register(&mut reaper::programs(), pid));
    start(master, registered, waits)
}

/// Starts the one reaper on the emulator pool, if it does not run yet.
fn start_reaper() -> std::io::Result<()> {
    let _pool = crate::pool::handle()?.enter();
    reaper::start()
}

/// Starts the input and output of a registered child's `master` on the
/// pty event loop; kills the child's group if that fails.
fn start(
    master: OwnedFd,
    (child, exit): reaper::Registered,
    waits: Arc<AtomicU64>,
) -> std::io::Result<(Pty, PtyEvents)> {
    let registered = crate::pool::io_handle().and_then(|io| {
        let _io = io.enter();
        io::register(master)
    });
    let master = match registered {
        Ok(master) => master,
        Err(e) => {
            // Reaped by the reaper, which knows the child.
            child.signal_group(libc::SIGKILL);
            return Err(e);
        }
    };
    let mut pty = Pty {
        master,
        child,
        io: None,
        waits,
    };
    match pty.resume() {
        Ok(output) => Ok((pty, PtyEvents { output, exit })),
        Err(e) => {
            pty.child.signal_group(libc::SIGKILL);
            Err(e)
        }
    }
}

impl Pty {
    /// The child's process id, which is also its process group and session id.
    pub fn pid(&self) -> u32 {
        self.child.pid().unsigned_abs()
    }

    /// The child's state, which outlives the terminal: signals and the
    /// session's sweep go through it.
    pub fn child(&self) -> Arc<ChildState> {
        Arc::clone(&self.child)
    }

    /// The master's descriptor number, to hand it over across an upgrade.
    pub fn master_fd(&self) -> RawFd {
        self.master.as_raw_fd()
    }

    /// Stops reading and writing the master: the output task sends what
    /// it had read and ends (the output channel then closes once drained;
    /// the rest of the output stays in the kernel's buffer), and the input
    /// task ends. Returns the input queued and not yet written, in order.
    /// The session must go on draining the output channel meanwhile.
    pub async fn pause(&mut self) -> Vec<u8> {
        let Some(Io { input, tasks }) = self.io.take() else {
            return Vec::new();
        };
        let rest = tasks.stop().await;
        // Closed only now, so the input task saw the stop, not the end.
        drop(input);
        rest
    }

    /// Starts reading and writing the master (again, after [`Pty::pause`]):
    /// returns the new output channel.
    pub fn resume(&mut self) -> std::io::Result<mpsc::Receiver<Vec<u8>>> {
        let (output_tx, output) = mpsc::channel(OUTPUT_QUEUE);
        let (input, input_rx) = mpsc::channel(INPUT_QUEUE);
        let tasks = {
            // The event loop runs: the master is registered with it.
            let _io = crate::pool::io_handle()?.enter();
            io::start(&self.master, output_tx, input_rx, Arc::clone(&self.waits))
        };
        self.io = Some(Io { input, tasks });
        Ok(output)
    }

    /// Queues bytes for the child without blocking.
    pub fn write(&self, bytes: Vec<u8>) -> Result<(), InputError> {
        use mpsc::error::TrySendError;
        if bytes.is_empty() {
            return Ok(());
        }
        let io = self.io.as_ref().ok_or(InputError::Busy)?;
        io.input.try_send(bytes).map_err(|e| match e {
            TrySendError::Full(_) => InputError::Busy,
            TrySendError::Closed(_) => InputError::Closed,
        })
    }

    /// The terminal's line discipline now; `None` when it cannot be read
    /// (the terminal is gone).
    pub fn line_discipline(&self) -> Option<LineDiscipline> {
        let mut termios = std::mem::MaybeUninit::<libc::termios>::uninit();
        // SAFETY: tcgetattr writes a whole termios on success, and the
        // master is an open terminal descriptor while `self` lives.
        let read = unsafe { libc::tcgetattr(self.master.as_raw_fd(), termios.as_mut_ptr()) };
        if read != 0 {
            return None;
        }
        // SAFETY: tcgetattr returned 0: the struct is initialised.
        let termios = unsafe { termios.assume_init() };
        Some(LineDiscipline {
            echo: termios.c_lflag & libc::ECHO != 0,
            canonical: termios.c_lflag & libc::ICANON != 0,
        })
    }

    /// Sets the terminal size; the kernel sends the foreground group SIGWINCH.
    pub fn resize(&self, cols: u16, rows: u16) -> Result<(), String> {
        spawn::set_size(self.master.get_ref(), cols, rows).map_err(|e| e.to_string())
    }

    /// Sends SIGHUP to the child's process group, if the child is not yet
    /// reaped. The kernel hangs up the terminal's foreground group when the
    /// child, its session leader, exits; the session's sweep ends the rest.
    pub fn hang_up(&self) {
        self.child.signal_group(libc::SIGHUP);
    }

    /// Sends SIGKILL to the child's process group, if the child is not yet
    /// reaped.
    pub fn kill(&self) {
        self.child.signal_group(libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(argv: &[&str]) -> SpawnSpec {
        SpawnSpec {
            argv: argv.iter().map(|&a| a.to_owned()).collect(),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            cwd: Some("/".into()),
            identity: None,
            cgroup_procs: None,
            cols: 80,
            rows: 24,
        }
    }

    async fn start(argv: &[&str]) -> (Pty, PtyEvents) {
        let spec = spec(argv);
        tokio::task::spawn_blocking(move || spawn(&spec, Arc::default()))
            .await
            .expect("spawned")
            .expect("spawn")
    }

    /// Reads output until it holds `text`.
    async fn wait_for(events: &mut PtyEvents, text: &str) {
        let mut seen = Vec::new();
        while !String::from_utf8_lossy(&seen).contains(text) {
            let chunk = events.output.recv().await.expect("output before the end");
            seen.extend_from_slice(&chunk);
        }
    }

    #[tokio::test]
    async fn the_line_discipline_is_read_as_the_program_sets_it() {
        let (pty, mut events) = start(&[
            "sh",
            "-c",
            "stty -echo; echo quiet; read x; stty raw echo; echo raw; exec sleep 1000",
        ])
        .await;
        wait_for(&mut events, "quiet").await;
        assert_eq!(
            pty.line_discipline(),
            Some(LineDiscipline {
                echo: false,
                canonical: true
            }),
            "a password prompt"
        );
        pty.write(b"x\n".to_vec()).expect("queued");
        wait_for(&mut events, "raw").await;
        assert_eq!(
            pty.line_discipline(),
            Some(LineDiscipline {
                echo: true,
                canonical: false
            }),
            "raw, echoing"
        );
        pty.kill();
        assert!(events.exit.await.is_ok(), "reaped");
    }

    #[tokio::test]
    async fn pausing_hands_back_the_input_not_written_and_stops_reading() {
        // Reads nothing: its input stays queued.
        let (mut pty, mut events) = start(&["sleep", "30"]).await;
        let chunks: Vec<Vec<u8>> = (0..INPUT_QUEUE)
            .map(|i| vec![b'a' + (i % 26) as u8; 4096])
            .collect();
        for chunk in &chunks {
            pty.write(chunk.clone()).expect("queued");
        }
        let all: Vec<u8> = chunks.concat();
        let rest = pty.pause().await;
        assert!(
            !rest.is_empty(),
            "a program that reads nothing cannot take 256 KiB"
        );
        assert!(
            all.ends_with(&rest),
            "what is handed back is the end of the input, in order"
        );
        assert_eq!(pty.write(b"x".to_vec()), Err(InputError::Busy), "paused");
        // The output task has ended: its channel closes once drained.
        while events.output.recv().await.is_some() {}
        let output = pty.resume().expect("resume");
        pty.write(rest).expect("the rest queued again");
        pty.kill();
        drop(output);
        assert!(events.exit.await.is_ok(), "reaped");
    }

    #[tokio::test]
    async fn input_to_a_program_gone_from_a_full_terminal_ends_the_input_task() {
        // Raw mode: the terminal keeps what the program does not read.
        let (pty, mut events) =
            start(&["sh", "-c", "stty raw -echo; echo ready; exec sleep 1000"]).await;
        let mut seen = Vec::new();
        while !String::from_utf8_lossy(&seen).contains("ready") {
            seen.extend(events.output.recv().await.expect("ready"));
        }
        while pty.write(vec![b'x'; 8192]).is_ok() {}
        pty.kill();
        events.exit.await.expect("reaped");
        // The master is hung up with input left: the input task must end
        // (a closed state never clears, so waiting for room spun forever).
        let io = pty.io.as_ref().expect("not paused");
        let ended = tokio::time::timeout(std::time::Duration::from_secs(10), io.input.closed());
        assert!(ended.await.is_ok(), "the input task ended");
    }

    #[tokio::test]
    async fn output_across_a_pause_is_read_once_in_order() {
        let (mut pty, mut events) = start(&["seq", "1", "100000"]).await;
        let mut read = Vec::new();
        // Some of it before the pause, the program still printing.
        for _ in 0..3 {
            read.extend(events.output.recv().await.expect("output"));
        }
        let paused = pty.pause();
        // The channel is drained meanwhile, as a session does.
        let (_, ()) = tokio::join!(paused, async {
            while let Some(chunk) = events.output.recv().await {
                read.extend(chunk);
            }
        });
        let mut output = pty.resume().expect("resume");
        while let Some(chunk) = output.recv().await {
            read.extend(chunk);
        }
        let text = String::from_utf8(read)
            .expect("digits")
            .replace("\r\n", "\n");
        let expected: String = (1..=100_000).map(|n| format!("{n}\n")).collect();
        assert!(text == expected, "every line once, in order");
        assert_eq!(events.exit.await.expect("reaped").code, Some(0));
    }
}

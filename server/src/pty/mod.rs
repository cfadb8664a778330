//! Children in pseudo-terminals: spawning as the session's user
//! ([`spawn`](self::spawn) module), a reader thread feeding a bounded
//! channel, a writer thread, a waiter thread that reaps the child, and
//! signals to the child's process group while it is unreaped; the
//! session's sandbox ([`Isolation`]) that ends every process it started.
//! A running child in an existing master is taken in with [`adopt`] (how
//! an upgraded server takes back its programs); [`Pty::pause`] stops the
//! I/O without losing a byte, for the hand-over.
//!
//! The reader blocks when the channel is full, so a slow consumer stops the
//! pty being read and the child blocks on write: memory stays flat however
//! fast the child prints. Input goes through a queue to the writer thread,
//! so the session never blocks on a child that does not read.

mod cgroup;
mod env;
mod fd;
mod helper;
mod leftovers;
mod reader;
mod sandbox;
mod spawn;
mod uids;
mod waiter;
mod writer;

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::thread::JoinHandle;

use tokio::sync::{mpsc, oneshot};

pub use env::child_env;
pub use helper::{run_helper, HelperEnd};
pub use leftovers::{become_subreaper, kill_leftovers, reap_orphans, MARKER};
pub use reader::READ_BUFFER;
pub use sandbox::{EnterError, Isolation, Mode, Sandbox, SavedSandbox, User};
pub use spawn::Identity;
pub use waiter::{claim_programs, ChildState, ExitStatus};

/// Chunks of output queued between the reader thread and the session.
pub const OUTPUT_QUEUE: usize = 4;
/// Writes queued for the writer thread before input is refused.
pub const INPUT_QUEUE: usize = 64;

/// What to run, where, and at which size.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, thiserror::Error)]
#[error("cannot start {program}: {reason}")]
pub struct SpawnError {
    /// The program.
    pub program: String,
    /// Why.
    pub reason: String,
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
/// its process groups. Dropping it closes the master, ends the reader and
/// writer threads and so releases every descriptor.
pub struct Pty {
    master: OwnedFd,
    child: Arc<waiter::ChildState>,
    /// The reader and writer threads; `None` while paused.
    io: Option<Io>,
    /// Counts the reader's waits for a session that is behind.
    waits: Arc<AtomicU64>,
}

/// The reader and writer threads of a pty.
struct Io {
    input: mpsc::Sender<Vec<u8>>,
    /// Closing this pipe end wakes the reader and writer threads and ends them.
    stop: OwnedFd,
    /// The writer, whose result is the input it did not write.
    writer: JoinHandle<Vec<u8>>,
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
/// `waits` counts the reader's waits for a session that is behind.
pub fn spawn(spec: &SpawnSpec, waits: Arc<AtomicU64>) -> Result<(Pty, PtyEvents), SpawnError> {
    let program = spec.argv.first().cloned().unwrap_or_default();
    let fail = |reason: String| SpawnError {
        program: program.clone(),
        reason,
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
    // The orphan reaper must never reap a program its waiter waits for:
    // the pid is in the set before the reaper can look again.
    let mut programs = waiter::programs();
    let (master, pid) = spawn::spawn(&child).map_err(|e| fail(e.to_string()))?;
    programs.get_or_insert_with(Default::default).insert(pid);
    drop(programs);
    adopt(master, pid, waits).map_err(|e| fail(e.to_string()))
}

/// Takes charge of a running child of this process, `pid`, in the pty
/// whose master is `master`: a waiter reaps it and reports its exit, and
/// reader and writer threads serve the master. [`spawn`] ends with this; an
/// upgraded server calls it for every program the old one handed over (the
/// programs are still this pid's children). A failure kills and reaps the
/// child, so none is left unwatched.
pub fn adopt(
    master: OwnedFd,
    pid: libc::pid_t,
    waits: Arc<AtomicU64>,
) -> std::io::Result<(Pty, PtyEvents)> {
    waiter::programs()
        .get_or_insert_with(Default::default)
        .insert(pid);
    let (waiter, exit) = match waiter::start() {
        Ok(started) => started,
        Err(e) => {
            waiter::kill_and_reap(pid);
            return Err(e);
        }
    };
    // Reaped whatever happens next.
    let child = waiter.watch(pid);
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

    /// Stops reading and writing the master: the reader sends what it had
    /// read and ends (its channel then closes; the rest of the output stays
    /// in the kernel's buffer), and the writer ends. Returns the input
    /// queued and not yet written, in order. Blocks until the writer ended.
    pub fn pause(&mut self) -> Vec<u8> {
        let Some(io) = self.io.take() else {
            return Vec::new();
        };
        drop(io.input);
        drop(io.stop);
        // A panicked writer wrote what it could; nothing is left to hand over.
        io.writer.join().unwrap_or_default()
    }

    /// Starts reading and writing the master (again, after [`Pty::pause`]):
    /// returns the new output channel.
    pub fn resume(&mut self) -> std::io::Result<mpsc::Receiver<Vec<u8>>> {
        let read_fd = self.master.try_clone()?;
        let write_fd = self.master.try_clone()?;
        // The threads wait in poll, never in read or write, so that closing
        // the stop pipe always ends them.
        fd::set_nonblocking(&read_fd)?;
        let (reader_stop, stop) = fd::pipe()?;
        let writer_stop = reader_stop.try_clone()?;
        let (output_tx, output) = mpsc::channel(OUTPUT_QUEUE);
        let (input, input_rx) = mpsc::channel(INPUT_QUEUE);
        let writer = writer::start(write_fd, writer_stop, input_rx)?;
        reader::start(read_fd, reader_stop, output_tx, Arc::clone(&self.waits))?;
        self.io = Some(Io {
            input,
            stop,
            writer,
        });
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

    /// Sets the terminal size; the kernel sends the foreground group SIGWINCH.
    pub fn resize(&self, cols: u16, rows: u16) -> Result<(), String> {
        spawn::set_size(&self.master, cols, rows).map_err(|e| e.to_string())
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

    #[test]
    fn pausing_hands_back_the_input_not_written_and_stops_reading() {
        let spec = SpawnSpec {
            // Reads nothing: its input stays queued.
            argv: vec!["sleep".into(), "30".into()],
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            cwd: Some("/".into()),
            identity: None,
            cgroup_procs: None,
            cols: 80,
            rows: 24,
        };
        let (mut pty, mut events) = spawn(&spec, Arc::default()).expect("spawn");
        let chunks: Vec<Vec<u8>> = (0..INPUT_QUEUE)
            .map(|i| vec![b'a' + (i % 26) as u8; 4096])
            .collect();
        for chunk in &chunks {
            pty.write(chunk.clone()).expect("queued");
        }
        let all: Vec<u8> = chunks.concat();
        let rest = pty.pause();
        assert!(
            !rest.is_empty(),
            "a program that reads nothing cannot take 256 KiB"
        );
        assert!(
            all.ends_with(&rest),
            "what is handed back is the end of the input, in order"
        );
        assert_eq!(pty.write(b"x".to_vec()), Err(InputError::Busy), "paused");
        // The reader has ended: its channel closes once drained.
        while events.output.blocking_recv().is_some() {}
        let output = pty.resume().expect("resume");
        pty.write(rest).expect("the rest queued again");
        pty.kill();
        drop(output);
        assert!(events.exit.blocking_recv().is_ok(), "reaped");
    }
}

//! Children in pseudo-terminals: spawning as the session's user
//! ([`spawn`](self::spawn) module), a reader thread feeding a bounded
//! channel, a writer thread, a waiter thread that reaps the child, and
//! signals to the child's process group while it is unreaped; the
//! session's sandbox ([`Isolation`]) that ends every process it started.
//!
//! The reader blocks when the channel is full, so a slow consumer stops the
//! pty being read and the child blocks on write: memory stays flat however
//! fast the child prints. Input goes through a queue to the writer thread,
//! so the session never blocks on a child that does not read.

mod cgroup;
mod env;
mod fd;
mod leftovers;
mod reader;
mod sandbox;
mod spawn;
mod uids;
mod waiter;
mod writer;

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

pub use env::child_env;
pub use leftovers::{become_subreaper, kill_leftovers, reap_orphans, MARKER};
pub use reader::READ_BUFFER;
pub use sandbox::{EnterError, Isolation, Mode, Sandbox, User};
pub use spawn::Identity;
pub use waiter::{ChildState, ExitStatus};

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
    input: mpsc::Sender<Vec<u8>>,
    /// Closing this pipe end wakes the reader and writer threads and ends them.
    _stop: OwnedFd,
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
pub fn spawn(
    spec: &SpawnSpec,
    waits: std::sync::Arc<std::sync::atomic::AtomicU64>,
) -> Result<(Pty, PtyEvents), SpawnError> {
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
    let io_err = |e: std::io::Error| fail(e.to_string());
    // The waiter starts before the child, so no failure can leave a child
    // unreaped; a failure after the child started kills it.
    let (waiter, exit) = waiter::start().map_err(io_err)?;
    // The orphan reaper must never reap a program its waiter waits for:
    // the pid is in the set before the reaper can look again.
    let mut programs = waiter::programs();
    let (master, pid) = spawn::spawn(&child).map_err(io_err)?;
    programs.get_or_insert_with(Default::default).insert(pid);
    drop(programs);
    // Reaped whatever happens next.
    let child = waiter.watch(pid);
    let started = threads(&master, waits);
    let (input, stop, output) = match started {
        Ok(started) => started,
        Err(e) => {
            child.signal_group(libc::SIGKILL);
            return Err(io_err(e));
        }
    };

    let pty = Pty {
        master,
        child,
        input,
        _stop: stop,
    };
    Ok((pty, PtyEvents { output, exit }))
}

/// The input queue, the stop pipe and the output channel of new reader
/// and writer threads on duplicates of `master`.
#[allow(clippy::type_complexity)]
fn threads(
    master: &OwnedFd,
    waits: Arc<std::sync::atomic::AtomicU64>,
) -> std::io::Result<(mpsc::Sender<Vec<u8>>, OwnedFd, mpsc::Receiver<Vec<u8>>)> {
    let read_fd = master.try_clone()?;
    let write_fd = master.try_clone()?;
    // The threads wait in poll, never in read or write, so that closing the
    // stop pipe always ends them.
    fd::set_nonblocking(&read_fd)?;
    let (reader_stop, stop) = fd::pipe()?;
    let writer_stop = reader_stop.try_clone()?;
    let (output_tx, output) = mpsc::channel(OUTPUT_QUEUE);
    let (input, input_rx) = mpsc::channel(INPUT_QUEUE);
    reader::start(read_fd, reader_stop, output_tx, waits)?;
    writer::start(write_fd, writer_stop, input_rx)?;
    Ok((input, stop, output))
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

    /// Queues bytes for the child without blocking.
    pub fn write(&self, bytes: Vec<u8>) -> Result<(), InputError> {
        use mpsc::error::TrySendError;
        if bytes.is_empty() {
            return Ok(());
        }
        self.input.try_send(bytes).map_err(|e| match e {
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

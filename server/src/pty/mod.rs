//! Children in pseudo-terminals: spawning with `portable-pty`, a reader
//! thread feeding a bounded channel, a writer thread, a waiter thread that
//! reaps the child, and signals to the child's process groups.
//!
//! The reader blocks when the channel is full, so a slow consumer stops the
//! pty being read and the child blocks on write: memory stays flat however
//! fast the child prints. Input goes through a queue to the writer thread,
//! so the session never blocks on a child that does not read.

mod env;
mod fd;
mod leftovers;
mod reader;
mod waiter;
mod writer;

use std::ffi::OsString;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::PathBuf;

use portable_pty::{native_pty_system, CommandBuilder, MasterPty, PtySize};
use tokio::sync::{mpsc, oneshot};

pub use env::child_env;
pub use leftovers::{become_subreaper, kill_leftovers, reap_orphans, MARKER};
pub use reader::READ_BUFFER;
pub use waiter::ExitStatus;

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
    /// Working directory.
    pub cwd: PathBuf,
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
    master: Box<dyn MasterPty + Send>,
    pid: libc::pid_t,
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
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: spec.rows,
            cols: spec.cols,
            pixel_width: 0,
            pixel_height: 0,
        })
        .map_err(|e| fail(format!("{e:#}")))?;
    let raw = pair
        .master
        .as_raw_fd()
        .ok_or_else(|| fail("the pty has no file descriptor".to_owned()))?;
    let io_err = |e: std::io::Error| fail(e.to_string());
    // SAFETY: `raw` is the descriptor of `pair.master`, which outlives this borrow.
    let master_fd = unsafe { BorrowedFd::borrow_raw(raw) };
    let read_fd = master_fd.try_clone_to_owned().map_err(io_err)?;
    let write_fd = master_fd.try_clone_to_owned().map_err(io_err)?;
    // The threads wait in poll, never in read or write, so that closing the
    // stop pipe always ends them.
    fd::set_nonblocking(&read_fd).map_err(io_err)?;
    let (reader_stop, stop) = fd::pipe().map_err(io_err)?;
    let writer_stop = reader_stop.try_clone().map_err(io_err)?;

    // Every thread starts before the child, so no failure can leave a
    // child running without a waiter.
    let (output_tx, output) = mpsc::channel(OUTPUT_QUEUE);
    let (input, input_rx) = mpsc::channel(INPUT_QUEUE);
    reader::start(read_fd, reader_stop, output_tx, waits).map_err(io_err)?;
    writer::start(write_fd, writer_stop, input_rx).map_err(io_err)?;
    let (waiter, exit) = waiter::start().map_err(io_err)?;

    let mut command = CommandBuilder::from_argv(spec.argv.iter().map(OsString::from).collect());
    command.env_clear();
    for (key, value) in &spec.env {
        command.env(key, value);
    }
    command.cwd(&spec.cwd);
    // The orphan reaper must never reap a program its waiter waits for:
    // the pid is in the set before the reaper can look again.
    let mut programs = leftovers::programs();
    let child = pair
        .slave
        .spawn_command(command)
        .map_err(|e| fail(format!("{e:#}")))?;
    // Only the child may hold the slave: its last close is our end of file.
    drop(pair.slave);
    let pid = child
        .process_id()
        .and_then(|pid| libc::pid_t::try_from(pid).ok());
    if let Some(pid) = pid {
        programs.get_or_insert_with(Default::default).insert(pid);
    }
    drop(programs);
    // Reaped whatever happens next; without a pid, dropping the master
    // below hangs it up.
    waiter.watch(child);
    let pid = pid.ok_or_else(|| fail("the child has no process id".to_owned()))?;

    let pty = Pty {
        master: pair.master,
        pid,
        input,
        _stop: stop,
    };
    Ok((pty, PtyEvents { output, exit }))
}

impl Pty {
    /// The child's process id, which is also its process group and session id.
    pub fn pid(&self) -> u32 {
        self.pid.unsigned_abs()
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
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| format!("{e:#}"))
    }

    /// Sends SIGHUP to the child's process group and to the terminal's
    /// foreground group. Call only before the child has been reaped.
    pub fn hang_up(&self) {
        self.signal_groups(libc::SIGHUP);
    }

    /// Sends SIGKILL to the same groups as [`Pty::hang_up`].
    pub fn kill(&self) {
        self.signal_groups(libc::SIGKILL);
    }

    fn signal_groups(&self, signal: libc::c_int) {
        let foreground = self.master.process_group_leader();
        for group in std::iter::once(self.pid).chain(foreground.filter(|&g| g != self.pid)) {
            // SAFETY: killpg only sends a signal; a group that is gone gives ESRCH.
            unsafe { libc::killpg(group, signal) };
        }
    }
}

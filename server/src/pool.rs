//! The emulator pool: two multi-thread runtimes, separate from the one
//! that serves the API, that run every session's actor and the reaper of
//! session programs. Parsing a flood therefore never occupies the workers
//! that answer `/healthz` and stream frames.
//!
//! The pool has two lanes, as an operating system's scheduler favours the
//! threads that wait over the ones that compute:
//! - the **quick** lane ([`handle`]) runs actors whose steps are short:
//!   an echo, a screen's worth of output, a command;
//! - the **bulk** lane ([`bulk_handle`]), whose threads have a lower
//!   priority, runs an actor while its program's output keeps it busy:
//!   a flood.
//!
//! An actor moves to the bulk lane when a slice ends with work left or
//! when it spent a fifth of the last few milliseconds parsing, and back
//! once it has had nothing to do for a while (`session::busy`). So a
//! flooding session's slices never sit in front of another session's echo
//! in a queue: the quick lane's workers are idle most of the time, and the
//! kernel wakes them ahead of the busy bulk ones. On each lane an actor
//! yields after each slice, so the sessions that share a lane take turns.
//!
//! Every pty's input and output runs on one event loop of its own, a
//! single thread ([`io_handle`]), as tmux serves all its panes: reading
//! a program's output goes on while its actor parses the previous chunk,
//! a flood's reads never wait behind parsing, and a flood's reads take
//! the loop for at most 100 us at a time (`pty::io`).
//!
//! Every runtime caps its blocking threads ([`API_BLOCKING_THREADS`],
//! [`POOL_BLOCKING_THREADS`], [`BULK_BLOCKING_THREADS`]) and each lane has
//! half the cores, so the server's thread count does not grow with its
//! sessions: at most 2 x cores + 7 (the main thread, the API's workers,
//! the two lanes' workers, the pty event loop and the blocking threads),
//! whatever the number of sessions.

use std::future::Future;
use std::io;
use std::sync::{Mutex, OnceLock, PoisonError};

use tokio::runtime::{Handle, Runtime};

/// Tasks the pty event loop runs between two looks for I/O events and
/// for tasks woken from other threads.
const IO_INTERVAL: u32 = 4;

/// Blocking threads the API runtime may have at once (starting children,
/// rendering screens, reading recordings): beyond this, such work waits
/// its turn.
pub const API_BLOCKING_THREADS: usize = 2;
/// Blocking threads the quick lane may have at once (reaping, ending
/// sessions' processes, returning freed memory, a reflow or the freeing of
/// a big screen moved off a worker).
pub const POOL_BLOCKING_THREADS: usize = 2;
/// Blocking threads the bulk lane may have at once (a reflow or a
/// recording's close during a flood).
pub const BULK_BLOCKING_THREADS: usize = 1;

/// The lane of the pool an actor runs in (see the module's notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// For actors whose steps are short.
    Quick,
    /// For actors whose program's output keeps them busy.
    Bulk,
}

static QUICK: OnceLock<Runtime> = OnceLock::new();
static BULK: OnceLock<Runtime> = OnceLock::new();
/// The handle of the pty event loop, once its thread runs.
static IO: OnceLock<Handle> = OnceLock::new();
/// Held while a runtime is being started, so only one is.
static STARTING: Mutex<()> = Mutex::new(());

/// How many cores this process may use (at least 1).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The workers of each lane: half the cores, at least one.
pub fn lane_workers() -> usize {
    (cores() / 2).max(1)
}

/// The quick lane's runtime, started on first use; fails when its threads
/// cannot be started.
pub fn handle() -> io::Result<&'static Handle> {
    lane(&QUICK, "emulator", POOL_BLOCKING_THREADS, None)
}

/// The bulk lane's runtime, started on first use; fails when its threads
/// cannot be started.
pub fn bulk_handle() -> io::Result<&'static Handle> {
    lane(
        &BULK,
        "emulator-bulk",
        BULK_BLOCKING_THREADS,
        Some(lower_priority),
    )
}

/// The niceness of the bulk lane's threads: when the cores are all busy,
/// the kernel gives them a share below the server's other threads (and
/// the machine's other programs), so a flood is parsed with the time they
/// leave.
const BULK_NICENESS: libc::c_int = 10;

/// Lowers the calling thread's priority to [`BULK_NICENESS`].
fn lower_priority() {
    // SAFETY: setpriority on the calling thread's own id only changes its
    // scheduling weight; it has no memory effects. Raising niceness needs
    // no privilege; if it fails, the lane keeps the normal priority.
    unsafe {
        libc::setpriority(
            libc::PRIO_PROCESS,
            libc::gettid() as libc::id_t,
            BULK_NICENESS,
        );
    }
}

fn lane(
    runtime: &'static OnceLock<Runtime>,
    name: &str,
    blocking: usize,
    on_thread_start: Option<fn()>,
) -> io::Result<&'static Handle> {
    let lane = started_once(runtime, || {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        if let Some(on_thread_start) = on_thread_start {
            builder.on_thread_start(on_thread_start);
        }
        builder
            .worker_threads(lane_workers())
            .max_blocking_threads(blocking)
            .thread_name(name)
            .enable_all()
            .build()
    })?;
    Ok(lane.handle())
}

/// What `cell` holds, started by `start` on first use; under [`STARTING`],
/// so that two callers never both start one.
fn started_once<T>(
    cell: &'static OnceLock<T>,
    start: impl FnOnce() -> io::Result<T>,
) -> io::Result<&'static T> {
    if let Some(started) = cell.get() {
        return Ok(started);
    }
    let _starting = STARTING.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(started) = cell.get() {
        return Ok(started);
    }
    let started = start()?;
    Ok(cell.get_or_init(|| started))
}

/// The event loop of every pty's input and output, started on first use
/// on a thread of its own; fails when that thread cannot be started.
pub fn io_handle() -> io::Result<&'static Handle> {
    started_once(&IO, || {
        // It never runs blocking work, so it starts no blocking thread.
        // Every few tasks it looks for I/O and for tasks woken from other
        // threads, so that a flood's output, always ready to be read, does
        // not hold up another pty's echo for dozens of tasks (61 and 31 by
        // default).
        let runtime = tokio::runtime::Builder::new_current_thread()
            .event_interval(IO_INTERVAL)
            .global_queue_interval(IO_INTERVAL)
            .max_blocking_threads(1)
            .enable_all()
            .build()?;
        let handle = runtime.handle().clone();
        std::thread::Builder::new()
            .name("pty-io".to_owned())
            .spawn(move || runtime.block_on(std::future::pending::<()>()))?;
        Ok(handle)
    })
}

/// Runs `task` on the quick lane.
pub fn spawn<F>(task: F) -> io::Result<tokio::task::JoinHandle<F::Output>>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    Ok(handle()?.spawn(task))
}

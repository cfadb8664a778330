//! The emulator pool: one multi-thread runtime, separate from the one
//! that serves the API, that runs every session's actor and the reaper of
//! session programs. Its workers are as many as the cores; parsing a flood
//! therefore never occupies the workers that answer `/healthz` and stream
//! frames, and an actor yields after each slice of work, so a flooding
//! session gets bounded slices and the other sessions on the same worker
//! go on.
//!
//! Every pty's input and output runs on one event loop of its own, a
//! single thread ([`io_handle`]), as tmux serves all its panes: reading
//! a program's output goes on while its actor parses the previous chunk
//! on a worker of the pool, and a flood's reads never wait behind parsing.
//!
//! Both runtimes cap their blocking threads ([`API_BLOCKING_THREADS`],
//! [`POOL_BLOCKING_THREADS`]), so the server's thread count does not grow
//! with its sessions: at most 2 x cores + 8 (the main thread, the API's
//! workers, the pool's, the pty event loop and the two blocking pools),
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
pub const API_BLOCKING_THREADS: usize = 3;
/// Blocking threads the pool may have at once (reaping, ending sessions'
/// processes, returning freed memory, a reflow or the freeing of a big
/// screen moved off a worker). With the main thread, the workers of both
/// runtimes and the pty event loop (which runs no blocking work): at most
/// 2 x cores + 8 threads.
pub const POOL_BLOCKING_THREADS: usize = 3;

static POOL: OnceLock<Runtime> = OnceLock::new();
/// The handle of the pty event loop, once its thread runs.
static IO: OnceLock<Handle> = OnceLock::new();
/// Held while the pool is being started, so only one is.
static STARTING: Mutex<()> = Mutex::new(());

/// How many cores this process may use (at least 1).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The pool's runtime, started on first use; fails when its threads
/// cannot be started.
pub fn handle() -> io::Result<&'static Handle> {
    if let Some(pool) = POOL.get() {
        return Ok(pool.handle());
    }
    let _starting = STARTING.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(pool) = POOL.get() {
        return Ok(pool.handle());
    }
    let pool = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores())
        .max_blocking_threads(POOL_BLOCKING_THREADS)
        .thread_name("emulator")
        .enable_all()
        .build()?;
    Ok(POOL.get_or_init(|| pool).handle())
}

/// The event loop of every pty's input and output, started on first use
/// on a thread of its own; fails when that thread cannot be started.
pub fn io_handle() -> io::Result<&'static Handle> {
    if let Some(io) = IO.get() {
        return Ok(io);
    }
    let _starting = STARTING.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(io) = IO.get() {
        return Ok(io);
    }
    // It never runs blocking work, so it starts no blocking thread.
    // Every few tasks it looks for I/O and for tasks woken from other
    // threads, so that a flood's output, always ready to be read, does not
    // hold up another pty's echo for dozens of tasks (61 and 31 by default).
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
    Ok(IO.get_or_init(|| handle))
}

/// Runs `task` on the pool.
pub fn spawn<F>(task: F) -> io::Result<tokio::task::JoinHandle<F::Output>>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    Ok(handle()?.spawn(task))
}

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

/// Workers of the pool beyond one per core. A slice of an actor's work is
/// bounded, but a few steps are not divisible (publishing a screen with a
/// huge link table, one whole-screen sequence on a 1000x1000 screen, in a
/// debug build tens of milliseconds): with two more workers than cores,
/// two sessions in such a step leave workers free for the others, and the
/// system's scheduler time-slices them as it did the threads of old.
pub const SPARE_WORKERS: usize = 2;
/// Blocking threads the API runtime may have at once (starting children,
/// rendering screens, reading recordings): beyond this, such work waits
/// its turn.
pub const API_BLOCKING_THREADS: usize = 2;
/// Blocking threads the pool may have at once (reaping, ending sessions'
/// processes, returning freed memory, a reflow or the freeing of a big
/// screen moved off a worker).
pub const POOL_BLOCKING_THREADS: usize = 2;

static POOL: OnceLock<Runtime> = OnceLock::new();
/// The handle of the pty event loop, once its thread runs.
static IO: OnceLock<Handle> = OnceLock::new();
/// Held while the pool is being started, so only one is.
static STARTING: Mutex<()> = Mutex::new(());

/// Workers of the pool: the cores, and [`SPARE_WORKERS`] more.
pub fn workers() -> usize {
    cores() + SPARE_WORKERS
}

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
        .worker_threads(workers())
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
    let runtime = tokio::runtime::Builder::new_current_thread()
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

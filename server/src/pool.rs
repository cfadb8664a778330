//! The emulator pool: one multi-thread runtime, separate from the one
//! that serves the API, that runs every session's actor, its pty's input
//! and output, and the reaper of session programs. Its workers are as many
//! as the cores; parsing a flood therefore never occupies the workers that
//! answer `/healthz` and stream frames, and an actor yields after each
//! slice of work, so a flooding session gets bounded slices and the other
//! sessions on the same worker go on.
//!
//! Both runtimes cap their blocking threads ([`API_BLOCKING_THREADS`],
//! [`POOL_BLOCKING_THREADS`]), so the server's thread count does not grow
//! with its sessions: at most 2 x cores + 8 (the workers of both, the main
//! thread and the two blocking pools), whatever the number of sessions.

use std::future::Future;
use std::io;
use std::sync::{Mutex, OnceLock, PoisonError};

use tokio::runtime::{Handle, Runtime};

/// Blocking threads the API runtime may have at once (starting children,
/// rendering screens, reading recordings): beyond this, such work waits
/// its turn.
pub const API_BLOCKING_THREADS: usize = 4;
/// Blocking threads the pool may have at once (reaping, ending sessions'
/// processes, returning freed memory).
pub const POOL_BLOCKING_THREADS: usize = 3;

static POOL: OnceLock<Runtime> = OnceLock::new();
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

/// Runs `task` on the pool.
pub fn spawn<F>(task: F) -> io::Result<tokio::task::JoinHandle<F::Output>>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    Ok(handle()?.spawn(task))
}

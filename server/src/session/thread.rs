//! Each session's actor runs on a thread of its own, with a single-threaded
//! tokio runtime for its timers and channels. Parsing a flood, reflowing a
//! huge scrollback or freeing a big screen therefore never occupies the
//! server's async workers: `/healthz`, other sessions' input and the
//! WebSocket streams keep being served however hostile a session's output.

use std::future::Future;
use std::io;

/// Runs `actor` to its end on a new thread named `name`, then `after`.
/// Fails when the thread or its runtime cannot be created.
pub(super) fn spawn(
    name: String,
    actor: impl Future<Output = ()> + Send + 'static,
    after: impl FnOnce() + Send + 'static,
) -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    std::thread::Builder::new().name(name).spawn(move || {
        runtime.block_on(actor);
        drop(runtime);
        after();
        // Everything the session held is dropped by now: hand its pages
        // back to the system (an exited flood may have held hundreds of MB).
        release_freed_memory();
    })?;
    Ok(())
}

/// Returns freed heap pages to the operating system where the allocator
/// keeps them otherwise (glibc's malloc holds on to freed arena memory).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn release_freed_memory() {
    // SAFETY: malloc_trim only walks the allocator's own free lists; it has
    // no preconditions and may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Other allocators return memory by themselves.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_freed_memory() {}

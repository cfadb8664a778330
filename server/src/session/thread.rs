//! Each session's actor runs on a thread of its own, with a single-threaded
//! tokio runtime for its timers and channels. Parsing a flood, reflowing a
//! huge scrollback or freeing a big screen therefore never occupies the
//! server's async workers: `/healthz`, other sessions' input and the
//! WebSocket streams keep being served however hostile a session's output.

use std::future::Future;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

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

/// When [`release_freed_memory_soon`] releases, counted from its call: a
/// moment after (most holders have finished dropping by then), and once
/// more later (for what the last viewers' tasks and connections free as
/// they wind down).
const RELEASE_AFTER: [Duration; 2] = [Duration::from_secs(1), Duration::from_secs(9)];

/// Set while a thread that returns freed memory is on its way.
static RELEASE_PENDING: AtomicBool = AtomicBool::new(false);

/// Returns freed heap pages to the operating system soon ([`RELEASE_AFTER`]),
/// on a short-lived thread of its own (never on the caller's): for memory a
/// session's last holders free after its actor has ended (a viewer's last
/// screen, the frames cached for its viewers). Calls while one waits for
/// its first pass share it.
pub(super) fn release_freed_memory_soon() {
    if RELEASE_PENDING.swap(true, Ordering::AcqRel) {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("release-memory".to_owned())
        .spawn(|| {
            for (pass, wait) in RELEASE_AFTER.into_iter().enumerate() {
                std::thread::sleep(wait);
                if pass == 0 {
                    // Cleared before the first pass: memory freed from
                    // here on asks for passes of its own.
                    RELEASE_PENDING.store(false, Ordering::Release);
                }
                release_freed_memory();
            }
        });
    if spawned.is_err() {
        // No thread to spare: the next session's end tries again.
        RELEASE_PENDING.store(false, Ordering::Release);
    }
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

//! Giving freed memory back to the system after a session ends: an exited
//! flood may have held hundreds of MB, which glibc's malloc keeps in its
//! arenas otherwise. One short task on the emulator pool does it for every
//! session that ends meanwhile; no thread is kept for it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// When [`release_freed_memory_soon`] releases, counted from its call: a
/// moment after (most holders have finished dropping by then), and once
/// more later (for what the last viewers' tasks and connections free as
/// they wind down).
const RELEASE_AFTER: [Duration; 2] = [Duration::from_secs(1), Duration::from_secs(9)];

/// Set while a task that returns freed memory is on its way.
static RELEASE_PENDING: AtomicBool = AtomicBool::new(false);

/// Returns freed heap pages to the operating system soon ([`RELEASE_AFTER`]),
/// from the emulator pool (never on the caller's thread): for what a
/// session's actor and its last holders free as they end (a viewer's last
/// screen, the frames cached for its viewers), and for the rest of a frame
/// a stalled viewer gave up. Calls while one waits for its first pass
/// share it.
pub fn release_freed_memory_soon() {
    release_soon(false);
}

/// Returns freed heap pages to the operating system now, from a blocking
/// thread of the emulator pool, and again soon ([`RELEASE_AFTER`]): for
/// the end of a session's actor, which has just freed its terminal.
pub(super) fn release_freed_memory_now() {
    release_soon(true);
}

fn release_soon(now: bool) {
    if now {
        if let Ok(pool) = crate::pool::handle() {
            drop(pool.spawn_blocking(release_freed_memory));
        }
    }
    if RELEASE_PENDING.swap(true, Ordering::AcqRel) {
        return;
    }
    let spawned = crate::pool::spawn(async {
        for (pass, wait) in RELEASE_AFTER.into_iter().enumerate() {
            tokio::time::sleep(wait).await;
            if pass == 0 {
                // Cleared before the first pass: memory freed from
                // here on asks for passes of its own.
                RELEASE_PENDING.store(false, Ordering::Release);
            }
            // Walking the allocator's free lists may take a while.
            let _ = tokio::task::spawn_blocking(release_freed_memory).await;
        }
    });
    if spawned.is_err() {
        // No pool: the next session's end tries again.
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

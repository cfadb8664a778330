//! Which lane of the emulator pool an actor belongs in (see
//! [`crate::pool`]), judged from the time it spends parsing its program's
//! output, as a kernel's scheduler judges a thread: one that works for a
//! good part of every few milliseconds (a flood, even in small chunks, each
//! parsed within a slice) goes to the bulk lane; it comes back to the quick
//! lane once it has had nothing to do for a while. Searches do not count:
//! they are paced per reader already, and a reader's searches must not
//! move the session, and so its typist's echo, to the lower priority.
//! Pure: the caller passes the clock.

use std::time::Duration;

use tokio::time::Instant;

/// The window over which work is counted.
const WINDOW: Duration = Duration::from_millis(10);
/// Work within one window that makes an actor busy: a fifth of it.
const BUSY_AFTER: Duration = Duration::from_millis(2);
/// How long a busy actor must have nothing to do before it goes back to
/// the quick lane: longer than the pauses within a flood (a shell starting
/// the next `cat`), so a flood does not go back and forth.
const BACK_AFTER: Duration = Duration::from_millis(20);

/// An actor's recent work.
#[derive(Debug)]
pub(super) struct Busyness {
    window: Instant,
    spent: Duration,
    idle_since: Option<Instant>,
}

impl Busyness {
    /// No work yet, at `now`.
    pub fn new(now: Instant) -> Busyness {
        Busyness {
            window: now,
            spent: Duration::ZERO,
            idle_since: None,
        }
    }

    /// Counts `took` of work that ended at `now`.
    pub fn worked(&mut self, now: Instant, took: Duration) {
        if now.saturating_duration_since(self.window) >= WINDOW {
            self.window = now;
            self.spent = Duration::ZERO;
        }
        self.spent += took;
        self.idle_since = None;
    }

    /// Whether the work of the current window calls for the bulk lane.
    pub fn busy(&self) -> bool {
        self.spent >= BUSY_AFTER
    }

    /// With nothing to do at `now`: when to go back to the quick lane, if
    /// there is still nothing to do then.
    pub fn back_at(&mut self, now: Instant) -> Instant {
        *self.idle_since.get_or_insert(now) + BACK_AFTER
    }

    /// Work has come: the idle time so far does not count.
    pub fn not_idle(&mut self) {
        self.idle_since = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: Duration = Duration::from_micros(1);

    #[test]
    fn an_echo_now_and_then_is_never_busy() {
        let start = Instant::now();
        let mut busy = Busyness::new(start);
        for ms in 0..1000 {
            busy.worked(start + Duration::from_millis(ms), 50 * US);
            assert!(!busy.busy(), "at {ms} ms");
        }
    }

    #[test]
    fn a_flood_in_small_chunks_is_busy_within_a_window() {
        let start = Instant::now();
        let mut busy = Busyness::new(start);
        let mut now = start;
        let mut chunks = 0;
        while !busy.busy() {
            // Each chunk takes 300 us to parse, 100 us apart.
            now += 400 * US;
            busy.worked(now, 300 * US);
            chunks += 1;
        }
        assert!(chunks <= 7, "busy after {chunks} chunks");
    }

    #[test]
    fn a_busy_actor_goes_back_only_after_a_quiet_spell_with_no_work() {
        let start = Instant::now();
        let mut busy = Busyness::new(start);
        busy.worked(start, BUSY_AFTER);
        assert!(busy.busy());
        let first = busy.back_at(start + Duration::from_millis(1));
        assert_eq!(first, start + Duration::from_millis(1) + BACK_AFTER);
        // Asked again while still idle: the same moment.
        assert_eq!(busy.back_at(start + Duration::from_millis(5)), first);
        // Work in between starts the quiet spell over.
        busy.not_idle();
        let later = start + Duration::from_millis(8);
        assert_eq!(busy.back_at(later), later + BACK_AFTER);
    }

    #[test]
    fn work_of_an_older_window_is_forgotten() {
        let start = Instant::now();
        let mut busy = Busyness::new(start);
        busy.worked(start, BUSY_AFTER - US);
        busy.worked(start + WINDOW, 10 * US);
        assert!(!busy.busy());
    }
}

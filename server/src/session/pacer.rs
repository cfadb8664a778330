//! When to publish the screen: at once when no more output is expected (low
//! echo latency), at most once per frame interval while output streams in
//! (a change held back is published at the end of the interval even if no
//! more output comes), and not while synchronized output (mode 2026) holds
//! the screen, unless it has held it longer than the timeout.

use std::time::Duration;

use tokio::time::Instant;

/// The publishing policy of one session. Pure logic: the caller says what
/// happened and when, and publishes when told to.
#[derive(Debug)]
pub struct Pacer {
    frame: Duration,
    sync_timeout: Duration,
    last_publish: Option<Instant>,
    held_since: Option<Instant>,
    /// When the first change not yet published was made.
    dirty_since: Option<Instant>,
}

impl Pacer {
    /// A pacer publishing at most once per `frame` while output streams in,
    /// and holding frames for synchronized output at most `sync_timeout`.
    pub fn new(frame: Duration, sync_timeout: Duration) -> Pacer {
        Pacer {
            frame,
            sync_timeout,
            last_publish: None,
            held_since: None,
            dirty_since: None,
        }
    }

    /// The screen changed at `now`. `more_expected` tells whether more output
    /// is on its way (already queued, or the program was still writing when
    /// this was read); `synchronized` whether mode 2026 is set. Returns true
    /// when the screen should be published now.
    pub fn changed(&mut self, now: Instant, more_expected: bool, synchronized: bool) -> bool {
        self.dirty_since.get_or_insert(now);
        if synchronized {
            let since = *self.held_since.get_or_insert(now);
            return now.duration_since(since) >= self.sync_timeout;
        }
        self.held_since = None;
        !more_expected
            || self
                .last_publish
                .is_none_or(|last| now.duration_since(last) >= self.frame)
    }

    /// When a held change must be published even if no more output comes:
    /// the end of the synchronized-output timeout, else the end of the frame
    /// interval. `None` when nothing waits.
    pub fn deadline(&self) -> Option<Instant> {
        let dirty_since = self.dirty_since?;
        Some(match self.held_since {
            Some(since) => since + self.sync_timeout,
            None => self.last_publish.unwrap_or(dirty_since) + self.frame,
        })
    }

    /// The screen was published at `now`.
    pub fn published(&mut self, now: Instant) {
        self.dirty_since = None;
        self.last_publish = Some(now);
        if self.held_since.is_some() {
            // Still synchronized: the next forced frame is a full timeout away.
            self.held_since = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: Duration = Duration::from_millis(16);
    const SYNC: Duration = Duration::from_secs(1);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn publishes_at_once_when_the_output_runs_dry() {
        let t0 = Instant::now();
        let mut pacer = Pacer::new(FRAME, SYNC);
        assert!(pacer.changed(t0, false, false));
        pacer.published(t0);
        // Even right after the previous frame.
        assert!(pacer.changed(t0 + ms(1), false, false));
        pacer.published(t0 + ms(1));
        assert_eq!(pacer.deadline(), None, "nothing waits");
    }

    #[test]
    fn at_most_once_per_frame_while_output_streams() {
        let t0 = Instant::now();
        let mut pacer = Pacer::new(FRAME, SYNC);
        assert!(pacer.changed(t0, true, false), "the first change publishes");
        pacer.published(t0);
        assert!(!pacer.changed(t0 + ms(5), true, false));
        assert_eq!(
            pacer.deadline(),
            Some(t0 + FRAME),
            "held for the rest of the frame"
        );
        assert!(!pacer.changed(t0 + ms(15), true, false));
        assert!(pacer.changed(t0 + ms(16), true, false));
        pacer.published(t0 + ms(16));
        assert!(!pacer.changed(t0 + ms(20), true, false));
        assert!(pacer.changed(t0 + ms(21), false, false), "dry publishes");
    }

    #[test]
    fn synchronized_output_holds_until_reset_or_timeout() {
        let t0 = Instant::now();
        let mut pacer = Pacer::new(FRAME, SYNC);
        assert!(!pacer.changed(t0, false, true));
        assert_eq!(pacer.deadline(), Some(t0 + SYNC));
        assert!(!pacer.changed(t0 + ms(500), false, true));
        assert_eq!(pacer.deadline(), Some(t0 + SYNC), "the hold started at t0");
        assert!(pacer.changed(t0 + ms(1000), false, true), "timed out");
        pacer.published(t0 + ms(1000));
        assert_eq!(pacer.deadline(), None, "nothing new to publish");
        assert!(!pacer.changed(t0 + ms(1100), false, true));
        assert_eq!(pacer.deadline(), Some(t0 + ms(2000)));
        assert!(
            pacer.changed(t0 + ms(1200), false, false),
            "reset publishes"
        );
        pacer.published(t0 + ms(1200));
        assert_eq!(pacer.deadline(), None);
    }
}

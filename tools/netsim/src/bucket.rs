//! A token bucket that answers "when may these bytes go?".
//!
//! Tokens are bytes. The bucket fills at the rate up to its burst, and a
//! grant takes its bytes at once, going into debt if it must; the grant's
//! bytes may be sent when the debt is paid. Callers that each wait for their
//! grant before asking again are served in the order they asked, and the
//! bytes granted after any instant never exceed the burst plus the rate times
//! the time since.

use std::time::{Duration, Instant};

/// A token bucket for one direction of the link.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    /// Bytes per second.
    rate: f64,
    /// Most tokens the bucket holds.
    burst: f64,
    /// Tokens now; below zero is debt.
    tokens: f64,
    /// When `tokens` was last brought up to date.
    updated: Instant,
}

impl TokenBucket {
    /// A full bucket filling at `rate` bytes per second (more than zero),
    /// holding at most `burst` bytes.
    pub fn new(rate: u64, burst: u64, now: Instant) -> TokenBucket {
        TokenBucket {
            rate: rate as f64,
            burst: burst as f64,
            tokens: burst as f64,
            updated: now,
        }
    }

    /// Takes `bytes` tokens and says when they may be sent: `now`, or when
    /// the debt they leave is paid.
    pub fn grant(&mut self, bytes: usize, now: Instant) -> Instant {
        self.fill(now);
        self.tokens -= bytes as f64;
        if self.tokens >= 0.0 {
            now
        } else {
            now + Duration::from_secs_f64(-self.tokens / self.rate)
        }
    }

    /// Changes the rate and burst from `now` on: what filled until now
    /// filled at the old rate, and the bucket keeps its tokens (or debt), up
    /// to the new burst.
    pub fn reshape(&mut self, rate: u64, burst: u64, now: Instant) {
        self.fill(now);
        self.rate = rate as f64;
        self.burst = burst as f64;
        self.tokens = self.tokens.min(self.burst);
    }

    /// Adds the tokens that have come in since the last update.
    fn fill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        self.updated = self.updated.max(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_burst_goes_at_once_and_the_rest_at_the_rate() {
        let start = Instant::now();
        let mut bucket = TokenBucket::new(1000, 500, start);
        assert_eq!(bucket.grant(500, start), start);
        // 250 more bytes at 1000 B/s: a quarter second.
        assert_eq!(bucket.grant(250, start), start + Duration::from_millis(250));
        // Asked at the time the first may go, the next waits its own share.
        let at = start + Duration::from_millis(250);
        assert_eq!(bucket.grant(100, at), at + Duration::from_millis(100));
    }

    #[test]
    fn idle_time_fills_only_up_to_the_burst() {
        let start = Instant::now();
        let mut bucket = TokenBucket::new(1000, 500, start);
        bucket.grant(500, start);
        let later = start + Duration::from_secs(10);
        assert_eq!(bucket.grant(500, later), later);
        assert_eq!(bucket.grant(1, later), later + Duration::from_millis(1));
    }

    #[test]
    fn reshaping_keeps_the_debt_and_pays_it_at_the_new_rate() {
        let start = Instant::now();
        let mut bucket = TokenBucket::new(1000, 0, start);
        bucket.grant(1000, start);
        bucket.reshape(2000, 0, start);
        assert_eq!(bucket.grant(1000, start), start + Duration::from_secs(1));
    }

    #[test]
    fn many_grants_never_outrun_burst_plus_rate() {
        let start = Instant::now();
        let mut bucket = TokenBucket::new(100_000, 10_000, start);
        let mut at = start;
        let mut sent = 0usize;
        while sent < 200_000 {
            at = bucket.grant(1460, at);
            sent += 1460;
            let allowed = 10_000.0 + 100_000.0 * (at - start).as_secs_f64();
            assert!(sent as f64 <= allowed + 1.0, "{sent} bytes by {at:?}");
        }
        assert!(at - start >= Duration::from_millis(1_900));
    }
}

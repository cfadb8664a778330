//! The budgets of a session, shared by every transport (HTTP and
//! WebSocket), so no client can get more by switching transports or
//! opening more connections: the input budget, a token bucket of bytes, and
//! each credential's share of the actor's time for reads (searches and
//! scrollback), a token bucket of seconds.

use std::time::{Duration, Instant};

/// A token bucket for input bytes.
#[derive(Debug)]
pub struct InputBudget {
    tokens: f64,
    rate: f64,
    burst: f64,
    at: Instant,
}

impl InputBudget {
    /// A full bucket refilled at `rate` bytes a second, up to `burst`.
    pub fn new(rate: u32, burst: u32) -> InputBudget {
        InputBudget {
            tokens: f64::from(burst),
            rate: f64::from(rate),
            burst: f64::from(burst),
            at: Instant::now(),
        }
    }

    /// Takes `bytes` if the bucket holds them; false (taking nothing) if not.
    pub fn take(&mut self, bytes: usize, now: Instant) -> bool {
        let refill = now.saturating_duration_since(self.at).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.at = now;
        if self.tokens < bytes as f64 {
            return false;
        }
        self.tokens -= bytes as f64;
        true
    }
}

/// How much of a session actor's time one credential's reads may take.
#[derive(Debug, Clone, Copy)]
pub struct ReadLimit {
    /// The share of the clock, 0 to 1.
    pub share: f64,
    /// The most taken in one burst.
    pub burst: Duration,
}

/// A credential's share of the actor's time for reads: a bucket of
/// seconds refilled at the limit's share of the clock, up to its burst.
/// A read is refused while the bucket is empty, and charged with the time
/// it took once it is done (so it may run the bucket below empty).
#[derive(Debug)]
pub struct ReadShare {
    limit: ReadLimit,
    seconds: f64,
    at: Instant,
}

impl ReadShare {
    /// A full bucket.
    pub fn new(limit: ReadLimit, now: Instant) -> ReadShare {
        ReadShare {
            limit,
            seconds: limit.burst.as_secs_f64(),
            at: now,
        }
    }

    /// The bucket at `now`, unbounded.
    fn refilled(&self, now: Instant) -> f64 {
        self.seconds + now.saturating_duration_since(self.at).as_secs_f64() * self.limit.share
    }

    /// Refills the bucket to `now`; true when it holds any time.
    pub fn allows(&mut self, now: Instant) -> bool {
        self.seconds = self.refilled(now).min(self.limit.burst.as_secs_f64());
        self.at = now;
        self.seconds > 0.0
    }

    /// True when the bucket is full at `now` (it may be forgotten).
    pub fn full(&self, now: Instant) -> bool {
        self.refilled(now) >= self.limit.burst.as_secs_f64()
    }

    /// Takes `cost` of actor time.
    pub fn charge(&mut self, cost: Duration) {
        self.seconds -= cost.as_secs_f64();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_burst_then_the_rate() {
        let start = Instant::now();
        let mut budget = InputBudget::new(1000, 4000);
        assert!(budget.take(4000, start));
        assert!(!budget.take(1, start));
        assert!(budget.take(500, start + Duration::from_millis(500)));
        assert!(!budget.take(600, start + Duration::from_millis(500)));
        assert!(budget.take(4000, start + Duration::from_secs(60)));
    }

    #[test]
    fn reads_take_their_share_of_the_actor() {
        let start = Instant::now();
        let limit = ReadLimit {
            share: 0.1,
            burst: Duration::from_millis(500),
        };
        let mut share = ReadShare::new(limit, start);
        assert!(share.allows(start));
        share.charge(limit.burst + Duration::from_millis(100));
        assert!(!share.allows(start), "a read over the burst empties it");
        // 100 ms owed refills at a tenth of the clock: a second pays it back.
        assert!(!share.allows(start + Duration::from_millis(900)));
        assert!(share.allows(start + Duration::from_millis(1100)));
        assert!(share.full(start + Duration::from_secs(60)));
    }
}

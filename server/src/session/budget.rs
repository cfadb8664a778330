//! The input budget of a session: a token bucket of bytes shared by every
//! transport (HTTP and WebSocket), so no client can flood a program's input
//! by switching transports or opening more connections.

use std::time::Instant;

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
}

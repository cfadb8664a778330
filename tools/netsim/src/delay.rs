//! When each chunk read from one side of a connection may be delivered to
//! the other: its arrival plus half the round trip plus a jitter sample, and
//! never before the chunk read before it, so bytes are never reordered. A
//! new connection's client side also waits out TCP's handshake: the proxy
//! accepts at once, where a real link takes a round trip (SYN, SYN-ACK)
//! before the client's first byte can leave.

use std::time::{Duration, Instant};

use crate::rng::SplitMix64;

/// The delay schedule of one direction of one connection.
#[derive(Debug)]
pub struct DelayLine {
    rng: SplitMix64,
    /// When the previous chunk is released.
    last: Option<Instant>,
}

impl DelayLine {
    /// A schedule whose jitter comes from `rng`.
    pub fn new(rng: SplitMix64) -> DelayLine {
        DelayLine { rng, last: None }
    }

    /// As [`DelayLine::new`], for the client's side of a connection
    /// accepted at `accepted`: nothing is released before a round trip
    /// (`rtt`) has passed since, as the handshake of a real link takes
    /// one before the first byte is sent.
    pub fn after_handshake(rng: SplitMix64, accepted: Instant, rtt: Duration) -> DelayLine {
        DelayLine {
            rng,
            last: Some(accepted + rtt),
        }
    }

    /// When a chunk that arrived at `arrival` may go: `arrival + rtt / 2 +
    /// j`, with `j` uniform in [-jitter / 2, jitter / 2) and the sum at
    /// least zero, but not before the chunk before it.
    pub fn release_at(&mut self, arrival: Instant, rtt: Duration, jitter: Duration) -> Instant {
        let half = (rtt / 2).as_nanos() as f64;
        let offset = (self.rng.next_unit() - 0.5) * jitter.as_nanos() as f64;
        // Whole nanoseconds: with no jitter the delay is exactly half the
        // round trip, with no rounding below it.
        let delay = Duration::from_nanos((half + offset).max(0.0) as u64);
        let at = arrival + delay;
        let at = self.last.map_or(at, |last| at.max(last));
        self.last = Some(at);
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_connection_waits_out_the_handshake() {
        let accepted = Instant::now();
        let rtt = Duration::from_millis(150);
        let mut line = DelayLine::after_handshake(SplitMix64::new(1, 0), accepted, rtt);
        assert_eq!(
            line.release_at(accepted, rtt, Duration::ZERO),
            accepted + rtt,
            "the first byte leaves after the handshake's round trip"
        );
        let later = accepted + Duration::from_secs(1);
        assert_eq!(
            line.release_at(later, rtt, Duration::ZERO),
            later + rtt / 2,
            "then as usual"
        );
    }

    #[test]
    fn without_jitter_the_delay_is_half_the_round_trip() {
        let mut line = DelayLine::new(SplitMix64::new(1, 0));
        let now = Instant::now();
        let rtt = Duration::from_millis(201);
        assert_eq!(
            line.release_at(now, rtt, Duration::ZERO),
            now + Duration::from_micros(100_500)
        );
    }

    #[test]
    fn jitter_stays_in_its_window() {
        let mut line = DelayLine::new(SplitMix64::new(9, 3));
        let start = Instant::now();
        let rtt = Duration::from_millis(100);
        let jitter = Duration::from_millis(40);
        let (mut below, mut above) = (0, 0);
        // Arrivals further apart than the jitter window: no chunk waits for
        // the one before it, so each release shows its own sample.
        for step in 0..1_000u64 {
            let arrival = start + Duration::from_millis(step * 100);
            let delay = line.release_at(arrival, rtt, jitter) - arrival;
            assert!(delay >= Duration::from_millis(30), "{delay:?}");
            assert!(delay < Duration::from_millis(70), "{delay:?}");
            if delay < Duration::from_millis(50) {
                below += 1;
            } else {
                above += 1;
            }
        }
        assert!(below > 400 && above > 400, "{below} below, {above} above");
    }

    #[test]
    fn close_chunks_are_never_reordered() {
        let mut line = DelayLine::new(SplitMix64::new(9, 4));
        let start = Instant::now();
        let rtt = Duration::from_millis(100);
        let jitter = Duration::from_millis(40);
        let mut previous = start;
        for step in 0..1_000u64 {
            let arrival = start + Duration::from_micros(step * 100);
            let at = line.release_at(arrival, rtt, jitter);
            assert!(
                at >= previous,
                "chunk {step} released before the one before it"
            );
            assert!(at >= arrival + Duration::from_millis(30));
            // Beyond its own largest delay only when the one before held it.
            if at >= arrival + Duration::from_millis(70) {
                assert_eq!(at, previous);
            }
            previous = at;
        }
    }

    #[test]
    fn jitter_wider_than_the_delay_floors_at_zero() {
        let mut line = DelayLine::new(SplitMix64::new(2, 0));
        let start = Instant::now();
        for step in 0..100u64 {
            let arrival = start + Duration::from_secs(step);
            let at = line.release_at(arrival, Duration::ZERO, Duration::from_millis(50));
            assert!(at >= arrival);
            assert!(at <= arrival + Duration::from_millis(25));
        }
    }
}

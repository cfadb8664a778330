//! How much a viewer may have on its way (PROTOCOL.md, "Flow control").
//!
//! A client that says how many bytes it has had (`Received`) is sent frames
//! only while what it has not yet had stays within a window: its link's
//! delivery rate times its base round trip, plus a little queue (a
//! quarter of the round trip, at least [`MIN_QUEUE`]). Without it a slow link fills the kernel's and the routers'
//! buffers, seconds deep, and the screen shown lags by as much; with it the
//! viewer skips to the latest screen, as a slow socket makes it do anyway.
//!
//! The estimate follows BBR: each report gives a round-trip sample (from
//! when the bytes it covers were sent) and a delivery-rate sample (what
//! the client had in that time); the window is the largest recent rate
//! times the smallest recent round trip. Pure logic: the caller says what
//! was sent and reported, and when.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

/// The smallest window: a large frame fits in it, and a client that
/// reports every 16 KiB it has had (as PROTOCOL.md asks) always reports
/// before the window closes.
pub const MIN_WINDOW: u64 = 32 * 1024;
/// The largest window, whatever the link.
pub const MAX_WINDOW: u64 = 16 * 1024 * 1024;
/// The least queue a saturated link is allowed to hold, on top of its
/// round trip.
pub const MIN_QUEUE: Duration = Duration::from_millis(30);
/// The queue a saturated link is allowed to hold, as a share of its round
/// trip (BBR's probing gain of 1.25): less, and a window-limited sender
/// measures a rate below the link's and shrinks its window to it, on and on.
const QUEUE_SHARE: f64 = 0.25;
/// How long a round-trip sample stays the base (the link's least).
const RTT_SPAN: Duration = Duration::from_secs(10);
/// How long a delivery-rate sample stays the best.
const RATE_SPAN: Duration = Duration::from_secs(2);
/// Sends remembered for round-trip samples; older ones are forgotten (a
/// report covering them then gives no sample).
const MAX_MARKS: usize = 4096;

/// A client reported what it cannot have had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FlowError {
    /// More bytes than were sent.
    #[error("Received counts more bytes than were sent")]
    TooMany,
    /// Fewer bytes than it reported before.
    #[error("Received counts fewer bytes than before")]
    Backwards,
}

/// A send the client has not reported having: where it ended in the
/// stream, when it was sent, and what the client had reported by then.
#[derive(Debug, Clone, Copy)]
struct Mark {
    end: u64,
    at: Instant,
    had: u64,
}

/// The best of the samples of the last `span` (the largest, or the
/// smallest), kept as a monotonic queue.
#[derive(Debug)]
struct Windowed<T> {
    span: Duration,
    samples: VecDeque<(Instant, T)>,
}

impl<T: Copy + PartialOrd> Windowed<T> {
    fn new(span: Duration) -> Windowed<T> {
        Windowed {
            span,
            samples: VecDeque::new(),
        }
    }

    /// Adds a sample; `better(a, b)` says `a` beats `b`.
    fn add(&mut self, now: Instant, value: T, better: impl Fn(T, T) -> bool) {
        while self
            .samples
            .back()
            .is_some_and(|&(_, old)| !better(old, value))
        {
            self.samples.pop_back();
        }
        self.samples.push_back((now, value));
        while self
            .samples
            .front()
            .is_some_and(|&(at, _)| now.duration_since(at) > self.span)
        {
            self.samples.pop_front();
        }
    }

    fn best(&self) -> Option<T> {
        self.samples.front().map(|&(_, value)| value)
    }
}

/// One connection's flow: what was sent, what the client has had, and the
/// window they make.
#[derive(Debug)]
pub struct Flow {
    sent: u64,
    /// What the client last said it had; `None` until it first says, and
    /// then there is no window.
    had: Option<u64>,
    marks: VecDeque<Mark>,
    base_rtt: Windowed<Duration>,
    /// Bytes per second.
    rate: Windowed<f64>,
}

impl Default for Flow {
    fn default() -> Flow {
        Flow::new()
    }
}

impl Flow {
    /// A connection on which nothing was sent yet.
    pub fn new() -> Flow {
        Flow {
            sent: 0,
            had: None,
            marks: VecDeque::new(),
            base_rtt: Windowed::new(RTT_SPAN),
            rate: Windowed::new(RATE_SPAN),
        }
    }

    /// A binary message of `bytes` went out at `now`.
    pub fn sent(&mut self, bytes: usize, now: Instant) {
        self.sent += bytes as u64;
        if self.marks.len() == MAX_MARKS {
            self.marks.pop_front();
        }
        self.marks.push_back(Mark {
            end: self.sent,
            at: now,
            had: self.had.unwrap_or(0),
        });
    }

    /// The client says at `now` it has had `bytes` in all.
    pub fn received(&mut self, bytes: u64, now: Instant) -> Result<(), FlowError> {
        if bytes > self.sent {
            return Err(FlowError::TooMany);
        }
        if self.had.is_some_and(|had| bytes < had) {
            return Err(FlowError::Backwards);
        }
        self.had = Some(bytes);
        let mut covered = None;
        while self.marks.front().is_some_and(|m| m.end <= bytes) {
            covered = self.marks.pop_front();
        }
        if let Some(mark) = covered {
            let rtt = now.duration_since(mark.at);
            self.base_rtt.add(now, rtt, |a, b| a < b);
            // The bytes had while these were on their way, over that time.
            let rate = (bytes - mark.had) as f64 / rtt.as_secs_f64().max(1e-3);
            self.rate.add(now, rate, |a, b| a > b);
        }
        Ok(())
    }

    /// Bytes sent that the client has not said it had (none before it
    /// first says).
    pub fn in_flight(&self) -> u64 {
        self.had.map_or(0, |had| self.sent - had)
    }

    /// How much may be on its way: unlimited until the client first says
    /// what it had.
    pub fn window(&self) -> u64 {
        if self.had.is_none() {
            return u64::MAX;
        }
        let (Some(rtt), Some(rate)) = (self.base_rtt.best(), self.rate.best()) else {
            return MIN_WINDOW;
        };
        let queue = MIN_QUEUE.max(rtt.mul_f64(QUEUE_SHARE));
        let bytes = rate * (rtt + queue).as_secs_f64();
        (bytes as u64).clamp(MIN_WINDOW, MAX_WINDOW)
    }

    /// Whether a frame may be sent now.
    pub fn open(&self) -> bool {
        self.in_flight() < self.window()
    }

    /// The least round trip seen lately, once there is one.
    pub fn base_rtt(&self) -> Option<Duration> {
        self.base_rtt.best()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// A link of `rate` bytes a second and `rtt` round trip, with a client
    /// that reports each message as it has it: sends whenever the window
    /// is open, for `seconds`, and returns the flow and the longest any
    /// byte waited in the link's queue.
    fn saturate(rate: f64, rtt: Duration, seconds: u64) -> (Flow, Duration) {
        let start = Instant::now();
        let mut flow = Flow::new();
        flow.sent(100, start);
        flow.received(0, start).expect("nothing had");
        // Messages on the link: (size, when the link finishes sending it).
        let mut link: VecDeque<(u64, Instant)> = VecDeque::new();
        let mut link_free = start;
        let mut had = 0;
        let mut worst = Duration::ZERO;
        let mut now = start;
        let end = start + Duration::from_secs(seconds);
        while now < end {
            now += MS;
            while flow.open() {
                let size = 4000;
                flow.sent(size as usize, now);
                let begins = link_free.max(now);
                worst = worst.max(begins - now);
                link_free = begins + Duration::from_secs_f64(size as f64 / rate);
                link.push_back((size, link_free + rtt));
            }
            while link.front().is_some_and(|&(_, at)| at <= now) {
                let (size, _) = link.pop_front().expect("checked");
                had += size;
                flow.received(had + 100, now).expect("had what was sent");
            }
        }
        (flow, worst)
    }

    #[test]
    fn no_window_until_the_client_reports() {
        let mut flow = Flow::new();
        flow.sent(10 << 20, Instant::now());
        assert!(flow.open());
        assert_eq!(flow.in_flight(), 0);
    }

    #[test]
    fn the_window_closes_at_its_minimum_before_any_sample() {
        let now = Instant::now();
        let mut flow = Flow::new();
        flow.received(0, now).expect("nothing sent, nothing had");
        flow.sent(MIN_WINDOW as usize - 1, now);
        assert!(flow.open());
        flow.sent(1, now);
        assert!(!flow.open());
        flow.received(1, now + 10 * MS).expect("had one byte");
        assert!(flow.open());
    }

    #[test]
    fn a_report_of_more_than_was_sent_or_less_than_before_is_refused() {
        let now = Instant::now();
        let mut flow = Flow::new();
        flow.sent(100, now);
        assert_eq!(flow.received(101, now), Err(FlowError::TooMany));
        flow.received(50, now).expect("half");
        assert_eq!(flow.received(49, now), Err(FlowError::Backwards));
    }

    #[test]
    fn a_slow_link_holds_a_fraction_of_a_second_and_is_kept_busy() {
        // The mobile profile: 1.6 Mbit/s down, 150 ms round trip.
        let rate = 200_000.0;
        let (flow, worst) = saturate(rate, 150 * MS, 20);
        assert!(worst < Duration::from_millis(300), "queued {worst:?}");
        let window = flow.window() as f64;
        // At least the link's bandwidth-delay product (kept busy).
        assert!(window >= rate * 0.15, "window {window}");
        assert_eq!(flow.base_rtt().map(|r| r >= 150 * MS), Some(true));
    }

    #[test]
    fn a_fast_link_opens_the_window_wide() {
        let rate = 50_000_000.0;
        let (flow, worst) = saturate(rate, 2 * MS, 5);
        assert!(flow.window() > 1 << 20, "window {}", flow.window());
        assert!(worst < Duration::from_millis(150), "queued {worst:?}");
    }

    #[test]
    fn a_long_round_trip_still_fills_the_link() {
        // Satellite: 600 ms round trip, 5 Mbit/s down.
        let rate = 625_000.0;
        let (flow, _) = saturate(rate, 600 * MS, 30);
        assert!(
            flow.window() as f64 >= rate * 0.6,
            "window {} below the bandwidth-delay product",
            flow.window()
        );
    }

    #[test]
    fn marks_are_bounded() {
        let now = Instant::now();
        let mut flow = Flow::new();
        for _ in 0..MAX_MARKS * 2 {
            flow.sent(1, now);
        }
        assert_eq!(flow.marks.len(), MAX_MARKS);
        flow.received((MAX_MARKS * 2) as u64, now + 50 * MS)
            .expect("had all");
        assert!(flow.marks.is_empty());
        assert_eq!(flow.base_rtt(), Some(50 * MS));
    }
}

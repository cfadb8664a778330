//! What one connection measures, as the web client's `connection.js`:
//! the bytes it has had, reported to the server (`Received`: the server
//! then keeps no more in flight than the link carries, PROTOCOL.md
//! "Flow control"; only once a `Sync` has come: a server that sends none
//! does not know `Received`, and would close on it); the round trip, from `Ping`s whose token is the time they
//! left; and whether the link has gone silent for too long.

use std::time::Duration;

use tokio::time::Instant;

/// `Received` is sent at least every this many bytes had (the server's
/// window is never smaller than twice this), and after each `Sync`.
pub const REPORT_BYTES: u64 = 16 * 1024;
/// While typing, the round trip is measured this often...
pub const TYPING_PING: Duration = Duration::from_secs(5);
/// ...and otherwise this often.
pub const IDLE_PING: Duration = Duration::from_secs(25);
/// Typing within this long counts as typing.
const TYPING: Duration = Duration::from_secs(30);
/// A connection from which nothing has arrived for this long (the server
/// pings every 15 s, and answers a `Ping` at once) is taken for lost, as
/// the web client does.
pub const DEAD_AFTER: Duration = Duration::from_secs(70);

/// One connection's counts and clocks.
#[derive(Debug)]
pub struct Meter {
    /// When it opened: ping tokens count from here.
    opened: Instant,
    /// Bytes of binary messages had.
    had: u64,
    /// What the last `Received` said.
    reported: u64,
    /// Whether a `Sync` has come on this connection.
    synced: bool,
    /// When anything last arrived.
    heard: Instant,
    /// When the last `Ping` left.
    pinged: Option<Instant>,
    /// When something was last typed.
    typed: Option<Instant>,
}

impl Meter {
    /// A connection opened at `now`.
    pub fn new(now: Instant) -> Meter {
        Meter {
            opened: now,
            had: 0,
            reported: 0,
            synced: false,
            heard: now,
            pinged: None,
            typed: None,
        }
    }

    /// Something arrived at `now` (a WebSocket ping counts).
    pub fn heard(&mut self, now: Instant) {
        self.heard = now;
    }

    /// A binary message of `len` bytes arrived (a `Sync` when `sync`): the
    /// count to report now, if one is due.
    pub fn had(&mut self, len: usize, sync: bool) -> Option<u64> {
        self.had += len as u64;
        self.synced |= sync;
        let due = self.synced && (sync || self.had - self.reported >= REPORT_BYTES);
        due.then(|| {
            self.reported = self.had;
            self.had
        })
    }

    /// The token of a `Ping` leaving at `now`: microseconds since the
    /// connection opened.
    pub fn ping(&mut self, now: Instant) -> u64 {
        self.pinged = Some(now);
        u64::try_from((now - self.opened).as_micros()).unwrap_or(u64::MAX)
    }

    /// The round trip a `Pong` with `token` measured, arriving at `now`.
    pub fn pong(&self, token: u64, now: Instant) -> Duration {
        (now - self.opened).saturating_sub(Duration::from_micros(token))
    }

    /// Something was typed at `now`: whether to ping at once (the first key
    /// after a quiet while: the round trip may have changed).
    pub fn typed(&mut self, now: Instant) -> bool {
        let idle = self.typed.is_none_or(|t| now - t >= TYPING);
        self.typed = Some(now);
        idle
    }

    /// Whether a `Ping` is due at `now`.
    pub fn ping_due(&self, now: Instant) -> bool {
        let typing = self.typed.is_some_and(|t| now - t < TYPING);
        let every = if typing { TYPING_PING } else { IDLE_PING };
        self.pinged.is_none_or(|p| now - p >= every)
    }

    /// Whether nothing has arrived for [`DEAD_AFTER`].
    pub fn dead(&self, now: Instant) -> bool {
        now - self.heard > DEAD_AFTER
    }

    /// How long the connection has been open.
    pub fn age(&self, now: Instant) -> Duration {
        now - self.opened
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_go_after_each_sync_and_every_16_kib() {
        let mut m = Meter::new(Instant::now());
        assert_eq!(m.had(100, false), None);
        assert_eq!(m.had(20_000, false), None, "not before a Sync has come");
        assert_eq!(m.had(12, true), Some(20_112));
        assert_eq!(m.had(16_000, false), None);
        assert_eq!(m.had(500, false), Some(36_612));
        assert_eq!(m.had(1, false), None);
    }

    #[test]
    fn a_pong_measures_the_round_trip_of_its_ping() {
        let start = Instant::now();
        let mut m = Meter::new(start);
        assert!(m.ping_due(start));
        let token = m.ping(start + Duration::from_millis(10));
        assert!(
            !m.ping_due(start + Duration::from_secs(10)),
            "idle: every 25 s"
        );
        let rtt = m.pong(token, start + Duration::from_millis(160));
        assert_eq!(rtt, Duration::from_millis(150));
        assert!(
            m.typed(start + Duration::from_secs(1)),
            "the first key pings"
        );
        assert!(!m.typed(start + Duration::from_secs(2)));
        assert!(
            m.ping_due(start + Duration::from_secs(6)),
            "typing: every 5 s"
        );
        assert!(!m.dead(start + Duration::from_secs(60)));
        assert!(m.dead(start + Duration::from_secs(71)));
    }
}

//! Failed sign-ins per client address: after `limit` wrong credentials
//! within a minute, the address is refused until that minute is over, so a
//! secret cannot be guessed at the speed of the network. IPv6 clients count
//! by their /64 (one host holds a whole /64), and the table holds at most
//! [`MAX_ADDRESSES`] addresses, forgetting the stalest first.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The window failures are counted in.
const WINDOW: Duration = Duration::from_secs(60);
/// Addresses remembered at once: a bound on the table's memory.
pub const MAX_ADDRESSES: usize = 16_384;

/// The failures of one address in its current window.
#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    failures: u32,
}

/// Failed sign-ins by address (see the module's documentation).
#[derive(Debug)]
pub struct SignInFailures {
    limit: u32,
    table: Mutex<HashMap<IpAddr, Window>>,
}

impl SignInFailures {
    /// A table allowing `limit` failures per address per minute.
    pub fn new(limit: u32) -> SignInFailures {
        SignInFailures {
            limit,
            table: Mutex::new(HashMap::new()),
        }
    }

    /// When `addr` is refused now: how long until it may try again.
    pub fn blocked(&self, addr: IpAddr) -> Option<Duration> {
        self.blocked_at(addr, Instant::now())
    }

    /// Counts a failure from `addr`; true when this one reached the limit
    /// (the moment to log it, once per window).
    pub fn failed(&self, addr: IpAddr) -> bool {
        self.failed_at(addr, Instant::now())
    }

    fn blocked_at(&self, addr: IpAddr, now: Instant) -> Option<Duration> {
        let table = self.lock();
        let window = table.get(&key(addr))?;
        let left = WINDOW.checked_sub(now.saturating_duration_since(window.started))?;
        (window.failures >= self.limit && !left.is_zero()).then_some(left)
    }

    fn failed_at(&self, addr: IpAddr, now: Instant) -> bool {
        let mut table = self.lock();
        let addr = key(addr);
        if table.len() >= MAX_ADDRESSES && !table.contains_key(&addr) {
            table.retain(|_, w| now.saturating_duration_since(w.started) < WINDOW);
            if table.len() >= MAX_ADDRESSES {
                let stalest = table.iter().min_by_key(|(_, w)| w.started).map(|(a, _)| *a);
                if let Some(stalest) = stalest {
                    table.remove(&stalest);
                }
            }
        }
        let window = table.entry(addr).or_insert(Window {
            started: now,
            failures: 0,
        });
        if now.saturating_duration_since(window.started) >= WINDOW {
            *window = Window {
                started: now,
                failures: 0,
            };
        }
        window.failures = window.failures.saturating_add(1);
        window.failures == self.limit
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Window>> {
        // Every update is a single insert, reset or increment: consistent
        // even if a holder panicked.
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The address failures are counted under: IPv6 by its /64.
fn key(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V6(v6) => {
            let mut segments = v6.segments();
            segments[4..].fill(0);
            IpAddr::from(segments)
        }
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn an_address_is_refused_after_the_limit_until_the_minute_is_over() {
        let failures = SignInFailures::new(3);
        let t0 = Instant::now();
        let a = ip("192.0.2.1");
        assert!(!failures.failed_at(a, t0));
        assert!(!failures.failed_at(a, t0));
        assert_eq!(failures.blocked_at(a, t0), None);
        assert!(failures.failed_at(a, t0), "the third reaches the limit");
        assert_eq!(failures.blocked_at(a, t0), Some(WINDOW));
        assert!(!failures.failed_at(a, t0), "logged once per window");
        assert_eq!(failures.blocked_at(ip("192.0.2.2"), t0), None);
        assert_eq!(failures.blocked_at(a, t0 + WINDOW), None);
        assert!(!failures.failed_at(a, t0 + WINDOW), "a new window");
    }

    #[test]
    fn ipv6_counts_by_its_64() {
        let failures = SignInFailures::new(2);
        let t0 = Instant::now();
        failures.failed_at(ip("2001:db8::1"), t0);
        failures.failed_at(ip("2001:db8::ffff:2"), t0);
        assert!(failures.blocked_at(ip("2001:db8::3"), t0).is_some());
        assert!(failures.blocked_at(ip("2001:db8:0:1::3"), t0).is_none());
    }

    #[test]
    fn the_table_is_bounded() {
        let failures = SignInFailures::new(2);
        let t0 = Instant::now();
        for i in 0..(MAX_ADDRESSES as u32 + 10) {
            failures.failed_at(IpAddr::from(i.to_be_bytes()), t0);
        }
        assert_eq!(failures.lock().len(), MAX_ADDRESSES);
    }
}

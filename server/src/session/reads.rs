//! Who reads a session (searches and scrollback) and how much of its
//! actor's time each has left: a share per credential, and half of that
//! per connection. Opening more connections gets a credential nothing more,
//! and one busy connection leaves the credential's other connections half
//! of its share.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::budget::{ReadLimit, ReadShare};
use crate::access::Principal;

/// Readers whose shares are kept, of each kind, before the full ones are
/// forgotten.
const MAX_KEPT: usize = 64;

/// One reader: a credential, over one connection.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Reader {
    principal: Principal,
    /// The credential as its share is kept.
    credential: String,
    connection: SocketAddr,
}

impl Reader {
    /// `principal` reading over the connection from `connection` (the
    /// socket's peer address, which names one open TCP connection).
    pub fn new(principal: Principal, connection: SocketAddr) -> Reader {
        Reader {
            credential: principal.credential.to_string(),
            principal,
            connection,
        }
    }

    /// Who reads, for the session's owner to check again.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }
}

/// The read shares of one session.
#[derive(Debug)]
pub(super) struct ReadShares {
    per_credential: Shares<String>,
    per_connection: Shares<SocketAddr>,
}

impl ReadShares {
    /// Shares of `limit` per credential, and half of it per connection.
    pub(super) fn new(limit: ReadLimit) -> ReadShares {
        let half = ReadLimit {
            share: limit.share / 2.0,
            burst: limit.burst / 2,
        };
        ReadShares {
            per_credential: Shares::new(limit),
            per_connection: Shares::new(half),
        }
    }

    /// Whether `reader` has time left, both on its connection and for its
    /// credential, at `now`.
    pub(super) fn allows(&mut self, reader: &Reader, now: Instant) -> bool {
        let connection = self.per_connection.allows(&reader.connection, now);
        let credential = self.per_credential.allows(&reader.credential, now);
        connection && credential
    }

    /// Charges `reader` with `spent` of the actor's time.
    pub(super) fn charge(&mut self, reader: &Reader, spent: Duration) {
        self.per_connection.charge(&reader.connection, spent);
        self.per_credential.charge(&reader.credential, spent);
    }
}

/// Shares of one limit, by key; full ones may be forgotten.
#[derive(Debug)]
struct Shares<K> {
    limit: ReadLimit,
    shares: HashMap<K, ReadShare>,
}

impl<K: Eq + Hash + Clone> Shares<K> {
    fn new(limit: ReadLimit) -> Shares<K> {
        Shares {
            limit,
            shares: HashMap::new(),
        }
    }

    fn allows(&mut self, key: &K, now: Instant) -> bool {
        if self.shares.len() > MAX_KEPT {
            self.shares.retain(|_, share| !share.full(now));
        }
        let limit = self.limit;
        self.shares
            .entry(key.clone())
            .or_insert_with(|| ReadShare::new(limit, now))
            .allows(now)
    }

    fn charge(&mut self, key: &K, spent: Duration) {
        if let Some(share) = self.shares.get_mut(key) {
            share.charge(spent);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit() -> ReadLimit {
        ReadLimit {
            share: 0.1,
            burst: Duration::from_millis(500),
        }
    }

    fn address(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    #[test]
    fn one_connection_takes_half_of_its_credentials_share() {
        let now = Instant::now();
        let mut shares = ReadShares::new(limit());
        let admin = crate::access::Grant::admin().principal();
        let (busy, other) = (
            Reader::new(admin.clone(), address(1)),
            Reader::new(admin.clone(), address(2)),
        );
        assert!(shares.allows(&busy, now));
        shares.charge(&busy, Duration::from_millis(260));
        assert!(!shares.allows(&busy, now), "the connection's half is spent");
        assert!(shares.allows(&other, now), "the credential has time left");
        shares.charge(&other, Duration::from_millis(260));
        let third = Reader::new(admin, address(3));
        assert!(
            !shares.allows(&third, now),
            "a new connection gets nothing once the credential's share is spent"
        );
        assert!(shares.allows(&third, now + Duration::from_secs(60)));
    }
}

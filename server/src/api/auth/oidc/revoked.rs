//! Sign-ins ended by a logout on this server: their cookie stops working
//! here at once (another node of a cluster still takes it until it
//! expires). An entry is kept until its cookie would have expired.

use std::collections::HashMap;
use std::sync::Mutex;

/// The ids of ended sign-ins, with their cookie's expiry.
#[derive(Debug, Default)]
pub struct Revoked {
    ended: Mutex<HashMap<String, u64>>,
}

impl Revoked {
    /// Ends the sign-in `id`, whose cookie expires at `exp`; forgets those
    /// expired at `now`.
    pub fn end(&self, id: &str, exp: u64, now: u64) {
        let mut ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
        ended.retain(|_, e| *e > now);
        ended.insert(id.to_owned(), exp);
    }

    /// True when the sign-in `id` was ended.
    pub fn is_ended(&self, id: &str) -> bool {
        let ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
        ended.contains_key(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_and_forgets_the_expired() {
        let revoked = Revoked::default();
        revoked.end("a", 100, 0);
        assert!(revoked.is_ended("a"));
        assert!(!revoked.is_ended("b"));
        revoked.end("b", 300, 200);
        assert!(!revoked.is_ended("a"), "expired: forgotten");
        assert!(revoked.is_ended("b"));
    }
}

//! Per-credential shares of a resource (stream slots, replay slots): one
//! credential holds at most so many at once, so it cannot take them all.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::access::Credential;

/// How many of a resource each credential holds now.
#[derive(Default)]
pub(super) struct Shares {
    held: Mutex<HashMap<String, usize>>,
}

/// One credential's hold on one unit, given back when dropped.
pub struct Share {
    shares: Arc<Shares>,
    who: String,
}

impl Shares {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, usize>> {
        // Every update is one insert, change or remove: consistent after a panic.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes one unit for `who`, or `None` when it holds `max` already.
    pub fn take(self: &Arc<Self>, who: &Credential, max: usize) -> Option<Share> {
        let who = who.to_string();
        let mut held = self.lock();
        let count = held.entry(who.clone()).or_default();
        if *count >= max {
            if *count == 0 {
                held.remove(&who);
            }
            return None;
        }
        *count += 1;
        Some(Share {
            shares: Arc::clone(self),
            who,
        })
    }

    /// How many units `who` holds.
    #[cfg(test)]
    fn held(&self, who: &Credential) -> usize {
        self.lock().get(&who.to_string()).copied().unwrap_or(0)
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut held = self.shares.lock();
        if let Some(count) = held.get_mut(&self.who) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.who);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_credential_holds_at_most_its_share_and_gets_it_back() {
        let shares = Arc::new(Shares::default());
        let (a, b) = (Credential::Link("a".into()), Credential::Link("b".into()));
        let first = shares.take(&a, 2).expect("first");
        let _second = shares.take(&a, 2).expect("second");
        assert!(shares.take(&a, 2).is_none(), "a holds its share");
        assert!(shares.take(&b, 2).is_some(), "b has its own");
        drop(first);
        assert_eq!(shares.held(&a), 1);
        assert!(shares.take(&a, 2).is_some(), "a's unit came back");
        assert!(shares.take(&a, 0).is_none());
        assert_eq!(
            shares.lock().len(),
            1,
            "no entry left for b, nothing for a zero share"
        );
    }
}

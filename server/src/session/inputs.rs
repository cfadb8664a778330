//! Each input once: a client (a page, a terminal client) numbers its input
//! messages and says so when it connects, so when a link drops it can send
//! again what it does not know was applied, and the session applies each
//! numbered input once, whichever connection (or node) brings it.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// How many clients' counts a session keeps; the one heard from longest
/// ago is forgotten first (a page gone for good).
const MAX_CLIENTS: usize = 256;

/// Who typed an input, and its number among that client's inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputTag {
    /// The client: 128 random bits it chose.
    pub client: u128,
    /// Its number, from 1, one per input message.
    pub seq: u64,
}

impl InputTag {
    /// A client id from its 32 hex digits; `None` when it is not one.
    pub fn parse_client(text: &str) -> Option<u128> {
        (text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u128::from_str_radix(text, 16).ok())
            .flatten()
    }
}

/// The last input applied of each client of one session.
#[derive(Debug, Default)]
pub(super) struct ClientInputs {
    clients: Mutex<HashMap<u128, (u64, Instant)>>,
}

/// An input taken to be applied: given back when it was not.
#[must_use = "an input not applied is given back with ClientInputs::give_back"]
pub(super) struct Taken {
    tag: InputTag,
    before: u64,
}

impl ClientInputs {
    /// Takes `tag`'s input to apply: `None` when it (or a later one of its
    /// client) was applied already.
    pub(super) fn take(&self, tag: InputTag) -> Option<Taken> {
        let mut clients = self.lock();
        let now = Instant::now();
        if clients.len() >= MAX_CLIENTS && !clients.contains_key(&tag.client) {
            let oldest = clients
                .iter()
                .min_by_key(|(_, (_, at))| *at)
                .map(|(c, _)| *c);
            if let Some(oldest) = oldest {
                clients.remove(&oldest);
            }
        }
        let entry = clients.entry(tag.client).or_insert((0, now));
        if tag.seq <= entry.0 {
            entry.1 = now;
            return None;
        }
        let before = entry.0;
        *entry = (tag.seq, now);
        Some(Taken { tag, before })
    }

    /// Gives back an input that was taken but not applied (refused by the
    /// rate limit, or the program was not reading): it may come again.
    pub(super) fn give_back(&self, taken: Taken) {
        let mut clients = self.lock();
        if let Some(entry) = clients.get_mut(&taken.tag.client) {
            if entry.0 == taken.tag.seq {
                entry.0 = taken.before;
            }
        }
    }

    /// Every client's last input applied, to carry across an upgrade.
    pub(super) fn export(&self) -> Vec<(u128, u64)> {
        self.lock()
            .iter()
            .map(|(client, (seq, _))| (*client, *seq))
            .collect()
    }

    /// Takes in what [`ClientInputs::export`] gave in an earlier process
    /// image: an input sent again after the upgrade is applied once.
    pub(super) fn import(&self, applied: impl IntoIterator<Item = (u128, u64)>) {
        let now = Instant::now();
        let mut clients = self.lock();
        for (client, seq) in applied.into_iter().take(MAX_CLIENTS) {
            let entry = clients.entry(client).or_insert((0, now));
            entry.0 = entry.0.max(seq);
        }
    }

    /// The last input of `client` applied; 0 when none.
    pub(super) fn applied(&self, client: u128) -> u64 {
        self.lock().get(&client).map_or(0, |(seq, _)| *seq)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u128, (u64, Instant)>> {
        // Each change is one insert, update or remove: whole after a panic.
        self.clients.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(client: u128, seq: u64) -> InputTag {
        InputTag { client, seq }
    }

    #[test]
    fn each_input_is_taken_once_and_a_refused_one_again() {
        let inputs = ClientInputs::default();
        assert_eq!(inputs.applied(7), 0);
        let first = inputs.take(tag(7, 1)).expect("new");
        drop(first);
        assert!(inputs.take(tag(7, 1)).is_none(), "a repeat");
        let second = inputs.take(tag(7, 2)).expect("new");
        assert_eq!(inputs.applied(7), 2);
        inputs.give_back(second);
        assert_eq!(inputs.applied(7), 1, "refused: it may come again");
        assert!(inputs.take(tag(7, 2)).is_some());
        // Another client counts on its own.
        assert!(inputs.take(tag(8, 1)).is_some());
        // An older one after a newer: already covered.
        assert!(inputs.take(tag(7, 1)).is_none());
    }

    #[test]
    fn what_was_applied_survives_an_export_and_import() {
        let before = ClientInputs::default();
        assert!(before.take(tag(7, 3)).is_some());
        assert!(before.take(tag(9, 1)).is_some());
        let after = ClientInputs::default();
        after.import(before.export());
        assert!(
            after.take(tag(7, 3)).is_none(),
            "applied before the upgrade"
        );
        assert!(after.take(tag(9, 1)).is_none());
        assert!(after.take(tag(7, 4)).is_some(), "a new one");
    }

    #[test]
    fn the_client_heard_from_longest_ago_is_forgotten_first() {
        let inputs = ClientInputs::default();
        for client in 0..MAX_CLIENTS as u128 {
            assert!(inputs.take(tag(client, 1)).is_some());
        }
        // Client 0 is heard from again: client 1 is now the oldest.
        assert!(inputs.take(tag(0, 2)).is_some());
        assert!(inputs.take(tag(9999, 1)).is_some());
        assert_eq!(inputs.applied(1), 0, "forgotten");
        assert_eq!(inputs.applied(0), 2);
    }

    #[test]
    fn client_ids_are_32_hex_digits() {
        assert_eq!(
            InputTag::parse_client("0123456789abcdef0123456789ABCDEF"),
            Some(0x0123456789abcdef0123456789abcdef)
        );
        for bad in [
            "",
            "0123",
            "0123456789abcdef0123456789abcdeg",
            "+123456789abcdef0123456789abcdef",
        ] {
            assert_eq!(InputTag::parse_client(bad), None, "{bad}");
        }
    }
}

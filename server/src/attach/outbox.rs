//! Numbered input that survives a dropped link (PROTOCOL.md, "Sync"), as
//! the web client's `outbox.js`. The attach names itself (`client`, random
//! per process) and numbers its input messages; each is kept until a
//! `Sync` says the program has had it. While the link is down what is
//! typed is held, up to a bound, and sent once on the next connection,
//! which starts its numbering (`input`) at the first message held: the
//! session applies each number once, so a message that did arrive before
//! the link dropped is not typed twice, and nothing is lost unless the
//! bound is reached (then it is dropped, and the attach says so).

use std::collections::VecDeque;

/// The most input messages held (sent and not yet acknowledged, or waiting
/// for the link), as the web client: a thousand keys typed blind is more
/// than anyone types before noticing the link is down.
pub const HELD_MESSAGES: usize = 1000;
/// The most bytes of them held (1 MiB, as the web client): a paste the
/// size of the protocol's largest message fits.
pub const HELD_BYTES: usize = 1 << 20;

/// One input message, encoded, and its number.
#[derive(Debug)]
struct Held {
    seq: u64,
    bytes: Vec<u8>,
}

/// The inputs of one attach, numbered from 1.
#[derive(Debug)]
pub struct Outbox {
    /// This attach's id: 32 hex digits.
    client: String,
    /// The number of the next input.
    next: u64,
    /// Inputs not yet acknowledged, oldest first.
    held: VecDeque<Held>,
    /// Their bytes.
    held_bytes: usize,
    /// A connection that may type is up: inputs go at once.
    open: bool,
}

impl Outbox {
    /// An outbox for the client `client` (32 hex digits).
    pub fn new(client: String) -> Outbox {
        Outbox {
            client,
            next: 1,
            held: VecDeque::new(),
            held_bytes: 0,
            open: false,
        }
    }

    /// Takes the next input message, `bytes`: its number, or `None` when
    /// the link is down and the bound is reached (it is dropped). On an open
    /// link the caller sends it; the oldest held make room, as the server
    /// has them unless this very connection drops before they arrive.
    pub fn push(&mut self, bytes: Vec<u8>) -> Option<u64> {
        let full =
            |o: &Outbox| o.held.len() >= HELD_MESSAGES || o.held_bytes + bytes.len() > HELD_BYTES;
        if full(self) && !self.open {
            return None;
        }
        while !self.held.is_empty() && full(self) {
            self.forget();
        }
        let seq = self.next;
        self.next += 1;
        self.held_bytes += bytes.len();
        self.held.push_back(Held { seq, bytes });
        Some(seq)
    }

    fn forget(&mut self) {
        if let Some(held) = self.held.pop_front() {
            self.held_bytes -= held.bytes.len();
        }
    }

    /// The program has had every input up to `input`.
    pub fn acked(&mut self, input: u64) {
        while self.held.front().is_some_and(|h| h.seq <= input) {
            self.forget();
        }
    }

    /// The next connection's query parameters: who this is, and the number
    /// of the first input message it will send.
    pub fn params(&self) -> (String, u64) {
        let first = self.held.front().map_or(self.next, |h| h.seq);
        (self.client.clone(), first)
    }

    /// Whether inputs go at once.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// A connection that may type is up: what is held goes, in order,
    /// before anything new (the caller sends what this returns).
    pub fn opened(&mut self) -> Vec<Vec<u8>> {
        self.open = true;
        self.held.iter().map(|h| h.bytes.clone()).collect()
    }

    /// The link is down: what is typed is held.
    pub fn closed(&mut self) {
        self.open = false;
    }

    /// A connection that cannot type: what was held is dropped (its numbers
    /// are never used again); how many.
    pub fn discard(&mut self) -> usize {
        let n = self.held.len();
        self.held.clear();
        self.held_bytes = 0;
        n
    }

    /// How many inputs wait for their acknowledgement.
    #[cfg(test)]
    pub fn waiting(&self) -> usize {
        self.held.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outbox() -> Outbox {
        Outbox::new("0123456789abcdef0123456789abcdef".into())
    }

    #[test]
    fn inputs_held_while_down_go_once_in_order_from_the_first_not_acknowledged() {
        let mut o = outbox();
        assert_eq!(o.params().1, 1);
        assert_eq!(o.push(b"a".to_vec()), Some(1));
        assert_eq!(o.opened(), [b"a".to_vec()]);
        assert_eq!(o.push(b"b".to_vec()), Some(2));
        assert_eq!(o.push(b"c".to_vec()), Some(3));
        o.acked(1);
        o.closed();
        assert_eq!(o.push(b"d".to_vec()), Some(4));
        // The next connection numbers from 2 and is sent 2, 3 and 4: the
        // session skips those it applied.
        assert_eq!(o.params().1, 2);
        assert_eq!(o.opened(), [b"b".to_vec(), b"c".to_vec(), b"d".to_vec()]);
        o.acked(4);
        assert_eq!((o.waiting(), o.params().1), (0, 5));
    }

    #[test]
    fn the_bound_drops_while_down_and_forgets_the_oldest_while_up() {
        let mut o = outbox();
        for _ in 0..HELD_MESSAGES {
            assert!(o.push(b"x".to_vec()).is_some());
        }
        assert_eq!(o.push(b"y".to_vec()), None, "down and full: dropped");
        o.opened();
        assert_eq!(o.push(b"y".to_vec()), Some(1001));
        assert_eq!(o.waiting(), HELD_MESSAGES);
        assert_eq!(o.params().1, 2, "the oldest made room");
        o.closed();
        assert_eq!(o.push(vec![0; HELD_BYTES]), None, "too big while down");
        assert_eq!(o.discard(), HELD_MESSAGES);
        assert_eq!(o.params().1, 1002, "numbers are never used again");
    }
}

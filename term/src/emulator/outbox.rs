//! What the emulator holds for its host to take: replies to the program,
//! clipboard text, the bell count.

use serde::{Deserialize, Serialize};

/// Replies a program can provoke are capped so it cannot grow them unread.
const MAX_REPLY_BYTES: usize = 64 * 1024;

/// The host's share. The field names are the saved state's (it is
/// flattened into the emulator's).
#[derive(Clone, Default, Serialize, Deserialize)]
pub(super) struct Outbox {
    /// Bytes to write back to the program.
    replies: Vec<u8>,
    /// The latest OSC 52 write, until the session takes it.
    pub clipboard: Option<String>,
    /// Bells rung so far.
    pub bells: u64,
}

impl Outbox {
    /// Takes the queued replies.
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.replies)
    }

    /// Queues a reply, unless the queue would pass [`MAX_REPLY_BYTES`].
    pub fn reply(&mut self, bytes: &[u8]) {
        if self.replies.len() + bytes.len() <= MAX_REPLY_BYTES {
            self.replies.extend_from_slice(bytes);
        }
    }

    /// Queues a formatted reply (bounded as [`Outbox::reply`]), written
    /// straight into the queue: no string is built for it.
    pub fn reply_fmt(&mut self, reply: std::fmt::Arguments) {
        use std::io::Write;
        let before = self.replies.len();
        // Writing to a Vec<u8> cannot fail: it only grows.
        let _ = self.replies.write_fmt(reply);
        if self.replies.len() > MAX_REPLY_BYTES {
            self.replies.truncate(before);
        }
    }
}

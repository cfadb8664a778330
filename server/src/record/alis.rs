//! ALiS v1, the asciinema live stream that asciinema-player's WebSocket
//! driver consumes (subprotocol `v1.alis`): after the magic string, binary
//! messages of a type byte and LEB128 fields. Times are microseconds, the
//! first absolute and then relative to the event before. Encoding only; the
//! route that streams it lives in the API.

/// The first message of a stream.
pub const MAGIC: &[u8] = b"ALiS\x01";
/// The WebSocket subprotocol.
pub const SUBPROTOCOL: &str = "v1.alis";
/// End of transmission: the stream is over.
pub const EOT: u8 = 0x04;

const RESET: u8 = 0x01;
const OUTPUT: u8 = b'o';
const RESIZE: u8 = b'r';
const EXIT: u8 = b'x';

/// Encodes the events of one stream, numbering them.
#[derive(Debug, Default)]
pub struct AlisEncoder {
    next_id: u64,
}

impl AlisEncoder {
    /// A reset: the terminal's size and the text that draws its screen, at
    /// `time_us` since the stream's start.
    pub fn reset(&mut self, time_us: u64, cols: u16, rows: u16, init: &str) -> Vec<u8> {
        let mut out = self.start(RESET, time_us);
        put(&mut out, cols.into());
        put(&mut out, rows.into());
        out.push(0); // no theme
        put_text(&mut out, init);
        out
    }

    /// Output `since_us` after the event before.
    pub fn output(&mut self, since_us: u64, text: &str) -> Vec<u8> {
        let mut out = self.start(OUTPUT, since_us);
        put_text(&mut out, text);
        out
    }

    /// A resize `since_us` after the event before.
    pub fn resize(&mut self, since_us: u64, cols: u16, rows: u16) -> Vec<u8> {
        let mut out = self.start(RESIZE, since_us);
        put(&mut out, cols.into());
        put(&mut out, rows.into());
        out
    }

    /// The program's exit with its status, `since_us` after the event before.
    pub fn exit(&mut self, since_us: u64, status: u32) -> Vec<u8> {
        let mut out = self.start(EXIT, since_us);
        put(&mut out, status.into());
        out
    }

    fn start(&mut self, kind: u8, time_us: u64) -> Vec<u8> {
        let mut out = vec![kind];
        put(&mut out, self.next_id);
        self.next_id += 1;
        put(&mut out, time_us);
        out
    }
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    put(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// Unsigned LEB128.
fn put(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_a_type_an_id_a_time_and_fields() {
        let mut alis = AlisEncoder::default();
        assert_eq!(
            alis.reset(300, 80, 24, "hi"),
            [0x01, 0, 0xac, 0x02, 80, 24, 0, 2, b'h', b'i']
        );
        assert_eq!(alis.output(1, "é"), [b'o', 1, 1, 2, 0xc3, 0xa9]);
        assert_eq!(alis.resize(0, 200, 50), [b'r', 2, 0, 0xc8, 0x01, 50]);
        assert_eq!(alis.exit(5, 3), [b'x', 3, 5, 3]);
    }
}

//! Standard input: read on a thread of its own (a blocking read), cut at
//! the detach key, and turned into text for `ClientMessage::Text` without
//! splitting a UTF-8 character across two messages.

use tokio::sync::mpsc;

/// What standard input gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Typed {
    /// Bytes to send (possibly none).
    Bytes(Vec<u8>),
    /// The detach key, after the bytes typed before it.
    Detach(Vec<u8>),
    /// Standard input ended or failed.
    End,
}

/// The detach key: a control character, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DetachKey(Option<u8>);

impl DetachKey {
    /// `ctrl-X` for X in `@`, `a`-`z`, `[`, `\`, `]`, `^`, `_` (any case),
    /// or `none`.
    pub fn parse(s: &str) -> Result<DetachKey, String> {
        if s.eq_ignore_ascii_case("none") {
            return Ok(DetachKey(None));
        }
        let key = s
            .strip_prefix("ctrl-")
            .or_else(|| s.strip_prefix("C-"))
            .or_else(|| s.strip_prefix("^"))
            .filter(|k| k.len() == 1)
            .map(|k| k.as_bytes()[0].to_ascii_uppercase())
            .filter(|b| (b'@'..=b'_').contains(b));
        match key {
            Some(b) => Ok(DetachKey(Some(b & 0x1f))),
            None => Err(format!(
                "'{s}' is not a detach key: use ctrl-X (X a letter or one of @[\\]^_) or none"
            )),
        }
    }

    /// The key as `--detach-key` takes it (`ctrl-\\`), if there is one.
    pub fn name(self) -> Option<String> {
        self.0
            .map(|b| format!("ctrl-{}", char::from(b | 0x40).to_ascii_lowercase()))
    }

    /// Splits `bytes` at the key.
    fn cut(self, mut bytes: Vec<u8>) -> Typed {
        match self.0.and_then(|key| bytes.iter().position(|&b| b == key)) {
            Some(at) => {
                bytes.truncate(at);
                Typed::Detach(bytes)
            }
            None => Typed::Bytes(bytes),
        }
    }
}

/// Starts the thread reading standard input; it stops after the detach key
/// or the end of input, or when the receiver is gone.
pub fn spawn(key: DetachKey) -> mpsc::Receiver<Typed> {
    let (tx, rx) = mpsc::channel(16);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            // SAFETY: read writes at most buf.len() bytes into buf.
            let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
            let typed = match n {
                n if n > 0 => key.cut(buf[..n as usize].to_vec()),
                _ if n < 0
                    && std::io::Error::last_os_error().kind()
                        == std::io::ErrorKind::Interrupted =>
                {
                    continue
                }
                _ => Typed::End,
            };
            let last = !matches!(typed, Typed::Bytes(_));
            if tx.blocking_send(typed).is_err() || last {
                return;
            }
        }
    });
    rx
}

/// Turns bytes into text, holding back an incomplete UTF-8 character at
/// the end until the rest arrives; invalid bytes become U+FFFD.
#[derive(Debug, Default)]
pub struct Utf8 {
    pending: Vec<u8>,
}

impl Utf8 {
    /// The text complete so far.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut text = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(s) => {
                    text.push_str(s);
                    self.pending.clear();
                    return text;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    // The prefix was just checked to be valid.
                    text.push_str(std::str::from_utf8(&self.pending[..valid]).unwrap_or_default());
                    match e.error_len() {
                        None => {
                            self.pending.drain(..valid);
                            return text;
                        }
                        Some(bad) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            self.pending.drain(..valid + bad);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detach_keys_are_control_characters() {
        assert_eq!(DetachKey::parse("ctrl-\\"), Ok(DetachKey(Some(0x1c))));
        assert_eq!(DetachKey::parse("ctrl-a"), Ok(DetachKey(Some(0x01))));
        assert_eq!(DetachKey::parse("^]"), Ok(DetachKey(Some(0x1d))));
        assert_eq!(DetachKey::parse("none"), Ok(DetachKey(None)));
        assert_eq!(DetachKey(Some(0x1c)).name().as_deref(), Some("ctrl-\\"));
        assert_eq!(DetachKey(Some(0x01)).name().as_deref(), Some("ctrl-a"));
        assert_eq!(DetachKey(None).name(), None);
        for bad in ["", "ctrl-", "ctrl-ab", "ctrl-1", "x"] {
            assert!(DetachKey::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_key_cuts_what_was_typed() {
        let key = DetachKey(Some(0x1c));
        assert_eq!(key.cut(b"ab\x1ccd".to_vec()), Typed::Detach(b"ab".to_vec()));
        assert_eq!(key.cut(b"ab".to_vec()), Typed::Bytes(b"ab".to_vec()));
        assert_eq!(
            DetachKey(None).cut(b"\x1c".to_vec()),
            Typed::Bytes(b"\x1c".to_vec())
        );
    }

    #[test]
    fn characters_split_across_reads_are_held_back() {
        let mut utf8 = Utf8::default();
        let e_acute = "é".as_bytes();
        assert_eq!(utf8.push(&[b'a', e_acute[0]]), "a");
        assert_eq!(utf8.push(&[e_acute[1], b'b']), "éb");
        assert_eq!(utf8.push(&[0xff, b'c']), "\u{fffd}c");
    }
}

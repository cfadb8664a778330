//! Turning a byte stream cut into chunks anywhere into text for `o` events:
//! a character split by a chunk boundary is held back until its end
//! arrives, so valid UTF-8 comes out byte for byte; bytes that are not
//! UTF-8 become U+FFFD, as asciinema writes them.

use std::borrow::Cow;

/// Decodes chunks of a byte stream as UTF-8.
#[derive(Debug, Default)]
pub struct Utf8Stream {
    /// The start of a character cut off by the end of the last chunk.
    held: Vec<u8>,
}

impl Utf8Stream {
    /// The text of `bytes`, after what was held back from the last chunk;
    /// a character cut off at the end is held back for the next call.
    /// Borrowed from `bytes`, without a copy, in the common case: nothing
    /// held back and nothing invalid.
    pub fn decode<'a>(&mut self, bytes: &'a [u8]) -> Cow<'a, str> {
        if self.held.is_empty() {
            match std::str::from_utf8(bytes) {
                Ok(text) => return Cow::Borrowed(text),
                Err(error) if error.error_len().is_none() => {
                    let (valid, cut) = bytes.split_at(error.valid_up_to());
                    self.held.extend_from_slice(cut);
                    // `valid_up_to` bytes were checked, so this never falls back.
                    return Cow::Borrowed(std::str::from_utf8(valid).unwrap_or_default());
                }
                Err(_) => {}
            }
        }
        Cow::Owned(self.decode_slowly(bytes))
    }

    /// [`Utf8Stream::decode`] with held-back or invalid bytes.
    fn decode_slowly(&mut self, bytes: &[u8]) -> String {
        let joined;
        let mut rest: &[u8] = if self.held.is_empty() {
            bytes
        } else {
            self.held.extend_from_slice(bytes);
            joined = std::mem::take(&mut self.held);
            &joined
        };
        let mut text = String::with_capacity(rest.len());
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    return text;
                }
                Err(error) => {
                    let (valid, after) = rest.split_at(error.valid_up_to());
                    // `valid_up_to` bytes were checked, so this never falls back.
                    text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match error.error_len() {
                        Some(bad) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[bad..];
                        }
                        None => {
                            self.held.extend_from_slice(after);
                            return text;
                        }
                    }
                }
            }
        }
    }

    /// What is still held back, as text (U+FFFD for a cut character), for
    /// the end of the stream.
    pub fn finish(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        String::from_utf8_lossy(&held).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_split_anywhere_come_out_whole() {
        let text = "a€b😀c é";
        let bytes = text.as_bytes();
        for cut in 0..=bytes.len() {
            let mut stream = Utf8Stream::default();
            let mut out = stream.decode(&bytes[..cut]).into_owned();
            out.push_str(&stream.decode(&bytes[cut..]));
            assert_eq!(out, text, "cut at {cut}");
            assert_eq!(stream.finish(), "");
        }
    }

    #[test]
    fn invalid_bytes_become_replacement_characters() {
        let mut stream = Utf8Stream::default();
        assert_eq!(stream.decode(b"a\xffb\xc3"), "a\u{fffd}b");
        assert_eq!(stream.finish(), "\u{fffd}");
    }
}

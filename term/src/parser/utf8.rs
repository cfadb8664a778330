//! UTF-8 text in the ground state: runs of non-ASCII bytes decoded at once,
//! invalid bytes shown as U+FFFD (a lone byte `0x80..=0x9f` is an 8-bit C1
//! control and reaches the caller as that code point), and a character cut
//! by the end of a chunk completed from the next.

use serde::{Deserialize, Serialize};

/// Replacement for an invalid or cut-off sequence.
const REPLACEMENT: char = '\u{fffd}';

/// The start of a character cut off by the end of the last chunk.
#[derive(Clone, Default, Serialize, Deserialize)]
pub(super) struct Partial {
    bytes: [u8; 4],
    len: usize,
}

impl Partial {
    /// True while a cut-off character waits for its end.
    #[inline]
    pub(super) fn is_pending(&self) -> bool {
        self.len != 0
    }

    /// True when the bytes held are fewer than a whole character (a state
    /// read back is checked with this before use).
    pub(super) fn is_consistent(&self) -> bool {
        self.len < self.bytes.len()
    }

    /// Completes the pending character from the start of `bytes`, calling
    /// `emit` once it is decoded (or found invalid). Returns how many bytes
    /// of `bytes` it used.
    pub(super) fn complete(&mut self, bytes: &[u8], mut emit: impl FnMut(char)) -> usize {
        let had = self.len;
        let take = bytes.len().min(self.bytes.len() - had);
        self.bytes[had..had + take].copy_from_slice(&bytes[..take]);
        self.len += take;
        let used = match decode(&self.bytes[..self.len]) {
            Decoded::Char(c, n) => {
                emit(c);
                n
            }
            Decoded::Invalid(n) => {
                emit(REPLACEMENT);
                n
            }
            // Still not complete: everything was taken.
            Decoded::Incomplete => return take,
        };
        self.len = 0;
        // What follows the character is read again from `bytes`.
        used.saturating_sub(had)
    }
}

/// The first character of a byte string starting with a non-ASCII byte.
#[derive(Debug, PartialEq)]
enum Decoded {
    /// A character and its length in bytes.
    Char(char, usize),
    /// An invalid sequence of this many bytes (its longest prefix that could
    /// have started a character, at least 1), as `str::from_utf8` counts it.
    Invalid(usize),
    /// A valid start cut off by the end of the bytes.
    Incomplete,
}

/// True for a continuation byte (`10xxxxxx`).
#[inline(always)]
fn continuation(b: u8) -> bool {
    b & 0xc0 == 0x80
}

/// Decodes the first character of `bytes` (`bytes[0] >= 0x80`).
#[inline(always)]
fn decode(bytes: &[u8]) -> Decoded {
    let lead = bytes[0];
    match lead {
        0xc2..=0xdf => match bytes.get(1) {
            None => Decoded::Incomplete,
            Some(&b1) if continuation(b1) => Decoded::Char(scalar(two_byte(lead, b1)), 2),
            Some(_) => Decoded::Invalid(1),
        },
        0xe0..=0xef => {
            // The second byte's range excludes overlong forms (after E0) and
            // surrogates (after ED).
            let second = match lead {
                0xe0 => 0xa0..=0xbf,
                0xed => 0x80..=0x9f,
                _ => 0x80..=0xbf,
            };
            match (bytes.get(1), bytes.get(2)) {
                (None, _) => Decoded::Incomplete,
                (Some(b1), _) if !second.contains(b1) => Decoded::Invalid(1),
                (Some(_), None) => Decoded::Incomplete,
                (Some(&b1), Some(&b2)) if continuation(b2) => {
                    Decoded::Char(scalar(three_byte(lead, b1, b2)), 3)
                }
                (Some(_), Some(_)) => Decoded::Invalid(2),
            }
        }
        0xf0..=0xf4 => {
            // After F0 no overlong forms; after F4 nothing past U+10FFFF.
            let second = match lead {
                0xf0 => 0x90..=0xbf,
                0xf4 => 0x80..=0x8f,
                _ => 0x80..=0xbf,
            };
            let mut code = u32::from(lead & 0x07);
            for i in 1..4 {
                let Some(&b) = bytes.get(i) else {
                    return Decoded::Incomplete;
                };
                let fits = if i == 1 {
                    second.contains(&b)
                } else {
                    continuation(b)
                };
                if !fits {
                    return Decoded::Invalid(i);
                }
                code = (code << 6) | u32::from(b & 0x3f);
            }
            Decoded::Char(scalar(code), 4)
        }
        _ => Decoded::Invalid(1),
    }
}

/// The first character of `bytes` when it is a whole, valid two- or
/// three-byte sequence (most text that is not ASCII); `None` sends
/// everything else to [`decode`].
#[inline(always)]
fn decode_common(bytes: &[u8]) -> Option<(char, usize)> {
    match *bytes {
        [lead @ 0xc2..=0xdf, b1, ..] if continuation(b1) => {
            Some((char::from_u32(two_byte(lead, b1))?, 2))
        }
        [lead @ 0xe0..=0xef, b1, b2, ..] if continuation(b1) && continuation(b2) => {
            let code = three_byte(lead, b1, b2);
            // Overlong forms decode below U+0800; surrogates are no scalar.
            if code < 0x800 {
                return None;
            }
            Some((char::from_u32(code)?, 3))
        }
        _ => None,
    }
}

/// The code point of a two-byte sequence (lead `110xxxxx`).
#[inline(always)]
fn two_byte(lead: u8, b1: u8) -> u32 {
    (u32::from(lead & 0x1f) << 6) | u32::from(b1 & 0x3f)
}

/// The code point of a three-byte sequence (lead `1110xxxx`).
#[inline(always)]
fn three_byte(lead: u8, b1: u8, b2: u8) -> u32 {
    (u32::from(lead & 0x0f) << 12) | (u32::from(b1 & 0x3f) << 6) | u32::from(b2 & 0x3f)
}

/// A code point the byte ranges above guarantee is a scalar value.
#[inline(always)]
fn scalar(code: u32) -> char {
    char::from_u32(code).unwrap_or(REPLACEMENT)
}

/// Decodes the run of non-ASCII bytes starting at `bytes[start]`, calling
/// `emit` for each character, and returns the index after what it used. An
/// incomplete character at the very end of `bytes` goes to `partial`.
#[inline]
pub(super) fn decode_run(
    bytes: &[u8],
    start: usize,
    partial: &mut Partial,
    mut emit: impl FnMut(char),
) -> usize {
    let mut i = start;
    while let Some(&b) = bytes.get(i) {
        if b < 0x80 {
            break;
        }
        if let Some((c, n)) = decode_common(&bytes[i..]) {
            emit(c);
            i += n;
            continue;
        }
        match decode(&bytes[i..]) {
            Decoded::Char(c, n) => {
                emit(c);
                i += n;
            }
            // A lone byte 0x80-0x9f: an 8-bit C1 control.
            Decoded::Invalid(1) if b <= 0x9f => {
                emit(char::from(b));
                i += 1;
            }
            Decoded::Invalid(n) => {
                emit(REPLACEMENT);
                i += n;
            }
            Decoded::Incomplete => {
                let rest = &bytes[i..];
                partial.bytes[..rest.len()].copy_from_slice(rest);
                partial.len = rest.len();
                return bytes.len();
            }
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path for two- and three-byte characters reads every lead,
    /// every second byte and an alphabet of third bytes as `decode` does,
    /// and leaves to it whatever it does not take.
    #[test]
    fn the_common_path_agrees_with_decode() {
        let thirds = [
            0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xe0, 0xff,
        ];
        let mut taken = 0;
        for lead in 0x80..=0xffu8 {
            for b1 in 0..=0xffu8 {
                for &b2 in &thirds {
                    for bytes in [&[lead, b1][..], &[lead, b1, b2][..]] {
                        if let Some((c, n)) = decode_common(bytes) {
                            assert_eq!(decode(bytes), Decoded::Char(c, n), "{bytes:x?}");
                            taken += 1;
                        }
                    }
                }
            }
        }
        // Every valid two-byte character and the valid three-byte ones.
        assert!(taken > 30 * 64 * 12, "{taken}");
    }

    /// Every byte string of up to three bytes from an interesting alphabet
    /// decodes as `str::from_utf8` reads it.
    #[test]
    fn decoding_agrees_with_the_standard_library() {
        let alphabet = [
            0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed,
            0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff, b'a',
        ];
        let mut cases = Vec::new();
        for &a in &alphabet[..alphabet.len() - 1] {
            cases.push(vec![a]);
            for &b in &alphabet {
                cases.push(vec![a, b]);
                for &c in &alphabet {
                    cases.push(vec![a, b, c]);
                    cases.push(vec![a, b, c, 0xbf]);
                }
            }
        }
        for bytes in cases {
            let expected = match std::str::from_utf8(&bytes) {
                Ok(text) => {
                    let c = text.chars().next().unwrap();
                    Decoded::Char(c, c.len_utf8())
                }
                Err(e) if e.valid_up_to() > 0 => {
                    let text = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap();
                    let c = text.chars().next().unwrap();
                    Decoded::Char(c, c.len_utf8())
                }
                Err(e) => match e.error_len() {
                    Some(n) => Decoded::Invalid(n),
                    None => Decoded::Incomplete,
                },
            };
            assert_eq!(decode(&bytes), expected, "{bytes:x?}");
        }
    }
}

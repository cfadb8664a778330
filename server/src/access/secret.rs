//! Secrets: generating them, checking their characters, hashing them for
//! storage, and comparing them in constant time.

use sha2::{Digest, Sha256};

/// A SHA-256 digest of a secret: all the server keeps of keys and links.
pub type SecretHash = [u8; 32];

/// The shortest admin token `serve` accepts: shorter ones can be guessed.
pub const MIN_ADMIN_TOKEN_LEN: usize = 16;

/// Checks an admin token given to `serve`: at least
/// [`MIN_ADMIN_TOKEN_LEN`] characters, all of them ones [`valid_token`]
/// allows.
pub fn check_admin_token(token: &str) -> Result<(), WeakAdminToken> {
    if token.len() < MIN_ADMIN_TOKEN_LEN || !valid_token(token) {
        return Err(WeakAdminToken);
    }
    Ok(())
}

/// An admin token too short to resist guessing, or with characters a
/// token may not use.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the admin token must be {MIN_ADMIN_TOKEN_LEN} to 256 letters, digits, '-', '_', '.' or '~' \
     (`panecast key` prints a fresh one)"
)]
pub struct WeakAdminToken;

/// Characters a token may use: URL-unreserved ones, safe unescaped in a
/// header, a cookie, a WebSocket subprotocol and a URL fragment.
pub fn valid_token(token: &str) -> bool {
    (1..=256).contains(&token.len())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~'))
}

/// A fresh random secret: 128 bits as 32 hex digits.
pub fn generate() -> Result<String, getrandom::Error> {
    crate::random::hex128()
}

/// The SHA-256 digest of `secret`.
pub fn hash(secret: &[u8]) -> SecretHash {
    Sha256::digest(secret).into()
}

/// `hash` as 64 lowercase hex digits, as `[[keys]] sha256` holds it.
pub fn hex(hash: &SecretHash) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// Parses 64 hex digits into a digest.
pub fn parse_hex(text: &str) -> Option<SecretHash> {
    let text = text.as_bytes();
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (byte, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
        let pair = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(out)
}

/// Compares in time that depends only on the lengths, never on where the
/// first difference is: every byte is looked at, with no early exit.
pub fn same(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    difference(given.iter().copied().zip(expected.iter().copied())) == 0
}

/// ORs together the XOR of every pair: zero only when all pairs are equal.
/// It consumes the whole iterator whatever it finds.
fn difference(pairs: impl Iterator<Item = (u8, u8)>) -> u8 {
    let folded = pairs.fold(0u8, |acc, (a, b)| acc | (a ^ b));
    std::hint::black_box(folded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_tokens() {
        assert!(same(b"secret", b"secret"));
        assert!(!same(b"secret", b"secreT"));
        assert!(!same(b"secret", b"Secret"));
        assert!(!same(b"secret", b"secrets"));
        assert!(!same(b"", b"x"));
    }

    #[test]
    fn the_compare_reads_every_byte_whatever_differs() {
        // A timing attack needs an early exit; the fold has none. Count the
        // pairs it consumes when the first, the last, or no byte differs.
        for (a, b) in [
            (b"xbcdef", b"abcdef"),
            (b"abcdex", b"abcdef"),
            (b"abcdef", b"abcdef"),
        ] {
            let mut seen = 0;
            let pairs = a.iter().zip(b.iter()).map(|(x, y)| {
                seen += 1;
                (*x, *y)
            });
            let _ = difference(pairs);
            assert_eq!(seen, 6);
        }
    }

    #[test]
    fn token_characters() {
        assert!(valid_token("abc-DEF_0.9~"));
        assert!(!valid_token(""));
        assert!(!valid_token("a b"));
        assert!(!valid_token("a;b"));
        assert!(!valid_token("a,b"));
        assert!(!valid_token(&"x".repeat(257)));
    }

    #[test]
    fn hashes_round_trip_through_hex() {
        let h = hash(b"abc");
        assert_eq!(
            hex(&h),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(parse_hex(&hex(&h)), Some(h));
        assert_eq!(parse_hex("zz"), None);
        assert_eq!(parse_hex(&"g".repeat(64)), None);
    }

    #[test]
    fn generated_secrets_are_valid_tokens() {
        let a = generate().expect("randomness");
        assert!(valid_token(&a));
        assert_ne!(a, generate().expect("randomness"));
    }
}

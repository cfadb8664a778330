//! Sealed cookie values: a JSON payload with its expiry, signed with
//! HMAC-SHA256, as `PAYLOAD.MAC` (both base64url). The key derives from
//! the [`CookieKey`] and the cookie's purpose, so every node with the same
//! key opens what another sealed, and a value sealed for one cookie is no
//! value of the other. Sealed values are signed, not encrypted: they hold
//! nothing the browser may not read.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::cookie_key::CookieKey;

type HmacSha256 = Hmac<Sha256>;

/// Signs and checks the values of one kind of cookie.
#[derive(Clone)]
pub struct Sealer {
    key: [u8; 32],
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(..)")
    }
}

/// What is signed: the value and when it stops being good.
#[derive(Serialize, Deserialize)]
struct Envelope<T> {
    /// Expiry, in seconds since the Unix epoch.
    exp: u64,
    /// The value.
    v: T,
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Sealer {
    /// The sealer of cookies for `purpose`, keyed by `key`.
    pub fn new(key: &CookieKey, purpose: &str) -> Sealer {
        let mut mac = mac(key.bytes());
        mac.update(b"panecast oidc cookie v2: ");
        mac.update(purpose.as_bytes());
        Sealer {
            key: mac.finalize().into_bytes().into(),
        }
    }

    /// `value`, good until `exp` (seconds since the epoch), sealed.
    pub fn seal<T: Serialize>(&self, value: &T, exp: u64) -> String {
        // A struct of strings and numbers always serializes.
        let json = serde_json::to_vec(&Envelope { exp, v: value }).unwrap_or_default();
        let payload = URL_SAFE_NO_PAD.encode(json);
        let mut mac = mac(&self.key);
        mac.update(payload.as_bytes());
        let tag = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{payload}.{tag}")
    }

    /// The value `text` seals, when this sealer sealed it and it has not
    /// expired at `now`.
    pub fn open<T: DeserializeOwned>(&self, text: &str, now: u64) -> Option<T> {
        let (payload, tag) = text.split_once('.')?;
        let tag = URL_SAFE_NO_PAD.decode(tag).ok()?;
        let mut mac = mac(&self.key);
        mac.update(payload.as_bytes());
        mac.verify_slice(&tag).ok()?;
        let json = URL_SAFE_NO_PAD.decode(payload).ok()?;
        let envelope: Envelope<T> = serde_json::from_slice(&json).ok()?;
        (now < envelope.exp).then_some(envelope.v)
    }
}

fn mac(key: &[u8]) -> HmacSha256 {
    // HMAC takes a key of any length.
    <HmacSha256 as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(secret: &str) -> CookieKey {
        CookieKey::derived(secret.as_bytes())
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Value {
        user: String,
    }

    fn alice() -> Value {
        Value {
            user: "alice".into(),
        }
    }

    #[test]
    fn opens_what_it_sealed_until_it_expires() {
        let sealer = Sealer::new(&key("secret"), "session");
        let sealed = sealer.seal(&alice(), 1000);
        assert!(sealed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)));
        assert_eq!(sealer.open::<Value>(&sealed, 999), Some(alice()));
        assert_eq!(sealer.open::<Value>(&sealed, 1000), None, "expired");
        // Another node with the same secret opens it.
        let other = Sealer::new(&key("secret"), "session");
        assert_eq!(other.open::<Value>(&sealed, 10), Some(alice()));
    }

    #[test]
    fn refuses_a_forgery() {
        let sealer = Sealer::new(&key("secret"), "session");
        let sealed = sealer.seal(&alice(), 1000);
        let (payload, tag) = sealed.split_once('.').expect("two parts");
        // The payload changed: mallory instead of alice, same tag.
        let json = String::from_utf8(URL_SAFE_NO_PAD.decode(payload).expect("b64")).expect("utf8");
        let forged = URL_SAFE_NO_PAD.encode(json.replace("alice", "mallo"));
        assert_eq!(sealer.open::<Value>(&format!("{forged}.{tag}"), 1), None);
        // A later expiry, same tag.
        let later = URL_SAFE_NO_PAD.encode(json.replace("1000", "9999"));
        assert_eq!(sealer.open::<Value>(&format!("{later}.{tag}"), 1), None);
        // A tag of another key or purpose, a cut tag, no tag, garbage.
        let other_key = Sealer::new(&key("other"), "session").seal(&alice(), 1000);
        assert_eq!(sealer.open::<Value>(&other_key, 1), None);
        let other_purpose = Sealer::new(&key("secret"), "login").seal(&alice(), 1000);
        assert_eq!(sealer.open::<Value>(&other_purpose, 1), None);
        assert_eq!(sealer.open::<Value>(&sealed[..sealed.len() - 2], 1), None);
        assert_eq!(sealer.open::<Value>(payload, 1), None);
        assert_eq!(sealer.open::<Value>("", 1), None);
        assert_eq!(sealer.open::<Value>("..", 1), None);
    }
}

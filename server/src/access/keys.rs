//! Keys from the config file (`[[keys]]`): named secrets, stored only as
//! SHA-256 digests, each with a role and an optional scope.

use serde::Deserialize;

use super::secret::{self, SecretHash};
use super::Role;

/// One `[[keys]]` entry of the config.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyConfig {
    /// Shown in logs and in `/api/me`; never secret.
    pub name: String,
    /// Hex SHA-256 digest of the secret (`panecast key` prints both).
    pub sha256: String,
    /// What the key may do.
    pub role: Role,
    /// Names of the sessions it may reach; absent means every session.
    #[serde(default)]
    pub sessions: Option<Vec<String>>,
    /// Profiles it may start sessions from (control and admin keys only).
    /// For an admin key, empty means every profile.
    #[serde(default)]
    pub profiles: Vec<String>,
    /// Whether it may read `/metrics` (admin keys always may).
    #[serde(default)]
    pub metrics: bool,
}

impl KeyConfig {
    /// Checks the entry: a name, a well-formed digest, no profiles on a
    /// view key.
    pub fn validate(&self) -> Result<SecretHash, KeyError> {
        if self.name.is_empty() || self.name.len() > 64 {
            return Err(KeyError::NoName);
        }
        let digest = secret::parse_hex(&self.sha256)
            .ok_or_else(|| KeyError::BadDigest(self.name.clone()))?;
        if self.role == Role::View && !self.profiles.is_empty() {
            return Err(KeyError::ViewStarts(self.name.clone()));
        }
        Ok(digest)
    }
}

/// What is wrong with a `[[keys]]` entry; each names the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The name is empty or too long.
    #[error("keys: every key needs a name of 1 to 64 characters")]
    NoName,
    /// The digest is not 64 hex digits.
    #[error("keys.{0}: sha256 must be 64 hex digits (panecast key prints one)")]
    BadDigest(String),
    /// A view key lists profiles it could never start.
    #[error("keys.{0}: a view key cannot start sessions; remove its profiles")]
    ViewStarts(String),
}

/// The line `panecast key` prints for a fresh secret.
pub fn config_entry(secret: &str) -> String {
    format!(
        "[[keys]]\nname = \"NAME\"\nsha256 = \"{}\"\nrole = \"view\"          # view | control | admin\n# sessions = [\"htop\"]   # session names it may reach; omit for all\n# profiles = []          # profiles it may start (control and admin only)\n",
        secret::hex(&secret::hash(secret.as_bytes()))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(role: Role, profiles: &[&str]) -> KeyConfig {
        KeyConfig {
            name: "k".into(),
            sha256: secret::hex(&secret::hash(b"s")),
            role,
            sessions: None,
            profiles: profiles.iter().map(|p| p.to_string()).collect(),
            metrics: false,
        }
    }

    #[test]
    fn validates_entries() {
        assert!(key(Role::View, &[]).validate().is_ok());
        assert!(key(Role::Control, &["shell"]).validate().is_ok());
        assert!(key(Role::View, &["shell"]).validate().is_err());
        let mut bad = key(Role::Admin, &[]);
        bad.sha256 = "abc".into();
        assert_eq!(bad.validate(), Err(KeyError::BadDigest(bad.name.clone())));
        let mut nameless = key(Role::Admin, &[]);
        nameless.name.clear();
        assert!(nameless.validate().is_err());
    }

    #[test]
    fn the_printed_entry_holds_the_digest() {
        let entry = config_entry("hello");
        assert!(entry.contains(&secret::hex(&secret::hash(b"hello"))));
        assert!(!entry.contains("hello\""));
    }
}

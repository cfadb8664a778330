//! The key sign-in cookies are sealed with. Nothing a session can read
//! derives it: on one node it is 256 random bits the server makes for
//! itself, kept in `[auth.oidc] cookie_key_file` (0600, the server's
//! user's, made on the first start and refused when anyone else may read
//! or wrote it); in a cluster it derives from the bus key every node holds
//! (itself private), so a cookie sealed on one node opens on every other.
//! The client secret, which the provider knows too, has no part in it.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Why the key at `cookie_key_file` cannot be used; each says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum CookieKeyError {
    /// The file could not be made.
    #[error("cannot make cookie_key_file {path}: {source}")]
    Make {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file could not be read.
    #[error("cannot read cookie_key_file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The path is a link, a directory or another non-regular file.
    #[error("cookie_key_file {path} is not a regular file")]
    NotAFile {
        /// The file.
        path: String,
    },
    /// Another user owns the file, and may have written it.
    #[error(
        "cookie_key_file {path} belongs to uid {owner}, not to the server's user \
         (uid {me}), who may have written it: remove it, and the server makes a new one"
    )]
    NotOwned {
        /// The file.
        path: String,
        /// Its owner.
        owner: u32,
        /// The server's user.
        me: u32,
    },
    /// The file is not private, or empty (see [`crate::secret_file::read`]).
    #[error(transparent)]
    Secret(#[from] crate::secret_file::SecretFileError),
    /// The file holds no key.
    #[error(
        "cookie_key_file {path} holds no key (64 hex digits): remove it, and the \
         server makes a new one"
    )]
    NoKey {
        /// The file.
        path: String,
    },
}

/// The key the cookies' [`Sealer`](super::seal::Sealer)s derive from.
#[derive(Clone)]
pub struct CookieKey([u8; 32]);

impl std::fmt::Debug for CookieKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CookieKey(..)")
    }
}

impl CookieKey {
    /// The key derived from `secret`, a key only the cluster's nodes hold.
    pub fn derived(secret: &[u8]) -> CookieKey {
        // HMAC takes a key of any length.
        let mut mac =
            <Hmac<Sha256> as Mac>::new_from_slice(secret).unwrap_or_else(|_| unreachable!());
        mac.update(b"panecast oidc cookie key v2");
        CookieKey(mac.finalize().into_bytes().into())
    }

    /// The key kept at `path`, made there (0600) when there is none.
    pub fn load_or_create(path: &Path) -> Result<CookieKey, CookieKeyError> {
        let shown = path.display().to_string();
        match create(path) {
            Ok(key) => {
                tracing::info!(path = %shown, "made a new key for sign-in cookies");
                return Ok(key);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(source) => {
                return Err(CookieKeyError::Make {
                    path: shown,
                    source,
                })
            }
        }
        let meta = match std::fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(source) => {
                return Err(CookieKeyError::Read {
                    path: shown,
                    source,
                })
            }
        };
        if !meta.file_type().is_file() {
            return Err(CookieKeyError::NotAFile { path: shown });
        }
        let owner = meta.uid();
        // SAFETY: geteuid cannot fail.
        let me = unsafe { libc::geteuid() };
        if owner != me {
            return Err(CookieKeyError::NotOwned {
                path: shown,
                owner,
                me,
            });
        }
        let text = crate::secret_file::read(path, "cookie_key_file")?;
        parse(&text).ok_or(CookieKeyError::NoKey { path: shown })
    }

    /// The key's bytes, for the sealers.
    pub(super) fn bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

/// Makes a new key at `path`: never follows a link, never overwrites, and
/// appears whole (written beside it, then linked in), so a process that
/// starts at the same moment reads the key, never an empty file.
fn create(path: &Path) -> std::io::Result<CookieKey> {
    let key = crate::random::key256().map_err(std::io::Error::other)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let draft = path.with_file_name(format!(
        ".{name}.{}.new",
        crate::random::hex128().map_err(std::io::Error::other)?
    ));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&draft)?;
        let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
        file.write_all(format!("{hex}\n").as_bytes())?;
        file.sync_all()?;
        // Fails with AlreadyExists when anything is at `path`, a link too.
        std::fs::hard_link(&draft, path)
    })();
    let _ = std::fs::remove_file(&draft);
    written.map(|()| CookieKey(key))
}

/// A key from its 64 hex digits.
fn parse(text: &str) -> Option<CookieKey> {
    crate::access::secret::parse_hex(text).map(CookieKey)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "panecast-cookie-key-{}",
            crate::random::hex128().expect("random")
        ));
        std::fs::create_dir(&dir).expect("mkdir");
        dir
    }

    #[test]
    fn made_once_private_and_read_back_the_same() {
        let dir = dir();
        let path = dir.join("cookie.key");
        let made = CookieKey::load_or_create(&path).expect("made");
        let mode = std::fs::metadata(&path)
            .expect("there")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let read = CookieKey::load_or_create(&path).expect("read back");
        assert_eq!(made.bytes(), read.bytes());
        // Another file, another key.
        let other = CookieKey::load_or_create(&dir.join("other.key")).expect("made");
        assert_ne!(made.bytes(), other.bytes());
        std::fs::write(&path, "not a key\n").expect("write");
        let err = CookieKey::load_or_create(&path).unwrap_err();
        assert!(matches!(err, CookieKeyError::NoKey { .. }), "{err}");
        assert!(err.to_string().contains("holds no key"), "{err}");
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn two_processes_starting_together_read_one_key() {
        // The second reads the file while the first writes it: it must
        // never see it empty (a test's server and the test did).
        for _ in 0..200 {
            let dir = dir();
            let path = dir.join("cookie.key");
            let keys: Vec<[u8; 32]> = std::thread::scope(|scope| {
                let racers: Vec<_> = (0..4)
                    .map(|_| scope.spawn(|| CookieKey::load_or_create(&path).map(|k| *k.bytes())))
                    .collect();
                racers
                    .into_iter()
                    .map(|r| r.join().expect("no panic").expect("a key"))
                    .collect()
            });
            assert!(keys.iter().all(|k| *k == keys[0]), "one key for all");
            let left: Vec<_> = std::fs::read_dir(&dir).expect("read").collect();
            assert_eq!(left.len(), 1, "no draft left behind");
            std::fs::remove_dir_all(&dir).expect("cleanup");
        }
    }

    #[test]
    fn a_link_is_not_followed() {
        let dir = dir();
        let target = dir.join("elsewhere");
        let link = dir.join("cookie.key");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        let err = CookieKey::load_or_create(&link).unwrap_err();
        assert!(matches!(err, CookieKeyError::NotAFile { .. }), "{err}");
        assert!(!target.exists(), "nothing was written through the link");
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn derived_keys_depend_on_the_secret() {
        let a = CookieKey::derived(b"bus key a");
        assert_eq!(a.bytes(), CookieKey::derived(b"bus key a").bytes());
        assert_ne!(a.bytes(), CookieKey::derived(b"bus key b").bytes());
    }
}

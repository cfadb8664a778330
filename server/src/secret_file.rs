//! Secrets the server reads from files: the admin token, the OpenID
//! client secret, the proxy's proof and the cluster's bus key. One rule
//! for all of them: where sessions run as uids of their own, a file that
//! anyone but its owner may read is refused at start (as ssh refuses a
//! key), because a session could read it; where sessions run as the
//! server's own user, a mode keeps nothing from them, and the file is
//! taken as it is.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Why a secret's file was refused; each message names the file, what it
/// holds, and how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum SecretFileError {
    /// The file or its metadata could not be read.
    #[error("cannot read {what} {}: {source}", path.display())]
    Unreadable {
        /// What the file holds.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Others than its owner may read the file, and sessions run as uids
    /// of their own.
    #[error(
        "cannot read {what} {shown}: it may be read by other users (mode {mode:03o}), so \
         sessions could read it; run chmod 600 {shown}",
        shown = path.display()
    )]
    Shared {
        /// What the file holds.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The file holds nothing but whitespace.
    #[error("{what} {} is empty", path.display())]
    Empty {
        /// What the file holds.
        what: &'static str,
        /// The file.
        path: PathBuf,
    },
}

/// The secret in the file at `path` (surrounding whitespace trimmed), or
/// why the file holding `what` was refused.
pub fn read(path: &Path, what: &'static str) -> Result<String, SecretFileError> {
    check_private(path, what)?;
    let text = std::fs::read_to_string(path).map_err(|source| SecretFileError::Unreadable {
        what,
        path: path.to_owned(),
        source,
    })?;
    let secret = text.trim();
    if secret.is_empty() {
        return Err(SecretFileError::Empty {
            what,
            path: path.to_owned(),
        });
    }
    Ok(secret.to_owned())
}

/// Checks that the file at `path`, which holds a secret (`what`), is
/// private as [`read`] requires.
pub fn check_private(path: &Path, what: &'static str) -> Result<(), SecretFileError> {
    let mode = std::fs::metadata(path)
        .map_err(|source| SecretFileError::Unreadable {
            what,
            path: path.to_owned(),
            source,
        })?
        .permissions()
        .mode();
    match refusal(mode, crate::pty::Isolation::possible()) {
        Some(mode) => Err(SecretFileError::Shared {
            what,
            path: path.to_owned(),
            mode,
        }),
        None => Ok(()),
    }
}

/// The permission bits of a file of `mode` when they let others than its
/// owner read a secret, and sessions run as uids of their own
/// (`isolated`).
fn refusal(mode: u32, isolated: bool) -> Option<u32> {
    (isolated && mode & 0o077 != 0).then_some(mode & 0o777)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_others_may_read_is_refused_where_sessions_have_uids_of_their_own() {
        assert_eq!(refusal(0o100644, true), Some(0o644));
        assert!(refusal(0o100640, true).is_some());
        assert!(refusal(0o100604, true).is_some());
        assert_eq!(refusal(0o100600, true), None);
        assert_eq!(refusal(0o100400, true), None);
        // Sessions as the server's user read a 0600 file as well.
        assert_eq!(refusal(0o100644, false), None);
    }

    #[test]
    fn the_refusal_names_the_mode_and_the_fix() {
        let refused = SecretFileError::Shared {
            what: "the test secret",
            path: PathBuf::from("/s"),
            mode: 0o644,
        };
        assert_eq!(
            refused.to_string(),
            "cannot read the test secret /s: it may be read by other users (mode 644), so \
             sessions could read it; run chmod 600 /s"
        );
    }

    #[test]
    fn the_secret_is_trimmed_and_an_empty_file_refused() {
        let dir = std::env::temp_dir().join(format!(
            "panecast-secret-file-{}",
            crate::random::hex128().expect("random")
        ));
        std::fs::create_dir(&dir).expect("mkdir");
        let path = dir.join("secret");
        std::fs::write(&path, "  s3cret\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        assert_eq!(read(&path, "the test secret").expect("read"), "s3cret");
        std::fs::write(&path, " \n").expect("write");
        let empty = read(&path, "the test secret").unwrap_err();
        assert!(matches!(empty, SecretFileError::Empty { .. }), "{empty}");
        assert!(empty.to_string().ends_with("is empty"), "{empty}");
        let missing = read(&dir.join("nothing"), "the test secret").unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("cannot read the test secret"),
            "{missing}"
        );
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}

//! Secrets the server reads from files: the admin token, the OpenID
//! client secret, the proxy's proof and the cluster's bus key. One rule
//! for all of them: where sessions run as uids of their own, a file that
//! anyone but its owner may read is refused at start (as ssh refuses a
//! key), because a session could read it; where sessions run as the
//! server's own user, a mode keeps nothing from them, and the file is
//! taken as it is.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The secret in the file at `path` (surrounding whitespace trimmed), or
/// a message naming `what` and saying how to fix it.
pub fn read(path: &Path, what: &str) -> Result<String, String> {
    let shown = path.display();
    check_private(path, what)?;
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    let secret = text.trim();
    if secret.is_empty() {
        return Err(format!("{what} {shown} is empty"));
    }
    Ok(secret.to_owned())
}

/// Checks that the file at `path`, which holds a secret (`what`), is
/// private as [`read`] requires.
pub fn check_private(path: &Path, what: &str) -> Result<(), String> {
    let shown = path.display();
    let mode = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {what} {shown}: {e}"))?
        .permissions()
        .mode();
    match refusal(mode, crate::pty::Isolation::possible()) {
        Some(problem) => Err(format!(
            "cannot read {what} {shown}: {problem}; run chmod 600 {shown}"
        )),
        None => Ok(()),
    }
}

/// Why a file of `mode` may not hold a secret, when sessions run as uids
/// of their own (`isolated`).
fn refusal(mode: u32, isolated: bool) -> Option<String> {
    (isolated && mode & 0o077 != 0).then(|| {
        format!(
            "it may be read by other users (mode {:03o}), so sessions could read it",
            mode & 0o777
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_others_may_read_is_refused_where_sessions_have_uids_of_their_own() {
        assert!(refusal(0o100644, true)
            .expect("refused")
            .contains("mode 644"));
        assert!(refusal(0o100640, true).is_some());
        assert!(refusal(0o100604, true).is_some());
        assert_eq!(refusal(0o100600, true), None);
        assert_eq!(refusal(0o100400, true), None);
        // Sessions as the server's user read a 0600 file as well.
        assert_eq!(refusal(0o100644, false), None);
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
        assert_eq!(read(&path, "the test secret").as_deref(), Ok("s3cret"));
        std::fs::write(&path, " \n").expect("write");
        assert!(read(&path, "the test secret")
            .unwrap_err()
            .contains("is empty"));
        let missing = read(&dir.join("nothing"), "the test secret").unwrap_err();
        assert!(
            missing.starts_with("cannot read the test secret"),
            "{missing}"
        );
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}

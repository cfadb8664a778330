//! A session's description as it is handed over across an upgrade (the
//! re-exec keeps the pty master and the child; this is everything else the
//! new process needs to know about them): id, name, owner, profile,
//! command, size, pid, times, recording, and whether the child has exited.
//! The terminal travels beside it, as [`Term::save`] wrote it; the share
//! links, in the access layer's [`SavedLink`]s.
//!
//! The encoding: an 8-byte magic, the version (u32, little-endian), then
//! the description in CBOR. A reader refuses a version it does not know.
//!
//! [`Term::save`]: panecast_term::Term::save
//! [`SavedLink`]: crate::access::SavedLink

use std::sync::Arc;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::{SessionInfo, Status};
use crate::access::Credential;
use crate::pty::ExitStatus;

/// The first bytes of every saved session description.
const MAGIC: &[u8; 8] = b"PCSESS\0\x01";
/// The version this build writes and the only one it reads.
pub const SAVED_SESSION_VERSION: u32 = 1;

/// Everything about a session but its terminal and its pty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedSession {
    /// 128 random bits as 32 hex digits.
    pub id: String,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// The credential that started it.
    pub owner: Option<SavedOwner>,
    /// The profile it came from.
    pub profile: Option<String>,
    /// The argv it runs.
    pub command: Vec<String>,
    /// Width in columns.
    pub cols: u16,
    /// Height in rows.
    pub rows: u16,
    /// The child's process id.
    pub pid: u32,
    /// When it started.
    pub created_at: SystemTime,
    /// Its recording, when it is recorded.
    pub recording: Option<SavedRecording>,
    /// Whether the child still runs.
    pub status: SavedStatus,
    /// Each numbered client's last input applied (the client as 32 hex
    /// digits), so that an input sent again after the upgrade is applied
    /// once. Added last: a description without it has none.
    #[serde(default)]
    pub inputs: Vec<(String, u64)>,
}

/// The credential that started a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SavedOwner {
    /// The admin token.
    Admin,
    /// A key from the config, by name.
    Key(String),
    /// A share link, by id.
    Link(String),
    /// A person, by user name (added last: images that know no people
    /// never wrote it).
    User(String),
}

/// A recording in progress: its name and how many bytes were written, so
/// that the new process appends exactly where the old one stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedRecording {
    /// The recording's name.
    pub name: String,
    /// Bytes written to it so far.
    pub offset: u64,
}

/// Whether the child runs, or how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SavedStatus {
    /// The child runs.
    Running,
    /// The child has exited and been reaped.
    Exited {
        /// The exit code, if waiting succeeded.
        code: Option<u32>,
        /// The signal that ended it, by name.
        signal: Option<String>,
        /// When the session saw it end.
        at: SystemTime,
    },
}

/// Why a saved session description could not be read back.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SavedSessionError {
    /// The bytes do not start with the description's magic.
    #[error("not a panecast session description")]
    NotASession,
    /// Written by a build with another format version.
    #[error("session description version {found} is not known to this build, which reads version {SAVED_SESSION_VERSION}")]
    UnknownVersion {
        /// The version the description says it has.
        found: u32,
    },
    /// The rest is not a description this build can decode.
    #[error("session description undecodable: {0}")]
    Decode(String),
}

impl SavedSession {
    /// The description of a session: what it is, its size now, the bytes
    /// written to its recording (if it has one) and its status.
    pub fn new(
        info: &SessionInfo,
        (cols, rows): (u16, u16),
        recorded: u64,
        status: &Status,
    ) -> SavedSession {
        SavedSession {
            id: info.id.clone(),
            name: info.name.clone(),
            owner: info.owner.as_ref().map(SavedOwner::from),
            profile: info.profile.clone(),
            command: info.command.clone(),
            cols,
            rows,
            pid: info.pid,
            created_at: info.created_at,
            recording: info.recording.as_ref().map(|name| SavedRecording {
                name: name.clone(),
                offset: recorded,
            }),
            status: SavedStatus::from(status),
            inputs: Vec::new(),
        }
    }

    /// What the session is, as the new process's handle holds it.
    pub fn info(&self) -> SessionInfo {
        SessionInfo {
            id: self.id.clone(),
            name: self.name.clone(),
            owner: self.owner.clone().map(Credential::from),
            profile: self.profile.clone(),
            command: self.command.clone(),
            pid: self.pid,
            created_at: self.created_at,
            recording: self.recording.as_ref().map(|r| r.name.clone()),
        }
    }

    /// The child's status.
    pub fn status(&self) -> Status {
        match &self.status {
            SavedStatus::Running => Status::Running,
            SavedStatus::Exited { code, signal, at } => Status::Exited {
                status: ExitStatus {
                    code: *code,
                    signal: signal.clone(),
                },
                at: *at,
            },
        }
    }

    /// The description, versioned.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&SAVED_SESSION_VERSION.to_le_bytes());
        // Writing into a Vec cannot fail, and every field serializes.
        ciborium::into_writer(self, &mut out).expect("a session description serializes");
        out
    }

    /// Reads back what [`SavedSession::encode`] wrote.
    pub fn decode(bytes: &[u8]) -> Result<SavedSession, SavedSessionError> {
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or(SavedSessionError::NotASession)?;
        let (version, payload) = rest
            .split_first_chunk::<4>()
            .ok_or(SavedSessionError::NotASession)?;
        let found = u32::from_le_bytes(*version);
        if found != SAVED_SESSION_VERSION {
            return Err(SavedSessionError::UnknownVersion { found });
        }
        let mut reader = payload;
        let session: SavedSession = ciborium::from_reader(&mut reader)
            .map_err(|e| SavedSessionError::Decode(e.to_string()))?;
        if !reader.is_empty() {
            return Err(SavedSessionError::Decode(format!(
                "{} bytes after the end",
                reader.len()
            )));
        }
        Ok(session)
    }
}

impl From<&Credential> for SavedOwner {
    fn from(credential: &Credential) -> SavedOwner {
        match credential {
            Credential::Admin => SavedOwner::Admin,
            Credential::Key(name) => SavedOwner::Key(name.to_string()),
            Credential::Link(id) => SavedOwner::Link(id.clone()),
            Credential::User(name) => SavedOwner::User(name.to_string()),
        }
    }
}

impl From<SavedOwner> for Credential {
    fn from(owner: SavedOwner) -> Credential {
        match owner {
            SavedOwner::Admin => Credential::Admin,
            SavedOwner::Key(name) => Credential::Key(Arc::from(name)),
            SavedOwner::Link(id) => Credential::Link(id),
            SavedOwner::User(name) => Credential::User(Arc::from(name)),
        }
    }
}

impl From<&Status> for SavedStatus {
    fn from(status: &Status) -> SavedStatus {
        match status {
            Status::Running => SavedStatus::Running,
            Status::Exited { status, at } => SavedStatus::Exited {
                code: status.code,
                signal: status.signal.clone(),
                at: *at,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn info() -> SessionInfo {
        SessionInfo {
            id: "0123456789abcdef0123456789abcdef".into(),
            name: Some("build".into()),
            owner: Some(Credential::Key(Arc::from("ci"))),
            profile: Some("shell".into()),
            command: vec!["bash".into(), "-l".into()],
            pid: 4242,
            created_at: SystemTime::UNIX_EPOCH + Duration::from_nanos(1_700_000_000_123_456_789),
            recording: Some("build-2026.cast".into()),
        }
    }

    #[test]
    fn a_description_round_trips_with_everything_in_it() {
        let exited = Status::Exited {
            status: ExitStatus {
                code: Some(3),
                signal: None,
            },
            at: SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
        };
        for status in [Status::Running, exited] {
            let saved = SavedSession::new(&info(), (132, 43), 98_765, &status);
            let back = SavedSession::decode(&saved.encode()).expect("reads back");
            assert_eq!(back, saved);
            assert_eq!(back.info(), info());
            assert_eq!(back.status(), status);
            assert_eq!((back.cols, back.rows), (132, 43));
            assert_eq!(
                back.recording,
                Some(SavedRecording {
                    name: "build-2026.cast".into(),
                    offset: 98_765
                })
            );
        }
    }

    #[test]
    fn every_owner_round_trips() {
        for owner in [
            None,
            Some(Credential::Admin),
            Some(Credential::Link("abcd".into())),
        ] {
            let info = SessionInfo { owner, ..info() };
            let saved = SavedSession::new(&info, (80, 24), 0, &Status::Running);
            let back = SavedSession::decode(&saved.encode()).expect("reads back");
            assert_eq!(back.info(), info);
        }
    }

    #[test]
    fn an_unknown_version_and_other_bytes_are_refused() {
        let mut bytes = SavedSession::new(&info(), (80, 24), 0, &Status::Running).encode();
        assert!(SavedSession::decode(&bytes[..bytes.len() - 1]).is_err());
        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(
            SavedSession::decode(&long),
            Err(SavedSessionError::Decode(_))
        ));
        bytes[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&7u32.to_le_bytes());
        let err = SavedSession::decode(&bytes).expect_err("refused");
        assert_eq!(err, SavedSessionError::UnknownVersion { found: 7 });
        assert!(err.to_string().contains("version 7 is not known"), "{err}");
        assert_eq!(
            SavedSession::decode(b"PCSESS"),
            Err(SavedSessionError::NotASession)
        );
        assert_eq!(
            SavedSession::decode(b"{}"),
            Err(SavedSessionError::NotASession)
        );
    }
}

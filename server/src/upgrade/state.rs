//! The hand-over state file: everything a re-executed server needs to go
//! on serving exactly where the old process image stopped. Every session
//! (its [`SavedSession`], its terminal as [`Term::save`] wrote it, the
//! number of its pty master's descriptor, its sandbox, its recording's
//! clock, the input it had not written yet), the listening sockets'
//! descriptors, the share links (hashed, as they are kept) and the admin
//! token (a generated one must stay valid, and cookies carry it).
//!
//! The encoding: an 8-byte magic, the version (u32, little-endian), then
//! the state in CBOR. A reader refuses a version it does not know. The
//! session descriptions and terminal states inside carry versions of their
//! own, which [`Handover::validate`] checks too.
//!
//! [`Term::save`]: panecast_term::Term::save

use std::collections::HashSet;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::access::{Links, SavedLink};
use crate::pty::SavedSandbox;
use crate::session::{FrozenRecording, SavedSession, SavedStatus};
use panecast_term::Term;

/// The first bytes of every hand-over state.
const MAGIC: &[u8; 8] = b"PCHANDOV";
/// The version this build writes and the only one it reads. Bump it on any
/// change to a type in this file.
pub const HANDOVER_VERSION: u32 = 1;

/// Everything handed from one process image to the next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Handover {
    /// The pid of the process that wrote it, which the next image keeps.
    pub pid: u32,
    /// The admin token.
    pub token: String,
    /// Descriptors of the listening sockets, left open across the exec.
    pub listeners: Vec<i32>,
    /// Every live share link.
    pub links: Vec<SavedLink>,
    /// Every open session.
    pub sessions: Vec<HandedSession>,
}

/// One session as it is handed over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandedSession {
    /// Its description, as [`SavedSession::encode`] wrote it.
    #[serde(with = "bytes")]
    pub session: Vec<u8>,
    /// Its terminal, as [`Term::save`] wrote it.
    #[serde(with = "bytes")]
    pub term: Vec<u8>,
    /// The descriptor of its pty master, left open across the exec, while
    /// its program runs.
    pub master: Option<i32>,
    /// Input queued for the program and not written yet.
    #[serde(with = "bytes")]
    pub pending_input: Vec<u8>,
    /// Its recording's clock, when it is recorded.
    pub recording: Option<HandedRecording>,
    /// Its walls.
    pub sandbox: SavedSandbox,
}

/// A recording's clock and settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandedRecording {
    /// Nanoseconds since it started.
    pub elapsed_ns: u64,
    /// Whether input is recorded too.
    pub input: bool,
    /// False once it had stopped (its byte cap): not taken up again.
    pub live: bool,
}

impl From<FrozenRecording> for HandedRecording {
    fn from(r: FrozenRecording) -> HandedRecording {
        HandedRecording {
            elapsed_ns: u64::try_from(r.elapsed.as_nanos()).unwrap_or(u64::MAX),
            input: r.input,
            live: r.live,
        }
    }
}

impl From<HandedRecording> for FrozenRecording {
    fn from(r: HandedRecording) -> FrozenRecording {
        FrozenRecording {
            elapsed: Duration::from_nanos(r.elapsed_ns),
            input: r.input,
            live: r.live,
        }
    }
}

/// Why a hand-over state could not be read or is not whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandoverError {
    /// The bytes do not start with the state's magic.
    #[error("not a panecast hand-over state")]
    NotAHandover,
    /// Written by a build with another format version.
    #[error("hand-over state version {found} is not known to this build, which reads version {HANDOVER_VERSION}")]
    UnknownVersion {
        /// The version the state says it has.
        found: u32,
    },
    /// The rest is not a state this build can decode.
    #[error("hand-over state undecodable: {0}")]
    Decode(String),
    /// It decodes, but a part is wrong.
    #[error("hand-over state invalid: {0}")]
    Invalid(String),
}

impl Handover {
    /// The state, versioned.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&HANDOVER_VERSION.to_le_bytes());
        // Writing into a Vec cannot fail, and every field serializes.
        ciborium::into_writer(self, &mut out).expect("a hand-over state serializes");
        out
    }

    /// Reads back what [`Handover::encode`] wrote (see [`Handover::validate`]
    /// for its parts).
    pub fn decode(bytes: &[u8]) -> Result<Handover, HandoverError> {
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or(HandoverError::NotAHandover)?;
        let (version, payload) = rest
            .split_first_chunk::<4>()
            .ok_or(HandoverError::NotAHandover)?;
        let found = u32::from_le_bytes(*version);
        if found != HANDOVER_VERSION {
            return Err(HandoverError::UnknownVersion { found });
        }
        let mut reader = payload;
        let state: Handover =
            ciborium::from_reader(&mut reader).map_err(|e| HandoverError::Decode(e.to_string()))?;
        if !reader.is_empty() {
            return Err(HandoverError::Decode(format!(
                "{} bytes after the end",
                reader.len()
            )));
        }
        Ok(state)
    }

    /// Checks every part, as the new binary does before the old one
    /// re-executes it: each session's description and terminal read back,
    /// a running program has a master and an exited one none, descriptors
    /// are valid and distinct, ids are distinct, links are well-formed.
    /// Returns the sessions read back.
    pub fn validate(&self) -> Result<Vec<(SavedSession, Term)>, HandoverError> {
        let invalid = |what: String| HandoverError::Invalid(what);
        if self.listeners.is_empty() {
            return Err(invalid("no listening socket".to_owned()));
        }
        crate::access::secret::check_admin_token(&self.token)
            .map_err(|e| invalid(format!("the admin token: {e}")))?;
        let mut fds = HashSet::new();
        let mut take_fd = |fd: i32, what: &str| {
            if fd <= 2 || !fds.insert(fd) {
                return Err(invalid(format!("{what}: descriptor {fd} is not valid")));
            }
            Ok(())
        };
        for &fd in &self.listeners {
            take_fd(fd, "a listener")?;
        }
        let mut ids = HashSet::new();
        let mut sessions = Vec::with_capacity(self.sessions.len());
        for (handed, read) in self.sessions.iter().zip(read_back(&self.sessions)) {
            let (saved, term) = read?;
            let id = saved.id.clone();
            if !ids.insert(id.clone()) {
                return Err(invalid(format!("session {id} appears twice")));
            }
            match (&saved.status, handed.master) {
                (SavedStatus::Running, Some(fd)) => take_fd(fd, &format!("session {id}"))?,
                (SavedStatus::Exited { .. }, None) => {}
                (SavedStatus::Running, None) => {
                    return Err(invalid(format!("session {id} runs but has no pty")))
                }
                (SavedStatus::Exited { .. }, Some(_)) => {
                    return Err(invalid(format!("session {id} has exited but has a pty")))
                }
            }
            if saved.status == SavedStatus::Running && saved.pid == 0 {
                return Err(invalid(format!("session {id} runs without a pid")));
            }
            if let Some(fd) = handed.sandbox.uid_lock_fd {
                take_fd(fd, &format!("session {id}'s uid lock"))?;
            }
            if (term.cols(), term.rows()) != (saved.cols, saved.rows) {
                return Err(invalid(format!(
                    "session {id}: its terminal is {}x{}, its description says {}x{}",
                    term.cols(),
                    term.rows(),
                    saved.cols,
                    saved.rows
                )));
            }
            sessions.push((saved, term));
        }
        Links::new(Duration::MAX, usize::MAX)
            .restore(self.links.clone())
            .map_err(|e| invalid(e.to_string()))?;
        Ok(sessions)
    }

    /// Every descriptor the exec must leave open.
    pub fn descriptors(&self) -> Vec<i32> {
        let masters = self.sessions.iter().filter_map(|s| s.master);
        let locks = self.sessions.iter().filter_map(|s| s.sandbox.uid_lock_fd);
        self.listeners
            .iter()
            .copied()
            .chain(masters)
            .chain(locks)
            .collect()
    }
}

/// Every session's description and terminal read back, in order, on as
/// many threads as there are cores (a thousand terminals take a while).
fn read_back(sessions: &[HandedSession]) -> Vec<Result<(SavedSession, Term), HandoverError>> {
    let read = |handed: &HandedSession| {
        let saved = SavedSession::decode(&handed.session)
            .map_err(|e| HandoverError::Invalid(format!("a session: {e}")))?;
        let term = Term::restore(&handed.term)
            .map_err(|e| HandoverError::Invalid(format!("session {}: {e}", saved.id)))?;
        Ok((saved, term))
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let chunk = sessions.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = sessions
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(read).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            // A worker panics only if restoring does, which it never does on
            // any input (the state's tests feed it corrupt bytes).
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// Byte strings as CBOR byte strings (not arrays of numbers).
mod bytes {
    use serde::de::{Error, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        struct Bytes;
        impl<'de> Visitor<'de> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
                Ok(bytes.to_vec())
            }
            fn visit_byte_buf<E: Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(bytes)
            }
        }
        deserializer.deserialize_byte_buf(Bytes)
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use super::*;
    use crate::access::Role;
    use crate::session::{SessionInfo, Status};

    fn session(id: &str, running: bool) -> HandedSession {
        let info = SessionInfo {
            id: id.to_owned(),
            name: Some("build".into()),
            owner: None,
            profile: None,
            command: vec!["cat".into()],
            pid: 4242,
            created_at: SystemTime::UNIX_EPOCH,
            recording: None,
        };
        let status = if running {
            Status::Running
        } else {
            Status::Exited {
                status: crate::pty::ExitStatus {
                    code: Some(3),
                    signal: None,
                },
                at: SystemTime::UNIX_EPOCH,
            }
        };
        let mut term = Term::new(80, 24, 100);
        term.advance(b"hello\r\nworld \x1b[1");
        HandedSession {
            session: SavedSession::new(&info, (80, 24), 0, &status).encode(),
            term: term.save(),
            master: running.then_some(7),
            pending_input: b"typed".to_vec(),
            recording: Some(HandedRecording {
                elapsed_ns: 1_500_000_000,
                input: true,
                live: true,
            }),
            sandbox: SavedSandbox {
                identity: None,
                own_uid: Some(60600),
                uid_lock_fd: Some(8),
                home: Some("/var/lib/panecast/homes/x".into()),
                private_home: true,
                cgroup: None,
            },
        }
    }

    fn handover() -> Handover {
        Handover {
            pid: 99,
            token: "0123456789abcdef0123".into(),
            listeners: vec![5],
            links: vec![SavedLink {
                token_hash: "ab".repeat(32),
                id: "link1".into(),
                session: "a".repeat(32),
                role: Role::View,
                label: Some("demo".into()),
                created_at: SystemTime::UNIX_EPOCH,
                expires_at: SystemTime::UNIX_EPOCH + Duration::from_secs(3600),
            }],
            sessions: vec![session(&"a".repeat(32), true), {
                let mut s = session(&"b".repeat(32), false);
                s.sandbox.uid_lock_fd = Some(9);
                s
            }],
        }
    }

    #[test]
    fn a_state_round_trips_and_validates() {
        let state = handover();
        let back = Handover::decode(&state.encode()).expect("reads back");
        assert_eq!(back, state);
        let sessions = back.validate().expect("valid");
        assert_eq!(sessions.len(), 2);
        assert_eq!(sessions[0].0.id, "a".repeat(32));
        assert_eq!(sessions[0].1.save(), state.sessions[0].term);
        assert_eq!(back.descriptors(), vec![5, 7, 8, 9]);
    }

    #[test]
    fn an_unknown_version_and_other_bytes_are_refused() {
        let mut bytes = handover().encode();
        bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
        let err = Handover::decode(&bytes).expect_err("refused");
        assert_eq!(err, HandoverError::UnknownVersion { found: 2 });
        assert!(err.to_string().contains("version 2 is not known"), "{err}");
        assert_eq!(
            Handover::decode(b"#!/bin/sh"),
            Err(HandoverError::NotAHandover)
        );
        let mut long = handover().encode();
        long.push(0);
        assert!(matches!(
            Handover::decode(&long),
            Err(HandoverError::Decode(_))
        ));
    }

    #[test]
    fn inconsistent_parts_are_refused() {
        type Spoil = fn(&mut Handover);
        let cases: Vec<(Spoil, &str)> = vec![
            (|h| h.listeners.clear(), "no listening socket"),
            (|h| h.sessions[0].master = None, "runs but has no pty"),
            (
                |h| h.sessions[1].master = Some(11),
                "has exited but has a pty",
            ),
            (
                |h| h.sessions[1].sandbox.uid_lock_fd = Some(5),
                "descriptor 5",
            ),
            (|h| h.sessions[0].term.truncate(20), "truncated"),
            (|h| h.sessions[1] = h.sessions[0].clone(), "appears twice"),
            (|h| h.links[0].token_hash = "zz".into(), "token hash"),
            (|h| h.token = "short".into(), "admin token"),
        ];
        for (spoil, expected) in cases {
            let mut state = handover();
            spoil(&mut state);
            let Err(err) = state.validate() else {
                panic!("{expected}: accepted");
            };
            assert!(err.to_string().contains(expected), "{expected}: {err}");
        }
    }
}

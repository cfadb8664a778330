//! A terminal's whole state written out and read back exactly: both
//! screens, the scrollback, cursors, modes, charsets, tab stops, margins,
//! titles, the style and link tables with their reference counts, colour
//! overrides, generations, inline images (the pictures as PNG files within
//! the saved budget, the rows' slices, kitty's ids and placements; not a
//! transmission in progress), and the parser in the middle of a sequence or a
//! UTF-8 character. Not to be confused with `snapshot.rs`, the screen as
//! viewers are sent it.
//!
//! The format (see [`STATE_VERSION`]): an 8-byte magic, the version (u32,
//! little-endian), the payload's length (u64, little-endian), its SHA-256,
//! then the payload, the state in CBOR (self-describing, so a reader can
//! tell what it meets). A reader refuses a version it does not know, and
//! any input that is truncated, corrupt or inconsistent, with an error.

mod serde_helpers;

pub(crate) use serde_helpers::{boxed_array, cells, theme_ref};

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::emulator::Emulator;
use super::parser::Parser;
use super::{Hyperlink, PublishedSet, RecentPushes, Row, Style, Term};

/// The first bytes of every terminal state.
const MAGIC: &[u8; 8] = b"PCTERM\0\x01";
/// The version this build writes and the only one it reads. Bump it on any
/// change to a persisted type (field added, removed, renamed or reordered).
pub const STATE_VERSION: u32 = 4;
/// Bytes before the payload: magic, version, length, checksum.
const HEADER_LEN: usize = 8 + 4 + 8 + 32;

/// Why a terminal state could not be read back.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StateError {
    /// The bytes do not start with the terminal state's magic.
    #[error("not a panecast terminal state")]
    NotAState,
    /// Written by a build with another format version.
    #[error("terminal state version {found} is not known to this build, which reads version {STATE_VERSION}")]
    UnknownVersion {
        /// The version the state says it has.
        found: u32,
    },
    /// Fewer bytes than the header says.
    #[error("terminal state truncated: {expected} bytes expected, {found} found")]
    Truncated {
        /// Bytes the header announces (header included).
        expected: u64,
        /// Bytes there are.
        found: u64,
    },
    /// More bytes than the header says.
    #[error("terminal state has {0} bytes after its end")]
    TrailingBytes(u64),
    /// The payload does not match its checksum.
    #[error("terminal state corrupt: checksum mismatch")]
    Checksum,
    /// The payload is not a state this build can decode.
    #[error("terminal state undecodable: {0}")]
    Decode(String),
    /// The payload decodes, but its parts do not fit together.
    #[error("terminal state inconsistent: {0}")]
    Inconsistent(&'static str),
}

/// What is written of a [`Term`]: all of it, the rows of the last snapshot
/// included (the next snapshot reuses the unchanged ones, as it would have).
#[derive(Serialize)]
struct TermStateRef<'a> {
    parser: &'a Parser,
    emu: &'a Emulator,
    published: &'a [Arc<Row>],
    styles: &'a PublishedSet<Style>,
    links: &'a PublishedSet<Hyperlink>,
    title: &'a Arc<str>,
    pushes: &'a RecentPushes,
}

/// [`TermStateRef`] as read back.
#[derive(Deserialize)]
struct TermState {
    parser: Parser,
    emu: Emulator,
    published: Vec<Arc<Row>>,
    styles: PublishedSet<Style>,
    links: PublishedSet<Hyperlink>,
    title: Arc<str>,
    pushes: RecentPushes,
}

impl Term {
    /// The whole state, to be read back with [`Term::restore`] by a build
    /// with the same [`STATE_VERSION`]. Replies and clipboard text not yet
    /// taken are part of it.
    pub fn save(&self) -> Vec<u8> {
        let state = TermStateRef {
            parser: &self.parser,
            emu: &self.emu,
            published: &self.published,
            styles: &self.styles,
            links: &self.links,
            title: &self.title,
            pushes: &self.pushes,
        };
        let mut payload = Vec::new();
        // Writing into a Vec cannot fail, and every persisted type
        // serializes (the theme is always one of the palette's).
        ciborium::into_writer(&state, &mut payload).expect("a terminal state serializes");
        frame(&payload)
    }

    /// Reads back a state [`Term::save`] wrote. The terminal goes on exactly
    /// as the saved one would have, given the same bytes; the host sets the
    /// theme again only if it changed.
    pub fn restore(bytes: &[u8]) -> Result<Term, StateError> {
        let payload = payload(bytes)?;
        let state: TermState =
            ciborium::from_reader(payload).map_err(|e| StateError::Decode(e.to_string()))?;
        state
            .emu
            .check_restored()
            .and_then(|()| state.parser.check_restored())
            .map_err(StateError::Inconsistent)?;
        Ok(Term {
            parser: state.parser,
            emu: state.emu,
            published: state.published,
            styles: state.styles,
            links: state.links,
            title: state.title,
            pushes: state.pushes,
        })
    }
}

/// `payload` behind its header.
fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&STATE_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(payload));
    out.extend_from_slice(payload);
    out
}

/// The payload of a state, once its header is checked.
fn payload(bytes: &[u8]) -> Result<&[u8], StateError> {
    let found = bytes.len() as u64;
    let truncated = |expected: usize| StateError::Truncated {
        expected: expected as u64,
        found,
    };
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(StateError::NotAState);
    }
    let header = bytes.get(..HEADER_LEN).ok_or(truncated(HEADER_LEN))?;
    let (version, rest) = header[MAGIC.len()..].split_at(4);
    let (length, checksum) = rest.split_at(8);
    // The slices are 4 and 8 bytes long, split from a header of known size.
    let version = u32::from_le_bytes(version.try_into().expect("4 bytes"));
    if version != STATE_VERSION {
        return Err(StateError::UnknownVersion { found: version });
    }
    let length = u64::from_le_bytes(length.try_into().expect("8 bytes"));
    let end = (HEADER_LEN as u64).saturating_add(length);
    if found < end {
        return Err(StateError::Truncated {
            expected: end,
            found,
        });
    }
    if found > end {
        return Err(StateError::TrailingBytes(found - end));
    }
    let payload = &bytes[HEADER_LEN..];
    if Sha256::digest(payload).as_slice() != checksum {
        return Err(StateError::Checksum);
    }
    Ok(payload)
}

#[cfg(test)]
mod image_tests;
#[cfg(test)]
mod tests;

//! The DCS requests the terminal answers, collected between `hook` and
//! `unhook`: DECRQSS (`DCS $ q`) and XTGETTCAP (`DCS + q`). Other DCS
//! strings are ignored.

use serde::{Deserialize, Serialize};

/// Longest request kept; longer ones are cut (and then not understood).
const MAX_REQUEST: usize = 64;

/// What a DCS string being received asks for.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum DcsRequest {
    /// DECRQSS: the setting named by the bytes.
    StatusString(Vec<u8>),
    /// XTGETTCAP: hex-encoded capability names, `;`-separated.
    Termcap(Vec<u8>),
}

impl DcsRequest {
    /// The request a DCS introducer starts, if it is one the terminal answers.
    pub fn start(intermediates: &[u8], action: char) -> Option<DcsRequest> {
        match (intermediates, action) {
            (b"$", 'q') => Some(DcsRequest::StatusString(Vec::new())),
            (b"+", 'q') => Some(DcsRequest::Termcap(Vec::new())),
            _ => None,
        }
    }

    /// Adds one byte of the request's text (bounded).
    pub fn push(&mut self, byte: u8) {
        let (DcsRequest::StatusString(text) | DcsRequest::Termcap(text)) = self;
        if text.len() < MAX_REQUEST {
            text.push(byte);
        }
    }
}

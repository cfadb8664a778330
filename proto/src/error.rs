//! Errors: why a message could not be decoded, or a line could not be built.

use crate::close;

/// Why bytes could not be decoded into a message. Decoding never panics; every
/// problem with the input is one of these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The message ended before a field did (this includes an empty message).
    #[error("message truncated")]
    Truncated,
    /// The first byte is not a message type this decoder knows.
    #[error("unknown message type 0x{0:02x}")]
    UnknownType(u8),
    /// A `Hello` announced a protocol version this crate does not speak.
    #[error("unsupported protocol version {0}")]
    UnsupportedVersion(u16),
    /// A varint used more bytes than its value needs (its last byte is 0x00).
    #[error("overlong varint")]
    OverlongVarint,
    /// A varint does not fit its width: more than 5 bytes for a u32 or 10 for
    /// a u64, or bits set beyond bit 31 / bit 63.
    #[error("varint overflows its width")]
    VarintOverflow,
    /// A message, string or list is longer than its limit.
    #[error("{field} too large: {len} > {max}")]
    TooLarge {
        /// What was too large (`"message"`, `"title"`, ...).
        field: &'static str,
        /// Its length (bytes for messages and strings, entries for lists).
        len: u64,
        /// The limit.
        max: u64,
    },
    /// A string is not valid UTF-8.
    #[error("{field} is not valid UTF-8")]
    InvalidUtf8 {
        /// Which string.
        field: &'static str,
    },
    /// A value is outside its allowed range (a size, a coordinate, an enum tag,
    /// reserved bits set, ...).
    #[error("{field} out of range")]
    OutOfRange {
        /// Which field.
        field: &'static str,
    },
    /// A line's text, wide-cell list and cluster list do not agree.
    #[error("invalid line: {0}")]
    InvalidLine(&'static str),
    /// Bytes remain after the message's last field.
    #[error("{0} trailing bytes")]
    TrailingBytes(usize),
    /// A compressed frame's body is not valid DEFLATE data that gives
    /// exactly the length it declares.
    #[error("compressed body does not inflate to its declared length")]
    BadDeflate,
}

impl DecodeError {
    /// The WebSocket close code the server uses when a client message fails
    /// with this error: 1009 for [`TooLarge`](Self::TooLarge), 1003 for
    /// [`UnknownType`](Self::UnknownType), 1002 for everything else.
    pub fn close_code(&self) -> u16 {
        match self {
            DecodeError::TooLarge { .. } => close::MESSAGE_TOO_BIG,
            DecodeError::UnknownType(_) => close::UNSUPPORTED_DATA,
            _ => close::PROTOCOL_ERROR,
        }
    }
}

/// Why a cell could not be added to a [`LineBuilder`](crate::LineBuilder).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// A cell's width is not 1 or 2 (spacer columns are not passed in).
    #[error("cell width {0} is not 1 or 2")]
    InvalidWidth(u8),
    /// A cell's text has more than [`MAX_CELL_CODEPOINTS`](crate::limits::MAX_CELL_CODEPOINTS) codepoints.
    #[error("cell text has {0} codepoints, more than allowed")]
    ClusterTooLong(usize),
    /// The cells are wider than the line (or than [`MAX_COLS`](crate::limits::MAX_COLS)).
    #[error("cells need {needed} columns, the line has {cols}")]
    TooWide {
        /// Columns the cells pushed so far would need.
        needed: u32,
        /// Columns available.
        cols: u16,
    },
}

//! Appending wire types to a buffer.

use crate::varint;

/// Appends a varint.
pub(crate) fn uint(out: &mut Vec<u8>, value: impl Into<u64>) {
    varint::put(out, value.into());
}

/// Appends a list length or string length as a varint.
pub(crate) fn len(out: &mut Vec<u8>, n: usize) {
    varint::put(out, n as u64);
}

/// Appends a string: its byte length as a varint, then its UTF-8 bytes.
pub(crate) fn str(out: &mut Vec<u8>, s: &str) {
    len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

/// Appends bytes: their length as a varint, then the bytes.
pub(crate) fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    len(out, b.len());
    out.extend_from_slice(b);
}

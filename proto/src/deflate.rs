//! Compressed frames (type 0x0F): a `Frame` whose body, everything after
//! its sequence number, is compressed with raw DEFLATE (RFC 1951). A server
//! sends them only to a client that asked (`deflate=1` on the stream's
//! URL). The body is compressed once and shared by every viewer at that
//! point, as the plain body is; each connection's `seq` stays outside it.

use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

use crate::error::DecodeError;
use crate::limits::MAX_DEFLATED_BODY;

/// The compressed `Frame` message type byte.
pub(crate) const DEFLATED_FRAME: u8 = 0x0F;

/// Bodies shorter than this go plain: a keystroke's echo is a few dozen
/// bytes, and compressing it would save nothing and cost the client a
/// round through its decompressor.
pub const DEFLATE_MIN_BODY: usize = 256;

/// Fast compression: a flood's frames are text that compresses tenfold at
/// this level already, and the server compresses every frame it shares.
const LEVEL: u8 = 1;

/// `body` compressed, or `None` when it goes plain: shorter than
/// [`DEFLATE_MIN_BODY`], longer than [`MAX_DEFLATED_BODY`], or not made
/// smaller (counting the length the compressed form adds).
pub(crate) fn compress(body: &[u8]) -> Option<Vec<u8>> {
    if !(DEFLATE_MIN_BODY..=MAX_DEFLATED_BODY).contains(&body.len()) {
        return None;
    }
    let packed = miniz_oxide::deflate::compress_to_vec(body, LEVEL);
    (packed.len() + 4 < body.len()).then_some(packed)
}

/// `packed` decompressed: one whole DEFLATE stream, nothing after its
/// final block, giving exactly `len` bytes (the caller bounds `len` by
/// [`MAX_DEFLATED_BODY`]). Anything else is [`DecodeError::BadDeflate`], and
/// no more than `len` bytes are ever produced.
pub(crate) fn inflate(packed: &[u8], len: usize) -> Result<Vec<u8>, DecodeError> {
    let mut body = vec![0; len];
    let mut state = DecompressorOxide::new();
    let (status, read, written) = decompress(
        &mut state,
        packed,
        &mut body,
        0,
        inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
    );
    if status != TINFLStatus::Done || read != packed.len() || written != len {
        return Err(DecodeError::BadDeflate);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_incompressible_bodies_go_plain() {
        assert_eq!(compress(&[b'a'; DEFLATE_MIN_BODY - 1]), None);
        // Pseudo-random bytes (xorshift): nothing for DEFLATE to find.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        assert_eq!(compress(&noise), None);
        let text = b"the quick brown fox jumps over the lazy dog ".repeat(40);
        let packed = compress(&text).expect("text compresses");
        assert!(packed.len() < text.len() / 5);
        assert_eq!(inflate(&packed, text.len()), Ok(text));
    }

    #[test]
    fn a_body_that_does_not_inflate_to_its_length_is_refused() {
        let text = b"0123456789".repeat(100);
        let packed = compress(&text).expect("compresses");
        assert_eq!(
            inflate(&packed, text.len() - 1),
            Err(DecodeError::BadDeflate)
        );
        assert_eq!(
            inflate(&packed, text.len() + 1),
            Err(DecodeError::BadDeflate)
        );
        assert_eq!(
            inflate(&packed[..packed.len() / 2], text.len()),
            Err(DecodeError::BadDeflate)
        );
        assert_eq!(inflate(b"\xff\xff\xff", 10), Err(DecodeError::BadDeflate));
        let mut longer = packed.clone();
        longer.push(0);
        assert_eq!(inflate(&longer, text.len()), Err(DecodeError::BadDeflate));
    }
}

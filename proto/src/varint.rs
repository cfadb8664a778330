//! Unsigned LEB128 varints and zigzag for signed values.
//!
//! Seven bits per byte, least significant group first; the high bit of a byte
//! says another byte follows. A u32 takes at most 5 bytes, a u64 at most 10.
//! Decoding rejects non-minimal encodings and values that overflow.

use crate::DecodeError;

/// Appends `value` as an unsigned LEB128 varint.
pub(crate) fn put(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a varint of at most `bits` bits (32 or 64) from the front of `bytes`;
/// returns the value and the number of bytes used.
pub(crate) fn get(bytes: &[u8], bits: u32) -> Result<(u64, usize), DecodeError> {
    let max_bytes = bits.div_ceil(7) as usize;
    let mut value = 0u64;
    for i in 0..max_bytes {
        let byte = *bytes.get(i).ok_or(DecodeError::Truncated)?;
        let payload = u64::from(byte & 0x7f);
        let shift = 7 * i as u32;
        if i == max_bytes - 1 {
            // The last byte a value of this width may use: no continuation,
            // and no payload bits above the width.
            if byte & 0x80 != 0 || payload >> (bits - shift) != 0 {
                return Err(DecodeError::VarintOverflow);
            }
        }
        value |= payload << shift;
        if byte & 0x80 == 0 {
            if byte == 0 && i > 0 {
                return Err(DecodeError::OverlongVarint);
            }
            return Ok((value, i + 1));
        }
    }
    // Unreachable in practice: the last permitted byte either ends the value
    // or is rejected above.
    Err(DecodeError::VarintOverflow)
}

/// Maps a signed value to an unsigned one so small magnitudes stay small
/// (0, -1, 1, -2, ... become 0, 1, 2, 3, ...).
pub(crate) fn zigzag(value: i32) -> u32 {
    ((value << 1) ^ (value >> 31)) as u32
}

/// The inverse of [`zigzag`].
pub(crate) fn unzigzag(value: u32) -> i32 {
    ((value >> 1) as i32) ^ -((value & 1) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(value: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put(&mut out, value);
        out
    }

    #[test]
    fn known_encodings() {
        assert_eq!(enc(0), [0x00]);
        assert_eq!(enc(1), [0x01]);
        assert_eq!(enc(127), [0x7f]);
        assert_eq!(enc(128), [0x80, 0x01]);
        assert_eq!(enc(300), [0xac, 0x02]);
        assert_eq!(enc(u32::MAX.into()), [0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert_eq!(enc(u64::MAX).len(), 10);
        assert_eq!(enc(u64::MAX)[9], 0x01);
    }

    #[test]
    fn round_trips_at_the_edges() {
        for value in [0, 1, 127, 128, 16383, 16384, u32::MAX as u64, u64::MAX] {
            let bytes = enc(value);
            assert_eq!(get(&bytes, 64), Ok((value, bytes.len())));
        }
        let bytes = enc(u32::MAX.into());
        assert_eq!(get(&bytes, 32), Ok((u32::MAX.into(), 5)));
    }

    #[test]
    fn rejects_overlong_encodings() {
        assert_eq!(get(&[0x80, 0x00], 32), Err(DecodeError::OverlongVarint));
        assert_eq!(
            get(&[0x81, 0x80, 0x00], 64),
            Err(DecodeError::OverlongVarint)
        );
        assert_eq!(get(&[0x00], 32), Ok((0, 1)));
    }

    #[test]
    fn rejects_overflow() {
        // 2^32 in a u32 slot.
        assert_eq!(
            get(&[0x80, 0x80, 0x80, 0x80, 0x10], 32),
            Err(DecodeError::VarintOverflow)
        );
        // A sixth byte for a u32.
        assert_eq!(
            get(&[0xff, 0xff, 0xff, 0xff, 0x8f, 0x01], 32),
            Err(DecodeError::VarintOverflow)
        );
        // 2^64 in a u64 slot, and an eleventh byte.
        let mut big = vec![0x80; 9];
        big.push(0x02);
        assert_eq!(get(&big, 64), Err(DecodeError::VarintOverflow));
        let mut long = vec![0xff; 10];
        long.push(0x01);
        assert_eq!(get(&long, 64), Err(DecodeError::VarintOverflow));
    }

    #[test]
    fn reports_truncation() {
        assert_eq!(get(&[], 32), Err(DecodeError::Truncated));
        assert_eq!(get(&[0x80], 32), Err(DecodeError::Truncated));
        assert_eq!(get(&[0xff, 0xff], 64), Err(DecodeError::Truncated));
    }

    #[test]
    fn zigzag_round_trips() {
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
        assert_eq!(zigzag(-2), 3);
        assert_eq!(zigzag(i32::MAX), u32::MAX - 1);
        assert_eq!(zigzag(i32::MIN), u32::MAX);
        for value in [0, 1, -1, 255, -255, i32::MAX, i32::MIN] {
            assert_eq!(unzigzag(zigzag(value)), value);
        }
    }
}

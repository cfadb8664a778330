//! LZ4 for what crosses between nodes: a screen's rows serialize at 8
//! bytes a cell (the saved state's layout), which repeats itself from
//! cell to cell and row to row, so a flood's delta of a whole screen
//! shrinks about 20 times, at a cost far below the diff's.
//!
//! Squeezed bytes are the uncompressed length (4 bytes, little-endian)
//! and an LZ4 block. Unsqueezing refuses a length over its caller's limit
//! before it allocates, so no message can ask for more memory than that.

/// Why bytes do not unsqueeze.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SqueezeError {
    /// Shorter than the length.
    #[error("squeezed bytes without their length")]
    Truncated,
    /// The length is over the limit.
    #[error("squeezed bytes of {0} bytes, over the limit")]
    TooLong(usize),
    /// Not an LZ4 block of that length.
    #[error("squeezed bytes that are not an LZ4 block of their length")]
    Corrupt,
}

/// `bytes`, compressed.
pub(super) fn squeeze(bytes: &[u8]) -> Vec<u8> {
    // Screens are far below 4 GiB (at most 2^16 x 2^16 cells of 8 bytes
    // would be 32 GiB, but a terminal is bounded to MAX_DIMENSION squared
    // and the server's limits, well under).
    let length = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    let mut out = length.to_le_bytes().to_vec();
    out.extend_from_slice(&lz4_flex::block::compress(bytes));
    out
}

/// The bytes [`squeeze`] compressed, when they are at most `max` long.
pub(super) fn unsqueeze(bytes: &[u8], max: usize) -> Result<Vec<u8>, SqueezeError> {
    let (length, block) = bytes
        .split_first_chunk::<4>()
        .ok_or(SqueezeError::Truncated)?;
    let length = u32::from_le_bytes(*length) as usize;
    if length > max {
        return Err(SqueezeError::TooLong(length));
    }
    let mut out = vec![0; length];
    match lz4_flex::block::decompress_into(block, &mut out) {
        Ok(written) if written == length => Ok(out),
        _ => Err(SqueezeError::Corrupt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_what_is_not_its_own() {
        let rows: Vec<u8> = (0..60)
            .flat_map(|r| format!("{r:09} the quick brown fox").into_bytes())
            .flat_map(|b| [b, 0, 0, 0, 0, 0, 1, 0])
            .collect();
        let squeezed = squeeze(&rows);
        assert!(
            squeezed.len() * 10 < rows.len(),
            "{} of {}",
            squeezed.len(),
            rows.len()
        );
        assert_eq!(unsqueeze(&squeezed, rows.len()), Ok(rows.clone()));
        assert_eq!(
            unsqueeze(&squeezed, rows.len() - 1),
            Err(SqueezeError::TooLong(rows.len()))
        );
        assert_eq!(
            unsqueeze(&squeezed[..3], 1 << 20),
            Err(SqueezeError::Truncated)
        );
        assert_eq!(
            unsqueeze(&squeezed[..squeezed.len() - 1], 1 << 20),
            Err(SqueezeError::Corrupt)
        );
        let mut longer = squeezed.clone();
        longer[0] = longer[0].wrapping_add(1);
        assert_eq!(unsqueeze(&longer, 1 << 20), Err(SqueezeError::Corrupt));
        assert_eq!(unsqueeze(&squeeze(b""), 0), Ok(Vec::new()));
    }
}

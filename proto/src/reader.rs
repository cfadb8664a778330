//! A cursor over a message's bytes with checked reads for every wire type.

use crate::varint;
use crate::DecodeError;

/// Reads fields from the front of a message; every read is bounds-checked.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes }
    }

    /// Fails with [`DecodeError::TrailingBytes`] unless everything was read.
    pub(crate) fn finish(&self) -> Result<(), DecodeError> {
        match self.bytes.len() {
            0 => Ok(()),
            n => Err(DecodeError::TrailingBytes(n)),
        }
    }

    /// Takes the next `n` bytes.
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.bytes.len() {
            return Err(DecodeError::Truncated);
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    /// Every byte left.
    pub(crate) fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.bytes)
    }

    /// One byte.
    pub(crate) fn u8(&mut self) -> Result<u8, DecodeError> {
        let (&first, rest) = self.bytes.split_first().ok_or(DecodeError::Truncated)?;
        self.bytes = rest;
        Ok(first)
    }

    /// `N` bytes as they are (no length prefix).
    pub(crate) fn fixed<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// A fixed two-byte little-endian u16.
    pub(crate) fn u16_le(&mut self) -> Result<u16, DecodeError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// A one-byte boolean: 0 or 1.
    pub(crate) fn bool(&mut self, field: &'static str) -> Result<bool, DecodeError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(DecodeError::OutOfRange { field }),
        }
    }

    /// A byte of flags where only the bits in `allowed` may be set.
    pub(crate) fn flags(&mut self, allowed: u8, field: &'static str) -> Result<u8, DecodeError> {
        let byte = self.u8()?;
        if byte & !allowed != 0 {
            return Err(DecodeError::OutOfRange { field });
        }
        Ok(byte)
    }

    /// A varint holding a u64.
    pub(crate) fn u64(&mut self) -> Result<u64, DecodeError> {
        let (value, used) = varint::get(self.bytes, 64)?;
        self.bytes = self.bytes.get(used..).unwrap_or_default();
        Ok(value)
    }

    /// A varint holding a u32.
    pub(crate) fn u32(&mut self) -> Result<u32, DecodeError> {
        let (value, used) = varint::get(self.bytes, 32)?;
        self.bytes = self.bytes.get(used..).unwrap_or_default();
        // `get` with 32 bits never yields a value above u32::MAX.
        u32::try_from(value).map_err(|_| DecodeError::VarintOverflow)
    }

    /// A varint holding a value in `min..=max` (which fit a u16).
    pub(crate) fn u16_in(
        &mut self,
        min: u16,
        max: u16,
        field: &'static str,
    ) -> Result<u16, DecodeError> {
        let value = self.u32()?;
        match u16::try_from(value) {
            Ok(v) if (min..=max).contains(&v) => Ok(v),
            _ => Err(DecodeError::OutOfRange { field }),
        }
    }

    /// A list length: at most `max` entries, and no more than the bytes left
    /// (every entry takes at least one byte), so callers may allocate it.
    pub(crate) fn count(&mut self, max: usize, field: &'static str) -> Result<usize, DecodeError> {
        let n = self.u32()? as usize;
        if n > max {
            return Err(DecodeError::TooLarge {
                field,
                len: n as u64,
                max: max as u64,
            });
        }
        if n > self.bytes.len() {
            return Err(DecodeError::Truncated);
        }
        Ok(n)
    }

    /// A string: a varint byte length (at most `max`) and that many bytes of
    /// valid UTF-8.
    pub(crate) fn str(&mut self, max: usize, field: &'static str) -> Result<&'a str, DecodeError> {
        let bytes = self.bytes(max, field)?;
        std::str::from_utf8(bytes).map_err(|_| DecodeError::InvalidUtf8 { field })
    }

    /// Bytes: a varint length (at most `max`) and that many bytes.
    pub(crate) fn bytes(
        &mut self,
        max: usize,
        field: &'static str,
    ) -> Result<&'a [u8], DecodeError> {
        let len = self.u32()? as usize;
        if len > max {
            return Err(DecodeError::TooLarge {
                field,
                len: len as u64,
                max: max as u64,
            });
        }
        self.take(len)
    }
}

//! Serde adapters for the few persisted fields serde has no impl for.

/// A boxed array of any length, as a sequence; reading back refuses a
/// sequence of another length.
pub(crate) mod boxed_array {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes the array as a sequence.
    pub(crate) fn serialize<S: Serializer, T: Serialize, const N: usize>(
        array: &[T; N],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        array.as_slice().serialize(serializer)
    }

    /// Reads a sequence of exactly `N` values.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>, const N: usize>(
        deserializer: D,
    ) -> Result<Box<[T; N]>, D::Error> {
        let values: Box<[T]> = Vec::<T>::deserialize(deserializer)?.into_boxed_slice();
        let found = values.len();
        values
            .try_into()
            .map_err(|_| D::Error::invalid_length(found, &format!("{N} values").as_str()))
    }
}

/// Cells as one byte string, 8 bytes a cell (`Cell::to_bytes`): as a
/// struct, a cell would cost about three times as much in CBOR.
pub(crate) mod cells {
    use std::fmt;

    use serde::de::{Error, Visitor};
    use serde::{Deserializer, Serializer};

    use crate::term::Cell;

    /// Writes the cells as bytes.
    pub(crate) fn serialize<S: Serializer>(
        cells: &[Cell],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = cells.iter().flat_map(|cell| cell.to_bytes()).collect();
        serializer.serialize_bytes(&bytes)
    }

    /// Reads cells back, refusing a length that is not a multiple of 8 or
    /// a `char` that is not one.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<Cell>, D::Error> {
        deserializer.deserialize_byte_buf(CellBytes)
    }

    struct CellBytes;

    impl Visitor<'_> for CellBytes {
        type Value = Vec<Cell>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("cells, 8 bytes each")
        }

        fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<Cell>, E> {
            if !bytes.len().is_multiple_of(8) {
                return Err(E::invalid_length(bytes.len(), &self));
            }
            bytes
                .chunks_exact(8)
                .map(|chunk| {
                    // chunks_exact(8) yields 8-byte chunks only.
                    let raw: [u8; 8] = chunk.try_into().expect("8 bytes");
                    Cell::from_bytes(raw).ok_or_else(|| E::custom("a cell holds no char"))
                })
                .collect()
        }

        fn visit_byte_buf<E: Error>(self, bytes: Vec<u8>) -> Result<Vec<Cell>, E> {
            self.visit_bytes(&bytes)
        }
    }
}

/// A theme (always one of the palette's) by its index in [`THEMES`].
pub(crate) mod theme_ref {
    use serde::de::Error as _;
    use serde::ser::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::term::palette::{ThemeColors, CONTRAST, DARK, LIGHT};

    /// The themes a terminal may fall back to, in their persisted order.
    const THEMES: [&ThemeColors; 3] = [&DARK, &LIGHT, &CONTRAST];

    /// Writes the theme's index.
    pub(crate) fn serialize<S: Serializer>(
        theme: &&'static ThemeColors,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let index = THEMES
            .iter()
            .position(|t| *t == *theme)
            .ok_or_else(|| S::Error::custom("a theme that is not the palette's"))?;
        serializer.serialize_u8(index as u8)
    }

    /// Reads a theme's index.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<&'static ThemeColors, D::Error> {
        let index = u8::deserialize(deserializer)?;
        THEMES
            .get(index as usize)
            .copied()
            .ok_or_else(|| D::Error::custom(format!("unknown theme {index}")))
    }
}

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

/// Cells as their count and one byte string, 8 bytes a cell
/// (`Cell::to_bytes`), without the never-written cells at the end (most of
/// an idle screen): as a struct, a cell would cost about three times as
/// much in CBOR, and a blank 80x24 screen would be 15 KiB.
pub(crate) mod cells {
    use std::fmt;

    use serde::de::{Error, SeqAccess, Visitor};
    use serde::ser::SerializeTuple;
    use serde::{Deserializer, Serializer};

    use crate::Cell;

    /// Writes the count, then the cells up to the last one that is not
    /// [`Cell::EMPTY`], as bytes.
    pub(crate) fn serialize<S: Serializer>(
        cells: &[Cell],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let kept = cells
            .iter()
            .rposition(|cell| *cell != Cell::EMPTY)
            .map_or(0, |last| last + 1);
        let bytes: Vec<u8> = cells[..kept]
            .iter()
            .flat_map(|cell| cell.to_bytes())
            .collect();
        let mut tuple = serializer.serialize_tuple(2)?;
        tuple.serialize_element(&(cells.len() as u64))?;
        tuple.serialize_element(&Bytes(&bytes))?;
        tuple.end()
    }

    /// Reads cells back, padded with [`Cell::EMPTY`] to their count;
    /// refuses bytes that are not whole cells, more cells than the count,
    /// and a `char` that is not one.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<Cell>, D::Error> {
        deserializer.deserialize_tuple(2, CountedCells { max: u64::MAX })
    }

    /// A screen row's cells: as the parent module, but reading back refuses
    /// a count above [`MAX_DIMENSION`](crate::MAX_DIMENSION), so a
    /// row decoded from another process cannot ask for any allocation.
    pub(crate) mod row {
        use serde::Deserializer;

        use super::CountedCells;
        use crate::{Cell, MAX_DIMENSION};

        pub(crate) use super::serialize;

        /// Reads at most [`MAX_DIMENSION`] cells back.
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Vec<Cell>, D::Error> {
            deserializer.deserialize_tuple(
                2,
                CountedCells {
                    max: MAX_DIMENSION as u64,
                },
            )
        }
    }

    /// A byte slice written with `serialize_bytes` (CBOR bytes, not a list
    /// of numbers).
    struct Bytes<'a>(&'a [u8]);

    impl serde::Serialize for Bytes<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_bytes(self.0)
        }
    }

    /// The visitor, with the most cells a count may announce.
    struct CountedCells {
        max: u64,
    }

    impl<'de> Visitor<'de> for CountedCells {
        type Value = Vec<Cell>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a count of cells and their bytes, 8 a cell")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Cell>, A::Error> {
            let count: u64 = seq
                .next_element()?
                .ok_or_else(|| A::Error::invalid_length(0, &self))?;
            let cells = seq
                .next_element::<CellBytes>()?
                .ok_or_else(|| A::Error::invalid_length(1, &self))?
                .0;
            if count > self.max {
                return Err(A::Error::custom("more cells counted than allowed"));
            }
            let count = usize::try_from(count)
                .map_err(|_| A::Error::custom("more cells than this machine can hold"))?;
            if cells.len() > count {
                return Err(A::Error::custom("more cells written than counted"));
            }
            let mut cells = cells;
            cells.resize(count, Cell::EMPTY);
            Ok(cells)
        }
    }

    /// Cells from their bytes.
    struct CellBytes(Vec<Cell>);

    impl<'de> serde::Deserialize<'de> for CellBytes {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CellBytes, D::Error> {
            deserializer
                .deserialize_byte_buf(CellBytesVisitor)
                .map(CellBytes)
        }
    }

    struct CellBytesVisitor;

    impl Visitor<'_> for CellBytesVisitor {
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

    use crate::palette::{ThemeColors, CONTRAST, DARK, LIGHT};

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

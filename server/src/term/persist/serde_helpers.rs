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

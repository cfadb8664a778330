//! Styles: colours, attributes, underline and hyperlink of a cell, defined once
//! per connection and referred to by id.

use crate::limits::MAX_LINK;
use crate::reader::Reader;
use crate::{writer, DecodeError};

/// A colour as the program asked for it; the client's theme resolves it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Color {
    /// The terminal's default (foreground, background, or for the underline:
    /// the foreground).
    #[default]
    Default,
    /// An index into the 256-colour palette (0-15 are the ANSI colours).
    Indexed(u8),
    /// A 24-bit colour: red, green, blue.
    Rgb(u8, u8, u8),
}

impl Color {
    fn encode_into(self, out: &mut Vec<u8>) {
        match self {
            Color::Default => out.push(0),
            Color::Indexed(i) => out.extend_from_slice(&[1, i]),
            Color::Rgb(r, g, b) => out.extend_from_slice(&[2, r, g, b]),
        }
    }

    fn decode(r: &mut Reader<'_>) -> Result<Color, DecodeError> {
        match r.u8()? {
            0 => Ok(Color::Default),
            1 => Ok(Color::Indexed(r.u8()?)),
            2 => Ok(Color::Rgb(r.u8()?, r.u8()?, r.u8()?)),
            _ => Err(DecodeError::OutOfRange { field: "color" }),
        }
    }
}

/// Boolean text attributes, one bit each (the same bits as on the wire).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attrs(u8);

impl Attrs {
    /// No attribute.
    pub const NONE: Attrs = Attrs(0);
    /// Bold (SGR 1), bit 0.
    pub const BOLD: Attrs = Attrs(1);
    /// Dim (SGR 2), bit 1.
    pub const DIM: Attrs = Attrs(1 << 1);
    /// Italic (SGR 3), bit 2.
    pub const ITALIC: Attrs = Attrs(1 << 2);
    /// Blink (SGR 5 and 6), bit 3.
    pub const BLINK: Attrs = Attrs(1 << 3);
    /// Inverse video (SGR 7), bit 4.
    pub const INVERSE: Attrs = Attrs(1 << 4);
    /// Invisible (SGR 8), bit 5.
    pub const INVISIBLE: Attrs = Attrs(1 << 5);
    /// Strikethrough (SGR 9), bit 6.
    pub const STRIKE: Attrs = Attrs(1 << 6);
    /// Every defined bit.
    pub const ALL: Attrs = Attrs(0x7f);

    /// The attributes with these bits, or `None` if bit 7 (undefined) is set.
    pub fn from_bits(bits: u8) -> Option<Attrs> {
        (bits & !Attrs::ALL.0 == 0).then_some(Attrs(bits))
    }

    /// The raw bits.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// True when every bit of `other` is set.
    pub fn contains(self, other: Attrs) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Attrs {
    type Output = Attrs;

    fn bitor(self, rhs: Attrs) -> Attrs {
        Attrs(self.0 | rhs.0)
    }
}

/// The shape of an underline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum UnderlineKind {
    /// No underline (0).
    #[default]
    None,
    /// One straight line (1).
    Single,
    /// Two lines (2).
    Double,
    /// A wavy line (3).
    Curly,
    /// A dotted line (4).
    Dotted,
    /// A dashed line (5).
    Dashed,
}

impl UnderlineKind {
    /// Every kind, indexed by its wire value.
    const ALL: [UnderlineKind; 6] = [
        UnderlineKind::None,
        UnderlineKind::Single,
        UnderlineKind::Double,
        UnderlineKind::Curly,
        UnderlineKind::Dotted,
        UnderlineKind::Dashed,
    ];

    /// The wire value (0-5).
    pub fn to_byte(self) -> u8 {
        self as u8
    }

    /// The kind with this wire value.
    pub fn from_byte(byte: u8) -> Option<UnderlineKind> {
        UnderlineKind::ALL.get(usize::from(byte)).copied()
    }
}

/// How a cell looks apart from its text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Style {
    /// Foreground colour.
    pub fg: Color,
    /// Background colour.
    pub bg: Color,
    /// Underline colour; `Default` follows the foreground.
    pub underline_color: Color,
    /// Bold, dim, italic, blink, inverse, invisible, strike.
    pub attrs: Attrs,
    /// Underline shape.
    pub underline: UnderlineKind,
    /// The OSC 8 hyperlink URI, if the cell is part of a link.
    pub link: Option<String>,
}

/// Bit 7 of a style's first byte: a link URI follows the colours.
pub(crate) const HAS_LINK: u8 = 0x80;

impl Style {
    pub(crate) fn encode_into(&self, out: &mut Vec<u8>) {
        let link_bit = if self.link.is_some() { HAS_LINK } else { 0 };
        out.push(self.attrs.bits() | link_bit);
        out.push(self.underline.to_byte());
        self.fg.encode_into(out);
        self.bg.encode_into(out);
        self.underline_color.encode_into(out);
        if let Some(link) = &self.link {
            writer::str(out, link);
        }
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Style, DecodeError> {
        let first = r.u8()?;
        // Attrs::from_bits cannot fail once bit 7 is masked off.
        let attrs = Attrs::from_bits(first & !HAS_LINK).unwrap_or_default();
        let underline = UnderlineKind::from_byte(r.u8()?).ok_or(DecodeError::OutOfRange {
            field: "underline kind",
        })?;
        let fg = Color::decode(r)?;
        let bg = Color::decode(r)?;
        let underline_color = Color::decode(r)?;
        let link = match first & HAS_LINK {
            0 => None,
            _ => Some(r.str(MAX_LINK, "link")?.to_owned()),
        };
        Ok(Style {
            fg,
            bg,
            underline_color,
            attrs,
            underline,
            link,
        })
    }
}

/// One entry of a `Styles` message: an id and the style it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StyleDef {
    /// The id cells refer to; never 0 (id 0 is always the default style).
    pub id: u32,
    /// The style.
    pub style: Style,
}

//! Cell styles: colours and attributes, interned in a per-terminal
//! reference-counted table so a cell holds only a 16-bit id (Ghostty's
//! lesson: styles are few, cells many).

use serde::{Deserialize, Serialize};

use super::ref_set::RefCountedSet;

/// A colour as the program asked for it; the theme resolves it when painting.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum Color {
    /// The terminal's default foreground or background.
    #[default]
    Default,
    /// An index into the 256-colour palette (0-15 are the ANSI colours).
    Indexed(u8),
    /// A 24-bit colour.
    Rgb(u8, u8, u8),
}

/// The shape of an underline (SGR 4 and its `4:n` sub-parameters).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
#[repr(u8)]
pub enum Underline {
    /// No underline.
    #[default]
    None = 0,
    /// A single straight line.
    Single = 1,
    /// Two lines.
    Double = 2,
    /// A wavy line.
    Curly = 3,
    /// A dotted line.
    Dotted = 4,
    /// A dashed line.
    Dashed = 5,
}

impl Underline {
    /// The underline for an SGR `4:n` sub-parameter; unknown values mean single.
    pub fn from_param(n: u16) -> Underline {
        match n {
            0 => Underline::None,
            2 => Underline::Double,
            3 => Underline::Curly,
            4 => Underline::Dotted,
            5 => Underline::Dashed,
            _ => Underline::Single,
        }
    }
}

/// Boolean text attributes, one bit each.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub struct Attrs(u8);

impl Attrs {
    /// SGR 1.
    pub const BOLD: Attrs = Attrs(1);
    /// SGR 2.
    pub const DIM: Attrs = Attrs(1 << 1);
    /// SGR 3.
    pub const ITALIC: Attrs = Attrs(1 << 2);
    /// SGR 5 and 6.
    pub const BLINK: Attrs = Attrs(1 << 3);
    /// SGR 7.
    pub const INVERSE: Attrs = Attrs(1 << 4);
    /// SGR 8.
    pub const INVISIBLE: Attrs = Attrs(1 << 5);
    /// SGR 9.
    pub const STRIKE: Attrs = Attrs(1 << 6);

    /// True when every bit of `other` is set.
    pub fn contains(self, other: Attrs) -> bool {
        self.0 & other.0 == other.0
    }

    /// Sets or clears the bits of `other`.
    pub fn set(&mut self, other: Attrs, on: bool) {
        if on {
            self.0 |= other.0;
        } else {
            self.0 &= !other.0;
        }
    }

    /// The raw bits, for compact encodings.
    pub fn bits(self) -> u8 {
        self.0
    }
}

/// Everything about how a cell looks except its text.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct Style {
    /// Foreground colour.
    pub fg: Color,
    /// Background colour.
    pub bg: Color,
    /// Underline colour (SGR 58); `Default` follows the foreground.
    pub underline_color: Color,
    /// Bold, dim, italic, blink, inverse, invisible, strike.
    pub attrs: Attrs,
    /// Underline shape.
    pub underline: Underline,
    /// OSC 8 hyperlink id in the terminal's link table; 0 means none.
    pub link: u16,
}

impl Color {
    /// The colour as 26 bits: a 2-bit kind and 24 bits of value.
    #[inline]
    fn packed(self) -> u64 {
        match self {
            Color::Default => 0,
            Color::Indexed(i) => 1 << 24 | i as u64,
            Color::Rgb(r, g, b) => 2 << 24 | (r as u64) << 16 | (g as u64) << 8 | b as u64,
        }
    }
}

/// Hashes a style as two words (it is hashed once per SGR-styled run, so
/// this is on the print path of colourful output).
impl std::hash::Hash for Style {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.fg.packed() | self.bg.packed() << 26);
        state.write_u64(
            self.underline_color.packed()
                | (self.attrs.0 as u64) << 26
                | (self.underline as u64) << 34
                | (self.link as u64) << 40,
        );
    }
}

impl Style {
    /// The style an erase leaves behind: only the background survives (xterm's BCE).
    pub fn erased(&self) -> Style {
        Style {
            bg: self.bg,
            ..Style::default()
        }
    }

    /// The canonical style string of the screen JSON (`fg:1 bg:#0ac81e bold ...`),
    /// empty for the default style. Hyperlinked text counts as underlined (it is
    /// shown underlined, and the xterm.js reference reports it so); underline
    /// colour and the link target are not part of it.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        for (name, color) in [("fg", self.fg), ("bg", self.bg)] {
            match color {
                Color::Default => {}
                Color::Indexed(i) => parts.push(format!("{name}:{i}")),
                Color::Rgb(r, g, b) => parts.push(format!("{name}:#{r:02x}{g:02x}{b:02x}")),
            }
        }
        let flags = [
            (self.attrs.contains(Attrs::BOLD), "bold"),
            (self.attrs.contains(Attrs::DIM), "dim"),
            (self.attrs.contains(Attrs::ITALIC), "italic"),
            (
                self.underline != Underline::None || self.link != 0,
                "underline",
            ),
            (self.attrs.contains(Attrs::BLINK), "blink"),
            (self.attrs.contains(Attrs::INVERSE), "inverse"),
            (self.attrs.contains(Attrs::INVISIBLE), "invisible"),
            (self.attrs.contains(Attrs::STRIKE), "strike"),
        ];
        parts.extend(flags.iter().filter(|f| f.0).map(|f| f.1.to_string()));
        parts.join(" ")
    }
}

/// Index of a style in a [`StyleTable`]; 0 is always the default style.
#[derive(
    Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct StyleId(pub u16);

impl StyleId {
    /// The default style.
    pub const DEFAULT: StyleId = StyleId(0);
}

/// The interned styles, counted per cell that uses them (id 0, the default
/// style, is not counted).
pub type StyleTable = RefCountedSet<Style>;

/// How many styles a table holds at most (ids are 16 bits).
pub const STYLE_CAPACITY: usize = 1 << 16;

/// A fresh table holding only the default style.
pub fn new_style_table() -> StyleTable {
    RefCountedSet::new(Style::default(), STYLE_CAPACITY)
}

impl RefCountedSet<Style> {
    /// The style behind `id` (the default one for an unknown id).
    #[inline]
    pub fn style(&self, id: StyleId) -> Style {
        self.get(id.0).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_matches_the_screen_json_order() {
        let style = Style {
            fg: Color::Indexed(1),
            bg: Color::Rgb(10, 200, 30),
            attrs: {
                let mut a = Attrs::default();
                a.set(Attrs::BOLD, true);
                a.set(Attrs::STRIKE, true);
                a
            },
            underline: Underline::Curly,
            ..Style::default()
        };
        assert_eq!(style.describe(), "fg:1 bg:#0ac81e bold underline strike");
        assert_eq!(Style::default().describe(), "");
    }
}

//! Character sets that G0-G3 can designate: ASCII, DEC special graphics, UK.

use serde::{Deserialize, Serialize};

/// A designated character set.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub enum Charset {
    /// US ASCII (`ESC ( B`).
    #[default]
    Ascii,
    /// DEC special graphics (`ESC ( 0`): line drawing.
    DecSpecial,
    /// United Kingdom (`ESC ( A`): `#` is the pound sign.
    Uk,
}

impl Charset {
    /// The set a designation's final byte names; unknown sets read as ASCII.
    pub fn from_final(byte: u8) -> Charset {
        match byte {
            b'0' => Charset::DecSpecial,
            b'A' => Charset::Uk,
            _ => Charset::Ascii,
        }
    }

    /// Maps a printed character through the set.
    #[inline]
    pub fn map(self, c: char) -> char {
        match self {
            Charset::Ascii => c,
            Charset::Uk => {
                if c == '#' {
                    '£'
                } else {
                    c
                }
            }
            Charset::DecSpecial => dec_special(c),
        }
    }
}

/// The character-set state of a screen: what G0-G3 designate, which of
/// them is invoked into GL, and whether printing must map at all.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Charsets {
    slots: [Charset; 4],
    gl: usize,
    /// Set while GL is not ASCII, so the print path can skip mapping.
    mapping: bool,
}

impl Charsets {
    /// `ESC ( F` and friends: designates `set` into G`slot` (0-3).
    pub fn designate(&mut self, slot: usize, set: Charset) {
        self.slots[slot] = set;
        self.mapping = self.slots[self.gl] != Charset::Ascii;
    }

    /// SI, SO and the locking shifts: invokes G`slot` (0-3) into GL.
    pub fn shift_to(&mut self, slot: usize) {
        self.gl = slot;
        self.mapping = self.slots[slot] != Charset::Ascii;
    }

    /// True while printed characters need mapping (GL is not ASCII).
    #[inline]
    pub fn is_mapping(&self) -> bool {
        self.mapping
    }

    /// Maps a printed character through the set in GL.
    #[inline]
    pub fn map(&self, c: char) -> char {
        self.slots[self.gl].map(c)
    }
}

fn dec_special(c: char) -> char {
    match c {
        '`' => '◆',
        'a' => '▒',
        'b' => '␉',
        'c' => '␌',
        'd' => '␍',
        'e' => '␊',
        'f' => '°',
        'g' => '±',
        'h' => '␤',
        'i' => '␋',
        'j' => '┘',
        'k' => '┐',
        'l' => '┌',
        'm' => '└',
        'n' => '┼',
        'o' => '⎺',
        'p' => '⎻',
        'q' => '─',
        'r' => '⎼',
        's' => '⎽',
        't' => '├',
        'u' => '┤',
        'v' => '┴',
        'w' => '┬',
        'x' => '│',
        'y' => '≤',
        'z' => '≥',
        '{' => 'π',
        '|' => '≠',
        '}' => '£',
        '~' => '·',
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_drawing_maps_and_ascii_passes_through() {
        assert_eq!(Charset::DecSpecial.map('q'), '─');
        assert_eq!(Charset::DecSpecial.map('A'), 'A');
        assert_eq!(Charset::Ascii.map('q'), 'q');
        assert_eq!(Charset::Uk.map('#'), '£');
        assert_eq!(Charset::from_final(b'0'), Charset::DecSpecial);
    }

    #[test]
    fn only_the_set_in_gl_maps() {
        let mut sets = Charsets::default();
        sets.designate(1, Charset::DecSpecial);
        assert!(!sets.is_mapping());
        assert_eq!(sets.map('q'), 'q');
        sets.shift_to(1);
        assert!(sets.is_mapping());
        assert_eq!(sets.map('q'), '─');
        sets.shift_to(0);
        assert!(!sets.is_mapping());
    }
}

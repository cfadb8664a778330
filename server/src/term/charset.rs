//! Character sets that G0-G3 can designate: ASCII, DEC special graphics, UK.

/// A designated character set.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
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
}

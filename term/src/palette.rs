//! Colour themes as the terminal knows them: each has a default
//! foreground, background and cursor colour and 16 ANSI colours; the rest of
//! the 256-colour palette (the 6x6x6 cube and the grey ramp) is xterm's in
//! every theme. The emulator answers OSC 4, 10, 11 and 12 queries from the
//! theme its host sets; the renderers (`render::theme`) paint with them.

/// A resolved colour: red, green, blue.
pub type Rgb = (u8, u8, u8);

/// One theme's colours.
#[derive(Debug, PartialEq, Eq)]
pub struct ThemeColors {
    fg: Rgb,
    bg: Rgb,
    cursor: Rgb,
    ansi: [Rgb; 16],
}

/// `0xrrggbb` as a colour.
const fn rgb(v: u32) -> Rgb {
    ((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

/// Sixteen `0xrrggbb` values as colours.
const fn ansi(v: [u32; 16]) -> [Rgb; 16] {
    let mut out = [(0, 0, 0); 16];
    let mut i = 0;
    while i < 16 {
        out[i] = rgb(v[i]);
        i += 1;
    }
    out
}

/// The dark theme, the default: xterm's 16 colours (`XTerm*color0` to
/// `color15`) on a dark grey.
pub const DARK: ThemeColors = ThemeColors {
    fg: rgb(0xe5e5e5),
    bg: rgb(0x1e1e1e),
    cursor: rgb(0xe5e5e5),
    ansi: ansi([
        0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5, 0x7f7f7f,
        0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
    ]),
};

/// The light theme: dark grey on white, colours dark enough to read there.
pub const LIGHT: ThemeColors = ThemeColors {
    fg: rgb(0x333333),
    bg: rgb(0xffffff),
    cursor: rgb(0x333333),
    ansi: ansi([
        0x000000, 0xcd3131, 0x00bc00, 0x949800, 0x0451a5, 0xbc05bc, 0x0598bc, 0x555555, 0x666666,
        0xcd3131, 0x14ce14, 0xb5ba00, 0x0451a5, 0xbc05bc, 0x0598bc, 0xa5a5a5,
    ]),
};

/// The high-contrast theme: white on black, a yellow cursor, bright colours.
pub const CONTRAST: ThemeColors = ThemeColors {
    fg: rgb(0xffffff),
    bg: rgb(0x000000),
    cursor: rgb(0xffff00),
    ansi: ansi([
        0x000000, 0xff6060, 0x00ff00, 0xffff00, 0x80a0ff, 0xff80ff, 0x00ffff, 0xffffff, 0xc0c0c0,
        0xff8080, 0x80ff80, 0xffff80, 0xa0c0ff, 0xffa0ff, 0x80ffff, 0xffffff,
    ]),
};

/// The Solarized dark theme: Ethan Schoonover's palette, base0 on base03.
pub const SOLARIZED: ThemeColors = ThemeColors {
    fg: rgb(0x839496),
    bg: rgb(0x002b36),
    cursor: rgb(0x93a1a1),
    ansi: ansi([
        0x073642, 0xdc322f, 0x859900, 0xb58900, 0x268bd2, 0xd33682, 0x2aa198, 0xeee8d5, 0x002b36,
        0xcb4b16, 0x586e75, 0x657b83, 0x839496, 0x6c71c4, 0x93a1a1, 0xfdf6e3,
    ]),
};

/// The xterm theme: xterm's own defaults, its 16 colours on black.
pub const XTERM: ThemeColors = ThemeColors {
    fg: rgb(0xe5e5e5),
    bg: rgb(0x000000),
    cursor: rgb(0xe5e5e5),
    ansi: DARK.ansi,
};

impl ThemeColors {
    /// The default foreground.
    pub const fn fg(&self) -> Rgb {
        self.fg
    }

    /// The default background.
    pub const fn bg(&self) -> Rgb {
        self.bg
    }

    /// The cursor colour.
    pub const fn cursor(&self) -> Rgb {
        self.cursor
    }

    /// Palette entry `index`: the theme's 16 colours, then xterm's cube and
    /// grey ramp.
    pub fn palette(&self, index: u8) -> Rgb {
        match index {
            0..=15 => self.ansi[index as usize],
            16..=231 => {
                let i = (index - 16) as usize;
                (CUBE[i / 36], CUBE[(i / 6) % 6], CUBE[i % 6])
            }
            _ => {
                let level = 8 + 10 * (index - 232);
                (level, level, level)
            }
        }
    }
}

/// The intensity of each step of the 6x6x6 cube.
const CUBE: [u8; 6] = [0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff];

//! The colour themes: the dark one the HTML and SVG renderers paint with,
//! and the light and high-contrast ones a web viewer may choose. Each has a
//! default foreground, background and cursor colour and 16 ANSI colours;
//! the rest of the 256-colour palette (the 6x6x6 cube and the grey ramp) is
//! xterm's in every theme. These are what the emulator reports to OSC 4, 10,
//! 11 and 12 queries (from the theme a control viewer paints), and what
//! `web/palette.js` paints (`server/tests/web_constants.rs` keeps them equal).

use panecast_proto::Theme;

use crate::term::{Attrs, Color, Style};

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

/// The default foreground (of the dark theme, which the renderers paint).
pub const DEFAULT_FG: Rgb = DARK.fg;
/// The default background (of the dark theme).
pub const DEFAULT_BG: Rgb = DARK.bg;

impl ThemeColors {
    /// The colours of a theme the wire names.
    pub fn of(theme: Theme) -> &'static ThemeColors {
        match theme {
            Theme::Dark => &DARK,
            Theme::Light => &LIGHT,
            Theme::Contrast => &CONTRAST,
        }
    }

    /// The default foreground.
    pub fn fg(&self) -> Rgb {
        self.fg
    }

    /// The default background.
    pub fn bg(&self) -> Rgb {
        self.bg
    }

    /// The cursor colour.
    pub fn cursor(&self) -> Rgb {
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

/// Palette entry `index` of the dark theme's 256-colour palette.
pub fn palette(index: u8) -> Rgb {
    DARK.palette(index)
}

/// Resolves a colour; `Default` means the default foreground when `is_fg`,
/// otherwise the default background.
pub fn resolve(color: Color, is_fg: bool) -> Rgb {
    match color {
        Color::Default if is_fg => DEFAULT_FG,
        Color::Default => DEFAULT_BG,
        Color::Indexed(i) => palette(i),
        Color::Rgb(r, g, b) => (r, g, b),
    }
}

/// The foreground and background a cell in `style` is painted with:
/// inverse swaps them, dim blends the foreground halfway to the background,
/// invisible paints the foreground in the background colour.
pub fn cell_colors(style: &Style) -> (Rgb, Rgb) {
    let (mut fg, mut bg) = (resolve(style.fg, true), resolve(style.bg, false));
    if style.attrs.contains(Attrs::INVERSE) {
        std::mem::swap(&mut fg, &mut bg);
    }
    if style.attrs.contains(Attrs::DIM) {
        let mix = |a: u8, b: u8| ((a as u16 + b as u16) / 2) as u8;
        fg = (mix(fg.0, bg.0), mix(fg.1, bg.1), mix(fg.2, bg.2));
    }
    if style.attrs.contains(Attrs::INVISIBLE) {
        fg = bg;
    }
    (fg, bg)
}

/// The colour as CSS/SVG hex, `#rrggbb`.
pub fn hex((r, g, b): Rgb) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_matches_xterm() {
        assert_eq!(resolve(Color::Indexed(1), true), (0xcd, 0, 0));
        assert_eq!(resolve(Color::Indexed(12), true), (0x5c, 0x5c, 0xff));
        assert_eq!(hex(palette(16)), "#000000");
        assert_eq!(hex(palette(196)), "#ff0000");
        assert_eq!(hex(palette(231)), "#ffffff");
        assert_eq!(hex(palette(67)), "#5f87af");
        assert_eq!(hex(palette(232)), "#080808");
        assert_eq!(hex(palette(244)), "#808080");
        assert_eq!(hex(palette(255)), "#eeeeee");
    }

    #[test]
    fn themes_differ_in_their_own_colours_only() {
        for theme in Theme::ALL {
            let colors = ThemeColors::of(theme);
            assert_eq!(colors.palette(67), (0x5f, 0x87, 0xaf));
            assert_eq!(colors.palette(255), (0xee, 0xee, 0xee));
        }
        assert_eq!(ThemeColors::of(Theme::Dark), &DARK);
        assert_eq!(LIGHT.bg(), (0xff, 0xff, 0xff));
        assert_eq!(LIGHT.palette(1), (0xcd, 0x31, 0x31));
        assert_eq!(CONTRAST.cursor(), (0xff, 0xff, 0x00));
        assert_eq!(DARK.fg(), DEFAULT_FG);
    }

    #[test]
    fn defaults_and_truecolor() {
        assert_eq!(resolve(Color::Default, true), DEFAULT_FG);
        assert_eq!(resolve(Color::Default, false), DEFAULT_BG);
        assert_eq!(resolve(Color::Rgb(1, 2, 3), false), (1, 2, 3));
    }

    #[test]
    fn attributes_change_the_painted_colours() {
        let mut style = Style {
            fg: Color::Indexed(1),
            ..Style::default()
        };
        assert_eq!(cell_colors(&style), ((0xcd, 0, 0), DEFAULT_BG));
        style.attrs.set(Attrs::INVERSE, true);
        assert_eq!(cell_colors(&style), (DEFAULT_BG, (0xcd, 0, 0)));
        style.attrs.set(Attrs::INVISIBLE, true);
        assert_eq!(cell_colors(&style), ((0xcd, 0, 0), (0xcd, 0, 0)));
        let dim = Style {
            fg: Color::Rgb(200, 100, 0),
            bg: Color::Rgb(0, 0, 100),
            attrs: {
                let mut a = Attrs::default();
                a.set(Attrs::DIM, true);
                a
            },
            ..Style::default()
        };
        assert_eq!(cell_colors(&dim), ((100, 50, 50), (0, 0, 100)));
    }
}

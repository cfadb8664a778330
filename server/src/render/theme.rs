//! The built-in colour theme used by the HTML and SVG renderers: xterm's 16
//! colours, the 6x6x6 colour cube and the 24-step grey ramp, plus default
//! foreground and background (the same values the emulator reports to OSC 10
//! and OSC 11 queries).

use crate::term::{Attrs, Color, Style};

/// A resolved colour: red, green, blue.
pub type Rgb = (u8, u8, u8);

/// The default foreground.
pub const DEFAULT_FG: Rgb = (0xe5, 0xe5, 0xe5);
/// The default background.
pub const DEFAULT_BG: Rgb = (0x1e, 0x1e, 0x1e);

/// xterm's default 16 colours (`XTerm*color0` to `color15`).
const ANSI: [Rgb; 16] = [
    (0x00, 0x00, 0x00),
    (0xcd, 0x00, 0x00),
    (0x00, 0xcd, 0x00),
    (0xcd, 0xcd, 0x00),
    (0x00, 0x00, 0xee),
    (0xcd, 0x00, 0xcd),
    (0x00, 0xcd, 0xcd),
    (0xe5, 0xe5, 0xe5),
    (0x7f, 0x7f, 0x7f),
    (0xff, 0x00, 0x00),
    (0x00, 0xff, 0x00),
    (0xff, 0xff, 0x00),
    (0x5c, 0x5c, 0xff),
    (0xff, 0x00, 0xff),
    (0x00, 0xff, 0xff),
    (0xff, 0xff, 0xff),
];

/// The intensity of each step of the 6x6x6 cube.
const CUBE: [u8; 6] = [0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff];

/// Palette entry `index` of the 256-colour palette.
pub fn palette(index: u8) -> Rgb {
    match index {
        0..=15 => ANSI[index as usize],
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

//! The colour themes: the dark one the HTML and SVG renderers paint with,
//! and the light, high-contrast, Solarized and xterm ones a web viewer may
//! choose. Each has a default foreground, background and cursor colour and
//! 16 ANSI colours; the rest of the 256-colour palette (the 6x6x6 cube and the grey ramp) is
//! xterm's in every theme. These are what the emulator reports to OSC 4, 10,
//! 11 and 12 queries (from the theme a control viewer paints), and what
//! `web/palette.js` paints (`server/tests/web_constants.rs` keeps them
//! equal); which one a theme on the wire names is the session's
//! (`session::colors_of`).

pub use panecast_term::palette::{Rgb, ThemeColors, CONTRAST, DARK, LIGHT, SOLARIZED, XTERM};
use panecast_term::{Attrs, Color, Style};

/// The default foreground (of the dark theme, which the renderers paint).
pub const DEFAULT_FG: Rgb = DARK.fg();
/// The default background (of the dark theme).
pub const DEFAULT_BG: Rgb = DARK.bg();

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

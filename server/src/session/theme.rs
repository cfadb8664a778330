//! The colours a viewer's theme names: what the session's terminal answers
//! a program that asks for its colours (OSC 4, 10, 11, 12) once a control
//! viewer has said which theme it paints with.

use panecast_proto::Theme;
use panecast_term::palette::{ThemeColors, CONTRAST, DARK, LIGHT, SOLARIZED, XTERM};

/// The colours of a theme the wire names.
pub fn colors_of(theme: Theme) -> &'static ThemeColors {
    match theme {
        Theme::Dark => &DARK,
        Theme::Light => &LIGHT,
        Theme::Contrast => &CONTRAST,
        Theme::Solarized => &SOLARIZED,
        Theme::Xterm => &XTERM,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn themes_differ_in_their_own_colours_only() {
        for theme in Theme::ALL {
            let colors = colors_of(theme);
            assert_eq!(colors.palette(67), (0x5f, 0x87, 0xaf));
            assert_eq!(colors.palette(255), (0xee, 0xee, 0xee));
        }
        assert_eq!(colors_of(Theme::Dark), &DARK);
        assert_eq!(colors_of(Theme::Solarized).bg(), SOLARIZED.bg());
    }
}

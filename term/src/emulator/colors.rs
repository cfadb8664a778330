//! Colour control (OSC 4, 5, 10-19, 104, 105, 110-119): programs may set,
//! query and reset palette entries, the special colours and the dynamic
//! colours (foreground, background, cursor, ...).
//!
//! Queries are answered from what the program set, and otherwise from the
//! theme a control viewer paints with (`render::theme`; dark until one says).
//! Colours a program sets are kept and reported back, as xterm does; the
//! screen itself keeps referring to palette indices, so painting follows the
//! theme.

use serde::{Deserialize, Serialize};

use crate::palette::{Rgb, ThemeColors, DARK};

use super::{xcms, Emulator};
use crate::action::Fields;

/// Number of special colours (OSC 5: bold, underline, blink, reverse, italic).
const SPECIALS: usize = 5;
/// Number of dynamic colours (OSC 10 to 19).
const DYNAMICS: usize = 10;

/// Colours a program set, by kind; `None` means the theme's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ColorOverrides {
    #[serde(with = "crate::persist::boxed_array")]
    palette: Box<[Option<Rgb>; 256]>,
    special: [Option<Rgb>; SPECIALS],
    dynamic: [Option<Rgb>; DYNAMICS],
    /// The theme queries fall back to.
    #[serde(with = "crate::persist::theme_ref")]
    theme: &'static ThemeColors,
}

impl Default for ColorOverrides {
    fn default() -> Self {
        ColorOverrides {
            palette: Box::new([None; 256]),
            special: [None; SPECIALS],
            dynamic: [None; DYNAMICS],
            theme: &DARK,
        }
    }
}

/// Reads an X11 colour spec: `rgb:r/g/b` (1-4 hex digits each, scaled),
/// `#rgb` with 1-4 hex digits per component (the high bits, as XParseColor),
/// or one of the device-independent forms (`rgbi:`, `CIEXYZ:`, `TekHVC:`,
/// ..., see [`xcms`]). The result keeps 8 bits per channel.
pub(crate) fn parse_color(spec: &[u8]) -> Option<Rgb> {
    let spec = std::str::from_utf8(spec).ok()?;
    if let Some(rest) = spec.strip_prefix("rgb:") {
        let mut parts = rest.split('/');
        let mut channel = || -> Option<u8> {
            let digits = parts.next()?;
            if digits.is_empty() || digits.len() > 4 {
                return None;
            }
            let value = u32::from_str_radix(digits, 16).ok()?;
            let max = (1u32 << (4 * digits.len())) - 1;
            Some(((value * 0xffff / max) >> 8) as u8)
        };
        let rgb = (channel()?, channel()?, channel()?);
        return parts.next().is_none().then_some(rgb);
    }
    let Some(hex) = spec.strip_prefix('#') else {
        return xcms::parse(spec);
    };
    let n = hex.len() / 3;
    if !hex.len().is_multiple_of(3) || !(1..=4).contains(&n) {
        return None;
    }
    let channel = |i: usize| -> Option<u8> {
        let value = u32::from_str_radix(hex.get(i * n..(i + 1) * n)?, 16).ok()?;
        Some(((value << (16 - 4 * n)) >> 8) as u8)
    };
    Some((channel(0)?, channel(1)?, channel(2)?))
}

/// The `rgb:rrrr/gggg/bbbb` form xterm reports (8 bits widened by
/// repetition), spelled out digit by digit: programs such as vim ask for
/// the colours at every start, and `{:02x}` costs a hundred times more.
fn format_color((r, g, b): Rgb) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut spec = String::with_capacity(18);
    spec.push_str("rgb:");
    for (channel, value) in [r, g, b].into_iter().enumerate() {
        if channel > 0 {
            spec.push('/');
        }
        let high = char::from(HEX[usize::from(value >> 4)]);
        let low = char::from(HEX[usize::from(value & 15)]);
        spec.extend([high, low, high, low]);
    }
    spec
}

impl Emulator {
    /// Sets the theme colour queries are answered from where the program
    /// has not set the colour itself.
    pub fn set_theme(&mut self, theme: &'static ThemeColors) {
        self.colors.theme = theme;
    }

    /// OSC 4 (`index;spec` pairs) and OSC 5 (`special;spec` pairs): sets or,
    /// for a `?` spec, reports each colour.
    pub(crate) fn palette_colors(&mut self, osc: u16, pairs: Fields<'_>) {
        let mut fields = pairs.iter();
        while let (Some(index), Some(spec)) = (fields.next(), fields.next()) {
            let Some(index) = number(index) else {
                continue;
            };
            let slot = match (osc, index) {
                (4, 0..=255) => &mut self.colors.palette[index as usize],
                (4, _) => match self.colors.special.get_mut(index as usize - 256) {
                    Some(slot) => slot,
                    None => continue,
                },
                (_, _) => match self.colors.special.get_mut(index as usize) {
                    Some(slot) => slot,
                    None => continue,
                },
            };
            if spec == b"?" {
                let theme = self.colors.theme;
                let current = slot.unwrap_or(match (osc, index) {
                    (4, 0..=255) => theme.palette(index as u8),
                    _ => theme.fg(),
                });
                let spec = format_color(current);
                self.reply_fmt(format_args!("\x1b]{osc};{index};{spec}\x1b\\"));
            } else if let Some(rgb) = parse_color(spec) {
                *slot = Some(rgb);
            }
        }
    }

    /// OSC 10-19: sets or reports the dynamic colours from `first` on, one
    /// spec each (`OSC 10;fg;bg` sets both foreground and background).
    pub(crate) fn dynamic_colors(&mut self, first: u16, specs: Fields<'_>) {
        for (i, spec) in specs.iter().enumerate() {
            let number = first as usize + i;
            let theme = self.colors.theme;
            let Some(slot) = self.colors.dynamic.get_mut(number - 10) else {
                return;
            };
            if spec == b"?" {
                let current = slot.unwrap_or(match number {
                    11 => theme.bg(),
                    12 => theme.cursor(),
                    _ => theme.fg(),
                });
                let spec = format_color(current);
                self.reply_fmt(format_args!("\x1b]{number};{spec}\x1b\\"));
            } else if let Some(rgb) = parse_color(spec) {
                *slot = Some(rgb);
            }
        }
    }

    /// OSC 104 and 105: resets the listed palette or special colours, or
    /// all of them when none is listed.
    pub(crate) fn reset_palette_colors(&mut self, osc: u16, indices: Fields<'_>) {
        let listed: Vec<u16> = indices.iter().filter_map(number).collect();
        let colors = &mut self.colors;
        if listed.is_empty() {
            if osc == 104 {
                colors.palette.fill(None);
            } else {
                colors.special.fill(None);
            }
            return;
        }
        for index in listed {
            let slot = match (osc, index) {
                (104, 0..=255) => colors.palette.get_mut(index as usize),
                (104, _) => colors.special.get_mut(index as usize - 256),
                _ => colors.special.get_mut(index as usize),
            };
            if let Some(slot) = slot {
                *slot = None;
            }
        }
    }

    /// OSC 110-119: resets dynamic colour `osc - 100`.
    pub fn reset_dynamic_color(&mut self, osc: u16) {
        if let Some(slot) = self.colors.dynamic.get_mut(osc as usize - 110) {
            *slot = None;
        }
    }
}

/// A decimal number parameter.
fn number(bytes: &[u8]) -> Option<u16> {
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::palette::{CONTRAST, LIGHT};
    use crate::Term;

    /// What the terminal answers to `query`.
    fn answer(term: &mut Term, query: &str) -> String {
        term.advance(query.as_bytes());
        String::from_utf8(term.take_replies()).expect("replies are ASCII")
    }

    #[test]
    fn queries_follow_the_theme_unless_the_program_set_the_colour() {
        let mut term = Term::new(10, 2, 0);
        assert_eq!(
            answer(&mut term, "\x1b]11;?\x07"),
            "\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\"
        );
        term.set_theme(&LIGHT);
        assert_eq!(
            answer(&mut term, "\x1b]11;?\x07"),
            "\x1b]11;rgb:ffff/ffff/ffff\x1b\\"
        );
        assert_eq!(
            answer(&mut term, "\x1b]10;?\x07"),
            "\x1b]10;rgb:3333/3333/3333\x1b\\"
        );
        assert_eq!(
            answer(&mut term, "\x1b]4;1;?\x07"),
            "\x1b]4;1;rgb:cdcd/3131/3131\x1b\\"
        );
        term.set_theme(&CONTRAST);
        assert_eq!(
            answer(&mut term, "\x1b]12;?\x07"),
            "\x1b]12;rgb:ffff/ffff/0000\x1b\\"
        );
        // The program's own colour wins over any theme, until it resets it.
        answer(&mut term, "\x1b]11;#102030\x07");
        term.set_theme(&LIGHT);
        assert_eq!(
            answer(&mut term, "\x1b]11;?\x07"),
            "\x1b]11;rgb:1010/2020/3030\x1b\\"
        );
        answer(&mut term, "\x1b]111\x07");
        assert_eq!(
            answer(&mut term, "\x1b]11;?\x07"),
            "\x1b]11;rgb:ffff/ffff/ffff\x1b\\"
        );
    }

    #[test]
    fn device_independent_specs_are_reported_as_the_rgb_they_became() {
        let mut term = Term::new(10, 2, 0);
        answer(
            &mut term,
            "\x1b]4;1;CIELab:50/0.1/-0.1\x07\x1b]10;rgbi:0.25/0.5/0.75\x07",
        );
        assert_eq!(
            answer(&mut term, "\x1b]4;1;?\x07\x1b]10;?\x07"),
            "\x1b]4;1;rgb:8989/7878/8d8d\x1b\\\x1b]10;rgb:9393/bbbb/dfdf\x1b\\"
        );
        // Not a colour: refused, the colour stays.
        answer(&mut term, "\x1b]10;CIEXYZ:1/2/1\x07");
        assert_eq!(
            answer(&mut term, "\x1b]10;?\x07"),
            "\x1b]10;rgb:9393/bbbb/dfdf\x1b\\"
        );
    }

    #[test]
    fn specs_parse_as_xparsecolor_reads_them() {
        assert_eq!(parse_color(b"rgb:f0f0/8080/0000"), Some((0xf0, 0x80, 0)));
        assert_eq!(parse_color(b"rgb:f/8/0"), Some((0xff, 0x88, 0)));
        assert_eq!(parse_color(b"#fff"), Some((0xf0, 0xf0, 0xf0)));
        assert_eq!(parse_color(b"#f0f0f0"), Some((0xf0, 0xf0, 0xf0)));
        assert_eq!(parse_color(b"#800800800"), Some((0x80, 0x80, 0x80)));
        assert_eq!(parse_color(b"#aaaabbbbcccc"), Some((0xaa, 0xbb, 0xcc)));
        assert_eq!(parse_color(b"TekHVC:200/40/3"), Some((0x64, 0x69, 0x6a)));
        assert_eq!(parse_color(b"red"), None);
        assert_eq!(parse_color(b"#ff"), None);
        assert_eq!(parse_color(b"rgb:1/2"), None);
    }
}

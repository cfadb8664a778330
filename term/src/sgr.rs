//! SGR (Select Graphic Rendition): applies `CSI ... m` parameters to a style,
//! with 16, 256 and 24-bit colours in both the `;` and `:` forms.

use super::parser::Params;

use super::style::{Attrs, Color, Style, Underline};

/// Applies every SGR parameter in `params` to `style`.
pub fn apply(style: &mut Style, params: &Params) {
    if params.is_empty() {
        *style = Style {
            link: style.link,
            ..Style::default()
        };
        return;
    }
    match params.plain() {
        Some(values) => apply_each(style, values.chunks(1)),
        None => apply_each(style, params.iter()),
    }
}

/// Applies each parameter (its value, then its sub-parameters) in turn.
#[inline(always)]
fn apply_each<'a>(style: &mut Style, mut iter: impl Iterator<Item = &'a [u16]>) {
    while let Some(param) = iter.next() {
        let code = param[0];
        match code {
            0 => {
                *style = Style {
                    link: style.link,
                    ..Style::default()
                }
            }
            1 => style.attrs.set(Attrs::BOLD, true),
            2 => style.attrs.set(Attrs::DIM, true),
            3 => style.attrs.set(Attrs::ITALIC, true),
            4 => {
                style.underline = match param.get(1) {
                    Some(&kind) => Underline::from_param(kind),
                    None => Underline::Single,
                }
            }
            5 | 6 => style.attrs.set(Attrs::BLINK, true),
            7 => style.attrs.set(Attrs::INVERSE, true),
            8 => style.attrs.set(Attrs::INVISIBLE, true),
            9 => style.attrs.set(Attrs::STRIKE, true),
            21 => style.underline = Underline::Double,
            22 => {
                style.attrs.set(Attrs::BOLD, false);
                style.attrs.set(Attrs::DIM, false);
            }
            23 => style.attrs.set(Attrs::ITALIC, false),
            24 => style.underline = Underline::None,
            25 => style.attrs.set(Attrs::BLINK, false),
            27 => style.attrs.set(Attrs::INVERSE, false),
            28 => style.attrs.set(Attrs::INVISIBLE, false),
            29 => style.attrs.set(Attrs::STRIKE, false),
            30..=37 => style.fg = Color::Indexed((code - 30) as u8),
            38 => {
                if let Some(color) = extended_color(param, &mut iter) {
                    style.fg = color;
                }
            }
            39 => style.fg = Color::Default,
            40..=47 => style.bg = Color::Indexed((code - 40) as u8),
            48 => {
                if let Some(color) = extended_color(param, &mut iter) {
                    style.bg = color;
                }
            }
            49 => style.bg = Color::Default,
            58 => {
                if let Some(color) = extended_color(param, &mut iter) {
                    style.underline_color = color;
                }
            }
            59 => style.underline_color = Color::Default,
            90..=97 => style.fg = Color::Indexed((code - 90 + 8) as u8),
            100..=107 => style.bg = Color::Indexed((code - 100 + 8) as u8),
            _ => {}
        }
    }
}

/// Reads the colour after 38, 48 or 58: from the sub-parameters in the `:`
/// form (`38:5:n`, `38:2:r:g:b`, `38:2:cs:r:g:b`), otherwise from the
/// following parameters (`38;5;n`, `38;2;r;g;b`).
fn extended_color<'a>(param: &[u16], rest: &mut impl Iterator<Item = &'a [u16]>) -> Option<Color> {
    if param.len() > 1 {
        return match param[1] {
            5 => param.get(2).map(|&n| Color::Indexed(n.min(255) as u8)),
            // As xterm.js: the first sub-parameter after 2 is always the colour
            // space id, and missing components read as 0.
            2 => {
                let at = |i: usize| param.get(i).copied().unwrap_or(0);
                Some(rgb_color(at(3), at(4), at(5)))
            }
            _ => None,
        };
    }
    match rest.next()?.first()? {
        5 => {
            let n = *rest.next()?.first()?;
            Some(Color::Indexed(n.min(255) as u8))
        }
        2 => {
            let r = *rest.next()?.first()?;
            let g = *rest.next()?.first()?;
            let b = *rest.next()?.first()?;
            Some(rgb_color(r, g, b))
        }
        _ => None,
    }
}

fn rgb_color(r: u16, g: u16, b: u16) -> Color {
    Color::Rgb(r.min(255) as u8, g.min(255) as u8, b.min(255) as u8)
}

#[cfg(test)]
mod tests {
    use super::super::parser::{Actions, Parser};
    use super::*;

    fn parse(seq: &[u8]) -> Style {
        struct Capture(Style);
        impl Actions for Capture {
            fn print_ascii(&mut self, _: &[u8]) {}
            fn print_text(&mut self, _: &[char]) {}
            fn print(&mut self, _: char) {}
            fn execute(&mut self, _: u8) {}
            fn csi_dispatch(&mut self, params: &Params, _: &[u8], _: bool, _: char) {
                apply(&mut self.0, params);
            }
            fn esc_dispatch(&mut self, _: &[u8], _: bool, _: u8) {}
            fn osc_dispatch(&mut self, _: &[&[u8]], _: bool) {}
            fn hook(&mut self, _: &Params, _: &[u8], _: bool, _: char) {}
            fn put(&mut self, _: u8) {}
            fn unhook(&mut self) {}
        }
        let mut parser = Parser::new();
        let mut capture = Capture(Style::default());
        parser.advance(&mut capture, seq);
        capture.0
    }

    #[test]
    fn colours_in_both_forms() {
        assert_eq!(parse(b"\x1b[38;5;208m").fg, Color::Indexed(208));
        assert_eq!(parse(b"\x1b[38:5:208m").fg, Color::Indexed(208));
        assert_eq!(parse(b"\x1b[48;2;10;200;30m").bg, Color::Rgb(10, 200, 30));
        assert_eq!(parse(b"\x1b[48:2::10:200:30m").bg, Color::Rgb(10, 200, 30));
        assert_eq!(parse(b"\x1b[48:2:0:10:200:30m").bg, Color::Rgb(10, 200, 30));
        assert_eq!(parse(b"\x1b[48:2:255:0:255m").bg, Color::Rgb(0, 255, 0));
        assert_eq!(parse(b"\x1b[58:5:3m").underline_color, Color::Indexed(3));
        assert_eq!(parse(b"\x1b[93m").fg, Color::Indexed(11));
        assert_eq!(parse(b"\x1b[104m").bg, Color::Indexed(12));
    }

    #[test]
    fn attributes_set_and_reset() {
        let s = parse(b"\x1b[1;2;3;4:3;5;7;8;9m");
        assert!(s.attrs.contains(Attrs::BOLD) && s.attrs.contains(Attrs::STRIKE));
        assert_eq!(s.underline, Underline::Curly);
        let s = parse(b"\x1b[1;2;3;4;5;7;8;9;22;23;24;25;27;28;29m");
        assert_eq!(s, Style::default());
        assert_eq!(parse(b"\x1b[31;1m\x1b[m"), Style::default());
    }

    #[test]
    fn truncated_extended_colours_are_ignored() {
        assert_eq!(parse(b"\x1b[38;2;1m").fg, Color::Default);
        assert_eq!(parse(b"\x1b[38;5m").fg, Color::Default);
        assert_eq!(parse(b"\x1b[38:2m").fg, Color::Rgb(0, 0, 0));
    }
}

//! DECRQSS (`DCS $ q Pt ST`): a program asks for the setting a control
//! function would make, and gets it back as that control function.

use super::{CursorShape, Emulator};
use crate::style::{Attrs, Color, Style, Underline};

impl Emulator {
    /// Answers DECRQSS for `request` with `DCS 1 $ r <setting> ST`, or
    /// `DCS 0 $ r ST` for a request it does not know (xterm's convention).
    pub fn report_status_string(&mut self, request: &[u8]) {
        let setting = match request {
            b"m" => format!("{}m", sgr_params(&self.pen.style)),
            b"r" => format!("{};{}r", self.region.top + 1, self.region.bottom + 1),
            b"s" => format!("{};{}s", self.region.left + 1, self.region.right + 1),
            b" q" => format!("{} q", self.cursor_style_param()),
            b"\"q" => format!("{}\"q", u8::from(self.protect)),
            b"\"p" => format!("6{};1\"p", self.conformance_level),
            b"t" => format!("{}t", self.rows),
            b"*|" => format!("{}*|", self.rows),
            b"$|" => format!("{}$|", self.cols),
            // DECSASD, DECSACE and DECSSDT; DECELF (`+q`), DECLFKC (`*}`)
            // and DECSMKR (`+r`) are unknown, as in xterm: there are no
            // local function keys to report on.
            b"$}" | b"*x" | b"$~" => {
                format!("0{}", String::from_utf8_lossy(request))
            }
            _ => {
                self.reply(b"\x1bP0$r\x1b\\");
                return;
            }
        };
        self.reply_fmt(format_args!("\x1bP1$r{setting}\x1b\\"));
    }

    /// The DECSCUSR parameter that sets the current cursor style.
    fn cursor_style_param(&self) -> u8 {
        let base = match self.cursor_shape {
            CursorShape::Block => 1,
            CursorShape::Underline => 3,
            CursorShape::Bar => 5,
        };
        base + u8::from(!self.cursor_blink)
    }
}

/// The SGR parameters that set `style` from the default, starting with 0.
fn sgr_params(style: &Style) -> String {
    let mut params = vec!["0".to_string()];
    for (attr, code) in [
        (Attrs::BOLD, "1"),
        (Attrs::DIM, "2"),
        (Attrs::ITALIC, "3"),
        (Attrs::BLINK, "5"),
        (Attrs::INVERSE, "7"),
        (Attrs::INVISIBLE, "8"),
        (Attrs::STRIKE, "9"),
    ] {
        if style.attrs.contains(attr) {
            params.push(code.to_string());
        }
    }
    match style.underline {
        Underline::None => {}
        Underline::Single => params.push("4".to_string()),
        other => params.push(format!("4:{}", other as u8)),
    }
    params.extend(color_params(style.fg, 30, 90, 38));
    params.extend(color_params(style.bg, 40, 100, 48));
    params.join(";")
}

/// The SGR parameter for a colour: `base + n` for the first 8, `bright + n`
/// for the next 8, `extended;5;n` or `extended:2::r:g:b` otherwise.
fn color_params(color: Color, base: u16, bright: u16, extended: u16) -> Option<String> {
    match color {
        Color::Default => None,
        Color::Indexed(i @ 0..=7) => Some((base + i as u16).to_string()),
        Color::Indexed(i @ 8..=15) => Some((bright + i as u16 - 8).to_string()),
        Color::Indexed(i) => Some(format!("{extended};5;{i}")),
        Color::Rgb(r, g, b) => Some(format!("{extended}:2::{r}:{g}:{b}")),
    }
}

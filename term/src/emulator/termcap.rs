//! XTGETTCAP (`DCS + q Pt ST`): a program asks for terminfo capabilities
//! by hex-encoded name. The few that describe the emulator rather than a
//! terminfo entry are answered; the rest get xterm's "not found" reply.

use super::Emulator;

/// The value of a capability this terminal vouches for.
fn capability(name: &[u8]) -> Option<&'static str> {
    match name {
        b"Co" | b"colors" => Some("256"),
        b"TN" | b"name" => Some("xterm-256color"),
        _ => None,
    }
}

/// Hex-decodes `text` (two digits a byte).
fn unhex(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect()
}

/// Hex-encodes `text` as xterm does (upper case).
fn hex(text: &[u8]) -> String {
    text.iter().map(|b| format!("{b:02X}")).collect()
}

impl Emulator {
    /// Answers XTGETTCAP for each `;`-separated name: `DCS 1 + r name=value
    /// ST` when known, otherwise `DCS 0 + r name ST`, stopping at the first
    /// unknown name as xterm does.
    pub fn report_termcap(&mut self, request: &[u8]) {
        for encoded in request.split(|&b| b == b';') {
            let value = unhex(encoded).and_then(|name| capability(&name));
            let encoded = String::from_utf8_lossy(encoded);
            match value {
                Some(value) => {
                    let value = hex(value.as_bytes());
                    self.reply_fmt(format_args!("\x1bP1+r{encoded}={value}\x1b\\"));
                }
                None => {
                    self.reply_fmt(format_args!("\x1bP0+r{encoded}\x1b\\"));
                    return;
                }
            }
        }
    }
}

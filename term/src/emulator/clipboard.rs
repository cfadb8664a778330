//! OSC 52: a program sets the clipboard. The latest write is kept for the
//! session to pass on to control viewers; a read (`?`) is never answered.

use crate::MAX_CLIPBOARD;
use base64::alphabet::STANDARD;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;

use super::Emulator;
use crate::parser::MAX_OSC_BYTES;

/// Standard base64, with or without padding (programs differ).
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

impl Emulator {
    /// `OSC 52 ; Pc ; data`: keeps the text when `data` is base64 of UTF-8
    /// that fits a `Clipboard` message. Ignores a read (`?`), a string the
    /// parser may have cut short, and anything malformed.
    pub(super) fn set_clipboard(&mut self, data: &[u8]) {
        if data == b"?" || data.len() + b"52;;".len() + 16 >= MAX_OSC_BYTES {
            return;
        }
        let Ok(bytes) = BASE64.decode(data) else {
            return;
        };
        if let Ok(text) = String::from_utf8(bytes) {
            if text.len() <= MAX_CLIPBOARD {
                self.outbox.clipboard = Some(text);
            }
        }
    }
}

//! Which encoding a key takes: the kitty keyboard protocol's or
//! `modifyOtherKeys`' when the program asked for one, else xterm's legacy
//! bytes ([`super::legacy`]).

use panecast_term::Modes;

use super::keys::{Key, KeyEvent};
use super::legacy::legacy;
use super::{kitty, other_keys};

/// The bytes a program reads when `key` is pressed, repeated or released,
/// given the terminal's current `modes` (and the keyboard encoding they
/// carry: [`Modes::keyboard`]).
pub fn encode_key(key: &Key, modes: &Modes) -> Vec<u8> {
    let keyboard = modes.keyboard();
    if kitty::applies(keyboard.flags) {
        return kitty::encode(key, keyboard.flags);
    }
    if key.event == KeyEvent::Release {
        return Vec::new();
    }
    other_keys::encode(key.code, key.mods, keyboard.other_keys)
        .unwrap_or_else(|| legacy(key.code, key.mods, modes))
}

#[cfg(test)]
mod tests {
    use super::super::keys::parse_key;
    use super::*;
    use panecast_term::Mode;

    fn enc(name: &str, modes: &Modes) -> Vec<u8> {
        let key = parse_key(name).expect("known key");
        encode_key(&key, modes)
    }

    fn normal(name: &str) -> Vec<u8> {
        enc(name, &Modes::default())
    }

    fn app_cursor(name: &str) -> Vec<u8> {
        let mut modes = Modes::default();
        modes.set(Mode::AppCursor, true);
        enc(name, &modes)
    }

    #[test]
    fn plain_keys() {
        assert_eq!(normal("Enter"), b"\r");
        assert_eq!(normal("Tab"), b"\t");
        assert_eq!(normal("BSpace"), b"\x7f");
        assert_eq!(normal("Backspace"), b"\x7f");
        assert_eq!(normal("Escape"), b"\x1b");
        assert_eq!(normal("Space"), b" ");
        assert_eq!(normal("a"), b"a");
        assert_eq!(normal("é"), "é".as_bytes());
    }

    #[test]
    fn decbkm_swaps_what_backspace_sends() {
        assert_eq!(normal("C-Backspace"), b"\x08");
        let mut modes = Modes::default();
        modes.set(Mode::BackarrowSendsBs, true);
        assert_eq!(enc("Backspace", &modes), b"\x08");
        assert_eq!(enc("C-Backspace", &modes), b"\x7f");
    }

    #[test]
    fn control_and_alt_characters() {
        assert_eq!(normal("C-c"), b"\x03");
        assert_eq!(normal("C-C"), b"\x03");
        assert_eq!(normal("C-a"), b"\x01");
        assert_eq!(normal("C-z"), b"\x1a");
        assert_eq!(normal("C-Space"), b"\x00");
        assert_eq!(normal("C-@"), b"\x00");
        assert_eq!(normal("C-["), b"\x1b");
        assert_eq!(normal("C-\\"), b"\x1c");
        assert_eq!(normal("C-_"), b"\x1f");
        assert_eq!(normal("C-?"), b"\x7f");
        assert_eq!(normal("C-BSpace"), b"\x08");
        assert_eq!(normal("M-x"), b"\x1bx");
        assert_eq!(normal("C-M-c"), b"\x1b\x03");
        assert_eq!(normal("M-Enter"), b"\x1b\r");
        assert_eq!(normal("S-a"), b"A");
        assert_eq!(normal("C-1"), b"1");
    }

    #[test]
    fn cursor_keys_follow_application_cursor_mode() {
        assert_eq!(normal("Up"), b"\x1b[A");
        assert_eq!(normal("Down"), b"\x1b[B");
        assert_eq!(normal("Right"), b"\x1b[C");
        assert_eq!(normal("Left"), b"\x1b[D");
        assert_eq!(normal("Home"), b"\x1b[H");
        assert_eq!(normal("End"), b"\x1b[F");
        assert_eq!(app_cursor("Up"), b"\x1bOA");
        assert_eq!(app_cursor("Left"), b"\x1bOD");
        assert_eq!(app_cursor("Home"), b"\x1bOH");
        // Modified cursor keys use CSI in either mode.
        assert_eq!(app_cursor("C-Left"), b"\x1b[1;5D");
    }

    #[test]
    fn modified_special_keys() {
        assert_eq!(normal("C-Left"), b"\x1b[1;5D");
        assert_eq!(normal("S-Up"), b"\x1b[1;2A");
        assert_eq!(normal("M-Right"), b"\x1b[1;3C");
        assert_eq!(normal("C-S-End"), b"\x1b[1;6F");
        assert_eq!(normal("BTab"), b"\x1b[Z");
        assert_eq!(normal("S-Tab"), b"\x1b[Z");
        assert_eq!(normal("C-Delete"), b"\x1b[3;5~");
        assert_eq!(normal("S-F5"), b"\x1b[15;2~");
        assert_eq!(normal("C-F1"), b"\x1b[1;5P");
    }

    #[test]
    fn editing_and_function_keys() {
        assert_eq!(normal("Insert"), b"\x1b[2~");
        assert_eq!(normal("IC"), b"\x1b[2~");
        assert_eq!(normal("Delete"), b"\x1b[3~");
        assert_eq!(normal("DC"), b"\x1b[3~");
        assert_eq!(normal("PageUp"), b"\x1b[5~");
        assert_eq!(normal("PPage"), b"\x1b[5~");
        assert_eq!(normal("PageDown"), b"\x1b[6~");
        assert_eq!(normal("NPage"), b"\x1b[6~");
        let expected: [&[u8]; 12] = [
            b"\x1bOP",
            b"\x1bOQ",
            b"\x1bOR",
            b"\x1bOS",
            b"\x1b[15~",
            b"\x1b[17~",
            b"\x1b[18~",
            b"\x1b[19~",
            b"\x1b[20~",
            b"\x1b[21~",
            b"\x1b[23~",
            b"\x1b[24~",
        ];
        for (i, bytes) in expected.iter().enumerate() {
            assert_eq!(normal(&format!("F{}", i + 1)), *bytes, "F{}", i + 1);
        }
    }
}

//! xterm's key encoding: control characters, `ESC` prefixes for Alt,
//! `CSI 1 ; m X` and `CSI n ; m ~` for modified special keys, `SS3` cursor
//! keys in application cursor mode. A program that asked for the kitty
//! keyboard protocol or `modifyOtherKeys` gets those encodings instead.

use crate::term::{Mode, Modes};

use super::keys::{Key, KeyCode, KeyEvent, Modifiers};
use super::{kitty, other_keys};

pub(super) const ESC: u8 = 0x1b;

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

/// xterm's encoding with no keyboard protocol asked for.
fn legacy(key: KeyCode, mods: Modifiers, modes: &Modes) -> Vec<u8> {
    match key {
        KeyCode::Char(c) => encode_char(c, mods),
        KeyCode::Space => encode_char(' ', mods),
        KeyCode::Enter => plain(b'\r', mods),
        KeyCode::Escape => plain(ESC, mods),
        KeyCode::Backspace => plain(if mods.ctrl { 0x08 } else { 0x7f }, mods),
        KeyCode::Tab if mods.shift => csi_final(
            b'Z',
            Modifiers {
                shift: false,
                ..mods
            },
        ),
        KeyCode::Tab => plain(b'\t', mods),
        KeyCode::Up => cursor(b'A', mods, modes),
        KeyCode::Down => cursor(b'B', mods, modes),
        KeyCode::Right => cursor(b'C', mods, modes),
        KeyCode::Left => cursor(b'D', mods, modes),
        KeyCode::Home => cursor(b'H', mods, modes),
        KeyCode::End => cursor(b'F', mods, modes),
        KeyCode::Insert => tilde(2, mods),
        KeyCode::Delete => tilde(3, mods),
        KeyCode::PageUp => tilde(5, mods),
        KeyCode::PageDown => tilde(6, mods),
        KeyCode::F(n @ 1..=4) => function_ss3(b'P' + (n - 1), mods),
        KeyCode::F(n) => tilde(function_number(n), mods),
        KeyCode::Modifier(_) => Vec::new(),
    }
}

/// A character key: Control folds it to a C0 code where xterm does, Shift
/// upper-cases letters, Alt prefixes `ESC`.
pub(super) fn encode_char(c: char, mods: Modifiers) -> Vec<u8> {
    let c = if mods.shift {
        c.to_ascii_uppercase()
    } else {
        c
    };
    let mut out = Vec::with_capacity(5);
    if mods.alt {
        out.push(ESC);
    }
    match control_code(c).filter(|_| mods.ctrl) {
        Some(code) => out.push(code),
        None => {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    out
}

/// The byte Control turns `c` into, as xterm does, if any.
pub(super) fn control_code(c: char) -> Option<u8> {
    match c {
        'a'..='z' | 'A'..='Z' => Some(c.to_ascii_uppercase() as u8 & 0x1f),
        '@' | ' ' | '2' => Some(0x00),
        '[' | '3' => Some(ESC),
        '\\' | '4' => Some(0x1c),
        ']' | '5' => Some(0x1d),
        '^' | '~' | '6' => Some(0x1e),
        '_' | '/' | '7' => Some(0x1f),
        '?' | '8' => Some(0x7f),
        _ => None,
    }
}

/// A key that sends one byte, with `ESC` in front for Alt.
fn plain(byte: u8, mods: Modifiers) -> Vec<u8> {
    if mods.alt {
        vec![ESC, byte]
    } else {
        vec![byte]
    }
}

/// xterm's modifier parameter: 1 + Shift + 2·Alt + 4·Control.
pub(super) fn modifier_param(mods: Modifiers) -> u8 {
    1 + u8::from(mods.shift) + 2 * u8::from(mods.alt) + 4 * u8::from(mods.ctrl)
}

/// Cursor keys, Home and End: `CSI X`, `SS3 X` in application cursor
/// mode, `CSI 1 ; m X` with modifiers.
fn cursor(final_byte: u8, mods: Modifiers, modes: &Modes) -> Vec<u8> {
    if mods.none() && modes.get(Mode::AppCursor) {
        vec![ESC, b'O', final_byte]
    } else {
        csi_final(final_byte, mods)
    }
}

/// `CSI X`, or `CSI 1 ; m X` with modifiers.
fn csi_final(final_byte: u8, mods: Modifiers) -> Vec<u8> {
    if mods.none() {
        vec![ESC, b'[', final_byte]
    } else {
        let mut out = format!("\x1b[1;{}", modifier_param(mods)).into_bytes();
        out.push(final_byte);
        out
    }
}

/// F1 to F4: `SS3 P`..`SS3 S`, or `CSI 1 ; m P` with modifiers.
fn function_ss3(final_byte: u8, mods: Modifiers) -> Vec<u8> {
    if mods.none() {
        vec![ESC, b'O', final_byte]
    } else {
        csi_final(final_byte, mods)
    }
}

/// `CSI n ~`, or `CSI n ; m ~` with modifiers.
fn tilde(n: u8, mods: Modifiers) -> Vec<u8> {
    if mods.none() {
        format!("\x1b[{n}~").into_bytes()
    } else {
        format!("\x1b[{n};{}~", modifier_param(mods)).into_bytes()
    }
}

/// The `CSI n ~` number of F5 to F12 (xterm skips 16 and 22).
pub(super) fn function_number(n: u8) -> u8 {
    match n {
        5 => 15,
        6..=10 => n + 11,
        _ => n + 12,
    }
}

#[cfg(test)]
mod tests {
    use super::super::keys::parse_key;
    use super::*;

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

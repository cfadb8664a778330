//! xterm's legacy key encoding: control characters, `ESC` prefixes for
//! Alt, `CSI 1 ; m X` and `CSI n ; m ~` for modified special keys, `SS3`
//! cursor keys in application cursor mode; and the pieces the kitty and
//! `modifyOtherKeys` encodings share with it.

use panecast_term::{Mode, Modes};

use super::keys::{KeyCode, Modifiers};

/// The escape character.
pub(super) const ESC: u8 = 0x1b;

/// xterm's encoding with no keyboard protocol asked for.
pub(super) fn legacy(key: KeyCode, mods: Modifiers, modes: &Modes) -> Vec<u8> {
    match key {
        KeyCode::Char(c) => encode_char(c, mods),
        KeyCode::Space => encode_char(' ', mods),
        KeyCode::Enter => plain(b'\r', mods),
        KeyCode::Escape => plain(ESC, mods),
        KeyCode::Backspace => {
            let bs = mods.ctrl != modes.get(Mode::BackarrowSendsBs);
            plain(if bs { 0x08 } else { 0x7f }, mods)
        }
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

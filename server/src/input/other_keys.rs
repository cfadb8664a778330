//! xterm's `modifyOtherKeys` (`CSI > 4 ; n m`): a key with modifiers whose
//! usual bytes would lose them is sent as `CSI 27 ; m ; code ~` (xterm's
//! default `formatOtherKeys` 0). Level 1 does so only where the usual bytes
//! are ambiguous (Ctrl-1, Ctrl-Shift-A, Ctrl-Tab, Shift-Enter); level 2 for
//! every key with Control or Alt (Shift alone still types its character).
//! Cursor, editing and function keys keep their own modified forms.

use panecast_term::OtherKeys;

use super::keys::{KeyCode, Modifiers};
use super::legacy::{control_code, modifier_param};

/// `CSI 27 ; m ; code ~` for `key` with `mods`, when `level` asks for it.
pub(super) fn encode(key: KeyCode, mods: Modifiers, level: OtherKeys) -> Option<Vec<u8>> {
    let level = level.level();
    if level == 0 || mods.none() {
        return None;
    }
    let ctrl_or_alt = mods.ctrl || mods.alt;
    let (code, ambiguous, any) = match key {
        KeyCode::Char(c) => {
            // The character Shift gives, as the legacy encoding sends it.
            let c = if mods.shift {
                c.to_ascii_uppercase()
            } else {
                c
            };
            let dropped = control_code(c).is_none() || (mods.shift && c.is_ascii_alphabetic());
            (u32::from(c), mods.ctrl && dropped, ctrl_or_alt)
        }
        KeyCode::Space => (32, mods.ctrl && mods.shift, ctrl_or_alt),
        KeyCode::Enter => (13, mods.ctrl || mods.shift, true),
        KeyCode::Escape => (27, mods.ctrl || mods.shift, true),
        // Shift-Tab keeps its back-tab, CSI Z.
        KeyCode::Tab => (9, mods.ctrl && !mods.shift, ctrl_or_alt),
        // Backspace and Ctrl-Backspace are well known (DEL and BS).
        KeyCode::Backspace => (127, false, true),
        _ => return None,
    };
    let wanted = if level == 1 { ambiguous } else { any };
    wanted.then(|| format!("\x1b[27;{};{code}~", modifier_param(mods)).into_bytes())
}

#[cfg(test)]
mod tests {
    use super::super::encode_key;
    use super::super::keys::parse_key;
    use panecast_term::{KeyboardMode, Modes};

    fn enc(name: &str, level: u16) -> Vec<u8> {
        let modes = Modes::default().with_keyboard(KeyboardMode {
            other_keys: panecast_term::OtherKeys::from_level(level).expect("a level"),
            ..KeyboardMode::default()
        });
        encode_key(&parse_key(name).expect("known key"), &modes)
    }

    #[test]
    fn level_1_encodes_only_what_would_be_ambiguous() {
        // xterm's examples: Control with a key that has no control code.
        assert_eq!(enc("C-1", 1), b"\x1b[27;5;49~");
        assert_eq!(enc("C-.", 1), b"\x1b[27;5;46~");
        assert_eq!(enc("C-S-a", 1), b"\x1b[27;6;65~");
        assert_eq!(enc("C-Tab", 1), b"\x1b[27;5;9~");
        assert_eq!(enc("S-Enter", 1), b"\x1b[27;2;13~");
        assert_eq!(enc("C-Enter", 1), b"\x1b[27;5;13~");
        assert_eq!(enc("C-S-Space", 1), b"\x1b[27;6;32~");
        // Well-known keys keep their bytes.
        assert_eq!(enc("C-a", 1), b"\x01");
        assert_eq!(enc("C-[", 1), b"\x1b");
        assert_eq!(enc("C-Space", 1), b"\x00");
        assert_eq!(enc("M-x", 1), b"\x1bx");
        assert_eq!(enc("S-a", 1), b"A");
        assert_eq!(enc("S-Tab", 1), b"\x1b[Z");
        assert_eq!(enc("C-BSpace", 1), b"\x08");
        assert_eq!(enc("Tab", 1), b"\t");
        assert_eq!(enc("C-Up", 1), b"\x1b[1;5A");
    }

    #[test]
    fn level_2_encodes_every_key_with_control_or_alt() {
        assert_eq!(enc("C-a", 2), b"\x1b[27;5;97~");
        assert_eq!(enc("C-i", 2), b"\x1b[27;5;105~");
        assert_eq!(enc("C-[", 2), b"\x1b[27;5;91~");
        assert_eq!(enc("M-x", 2), b"\x1b[27;3;120~");
        assert_eq!(enc("C-M-c", 2), b"\x1b[27;7;99~");
        assert_eq!(enc("M-S-a", 2), b"\x1b[27;4;65~");
        assert_eq!(enc("C-Space", 2), b"\x1b[27;5;32~");
        assert_eq!(enc("M-Enter", 2), b"\x1b[27;3;13~");
        assert_eq!(enc("M-BSpace", 2), b"\x1b[27;3;127~");
        // Shift alone types its character; plain keys are unchanged.
        assert_eq!(enc("S-a", 2), b"A");
        assert_eq!(enc("a", 2), b"a");
        assert_eq!(enc("Tab", 2), b"\t");
        assert_eq!(enc("Escape", 2), b"\x1b");
        assert_eq!(enc("S-Tab", 2), b"\x1b[Z");
        assert_eq!(enc("C-F5", 2), b"\x1b[15;5~");
    }
}

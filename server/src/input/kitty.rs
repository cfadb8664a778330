//! The kitty keyboard protocol's encoding
//! (<https://sw.kovidgoyal.net/kitty/keyboard-protocol/>): with the flags a
//! program pushed, keys are sent as `CSI key[:shifted] ; mods[:event]
//! [; text] u`, or with their legacy final byte (`CSI 1 ; mods A`,
//! `CSI 15 ; mods ~`) for cursor, editing and function keys.
//!
//! What the browser cannot tell us is left out: the base-layout key (the
//! third alternate), keypad keys (they arrive as their characters) and
//! the lock and Super/Hyper modifiers (Meta held arrives as Alt).

use panecast_term::KeyboardFlags;

use super::keys::{Key, KeyCode, KeyEvent, ModifierKey, Modifiers};
use super::legacy::{encode_char, function_number, modifier_param, ESC};

/// True when `flags` change any key's bytes: report alternate keys (4) and
/// report text (16) only add to escape codes the other flags produce.
pub(super) fn applies(flags: KeyboardFlags) -> bool {
    [
        KeyboardFlags::DISAMBIGUATE,
        KeyboardFlags::EVENT_TYPES,
        KeyboardFlags::ALL_KEYS,
    ]
    .into_iter()
    .any(|flag| flags.contains(flag))
}

/// The bytes for `key` under `flags` (one of which [`applies`]).
pub(super) fn encode(key: &Key, flags: KeyboardFlags) -> Vec<u8> {
    let event = match key.event {
        _ if flags.contains(KeyboardFlags::EVENT_TYPES) => key.event,
        KeyEvent::Release => return Vec::new(),
        KeyEvent::Press | KeyEvent::Repeat => KeyEvent::Press,
    };
    match key.code {
        KeyCode::Char(c) => text_key(c, key.mods, event, flags),
        KeyCode::Space => text_key(' ', key.mods, event, flags),
        code => functional_key(code, key.mods, event, flags),
    }
}

/// A key that types a character.
fn text_key(c: char, mods: Modifiers, event: KeyEvent, flags: KeyboardFlags) -> Vec<u8> {
    let typed = if mods.shift {
        single(c.to_uppercase(), c)
    } else {
        c
    };
    let base = single(typed.to_lowercase(), typed);
    let shifted = (mods.shift && typed != base).then_some(typed);
    // Control and Alt keys type no text of their own.
    let text = (!mods.ctrl && !mods.alt).then_some(typed);
    let all = flags.contains(KeyboardFlags::ALL_KEYS);
    let release = event == KeyEvent::Release;
    if let (Some(text), false, false) = (text, all, release) {
        return utf8(text);
    }
    let alternate = shifted.filter(|_| flags.contains(KeyboardFlags::ALTERNATE_KEYS));
    let embedded = text.filter(|_| all && !release && flags.contains(KeyboardFlags::TEXT));
    let plain = event == KeyEvent::Press && alternate.is_none() && embedded.is_none();
    if plain && !all && !flags.contains(KeyboardFlags::DISAMBIGUATE) {
        return encode_char(c, mods);
    }
    let code = u32::from(base);
    csi(code, alternate.map(u32::from), mods, event, embedded, b'u')
}

/// A key that types no character: Escape, Enter, Tab, Backspace, cursor,
/// editing and function keys.
fn functional_key(
    code: KeyCode,
    mods: Modifiers,
    event: KeyEvent,
    flags: KeyboardFlags,
) -> Vec<u8> {
    let all = flags.contains(KeyboardFlags::ALL_KEYS);
    let release = event == KeyEvent::Release;
    if mods.none() && !all {
        // Enter, Tab and Backspace stay legacy (a shell stays usable after a
        // program left the flags on), and have no release event.
        let legacy = match code {
            KeyCode::Enter => Some(b'\r'),
            KeyCode::Tab => Some(b'\t'),
            KeyCode::Backspace => Some(0x7f),
            KeyCode::Escape if !flags.contains(KeyboardFlags::DISAMBIGUATE) && !release => {
                Some(ESC)
            }
            _ => None,
        };
        if let Some(byte) = legacy {
            return if release { Vec::new() } else { vec![byte] };
        }
    }
    match functional_number(code, all) {
        Some((number, final_byte)) => csi(number, None, mods, event, None, final_byte),
        None => Vec::new(),
    }
}

/// A functional key's number and final byte (kitty's table: the legacy
/// ones, F13 and up in the private-use area); none for a text key.
fn functional_number(code: KeyCode, all: bool) -> Option<(u32, u8)> {
    Some(match code {
        KeyCode::Escape => (27, b'u'),
        KeyCode::Enter => (13, b'u'),
        KeyCode::Tab => (9, b'u'),
        KeyCode::Backspace => (127, b'u'),
        KeyCode::Insert => (2, b'~'),
        KeyCode::Delete => (3, b'~'),
        KeyCode::PageUp => (5, b'~'),
        KeyCode::PageDown => (6, b'~'),
        KeyCode::Up => (1, b'A'),
        KeyCode::Down => (1, b'B'),
        KeyCode::Right => (1, b'C'),
        KeyCode::Left => (1, b'D'),
        KeyCode::Home => (1, b'H'),
        KeyCode::End => (1, b'F'),
        KeyCode::F(1) => (1, b'P'),
        KeyCode::F(2) => (1, b'Q'),
        KeyCode::F(3) => (13, b'~'),
        KeyCode::F(4) => (1, b'S'),
        // F13 is 57376.
        KeyCode::F(n @ 13..) => (57376 + u32::from(n) - 13, b'u'),
        KeyCode::F(n) => (u32::from(function_number(n)), b'~'),
        // Modifier keys: only with all keys as escape codes (flag 8).
        KeyCode::Modifier(_) if !all => return None,
        KeyCode::Modifier(key) => (modifier_number(key), b'u'),
        KeyCode::Char(_) | KeyCode::Space => return None,
    })
}

/// Kitty's number for a modifier key (57441 is left Shift).
fn modifier_number(key: ModifierKey) -> u32 {
    match key {
        ModifierKey::LeftShift => 57441,
        ModifierKey::LeftControl => 57442,
        ModifierKey::LeftAlt => 57443,
        ModifierKey::LeftMeta => 57444,
        ModifierKey::RightShift => 57447,
        ModifierKey::RightControl => 57448,
        ModifierKey::RightAlt => 57449,
        ModifierKey::RightMeta => 57450,
    }
}

/// `CSI number[:shifted] ; mods[:event] [; text] final`, leaving out the
/// fields that say nothing (`CSI A` for Up, `CSI 27 u` for Escape).
fn csi(
    number: u32,
    shifted: Option<u32>,
    mods: Modifiers,
    event: KeyEvent,
    text: Option<char>,
    final_byte: u8,
) -> Vec<u8> {
    let second = !mods.none() || event != KeyEvent::Press;
    let mut out = String::from("\x1b[");
    if number != 1 || shifted.is_some() || second || text.is_some() {
        out.push_str(&number.to_string());
    }
    if let Some(shifted) = shifted {
        out.push_str(&format!(":{shifted}"));
    }
    if second || text.is_some() {
        out.push(';');
    }
    if second {
        out.push_str(&modifier_param(mods).to_string());
        match event {
            KeyEvent::Press => {}
            KeyEvent::Repeat => out.push_str(":2"),
            KeyEvent::Release => out.push_str(":3"),
        }
    }
    if let Some(text) = text {
        out.push_str(&format!(";{}", u32::from(text)));
    }
    let mut out = out.into_bytes();
    out.push(final_byte);
    out
}

/// The case mapping's result when it is one character, else `fallback`.
fn single(mut mapped: impl Iterator<Item = char>, fallback: char) -> char {
    match (mapped.next(), mapped.next()) {
        (Some(c), None) => c,
        _ => fallback,
    }
}

/// `c` as UTF-8.
fn utf8(c: char) -> Vec<u8> {
    c.to_string().into_bytes()
}

#[cfg(test)]
mod tests {
    use super::super::encode_key;
    use super::super::keys::{parse_key, Key, KeyEvent};
    use panecast_term::{KeyboardFlags, KeyboardMode, Mode, Modes};

    fn modes(flags: u16) -> Modes {
        Modes::default().with_keyboard(KeyboardMode {
            flags: KeyboardFlags::from_bits(flags),
            ..KeyboardMode::default()
        })
    }

    fn key(name: &str, event: KeyEvent) -> Key {
        Key {
            event,
            ..parse_key(name).expect("known key")
        }
    }

    /// `name` pressed under `flags`, as text (escapes shown as `\x1b`).
    fn press(name: &str, flags: u16) -> String {
        event(name, KeyEvent::Press, flags)
    }

    fn event(name: &str, event: KeyEvent, flags: u16) -> String {
        let bytes = encode_key(&key(name, event), &modes(flags));
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn disambiguate_tells_apart_what_legacy_merges() {
        // The spec's examples: Ctrl-I is not Tab, Ctrl-[ is not Escape.
        assert_eq!(press("C-i", 1), "\x1b[105;5u");
        assert_eq!(press("Tab", 1), "\t");
        assert_eq!(press("Escape", 1), "\x1b[27u");
        assert_eq!(press("C-[", 1), "\x1b[91;5u");
        assert_eq!(press("C-c", 1), "\x1b[99;5u");
        assert_eq!(press("M-a", 1), "\x1b[97;3u");
        assert_eq!(press("C-M-a", 1), "\x1b[97;7u");
        assert_eq!(press("M-S-a", 1), "\x1b[97;4u");
        assert_eq!(press("C-Space", 1), "\x1b[32;5u");
        // Keys that type text are still text.
        assert_eq!(press("a", 1), "a");
        assert_eq!(press("S-a", 1), "A");
        assert_eq!(press("é", 1), "é");
        assert_eq!(press("Space", 1), " ");
        // Enter, Tab and Backspace stay legacy unmodified; modified, CSI u.
        assert_eq!(press("Enter", 1), "\r");
        assert_eq!(press("BSpace", 1), "\x7f");
        assert_eq!(press("S-Tab", 1), "\x1b[9;2u");
        assert_eq!(press("C-Enter", 1), "\x1b[13;5u");
        assert_eq!(press("M-BSpace", 1), "\x1b[127;3u");
        assert_eq!(press("S-Escape", 1), "\x1b[27;2u");
    }

    #[test]
    fn functional_keys_keep_their_legacy_final_bytes() {
        assert_eq!(press("Up", 1), "\x1b[A");
        assert_eq!(press("Down", 1), "\x1b[B");
        assert_eq!(press("Right", 1), "\x1b[C");
        assert_eq!(press("Left", 1), "\x1b[D");
        assert_eq!(press("Home", 1), "\x1b[H");
        assert_eq!(press("End", 1), "\x1b[F");
        assert_eq!(press("C-Left", 1), "\x1b[1;5D");
        assert_eq!(press("S-End", 1), "\x1b[1;2F");
        assert_eq!(press("Insert", 1), "\x1b[2~");
        assert_eq!(press("Delete", 1), "\x1b[3~");
        assert_eq!(press("PageUp", 1), "\x1b[5~");
        assert_eq!(press("C-PageDown", 1), "\x1b[6;5~");
        let expected = [
            "\x1b[P", "\x1b[Q", "\x1b[13~", "\x1b[S", "\x1b[15~", "\x1b[17~", "\x1b[18~",
            "\x1b[19~", "\x1b[20~", "\x1b[21~", "\x1b[23~", "\x1b[24~",
        ];
        for (i, bytes) in expected.iter().enumerate() {
            assert_eq!(press(&format!("F{}", i + 1), 1), *bytes, "F{}", i + 1);
        }
        assert_eq!(press("C-F1", 1), "\x1b[1;5P");
        assert_eq!(press("S-F5", 1), "\x1b[15;2~");
        // Application cursor mode's SS3 is legacy only.
        let mut app = modes(1);
        app.set(Mode::AppCursor, true);
        assert_eq!(encode_key(&key("Up", KeyEvent::Press), &app), b"\x1b[A");
        // F13 and up use kitty's private-use numbers.
        let f13 = Key {
            code: super::KeyCode::F(13),
            ..key("a", KeyEvent::Press)
        };
        assert_eq!(encode_key(&f13, &modes(1)), b"\x1b[57376u");
    }

    #[test]
    fn event_types_report_repeats_and_releases() {
        // The spec's example: a released 'a' is CSI 97 ; 1 : 3 u.
        assert_eq!(event("a", KeyEvent::Release, 2), "\x1b[97;1:3u");
        assert_eq!(event("a", KeyEvent::Press, 2), "a");
        assert_eq!(event("a", KeyEvent::Repeat, 2), "a");
        assert_eq!(event("S-a", KeyEvent::Release, 3), "\x1b[97;2:3u");
        assert_eq!(event("C-a", KeyEvent::Repeat, 3), "\x1b[97;5:2u");
        assert_eq!(event("C-a", KeyEvent::Release, 3), "\x1b[97;5:3u");
        // Without disambiguate, a plain press keeps its legacy bytes.
        assert_eq!(event("C-a", KeyEvent::Press, 2), "\x01");
        assert_eq!(event("Escape", KeyEvent::Press, 2), "\x1b");
        assert_eq!(event("Escape", KeyEvent::Release, 2), "\x1b[27;1:3u");
        assert_eq!(event("Up", KeyEvent::Repeat, 3), "\x1b[1;1:2A");
        assert_eq!(event("Up", KeyEvent::Release, 3), "\x1b[1;1:3A");
        assert_eq!(event("F5", KeyEvent::Release, 3), "\x1b[15;1:3~");
        assert_eq!(event("C-Left", KeyEvent::Release, 3), "\x1b[1;5:3D");
        // Enter, Tab and Backspace have no release unless all keys are escape codes.
        assert_eq!(event("Enter", KeyEvent::Release, 3), "");
        assert_eq!(event("Tab", KeyEvent::Release, 3), "");
        assert_eq!(event("BSpace", KeyEvent::Release, 3), "");
        assert_eq!(event("Enter", KeyEvent::Release, 11), "\x1b[13;1:3u");
        // Without the flag, releases send nothing and repeats are presses.
        assert_eq!(event("a", KeyEvent::Release, 1), "");
        assert_eq!(event("C-a", KeyEvent::Repeat, 1), "\x1b[97;5u");
        assert_eq!(event("a", KeyEvent::Release, 0), "");
        assert_eq!(event("Up", KeyEvent::Release, 0), "");
    }

    #[test]
    fn alternate_keys_add_the_shifted_key() {
        assert_eq!(press("C-S-a", 5), "\x1b[97:65;6u");
        assert_eq!(press("M-S-a", 5), "\x1b[97:65;4u");
        // Nothing to add without Shift; text is still text.
        assert_eq!(press("C-a", 5), "\x1b[97;5u");
        assert_eq!(press("S-a", 5), "A");
        // Alone, the flag changes nothing.
        assert_eq!(press("C-a", 4), "\x01");
        assert_eq!(press("Escape", 4), "\x1b");
    }

    #[test]
    fn all_keys_as_escape_codes_and_their_text() {
        assert_eq!(press("a", 8), "\x1b[97u");
        assert_eq!(press("S-a", 8), "\x1b[97;2u");
        assert_eq!(press("Space", 8), "\x1b[32u");
        assert_eq!(press("Enter", 8), "\x1b[13u");
        assert_eq!(press("Tab", 8), "\x1b[9u");
        assert_eq!(press("BSpace", 8), "\x1b[127u");
        assert_eq!(press("Escape", 8), "\x1b[27u");
        assert_eq!(press("Up", 8), "\x1b[A");
        // With report text (16): the text the key types, as code points.
        assert_eq!(press("a", 24), "\x1b[97;;97u");
        assert_eq!(press("S-a", 24), "\x1b[97;2;65u");
        assert_eq!(press("S-a", 28), "\x1b[97:65;2;65u");
        assert_eq!(press("é", 24), "\x1b[233;;233u");
        // Control types no text; a release carries none.
        assert_eq!(press("C-a", 24), "\x1b[97;5u");
        assert_eq!(event("a", KeyEvent::Release, 26), "\x1b[97;1:3u");
        // Modifier keys alone: only under flag 8, with their own state
        // (held on press, gone on release, as the browser reports it).
        let shift = |event, held| Key {
            code: super::KeyCode::Modifier(super::ModifierKey::LeftShift),
            mods: super::Modifiers {
                shift: held,
                ..super::Modifiers::default()
            },
            event,
        };
        assert_eq!(
            encode_key(&shift(KeyEvent::Press, true), &modes(8)),
            b"\x1b[57441;2u"
        );
        let release = shift(KeyEvent::Release, false);
        assert_eq!(encode_key(&release, &modes(10)), b"\x1b[57441;1:3u");
        assert_eq!(encode_key(&shift(KeyEvent::Press, true), &modes(3)), b"");
        assert_eq!(encode_key(&shift(KeyEvent::Press, true), &modes(0)), b"");
        // Report text without all keys changes nothing.
        assert_eq!(press("a", 16), "a");
        assert_eq!(press("a", 17), "a");
    }
}

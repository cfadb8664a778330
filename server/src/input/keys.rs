//! Named keys as tmux spells them: `Enter`, `C-c`, `M-x`, `S-Up`, `F5`, or
//! a single character.

use std::fmt;

/// A key without modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum KeyCode {
    /// A character key (`a`, `-`, `é`, ...).
    Char(char),
    /// Return.
    Enter,
    /// Tab.
    Tab,
    /// Backspace.
    Backspace,
    /// Escape.
    Escape,
    /// The space bar.
    Space,
    /// Cursor up.
    Up,
    /// Cursor down.
    Down,
    /// Cursor left.
    Left,
    /// Cursor right.
    Right,
    /// Home.
    Home,
    /// End.
    End,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// Insert.
    Insert,
    /// Delete (forward).
    Delete,
    /// A function key, 1 to 12 (13 to 24 from a browser).
    F(u8),
    /// A modifier key pressed or released alone: only the kitty keyboard
    /// protocol's "report all keys" (flag 8) sends anything for it.
    Modifier(ModifierKey),
}

/// A modifier key, by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ModifierKey {
    /// Left Shift.
    LeftShift,
    /// Left Control.
    LeftControl,
    /// Left Alt.
    LeftAlt,
    /// Left Meta (Super: Command, Windows key).
    LeftMeta,
    /// Right Shift.
    RightShift,
    /// Right Control.
    RightControl,
    /// Right Alt.
    RightAlt,
    /// Right Meta.
    RightMeta,
}

/// Modifier keys held with a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Modifiers {
    /// Shift (`S-`).
    pub shift: bool,
    /// Alt or Meta (`M-`).
    pub alt: bool,
    /// Control (`C-`).
    pub ctrl: bool,
}

impl Modifiers {
    /// No modifier held.
    pub fn none(self) -> bool {
        self == Modifiers::default()
    }
}

/// What happened to a key: the kitty keyboard protocol reports repeats
/// and releases to a program that asks (flag 2); otherwise a repeat is a
/// press and a release sends nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum KeyEvent {
    /// Pressed.
    #[default]
    Press,
    /// Held down: the keyboard's auto-repeat.
    Repeat,
    /// Released.
    Release,
}

/// A key with its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// The modifiers held.
    pub mods: Modifiers,
    /// Press, repeat or release (absent from older peers: a press).
    #[serde(default)]
    pub event: KeyEvent,
}

/// A key name that [`parse_key`] does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKey(pub String);

impl fmt::Display for UnknownKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown key '{}' (expected a single character or a name such as Enter, Tab, \
             BSpace, Escape, Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, \
             Insert, Delete, F1-F12, with optional C-, M- or S- prefixes)",
            self.0
        )
    }
}

impl std::error::Error for UnknownKey {}

/// Named keys, matched without regard to case; aliases are tmux's.
const NAMES: &[(&str, KeyCode)] = &[
    ("Enter", KeyCode::Enter),
    ("Tab", KeyCode::Tab),
    ("BSpace", KeyCode::Backspace),
    ("Backspace", KeyCode::Backspace),
    ("Escape", KeyCode::Escape),
    ("Esc", KeyCode::Escape),
    ("Space", KeyCode::Space),
    ("Up", KeyCode::Up),
    ("Down", KeyCode::Down),
    ("Left", KeyCode::Left),
    ("Right", KeyCode::Right),
    ("Home", KeyCode::Home),
    ("End", KeyCode::End),
    ("PageUp", KeyCode::PageUp),
    ("PgUp", KeyCode::PageUp),
    ("PPage", KeyCode::PageUp),
    ("PageDown", KeyCode::PageDown),
    ("PgDn", KeyCode::PageDown),
    ("NPage", KeyCode::PageDown),
    ("Insert", KeyCode::Insert),
    ("IC", KeyCode::Insert),
    ("Delete", KeyCode::Delete),
    ("DC", KeyCode::Delete),
];

/// Parses a tmux-style key name: any number of `C-`, `M-` and `S-`
/// prefixes, then a single character, a key name, `F1`..`F12`, or `BTab`
/// (shift-tab).
pub fn parse_key(name: &str) -> Result<Key, UnknownKey> {
    let unknown = || UnknownKey(name.to_owned());
    let mut mods = Modifiers::default();
    let mut rest = name;
    // A prefix needs something after it: "C-" alone is not a key, "C--" is C + '-'.
    while rest.len() > 2 && rest.as_bytes()[1] == b'-' {
        match rest.as_bytes()[0] {
            b'C' | b'c' => mods.ctrl = true,
            b'M' | b'm' => mods.alt = true,
            b'S' | b's' => mods.shift = true,
            _ => break,
        }
        rest = &rest[2..];
    }
    let mut chars = rest.chars();
    let code = match (chars.next(), chars.next()) {
        (None, _) => return Err(unknown()),
        (Some(c), None) => KeyCode::Char(c),
        _ => named(rest, &mut mods).ok_or_else(unknown)?,
    };
    Ok(Key {
        code,
        mods,
        event: KeyEvent::Press,
    })
}

fn named(name: &str, mods: &mut Modifiers) -> Option<KeyCode> {
    if name.eq_ignore_ascii_case("BTab") {
        mods.shift = true;
        return Some(KeyCode::Tab);
    }
    if let Some(n) = name.strip_prefix(['F', 'f']) {
        if let Ok(n) = n.parse::<u8>() {
            return (1..=12).contains(&n).then_some(KeyCode::F(n));
        }
    }
    NAMES
        .iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(name))
        .map(|(_, code)| *code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, shift: bool, alt: bool, ctrl: bool) -> Key {
        Key {
            code,
            mods: Modifiers { shift, alt, ctrl },
            event: KeyEvent::Press,
        }
    }

    #[test]
    fn parses_names_characters_and_prefixes() {
        assert_eq!(
            parse_key("Enter"),
            Ok(key(KeyCode::Enter, false, false, false))
        );
        assert_eq!(
            parse_key("enter"),
            Ok(key(KeyCode::Enter, false, false, false))
        );
        assert_eq!(
            parse_key("BSpace"),
            Ok(key(KeyCode::Backspace, false, false, false))
        );
        assert_eq!(
            parse_key("PPage"),
            Ok(key(KeyCode::PageUp, false, false, false))
        );
        assert_eq!(
            parse_key("NPage"),
            Ok(key(KeyCode::PageDown, false, false, false))
        );
        assert_eq!(
            parse_key("DC"),
            Ok(key(KeyCode::Delete, false, false, false))
        );
        assert_eq!(parse_key("F5"), Ok(key(KeyCode::F(5), false, false, false)));
        assert_eq!(
            parse_key("C-c"),
            Ok(key(KeyCode::Char('c'), false, false, true))
        );
        assert_eq!(
            parse_key("M-x"),
            Ok(key(KeyCode::Char('x'), false, true, false))
        );
        assert_eq!(parse_key("S-Up"), Ok(key(KeyCode::Up, true, false, false)));
        assert_eq!(
            parse_key("C-M-Left"),
            Ok(key(KeyCode::Left, false, true, true))
        );
        assert_eq!(
            parse_key("C--"),
            Ok(key(KeyCode::Char('-'), false, false, true))
        );
        assert_eq!(parse_key("BTab"), Ok(key(KeyCode::Tab, true, false, false)));
        assert_eq!(
            parse_key("é"),
            Ok(key(KeyCode::Char('é'), false, false, false))
        );
        assert_eq!(
            parse_key("C"),
            Ok(key(KeyCode::Char('C'), false, false, false))
        );
    }

    #[test]
    fn rejects_unknown_names() {
        for name in ["", "Foo", "F0", "F13", "C-", "C-Foo", "X-a", "Upp"] {
            let err = parse_key(name).expect_err(name);
            assert_eq!(err.0, name);
            assert!(err.to_string().contains("unknown key"));
        }
    }
}

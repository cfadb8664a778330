//! What typed text will do to the line the cursor is on, for prediction
//! ([`super::predict`]): the local terminal sends bytes, not keys, so the
//! keys are read back from them. Printable characters, Backspace (DEL or
//! BS) and the Left and Right arrows (`ESC [ D`, or `ESC O D` in
//! application cursor mode) are foreseen; focus reports (`ESC [ I`,
//! `ESC [ O`) change nothing; anything else (Enter, a control key, any
//! other sequence, a paste's brackets) is not foreseen, and nothing after
//! it in the same message is read.

/// What one key does to the cursor's line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// A character inserted at the cursor.
    Char(char),
    /// The character left of the cursor deleted.
    Backspace,
    /// The cursor one column left.
    Left,
    /// The cursor one column right.
    Right,
    /// Nothing on the screen (a focus report).
    Neutral,
    /// Not foreseen.
    Other,
}

/// Whether `c` is one character a prediction can show: printable and one
/// cell wide (ASCII, Latin, IPA, Greek, Cyrillic; as the web client's).
pub fn predictable(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{2ff}' | '\u{370}'..='\u{52f}')
}

/// The effects of `text`, typed as one message, in order; it ends at the
/// first one not foreseen.
pub fn effects(text: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        let effect = match c {
            '\x7f' | '\x08' => Effect::Backspace,
            '\x1b' => escape(&mut chars),
            c if predictable(c) => Effect::Char(c),
            _ => Effect::Other,
        };
        let other = effect == Effect::Other;
        out.push(effect);
        if other {
            break;
        }
    }
    out
}

/// The effect of the sequence after an ESC, read from `chars`.
fn escape(chars: &mut std::str::Chars<'_>) -> Effect {
    match (chars.next(), chars.next()) {
        (Some('[' | 'O'), Some('D')) => Effect::Left,
        (Some('[' | 'O'), Some('C')) => Effect::Right,
        (Some('['), Some('I' | 'O')) => Effect::Neutral,
        _ => Effect::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Effect::*;

    #[test]
    fn printable_characters_and_editing_keys_are_foreseen() {
        assert_eq!(effects("aé"), [Char('a'), Char('é')]);
        assert_eq!(effects("\x7f\x08"), [Backspace, Backspace]);
        assert_eq!(effects("\x1b[D\x1bOC"), [Left, Right]);
        assert_eq!(effects("\x1b[Ix"), [Neutral, Char('x')]);
    }

    #[test]
    fn reading_stops_at_what_is_not_foreseen() {
        assert_eq!(effects("ab\rcd"), [Char('a'), Char('b'), Other]);
        assert_eq!(effects("\x1b[A"), [Other]);
        assert_eq!(effects("\x1b[200~x"), [Other]);
        assert_eq!(effects("\x1b"), [Other]);
        assert_eq!(effects("中"), [Other]);
        assert_eq!(effects("\x03"), [Other]);
        assert_eq!(effects(""), []);
    }
}

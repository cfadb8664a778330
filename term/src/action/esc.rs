//! Escape sequences (`ESC` intermediates final) as actions.

use super::Action;

impl Action<'_> {
    /// The action of an escape sequence, if it has one.
    pub fn from_esc(intermediates: &[u8], byte: u8) -> Option<Action<'static>> {
        Some(match (intermediates, byte) {
            ([], b'7') => Action::SaveCursor,
            ([], b'8') => Action::RestoreCursor,
            ([], b'Z') => Action::PrimaryAttributes,
            ([], b'V') => Action::StartProtectedArea,
            ([], b'W') => Action::EndProtectedArea,
            ([], b'6') => Action::BackIndex,
            ([], b'9') => Action::ForwardIndex,
            ([], b'D') => Action::Index,
            ([], b'E') => Action::NextLine,
            ([], b'H') => Action::SetTabStop,
            ([], b'M') => Action::ReverseIndex,
            ([], b'c') => Action::FullReset,
            ([], b'=') => Action::AppKeypad(true),
            ([], b'>') => Action::AppKeypad(false),
            ([b'#'], b'8') => Action::ScreenAlignment,
            ([b'('], set) => Action::Designate { slot: 0, set },
            ([b')'], set) => Action::Designate { slot: 1, set },
            ([b'*'], set) => Action::Designate { slot: 2, set },
            ([b'+'], set) => Action::Designate { slot: 3, set },
            _ => return None,
        })
    }
}

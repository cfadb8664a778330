//! C0 and C1 controls as actions.

use super::Action;

impl Action<'_> {
    /// The action of a C0 or C1 control, if it has one.
    #[inline]
    pub fn from_control(byte: u8) -> Option<Action<'static>> {
        Some(match byte {
            0x07 => Action::Bell,
            0x08 => Action::CursorBack(1),
            0x09 => Action::HorizontalTab,
            0x0a..=0x0c => Action::LineFeed,
            0x0d => Action::CarriageReturn,
            0x0e => Action::LockingShift(1),
            0x0f => Action::LockingShift(0),
            0x84 => Action::Index,
            0x85 => Action::NextLine,
            0x88 => Action::SetTabStop,
            0x8d => Action::ReverseIndex,
            _ => return None,
        })
    }
}

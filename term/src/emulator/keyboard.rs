//! The keyboard sequences: the kitty keyboard protocol's flags stack
//! (`CSI > u`, `CSI < u`, `CSI = u`, `CSI ? u`) and xterm's
//! `modifyOtherKeys` (`CSI > 4 ; n m`, `CSI > 4 n`, `CSI ? 4 m`).

use super::Emulator;
use crate::keyboard::{KeyboardFlags, OtherKeys};

/// xterm's resource number for `modifyOtherKeys` in `CSI > Pp ; Pv m`.
const MODIFY_OTHER_KEYS: u16 = 4;

impl Emulator {
    /// `CSI > flags u`: pushes flags on the shown screen's stack.
    pub fn push_keyboard_flags(&mut self, flags: u16) {
        let flags = KeyboardFlags::from_bits(flags);
        self.screen.keyboard_mut().push(flags);
    }

    /// `CSI < n u`: pops `n` entries from the shown screen's stack.
    pub fn pop_keyboard_flags(&mut self, n: usize) {
        self.screen.keyboard_mut().pop(n);
    }

    /// `CSI = flags ; mode u`: changes the flags in force.
    pub fn set_keyboard_flags(&mut self, flags: u16, mode: u16) {
        let flags = KeyboardFlags::from_bits(flags);
        self.screen.keyboard_mut().set(flags, mode);
    }

    /// `CSI ? u`: answers `CSI ? flags u`.
    pub fn report_keyboard_flags(&mut self) {
        let flags = self.screen.keyboard().current().bits();
        self.reply_fmt(format_args!("\x1b[?{flags}u"));
    }

    /// DECSTR: empties both screens' stacks, as kitty does (RIS replaces
    /// the screens, stacks and all).
    pub fn reset_keyboard(&mut self) {
        let depth = self.screen.keyboard().depth();
        self.screen.keyboard_mut().pop(depth);
        let depth = self.hidden.keyboard().depth();
        self.hidden.keyboard_mut().pop(depth);
    }

    /// `CSI > Pp ; Pv m` (XTMODKEYS): sets `modifyOtherKeys` when `Pp` is 4
    /// (no `Pv`: back to 0). Other resources and levels are ignored.
    pub fn set_key_modifier_option(&mut self, resource: u16, value: u16) {
        if resource == MODIFY_OTHER_KEYS {
            if let Some(level) = OtherKeys::from_level(value) {
                self.other_keys = level;
            }
        }
    }

    /// `CSI > m` (and `CSI > 0 m`, which the parser cannot tell apart):
    /// every key modifier option back to its initial value, `modifyOtherKeys`
    /// to 0.
    pub fn reset_key_modifier_options(&mut self) {
        self.other_keys = OtherKeys::OFF;
    }

    /// `CSI > Pp n`: disables a key modifier option; 4 turns
    /// `modifyOtherKeys` off.
    pub fn disable_key_modifier_option(&mut self, resource: u16) {
        if resource == MODIFY_OTHER_KEYS {
            self.other_keys = OtherKeys::OFF;
        }
    }

    /// `CSI ? Pp m` (XTQMODKEYS): answers `CSI > 4 ; level m` for
    /// `modifyOtherKeys`; other resources get no answer.
    pub fn report_key_modifier_option(&mut self, resource: u16) {
        if resource == MODIFY_OTHER_KEYS {
            let level = self.other_keys.level();
            self.reply_fmt(format_args!("\x1b[>4;{level}m"));
        }
    }
}

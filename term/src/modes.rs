//! Every terminal mode the emulator knows, defined once in one table with its
//! number, kind and default (Ghostty's `modes.zig` idea).

use serde::{Deserialize, Serialize};

use super::keyboard::{KeyboardFlags, KeyboardMode, OtherKeys};

/// Whether a mode is set with `CSI Pm h` (ANSI) or `CSI ? Pm h` (DEC private).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ModeKind {
    /// ANSI mode.
    Ansi,
    /// DEC private mode.
    Dec,
}

macro_rules! modes {
    ($($(#[$doc:meta])* $name:ident = ($kind:ident, $num:expr, $default:expr);)*) => {
        /// A known mode.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        #[repr(u8)]
        pub enum Mode { $($(#[$doc])* $name,)* }

        /// Every mode with its kind, number and default.
        pub const MODES: &[(Mode, ModeKind, u16, bool)] = &[
            $((Mode::$name, ModeKind::$kind, $num, $default),)*
        ];
    };
}

modes! {
    /// KAM (2): keyboard locked; kept for DECRQM, input is not locked.
    KeyboardAction = (Ansi, 2, false);
    /// IRM (4): insert characters instead of replacing.
    Insert = (Ansi, 4, false);
    /// SRM (12): local echo off; kept for DECRQM, panecast never echoes.
    SendReceive = (Ansi, 12, false);
    /// LNM (20): line feed also returns the carriage.
    LineFeedNewLine = (Ansi, 20, false);
    /// DECCKM (1): cursor keys send application sequences.
    AppCursor = (Dec, 1, false);
    /// DECCOLM (3): 132 columns; accepted, the width stays (as xterm.js).
    Columns132 = (Dec, 3, false);
    /// DECSCLM (4): smooth scrolling; kept for DECRQM, frames are unaffected.
    SmoothScroll = (Dec, 4, false);
    /// DECSCNM (5): reverse video for the whole screen.
    ReverseVideo = (Dec, 5, false);
    /// DECOM (6): cursor addressing relative to the scroll region.
    Origin = (Dec, 6, false);
    /// DECAWM (7): wrap at the right margin.
    AutoWrap = (Dec, 7, true);
    /// DECARM (8): key auto-repeat; keys repeat in the client, so DECRQM
    /// answers 4 (permanently reset) as xterm does, whatever is set.
    AutoRepeat = (Dec, 8, true);
    /// X10 mouse (9): report button presses.
    MouseX10 = (Dec, 9, false);
    /// Cursor blinking (12).
    CursorBlink = (Dec, 12, false);
    /// DECPFF (18): form feed after printing; kept for DECRQM, nothing prints.
    PrintFormFeed = (Dec, 18, false);
    /// DECPEX (19): print the whole screen; kept for DECRQM, nothing prints.
    PrintExtent = (Dec, 19, false);
    /// DECTCEM (25): cursor visible.
    CursorVisible = (Dec, 25, true);
    /// Reverse wraparound (45): BS and CUB at the left margin go on at the
    /// end of the row above when that row soft-wrapped (xterm 383's mode 45).
    ReverseWrap = (Dec, 45, false);
    /// DECNKM (66): keypad sends application sequences.
    AppKeypad = (Dec, 66, false);
    /// DECLRMM (69): left and right margins (DECSLRM) may be set.
    SideMargins = (Dec, 69, false);
    /// Mouse (1000): report presses and releases.
    MouseClick = (Dec, 1000, false);
    /// Mouse (1002): also report motion while a button is down.
    MouseDrag = (Dec, 1002, false);
    /// Mouse (1003): report all motion.
    MouseMotion = (Dec, 1003, false);
    /// Focus events (1004).
    FocusEvents = (Dec, 1004, false);
    /// UTF-8 mouse encoding (1005).
    MouseUtf8 = (Dec, 1005, false);
    /// SGR mouse encoding (1006).
    MouseSgr = (Dec, 1006, false);
    /// Alternate scroll (1007): the wheel sends cursor keys on the alternate screen.
    AlternateScroll = (Dec, 1007, false);
    /// urxvt mouse encoding (1015).
    MouseUrxvt = (Dec, 1015, false);
    /// Alternate screen (47).
    AltScreen47 = (Dec, 47, false);
    /// Alternate screen, cleared on leave (1047).
    AltScreen1047 = (Dec, 1047, false);
    /// Save or restore the cursor (1048).
    SaveCursor = (Dec, 1048, false);
    /// Alternate screen with saved cursor, cleared on enter (1049).
    AltScreen1049 = (Dec, 1049, false);
    /// Bracketed paste (2004).
    BracketedPaste = (Dec, 2004, false);
    /// Synchronized output (2026): hold frames until reset.
    SynchronizedOutput = (Dec, 2026, false);
    /// Grapheme clustering (2027): a grapheme cluster takes one cell of the
    /// width its presentation asks (emulator/grapheme.rs). Kept last: a
    /// mode's bit is its place in this table, and saved states hold the bits.
    GraphemeCluster = (Dec, 2027, false);
    /// Extended reverse wraparound (1045, xterm 383): BS and CUB at the left
    /// margin go to the right margin of the row above, whether or not it
    /// wrapped, and from the region's top row to its bottom row.
    ReverseWrapExtended = (Dec, 1045, false);
    /// DECBKM (67): the Backspace key sends BS (Ctrl+Backspace DEL) instead
    /// of DEL (Ctrl+Backspace BS).
    BackarrowSendsBs = (Dec, 67, false);
    /// DECHEBM (35): Hebrew keyboard mapping; kept for DECRQM, keys come
    /// from the client as characters.
    HebrewKeyboard = (Dec, 35, false);
    /// DECNRCM (42): national replacement character sets; kept for DECRQM.
    NationalCharsets = (Dec, 42, false);
    /// xterm's curses fix (41, `curses` resource): HT at a pending wrap
    /// wraps first and lands on the next row's first tab stop.
    CursesMoreFix = (Dec, 41, false);
    /// DECSDM (80), sixel display mode, with DEC's meaning (which xterm
    /// follows since patch 369; it had it inverted before): set, a sixel
    /// is drawn at the screen's top-left, clipped at its bottom, and
    /// neither scrolls nor moves the cursor; reset (the default), it is
    /// drawn at the cursor and scrolls. Added after 2027 for the same
    /// reason.
    SixelDisplay = (Dec, 80, false);
}

impl Mode {
    /// Looks a mode up by kind and number.
    pub fn find(kind: ModeKind, number: u16) -> Option<Mode> {
        MODES
            .iter()
            .find(|(_, k, n, _)| *k == kind && *n == number)
            .map(|(m, ..)| *m)
    }

    /// The mode's number.
    pub fn number(self) -> u16 {
        MODES[self as usize].2
    }

    /// The mode's kind.
    pub fn kind(self) -> ModeKind {
        MODES[self as usize].1
    }
}

/// Where [`Modes`] keeps the kitty keyboard flags (5 bits) and the
/// `modifyOtherKeys` level (2 bits), above the table's modes.
const KEYBOARD_SHIFT: u32 = 48;
const OTHER_KEYS_SHIFT: u32 = 56;

/// The current value of every mode, one bit each, and the keyboard's
/// encoding ([`Modes::keyboard`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Modes(u64);

impl Default for Modes {
    fn default() -> Self {
        let bits = MODES
            .iter()
            .filter(|(.., default)| *default)
            .fold(0, |acc, (m, ..)| acc | 1 << (*m as u64));
        Modes(bits)
    }
}

impl Modes {
    /// True when `mode` is set.
    #[inline]
    pub fn get(&self, mode: Mode) -> bool {
        self.0 & (1 << mode as u64) != 0
    }

    /// Sets or resets `mode`.
    #[inline]
    pub fn set(&mut self, mode: Mode, on: bool) {
        if on {
            self.0 |= 1 << mode as u64;
        } else {
            self.0 &= !(1 << mode as u64);
        }
    }

    /// How keys are encoded: the kitty keyboard flags and the
    /// `modifyOtherKeys` level in force.
    pub fn keyboard(&self) -> KeyboardMode {
        KeyboardMode {
            flags: KeyboardFlags::from_bits((self.0 >> KEYBOARD_SHIFT) as u16 & 0x1f),
            other_keys: OtherKeys::from_level((self.0 >> OTHER_KEYS_SHIFT) as u16 & 3)
                .unwrap_or_default(),
        }
    }

    /// These modes with the keyboard encoding `keyboard`.
    pub fn with_keyboard(self, keyboard: KeyboardMode) -> Modes {
        let cleared = self.0 & !(0x1f << KEYBOARD_SHIFT | 3 << OTHER_KEYS_SHIFT);
        Modes(
            cleared
                | u64::from(keyboard.flags.bits()) << KEYBOARD_SHIFT
                | u64::from(keyboard.other_keys.level()) << OTHER_KEYS_SHIFT,
        )
    }

    /// Which mouse events the program asked for.
    pub fn mouse_tracking(&self) -> MouseTracking {
        if self.get(Mode::MouseMotion) {
            MouseTracking::Motion
        } else if self.get(Mode::MouseDrag) {
            MouseTracking::Drag
        } else if self.get(Mode::MouseClick) {
            MouseTracking::Click
        } else if self.get(Mode::MouseX10) {
            MouseTracking::Press
        } else {
            MouseTracking::Off
        }
    }

    /// How mouse reports are encoded.
    pub fn mouse_encoding(&self) -> MouseEncoding {
        if self.get(Mode::MouseSgr) {
            MouseEncoding::Sgr
        } else if self.get(Mode::MouseUrxvt) {
            MouseEncoding::Urxvt
        } else if self.get(Mode::MouseUtf8) {
            MouseEncoding::Utf8
        } else {
            MouseEncoding::X10
        }
    }
}

/// Which mouse events are reported to the program.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MouseTracking {
    /// None.
    Off,
    /// Presses only (mode 9).
    Press,
    /// Presses and releases (1000).
    Click,
    /// Also motion with a button down (1002).
    Drag,
    /// All motion (1003).
    Motion,
}

/// How mouse reports are encoded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MouseEncoding {
    /// `CSI M` with bytes offset by 32.
    X10,
    /// `CSI M` with UTF-8 coordinates (1005).
    Utf8,
    /// `CSI < b ; x ; y M/m` (1006).
    Sgr,
    /// `CSI b ; x ; y M` (1015).
    Urxvt,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_round_trips_and_defaults_apply() {
        for (mode, kind, number, default) in MODES {
            assert_eq!(Mode::find(*kind, *number), Some(*mode));
            assert_eq!(mode.number(), *number);
            assert_eq!(Modes::default().get(*mode), *default);
        }
        assert!(
            MODES.len() <= KEYBOARD_SHIFT as usize,
            "one bit per mode below the keyboard's bits"
        );
    }

    #[test]
    fn keyboard_round_trips_beside_the_modes() {
        let keyboard = KeyboardMode {
            flags: KeyboardFlags::ALL,
            other_keys: OtherKeys::from_level(2).unwrap_or_default(),
        };
        let modes = Modes::default().with_keyboard(keyboard);
        assert_eq!(modes.keyboard(), keyboard);
        for (mode, .., default) in MODES {
            assert_eq!(modes.get(*mode), *default);
        }
        let back = modes.with_keyboard(KeyboardMode::default());
        assert_eq!(back, Modes::default());
    }

    #[test]
    fn mouse_tracking_prefers_the_widest_mode() {
        let mut modes = Modes::default();
        modes.set(Mode::MouseClick, true);
        modes.set(Mode::MouseMotion, true);
        assert_eq!(modes.mouse_tracking(), MouseTracking::Motion);
        modes.set(Mode::MouseSgr, true);
        assert_eq!(modes.mouse_encoding(), MouseEncoding::Sgr);
    }
}

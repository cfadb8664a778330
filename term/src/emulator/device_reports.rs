//! Reports about the terminal itself: device attributes (DA1, DA2, DA3),
//! device status (DSR and its DEC forms) and mode state (DECRQM).

use super::Emulator;
use crate::modes::{Mode, ModeKind};

/// DA1: a VT525-class terminal with what xterm's default build lists: 132
/// columns, printer port, sixel graphics, selective erase, national
/// charsets, technical set, locator, state reports, user windows,
/// horizontal scrolling, colour, rectangular editing and the text locator.
const PRIMARY_ATTRIBUTES: &[u8] = b"\x1b[?65;1;2;4;6;9;15;16;17;18;21;22;28;29c";

/// DA2: terminal type 64 (VT520), the xterm patch level whose behaviour the
/// emulator follows, no options.
const SECONDARY_ATTRIBUTES: &[u8] = b"\x1b[>64;380;0c";

/// DA3: the unit id, all zeros as xterm reports it.
const TERTIARY_ATTRIBUTES: &[u8] = b"\x1bP!|00000000\x1b\\";

/// ANSI modes xterm knows but never lets a program set: DECRQM answers 4
/// (permanently reset) for them.
const PERMANENTLY_RESET_ANSI: &[u16] = &[1, 5, 7, 10, 11, 13, 14, 15, 16, 17, 18, 19];

/// DEC modes DECRQM answers 4 (permanently reset) for, as xterm: DECHCCM
/// (60, horizontal cursor coupling: there is no panning).
const PERMANENTLY_RESET_DEC: &[u16] = &[60];

impl Emulator {
    /// DA1 (`CSI c`).
    pub fn primary_attributes(&mut self) {
        self.reply(PRIMARY_ATTRIBUTES);
    }

    /// DA2 (`CSI > c`).
    pub fn secondary_attributes(&mut self) {
        self.reply(SECONDARY_ATTRIBUTES);
    }

    /// DA3 (`CSI = c`).
    pub fn tertiary_attributes(&mut self) {
        self.reply(TERTIARY_ATTRIBUTES);
    }

    /// DECRQM: reports whether a mode is set (1), reset (2), permanently
    /// reset (4) or unknown (0). A VT300 function: below level 3 (DECSCL)
    /// it is not answered.
    pub fn report_mode(&mut self, number: u16, kind: ModeKind) {
        if self.conformance_level < 3 {
            return;
        }
        let state = match Mode::find(kind, number) {
            Some(Mode::AltScreen47 | Mode::AltScreen1047 | Mode::AltScreen1049) => {
                if self.alt_active {
                    1
                } else {
                    2
                }
            }
            Some(Mode::AutoRepeat) => 4,
            Some(mode) => {
                if self.modes.get(mode) {
                    1
                } else {
                    2
                }
            }
            None if kind == ModeKind::Ansi && PERMANENTLY_RESET_ANSI.contains(&number) => 4,
            None if kind == ModeKind::Dec && PERMANENTLY_RESET_DEC.contains(&number) => 4,
            None => 0,
        };
        let prefix = if kind == ModeKind::Dec { "?" } else { "" };
        self.reply_fmt(format_args!("\x1b[{prefix}{number};{state}$y"));
    }

    /// DSR: 5 (status) and 6 (cursor position, relative to the region in
    /// origin mode); with `dec` (`CSI ? n`) also the DEC status reports
    /// xterm answers: printer (15), UDK (25), keyboard (26), locator (53,
    /// 55, 56), macro space (62), memory checksum (63) and sessions (85).
    pub fn device_status(&mut self, kind: u16, dec: bool, arg: u16) {
        match (kind, dec) {
            (5, _) => self.reply(b"\x1b[0n"),
            (6, _) => {
                let (top, _) = self.addressable();
                let left = if self.modes.get(Mode::Origin) {
                    self.region.left
                } else {
                    0
                };
                let cursor = self.screen.cursor();
                let row = cursor.row.saturating_sub(top) + 1;
                let col = cursor.col.saturating_sub(left) + 1;
                if dec {
                    self.reply_fmt(format_args!("\x1b[?{row};{col};1R"));
                } else {
                    self.reply_fmt(format_args!("\x1b[{row};{col}R"));
                }
            }
            (15, true) => self.reply(b"\x1b[?13n"),
            (25, true) => self.reply(b"\x1b[?20n"),
            (26, true) => self.reply(b"\x1b[?27;1;0;0n"),
            (53 | 55, true) => self.reply(b"\x1b[?53n"),
            (56, true) => self.reply(b"\x1b[?57;0n"),
            (62, true) => self.reply(b"\x1b[0*{"),
            (63, true) => self.reply_fmt(format_args!("\x1bP{arg}!~0000\x1b\\")),
            (75, true) => self.reply(b"\x1b[?70n"),
            (85, true) => self.reply(b"\x1b[?83n"),
            _ => {}
        }
    }
}

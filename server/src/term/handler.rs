//! Maps what `vte` parses (controls, CSI, ESC, OSC) onto emulator operations.

use std::sync::Arc;

use vte::{Params, Perform};

use super::charset::Charset;
use super::emulator::{CursorShape, Emulator};
use super::links::Hyperlink;
use super::modes::{Mode, ModeKind};
use super::sgr;
use super::style::StyleId;

/// Longest title kept, in characters.
const MAX_TITLE_CHARS: usize = 1024;

/// The first four parameters of a CSI sequence (each parameter's first
/// value), read once: no sequence but SGR and the modes (which iterate the
/// parameters themselves) uses more.
struct Args {
    values: [u16; 4],
}

impl Args {
    #[inline]
    fn new(params: &Params) -> Args {
        let mut values = [0; 4];
        for (slot, param) in values.iter_mut().zip(params.iter()) {
            *slot = param.first().copied().unwrap_or(0);
        }
        Args { values }
    }

    /// Parameter `i`, or `default` when absent or zero.
    #[inline]
    fn or(&self, i: usize, default: u16) -> usize {
        match self.values[i] {
            0 => default as usize,
            n => n as usize,
        }
    }

    /// Parameter `i` as given (absent reads as 0).
    #[inline]
    fn raw(&self, i: usize) -> u16 {
        self.values[i]
    }
}

impl Perform for Emulator {
    #[inline]
    fn print(&mut self, c: char) {
        // Printable ASCII is gathered into a run and written a row at a time.
        if (' '..='~').contains(&c) {
            self.run[self.run_len] = c as u8;
            self.run_len += 1;
            if self.run_len == self.run.len() {
                self.flush_run();
            }
        } else {
            self.flush_run();
            Emulator::print(self, c);
        }
    }

    fn execute(&mut self, byte: u8) {
        self.flush_run();
        self.last_printed = None;
        match byte {
            0x07 => self.bells += 1,
            0x08 => self.backspace(),
            0x09 => self.tab(1),
            0x0a..=0x0c => self.linefeed(),
            0x0d => self.carriage_return(),
            0x0e => self.shift_to(1),
            0x0f => self.shift_to(0),
            0x84 => self.index(),
            0x85 => {
                self.carriage_return();
                self.index();
            }
            0x88 => self.tabs.set(self.screen.cursor().col),
            0x8d => self.reverse_index(),
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        self.flush_run();
        // REP repeats only a character printed right before it.
        let preceding = self.last_printed.take();
        if ignore {
            return;
        }
        // SGR is by far the most frequent sequence; it reads its own parameters.
        if intermediates.is_empty() && action == 'm' {
            sgr::apply(&mut self.pen, params);
            self.update_pen();
            return;
        }
        let a = Args::new(params);
        match (intermediates, action) {
            ([], '@') => self.insert_chars(a.or(0, 1)),
            ([], 'A') => self.move_up(a.or(0, 1)),
            ([], 'B') => self.move_down(a.or(0, 1)),
            ([], 'e') => self.move_down_unbounded(a.or(0, 1)),
            ([], 'C') | ([], 'a') => self.move_right(a.or(0, 1)),
            ([], 'D') => self.move_left(a.or(0, 1)),
            ([], 'E') => {
                self.move_down(a.or(0, 1));
                self.carriage_return();
            }
            ([], 'F') => {
                self.move_up(a.or(0, 1));
                self.carriage_return();
            }
            ([], 'G') | ([], '`') => self.goto_col(a.or(0, 1) - 1),
            ([], 'H') | ([], 'f') => self.goto(a.or(0, 1) - 1, a.or(1, 1) - 1),
            ([], 'I') => self.tab(a.or(0, 1)),
            ([], 'J') => self.erase_in_display(a.raw(0), false),
            ([b'?'], 'J') => self.erase_in_display(a.raw(0), true),
            ([], 'K') => self.erase_in_line(a.raw(0), false),
            ([b'?'], 'K') => self.erase_in_line(a.raw(0), true),
            ([b'"'], 'q') => self.protect = a.raw(0) == 1,
            ([], 'L') => self.insert_lines(a.or(0, 1)),
            ([], 'M') => self.delete_lines(a.or(0, 1)),
            ([], 'P') => self.delete_chars(a.or(0, 1)),
            ([], 'S') => self.scroll_text_up(a.or(0, 1)),
            ([], 'T') => self.scroll_text_down(a.or(0, 1)),
            ([], 'X') => self.erase_chars(a.or(0, 1)),
            ([], 'Z') => self.back_tab(a.or(0, 1)),
            ([], 'b') => self.repeat(preceding, a.or(0, 1)),
            ([], 'c') if a.raw(0) == 0 => self.reply(b"\x1b[?1;2c"),
            ([b'>'], 'c') if a.raw(0) == 0 => self.reply(b"\x1b[>0;276;0c"),
            ([], 'd') => self.goto_row(a.or(0, 1) - 1),
            ([], 'g') => match a.raw(0) {
                0 => self.tabs.clear(self.screen.cursor().col),
                3 => self.tabs.clear_all(),
                _ => {}
            },
            ([], 'h') => self.set_modes(params, ModeKind::Ansi, true),
            ([], 'l') => self.set_modes(params, ModeKind::Ansi, false),
            ([b'?'], 'h') => self.set_modes(params, ModeKind::Dec, true),
            ([b'?'], 'l') => self.set_modes(params, ModeKind::Dec, false),
            ([], 'n') => self.device_status(a.raw(0), false),
            ([b'?'], 'n') => self.device_status(a.raw(0), true),
            ([], 'r') => self.set_scroll_region(a.raw(0) as usize, a.raw(1) as usize),
            ([], 's') => self.save_cursor(),
            ([], 'u') => self.restore_cursor(),
            ([], 't') => self.window_op(a.raw(0)),
            ([b' '], 'q') => self.set_cursor_style(a.raw(0)),
            ([b' '], '@') => self.scroll_columns(-(a.or(0, 1) as isize)),
            ([b' '], 'A') => self.scroll_columns(a.or(0, 1) as isize),
            ([b'\''], '}') => self.edit_columns(a.or(0, 1) as isize),
            ([b'\''], '~') => self.edit_columns(-(a.or(0, 1) as isize)),
            ([b'!'], 'p') => self.soft_reset(),
            ([b'$'], 'p') => self.report_mode(a.raw(0), ModeKind::Ansi),
            ([b'?', b'$'], 'p') => self.report_mode(a.raw(0), ModeKind::Dec),
            ([b'>'], 'q') => {
                let version = concat!("\x1bP>|panecast ", env!("CARGO_PKG_VERSION"), "\x1b\\");
                self.reply(version.as_bytes());
            }
            _ => {}
        }
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], _ignore: bool, byte: u8) {
        self.flush_run();
        self.last_printed = None;
        match (intermediates, byte) {
            ([], b'7') => self.save_cursor(),
            ([], b'8') => self.restore_cursor(),
            ([], b'D') => self.index(),
            ([], b'E') => {
                self.carriage_return();
                self.index();
            }
            ([], b'H') => self.tabs.set(self.screen.cursor().col),
            ([], b'M') => self.reverse_index(),
            ([], b'c') => self.full_reset(),
            ([], b'=') => self.modes.set(Mode::AppKeypad, true),
            ([], b'>') => self.modes.set(Mode::AppKeypad, false),
            ([b'#'], b'8') => self.screen_alignment(),
            ([b'('], set) => self.designate(0, set),
            ([b')'], set) => self.designate(1, set),
            ([b'*'], set) => self.designate(2, set),
            ([b'+'], set) => self.designate(3, set),
            _ => {}
        }
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], _bell_terminated: bool) {
        self.flush_run();
        self.last_printed = None;
        match params {
            [b"0", title @ ..] | [b"2", title @ ..] => {
                // vte splits on ';', which a title may contain.
                let title = title.join(&b";"[..]);
                let text = String::from_utf8_lossy(&title);
                self.title = text
                    .chars()
                    .filter(|c| !c.is_control())
                    .take(MAX_TITLE_CHARS)
                    .collect();
            }
            [b"8", link_params, uri @ ..] => self.set_hyperlink(link_params, uri),
            [b"10", b"?"] => self.reply(b"\x1b]10;rgb:e5e5/e5e5/e5e5\x1b\\"),
            [b"11", b"?"] => self.reply(b"\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\"),
            _ => {}
        }
    }

    fn hook(&mut self, _params: &Params, _intermediates: &[u8], _ignore: bool, _action: char) {
        self.end_run_for_dcs();
    }
}

impl Emulator {
    /// DCS strings are not interpreted, but they end a run of printed text.
    fn end_run_for_dcs(&mut self) {
        self.flush_run();
        self.last_printed = None;
    }

    /// SI and SO: which of G0-G3 is in GL.
    fn shift_to(&mut self, set: usize) {
        self.screen.charsets_mut().shift_to(set);
    }

    /// `ESC ( F` and friends: designates a character set into G0-G3.
    fn designate(&mut self, slot: usize, set: u8) {
        self.screen
            .charsets_mut()
            .designate(slot, Charset::from_final(set));
    }

    /// SU: scrolls the region up `n` lines. As xterm.js, the lines leaving
    /// its top are dropped: only a line feed at the bottom margin feeds the
    /// scrollback.
    fn scroll_text_up(&mut self, n: usize) {
        let cursor = *self.screen.cursor();
        self.screen.cursor_mut().row = self.top;
        self.delete_lines(n);
        *self.screen.cursor_mut() = cursor;
    }

    /// SD: scrolls the region down `n` lines. As xterm.js, the new lines are
    /// blank in the default style, not the current background.
    fn scroll_text_down(&mut self, n: usize) {
        let (top, bottom) = (self.top, self.bottom);
        self.scroll_down(top, bottom, n);
        for r in top..top + n.min(bottom + 1 - top) {
            self.screen.grid_mut()[r].reset(StyleId::DEFAULT);
        }
    }

    /// SM and RM, for every parameter.
    fn set_modes(&mut self, params: &Params, kind: ModeKind, on: bool) {
        for param in params.iter() {
            if let Some(mode) = Mode::find(kind, param[0]) {
                self.set_mode(mode, on);
            }
        }
    }

    /// Sets one mode with its side effects.
    pub(crate) fn set_mode(&mut self, mode: Mode, on: bool) {
        match mode {
            Mode::AltScreen47 | Mode::AltScreen1047 => {
                if on {
                    self.enter_alt(false);
                } else {
                    self.leave_alt(false);
                }
            }
            Mode::AltScreen1049 => {
                if on {
                    self.enter_alt(true);
                } else {
                    self.leave_alt(true);
                }
            }
            Mode::SaveCursor => {
                if on {
                    self.save_cursor();
                } else {
                    self.restore_cursor();
                }
            }
            Mode::Origin => {
                self.modes.set(mode, on);
                self.goto(0, 0);
            }
            Mode::CursorBlink => {
                self.modes.set(mode, on);
                self.cursor_blink = on;
            }
            Mode::MouseX10 | Mode::MouseClick | Mode::MouseDrag | Mode::MouseMotion => {
                for m in [
                    Mode::MouseX10,
                    Mode::MouseClick,
                    Mode::MouseDrag,
                    Mode::MouseMotion,
                ] {
                    self.modes.set(m, false);
                }
                self.modes.set(mode, on);
            }
            Mode::MouseUtf8 | Mode::MouseSgr | Mode::MouseUrxvt => {
                for m in [Mode::MouseUtf8, Mode::MouseSgr, Mode::MouseUrxvt] {
                    self.modes.set(m, false);
                }
                self.modes.set(mode, on);
            }
            _ => self.modes.set(mode, on),
        }
    }

    /// DECRQM: reports whether a mode is set (1), reset (2) or unknown (0).
    fn report_mode(&mut self, number: u16, kind: ModeKind) {
        let state = match Mode::find(kind, number) {
            Some(Mode::AltScreen47 | Mode::AltScreen1047 | Mode::AltScreen1049) => {
                if self.alt_active {
                    1
                } else {
                    2
                }
            }
            Some(mode) => {
                if self.modes.get(mode) {
                    1
                } else {
                    2
                }
            }
            None => 0,
        };
        let prefix = if kind == ModeKind::Dec { "?" } else { "" };
        let reply = format!("\x1b[{prefix}{number};{state}$y");
        self.reply(reply.as_bytes());
    }

    /// DSR 5 (status) and 6 (cursor position, relative to the region in origin mode).
    fn device_status(&mut self, kind: u16, dec: bool) {
        match kind {
            5 => self.reply(b"\x1b[0n"),
            6 => {
                let (top, _) = self.addressable();
                let row = self.screen.cursor().row.saturating_sub(top) + 1;
                let col = self.screen.cursor().col + 1;
                let reply = if dec {
                    format!("\x1b[?{row};{col}R")
                } else {
                    format!("\x1b[{row};{col}R")
                };
                self.reply(reply.as_bytes());
            }
            _ => {}
        }
    }

    /// XTWINOPS: only the size report (18) is answered.
    fn window_op(&mut self, op: u16) {
        if op == 18 {
            let reply = format!("\x1b[8;{};{}t", self.rows, self.cols);
            self.reply(reply.as_bytes());
        }
    }

    /// DECSCUSR: cursor shape and blink.
    fn set_cursor_style(&mut self, style: u16) {
        let (shape, blink) = match style {
            0 | 1 => (CursorShape::Block, true),
            2 => (CursorShape::Block, false),
            3 => (CursorShape::Underline, true),
            4 => (CursorShape::Underline, false),
            5 => (CursorShape::Bar, true),
            6 => (CursorShape::Bar, false),
            _ => return,
        };
        self.cursor_shape = shape;
        self.cursor_blink = blink;
    }

    /// OSC 8: starts (non-empty URI) or ends (empty URI) a hyperlink.
    fn set_hyperlink(&mut self, link_params: &[u8], uri: &[&[u8]]) {
        // A URI may itself contain ';', which vte splits on.
        let uri = uri.join(&b";"[..]);
        let link = if uri.is_empty() {
            // As xterm.js: an empty URI ends the link only when no parameters are given.
            if !link_params.trim_ascii().is_empty() {
                return;
            }
            0
        } else {
            let id = link_params
                .split(|&b| b == b':')
                .find_map(|kv| kv.strip_prefix(b"id="))
                .map(|id| Arc::from(String::from_utf8_lossy(id).as_ref()));
            let uri = Arc::from(String::from_utf8_lossy(&uri).as_ref());
            self.intern_link(Hyperlink { id, uri })
        };
        self.pen.link = link;
        self.update_pen();
    }
}

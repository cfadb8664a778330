//! Maps what the [`parser`](crate::parser) finds (text, controls, CSI, ESC,
//! OSC, DCS) onto emulator operations.

use std::sync::Arc;

use super::{CursorShape, Emulator};
use crate::charset::Charset;
use crate::dcs_request::DcsRequest;
use crate::links::Hyperlink;
use crate::modes::{Mode, ModeKind};
use crate::parser::{Actions, Params};
use crate::sgr;
use crate::style::StyleId;
use crate::titles::Which;

/// The first eight parameters of a CSI sequence (each parameter's first
/// value), read once: no sequence but SGR, DECCARA and the modes (which
/// iterate the parameters themselves) uses more.
struct Args {
    values: [u16; 8],
}

impl Args {
    #[inline]
    fn new(params: &Params) -> Args {
        Args {
            values: params.firsts(),
        }
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

/// An OSC's first parameter as a number.
fn osc_number(bytes: &[u8]) -> Option<u16> {
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

impl Actions for Emulator {
    #[inline]
    fn print_ascii(&mut self, run: &[u8]) {
        self.spend(run.len());
        self.write_ascii(run);
    }

    #[inline]
    fn print_text(&mut self, text: &[char]) {
        self.spend(text.len());
        self.write_text(text);
    }

    #[inline]
    fn print(&mut self, c: char) {
        self.spend(1);
        Emulator::print(self, c);
    }

    fn newline(&mut self) {
        self.spend(1);
        self.last_printed = None;
        self.carriage_return();
        self.linefeed();
    }

    fn execute(&mut self, byte: u8) {
        self.spend(1);
        self.last_printed = None;
        match byte {
            0x07 => self.bells += 1,
            0x08 => self.move_back(1),
            0x09 => self.horizontal_tab(),
            0x0a..=0x0c => self.linefeed(),
            0x0d => self.carriage_return(),
            0x0e => self.shift_to(1),
            0x0f => self.shift_to(0),
            0x84 => self.index(),
            0x85 => self.next_line(),
            0x88 => self.tabs.set(self.screen.cursor().col),
            0x8d => self.reverse_index(),
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        self.spend(1);
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
            ([], 'D') => self.move_back(a.or(0, 1)),
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
            ([b'"'], 'q') => {
                self.protect = a.raw(0) == 1;
                self.iso_protection = false;
            }
            ([], 'L') => self.insert_lines(a.or(0, 1)),
            ([], 'M') => self.delete_lines(a.or(0, 1)),
            ([], 'P') => self.delete_chars(a.or(0, 1)),
            ([], 'S') => self.scroll_text_up(a.or(0, 1)),
            ([], 'T') => self.scroll_text_down(a.or(0, 1)),
            ([], 'X') => self.erase_chars(a.or(0, 1)),
            ([], 'Z') => self.back_tab(a.or(0, 1)),
            ([], 'b') => self.repeat(preceding, a.or(0, 1)),
            ([], 'c') if a.raw(0) == 0 => self.primary_attributes(),
            ([b'?'], 'S') => self.graphics_attributes(a.raw(0), a.raw(1)),
            ([b'>'], 'c') if a.raw(0) == 0 => self.secondary_attributes(),
            ([b'='], 'c') if a.raw(0) == 0 => self.tertiary_attributes(),
            ([b'$'], 'x') => {
                let rect = self.rect_from(a.raw(1), a.raw(2), a.raw(3), a.raw(4));
                self.fill_rect(a.raw(0), rect);
            }
            ([b'$'], 'z') | ([b'$'], '{') => {
                let rect = self.rect_from(a.raw(0), a.raw(1), a.raw(2), a.raw(3));
                self.erase_rect(rect, action == '{');
            }
            ([b'$'], 'v') => {
                let rect = self.rect_from(a.raw(0), a.raw(1), a.raw(2), a.raw(3));
                self.copy_rect(rect, a.raw(5), a.raw(6));
            }
            ([b'$'], 'r') | ([b'$'], 't') => {
                let rect = self.rect_from(a.raw(0), a.raw(1), a.raw(2), a.raw(3));
                let attrs: Vec<u16> = params.iter().skip(4).map(|p| p[0]).collect();
                self.change_rect_attrs(rect, &attrs, action == 't');
            }
            ([b'*'], 'x') => self.set_attr_change_extent(a.raw(0)),
            ([b'*'], 'y') => self.report_checksum(a.raw(0), a.raw(2), a.raw(3), a.raw(4), a.raw(5)),
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
            ([b'?'], 's') => self.save_modes(params),
            ([b'?'], 'r') => self.restore_modes(params),
            ([], 'n') => self.device_status(a.raw(0), false, a.raw(1)),
            ([b'?'], 'n') => self.device_status(a.raw(0), true, a.raw(1)),
            ([], 'r') => self.set_scroll_region(a.raw(0) as usize, a.raw(1) as usize),
            ([], 's') if self.modes.get(Mode::SideMargins) => {
                self.set_side_margins(a.raw(0), a.raw(1))
            }
            ([], 's') => self.save_cursor(),
            ([], 'u') => self.restore_cursor(),
            ([b'>'], 'u') => self.push_keyboard_flags(a.raw(0)),
            ([b'<'], 'u') => self.pop_keyboard_flags(a.or(0, 1)),
            ([b'='], 'u') => self.set_keyboard_flags(a.raw(0), a.or(1, 1) as u16),
            ([b'?'], 'u') => self.report_keyboard_flags(),
            // The parser reads an absent parameter as 0.
            ([b'>'], 'm') if a.raw(0) == 0 => self.reset_key_modifier_options(),
            ([b'>'], 'm') => self.set_key_modifier_option(a.raw(0), a.raw(1)),
            ([b'>'], 'n') => self.disable_key_modifier_option(a.raw(0)),
            ([b'?'], 'm') => self.report_key_modifier_option(a.raw(0)),
            ([], 't') => self.window_op(a.raw(0), a.raw(1)),
            ([b' '], 'q') => self.set_cursor_style(a.raw(0)),
            ([b' '], '@') => self.scroll_columns(-(a.or(0, 1) as isize)),
            ([b' '], 'A') => self.scroll_columns(a.or(0, 1) as isize),
            ([b'\''], '}') => self.edit_columns(a.or(0, 1) as isize),
            ([b'\''], '~') => self.edit_columns(-(a.or(0, 1) as isize)),
            ([b'!'], 'p') => self.soft_reset(),
            ([b'"'], 'p') => self.set_conformance_level(a.raw(0)),
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
        self.spend(1);
        self.last_printed = None;
        match (intermediates, byte) {
            ([], b'7') => self.save_cursor(),
            ([], b'8') => self.restore_cursor(),
            ([], b'Z') => self.primary_attributes(),
            ([], b'V') => {
                self.protect = true;
                self.iso_protection = true;
            }
            ([], b'W') => self.protect = false,
            ([], b'6') => self.back_index(),
            ([], b'9') => self.forward_index(),
            ([], b'D') => self.index(),
            ([], b'E') => self.next_line(),
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
        self.spend(1);
        self.last_printed = None;
        match params {
            [which @ (b"0" | b"1" | b"2"), title @ ..] => {
                let which = match *which {
                    b"0" => Which::Both,
                    b"1" => Which::Icon,
                    _ => Which::Window,
                };
                // The parser splits on ';', which a title may contain.
                let title = title.join(&b";"[..]);
                self.titles.set(which, &String::from_utf8_lossy(&title));
            }
            [b"8", link_params, uri @ ..] => self.set_hyperlink(link_params, uri),
            [b"52", _, data] => self.set_clipboard(data),
            [b"4", pairs @ ..] => self.palette_colors(4, pairs),
            [b"5", pairs @ ..] => self.palette_colors(5, pairs),
            [b"104", indices @ ..] => self.reset_palette_colors(104, indices),
            [b"105", indices @ ..] => self.reset_palette_colors(105, indices),
            [number, specs @ ..] => match osc_number(number) {
                Some(n @ 10..=19) => self.dynamic_colors(n, specs),
                Some(n @ 110..=119) => self.reset_dynamic_color(n),
                _ => {}
            },
            _ => {}
        }
    }

    fn hook(&mut self, _params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        self.end_run_for_dcs();
        if ignore {
            return;
        }
        if intermediates.is_empty() && action == 'q' {
            self.sixel_start();
        } else {
            self.dcs_request = DcsRequest::start(intermediates, action);
        }
    }

    fn put(&mut self, byte: u8) {
        self.spend(1);
        if self.sixel_active() {
            self.sixel_put(byte);
        } else if let Some(request) = &mut self.dcs_request {
            request.push(byte);
        }
    }

    #[inline]
    fn spent(&self) -> bool {
        self.work_spent()
    }

    fn apc_dispatch(&mut self, data: &[u8]) {
        self.kitty_graphics(data);
    }

    fn unhook(&mut self) {
        if self.sixel_active() {
            self.sixel_end();
            return;
        }
        match self.dcs_request.take() {
            Some(DcsRequest::StatusString(request)) => self.report_status_string(&request),
            Some(DcsRequest::Termcap(request)) => self.report_termcap(&request),
            None => {}
        }
    }

    fn osc_file_start(&mut self, args: &[u8]) -> bool {
        self.file_start(args)
    }

    fn osc_file_data(&mut self, data: &[u8]) {
        self.file_data(data);
    }

    fn osc_file_end(&mut self, complete: bool) {
        self.file_end(complete);
    }
}

impl Emulator {
    /// DCS strings are not interpreted, but REP after one repeats nothing.
    fn end_run_for_dcs(&mut self) {
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
        if self.has_side_margins() {
            self.scroll_block_up(self.top, self.bottom, n);
            return;
        }
        let cursor = *self.screen.cursor();
        self.screen.cursor_mut().row = self.top;
        self.delete_lines(n);
        *self.screen.cursor_mut() = cursor;
    }

    /// SD: scrolls the region down `n` lines. As xterm.js, the new lines are
    /// blank in the default style, not the current background.
    fn scroll_text_down(&mut self, n: usize) {
        let (top, bottom) = (self.top, self.bottom);
        if self.has_side_margins() {
            self.scroll_block_down(top, bottom, n);
            return;
        }
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

    /// XTSAVE (`CSI ? Pm s`): remembers the listed DEC modes' values.
    fn save_modes(&mut self, params: &Params) {
        for param in params.iter() {
            if let Some(mode) = Mode::find(ModeKind::Dec, param[0]) {
                let on = self.modes.get(mode);
                self.saved_modes.set(mode, on);
            }
        }
    }

    /// XTRESTORE (`CSI ? Pm r`): sets the listed DEC modes back to what
    /// XTSAVE remembered (their defaults if never saved).
    fn restore_modes(&mut self, params: &Params) {
        for param in params.iter() {
            if let Some(mode) = Mode::find(ModeKind::Dec, param[0]) {
                let on = self.saved_modes.get(mode);
                if on != self.modes.get(mode) {
                    self.set_mode(mode, on);
                }
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
            // Left and right margins came with the VT420 (level 4).
            Mode::SideMargins if self.conformance_level >= 4 => self.set_side_margin_mode(on),
            Mode::SideMargins => {}
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
        // A URI may itself contain ';', which the parser splits on.
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

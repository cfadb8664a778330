//! Takes what the [`parser`](crate::parser) finds: text goes straight to the
//! print path; controls, CSI, ESC, OSC, DCS and APC become
//! [`Action`]s, carried out by one match ([`Emulator::perform`]).

use std::sync::Arc;

use super::{CursorShape, Emulator};
use crate::action::{Action, ModeList, TabClear};
use crate::charset::Charset;
use crate::dcs_request::DcsRequest;
use crate::links::Hyperlink;
use crate::modes::Mode;
use crate::parser::{Actions, Params};
use crate::sgr;
use crate::style::StyleId;

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

    // Out of line: the parser's text loop calls it for C1 controls, and
    // must stay small enough to inline.
    #[inline(never)]
    fn execute(&mut self, byte: u8) {
        self.spend(1);
        self.last_printed = None;
        if let Some(action) = Action::from_control(byte) {
            self.perform_out_of_line(action, None);
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        self.spend(1);
        // REP repeats only a character printed right before it.
        let preceding = self.last_printed.take();
        if ignore {
            return;
        }
        if let Some(action) = Action::from_csi(params, intermediates, action) {
            self.perform(action, preceding);
        }
    }

    fn esc_dispatch(&mut self, intermediates: &[u8], _ignore: bool, byte: u8) {
        self.spend(1);
        self.last_printed = None;
        if let Some(action) = Action::from_esc(intermediates, byte) {
            self.perform_out_of_line(action, None);
        }
    }

    fn osc_string(&mut self, data: &[u8], _bell_terminated: bool) {
        self.spend(1);
        self.last_printed = None;
        if let Some(action) = Action::from_osc(data) {
            self.perform_out_of_line(action, None);
        }
    }

    fn hook(&mut self, _params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        self.end_run_for_dcs();
        if ignore {
            return;
        }
        self.perform_out_of_line(Action::from_dcs(intermediates, action), None);
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
        self.perform_out_of_line(Action::KittyGraphics(data), None);
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
    /// Carries out one action; `preceding` is the character printed right
    /// before it, if any (for REP). Out of line: for the rarer controls,
    /// ESC, OSC, DCS and APC, so that the parser's loops that call them
    /// stay small enough to inline.
    #[inline(never)]
    fn perform_out_of_line(&mut self, action: Action<'_>, preceding: Option<char>) {
        self.perform(action, preceding);
    }

    /// [`Emulator::perform_out_of_line`], inlined into the CSI dispatcher:
    /// there the translation's match and this one fold together.
    #[inline(always)]
    fn perform(&mut self, action: Action<'_>, preceding: Option<char>) {
        match action {
            Action::Bell => self.outbox.bells += 1,
            Action::CursorBack(n) => self.move_back(n),
            Action::HorizontalTab => self.horizontal_tab(),
            Action::LineFeed => self.linefeed(),
            Action::CarriageReturn => self.carriage_return(),
            Action::LockingShift(set) => self.shift_to(set),
            Action::Index => self.index(),
            Action::NextLine => self.next_line(),
            Action::SetTabStop => self.tabs.set(self.screen.cursor().col),
            Action::ReverseIndex => self.reverse_index(),
            Action::CursorUp(n) => self.move_up(n),
            Action::CursorDown(n) => self.move_down(n),
            Action::CursorDownUnbounded(n) => self.move_down_unbounded(n),
            Action::CursorForward(n) => self.move_right(n),
            Action::CursorNextLine(n) => {
                self.move_down(n);
                self.carriage_return();
            }
            Action::CursorPrecedingLine(n) => {
                self.move_up(n);
                self.carriage_return();
            }
            Action::CursorColumn(col) => self.goto_col(col),
            Action::CursorRow(row) => self.goto_row(row),
            Action::CursorPosition { row, col } => self.goto(row, col),
            Action::TabForward(n) => self.tab(n),
            Action::TabBackward(n) => self.back_tab(n),
            Action::TabClear(TabClear::AtCursor) => self.tabs.clear(self.screen.cursor().col),
            Action::TabClear(TabClear::All) => self.tabs.clear_all(),
            Action::SaveCursor => self.save_cursor(),
            Action::RestoreCursor => self.restore_cursor(),
            Action::SideMarginsOrSaveCursor { left, right } => {
                if self.modes.get(Mode::SideMargins) {
                    self.set_side_margins(left, right);
                } else {
                    self.save_cursor();
                }
            }
            Action::CursorStyle(style) => self.set_cursor_style(style),
            Action::InsertChars(n) => self.insert_chars(n),
            Action::DeleteChars(n) => self.delete_chars(n),
            Action::EraseChars(n) => self.erase_chars(n),
            Action::InsertLines(n) => self.insert_lines(n),
            Action::DeleteLines(n) => self.delete_lines(n),
            Action::EraseInDisplay { mode, selective } => self.erase_in_display(mode, selective),
            Action::EraseInLine { mode, selective } => self.erase_in_line(mode, selective),
            Action::Repeat(n) => self.repeat(preceding, n),
            Action::ScrollUp(n) => self.scroll_text_up(n),
            Action::ScrollDown(n) => self.scroll_text_down(n),
            Action::ScrollColumns(n) => self.scroll_columns(n),
            Action::EditColumns(n) => self.edit_columns(n),
            Action::ScrollRegion { top, bottom } => self.set_scroll_region(top, bottom),
            Action::CharProtection(on) => {
                self.protect = on;
                self.iso_protection = false;
            }
            Action::StartProtectedArea => {
                self.protect = true;
                self.iso_protection = true;
            }
            Action::EndProtectedArea => self.protect = false,
            Action::FillRect { ch, rect } => {
                let rect = self.rect_from(rect.top, rect.left, rect.bottom, rect.right);
                self.fill_rect(ch, rect);
            }
            Action::EraseRect { rect, selective } => {
                let rect = self.rect_from(rect.top, rect.left, rect.bottom, rect.right);
                self.erase_rect(rect, selective);
            }
            Action::CopyRect { rect, top, left } => {
                let rect = self.rect_from(rect.top, rect.left, rect.bottom, rect.right);
                self.copy_rect(rect, top, left);
            }
            Action::ChangeRectAttrs {
                rect,
                params,
                reverse,
            } => {
                let rect = self.rect_from(rect.top, rect.left, rect.bottom, rect.right);
                let attrs: Vec<u16> = params.iter().skip(4).map(|p| p[0]).collect();
                self.change_rect_attrs(rect, &attrs, reverse);
            }
            Action::AttrChangeExtent(extent) => self.set_attr_change_extent(extent),
            Action::RectChecksum { id, rect } => {
                self.report_checksum(id, rect.top, rect.left, rect.bottom, rect.right)
            }
            Action::Sgr(params) => {
                sgr::apply(&mut self.pen.style, params);
                self.update_pen();
            }
            Action::SetModes { modes, on } => {
                for mode in modes.iter() {
                    self.set_mode(mode, on);
                }
            }
            Action::SaveModes(modes) => self.save_modes(modes),
            Action::RestoreModes(modes) => self.restore_modes(modes),
            Action::AppKeypad(on) => self.modes.set(Mode::AppKeypad, on),
            Action::SoftReset => self.soft_reset(),
            Action::FullReset => self.full_reset(),
            Action::ConformanceLevel(level) => self.set_conformance_level(level),
            Action::Designate { slot, set } => self.designate(slot, set),
            Action::ScreenAlignment => self.screen_alignment(),
            Action::BackIndex => self.back_index(),
            Action::ForwardIndex => self.forward_index(),
            Action::PushKeyboardFlags(flags) => self.push_keyboard_flags(flags),
            Action::PopKeyboardFlags(n) => self.pop_keyboard_flags(n),
            Action::SetKeyboardFlags { flags, mode } => self.set_keyboard_flags(flags, mode),
            Action::ReportKeyboardFlags => self.report_keyboard_flags(),
            Action::ResetKeyModifierOptions => self.reset_key_modifier_options(),
            Action::SetKeyModifierOption { resource, value } => {
                self.set_key_modifier_option(resource, value)
            }
            Action::DisableKeyModifierOption(resource) => {
                self.disable_key_modifier_option(resource)
            }
            Action::ReportKeyModifierOption(resource) => self.report_key_modifier_option(resource),
            Action::PrimaryAttributes => self.primary_attributes(),
            Action::SecondaryAttributes => self.secondary_attributes(),
            Action::TertiaryAttributes => self.tertiary_attributes(),
            Action::ReportVersion => {
                let version = concat!("\x1bP>|panecast ", env!("CARGO_PKG_VERSION"), "\x1b\\");
                self.reply(version.as_bytes());
            }
            Action::DeviceStatus { kind, dec, arg } => self.device_status(kind, dec, arg),
            Action::ReportMode { number, kind } => self.report_mode(number, kind),
            Action::GraphicsAttributes { item, action } => self.graphics_attributes(item, action),
            Action::WindowOp { op, arg } => self.window_op(op, arg),
            Action::Title { which, text } => self.titles.set(which, &String::from_utf8_lossy(text)),
            Action::Hyperlink { params, uri } => self.set_hyperlink(params, uri),
            Action::Clipboard(data) => self.set_clipboard(data),
            Action::PaletteColors { osc, pairs } => self.palette_colors(osc, pairs),
            Action::ResetPaletteColors { osc, indices } => self.reset_palette_colors(osc, indices),
            Action::DynamicColors { first, specs } => self.dynamic_colors(first, specs),
            Action::ResetDynamicColor(osc) => self.reset_dynamic_color(osc),
            Action::SixelStart => self.sixel_start(),
            Action::DcsStart(request) => self.dcs_request = request,
            Action::KittyGraphics(data) => self.kitty_graphics(data),
        }
    }

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
            self.scroll_block_up(self.region.top, self.region.bottom, n);
            return;
        }
        let cursor = *self.screen.cursor();
        self.screen.cursor_mut().row = self.region.top;
        self.delete_lines(n);
        *self.screen.cursor_mut() = cursor;
    }

    /// SD: scrolls the region down `n` lines. As xterm.js, the new lines are
    /// blank in the default style, not the current background.
    fn scroll_text_down(&mut self, n: usize) {
        let (top, bottom) = (self.region.top, self.region.bottom);
        if self.has_side_margins() {
            self.scroll_block_down(top, bottom, n);
            return;
        }
        self.scroll_down(top, bottom, n);
        for r in top..top + n.min(bottom + 1 - top) {
            self.screen.grid_mut()[r].reset(StyleId::DEFAULT);
        }
    }

    /// XTSAVE (`CSI ? Pm s`): remembers the listed DEC modes' values.
    fn save_modes(&mut self, modes: ModeList<'_>) {
        for mode in modes.iter() {
            let on = self.modes.get(mode);
            self.saved_modes.set(mode, on);
        }
    }

    /// XTRESTORE (`CSI ? Pm r`): sets the listed DEC modes back to what
    /// XTSAVE remembered (their defaults if never saved).
    fn restore_modes(&mut self, modes: ModeList<'_>) {
        for mode in modes.iter() {
            let on = self.saved_modes.get(mode);
            if on != self.modes.get(mode) {
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
    fn set_hyperlink(&mut self, link_params: &[u8], uri: &[u8]) {
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
            let uri = Arc::from(String::from_utf8_lossy(uri).as_ref());
            self.intern_link(Hyperlink { id, uri })
        };
        self.pen.style.link = link;
        self.update_pen();
    }
}

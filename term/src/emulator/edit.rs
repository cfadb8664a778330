//! Editing operations: erase in line and display, insert and delete of
//! characters and lines, screen alignment, the alternate screen and resets.

use super::colors::ColorOverrides;
use super::{CursorShape, Emulator};
use crate::cell::Cell;
use crate::keyboard::OtherKeys;
use crate::modes::{Mode, Modes};
use crate::screen::Screen;
use crate::style::Style;
use crate::tabstops::TabStops;

impl Emulator {
    /// Blanks columns `start..end` of row `r` with the erase style, keeping
    /// wide characters whole and the soft-wrap flags truthful.
    pub fn erase_cells(&mut self, r: usize, start: usize, end: usize) {
        let end = end.min(self.cols);
        if start >= end {
            return;
        }
        self.spend(end - start);
        self.touch(r);
        let erase = self.erase_style();
        let cols = self.cols;
        let line = &mut self.screen.grid_mut()[r];
        line.drop_clusters(start, end);
        let cells = line.cells();
        if start > 0 && cells[start].width() == 0 {
            let lead = cells[start - 1];
            line.put(start - 1, Cell::blank(lead.style()));
        }
        let cells = line.cells();
        if end < cols && cells[end].width() == 0 {
            let spacer = cells[end];
            line.put(end, Cell::blank(spacer.style()));
        }
        line.fill(start, end, Cell::blank(erase));
        if line.has_images() {
            line.cut_images(start, end);
        }
        if end == cols {
            line.set_wrapped(false);
        }
        if start == 0 && r > 0 {
            self.screen.grid_mut()[r - 1].set_wrapped(false);
        }
    }

    /// Selective erase: blanks the unprotected cells of `start..end` in row `r`.
    pub fn erase_unprotected(&mut self, r: usize, start: usize, end: usize) {
        let end = end.min(self.cols);
        if start >= end {
            return;
        }
        self.spend(end - start);
        self.touch(r);
        let erase = self.erase_style();
        let line = &mut self.screen.grid_mut()[r];
        let mut col = start;
        while col < end {
            let cell = line.cells()[col];
            if !cell.is_protected() {
                line.drop_clusters(col, col + 1);
                line.cells_mut()[col] = Cell::blank(erase);
            }
            col += 1;
        }
    }

    /// Erases `start..end` of row `r`, leaving protected cells when the
    /// protection applies: DECSCA's to the selective erases (`selective`),
    /// an ISO protected area's (SPA) to the plain ones, as in xterm.
    fn erase_span(&mut self, r: usize, start: usize, end: usize, selective: bool) {
        if selective != self.iso_protection {
            self.erase_unprotected(r, start, end);
        } else {
            self.erase_cells(r, start, end);
        }
    }

    /// EL (DECSEL when `selective`): 0 from the cursor to the end, 1 from the
    /// start to the cursor, 2 the whole line.
    pub fn erase_in_line(&mut self, mode: u16, selective: bool) {
        let (r, x) = (self.screen.cursor().row, self.cursor_x());
        match mode {
            0 => self.erase_span(r, x, self.cols, selective),
            1 => self.erase_span(r, 0, x + 1, selective),
            2 => self.erase_span(r, 0, self.cols, selective),
            _ => {}
        }
    }

    /// ED (DECSED when `selective`): 0 below, 1 above, 2 all, 3 the scrollback.
    pub fn erase_in_display(&mut self, mode: u16, selective: bool) {
        let (r, x) = (self.screen.cursor().row, self.cursor_x());
        match mode {
            0 => {
                self.erase_span(r, x, self.cols, selective);
                for row in r + 1..self.rows {
                    self.erase_span(row, 0, self.cols, selective);
                }
            }
            1 => {
                for row in 0..r {
                    self.erase_span(row, 0, self.cols, selective);
                }
                self.erase_span(r, 0, x + 1, selective);
            }
            2 => {
                for row in 0..self.rows {
                    self.erase_span(row, 0, self.cols, selective);
                }
                self.clear_screen_images();
            }
            3 => {
                self.clear_screen_images();
                self.spend(self.scrollback.len());
                self.scrollback.clear(&mut self.styles);
            }
            _ => {}
        }
    }

    /// ECH: blanks `n` cells from the cursor without moving it.
    pub fn erase_chars(&mut self, n: usize) {
        let (r, c) = (self.screen.cursor().row, self.screen.cursor().col);
        self.screen.cursor_mut().pending_wrap = false;
        self.erase_span(r, c, c.saturating_add(n), false);
    }

    /// ICH: inserts `n` blanks at the cursor.
    pub fn insert_chars(&mut self, n: usize) {
        let (r, c) = (self.screen.cursor().row, self.screen.cursor().col);
        self.screen.cursor_mut().pending_wrap = false;
        if self.cursor_in_side_margins() {
            self.shift_right(r, c, n, self.region.right + 1);
        }
    }

    /// DCH: deletes `n` cells at the cursor, pulling the rest left.
    pub fn delete_chars(&mut self, n: usize) {
        let (r, c) = (self.screen.cursor().row, self.screen.cursor().col);
        self.screen.cursor_mut().pending_wrap = false;
        if self.cursor_in_side_margins() {
            self.delete_cells(r, c, n, self.region.right + 1);
        }
    }

    /// SL and SR: shifts the block inside the margins left (`n` < 0) or
    /// right, when the cursor is inside the scroll region.
    pub fn scroll_columns(&mut self, n: isize) {
        if !self.region.has_row(self.screen.cursor().row) {
            return;
        }
        self.shift_columns(n);
    }

    /// DECIC and DECDC: inserts (`n` > 0) or deletes columns at the cursor in
    /// every row of the scroll region, up to the right margin, when the
    /// cursor is inside all four margins.
    pub fn edit_columns(&mut self, n: isize) {
        let row = self.screen.cursor().row;
        if !self.region.has_row(row) || !self.cursor_in_side_margins() {
            return;
        }
        let (col, end) = (self.screen.cursor().col, self.region.right + 1);
        for r in self.region.top..=self.region.bottom {
            if n < 0 {
                self.delete_cells(r, col, n.unsigned_abs(), end);
            } else {
                self.shift_right(r, col, n as usize, end);
            }
        }
    }

    /// IL: inserts `n` blank lines at the cursor row, inside the scroll region.
    pub fn insert_lines(&mut self, n: usize) {
        let r = self.screen.cursor().row;
        if !self.region.has_row(r) || !self.cursor_in_side_margins() {
            return;
        }
        self.scroll_down(r, self.region.bottom, n);
        self.screen.cursor_mut().col = self.region.left;
        self.screen.cursor_mut().pending_wrap = false;
    }

    /// DL: deletes `n` lines at the cursor row, inside the scroll region.
    pub fn delete_lines(&mut self, n: usize) {
        let r = self.screen.cursor().row;
        if !self.region.has_row(r) || !self.cursor_in_side_margins() {
            return;
        }
        if self.has_side_margins() {
            self.scroll_block_up(r, self.region.bottom, n);
            self.screen.cursor_mut().col = self.region.left;
            self.screen.cursor_mut().pending_wrap = false;
            return;
        }
        let n = n.min(self.region.bottom + 1 - r);
        self.spend(n * self.cols + self.region.bottom + 1 - r);
        self.screen.grid_mut().rotate_up(r, self.region.bottom, n);
        let erase = self.erase_style();
        for row in self.region.bottom + 1 - n..=self.region.bottom {
            self.screen.grid_mut()[row].reset(erase);
        }
        if r > 0 {
            self.screen.grid_mut()[r - 1].set_wrapped(false);
        }
        self.touch_range(r, self.region.bottom);
        self.screen.cursor_mut().col = 0;
        self.screen.cursor_mut().pending_wrap = false;
    }

    /// REP: repeats `preceding` (the character printed just before) `n` times.
    pub fn repeat(&mut self, preceding: Option<char>, n: usize) {
        if let Some(c) = preceding {
            // Bounded by the screen: more repeats than cells only overwrite.
            let n = n.min(self.cols * self.rows);
            self.spend(n);
            for _ in 0..n {
                self.print(c);
            }
        }
    }

    /// DECALN: fills the screen with `E` in the current pen (as xterm.js),
    /// resets the margins and homes the cursor.
    pub fn screen_alignment(&mut self) {
        self.region.reset_rows(self.rows);
        self.reset_side_margins();
        self.spend(self.rows * self.cols);
        let pen = self.pen();
        for r in 0..self.rows {
            self.touch(r);
            let line = &mut self.screen.grid_mut()[r];
            line.reset(pen);
            let cols = line.cells().len();
            line.fill(0, cols, Cell::new('E', pen, 1));
        }
        self.goto(0, 0);
    }

    /// Switches to the alternate screen (47, 1047, 1049). As in xterm.js the
    /// alternate screen starts empty every time and the cursor keeps its place.
    pub fn enter_alt(&mut self, save_cursor: bool) {
        self.flush_touches();
        if save_cursor {
            self.save_cursor();
        }
        if self.alt_active {
            return;
        }
        let erase = self.erase_style();
        let mut rows = self.blank_rows(self.rows);
        rows.iter_mut().for_each(|row| row.reset(erase));
        let old = self.hidden.set_rows(rows);
        self.retire_rows(old);
        self.switch_screens();
        self.alt_active = true;
    }

    /// Returns to the main screen, discarding the alternate one.
    pub fn leave_alt(&mut self, restore_cursor: bool) {
        self.flush_touches();
        if self.alt_active {
            self.switch_screens();
            let alternate = self.hidden.take_rows();
            self.retire_rows(alternate);
            self.alt_active = false;
            self.touch_range(0, self.rows - 1);
        }
        if restore_cursor {
            self.restore_cursor();
        }
    }

    /// Shows the hidden screen, which takes over the cursor and character sets.
    fn switch_screens(&mut self) {
        self.spend(self.rows * self.cols);
        std::mem::swap(&mut self.screen, &mut self.hidden);
        self.screen.carry_over(&self.hidden);
    }

    /// DECSTR: soft reset of modes, pen, region and saved cursor; the screen stays.
    /// As xterm.js, every mode it tracks goes back to its default (bracketed
    /// paste, focus events and synchronized output included) and so does the
    /// cursor style; mouse tracking, LNM, the alternate screen and grapheme
    /// clustering (2027: Ghostty has no soft reset of it, kitty and WezTerm
    /// cannot turn it off) stay. Both screens' kitty keyboard flags are
    /// emptied, as kitty does.
    pub fn soft_reset(&mut self) {
        const RESET: [Mode; 13] = [
            Mode::CursorVisible,
            Mode::Insert,
            Mode::Origin,
            Mode::AutoWrap,
            Mode::AppCursor,
            Mode::AppKeypad,
            Mode::BracketedPaste,
            Mode::FocusEvents,
            Mode::ReverseWrap,
            Mode::ReverseWrapExtended,
            Mode::SynchronizedOutput,
            Mode::CursorBlink,
            Mode::SideMargins,
        ];
        let defaults = Modes::default();
        for mode in RESET {
            self.modes.set(mode, defaults.get(mode));
        }
        self.reset_pen_region_and_charsets();
        self.reset_keyboard();
        self.screen.forget_saved();
        self.screen.cursor_mut().pending_wrap = false;
    }

    /// What both resets restore: cursor shape, scroll region, pen,
    /// protection (DECSCA) and charsets.
    fn reset_pen_region_and_charsets(&mut self) {
        self.protect = false;
        self.iso_protection = false;
        self.cursor_shape = CursorShape::Block;
        self.cursor_blink = false;
        self.region.reset_rows(self.rows);
        self.reset_side_margins();
        self.pen.style = Style::default();
        self.screen.reset_charsets();
        self.update_pen();
    }

    /// DECSCL: sets the conformance level (61 to 65 name VT100 to VT500) and
    /// soft-resets, as xterm does. Other levels are ignored.
    pub fn set_conformance_level(&mut self, level: u16) {
        if let 61..=65 = level {
            self.conformance_level = (level - 60) as u8;
            self.soft_reset();
        }
    }

    /// RIS: everything back to the power-on state, scrollback included.
    pub fn full_reset(&mut self) {
        self.spend(2 * self.rows * self.cols + self.scrollback.len());
        self.damage.forget_deferred();
        self.alt_active = false;
        let rows = self.blank_rows(self.rows);
        let old = std::mem::replace(&mut self.screen, Screen::new(rows));
        let hidden = std::mem::take(&mut self.hidden);
        for mut screen in [old, hidden] {
            self.retire_rows(screen.take_rows());
        }
        self.scrollback.clear(&mut self.styles);
        self.modes = Modes::default();
        self.tabs = TabStops::new(self.cols);
        self.titles.clear();
        self.conformance_level = 5;
        self.rect_attr_extent = false;
        self.saved_modes = Modes::default();
        self.colors = ColorOverrides::default();
        self.last_printed = None;
        self.other_keys = OtherKeys::OFF;
        self.reset_graphics();
        self.reset_pen_region_and_charsets();
    }
}

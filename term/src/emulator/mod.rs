//! The emulator's state and the operations escape sequences map to: printing,
//! cursor motion, line feeds and the scroll region here; the other families
//! in the submodules (sequence dispatch in `handler.rs`, editing in
//! `edit.rs`, ...). The fields are private to this module and its
//! submodules: [`Term`](super::Term) reads the state through methods.

mod checksum;
mod clipboard;
mod colors;
mod damage;
mod device_reports;
mod edit;
mod file_offer;
mod grapheme;
mod graphics;
mod handler;
mod interning;
mod keyboard;
mod margins;
mod outbox;
mod pen;
mod rect;
mod rectangles;
mod region;
mod resize;
mod restore_check;
mod reverse_wrap;
mod status_strings;
mod termcap;
mod window_ops;
mod xcms;

use serde::{Deserialize, Serialize};

pub use file_offer::FileOffer;

use super::cell::Cell;
use super::dcs_request::DcsRequest;
use super::grid::Grid;
use super::keyboard::{KeyboardMode, OtherKeys};
use super::links::{new_link_table, LinkTable};
use super::modes::{Mode, Modes};
use super::push_log::{PushLog, CHANGED_NOW};
use super::row::Row;
use super::screen::Screen;
use super::scrollback::Scrollback;
use super::snapshot::{CursorShape, CursorState};
use super::style::{new_style_table, StyleId, StyleTable};
use super::tabstops::TabStops;
use super::titles::Titles;
use super::width::width as char_width;
use colors::ColorOverrides;
use damage::Damage;
use outbox::Outbox;
use pen::Pen;
use region::ScrollRegion;

/// The whole emulator state. The parser drives it through `handler.rs`.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Emulator {
    cols: usize,
    rows: usize,
    /// The screen being shown: the main screen, or the alternate one while
    /// `alt_active`.
    screen: Screen,
    /// The screen not shown: the main screen while the alternate is shown,
    /// otherwise the alternate, holding no rows.
    hidden: Screen,
    alt_active: bool,
    scrollback: Scrollback,
    /// The scroll region and the side margins.
    #[serde(flatten)]
    region: ScrollRegion,
    tabs: TabStops,
    modes: Modes,
    styles: StyleTable,
    links: LinkTable,
    /// The style text is written in, and its interned ids.
    #[serde(flatten)]
    pen: Pen,
    titles: Titles,
    /// The VT level DECSCL set (1 to 5), reported by DECRQSS.
    conformance_level: u8,
    /// DECSACE 2: DECCARA and DECRARA cover the rectangle, not the stream.
    rect_attr_extent: bool,
    /// Colours the program set with OSC 4, 5 and 10-19.
    colors: ColorOverrides,
    /// Mode values XTSAVE remembered.
    saved_modes: Modes,
    /// The DCS request being received.
    dcs_request: Option<DcsRequest>,
    cursor_shape: CursorShape,
    cursor_blink: bool,
    /// xterm's `modifyOtherKeys` level (`CSI > 4 ; n m`).
    #[serde(default)]
    other_keys: OtherKeys,
    /// What the host is to take: replies, clipboard text, bells.
    #[serde(flatten)]
    outbox: Outbox,
    /// Largest file a program may offer (OSC 1337 File); 0: none.
    #[serde(default)]
    file_cap: u64,
    /// The file being received: not kept across a restore (its data is
    /// then dropped).
    #[serde(skip)]
    incoming: Option<file_offer::Incoming>,
    /// The latest file offered whole, until the session takes it.
    #[serde(skip)]
    file_offer: Option<FileOffer>,
    /// Inline images: the store, kitty's ids, a transmission in progress
    /// (which a restore drops).
    graphics: graphics::Graphics,
    /// Generations: which rows changed since the last snapshot.
    #[serde(flatten)]
    damage: Damage,
    last_printed: Option<char>,
    /// DECSCA: cells printed now are protected from selective erase.
    protect: bool,
    /// Set when the protection was last started by SPA (an ISO protected
    /// area), which plain erases respect, rather than by DECSCA.
    iso_protection: bool,
    /// The rows pushed into the scrollback by scrolling, with their generations.
    pushes: PushLog,
    /// The work meter: cells written, erased, moved or restyled (and one
    /// for each control or sequence), so a host can bound the work of one
    /// slice of output whatever its bytes ask for.
    work: u64,
    /// The parser stops after the action that brings `work` to this.
    work_limit: u64,
}

impl Emulator {
    pub fn new(cols: usize, rows: usize, scrollback: usize) -> Emulator {
        let mut emu = Emulator {
            cols,
            rows,
            screen: Screen::default(),
            hidden: Screen::default(),
            alt_active: false,
            scrollback: Scrollback::new(scrollback),
            region: ScrollRegion::full(cols, rows),
            tabs: TabStops::new(cols),
            modes: Modes::default(),
            styles: new_style_table(),
            links: new_link_table(),
            pen: Pen::default(),
            titles: Titles::default(),
            conformance_level: 5,
            dcs_request: None,
            saved_modes: Modes::default(),
            colors: ColorOverrides::default(),
            rect_attr_extent: false,
            cursor_shape: CursorShape::Block,
            cursor_blink: false,
            other_keys: OtherKeys::OFF,
            outbox: Outbox::default(),
            file_cap: 0,
            incoming: None,
            file_offer: None,
            graphics: graphics::Graphics::default(),
            damage: Damage::default(),
            last_printed: None,
            protect: false,
            iso_protection: false,
            pushes: PushLog::new(),
            work: 0,
            work_limit: u64::MAX,
        };
        let rows = emu.blank_rows(rows);
        emu.screen = Screen::new(rows);
        emu
    }

    /// Adds `cells` to the work meter (reset at every advance, and no
    /// advance does 2^64 units of work: a plain add cannot overflow).
    #[inline]
    pub fn spend(&mut self, cells: usize) {
        self.work += cells as u64;
    }

    /// Resets the work meter and makes the parser stop once it reaches `limit`.
    pub fn meter(&mut self, limit: u64) {
        self.work = 0;
        self.work_limit = limit;
    }

    /// The work done since the meter was last reset.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// True once the work meter reached its limit.
    #[inline]
    pub fn work_spent(&self) -> bool {
        self.work >= self.work_limit
    }

    /// A fresh generation number.
    #[inline]
    pub fn next_generation(&mut self) -> u64 {
        self.damage.next_generation()
    }

    /// `n` new empty rows, each with its own generation.
    pub fn blank_rows(&mut self, n: usize) -> Vec<Row> {
        (0..n)
            .map(|_| {
                let generation = self.next_generation();
                Row::new(self.cols, StyleId::DEFAULT, generation)
            })
            .collect()
    }

    /// Marks row `r` as changed since the last snapshot.
    #[inline]
    pub fn touch(&mut self, r: usize) {
        self.damage.mark(&mut self.screen.grid_mut()[r]);
    }

    /// Marks rows `top..=bottom` as changed. The marking is deferred until
    /// someone looks (`flush_touches`), so scrolling a region line by line
    /// costs one range union per line instead of a pass over the region.
    pub fn touch_range(&mut self, top: usize, bottom: usize) {
        let bottom = bottom.min(self.rows - 1);
        self.damage.defer(top, bottom);
    }

    /// Applies deferred `touch_range` marks. Called before generations are
    /// read and before the grid is swapped or rebuilt.
    pub fn flush_touches(&mut self) {
        if let Some((top, bottom)) = self.damage.take_deferred() {
            for r in top..=bottom.min(self.rows - 1) {
                self.touch(r);
            }
        }
    }

    // ----- what the terminal reads -----

    /// Width in cells.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Height in cells.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The modes in force, with the keyboard encoding of the screen shown.
    pub fn modes(&self) -> Modes {
        self.modes.with_keyboard(KeyboardMode {
            flags: self.screen.keyboard().current(),
            other_keys: self.other_keys,
        })
    }

    /// The window and icon titles.
    pub fn titles(&self) -> &Titles {
        &self.titles
    }

    /// Bells rung so far.
    pub fn bells(&self) -> u64 {
        self.outbox.bells
    }

    /// The scrollback of the main screen.
    pub fn scrollback(&self) -> &Scrollback {
        &self.scrollback
    }

    /// Bounds the scrollback to `cells` lines x columns at the current width.
    pub fn limit_scrollback_cells(&mut self, cells: usize) {
        self.scrollback
            .set_cell_budget(cells, self.cols, &mut self.styles);
    }

    /// The interned styles cells refer to.
    pub fn styles(&self) -> &StyleTable {
        &self.styles
    }

    /// The hyperlinks styles refer to.
    pub fn links(&self) -> &LinkTable {
        &self.links
    }

    /// The style and link tables, for publishing what changed in them.
    pub fn tables_mut(&mut self) -> (&mut StyleTable, &mut LinkTable) {
        (&mut self.styles, &mut self.links)
    }

    /// True while the alternate screen is shown.
    pub fn alt_active(&self) -> bool {
        self.alt_active
    }

    /// The visible rows, with every pending change marked.
    pub fn visible_rows(&mut self) -> &Grid {
        self.flush_touches();
        self.screen.grid()
    }

    /// The generation of the newest change.
    pub fn generation(&mut self) -> u64 {
        self.flush_touches();
        self.damage.newest()
    }

    /// Marks everything so far as seen and returns its generation: rows
    /// changed later get higher generations.
    pub fn observe(&mut self) -> u64 {
        self.flush_touches();
        self.damage.observe()
    }

    /// The rows scrolling pushed into the scrollback, with their generations.
    pub fn pushes(&self) -> &PushLog {
        &self.pushes
    }

    /// Lines the whole screen has scrolled up since it was created.
    pub fn scroll_count(&self) -> u64 {
        self.damage.scroll_count
    }

    /// Where the cursor is and how it is shown.
    pub fn cursor_state(&self) -> CursorState {
        let cursor = self.screen.cursor();
        CursorState {
            row: cursor.row as u16,
            col: cursor.col as u16,
            visible: self.modes.get(Mode::CursorVisible),
            shape: self.cursor_shape,
            blink: self.cursor_blink,
        }
    }

    /// Takes the bytes queued for the program.
    pub fn take_replies(&mut self) -> Vec<u8> {
        self.outbox.take_replies()
    }

    /// Takes the text a program last put on the clipboard, if any.
    pub fn take_clipboard(&mut self) -> Option<String> {
        self.outbox.clipboard.take()
    }

    /// Queues bytes to write back to the program (bounded).
    pub fn reply(&mut self, bytes: &[u8]) {
        self.outbox.reply(bytes);
    }

    /// Queues a formatted reply (bounded as [`Emulator::reply`]), written
    /// straight into the queue: no string is built for it.
    pub fn reply_fmt(&mut self, reply: std::fmt::Arguments) {
        self.outbox.reply_fmt(reply);
    }

    // ----- printing -----

    /// True when text can be written a row segment at a time: no charset
    /// mapping, protection, insert mode or side margins.
    #[inline]
    fn writes_plainly(&self) -> bool {
        !self.screen.charsets().is_mapping()
            && !self.protect
            && !self.modes.get(Mode::Insert)
            && !self.has_side_margins()
    }

    /// Writes a run of printable ASCII. Where nothing special is going on
    /// (no charset mapping, insert mode, protection, side margins, wide
    /// characters or clusters under the run) whole row segments are written
    /// at once; otherwise each character takes the general path.
    #[inline]
    pub fn write_ascii(&mut self, run: &[u8]) {
        if let [b] = *run {
            if self.write_one_ascii(b) {
                return;
            }
        }
        self.write_ascii_run(run);
    }

    /// [`Emulator::write_ascii`] of a run the one-character path did not
    /// take.
    fn write_ascii_run(&mut self, run: &[u8]) {
        let Some(&last) = run.last() else {
            return;
        };
        let len = run.len();
        let pen = self.pen();
        let simple = self.writes_plainly();
        let mut i = 0;
        while i < len {
            if !simple {
                let b = run[i];
                self.print(b as char);
                i += 1;
                continue;
            }
            if self.screen.cursor().pending_wrap {
                if self.modes.get(Mode::AutoWrap) {
                    self.wrap_line(self.cols);
                } else {
                    self.screen.cursor_mut().pending_wrap = false;
                }
            }
            let (row, col) = (self.screen.cursor().row, self.screen.cursor().col);
            let n = (len - i).min(self.cols - col);
            let line = &mut self.screen.grid_mut()[row];
            if !line.write_ascii(col, &run[i..i + n], pen) {
                let b = run[i];
                self.print(b as char);
                i += 1;
                continue;
            }
            if line.has_images() {
                line.cut_images(col, col + n);
            }
            self.damage.mark(line);
            i += n;
            if col + n >= self.cols {
                self.screen.cursor_mut().col = self.cols - 1;
                self.screen.cursor_mut().pending_wrap = true;
                if !self.modes.get(Mode::AutoWrap) && i < len {
                    // Without autowrap the rest overwrites the last column:
                    // only the final character survives.
                    self.screen.grid_mut()[row].write_ascii(self.cols - 1, &[last], pen);
                    i = len;
                }
            } else {
                self.screen.cursor_mut().col = col + n;
            }
        }
        self.last_printed = Some(char::from(last));
    }

    /// `write_ascii` of one character short of the last column, where
    /// nothing special is going on: a line of `y`, a character after a
    /// cursor move. False, writing nothing, when the general path must
    /// take it.
    #[inline]
    fn write_one_ascii(&mut self, b: u8) -> bool {
        let cursor = *self.screen.cursor();
        if cursor.pending_wrap || cursor.col + 1 >= self.cols || !self.writes_plainly() {
            return false;
        }
        let pen = self.pen();
        let line = &mut self.screen.grid_mut()[cursor.row];
        if !line.write_one_ascii(cursor.col, b, pen) {
            return false;
        }
        self.damage.mark(line);
        self.screen.cursor_mut().col = cursor.col + 1;
        self.last_printed = Some(char::from(b));
        true
    }

    /// Writes printable characters (not ASCII, which takes
    /// [`Emulator::write_ascii`]). Plain cases are written a row segment at a
    /// time, as in `write_ascii`; the rest (wrapping, combining marks,
    /// repairs, insert mode, grapheme clustering, ...) take
    /// [`Emulator::print`] one by one.
    pub fn write_text(&mut self, text: &[char]) {
        let plain = self.writes_plainly() && !self.clustering();
        if !plain {
            text.iter().for_each(|&c| self.print(c));
            return;
        }
        let pen = self.pen();
        let mut i = 0;
        while i < text.len() {
            let cursor = *self.screen.cursor();
            if !cursor.pending_wrap {
                let row = cursor.row;
                let line = &mut self.screen.grid_mut()[row];
                let (n, col) = line.write_text(cursor.col, &text[i..], pen);
                if n > 0 && line.has_images() {
                    line.cut_images(cursor.col, col);
                }
                if n > 0 {
                    self.touch(row);
                    self.screen.cursor_mut().col = col;
                    i += n;
                    self.last_printed = Some(text[i - 1]);
                    continue;
                }
            }
            self.print(text[i]);
            i += 1;
        }
    }

    /// Writes one printable character at the cursor (xterm's semantics for
    /// autowrap, wide characters, combining marks and insert mode).
    #[inline]
    pub fn print(&mut self, c: char) {
        let c = if self.screen.charsets().is_mapping() {
            self.screen.charsets().map(c)
        } else {
            c
        };
        let width = if (c as u32) < 0x7f {
            1
        } else {
            let Some(width) = char_width(c) else {
                return;
            };
            // Under mode 2027 a character may join the cluster before it.
            if self.clustering() && self.join_cluster(c) {
                return;
            }
            width
        };
        if width == 0 {
            self.combine(c);
            return;
        }
        if width > self.cols {
            // A wide character cannot be shown on a one-column screen.
            return;
        }
        self.last_printed = Some(c);
        let edge = self.wrap_edge();
        if self.screen.cursor().pending_wrap || self.screen.cursor().col + width > edge {
            if self.modes.get(Mode::AutoWrap) {
                self.wrap_line(edge);
            } else {
                // Without autowrap the last column is overwritten; a wide
                // character that cannot fit there is dropped (as xterm.js).
                self.screen.cursor_mut().pending_wrap = false;
                self.screen.cursor_mut().col = edge - 1;
                if width == 2 {
                    return;
                }
            }
        }
        let (row, col) = (self.screen.cursor().row, self.screen.cursor().col);
        self.touch(row);
        let edge = self.wrap_edge();
        if self.modes.get(Mode::Insert) {
            self.shift_right(row, col, width, edge);
        }
        let pen = self.pen();
        let mut cell = Cell::new(c, pen, width as u8);
        if self.protect {
            cell.mark_protected();
        }
        let line = &mut self.screen.grid_mut()[row];
        let old = line.put(col, cell);
        if line.has_images() {
            line.cut_images(col, col + width);
        }
        if old.width() != 1 || old.has_cluster() {
            self.fix_overwrite(row, col, old);
        }
        if width == 2 {
            let line = &mut self.screen.grid_mut()[row];
            let next = line.put(col + 1, Cell::spacer(pen));
            if next.width() == 2 && col + 2 < self.cols {
                line.put(col + 2, Cell::blank(next.style()));
            }
        }
        let end = col + width;
        if end >= edge {
            self.screen.cursor_mut().col = edge - 1;
            self.screen.cursor_mut().pending_wrap = true;
        } else {
            self.screen.cursor_mut().col = end;
        }
    }

    /// Repairs neighbours after the cell at `col` (previously `old`) was
    /// overwritten: half of a wide character must not survive alone, and a
    /// replaced cluster's text is dropped.
    fn fix_overwrite(&mut self, row: usize, col: usize, old: Cell) {
        let cols = self.cols;
        let line = &mut self.screen.grid_mut()[row];
        line.drop_clusters(col, col + 1);
        let cells = line.cells_mut();
        if old.width() == 0 && col > 0 && cells[col - 1].width() == 2 {
            cells[col - 1] = Cell::blank(cells[col - 1].style());
        }
        if old.width() == 2 && col + 1 < cols && cells[col].width() != 2 {
            cells[col + 1] = Cell::blank(cells[col + 1].style());
        }
    }

    /// Appends a zero-width character to the cell before the cursor.
    fn combine(&mut self, c: char) {
        let row = self.screen.cursor().row;
        let mut col = if self.screen.cursor().pending_wrap {
            self.screen.cursor().col
        } else if self.screen.cursor().col > 0 {
            self.screen.cursor().col - 1
        } else {
            return;
        };
        if self.screen.grid()[row].cells()[col].width() == 0 && col > 0 {
            col -= 1;
        }
        self.touch(row);
        self.screen.grid_mut()[row].push_to_cluster(col, c);
    }

    /// Moves to the start of the next line for autowrap, marking the soft wrap.
    /// `edge` is the column the line ends before (the right margin's
    /// neighbour inside margins, where the next line starts at the left margin).
    fn wrap_line(&mut self, edge: usize) {
        let row = self.screen.cursor().row;
        if !self.screen.cursor().pending_wrap {
            // A wide character that does not fit: pad the rest of this row.
            let pen = self.pen();
            self.touch(row);
            let (col, cols) = (self.screen.cursor().col, edge);
            let line = &mut self.screen.grid_mut()[row];
            if col > 0 && line.cells()[col].width() == 0 {
                // The pad replaces the right half of a wide character: blank its left half.
                let lead = line.cells()[col - 1];
                line.put(col - 1, Cell::blank(lead.style()));
            }
            line.fill(col, cols, Cell::wide_pad(pen));
        }
        let inside = edge != self.cols;
        // Only a wrap at the screen's edge joins two lines for reflow.
        self.screen.grid_mut()[row].set_wrapped(!inside);
        self.screen.cursor_mut().pending_wrap = false;
        self.screen.cursor_mut().col = if inside { self.region.left } else { 0 };
        self.index();
    }

    /// Deletes `n` cells at `col` of row `r`, pulling the cells before
    /// `end` left and filling the gap before `end` with erase blanks.
    pub fn delete_cells(&mut self, r: usize, col: usize, n: usize, end: usize) {
        let cols = self.cols;
        let erase = self.erase_style();
        let n = n.min(end.saturating_sub(col));
        if n == 0 {
            return;
        }
        self.spend(end - col);
        self.touch(r);
        if end < cols {
            let line = &mut self.screen.grid_mut()[r];
            let span = line.span(col + n, end);
            line.set_span(col, span);
            line.drop_clusters(end - n, end);
            line.fill(end - n, end, Cell::blank(erase));
            return;
        }
        let line = &mut self.screen.grid_mut()[r];
        line.drop_clusters(col, col + n);
        let cells = line.cells_mut();
        if col > 0 && cells[col].width() == 0 {
            cells[col - 1] = Cell::blank(cells[col - 1].style());
        }
        if col + n < cols && cells[col + n].width() == 0 {
            cells[col + n] = Cell::blank(cells[col + n].style());
        }
        cells[col..].rotate_left(n);
        cells[cols - n..].fill(Cell::blank(erase));
        line.shift_clusters(col + n, -(n as isize), cols);
    }

    /// Moves cells from `col` up to `end` right by `n`, dropping what
    /// passes `end`, and blanks the gap.
    pub fn shift_right(&mut self, row: usize, col: usize, n: usize, end: usize) {
        self.touch(row);
        let cols = self.cols;
        let erase = self.erase_style();
        let n = n.min(end.saturating_sub(col));
        if n == 0 {
            return;
        }
        self.spend(end - col);
        let line = &mut self.screen.grid_mut()[row];
        if end < cols {
            let span = line.span(col, end - n);
            line.set_span(col + n, span);
            line.drop_clusters(col, col + n);
            line.fill(col, col + n, Cell::blank(erase));
            return;
        }
        let cells = line.cells_mut();
        if col > 0 && cells[col].width() == 0 {
            // Splitting a wide character: neither half survives.
            cells[col - 1] = Cell::blank(cells[col - 1].style());
            cells[col] = Cell::blank(cells[col].style());
        }
        cells[col..].rotate_right(n);
        cells[col..col + n].fill(Cell::blank(erase));
        if cells[cols - 1].width() == 2 {
            cells[cols - 1] = Cell::blank(cells[cols - 1].style());
        }
        line.shift_clusters(col, n as isize, cols);
    }

    // ----- cursor motion -----

    /// The first and last rows the cursor may address (the region in origin mode).
    pub fn addressable(&self) -> (usize, usize) {
        if self.modes.get(Mode::Origin) {
            (self.region.top, self.region.bottom)
        } else {
            (0, self.rows - 1)
        }
    }

    /// Moves the cursor to an absolute position (CUP), relative to the region in origin mode.
    pub fn goto(&mut self, row: usize, col: usize) {
        // A program that places the cursor is done scrolling for a while
        // (a redraw follows): the rows it reads and writes next are found
        // straight through the row order, without a pending turn.
        self.screen.grid_mut().settle();
        let (top, bottom) = self.addressable();
        self.screen.cursor_mut().row = (top + row).min(bottom);
        self.goto_col(col);
    }

    /// CHA and HPA: moves to column `col` on the current row, relative to
    /// the left margin (and no further than the right one) in origin mode.
    pub fn goto_col(&mut self, col: usize) {
        let (left, right) = if self.modes.get(Mode::Origin) {
            (self.region.left, self.region.right)
        } else {
            (0, self.cols - 1)
        };
        self.screen.cursor_mut().col = (left + col).min(right);
        self.screen.cursor_mut().pending_wrap = false;
    }

    /// Moves to row `row` (region-relative in origin mode), keeping the column.
    pub fn goto_row(&mut self, row: usize) {
        let col = self.screen.cursor().col;
        self.goto(row, col);
    }

    /// Moves up `n` rows, stopping at the region's top when inside it.
    pub fn move_up(&mut self, n: usize) {
        let limit = if self.screen.cursor().row >= self.region.top {
            self.region.top
        } else {
            0
        };
        self.screen.cursor_mut().row = self.screen.cursor().row.saturating_sub(n).max(limit);
        self.screen.cursor_mut().pending_wrap = false;
    }

    /// Moves down `n` rows, stopping at the region's bottom when inside it.
    pub fn move_down(&mut self, n: usize) {
        let limit = if self.screen.cursor().row <= self.region.bottom {
            self.region.bottom
        } else {
            self.rows - 1
        };
        self.screen.cursor_mut().row = (self.screen.cursor().row + n).min(limit);
        self.screen.cursor_mut().pending_wrap = false;
    }

    /// VPR: down `n` rows, not limited by the scroll region (as xterm.js).
    pub fn move_down_unbounded(&mut self, n: usize) {
        self.screen.cursor_mut().row = (self.screen.cursor().row + n).min(self.rows - 1);
        self.screen.cursor_mut().pending_wrap = false;
    }

    /// The cursor column as xterm.js counts it: one past the last column while
    /// a wrap is pending, so erasing "from the cursor" then erases nothing.
    pub fn cursor_x(&self) -> usize {
        self.screen.cursor().col + self.screen.cursor().pending_wrap as usize
    }

    /// Moves right `n` columns, stopping at the right margin when inside it.
    pub fn move_right(&mut self, n: usize) {
        let col = self.screen.cursor().col;
        let limit = if col <= self.region.right {
            self.region.right
        } else {
            self.cols - 1
        };
        self.screen.cursor_mut().col = (col + n).min(limit);
        self.screen.cursor_mut().pending_wrap = false;
    }

    /// CR: to the left margin, or to column 0 from left of it (outside
    /// origin mode).
    pub fn carriage_return(&mut self) {
        let col = self.screen.cursor().col;
        self.screen.cursor_mut().col = if col >= self.region.left || self.modes.get(Mode::Origin) {
            self.region.left
        } else {
            0
        };
        self.screen.cursor_mut().pending_wrap = false;
    }

    /// LF, VT and FF: down one row, scrolling at the region's bottom.
    pub fn linefeed(&mut self) {
        self.index();
        if self.modes.get(Mode::LineFeedNewLine) {
            self.screen.cursor_mut().col = 0;
        }
    }

    /// NEL: down one row, then to the left margin. The row moves first, so
    /// a cursor right of the side margins does not scroll the region.
    pub fn next_line(&mut self) {
        self.index();
        self.carriage_return();
    }

    /// IND: down one row, scrolling at the region's bottom.
    pub fn index(&mut self) {
        self.screen.cursor_mut().pending_wrap = false;
        if self.screen.cursor().row == self.region.bottom {
            // Without side margins the cursor is always between them.
            if !self.has_side_margins() {
                self.scroll_row_up(self.region.top, self.region.bottom);
            } else if self.cursor_in_side_margins() {
                self.scroll_block_up(self.region.top, self.region.bottom, 1);
            }
        } else if self.screen.cursor().row < self.rows - 1 {
            self.screen.cursor_mut().row += 1;
        }
    }

    /// RI: up one row, scrolling down at the region's top.
    pub fn reverse_index(&mut self) {
        self.screen.cursor_mut().pending_wrap = false;
        if self.screen.cursor().row == self.region.top {
            if self.cursor_in_side_margins() {
                self.scroll_down(self.region.top, self.region.bottom, 1);
            }
        } else if self.screen.cursor().row > 0 {
            self.screen.cursor_mut().row -= 1;
        }
    }

    /// HT: to the next tab stop; with xterm's curses fix (mode 41) a
    /// pending wrap is taken first, so the tab lands on the next row.
    pub fn horizontal_tab(&mut self) {
        if self.screen.cursor().pending_wrap
            && self.modes.get(Mode::CursesMoreFix)
            && self.modes.get(Mode::AutoWrap)
        {
            self.next_line();
        }
        self.tab(1);
    }

    /// HT: to the next tab stop, `n` times, stopping at the right margin
    /// when inside it.
    pub fn tab(&mut self, n: usize) {
        let limit = self.wrap_edge() - 1;
        for _ in 0..n {
            let next = self.tabs.next(self.screen.cursor().col);
            self.screen.cursor_mut().col = next.min(limit);
        }
    }

    /// CBT: to the previous tab stop, `n` times.
    pub fn back_tab(&mut self, n: usize) {
        for _ in 0..n {
            self.screen.cursor_mut().col = self.tabs.prev(self.screen.cursor().col);
        }
        self.screen.cursor_mut().pending_wrap = false;
    }

    // ----- scrolling -----

    /// Scrolls whole rows `top..=bottom` (no side margins) up by one, as a
    /// line feed at the region's bottom does. The line leaving the top of
    /// the main screen goes to the scrollback; the new line takes the erase
    /// style.
    #[inline]
    fn scroll_row_up(&mut self, top: usize, bottom: usize) {
        self.spend(self.cols + bottom + 1 - top);
        if top == 0 && !self.alt_active {
            let row = &self.screen.grid()[0];
            let touched = self.damage.top_row_deferred();
            self.pushes.record(if touched {
                CHANGED_NOW
            } else {
                row.generation()
            });
            self.scrollback.push(row, &mut self.styles);
        }
        let erase = self.erase_style();
        let generation = self.damage.next_generation();
        let line = self.screen.grid_mut().rotate_up_one(top, bottom);
        line.reset(erase);
        line.set_generation(generation);
        if top == 0 && bottom == self.rows - 1 {
            self.damage.scroll_count += 1;
        } else {
            self.touch_range(top, bottom);
        }
    }

    /// Scrolls rows `top..=bottom` down by `n`; new lines at the top take the erase style.
    pub fn scroll_down(&mut self, top: usize, bottom: usize, n: usize) {
        let n = n.min(bottom + 1 - top);
        if n == 0 {
            return;
        }
        if self.has_side_margins() {
            self.scroll_block_down(top, bottom, n);
            return;
        }
        self.spend(n * self.cols + bottom + 1 - top);
        self.screen.grid_mut().rotate_down(top, bottom, n);
        let erase = self.erase_style();
        for r in top..top + n {
            self.screen.grid_mut()[r].reset(erase);
        }
        if top > 0 {
            self.screen.grid_mut()[top - 1].set_wrapped(false);
        }
        self.screen.grid_mut()[bottom].set_wrapped(false);
        self.touch_range(top, bottom);
    }

    /// DECSTBM: sets the scroll region (1-based, inclusive; 0 means the edge)
    /// and homes the cursor.
    pub fn set_scroll_region(&mut self, top: usize, bottom: usize) {
        let top = top.max(1) - 1;
        let bottom = if bottom == 0 {
            self.rows
        } else {
            bottom.min(self.rows)
        } - 1;
        if top < bottom {
            self.region.top = top;
            self.region.bottom = bottom;
            self.goto(0, 0);
        }
    }

    // ----- styles -----

    /// Notes that the pen changed (SGR, hyperlink, restore); it is interned
    /// when next used, so a burst of SGRs costs one lookup.
    #[inline]
    pub fn update_pen(&mut self) {
        self.pen.changed();
    }

    /// The pen's style id, interning the pen if it changed.
    #[inline]
    pub fn pen(&mut self) -> StyleId {
        if self.pen.is_stale() {
            self.intern_pen();
        }
        self.pen.id
    }

    fn intern_pen(&mut self) {
        if let Some(style) = self.pen.take_change() {
            self.pen.id = self.intern(style);
        }
    }

    /// The style erased cells take: the pen's background only.
    #[inline]
    pub fn erase_style(&mut self) -> StyleId {
        if self.pen.is_stale() {
            self.intern_pen();
        }
        match self.pen.erase_id {
            Some(id) => id,
            None => {
                let id = self.intern(self.pen.style.erased());
                self.pen.erase_id = Some(id);
                id
            }
        }
    }

    // ----- cursor save and restore -----

    /// DECSC.
    pub fn save_cursor(&mut self) {
        let origin = self.modes.get(Mode::Origin);
        self.screen
            .save_cursor(self.pen.style, origin, self.protect);
    }

    /// DECRC.
    pub fn restore_cursor(&mut self) {
        let saved = self.screen.restore_cursor(self.cols, self.rows);
        self.pen.style = saved.pen;
        self.protect = saved.protect;
        self.modes.set(Mode::Origin, saved.origin);
        self.update_pen();
    }
}

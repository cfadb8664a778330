//! The terminal emulator: a `vte`-driven grid with no I/O and no async.
//!
//! [`Term`] takes the bytes a program writes, keeps the screen (with
//! scrollback, the alternate screen, modes and styles) and hands out
//! [`Snapshot`]s that share unchanged rows. Every visible row carries a
//! generation number; together with the scroll count this tells a viewer
//! exactly which rows to send.

mod cell;
mod charset;
mod checksum;
mod clipboard;
mod colors;
mod dcs_request;
mod device_reports;
mod edit;
mod emulator;
mod grid;
mod handler;
mod link_compaction;
mod links;
mod margins;
mod modes;
mod osc_guard;
mod published_styles;
mod rect;
mod rectangles;
mod reflow;
mod resize;
mod row;
mod screen;
mod scrollback;
mod sgr;
mod snapshot;
mod status_strings;
mod style;
mod tabstops;
mod termcap;
#[cfg(test)]
mod tests;
mod titles;
mod window_ops;

use std::sync::Arc;

pub use cell::Cell;
pub use emulator::CursorShape;
pub use links::Hyperlink;
pub use modes::{Mode, Modes, MouseEncoding, MouseTracking};
pub use published_styles::PublishedStyles;
pub use row::Row;
pub use snapshot::{CursorState, Snapshot};
pub use style::{Attrs, Color, Style, StyleId, Underline};

use emulator::Emulator;
use osc_guard::OscGuard;

/// Largest width or height accepted, in cells.
pub const MAX_DIMENSION: u16 = 1000;
/// Scrollback lines kept by default.
pub const DEFAULT_SCROLLBACK: usize = 10_000;

/// Length of an incomplete UTF-8 character at the end of `bytes` (0 to 3).
fn incomplete_tail(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if b & 0xc0 == 0x80 {
            continue;
        }
        let needed = match b {
            0xf0..=0xff => 4,
            0xe0..=0xef => 3,
            0xc0..=0xdf => 2,
            _ => return 0,
        };
        return if needed > back { back } else { 0 };
    }
    0
}

/// A terminal emulator instance.
pub struct Term {
    parser: vte::Parser,
    guard: OscGuard,
    emu: Emulator,
    published: Vec<Arc<Row>>,
    /// The start of a UTF-8 character cut off by the end of the last chunk.
    held: Vec<u8>,
    /// Reused buffer for joining `held` with the next chunk.
    joined: Vec<u8>,
    styles: PublishedStyles,
    style_epoch: u32,
    links: Arc<Vec<Hyperlink>>,
    link_epoch: u32,
    title: Arc<str>,
}

impl Term {
    /// A terminal of `cols` x `rows` keeping `scrollback` lines. Sizes are
    /// clamped to `1..=MAX_DIMENSION`; callers validate user input first.
    pub fn new(cols: u16, rows: u16, scrollback: usize) -> Term {
        let cols = cols.clamp(1, MAX_DIMENSION) as usize;
        let rows = rows.clamp(1, MAX_DIMENSION) as usize;
        Term {
            parser: vte::Parser::new(),
            guard: OscGuard::default(),
            emu: Emulator::new(cols, rows, scrollback),
            published: Vec::new(),
            held: Vec::new(),
            joined: Vec::new(),
            styles: PublishedStyles::default(),
            style_epoch: 0,
            links: Arc::new(Vec::new()),
            link_epoch: 0,
            title: Arc::from(""),
        }
    }

    /// A copy of the whole state with a fresh parser (`vte`'s cannot be
    /// copied): exact when the bytes fed so far end outside any escape
    /// sequence, which is where a replay takes its keyframes.
    pub fn fork(&self) -> Term {
        Term {
            parser: vte::Parser::new(),
            guard: self.guard.clone(),
            emu: self.emu.clone(),
            published: self.published.clone(),
            held: self.held.clone(),
            joined: Vec::new(),
            styles: self.styles.clone(),
            style_epoch: self.style_epoch,
            links: Arc::clone(&self.links),
            link_epoch: self.link_epoch,
            title: Arc::clone(&self.title),
        }
    }

    /// Bounds the scrollback to `cells` lines x columns, now and after every
    /// resize (a wider terminal keeps fewer lines; the oldest go).
    pub fn limit_scrollback_cells(&mut self, cells: usize) {
        let cols = self.emu.cols;
        self.emu.scrollback.set_cell_budget(cells, cols);
    }

    /// Feeds bytes the program wrote. Chunks may split anywhere, UTF-8
    /// characters included.
    pub fn advance(&mut self, bytes: &[u8]) {
        if self.held.is_empty() {
            self.feed_whole_characters(bytes);
            return;
        }
        // vte 0.15 mishandles a character split across calls (it can skip the
        // byte after it), so a cut-off character is held back and joined here.
        let mut joined = std::mem::take(&mut self.joined);
        joined.clear();
        joined.append(&mut self.held);
        joined.extend_from_slice(bytes);
        self.feed_whole_characters(&joined);
        self.joined = joined;
    }

    /// Feeds `bytes` except an incomplete UTF-8 character at the end, which
    /// is held for the next call.
    fn feed_whole_characters(&mut self, bytes: &[u8]) {
        let (now, later) = bytes.split_at(bytes.len() - incomplete_tail(bytes));
        self.held.extend_from_slice(later);
        let Term {
            parser, guard, emu, ..
        } = self;
        guard.feed(now, |run| parser.advance(emu, run));
        emu.flush_run();
    }

    /// Takes the bytes the terminal wants written back to the program
    /// (answers to DA, DSR, CPR, DECRQM, ...).
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.emu.replies)
    }

    /// Takes the text a program last put on the clipboard (OSC 52), if any.
    pub fn take_clipboard(&mut self) -> Option<String> {
        self.emu.clipboard.take()
    }

    /// Changes the size (clamped to `1..=MAX_DIMENSION`), reflowing the main screen.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        let cols = cols.clamp(1, MAX_DIMENSION) as usize;
        let rows = rows.clamp(1, MAX_DIMENSION) as usize;
        self.emu.resize(cols, rows);
    }

    /// Width in cells.
    pub fn cols(&self) -> u16 {
        self.emu.cols as u16
    }

    /// Height in cells.
    pub fn rows(&self) -> u16 {
        self.emu.rows as u16
    }

    /// Current modes (for encoding keys, mouse and paste).
    pub fn modes(&self) -> Modes {
        self.emu.modes
    }

    /// True while the program holds output with synchronized output (2026).
    pub fn synchronized(&self) -> bool {
        self.emu.modes.get(Mode::SynchronizedOutput)
    }

    /// The window title.
    pub fn title(&self) -> &str {
        self.emu.titles.window()
    }

    /// Bells rung so far.
    pub fn bells(&self) -> u64 {
        self.emu.bells
    }

    /// The visible row `r`.
    pub fn row(&mut self, r: usize) -> Option<&Row> {
        self.emu.flush_touches();
        self.emu.screen.grid().get(r)
    }

    /// Lines held in the scrollback.
    pub fn scrollback_len(&self) -> usize {
        self.emu.scrollback.len()
    }

    /// Scrollback line `index`, counted from the oldest, as a row of the current width.
    pub fn scrollback_row(&self, index: usize) -> Option<Row> {
        let line = self.emu.scrollback.get(index)?;
        Some(line.to_row(self.emu.cols, 0))
    }

    /// Heap bytes held by the scrollback's cell storage.
    pub fn scrollback_heap_bytes(&self) -> usize {
        self.emu.scrollback.heap_bytes()
    }

    /// The generation of the newest change.
    pub fn generation(&mut self) -> u64 {
        self.emu.flush_touches();
        self.emu.counter
    }

    /// Marks the current screen as seen and returns its generation: rows
    /// changed after this call get higher generations. `snapshot` does this too.
    pub fn observe(&mut self) -> u64 {
        self.emu.flush_touches();
        self.emu.observed = self.emu.counter;
        self.emu.counter
    }

    /// Indices of the visible rows changed after generation `since`.
    pub fn changed_rows(&mut self, since: u64) -> impl Iterator<Item = usize> + '_ {
        self.emu.flush_touches();
        self.emu
            .screen
            .grid()
            .iter()
            .enumerate()
            .filter(move |(_, row)| row.generation() > since)
            .map(|(i, _)| i)
    }

    /// Lines the whole screen scrolled up after the scroll count `since`.
    pub fn scrolled_since(&self, since: u64) -> u64 {
        self.emu.scroll_count.saturating_sub(since)
    }

    /// Takes a snapshot. Rows unchanged since the previous snapshot are
    /// shared with it, so the cost follows what changed.
    pub fn snapshot(&mut self) -> Snapshot {
        self.emu.flush_touches();
        let emu = &mut self.emu;
        let previous = std::mem::take(&mut self.published);
        let mut lines = Vec::with_capacity(emu.rows);
        let shift = (emu.scroll_count as usize).min(emu.rows);
        for (i, row) in emu.screen.grid().iter().enumerate() {
            let reuse = [i, i + shift]
                .into_iter()
                .filter_map(|j| previous.get(j))
                .find(|old| old.generation() == row.generation());
            lines.push(match reuse {
                Some(old) => Arc::clone(old),
                None => Arc::new(row.clone()),
            });
        }
        // The table only grows between compactions, which bump the epoch.
        let renumbered = self.style_epoch != emu.styles.epoch();
        self.styles.update(emu.styles.styles(), renumbered);
        self.style_epoch = emu.styles.epoch();
        if self.links.len() != emu.links.links().len() || self.link_epoch != emu.links.epoch() {
            self.links = Arc::new(emu.links.links().to_vec());
            self.link_epoch = emu.links.epoch();
        }
        if *self.title != *emu.titles.window() {
            self.title = Arc::from(emu.titles.window());
        }
        emu.observed = emu.counter;
        self.published = lines.clone();
        Snapshot {
            cols: emu.cols as u16,
            rows: emu.rows as u16,
            cursor: CursorState {
                row: emu.screen.cursor().row as u16,
                col: emu.screen.cursor().col as u16,
                visible: emu.modes.get(Mode::CursorVisible),
                shape: emu.cursor_shape,
                blink: emu.cursor_blink,
            },
            alternate: emu.alt_active,
            title: Arc::clone(&self.title),
            modes: emu.modes,
            lines,
            styles: self.styles.clone(),
            style_epoch: emu.styles.epoch(),
            links: Arc::clone(&self.links),
            generation: emu.counter,
            scroll_count: emu.scroll_count,
            bells: emu.bells,
            scrollback_len: emu.scrollback.len(),
        }
    }
}

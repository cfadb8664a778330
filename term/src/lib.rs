//! The terminal emulator: a grid driven by its own escape-sequence parser,
//! with no I/O and no async.
//!
//! [`Term`] takes the bytes a program writes, keeps the screen (with
//! scrollback, the alternate screen, modes and styles) and hands out
//! [`Snapshot`]s that share unchanged rows. Every visible row carries a
//! generation number; together with the scroll count this tells a viewer
//! exactly which rows to send.
//!
//! Where things live:
//! - `parser/`: bytes to sequences (the DEC ANSI state machine, UTF-8,
//!   bounds); `action/`: each sequence as a typed `Action`;
//! - `emulator/`: the state those actions change, with private fields, one
//!   file per family of operations (`handler.rs` is the one match on an
//!   action, which calls them;
//!   `edit.rs`, `margins.rs`, `rectangles.rs`, `checksum.rs` for DECRQCRA,
//!   `status_strings.rs` for DECRQSS, `device_reports.rs`, `window_ops.rs`,
//!   `colors.rs`, `clipboard.rs`, `termcap.rs`, `resize.rs`);
//! - `screen.rs`, `grid.rs`, `row.rs`, `cell.rs`, `scrollback.rs`: a screen
//!   buffer and its storage; `reflow.rs`: rewrapping at a new width;
//! - `style.rs`, `sgr.rs`, `links.rs`: styles and hyperlinks; `ref_set.rs`:
//!   the reference-counted set both are interned in, `emulator/interning.rs`:
//!   interning and reclaiming their ids, `published_set.rs`: the sets as
//!   snapshots share them; `modes.rs`: the modes table;
//! - `snapshot.rs`: what viewers are sent; `push_log.rs`: which rows left the
//!   screen for the scrollback unchanged, so viewers may keep their copies;
//! - `palette.rs`: the colour themes, shared with the renderers;
//! - `effect.rs`: what the terminal asks its host to carry out (replies,
//!   clipboard writes): the terminal itself does no I/O;
//! - `persist/`: the whole state written out and read back exactly.

mod action;
mod cell;
mod charset;
mod dcs_request;
mod effect;
mod emulator;
mod grid;
pub mod image;
mod keyboard;
mod links;
mod modes;
pub mod palette;
/// The escape-sequence parser on its own: public so that tests and fuzz
/// targets outside the crate can compare it with another parser (`vte`).
pub mod parser;
mod persist;
mod published_set;
mod push_log;
mod ref_set;
mod reflow;
mod row;
mod screen;
mod scrollback;
mod sgr;
mod snapshot;
mod style;
mod tabstops;
#[cfg(test)]
mod tests;
mod titles;
mod width;

use std::sync::Arc;

pub use cell::Cell;
pub use effect::Effect;
pub use emulator::FileOffer;
pub use keyboard::{KeyboardFlags, KeyboardMode, OtherKeys};
pub use links::Hyperlink;
pub use modes::{Mode, Modes, MouseEncoding, MouseTracking};
pub use persist::{StateError, STATE_VERSION};
pub use published_set::{PublishedSet, SetChunk};
pub use push_log::RecentPushes;
pub use row::Row;
pub use snapshot::{CursorShape, CursorState, Placement, Snapshot};
pub use style::{Attrs, Color, Style, StyleId, Underline};

use emulator::Emulator;

/// Largest width or height accepted, in cells.
pub const MAX_DIMENSION: u16 = 1000;
/// Scrollback lines kept by default.
pub const DEFAULT_SCROLLBACK: usize = 10_000;
/// Width of a cell in px, as window size reports (XTWINOPS) give it and the
/// SVG renderer draws it.
pub const CELL_WIDTH: f64 = 8.4;
/// Height of a cell (the line height) in px, as for [`CELL_WIDTH`].
pub const CELL_HEIGHT: f64 = 17.0;
/// Largest clipboard text (OSC 52) kept, in bytes; the wire's limit for a
/// `Clipboard` message is no smaller (checked where the two meet).
pub const MAX_CLIPBOARD: usize = 64 * 1024;

/// A terminal emulator instance. A clone is a whole copy, the parser's
/// state included (a replay's keyframes are clones).
#[derive(Clone)]
pub struct Term {
    parser: parser::Parser,
    emu: Emulator,
    published: Vec<Arc<Row>>,
    styles: PublishedSet<Style>,
    links: PublishedSet<Hyperlink>,
    title: Arc<str>,
    /// The recent pushes as last published (republished when more were made).
    pushes: RecentPushes,
}

impl Term {
    /// A terminal of `cols` x `rows` keeping `scrollback` lines. Sizes are
    /// clamped to `1..=MAX_DIMENSION`; callers validate user input first.
    pub fn new(cols: u16, rows: u16, scrollback: usize) -> Term {
        let cols = cols.clamp(1, MAX_DIMENSION) as usize;
        let rows = rows.clamp(1, MAX_DIMENSION) as usize;
        Term {
            parser: parser::Parser::new(),
            emu: Emulator::new(cols, rows, scrollback),
            published: Vec::new(),
            styles: PublishedSet::default(),
            links: PublishedSet::default(),
            title: Arc::from(""),
            pushes: RecentPushes::default(),
        }
    }

    /// Bounds the scrollback to `cells` lines x columns, now and after every
    /// resize (a wider terminal keeps fewer lines; the oldest go).
    pub fn limit_scrollback_cells(&mut self, cells: usize) {
        self.emu.limit_scrollback_cells(cells);
    }

    /// Takes files programs offer for download (OSC 1337 File,
    /// `inline=0`) up to `cap` bytes each; 0 (the default) takes none.
    pub fn offer_files(&mut self, cap: u64) {
        self.emu.offer_files(cap);
    }

    /// Bounds inline images: `bytes` of decoded pixels in all (the oldest
    /// images go first past it) and `pixels` in one image.
    pub fn limit_images(&mut self, bytes: u64, pixels: u64) {
        let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
        self.emu.limit_images(bytes, pixels);
    }

    /// Decoded image bytes held now.
    pub fn image_bytes(&self) -> usize {
        self.emu.image_bytes()
    }

    /// Feeds bytes the program wrote. Chunks may split anywhere, UTF-8
    /// characters included.
    pub fn advance(&mut self, bytes: &[u8]) {
        self.emu.meter(u64::MAX);
        self.parser.advance(&mut self.emu, bytes);
    }

    /// Feeds bytes the program wrote until they end or the work meter
    /// reaches `work` (see [`Term::work`]): returns how many bytes were
    /// read. The rest is for the next call, which may come after anything
    /// else (the parser keeps its state), so a host can look at other
    /// things between slices of work. At least one action is always taken.
    pub fn advance_within(&mut self, bytes: &[u8], work: u64) -> usize {
        self.emu.meter(work);
        self.parser.advance(&mut self.emu, bytes)
    }

    /// The work the last [`Term::advance`] or [`Term::advance_within`]
    /// did: one unit per cell printed, erased, moved or restyled, per row
    /// scrolled, and per control or sequence. An escape sequence that
    /// touches a whole screen costs that screen's cells, not its bytes.
    pub fn work(&self) -> u64 {
        self.emu.work()
    }

    /// Takes what the terminal asks its host to carry out: the replies
    /// for the program (at most one [`Effect::Reply`]), then the latest
    /// clipboard write and the latest file offered, if any.
    pub fn take_effects(&mut self) -> impl Iterator<Item = Effect> {
        let replies = self.emu.take_replies();
        let clipboard = self.emu.take_clipboard();
        let file = self.emu.take_file_offer();
        (!replies.is_empty())
            .then_some(Effect::Reply(replies))
            .into_iter()
            .chain(clipboard.map(Effect::Clipboard))
            .chain(file.map(Effect::FileOffer))
    }

    /// Takes only the replies (the bytes of [`Effect::Reply`]), for a host
    /// that carries out nothing else (a replay, `render`, tests).
    pub fn take_replies(&mut self) -> Vec<u8> {
        self.emu.take_replies()
    }

    /// Sets the theme colour queries (OSC 4, 10, 11, 12) are answered from
    /// where the program has not set the colour itself.
    pub fn set_theme(&mut self, theme: &'static palette::ThemeColors) {
        self.emu.set_theme(theme);
    }

    /// Changes the size (clamped to `1..=MAX_DIMENSION`), reflowing the main screen.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        let cols = cols.clamp(1, MAX_DIMENSION) as usize;
        let rows = rows.clamp(1, MAX_DIMENSION) as usize;
        self.emu.resize(cols, rows);
    }

    /// Width in cells.
    pub fn cols(&self) -> u16 {
        self.emu.cols() as u16
    }

    /// Height in cells.
    pub fn rows(&self) -> u16 {
        self.emu.rows() as u16
    }

    /// Current modes (for encoding keys, mouse and paste).
    pub fn modes(&self) -> Modes {
        self.emu.modes()
    }

    /// True while the program holds output with synchronized output (2026).
    pub fn synchronized(&self) -> bool {
        self.emu.modes().get(Mode::SynchronizedOutput)
    }

    /// The window title.
    pub fn title(&self) -> &str {
        self.emu.titles().window()
    }

    /// Bells rung so far.
    pub fn bells(&self) -> u64 {
        self.emu.bells()
    }

    /// The visible row `r`.
    pub fn row(&mut self, r: usize) -> Option<&Row> {
        self.emu.visible_rows().get(r)
    }

    /// Lines held in the scrollback.
    pub fn scrollback_len(&self) -> usize {
        self.emu.scrollback().len()
    }

    /// The images the terminal keeps (screen and scrollback), by hash.
    pub fn images(&self) -> image::ImageSet {
        self.emu.images()
    }

    /// Scrollback line `index`, counted from the oldest, as a row of the current width.
    pub fn scrollback_row(&self, index: usize) -> Option<Row> {
        let line = self.emu.scrollback().get(index)?;
        Some(line.to_row(self.emu.cols(), 0))
    }

    /// The style behind `id` as the terminal defines it now: which
    /// definition it is (its stamp, as in [`PublishedSet::stamp`]), the
    /// style, and its hyperlink.
    pub fn style_now(&self, id: StyleId) -> (u32, Style, Option<&Hyperlink>) {
        let style = self.emu.styles().style(id);
        let link = match style.link {
            0 => None,
            link => self.emu.links().get(link),
        };
        (self.emu.styles().stamp(id.0), style, link)
    }

    /// Heap bytes held by the scrollback's cell storage.
    pub fn scrollback_heap_bytes(&self) -> usize {
        self.emu.scrollback().heap_bytes()
    }

    /// The generation of the newest change.
    pub fn generation(&mut self) -> u64 {
        self.emu.generation()
    }

    /// Marks the current screen as seen and returns its generation: rows
    /// changed after this call get higher generations. `snapshot` does this too.
    pub fn observe(&mut self) -> u64 {
        self.emu.observe()
    }

    /// Indices of the visible rows changed after generation `since`.
    pub fn changed_rows(&mut self, since: u64) -> impl Iterator<Item = usize> + '_ {
        self.emu
            .visible_rows()
            .iter()
            .enumerate()
            .filter(move |(_, row)| row.generation() > since)
            .map(|(i, _)| i)
    }

    /// Lines the whole screen scrolled up after the scroll count `since`.
    pub fn scrolled_since(&self, since: u64) -> u64 {
        self.emu.scroll_count().saturating_sub(since)
    }

    /// Recounts the users of every style and link id and compares them with
    /// the kept counts, which must match; no cell may use a freed id. It
    /// visits every cell, so it is for tests.
    pub fn audit_style_counts(&mut self) -> Result<(), String> {
        self.emu.audit_counts()
    }

    /// Takes a snapshot. Rows unchanged since the previous snapshot are
    /// shared with it, so the cost follows what changed.
    pub fn snapshot(&mut self) -> Snapshot {
        let generation = self.emu.observe();
        let emu = &mut self.emu;
        let previous = std::mem::take(&mut self.published);
        let rows = emu.rows();
        let shift = (emu.scroll_count() as usize).min(rows);
        let mut lines = Vec::with_capacity(rows);
        for (i, row) in emu.visible_rows().iter().enumerate() {
            let reuse = [i, i + shift]
                .into_iter()
                .filter_map(|j| previous.get(j))
                .find(|old| old.generation() == row.generation());
            lines.push(match reuse {
                Some(old) => Arc::clone(old),
                None => Arc::new(row.published()),
            });
        }
        emu.reclaim();
        let (styles, links) = emu.tables_mut();
        self.styles.update(styles);
        self.links.update(links);
        if *self.title != *emu.titles().window() {
            self.title = Arc::from(emu.titles().window());
        }
        self.published = lines.clone();
        if self.pushes.count() != emu.pushes().count() {
            self.pushes = emu.pushes().recent(rows);
        }
        Snapshot {
            cols: emu.cols() as u16,
            rows: rows as u16,
            cursor: emu.cursor_state(),
            alternate: emu.alt_active(),
            title: Arc::clone(&self.title),
            modes: emu.modes(),
            lines,
            styles: self.styles.clone(),
            style_epoch: 0,
            links: self.links.clone(),
            generation,
            scroll_count: emu.scroll_count(),
            pushes: self.pushes.clone(),
            bells: emu.bells(),
            scrollback_len: emu.scrollback().len(),
            images: emu.images(),
        }
    }
}

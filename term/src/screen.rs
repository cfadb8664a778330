//! One screen buffer, the main or the alternate: its rows, its cursor, the
//! cursor DECSC saved on it, and its character sets. The terminal owns two
//! and shows one.

use serde::{Deserialize, Serialize};

use super::charset::Charsets;
use super::grid::Grid;
use super::keyboard::KeyboardStack;
use super::row::Row;
use super::style::Style;

/// Cursor position; `pending_wrap` is set after writing the last column.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Cursor {
    pub row: usize,
    pub col: usize,
    pub pending_wrap: bool,
}

/// What DECSC saves and DECRC restores.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub(crate) struct SavedCursor {
    pub cursor: Cursor,
    pub pen: Style,
    pub charsets: Charsets,
    pub origin: bool,
    /// DECSCA's protection of newly printed cells.
    pub protect: bool,
}

/// One screen buffer.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Screen {
    grid: Grid,
    cursor: Cursor,
    saved: SavedCursor,
    charsets: Charsets,
    /// The kitty keyboard flags stack: each screen has its own.
    #[serde(default)]
    keyboard: KeyboardStack,
}

impl Screen {
    /// A screen showing `rows`, cursor home, nothing saved.
    pub fn new(rows: Vec<Row>) -> Screen {
        Screen {
            grid: Grid::new(rows),
            ..Screen::default()
        }
    }

    /// The rows.
    #[inline]
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The rows, to change.
    #[inline]
    pub fn grid_mut(&mut self) -> &mut Grid {
        &mut self.grid
    }

    /// Replaces the rows (resize, reset), keeping cursor and saved state.
    /// Returns the rows it held, whose style counts the caller withdraws.
    #[must_use]
    pub fn set_rows(&mut self, rows: Vec<Row>) -> Vec<Row> {
        std::mem::replace(&mut self.grid, Grid::new(rows)).into_vec()
    }

    /// Takes the rows out in screen order, leaving the screen empty.
    pub fn take_rows(&mut self) -> Vec<Row> {
        std::mem::take(&mut self.grid).into_vec()
    }

    /// The cursor.
    #[inline]
    pub fn cursor(&self) -> &Cursor {
        &self.cursor
    }

    /// The cursor, to move.
    #[inline]
    pub fn cursor_mut(&mut self) -> &mut Cursor {
        &mut self.cursor
    }

    /// The character sets.
    #[inline]
    pub fn charsets(&self) -> &Charsets {
        &self.charsets
    }

    /// The character sets, to designate and shift.
    #[inline]
    pub fn charsets_mut(&mut self) -> &mut Charsets {
        &mut self.charsets
    }

    /// The kitty keyboard flags stack.
    #[inline]
    pub fn keyboard(&self) -> &KeyboardStack {
        &self.keyboard
    }

    /// The kitty keyboard flags stack, to push, pop or set.
    pub fn keyboard_mut(&mut self) -> &mut KeyboardStack {
        &mut self.keyboard
    }

    /// The saved cursor.
    pub fn saved_cursor(&self) -> &Cursor {
        &self.saved.cursor
    }

    /// The saved cursor, to move with the text on resize.
    pub fn saved_cursor_mut(&mut self) -> &mut Cursor {
        &mut self.saved.cursor
    }

    /// The pen DECSC saved, to renumber its hyperlink when the link table
    /// is compacted.
    pub fn saved_pen_mut(&mut self) -> &mut Style {
        &mut self.saved.pen
    }

    /// DECSC: saves the cursor, the character sets and the given pen,
    /// origin mode and protection.
    pub fn save_cursor(&mut self, pen: Style, origin: bool, protect: bool) {
        self.saved = SavedCursor {
            cursor: self.cursor,
            pen,
            charsets: self.charsets,
            origin,
            protect,
        };
    }

    /// DECRC's part on the screen: the cursor (clamped to `cols` x `rows`,
    /// pending wrap cleared) and the character sets come back. Returns what
    /// was saved so the terminal can restore the pen, origin mode and protection.
    pub fn restore_cursor(&mut self, cols: usize, rows: usize) -> SavedCursor {
        let saved = self.saved;
        self.cursor = Cursor {
            row: saved.cursor.row.min(rows - 1),
            col: saved.cursor.col.min(cols - 1),
            pending_wrap: false,
        };
        self.charsets = saved.charsets;
        saved
    }

    /// Forgets what DECSC saved.
    pub fn forget_saved(&mut self) {
        self.saved = SavedCursor::default();
    }

    /// Resets the character sets to ASCII everywhere.
    pub fn reset_charsets(&mut self) {
        self.charsets = Charsets::default();
    }

    /// Takes over the cursor and character sets of the screen shown before:
    /// switching screens keeps both (as xterm.js).
    pub fn carry_over(&mut self, from: &Screen) {
        self.cursor = from.cursor;
        self.charsets = from.charsets;
    }

    /// Clamps the cursor and the saved cursor into `cols` x `rows`, clearing
    /// pending wraps (after a resize).
    pub fn clamp_cursors(&mut self, cols: usize, rows: usize) {
        for cursor in [&mut self.cursor, &mut self.saved.cursor] {
            cursor.row = cursor.row.min(rows - 1);
            cursor.col = cursor.col.min(cols - 1);
            cursor.pending_wrap = false;
        }
    }
}

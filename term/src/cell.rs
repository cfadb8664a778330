//! One character cell: 8 bytes (a `char`, a style id, a width and flags).

use super::style::{StyleId, StyleTable};

/// One cell of the grid.
///
/// Text that does not fit one `char` (a base character with combining marks or
/// joiners) keeps its first `char` here and the whole cluster in the row's
/// out-of-line table, flagged by [`Cell::has_cluster`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Cell {
    ch: char,
    style: StyleId,
    width: u8,
    flags: u8,
}

const CLUSTER: u8 = 1;
const WIDE_PAD: u8 = 1 << 1;
const PROTECTED: u8 = 1 << 2;

impl Cell {
    /// The cell as a saved state holds it: the `char`, the style id, the
    /// width and the flags, little-endian.
    pub(crate) fn to_bytes(self) -> [u8; 8] {
        let [c0, c1, c2, c3] = (self.ch as u32).to_le_bytes();
        let [s0, s1] = self.style.0.to_le_bytes();
        [c0, c1, c2, c3, s0, s1, self.width, self.flags]
    }

    /// A cell from [`Cell::to_bytes`]; `None` when the first four bytes are
    /// not a `char`.
    pub(crate) fn from_bytes([c0, c1, c2, c3, s0, s1, width, flags]: [u8; 8]) -> Option<Cell> {
        Some(Cell {
            ch: char::from_u32(u32::from_le_bytes([c0, c1, c2, c3]))?,
            style: StyleId(u16::from_le_bytes([s0, s1])),
            width,
            flags,
        })
    }

    /// A never-written cell with the default style.
    pub const EMPTY: Cell = Cell {
        ch: '\0',
        style: StyleId::DEFAULT,
        width: 1,
        flags: 0,
    };

    /// A cell showing `ch`, `width` columns wide (1 or 2).
    #[inline]
    pub fn new(ch: char, style: StyleId, width: u8) -> Cell {
        Cell {
            ch,
            style,
            width,
            flags: 0,
        }
    }

    /// The same cell shown `width` columns wide (a cluster that a VS16 or a
    /// joined emoji widened, or a VS15 narrowed).
    #[inline]
    pub(crate) fn with_width(self, width: u8) -> Cell {
        Cell { width, ..self }
    }

    /// The cell as one byte, when it is an ASCII character (or never
    /// written) in the default style, one column wide, with no flags: the
    /// scrollback keeps such lines a byte a cell.
    #[inline]
    pub(crate) fn plain_byte(self) -> Option<u8> {
        let plain = (self.ch as u32) < 0x80
            && self.style == StyleId::DEFAULT
            && self.width == 1
            && self.flags == 0;
        plain.then_some(self.ch as u8)
    }

    /// The cell [`Cell::plain_byte`] made `byte` from.
    #[inline]
    pub(crate) fn from_plain_byte(byte: u8) -> Cell {
        Cell {
            ch: char::from(byte),
            ..Cell::EMPTY
        }
    }

    /// An empty cell carrying `style` (what erase leaves behind).
    #[inline]
    pub fn blank(style: StyleId) -> Cell {
        Cell {
            style,
            ..Cell::EMPTY
        }
    }

    /// The right half of a wide character.
    #[inline]
    pub fn spacer(style: StyleId) -> Cell {
        Cell {
            ch: '\0',
            style,
            width: 0,
            flags: 0,
        }
    }

    /// The blank left in the last column when a wide character wrapped to the
    /// next line; reflow drops it.
    pub fn wide_pad(style: StyleId) -> Cell {
        Cell {
            flags: WIDE_PAD,
            ..Cell::blank(style)
        }
    }

    /// The character shown (the first of a cluster); `'\0'` for an empty cell.
    #[inline]
    pub fn ch(&self) -> char {
        self.ch
    }

    /// The style id.
    #[inline]
    pub fn style(&self) -> StyleId {
        self.style
    }

    /// Replaces the style id (used when the style table is compacted).
    #[inline]
    pub fn set_style(&mut self, style: StyleId) {
        self.style = style;
    }

    /// 1 for a normal cell, 2 for the left half of a wide character, 0 for its right half.
    #[inline]
    pub fn width(&self) -> u8 {
        self.width
    }

    /// True when nothing was ever written here (or it was erased).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ch == '\0' && self.width == 1
    }

    /// True when the cell is empty and has the default style: trailing cells
    /// like this need not be stored.
    #[inline]
    pub fn is_default_blank(&self) -> bool {
        self.is_empty() && self.style == StyleId::DEFAULT
    }

    /// True when the row holds a longer text for this cell.
    #[inline]
    pub fn has_cluster(&self) -> bool {
        self.flags & CLUSTER != 0
    }

    /// Marks that the row holds a longer text for this cell.
    #[inline]
    pub fn mark_cluster(&mut self) {
        self.flags |= CLUSTER;
    }

    /// Marks the cell as protected from selective erase (DECSCA).
    #[inline]
    pub fn mark_protected(&mut self) {
        self.flags |= PROTECTED;
    }

    /// True when selective erase (DECSED, DECSEL) must leave the cell alone.
    #[inline]
    pub fn is_protected(&self) -> bool {
        self.flags & PROTECTED != 0
    }

    /// True when overwriting the cell must repair more than the cell: it is
    /// half of a wide character or holds a cluster (the write paths that
    /// handle only single-width cells leave it to the general path).
    #[inline]
    pub fn needs_repair(&self) -> bool {
        self.width != 1 || self.has_cluster()
    }

    /// True for the pad left by a wide character that wrapped.
    #[inline]
    pub fn is_wide_pad(&self) -> bool {
        self.flags & WIDE_PAD != 0
    }
}

impl Default for Cell {
    fn default() -> Self {
        Cell::EMPTY
    }
}

impl StyleTable {
    /// Counts the cells as users of their styles; returns true when some
    /// cell has a style other than the default.
    pub fn retain_cells(&mut self, cells: &[Cell]) -> bool {
        let mut styled = false;
        for (id, n) in style_runs(cells) {
            self.retain(id.0, n);
            styled = true;
        }
        styled
    }

    /// Stops counting the cells as users of their styles.
    pub fn release_cells(&mut self, cells: &[Cell]) {
        for (id, n) in style_runs(cells) {
            self.release(id.0, n);
        }
    }
}

/// The runs of cells that share a style other than the default, as (style,
/// length): text is written in runs, so counting per run is cheaper than
/// per cell.
pub fn style_runs(cells: &[Cell]) -> impl Iterator<Item = (StyleId, u32)> + '_ {
    cells
        .chunk_by(|a, b| a.style() == b.style())
        .map(|run| (run[0].style(), run.len() as u32))
        .filter(|&(id, _)| id != StyleId::DEFAULT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_is_at_most_twelve_bytes() {
        assert!(std::mem::size_of::<Cell>() <= 12);
        assert_eq!(std::mem::size_of::<Cell>(), 8);
    }
}

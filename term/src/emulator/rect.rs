//! Rectangular areas (VT420 rectangle operations): how `Pt;Pl;Pb;Pr`
//! parameters become a rectangle of cells.

use super::Emulator;
use crate::modes::Mode;

/// A rectangle of cells: zero-based, inclusive, inside the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rect {
    pub top: usize,
    pub left: usize,
    pub bottom: usize,
    pub right: usize,
}

impl Rect {
    /// The rows, top to bottom.
    pub fn rows(&self) -> std::ops::RangeInclusive<usize> {
        self.top..=self.bottom
    }
}

impl Emulator {
    /// The rectangle `top;left;bottom;right` names (1-based; 0 means the
    /// default: the top-left corner, or the bottom-right one for the last
    /// two). In origin mode the coordinates count from the corner of the
    /// region the margins enclose and are clamped to it, as in xterm. `None` when it is empty.
    pub fn rect_from(&self, top: u16, left: u16, bottom: u16, right: u16) -> Option<Rect> {
        let (row0, row_max) = if self.modes.get(Mode::Origin) {
            (self.region.top, self.region.bottom)
        } else {
            (0, self.rows - 1)
        };
        let (col0, col_max) = if self.modes.get(Mode::Origin) {
            (self.region.left, self.region.right)
        } else {
            (0, self.cols - 1)
        };
        let start = |p: u16, origin: usize| origin + (p.max(1) as usize - 1);
        let end = |p: u16, origin: usize, max: usize| match p {
            0 => max,
            p => (origin + p as usize - 1).min(max),
        };
        let rect = Rect {
            top: start(top, row0),
            left: start(left, col0),
            bottom: end(bottom, row0, row_max),
            right: end(right, col0, col_max),
        };
        (rect.top <= rect.bottom && rect.left <= rect.right).then_some(rect)
    }
}

//! What one row holds of a placed image.

use serde::{Deserialize, Serialize};

use super::ImageHash;

/// A rectangle of an image's pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PixelRect {
    /// Left edge, in pixels.
    pub x: u32,
    /// Top edge, in pixels.
    pub y: u32,
    /// Width in pixels.
    pub w: u32,
    /// Height in pixels.
    pub h: u32,
}

/// One row's share of a placement: the placement's whole geometry (so a
/// painter draws the placement's source rectangle into its destination
/// and clips it to this row), plus the columns of this row it still shows.
///
/// Geometry is in the terminal's own pixels: cells of `CELL_WIDTH` x
/// `CELL_HEIGHT` rounded (8 x 17, what XTWINOPS reports); a viewer with other
/// cells scales both axes by its cell size over these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSlice {
    image: ImageHash,
    placement: u32,
    col: u16,
    row: u16,
    visible: (u16, u16),
    src: PixelRect,
    size: (u32, u32),
    z: i32,
    text_cuts: bool,
}

impl ImageSlice {
    /// The slice of row `row` (0 for the placement's first row) of a
    /// placement showing `src` of `image` at `size` pixels from column
    /// `col`, over `cols` columns. `text_cuts`: text written over its cells
    /// replaces them (sixel, iTerm2), or not (kitty).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        image: ImageHash,
        placement: u32,
        col: u16,
        row: u16,
        cols: u16,
        src: PixelRect,
        size: (u32, u32),
        z: i32,
        text_cuts: bool,
    ) -> ImageSlice {
        ImageSlice {
            image,
            placement,
            col,
            row,
            visible: (col, col.saturating_add(cols)),
            src,
            size,
            z,
            text_cuts,
        }
    }

    /// The image shown.
    pub fn image(&self) -> ImageHash {
        self.image
    }

    /// The placement this slice belongs to: unique per terminal, the same
    /// on every row of one placement.
    pub fn placement(&self) -> u32 {
        self.placement
    }

    /// The placement's left column.
    pub fn col(&self) -> u16 {
        self.col
    }

    /// Which row of the placement this is (0: its top row).
    pub fn row(&self) -> u16 {
        self.row
    }

    /// The columns of this row the slice shows, `start..end`: the
    /// placement's columns, less what text or erases cut away.
    pub fn visible(&self) -> (u16, u16) {
        self.visible
    }

    /// The part of the image shown by the whole placement.
    pub fn src(&self) -> PixelRect {
        self.src
    }

    /// The placement's size on the terminal, in pixels, from its left
    /// column and top row.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// Its z-index: below 0 under text, otherwise over it; higher on top.
    pub fn z(&self) -> i32 {
        self.z
    }

    /// True when its columns lie in a row `cols` wide and show something:
    /// what a slice read from another process must be.
    pub(crate) fn fits(&self, cols: usize) -> bool {
        let (start, end) = self.visible;
        start < end && end as usize <= cols && self.src.w > 0 && self.src.h > 0
    }

    /// True when text written over its cells replaces them.
    pub(crate) fn text_cuts(&self) -> bool {
        self.text_cuts
    }

    /// This slice with only columns `start..end` (of what it showed) kept,
    /// `None` when nothing is left.
    pub fn keep(mut self, start: u16, end: u16) -> Option<ImageSlice> {
        let start = start.max(self.visible.0);
        let end = end.min(self.visible.1);
        if start >= end {
            return None;
        }
        self.visible = (start, end);
        Some(self)
    }
}

/// Removes columns `start..end` from the slices in `slices` that `cut`
/// selects: a slice cut in the middle becomes two.
pub(crate) fn cut(
    slices: &mut Vec<ImageSlice>,
    start: u16,
    end: u16,
    cut: impl Fn(&ImageSlice) -> bool,
) {
    let mut i = 0;
    while i < slices.len() {
        let s = slices[i];
        let (a, b) = s.visible;
        if !cut(&s) || end <= a || start >= b {
            i += 1;
            continue;
        }
        slices.remove(i);
        for part in [s.keep(a, start), s.keep(end, b)].into_iter().flatten() {
            slices.insert(i, part);
            i += 1;
        }
    }
}

//! An immutable picture of the screen, cheap to publish: rows are shared
//! with the previous snapshot unless they changed.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::image::{Image, ImageHash, ImageSet, ImageSlice};
use super::links::Hyperlink;
use super::modes::Modes;
use super::published_set::PublishedSet;
use super::push_log::RecentPushes;
use super::row::Row;
use super::style::{Style, StyleId};

/// Cursor shapes a program can ask for with DECSCUSR.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub enum CursorShape {
    /// A filled block.
    #[default]
    Block,
    /// A line under the cell.
    Underline,
    /// A vertical bar at the left of the cell.
    Bar,
}

/// Where the cursor is and how it looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CursorState {
    /// Zero-based row.
    pub row: u16,
    /// Zero-based column.
    pub col: u16,
    /// DECTCEM.
    pub visible: bool,
    /// DECSCUSR shape.
    pub shape: CursorShape,
    /// Whether it blinks.
    pub blink: bool,
}

/// A placement on the screen, as [`Snapshot::placements`] gathers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Unique per placement in this terminal.
    pub id: u32,
    /// The image shown.
    pub image: ImageHash,
    /// The screen row of the placement's top (negative above the screen).
    pub top: i32,
    /// The first and last visible rows that show it.
    pub first_row: u16,
    pub last_row: u16,
    /// Its first visible slice: the geometry, source rectangle and z-index.
    pub slice: ImageSlice,
}

/// The screen at one moment.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Width in cells.
    pub cols: u16,
    /// Height in cells.
    pub rows: u16,
    /// The cursor.
    pub cursor: CursorState,
    /// True while the alternate screen is shown.
    pub alternate: bool,
    /// The window title (OSC 0/2).
    pub title: Arc<str>,
    /// Every mode's value.
    pub modes: Modes,
    /// The visible rows, top to bottom.
    pub lines: Vec<Arc<Row>>,
    /// The style table the rows' ids refer to. An id's stamp changes when
    /// it is freed and reused for another style.
    pub styles: PublishedSet<Style>,
    /// Changes when style ids were renumbered: caches keyed by id must
    /// reset. A terminal never renumbers (ids are reference-counted and
    /// reused); a replay does when it seeks to another keyframe.
    pub style_epoch: u32,
    /// Hyperlinks by id; a style's `link` is one (0 means none).
    pub links: PublishedSet<Hyperlink>,
    /// Every row with a generation above this changed after the snapshot.
    pub generation: u64,
    /// Lines scrolled up on the whole screen so far (the scroll hint's basis).
    pub scroll_count: u64,
    /// The rows pushed into the scrollback so far, the last screenful with
    /// the generations they had.
    pub pushes: RecentPushes,
    /// Bells rung so far.
    pub bells: u64,
    /// Lines in the scrollback.
    pub scrollback_len: usize,
    /// The images the rows' slices show, by hash (see [`Snapshot::image`]).
    pub images: ImageSet,
}

impl Snapshot {
    /// The style behind an id (default for unknown ids).
    pub fn style(&self, id: StyleId) -> Style {
        self.styles.get(id.0 as usize).copied().unwrap_or_default()
    }

    /// The image slices on visible row `row` (top is 0), bottom first:
    /// each names its image, its placement's cell rectangle and source
    /// rectangle, and its z-index. A row's generation changes whenever its
    /// slices do, so the rows to resend say which placements moved.
    pub fn row_images(&self, row: usize) -> &[ImageSlice] {
        self.lines.get(row).map_or(&[], |line| line.images())
    }

    /// The placements visible on the screen, merged from the rows' slices:
    /// one per placement, with the rows it shows (its top may be above the
    /// screen, its bottom below).
    pub fn placements(&self) -> Vec<Placement> {
        let mut out: Vec<Placement> = Vec::new();
        for (r, line) in self.lines.iter().enumerate() {
            for slice in line.images() {
                let top = r as i32 - i32::from(slice.row());
                match out.iter_mut().find(|p| p.id == slice.placement()) {
                    Some(p) => p.last_row = r as u16,
                    None => out.push(Placement {
                        id: slice.placement(),
                        image: slice.image(),
                        top,
                        first_row: r as u16,
                        last_row: r as u16,
                        slice: *slice,
                    }),
                }
            }
        }
        out
    }

    /// The image with this hash, if the snapshot holds it: its pixels, and
    /// [`Image::png`] for them as a PNG file (encoded once per image).
    pub fn image(&self, hash: ImageHash) -> Option<&Arc<Image>> {
        self.images.get(hash)
    }

    /// The hyperlink of a style, if any.
    pub fn link(&self, style: &Style) -> Option<&Hyperlink> {
        match style.link {
            0 => None,
            id => self.links.get(id as usize),
        }
    }
}

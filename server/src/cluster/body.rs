//! What a message says about a snapshot: the changes from a base snapshot,
//! or (with no base) all of it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use panecast_term::image::{ImageHash, ImageSet, Picture, DEFAULT_IMAGE_BYTES};
use panecast_term::{
    CursorState, Hyperlink, Modes, PublishedSet, RecentPushes, Row, SetChunk, Snapshot, Style,
    MAX_DIMENSION,
};

/// One run of visible rows.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Line {
    /// `count` rows that are the base's rows from `from` on.
    Base {
        /// The base's first row of the run.
        from: u16,
        /// Rows in the run.
        count: u16,
    },
    /// A row not in the base.
    Row(Arc<Row>),
}

/// The chunks of a published table that changed, and its length.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct SetDelta<T> {
    len: u32,
    chunks: Vec<(u32, SetChunk<T>)>,
}

impl<T: Clone> SetDelta<T> {
    fn diff(base: &PublishedSet<T>, next: &PublishedSet<T>) -> SetDelta<T> {
        SetDelta {
            // At most 2^16 ids.
            len: next.len() as u32,
            chunks: next.changed_chunks(base),
        }
    }

    fn apply(self, base: &PublishedSet<T>) -> Result<PublishedSet<T>, &'static str> {
        base.with_chunks(self.len as usize, self.chunks)
    }
}

/// Most decoded image bytes a mirror holds for one session: eight times
/// the default budget, so an owner configured above the default is still
/// mirrored, and a hostile message cannot make a mirror allocate more.
const MAX_MIRROR_IMAGE_BYTES: usize = 8 * DEFAULT_IMAGE_BYTES;

/// The images that changed: those the base holds that are gone, and the
/// new ones as pictures. Each image crosses the link once, when it first
/// appears in the owner's snapshot (or in a whole snapshot's chunks).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct ImagesDelta {
    removed: Vec<ImageHash>,
    added: Vec<Picture>,
}

impl ImagesDelta {
    fn diff(base: Option<&ImageSet>, next: &ImageSet) -> ImagesDelta {
        let in_base = |hash| base.is_some_and(|b| b.get(hash).is_some());
        ImagesDelta {
            removed: base.map_or_else(Vec::new, |b| {
                b.iter()
                    .map(|i| i.hash())
                    .filter(|h| next.get(*h).is_none())
                    .collect()
            }),
            added: next
                .iter()
                .filter(|i| !in_base(i.hash()))
                .map(|i| Picture::of(i))
                .collect(),
        }
    }

    /// The base's images changed, each new picture decoded within what
    /// is left of [`MAX_MIRROR_IMAGE_BYTES`].
    fn apply(self, base: Option<&ImageSet>) -> Result<ImageSet, &'static str> {
        let empty = ImageSet::default();
        let base = base.unwrap_or(&empty);
        if self.removed.iter().any(|h| base.get(*h).is_none()) {
            return Err("an image removed that the base does not hold");
        }
        let mut bytes: usize = base
            .iter()
            .filter(|i| !self.removed.contains(&i.hash()))
            .map(|i| i.bytes())
            .sum();
        let mut added = Vec::with_capacity(self.added.len().min(64));
        for picture in &self.added {
            if base.get(picture.hash()).is_some() {
                return Err("an image added that the base holds");
            }
            let room = MAX_MIRROR_IMAGE_BYTES.saturating_sub(bytes) as u64 / 4;
            let image = picture.decode(room)?;
            bytes += image.bytes();
            added.push(image);
        }
        Ok(base.changed(&self.removed, added))
    }
}

/// A snapshot as changes from a base (or from nothing).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Body {
    cols: u16,
    rows: u16,
    cursor: CursorState,
    alternate: bool,
    modes: Modes,
    style_epoch: u32,
    generation: u64,
    scroll_count: u64,
    bells: u64,
    scrollback_len: u64,
    /// `None`: the base's.
    title: Option<Arc<str>>,
    lines: Vec<Line>,
    styles: SetDelta<Style>,
    links: SetDelta<Hyperlink>,
    /// `None`: the base's.
    pushes: Option<RecentPushes>,
    images: ImagesDelta,
}

/// Where in `base` a row of `next` at `index` is found, when it is there.
fn find_in_base(base: &Snapshot, row: &Arc<Row>, index: usize, shift: usize) -> Option<usize> {
    let candidates = [index, index + shift];
    if let Some(&j) = candidates
        .iter()
        .find(|&&j| base.lines.get(j).is_some_and(|old| Arc::ptr_eq(old, row)))
    {
        return Some(j);
    }
    candidates.into_iter().find(|&j| {
        base.lines
            .get(j)
            .is_some_and(|old| old.generation() == row.generation() && **old == **row)
    })
}

impl Body {
    /// Cells in the rows it carries: what holding it costs, roughly.
    pub(crate) fn cells(&self) -> usize {
        self.lines
            .iter()
            .map(|line| match line {
                Line::Base { .. } => 0,
                Line::Row(row) => row.cells().len(),
            })
            .sum()
    }

    /// Pictures it carries: new images, each sent once.
    #[cfg(test)]
    pub(crate) fn pictures(&self) -> usize {
        self.images.added.len()
    }

    /// `next` as changes from `base`, or whole without one.
    pub(crate) fn diff(base: Option<&Snapshot>, next: &Snapshot) -> Body {
        let empty_styles = PublishedSet::default();
        let empty_links = PublishedSet::default();
        let shift = base.map_or(0, |b| {
            next.scroll_count.saturating_sub(b.scroll_count) as usize
        });
        let mut lines: Vec<Line> = Vec::new();
        for (i, row) in next.lines.iter().enumerate() {
            match base.and_then(|b| find_in_base(b, row, i, shift)) {
                Some(j) => match lines.last_mut() {
                    Some(Line::Base { from, count }) if (*from + *count) as usize == j => {
                        *count += 1;
                    }
                    // Indices are under MAX_DIMENSION.
                    _ => lines.push(Line::Base {
                        from: j as u16,
                        count: 1,
                    }),
                },
                None => lines.push(Line::Row(Arc::clone(row))),
            }
        }
        Body {
            cols: next.cols,
            rows: next.rows,
            cursor: next.cursor,
            alternate: next.alternate,
            modes: next.modes,
            style_epoch: next.style_epoch,
            generation: next.generation,
            scroll_count: next.scroll_count,
            bells: next.bells,
            scrollback_len: next.scrollback_len as u64,
            title: match base {
                Some(b) if b.title == next.title => None,
                _ => Some(Arc::clone(&next.title)),
            },
            lines,
            styles: SetDelta::diff(base.map_or(&empty_styles, |b| &b.styles), &next.styles),
            links: SetDelta::diff(base.map_or(&empty_links, |b| &b.links), &next.links),
            pushes: match base {
                Some(b) if b.pushes.same_as(&next.pushes) => None,
                _ => Some(next.pushes.clone()),
            },
            images: ImagesDelta::diff(base.map(|b| &b.images), &next.images),
        }
    }

    /// The snapshot these changes make of `base`; an error when they do
    /// not fit it or do not make a whole screen.
    pub(crate) fn apply(self, base: Option<&Snapshot>) -> Result<Snapshot, &'static str> {
        let (cols, rows) = (self.cols as usize, self.rows as usize);
        let max = MAX_DIMENSION as usize;
        if !(1..=max).contains(&cols) || !(1..=max).contains(&rows) {
            return Err("size out of range");
        }
        if self.cursor.row as usize >= rows || self.cursor.col as usize >= cols {
            return Err("cursor off the screen");
        }
        let empty_styles = PublishedSet::default();
        let empty_links = PublishedSet::default();
        let mut lines = Vec::with_capacity(rows);
        for line in self.lines {
            match line {
                Line::Base { from, count } => {
                    let base = base.ok_or("a row of a base without one")?;
                    let (from, count) = (from as usize, count as usize);
                    let rows = base
                        .lines
                        .get(from..from + count)
                        .ok_or("a row past the base's")?;
                    lines.extend(rows.iter().cloned());
                }
                Line::Row(row) => lines.push(row),
            }
            if lines.len() > rows {
                return Err("more rows than the height");
            }
        }
        if lines.len() != rows || !lines.iter().all(|row| row.fits(cols)) {
            return Err("rows do not fit the size");
        }
        let title = match (self.title, base) {
            (Some(title), _) => title,
            (None, Some(base)) => Arc::clone(&base.title),
            (None, None) => return Err("no title without a base"),
        };
        let pushes = match (self.pushes, base) {
            (Some(pushes), _) => pushes,
            (None, Some(base)) => base.pushes.clone(),
            (None, None) => return Err("no pushes without a base"),
        };
        if !pushes.is_consistent() {
            return Err("pushes inconsistent");
        }
        Ok(Snapshot {
            cols: self.cols,
            rows: self.rows,
            cursor: self.cursor,
            alternate: self.alternate,
            title,
            modes: self.modes,
            lines,
            styles: self
                .styles
                .apply(base.map_or(&empty_styles, |b| &b.styles))?,
            style_epoch: self.style_epoch,
            links: self.links.apply(base.map_or(&empty_links, |b| &b.links))?,
            generation: self.generation,
            scroll_count: self.scroll_count,
            pushes,
            bells: self.bells,
            scrollback_len: usize::try_from(self.scrollback_len)
                .map_err(|_| "scrollback length out of range")?,
            images: self.images.apply(base.map(|b| &b.images))?,
        })
    }
}

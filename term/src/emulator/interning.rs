//! Style and link ids: interning, and reclaiming the ids nothing uses.
//!
//! Both tables are reference-counted sets (`ref_set.rs`). A style counts
//! the cells that use it: scrollback cells as they are stored and dropped,
//! screen rows lazily through their tallies. A link counts the live styles
//! that point to it. The pens are held outside the counts: the current pen's
//! style and erase style, and the links of the pen and of the saved cursors.
//!
//! Reclaiming settles the tallies of the rows that changed since they last
//! did, then frees the pending ids still unused: the work follows what
//! changed, never the size of the screen or the scrollback, so no stream of
//! new styles can make each one cost a scan.

use super::Emulator;
use crate::cell::Cell;
use crate::links::{Hyperlink, MAX_URI_BYTES};
use crate::ref_set::Interned;
use crate::row::Row;
use crate::style::{Style, StyleId};

impl Emulator {
    /// The id of `style`. When every id is in use, unused ones are reclaimed
    /// first; if none is, the style falls back to the default one.
    pub fn intern(&mut self, style: Style) -> StyleId {
        match self.styles.intern(&style) {
            Interned::Found(id) => StyleId(id),
            Interned::Added(id) => self.added_style(id, &style),
            Interned::Full => {
                self.reclaim();
                match self.styles.intern(&style) {
                    Interned::Found(id) => StyleId(id),
                    Interned::Added(id) => self.added_style(id, &style),
                    Interned::Full => StyleId::DEFAULT,
                }
            }
        }
    }

    fn added_style(&mut self, id: u16, style: &Style) -> StyleId {
        self.links.retain(style.link, 1);
        StyleId(id)
    }

    /// The id of `link` (0, no link, when it is refused: too long, or the
    /// table is full of links still in use).
    pub fn intern_link(&mut self, link: Hyperlink) -> u16 {
        if link.uri.len() > MAX_URI_BYTES {
            return 0;
        }
        match self.links.intern(&link) {
            Interned::Found(id) | Interned::Added(id) => id,
            Interned::Full => {
                self.reclaim();
                match self.links.intern(&link) {
                    Interned::Found(id) | Interned::Added(id) => id,
                    Interned::Full => 0,
                }
            }
        }
    }

    /// Settles every changed row's tally, then frees the unused styles and
    /// after them the links only those styles used.
    pub fn reclaim(&mut self) {
        self.settle_tallies();
        if !self.styles.has_pending() && !self.links.has_pending() {
            return;
        }
        let styles = &mut self.styles;
        let (pen, erase) = (self.pen.id, self.pen.erase_id);
        let freed = styles.sweep(|id| StyleId(id) == pen || erase == Some(StyleId(id)));
        for style in freed {
            self.links.release(style.link, 1);
        }
        let pens = [
            self.pen.style.link,
            self.pen.interned.link,
            self.screen.saved_pen_mut().link,
            self.hidden.saved_pen_mut().link,
        ];
        self.links.sweep(|id| pens.contains(&id));
    }

    /// Recounts every user of every style and link from scratch and
    /// compares with the kept counts; also checks that no cell or style
    /// refers to a freed id. It visits every cell: for tests.
    pub fn audit_counts(&mut self) -> Result<(), String> {
        self.settle_tallies();
        let mut cells = vec![0u32; self.styles.values().len()];
        let styles = &self.styles;
        let mut count = |line: &[Cell]| {
            for cell in line {
                let id = cell.style().0;
                if !styles.is_live(id) {
                    return Err(format!("a cell uses freed style {id}"));
                }
                cells[id as usize] += 1;
            }
            Ok(())
        };
        let mut stored = Vec::new();
        for line in (0..self.scrollback.len()).filter_map(|i| self.scrollback.get(i)) {
            stored.clear();
            line.extend_cells(&mut stored);
            count(&stored)?;
        }
        for row in self.screen.grid().iter().chain(self.hidden.grid().iter()) {
            count(row.cells())?;
        }
        let mut links = vec![0u32; self.links.values().len()];
        for (id, style) in self.styles.values().iter().enumerate().skip(1) {
            let id = id as u16;
            if !self.styles.is_live(id) {
                continue;
            }
            if self.styles.refs(id) != cells[id as usize] {
                return Err(format!(
                    "style {id}: {} users counted, {} found",
                    self.styles.refs(id),
                    cells[id as usize]
                ));
            }
            if !self.links.is_live(style.link) {
                return Err(format!("style {id} uses freed link {}", style.link));
            }
            links[style.link as usize] += 1;
        }
        for (id, &found) in links.iter().enumerate().skip(1) {
            let counted = self.links.refs(id as u16);
            if self.links.is_live(id as u16) && counted != found {
                return Err(format!(
                    "link {id}: {counted} styles counted, {found} found"
                ));
            }
        }
        Ok(())
    }

    /// Brings the counts up to date with the rows changed since they last
    /// were (a row that did not change costs one flag test).
    fn settle_tallies(&mut self) {
        let styles = &mut self.styles;
        for row in self
            .screen
            .grid_mut()
            .storage_mut()
            .chain(self.hidden.grid_mut().storage_mut())
        {
            row.update_tally(styles);
        }
    }

    /// Withdraws the counts of rows leaving the terminal.
    pub fn retire_rows(&mut self, rows: impl IntoIterator<Item = Row>) {
        for mut row in rows {
            row.release_tally(&mut self.styles);
        }
    }
}

//! Keeping hyperlinks when the link table is full: the links no cell shows
//! any more are dropped and the rest renumbered, in the style table and in
//! every pen that may still print with them.

use super::Emulator;
use crate::term::links::Hyperlink;

impl Emulator {
    /// The id of `link` (0, no link, when it is refused: too long, or the
    /// table is full of links still shown).
    pub fn intern_link(&mut self, link: Hyperlink) -> u16 {
        if let Some(id) = self.links.intern(link.clone()) {
            return id;
        }
        if !self.links.compaction_due() {
            return 0;
        }
        self.compact_links();
        self.links.intern(link).unwrap_or(0)
    }

    /// Drops the links no live style or pen refers to. Styles are compacted
    /// first, so a link used only by styles no cell shows is freed too.
    fn compact_links(&mut self) {
        let cells = self.compact_styles();
        let mut used = vec![false; self.links.links().len() + 1];
        let pens = [
            self.pen,
            self.interned_pen,
            *self.screen.saved_pen_mut(),
            *self.hidden.saved_pen_mut(),
        ];
        for style in self.styles.styles().iter().chain(&pens) {
            if let Some(used) = used.get_mut(style.link as usize) {
                *used = true;
            }
        }
        let remap = self.links.compact(&used, cells);
        self.styles.remap_links(&remap);
        for pen in [
            &mut self.pen,
            &mut self.interned_pen,
            self.screen.saved_pen_mut(),
            self.hidden.saved_pen_mut(),
        ] {
            pen.link = remap.get(pen.link as usize).copied().unwrap_or(0);
        }
    }
}

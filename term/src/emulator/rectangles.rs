//! VT420 rectangle operations: DECFRA (fill), DECERA (erase), DECSERA
//! (selective erase), DECCRA (copy), DECCARA and DECRARA (change and reverse
//! attributes), with DECSACE choosing whether the attribute changes cover
//! the rectangle or the character stream between its corners.

use std::collections::HashMap;

use super::rect::Rect;
use super::Emulator;
use crate::cell::Cell;
use crate::style::{Attrs, Style, StyleId, Underline};

/// The SGR attributes DECCARA and DECRARA may change.
#[derive(Clone, Copy, Default)]
struct AttrChange {
    /// Attributes to set (DECCARA) or toggle (DECRARA).
    on: Attrs,
    /// Attributes to clear (DECCARA only).
    off: Attrs,
    /// Underline: set (`Some(true)`), clear (`Some(false)`) or toggle.
    underline: Option<bool>,
}

impl AttrChange {
    /// Reads the SGR parameters of DECCARA/DECRARA (0, 1, 4, 5, 7 and their
    /// 22-27 resets; others are ignored, as on a VT420).
    fn from_params(params: &[u16]) -> AttrChange {
        let mut change = AttrChange::default();
        for &p in params {
            match p {
                0 => {
                    change.off.set(Attrs::BOLD, true);
                    change.off.set(Attrs::BLINK, true);
                    change.off.set(Attrs::INVERSE, true);
                    change.underline = Some(false);
                }
                1 => change.on.set(Attrs::BOLD, true),
                4 => change.underline = Some(true),
                5 => change.on.set(Attrs::BLINK, true),
                7 => change.on.set(Attrs::INVERSE, true),
                22 => change.off.set(Attrs::BOLD, true),
                24 => change.underline = Some(false),
                25 => change.off.set(Attrs::BLINK, true),
                27 => change.off.set(Attrs::INVERSE, true),
                _ => {}
            }
        }
        change
    }

    /// DECCARA: sets `on`, clears `off` and sets or clears the underline.
    fn apply(&self, style: &mut Style) {
        for attr in [Attrs::BOLD, Attrs::BLINK, Attrs::INVERSE] {
            if self.off.contains(attr) {
                style.attrs.set(attr, false);
            }
            if self.on.contains(attr) {
                style.attrs.set(attr, true);
            }
        }
        match self.underline {
            Some(true) => style.underline = Underline::Single,
            Some(false) => style.underline = Underline::None,
            None => {}
        }
    }

    /// DECRARA: toggles what `on` and the underline name.
    fn toggle(&self, style: &mut Style) {
        for attr in [Attrs::BOLD, Attrs::BLINK, Attrs::INVERSE] {
            if self.on.contains(attr) {
                style.attrs.set(attr, !style.attrs.contains(attr));
            }
        }
        if self.underline == Some(true) {
            style.underline = match style.underline {
                Underline::None => Underline::Single,
                _ => Underline::None,
            };
        }
    }
}

impl Emulator {
    /// DECFRA: fills the rectangle with `ch` in the current pen. Only
    /// printable characters (32-126, 160-255) fill; others are ignored.
    pub fn fill_rect(&mut self, ch: u16, rect: Option<Rect>) {
        let printable = matches!(ch, 32..=126 | 160..=255);
        let (Some(rect), true) = (rect, printable) else {
            return;
        };
        let c = char::from(ch as u8);
        let c = if self.screen.charsets().is_mapping() {
            self.screen.charsets().map(c)
        } else {
            c
        };
        let pen = self.pen();
        let mut cell = Cell::new(c, pen, 1);
        if self.protect {
            cell.mark_protected();
        }
        for r in rect.rows() {
            self.erase_cells(r, rect.left, rect.right + 1);
            self.screen.grid_mut()[r].fill(rect.left, rect.right + 1, cell);
        }
    }

    /// DECERA (or DECSERA when `selective`): erases the rectangle, sparing
    /// DECSCA-protected cells when `selective` (an ISO protected area, from
    /// SPA, does not count, as in xterm).
    pub fn erase_rect(&mut self, rect: Option<Rect>, selective: bool) {
        let Some(rect) = rect else { return };
        let spare_protected = selective && !self.iso_protection;
        for r in rect.rows() {
            if spare_protected {
                self.erase_unprotected(r, rect.left, rect.right + 1);
            } else {
                self.erase_cells(r, rect.left, rect.right + 1);
            }
        }
    }

    /// DECCRA: copies the rectangle to `dest_top`/`dest_left` (1-based,
    /// origin-relative like the source), clipped at the screen's edges.
    /// Overlapping copies read the source before writing.
    pub fn copy_rect(&mut self, source: Option<Rect>, dest_top: u16, dest_left: u16) {
        let Some(source) = source else { return };
        let Some(dest) = self.rect_from(dest_top, dest_left, 0, 0) else {
            return;
        };
        let height = (source.bottom - source.top).min(dest.bottom - dest.top) + 1;
        let width = (source.right - source.left).min(dest.right - dest.left) + 1;
        let copied: Vec<Vec<Cell>> = (0..height)
            .map(|i| {
                let cells = self.screen.grid()[source.top + i].cells();
                cells[source.left..source.left + width].to_vec()
            })
            .collect();
        self.spend(height * width);
        for (i, cells) in copied.into_iter().enumerate() {
            let r = dest.top + i;
            self.touch(r);
            let line = &mut self.screen.grid_mut()[r];
            line.drop_clusters(dest.left, dest.left + width);
            line.cells_mut()[dest.left..dest.left + width].copy_from_slice(&cells);
        }
    }

    /// DECCARA (`reverse` false) or DECRARA: changes the attributes of the
    /// cells in the rectangle after `DECSACE 2`, otherwise (the default, as
    /// in xterm) of the character stream from its first corner to its last.
    pub fn change_rect_attrs(&mut self, rect: Option<Rect>, params: &[u16], reverse: bool) {
        let Some(rect) = rect else { return };
        let change = AttrChange::from_params(params);
        let cols = self.cols;
        // Old style id to new, for the whole rectangle. An old id stays in
        // use (by the rows not yet changed) until the last row is done, so
        // no interning in between can free it and give it to another style.
        let mut changed: HashMap<StyleId, StyleId> = HashMap::new();
        for r in rect.rows() {
            let (start, end) = if self.rect_attr_extent || rect.top == rect.bottom {
                (rect.left, rect.right + 1)
            } else if r == rect.top {
                (rect.left, cols)
            } else if r == rect.bottom {
                (0, rect.right + 1)
            } else {
                (0, cols)
            };
            self.spend(end - start);
            self.touch(r);
            // Each style is changed and interned once, not once per cell.
            let mut missing: Vec<StyleId> = Vec::new();
            let mut last = None;
            for cell in &self.screen.grid()[r].cells()[start..end] {
                let id = cell.style();
                if last != Some(id) {
                    last = Some(id);
                    if !changed.contains_key(&id) {
                        missing.push(id);
                    }
                }
            }
            missing.sort_unstable();
            missing.dedup();
            for id in missing {
                let mut style = self.styles.style(id);
                if reverse {
                    change.toggle(&mut style);
                } else {
                    change.apply(&mut style);
                }
                let new = self.intern(style);
                changed.insert(id, new);
            }
            let mut last = None;
            for cell in &mut self.screen.grid_mut()[r].cells_mut()[start..end] {
                let id = cell.style();
                let new = match last {
                    Some((old, new)) if old == id => new,
                    _ => {
                        let new = changed.get(&id).copied().unwrap_or(id);
                        last = Some((id, new));
                        new
                    }
                };
                cell.set_style(new);
            }
        }
    }

    /// DECSACE: 2 makes DECCARA/DECRARA cover the rectangle, 0 and 1 the
    /// character stream from the first corner to the second.
    pub fn set_attr_change_extent(&mut self, extent: u16) {
        self.rect_attr_extent = extent == 2;
    }
}

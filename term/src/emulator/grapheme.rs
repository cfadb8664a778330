//! Grapheme clustering, mode 2027 (Contour's terminal-unicode-core spec):
//! printed text is segmented into extended grapheme clusters (UAX #29, the
//! `unicode-segmentation` crate) and each cluster takes one cell of width 1
//! or 2, whatever the number of its code points.
//!
//! The rule (the one Ghostty implements, and WezTerm's sum capped at 2 gives
//! the same): a cluster starts as wide as its first character
//! (`unicode-width`); then, for each character that joins it,
//! - VS16 (U+FE0F) after a character that has an emoji presentation
//!   sequence makes it 2 wide; after any other character it changes nothing;
//! - VS15 (U+FE0E) after a wide character that has a text presentation
//!   sequence makes it 1 wide (as `unicode-width` says: not for the wide
//!   ideographs of the Enclosed Ideographic Supplement or U+3030, U+303D,
//!   U+3297 and U+3299, which Ghostty narrows);
//! - any other character of nonzero width (the emoji after a ZWJ, the second
//!   regional indicator of a flag, a skin-tone modifier) makes it 2 wide;
//! - zero-width characters (ZWJ, combining marks, the keycap U+20E3, tags)
//!   change nothing.
//!
//! kitty differs for clusters whose first character is narrow and which no
//! VS16 follows directly: it keeps the first character's width, so the
//! unqualified `U+2764 ZWJ U+1F525` is 1 wide there and 2 here (and in
//! Ghostty and WezTerm). We follow the two that agree, and the emoji the
//! sequence shows is two columns wide in every font. Fully-qualified emoji,
//! the ones programs print, are 2 wide in all three.
//!
//! Tables: `unicode-width` 0.2.3 (Unicode 18.0) for widths and presentation
//! sequences, `unicode-segmentation` 1.13 (Unicode 17.0) for boundaries.
//!
//! ASCII always starts a new cluster (as Ghostty: only Prepend characters,
//! none of them ASCII, could make it join). A character joins the cluster
//! of the cell before the cursor (the cell under it while a wrap is pending)
//! when UAX #29 puts no boundary between them, however long ago that cell
//! was written: a cluster split across two reads of the pty is joined.
//!
//! When a cluster widens, the cell after it becomes its spacer and the
//! cursor moves past it; in the last column the cluster moves to the next
//! line as a wide character would (with autowrap; without it, it stays one
//! column wide). When it narrows, its spacer is blanked and the cursor comes
//! back to the column after it.

use unicode_segmentation::GraphemeCursor;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::Emulator;
use crate::cell::Cell;
use crate::modes::Mode;
use crate::row::MAX_CLUSTER_CODEPOINTS;

/// Room for a whole cluster and one more character, in UTF-8.
const TEXT_BYTES: usize = 4 * (MAX_CLUSTER_CODEPOINTS + 1);

/// What a character joining a cluster does to its width.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Effect {
    Keep,
    Wide,
    Narrow,
}

/// The width effect of `c` joining a cluster whose last character is `prev`.
fn effect(prev: char, c: char) -> Effect {
    match c {
        '\u{fe0f}' if pair_width(prev, c) == 2 => Effect::Wide,
        '\u{fe0e}' if prev.width() == Some(2) && pair_width(prev, c) == 1 => Effect::Narrow,
        '\u{fe0e}' | '\u{fe0f}' => Effect::Keep,
        _ if c.width().unwrap_or(0) > 0 => Effect::Wide,
        _ => Effect::Keep,
    }
}

/// The width `unicode-width` gives the two characters as one string (a
/// presentation sequence when `b` is a variation selector).
fn pair_width(a: char, b: char) -> usize {
    let mut buf = [0u8; 8];
    let n = a.encode_utf8(&mut buf).len();
    let m = b.encode_utf8(&mut buf[n..]).len();
    std::str::from_utf8(&buf[..n + m]).map_or(1, UnicodeWidthStr::width)
}

/// True when UAX #29 puts no boundary between `text` (one whole cluster)
/// and `c`.
fn continues(text: &str, c: char) -> bool {
    let mut buf = [0u8; TEXT_BYTES];
    let n = text.len();
    if n + 4 > buf.len() {
        return false;
    }
    buf[..n].copy_from_slice(text.as_bytes());
    let m = c.encode_utf8(&mut buf[n..]).len();
    let Ok(joined) = std::str::from_utf8(&buf[..n + m]) else {
        return false;
    };
    let mut cursor = GraphemeCursor::new(n, joined.len(), true);
    matches!(cursor.is_boundary(joined, 0), Ok(false))
}

impl Emulator {
    /// True when mode 2027 is set.
    #[inline]
    pub(super) fn clustering(&self) -> bool {
        self.modes.get(Mode::GraphemeCluster)
    }

    /// Under mode 2027: adds `c` (not ASCII) to the cluster before the
    /// cursor when no grapheme boundary separates them, widening or
    /// narrowing it as the module doc says. False when `c` starts a new
    /// cluster: the caller prints it.
    #[inline(never)]
    pub(super) fn join_cluster(&mut self, c: char) -> bool {
        let cursor = *self.screen.cursor();
        let row = cursor.row;
        let mut col = if cursor.pending_wrap {
            cursor.col
        } else if cursor.col > 0 {
            cursor.col - 1
        } else {
            return false;
        };
        let line = &self.screen.grid()[row];
        if line.cells()[col].width() == 0 && col > 0 {
            col -= 1;
        }
        let cell = line.cells()[col];
        if cell.is_empty() || cell.width() == 0 {
            return false;
        }
        let mut one = [0u8; 4];
        let text = match line.cluster(col) {
            Some(text) => text,
            None => cell.ch().encode_utf8(&mut one),
        };
        if !continues(text, c) {
            return false;
        }
        let prev = text.chars().next_back().unwrap_or(cell.ch());
        self.touch(row);
        self.screen.grid_mut()[row].push_to_cluster(col, c);
        match effect(prev, c) {
            Effect::Wide if cell.width() == 1 => self.widen(row, col),
            Effect::Narrow if cell.width() == 2 => self.narrow(row, col),
            _ => {}
        }
        true
    }

    /// Makes the narrow cluster at (`row`, `col`) two columns wide: the next
    /// cell becomes its spacer, or, in the last column, the cluster moves to
    /// the next line.
    fn widen(&mut self, row: usize, col: usize) {
        let edge = self.wrap_edge();
        if col + 1 < edge {
            self.put_wide(row, col);
            self.cursor_after(col + 2, edge);
            return;
        }
        let start = if edge != self.cols {
            self.region.left
        } else {
            0
        };
        if !self.modes.get(Mode::AutoWrap) || edge - start < 2 {
            return;
        }
        let line = &mut self.screen.grid_mut()[row];
        let span = line.span(col, col + 1);
        let style = line.cells()[col].style();
        line.drop_clusters(col, col + 1);
        line.put(col, Cell::wide_pad(style));
        let cursor = self.screen.cursor_mut();
        cursor.col = col;
        cursor.pending_wrap = true;
        self.wrap_line(edge);
        let (row, col) = (self.screen.cursor().row, self.screen.cursor().col);
        self.touch(row);
        let old = self.screen.grid_mut()[row].put(col, Cell::blank(style));
        if old.needs_repair() {
            self.fix_overwrite(row, col, old);
        }
        self.screen.grid_mut()[row].set_span(col, span);
        self.put_wide(row, col);
        let edge = self.wrap_edge();
        self.cursor_after(col + 2, edge);
    }

    /// Gives the cell at (`row`, `col`) width 2 and a spacer after it,
    /// repairing a wide character or cluster the spacer overwrites.
    fn put_wide(&mut self, row: usize, col: usize) {
        let cols = self.cols;
        let line = &mut self.screen.grid_mut()[row];
        let cell = line.cells()[col];
        line.put(col, cell.with_width(2));
        let old = line.put(col + 1, Cell::spacer(cell.style()));
        line.drop_clusters(col + 1, col + 2);
        if old.width() == 2 && col + 2 < cols {
            let next = line.cells()[col + 2];
            line.put(col + 2, Cell::blank(next.style()));
        }
    }

    /// Makes the wide cluster at (`row`, `col`) one column wide, blanking its
    /// spacer, and puts the cursor after it.
    fn narrow(&mut self, row: usize, col: usize) {
        let line = &mut self.screen.grid_mut()[row];
        let cell = line.cells()[col];
        line.put(col, cell.with_width(1));
        if col + 1 < self.cols {
            let spacer = line.cells()[col + 1];
            line.put(col + 1, Cell::blank(spacer.style()));
        }
        let edge = self.wrap_edge();
        let cursor = self.screen.cursor_mut();
        cursor.pending_wrap = false;
        cursor.col = (col + 1).min(edge - 1);
    }

    /// Puts the cursor at `col`, or on the last column with a wrap pending
    /// when `col` reaches `edge`.
    fn cursor_after(&mut self, col: usize, edge: usize) {
        let cursor = self.screen.cursor_mut();
        if col >= edge {
            cursor.col = edge - 1;
            cursor.pending_wrap = true;
        } else {
            cursor.col = col;
            cursor.pending_wrap = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variation_selectors_change_width_only_after_their_bases() {
        assert_eq!(effect('\u{2764}', '\u{fe0f}'), Effect::Wide);
        assert_eq!(effect('#', '\u{fe0f}'), Effect::Wide);
        assert_eq!(effect('x', '\u{fe0f}'), Effect::Keep);
        assert_eq!(effect('\u{231a}', '\u{fe0e}'), Effect::Narrow);
        assert_eq!(effect('x', '\u{fe0e}'), Effect::Keep);
        // A wide ideograph with a text sequence stays wide (unicode-width).
        assert_eq!(effect('\u{3030}', '\u{fe0e}'), Effect::Keep);
        assert_eq!(effect('\u{200d}', '\u{1f525}'), Effect::Wide);
        assert_eq!(effect('\u{1f44b}', '\u{1f3fb}'), Effect::Wide);
        assert_eq!(effect('1', '\u{20e3}'), Effect::Keep);
    }

    #[test]
    fn boundaries_follow_uax_29() {
        assert!(continues("\u{2764}", '\u{fe0f}'));
        assert!(continues("\u{1f469}\u{200d}", '\u{1f467}'));
        assert!(continues("\u{1f1fa}", '\u{1f1f8}'));
        assert!(!continues("\u{1f1fa}\u{1f1f8}", '\u{1f1eb}'));
        assert!(!continues("\u{4e2d}", '\u{4e2d}'));
        assert!(!continues("a\u{200d}", '\u{1f525}'));
    }
}

//! An ANSI byte stream that redraws the screen on a terminal of the same size.
//!
//! The stream hides the cursor, switches to the alternate screen when the
//! snapshot shows it, resets the pen and clears; then it draws each row with
//! explicit positioning, emitting SGR and OSC 8 only when the style changes.
//! Cells are reproduced exactly, so a fresh emulator fed the stream shows the
//! same screen:
//!
//! - written cells (spaces included) are printed, wide characters once and
//!   clusters whole;
//! - empty cells whose style is only a background are painted with ECH, which
//!   leaves empty cells in that background; default empty cells are skipped;
//! - empty cells with any other style are rebuilt (see [`blanks`]);
//! - combining marks on an empty cell are printed right after it.
//!
//! Nothing is printed after the bottom-right cell and no row ends with a
//! newline, so the screen never scrolls up. Last come the title, the cursor
//! shape, the cursor position and its visibility. Not reproduced: soft-wrap
//! flags, DECSCA protection, the pending-wrap state, modes (but grapheme
//! clustering, 2027, is set first when the snapshot has it: the widths of
//! clusters depend on it). Known misses,
//! drawn as written cells that look the same: rows made only of styled empty
//! cells on a one-row screen or on a screen made only of such rows, and
//! combining marks on an empty cell in the last column.

mod blanks;
pub(crate) mod sgr;

use std::fmt::Write;

use panecast_term::{Cell, CursorShape, Mode, Row, Snapshot, Style};

/// The wide character used to make styled empty cells; it never stays on screen.
const WIDE_FILLER: char = '\u{4e2d}';

/// The stream that redraws `snapshot`.
pub fn render(snapshot: &Snapshot) -> String {
    let mut painter = Painter {
        snapshot,
        out: String::from("\x1b[?25l"),
        pen: Style::default(),
        link: 0,
        at: None,
    };
    if snapshot.alternate {
        painter.out.push_str("\x1b[?1049h");
    }
    if snapshot.modes.get(Mode::GraphemeCluster) {
        painter.out.push_str("\x1b[?2027h");
    }
    painter.out.push_str("\x1b[0m\x1b[H\x1b[2J");
    let drawn = painter.bottom_blank_rows();
    for (r, row) in snapshot.lines.iter().enumerate() {
        if r < drawn {
            painter.styled_blanks(r, row);
        }
        painter.cells(r, row);
    }
    painter.finish()
}

/// The state of the terminal being drawn on, as far as the stream set it.
struct Painter<'a> {
    snapshot: &'a Snapshot,
    out: String,
    /// The SGR part of the pen (its `link` is always 0).
    pen: Style,
    /// The open hyperlink, an id into the snapshot's link table; 0 for none.
    link: u16,
    /// Where the cursor is; `None` when unknown or waiting to wrap.
    at: Option<(usize, usize)>,
}

impl Painter<'_> {
    /// Draws the written cells, the background-only empty cells and the
    /// combining marks on empty cells of row `r`, after its styled empty cells.
    fn cells(&mut self, r: usize, row: &Row) {
        let snapshot = self.snapshot;
        let cells = row.cells();
        let end = row.stored_len();
        let mut x = 0;
        while x < end {
            let cell = cells[x];
            let style = snapshot.style(cell.style());
            let width = cell.width() as usize;
            if width == 0 || x + width > cells.len() {
                // A right half is drawn with its left half; a wide character
                // that does not fit would wrap, so it is left out.
                x += 1;
                continue;
            }
            if !cell.is_empty() {
                let text = row.cluster(x);
                self.set_style(&style);
                self.move_to(r, x);
                match text {
                    Some(text) => self.out.push_str(text),
                    None => self.out.push(cell.ch()),
                }
                self.advance(r, x + width);
                x += 1;
                continue;
            }
            let mut n = 1;
            if style != Style::default() && style == style.erased() {
                let same = |c: &Cell| c.style() == cell.style() && c.is_empty() && !c.has_cluster();
                n += cells[x + 1..end].iter().take_while(|c| same(c)).count();
                self.set_style(&style);
                self.move_to(r, x);
                self.erase(n);
            }
            if let Some(cluster) = row.cluster(x) {
                self.marks_on_blank(r, x, &style, cluster);
            }
            x += n;
        }
    }

    /// Puts the combining marks of `cluster` on the empty cell at `(r, x)`:
    /// printed right after it, they join it and leave it empty. In the last
    /// column that cannot be done without writing the cell, so the cluster is
    /// printed whole there.
    fn marks_on_blank(&mut self, r: usize, x: usize, style: &Style, cluster: &str) {
        if x + 1 < self.snapshot.cols as usize {
            self.move_to(r, x + 1);
            self.out.extend(cluster.chars().skip(1));
        } else {
            self.set_style(style);
            self.move_to(r, x);
            self.out.push_str(cluster);
            self.at = None;
        }
    }

    /// Prints `c` in `style` at `(r, x)`, leaving the cursor at column `next`.
    fn print_at(&mut self, r: usize, x: usize, style: &Style, c: char, next: usize) {
        self.set_style(style);
        self.move_to(r, x);
        self.out.push(c);
        self.advance(r, next);
    }

    /// ECH: blanks `n` cells in the pen's background without moving.
    fn erase(&mut self, n: usize) {
        match n {
            1 => self.out.push_str("\x1b[X"),
            n => {
                let _ = write!(self.out, "\x1b[{n}X");
            }
        }
    }

    /// Moves the cursor to `(r, x)`, forward on the same row when it can.
    fn move_to(&mut self, r: usize, x: usize) {
        match self.at {
            Some(at) if at == (r, x) => {}
            Some((row, col)) if row == r && x == col + 1 => self.out.push_str("\x1b[C"),
            Some((row, col)) if row == r && x > col => {
                let _ = write!(self.out, "\x1b[{}C", x - col);
            }
            _ if x == 0 => {
                let _ = write!(self.out, "\x1b[{}H", r + 1);
            }
            _ => {
                let _ = write!(self.out, "\x1b[{};{}H", r + 1, x + 1);
            }
        }
        self.at = Some((r, x));
    }

    /// Notes that printing left the cursor at column `x` of row `r`; past the
    /// last column the cursor waits to wrap and must be placed explicitly.
    fn advance(&mut self, r: usize, x: usize) {
        self.at = (x < self.snapshot.cols as usize).then_some((r, x));
    }

    /// Makes `style` the pen: its SGR attributes and its hyperlink.
    fn set_style(&mut self, style: &Style) {
        let attributes = Style { link: 0, ..*style };
        if attributes != self.pen {
            self.out.push_str(&sgr::sgr_sequence(&attributes));
            self.pen = attributes;
        }
        let target = self.snapshot.link(style);
        let link = if target.is_some() { style.link } else { 0 };
        if link != self.link {
            self.out.push_str(&sgr::link_sequence(target));
            self.link = link;
        }
    }

    /// Resets the pen, then restores the title and the cursor.
    fn finish(mut self) -> String {
        self.set_style(&Style::default());
        let snapshot = self.snapshot;
        if !snapshot.title.is_empty() {
            let _ = write!(self.out, "\x1b]2;{}\x1b\\", snapshot.title);
        }
        let cursor = snapshot.cursor;
        let shape = match (cursor.shape, cursor.blink) {
            // The emulator's initial cursor: left to the terminal's own setting.
            (CursorShape::Block, false) => None,
            (CursorShape::Block, true) => Some(1),
            (CursorShape::Underline, blink) => Some(if blink { 3 } else { 4 }),
            (CursorShape::Bar, blink) => Some(if blink { 5 } else { 6 }),
        };
        if let Some(n) = shape {
            let _ = write!(self.out, "\x1b[{n} q");
        }
        let _ = write!(self.out, "\x1b[{};{}H", cursor.row + 1, cursor.col + 1);
        if cursor.visible {
            self.out.push_str("\x1b[?25h");
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::ScreenJson;
    use panecast_term::Term;

    fn snapshot(cols: u16, rows: u16, input: &str) -> Snapshot {
        let mut term = Term::new(cols, rows, 100);
        term.advance(input.as_bytes());
        term.snapshot()
    }

    /// Redraws `input`'s screen on a fresh terminal, checks it is the same
    /// (down to which cells are empty) and returns the stream.
    fn round_trip(cols: u16, rows: u16, input: &str) -> String {
        let original = snapshot(cols, rows, input);
        let ansi = render(&original);
        let copy = snapshot(cols, rows, &ansi);
        assert_eq!(
            ScreenJson::from_snapshot(&copy),
            ScreenJson::from_snapshot(&original),
            "{input:?} drawn as {ansi:?}"
        );
        assert_eq!(copy.cursor, original.cursor);
        // Link ids depend on the order links were met: compare their targets.
        let cells = |snapshot: &Snapshot, row: &Row| -> Vec<(bool, Style, Option<String>)> {
            let cell = |c: &Cell| {
                let style = snapshot.style(c.style());
                let link = snapshot.link(&style).map(|l| l.uri.to_string());
                (c.is_empty(), Style { link: 0, ..style }, link)
            };
            row.cells().iter().map(cell).collect()
        };
        for (a, b) in copy.lines.iter().zip(&original.lines) {
            assert_eq!(
                cells(&copy, a),
                cells(&original, b),
                "{input:?} drawn as {ansi:?}"
            );
        }
        ansi
    }

    #[test]
    fn a_simple_screen_is_drawn_plainly() {
        let ansi = round_trip(10, 3, "ab\x1b[31mc\r\n\x1b[0m  x");
        assert_eq!(
            ansi,
            "\x1b[?25l\x1b[0m\x1b[H\x1b[2J\x1b[1Hab\x1b[0;31mc\x1b[0m\x1b[2H  x\x1b[2;4H\x1b[?25h"
        );
    }

    #[test]
    fn attributes_and_colours_round_trip() {
        round_trip(
            40,
            4,
            "\x1b[1;2;3;5;7;8;9mA\x1b[0;4:2;58;2;1;2;3mB\x1b[0;38;5;100;48;2;9;8;7mC\x1b[0;95;105mD\
             \x1b[4:5mE\x1b[21mF\x1b[4:4mG\x1b[0m",
        );
    }

    #[test]
    fn backgrounds_of_empty_cells_are_painted() {
        let ansi = round_trip(10, 3, "\x1b[44m\x1b[2K\x1b[0mab\x1b[2;4H\x1b[41m\x1b[3X");
        assert!(ansi.contains("ab\x1b[0;44m\x1b[8X"), "{ansi:?}");
    }

    #[test]
    fn wide_characters_and_clusters_round_trip() {
        round_trip(
            10,
            3,
            "中a文\r\ne\u{301}x\u{1f468}\u{200d}\u{1f469}\x1b[3;9H字",
        );
    }

    #[test]
    fn grapheme_clusters_round_trip_with_their_mode() {
        let ansi = round_trip(
            6,
            3,
            "\x1b[?2027h\u{2764}\u{fe0f}\u{1f1eb}\u{1f1f7}a\u{2764}\u{fe0f}\r\n\u{231a}\u{fe0e}",
        );
        assert!(ansi.contains("\x1b[?2027h"), "{ansi:?}");
        // The widths too (the cursor is placed explicitly, lines compare text).
        let widths = |snapshot: &Snapshot| -> Vec<Vec<u8>> {
            let lines = snapshot.lines.iter();
            lines
                .map(|row| row.cells().iter().map(|c| c.width()).collect())
                .collect()
        };
        let original = snapshot(6, 3, "\x1b[?2027h\u{2764}\u{fe0f}\u{1f1eb}\u{1f1f7}");
        assert_eq!(
            widths(&snapshot(6, 3, &render(&original))),
            widths(&original)
        );
        let plain = round_trip(6, 3, "\u{2764}\u{fe0f}");
        assert!(!plain.contains("2027"), "{plain:?}");
    }

    #[test]
    fn the_bottom_right_cell_does_not_scroll() {
        round_trip(5, 2, "12345\r\n6789\x1b[7m0\x1b[m");
        round_trip(5, 2, "12345\r\n678中");
    }

    #[test]
    fn styled_empty_cells_round_trip() {
        // A wide character that wraps leaves an empty cell in the pen's style.
        round_trip(5, 3, "\x1b[7mabcd中\x1b[m");
        // Overwriting half of a wide character blanks the other half in its style.
        round_trip(8, 2, "\x1b[1;31m中文字\x1b[m\x1b[1;2Hx\x1b[1;5Hy");
        round_trip(8, 2, "\x1b[4m中文字四\x1b[m\x1b[1;2Hx\x1b[1;8Hy");
        round_trip(8, 2, "\x1b[3m中\x1b[7m文\x1b[m\x1b[1;2H\x1b[2X");
        // Two in the last columns.
        round_trip(
            8,
            2,
            "\x1b[4m中文字四\x1b[1;7H\x1b[mn\x1b[1;6H\x1b[7m中\x1b[1;6H\x1b[mz",
        );
    }

    #[test]
    fn rows_made_only_of_styled_empty_cells_round_trip() {
        // Each row: a wide character's left half blanked, then a wrap pad.
        let row = "\x1b[1m中\x1b[3X\x1b[4m中";
        round_trip(2, 3, &format!("\x1b[2;1H{row}"));
        round_trip(
            2,
            3,
            &format!("\x1b[1;1H{row}\x1b[2;1H{row}\x1b[3;1H\x1b[2X"),
        );
        round_trip(
            2,
            3,
            &format!("\x1b[2;1H{row}\x1b[3;1H\x1b[2X\x1b[1;1H\x1b[7m中\x1b[3X\x1b[2;1Hx"),
        );
    }

    #[test]
    fn marks_on_empty_cells_stay_on_empty_cells() {
        round_trip(6, 2, "\x1b[1;3H\u{301}\x1b[44m\x1b[1;5H\x1b[X\x1b[C\u{302}");
    }

    #[test]
    fn hyperlinks_title_cursor_and_alternate_screen_round_trip() {
        let ansi = round_trip(
            20,
            4,
            "\x1b[?1049h\x1b]2;a;title\x07\x1b]8;id=x;https://e.com/?q=1;2\x1b\\link\x1b]8;;\x1b\\ no\
             \x1b[5 q\x1b[?25l\x1b[3;7H",
        );
        assert!(ansi.starts_with("\x1b[?25l\x1b[?1049h"));
        assert!(
            ansi.contains("\x1b]8;id=x;https://e.com/?q=1;2\x1b\\\x1b[1Hlink\x1b]8;;\x1b\\ no"),
            "{ansi:?}"
        );
        assert!(ansi.ends_with("\x1b]2;a;title\x1b\\\x1b[5 q\x1b[3;7H"));
        let cursor = snapshot(20, 4, &ansi).cursor;
        assert_eq!(
            (cursor.shape, cursor.blink, cursor.visible),
            (CursorShape::Bar, true, false)
        );
    }
}

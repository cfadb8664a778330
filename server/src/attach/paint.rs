//! Paints the client's [`Screen`] on the local terminal: only the rows a
//! frame changed, then the cursor, the title and the modes the program
//! set. Pens are set with the SGR and OSC 8 sequences of `panecast render
//! --format ansi` (`render::ansi::sgr`), through [`term_style`].
//!
//! The session's screen is drawn from the top-left corner. A local window
//! larger than the session shows blank space right of and below it; a
//! smaller one shows the session's top-left part (the session's size
//! follows the window of the viewer that drives it, see `size_policy`).
//!
//! Over the screen it paints the predictions that show ([`Overlay`]),
//! underlined until the program's echo confirms them, and a one-line
//! notice on the window's last row while the link is down or quiet.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::sync::Arc;

use panecast_proto::{self as proto, CursorShape, Modes, MouseTracking};

use super::predict::Shown;
use super::screen::{Changes, Screen};
use crate::render::ansi::sgr::{link_sequence, sgr_sequence};
use panecast_term::{self as term, Hyperlink};

/// The state of the local terminal, as far as the painter set it.
pub struct Painter {
    /// The local window: (columns, rows).
    window: (u16, u16),
    /// Mirror the input modes (cursor keys, keypad, paste, mouse, focus):
    /// standard input goes to the program as typed, so the local terminal
    /// must encode keys as the program asked. Off for a view connection.
    input_modes: bool,
    /// The pen's SGR part.
    pen: term::Style,
    /// The open hyperlink's URI.
    link: Option<String>,
    /// The modes mirrored so far.
    modes: Modes,
    /// The cursor's shape as last set: (shape, blink).
    shape: (CursorShape, bool),
    /// The next paint redraws everything (the window changed size).
    stale: bool,
    /// The notice on the window's last row, if one shows.
    notice: Option<String>,
    /// The notice changed since it was last drawn.
    notice_changed: bool,
    /// The cursor as last placed: (row, column, shown).
    placed: Option<(u16, u16, bool)>,
}

/// What is painted over the screen: the predictions that show.
#[derive(Debug, Default)]
pub struct Overlay {
    /// The predicted cells that show, underlined.
    pub shown: Vec<Shown>,
    /// The cursor as predicted: (row, column).
    pub cursor: Option<(u16, u16)>,
    /// Rows whose predictions changed: drawn again.
    pub rows: BTreeSet<u16>,
}

impl Painter {
    /// A painter for a window of `window` (columns, rows), freshly cleared.
    pub fn new(window: (u16, u16), input_modes: bool) -> Painter {
        Painter {
            window,
            input_modes,
            pen: term::Style::default(),
            link: None,
            modes: Modes::default(),
            shape: (CursorShape::Block, false),
            stale: true,
            notice: None,
            notice_changed: false,
            placed: None,
        }
    }

    /// Shows `notice` on the window's last row (`None`: takes it away) from
    /// the next paint.
    pub fn notice(&mut self, notice: Option<String>) {
        if notice != self.notice {
            self.notice = notice;
            self.notice_changed = true;
        }
    }

    /// The window's row the notice takes.
    fn notice_row(&self) -> u16 {
        self.window.1.saturating_sub(1)
    }

    /// The local window is now `window`: the next paint redraws it all.
    pub fn resize(&mut self, window: (u16, u16)) {
        self.window = window;
        self.stale = true;
    }

    /// The bytes that bring the local terminal up to `screen` after a frame
    /// that made `changes`, with `overlay` over it.
    pub fn paint(&mut self, screen: &Screen, changes: &Changes, overlay: &Overlay) -> String {
        let mut out = String::new();
        let visible = screen.rows.min(self.window.1);
        if changes.full || self.stale {
            self.stale = false;
            self.reset_pen(&mut out);
            out.push_str("\x1b[H\x1b[2J");
            for r in 0..visible {
                self.row(&mut out, screen, overlay, r);
            }
            title(&mut out, &screen.title);
            self.notice_changed = self.notice.is_some();
        } else {
            if changes.scroll > 0 {
                self.scroll(&mut out, screen, overlay, changes.scroll);
            }
            let rows: BTreeSet<u16> = changes.rows.iter().chain(&overlay.rows).copied().collect();
            for r in rows.into_iter().filter(|&r| r < visible) {
                self.row(&mut out, screen, overlay, r);
            }
            if changes.title {
                title(&mut out, &screen.title);
            }
        }
        if std::mem::take(&mut self.notice_changed) {
            self.draw_notice(&mut out, screen, overlay);
        }
        self.modes(&mut out, screen.modes);
        let drawn = !out.is_empty();
        let before = (self.placed, self.shape);
        self.cursor(&mut out, screen, overlay.cursor);
        if !drawn && (self.placed, self.shape) == before {
            // Nothing changed: nothing to write.
            out.clear();
        }
        out
    }

    /// Draws the notice, or what its row shows without one.
    fn draw_notice(&mut self, out: &mut String, screen: &Screen, overlay: &Overlay) {
        let r = self.notice_row();
        let Some(notice) = self.notice.clone() else {
            if r < screen.rows {
                self.row(out, screen, overlay, r);
            } else {
                self.reset_pen(out);
                let _ = write!(out, "\x1b[{};1H\x1b[K", r + 1);
            }
            return;
        };
        self.reset_pen(out);
        let _ = write!(out, "\x1b[{};1H\x1b[7m ", r + 1);
        let room = usize::from(self.window.0).saturating_sub(2);
        printable(out, &notice.chars().take(room).collect::<String>());
        out.push(' ');
        self.reset_pen(out);
        out.push_str("\x1b[K");
    }

    /// Shifts the drawn rows up by `n`: with a scroll region when the whole
    /// screen is shown, else by drawing every row again.
    fn scroll(&mut self, out: &mut String, screen: &Screen, overlay: &Overlay, n: u16) {
        // A notice inside the scrolled rows would move with them.
        let notice = self.notice.is_some() && self.notice_row() < screen.rows;
        if screen.rows <= self.window.1 && n < screen.rows && !notice {
            self.reset_pen(out);
            let _ = write!(out, "\x1b[1;{}r\x1b[{n}S\x1b[r", screen.rows);
        } else {
            for r in 0..screen.rows.min(self.window.1) {
                self.row(out, screen, overlay, r);
            }
        }
    }

    /// Draws row `r` whole: its cells, its fill, blanks beyond the
    /// session's width, and the predictions on it (or the notice there).
    fn row(&mut self, out: &mut String, screen: &Screen, overlay: &Overlay, r: u16) {
        if self.notice.is_some() && r == self.notice_row() {
            self.notice_changed = true;
            return;
        }
        let Some(line) = screen.lines.get(usize::from(r)) else {
            return;
        };
        let width = screen.cols.min(self.window.0);
        let _ = write!(out, "\x1b[{}H", r + 1);
        let mut at = Some(0);
        let mut drawn = 0;
        for cell in line.cells() {
            let end = cell.col + u16::from(cell.width);
            if end > width {
                break;
            }
            self.set_style(out, screen.style(cell.style));
            if at != Some(cell.col) {
                let _ = write!(out, "\x1b[{};{}H", r + 1, cell.col + 1);
            }
            let mut chars = cell.text.chars();
            let single = chars.next().is_some() && chars.next().is_none();
            printable(out, cell.text);
            // Where a wide or combined cell leaves the cursor depends on the
            // local terminal's tables: the next cell is placed explicitly.
            at = (single && cell.width == 1).then_some(end);
            drawn = end;
        }
        if drawn < width {
            self.set_style(out, screen.style(line.fill()));
            if at != Some(drawn) {
                let _ = write!(out, "\x1b[{};{}H", r + 1, drawn + 1);
            }
            let _ = write!(out, "\x1b[{}X", width - drawn);
        }
        if self.window.0 > screen.cols {
            self.reset_pen(out);
            let _ = write!(out, "\x1b[{};{}H\x1b[K", r + 1, screen.cols + 1);
        }
        for shown in overlay.shown.iter().filter(|s| s.row == r && s.col < width) {
            // Underlined until confirmed (SGR 4).
            let mut pen = screen
                .style(shown.style)
                .map(term_style)
                .unwrap_or_default();
            pen.underline = term::Underline::Single;
            let link = screen.style(shown.style).and_then(|s| s.link.as_deref());
            self.set_pen(out, pen, link);
            let _ = write!(out, "\x1b[{};{}H", r + 1, shown.col + 1);
            printable(out, &shown.text);
        }
    }

    /// Makes `style` (`None`: the default) the pen.
    fn set_style(&mut self, out: &mut String, style: Option<&proto::Style>) {
        let pen = style.map(term_style).unwrap_or_default();
        self.set_pen(out, pen, style.and_then(|s| s.link.as_deref()));
    }

    /// Makes `pen` and `link` the pen.
    fn set_pen(&mut self, out: &mut String, pen: term::Style, link: Option<&str>) {
        if pen != self.pen {
            out.push_str(&sgr_sequence(&pen));
            self.pen = pen;
        }
        if link != self.link.as_deref() {
            let target = link.map(|uri| Hyperlink {
                id: None,
                uri: Arc::from(uri.replace(|c: char| c.is_control(), "")),
            });
            out.push_str(&link_sequence(target.as_ref()));
            self.link = link.map(str::to_owned);
        }
    }

    /// The default pen, no link.
    fn reset_pen(&mut self, out: &mut String) {
        out.push_str("\x1b[0m");
        self.pen = term::Style::default();
        if self.link.take().is_some() {
            out.push_str(&link_sequence(None));
        }
    }

    /// Mirrors the modes that change what keys and the mouse send (for a
    /// connection that types) and reverse video.
    fn modes(&mut self, out: &mut String, modes: Modes) {
        let old = self.modes;
        let mut flag = |on: bool, was: bool, n: u16| {
            if on != was {
                let _ = write!(out, "\x1b[?{n}{}", if on { 'h' } else { 'l' });
            }
        };
        flag(modes.reverse_video, old.reverse_video, 5);
        if self.input_modes {
            flag(modes.app_cursor, old.app_cursor, 1);
            flag(modes.bracketed_paste, old.bracketed_paste, 2004);
            flag(modes.focus_events, old.focus_events, 1004);
            flag(modes.mouse_sgr, old.mouse_sgr, 1006);
            if modes.mouse != old.mouse {
                if let Some(n) = mouse_mode(old.mouse) {
                    flag(false, true, n);
                }
                if let Some(n) = mouse_mode(modes.mouse) {
                    flag(true, false, n);
                }
            }
            if modes.app_keypad != old.app_keypad {
                out.push_str(if modes.app_keypad { "\x1b=" } else { "\x1b>" });
            }
        }
        self.modes = modes;
    }

    /// Places the cursor (where a prediction put it, if one shows), shapes
    /// it, and shows it when the program shows it and it is inside the
    /// window.
    fn cursor(&mut self, out: &mut String, screen: &Screen, predicted: Option<(u16, u16)>) {
        let mut cursor = screen.cursor;
        if let Some((row, col)) = predicted {
            (cursor.row, cursor.col, cursor.visible) = (row, col, true);
        }
        let shape = (cursor.shape, cursor.blink);
        if shape != self.shape {
            let n = match shape {
                (CursorShape::Block, false) => 0,
                (CursorShape::Block, true) => 1,
                (CursorShape::Underline, blink) => 4 - u8::from(blink),
                (CursorShape::Bar, blink) => 6 - u8::from(blink),
            };
            let _ = write!(out, "\x1b[{n} q");
            self.shape = shape;
        }
        let inside = cursor.row < screen.rows.min(self.window.1)
            && cursor.col < screen.cols.min(self.window.0);
        if inside {
            let _ = write!(out, "\x1b[{};{}H", cursor.row + 1, cursor.col + 1);
        }
        let shown = inside && cursor.visible;
        out.push_str(if shown { "\x1b[?25h" } else { "\x1b[?25l" });
        self.placed = Some((cursor.row, cursor.col, shown));
    }
}

/// The DEC private mode of a mouse tracking level.
fn mouse_mode(mouse: MouseTracking) -> Option<u16> {
    match mouse {
        MouseTracking::Off => None,
        MouseTracking::Press => Some(9),
        MouseTracking::Click => Some(1000),
        MouseTracking::Drag => Some(1002),
        MouseTracking::Motion => Some(1003),
    }
}

/// Sets the local window's title (OSC 2).
fn title(out: &mut String, title: &str) {
    out.push_str("\x1b]2;");
    printable(out, title);
    out.push_str("\x1b\\");
}

/// Appends `text` with control characters (which the server never sends
/// in a cell or title, and which could drive the local terminal) as `?`.
fn printable(out: &mut String, text: &str) {
    out.extend(text.chars().map(|c| if c.is_control() { '?' } else { c }));
}

/// A wire style as the emulator's style, for the SGR writer (its link is
/// set apart).
fn term_style(style: &proto::Style) -> term::Style {
    let color = |c: proto::Color| match c {
        proto::Color::Default => term::Color::Default,
        proto::Color::Indexed(i) => term::Color::Indexed(i),
        proto::Color::Rgb(r, g, b) => term::Color::Rgb(r, g, b),
    };
    let mut attrs = term::Attrs::default();
    for (theirs, ours) in [
        (proto::Attrs::BOLD, term::Attrs::BOLD),
        (proto::Attrs::DIM, term::Attrs::DIM),
        (proto::Attrs::ITALIC, term::Attrs::ITALIC),
        (proto::Attrs::BLINK, term::Attrs::BLINK),
        (proto::Attrs::INVERSE, term::Attrs::INVERSE),
        (proto::Attrs::INVISIBLE, term::Attrs::INVISIBLE),
        (proto::Attrs::STRIKE, term::Attrs::STRIKE),
    ] {
        attrs.set(ours, style.attrs.contains(theirs));
    }
    term::Style {
        fg: color(style.fg),
        bg: color(style.bg),
        underline_color: color(style.underline_color),
        attrs,
        underline: term::Underline::from_param(u16::from(style.underline.to_byte())),
        link: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use panecast_term::{Snapshot, Term};

    /// Paints the screen `input` makes, sent over the wire as the server
    /// sends it, on a fresh emulator of the window's size.
    fn painted(input: &str, session: (u16, u16), window: (u16, u16)) -> (Snapshot, Snapshot) {
        let mut original = Term::new(session.0, session.1, 0);
        original.advance(input.as_bytes());
        let snapshot = original.snapshot();
        let mut screen = Screen::default();
        let mut styles = proto::Styles::default();
        let lines = snapshot
            .lines
            .iter()
            .enumerate()
            .map(|(r, row)| {
                let line = crate::stream::encode_row(row, session.0);
                for run in line.runs().iter().chain([&proto::StyleRun {
                    len: 0,
                    style: line.fill(),
                }]) {
                    if run.style != 0 {
                        let style = snapshot.style(term::StyleId(run.style as u16));
                        let style = crate::stream::wire_style(&style, &snapshot);
                        styles.defs.push(proto::StyleDef {
                            id: run.style,
                            style,
                        });
                    }
                }
                proto::FrameLine {
                    row: r as u16,
                    line,
                }
            })
            .collect();
        screen.styles(styles);
        let changes = screen.frame(proto::Frame {
            cols: session.0,
            rows: session.1,
            full: true,
            cursor: proto::Cursor {
                row: snapshot.cursor.row,
                col: snapshot.cursor.col,
                visible: true,
                ..proto::Cursor::default()
            },
            title: Some(snapshot.title.to_string()),
            lines,
            ..proto::Frame::default()
        });
        let mut local = Term::new(window.0, window.1, 0);
        local.advance(b"\x1b[?7l");
        local.advance(
            Painter::new(window, true)
                .paint(&screen, &changes, &Overlay::default())
                .as_bytes(),
        );
        (snapshot, local.snapshot())
    }

    fn text(snapshot: &Snapshot) -> String {
        crate::render::render(snapshot, crate::render::Format::Text)
    }

    #[test]
    fn a_screen_is_painted_as_it_is() {
        let input = "\x1b]2;t\x07ab\x1b[1;31mc\x1b[0m \x1b[44m\x1b[K\x1b[0m\r\n中e\u{301}x";
        let (original, local) = painted(input, (10, 3), (10, 3));
        assert_eq!(
            crate::render::render(&local, crate::render::Format::Json),
            crate::render::render(&original, crate::render::Format::Json),
        );
        assert_eq!(local.cursor.row, original.cursor.row);
        assert_eq!(local.cursor.col, original.cursor.col);
        assert_eq!(local.title, original.title);
    }

    #[test]
    fn a_larger_screen_is_clipped_and_a_smaller_one_letterboxed() {
        let (_, local) = painted("0123456789\r\nsecond\r\nthird", (10, 3), (4, 2));
        assert_eq!(text(&local), "0123\nseco\n");
        let (_, local) = painted("ab\r\ncd", (3, 2), (8, 4));
        assert_eq!(text(&local), "ab\ncd\n\n\n");
    }

    #[test]
    fn a_controller_mirrors_the_input_modes_and_a_viewer_does_not() {
        let screen = Screen {
            cols: 2,
            rows: 1,
            lines: vec![proto::Line::default()],
            modes: Modes {
                app_cursor: true,
                bracketed_paste: true,
                mouse: MouseTracking::Drag,
                ..Modes::default()
            },
            ..Screen::default()
        };
        let changes = Changes::default();
        let painted = Painter::new((2, 1), true).paint(&screen, &changes, &Overlay::default());
        for mode in ["\x1b[?1h", "\x1b[?2004h", "\x1b[?1002h"] {
            assert!(painted.contains(mode), "{mode:?} in {painted:?}");
        }
        let painted = Painter::new((2, 1), false).paint(&screen, &changes, &Overlay::default());
        assert!(!painted.contains("\x1b[?1h") && !painted.contains("\x1b[?1002h"));
    }

    #[test]
    fn predictions_are_underlined_over_the_screen_and_the_notice_takes_the_last_row() {
        let line = |text: &str| {
            proto::Line::from_cells(
                6,
                false,
                text.split("").filter(|s| !s.is_empty()).map(|c| (c, 1, 0)),
            )
            .expect("a line")
        };
        let screen = Screen {
            cols: 6,
            rows: 2,
            lines: vec![line("$ a"), line("x")],
            cursor: proto::Cursor {
                row: 0,
                col: 3,
                visible: true,
                ..proto::Cursor::default()
            },
            ..Screen::default()
        };
        let mut painter = Painter::new((6, 2), true);
        let mut local = Term::new(6, 2, 0);
        local.advance(b"\x1b[?7l");
        let overlay = Overlay {
            shown: vec![Shown {
                row: 0,
                col: 3,
                text: "b".into(),
                style: 0,
            }],
            cursor: Some((0, 4)),
            rows: [0].into(),
        };
        painter.notice(Some("link down".into()));
        let full = Changes {
            full: true,
            ..Changes::default()
        };
        local.advance(painter.paint(&screen, &full, &overlay).as_bytes());
        let snapshot = local.snapshot();
        assert_eq!(text(&snapshot), "$ ab\n link \n");
        let underline =
            |s: &Snapshot, col: usize| s.style(s.lines[0].cells()[col].style()).underline;
        assert_eq!(
            underline(&snapshot, 3),
            term::Underline::Single,
            "unconfirmed"
        );
        assert_eq!(underline(&snapshot, 2), term::Underline::None);
        assert_eq!((snapshot.cursor.row, snapshot.cursor.col), (0, 4));
        // Confirmed: drawn from the screen again; the notice goes.
        painter.notice(None);
        let screen = Screen {
            lines: vec![line("$ ab"), line("x")],
            ..screen
        };
        let changes = Changes {
            rows: vec![0],
            ..Changes::default()
        };
        local.advance(
            painter
                .paint(&screen, &changes, &Overlay::default())
                .as_bytes(),
        );
        let snapshot = local.snapshot();
        assert_eq!(text(&snapshot), "$ ab\nx\n");
        assert_eq!(underline(&snapshot, 3), term::Underline::None);
        assert_eq!((snapshot.cursor.row, snapshot.cursor.col), (0, 3));
        let again = painter.paint(&screen, &Changes::default(), &Overlay::default());
        assert_eq!(again, "", "nothing changed: nothing written");
    }

    #[test]
    fn control_characters_never_reach_the_local_terminal() {
        let mut out = String::new();
        printable(&mut out, "a\x1b]0;x\x07\u{9b}b");
        assert_eq!(out, "a?]0;x??b");
    }
}

//! Resets: RIS (`ESC c`) returns everything to the power-on state, the
//! scrollback and title included; DECSTR (`CSI ! p`) resets modes and the pen
//! but keeps the screen.

use super::{cursor, lines, screen, style_at};
use crate::{CursorShape, Mode, Modes, Style};

/// A terminal with as much non-default state as possible.
const BUSY: &str = concat!(
    "one\r\ntwo\r\nthree\r\nfour\r\nfive",
    "\x1b]0;title\x07",
    "\x1b[?2004;1000;1006;1004;1;25l\x1b[?2004;1000;1006;1004;1h\x1b=",
    "\x1b[4h\x1b[6 q\x1b[1;31;44m\x1b(0\x1b[2;3r\x1b[?6h",
    "\x1b[3g\x1b[1;2H\x1b[?2026h\x1b]8;;u\x07",
);

#[test]
fn ris_resets_everything() {
    let mut term = screen(10, 3, BUSY);
    term.advance(b"\x1b[?1049hALT");
    assert!(term.scrollback_len() > 0);
    term.advance(b"\x1bc");
    let snapshot = term.snapshot();
    assert_eq!(lines(&mut term), ["", "", ""]);
    assert_eq!(cursor(&mut term), (0, 0));
    assert!(!snapshot.alternate);
    assert_eq!(&*snapshot.title, "");
    assert_eq!(term.modes(), Modes::default());
    assert_eq!(term.scrollback_len(), 0);
    assert_eq!(snapshot.scrollback_len, 0);
    assert!(snapshot.cursor.visible);
    assert_eq!(
        (snapshot.cursor.shape, snapshot.cursor.blink),
        (CursorShape::Block, false)
    );
    // Pen, charset, tab stops, region and origin mode are back to their defaults.
    term.advance(b"q\tx");
    assert_eq!(lines(&mut term), ["q       x", "", ""]);
    assert_eq!(style_at(&mut term, 0, 0), Style::default());
    term.advance(b"\x1b[9;1H\r\n\r\nz");
    assert_eq!(lines(&mut term), ["", "", "z"]);
    assert_eq!(term.scrollback_len(), 2);
}

#[test]
fn ris_leaves_the_main_screen_when_on_the_alternate() {
    let mut term = screen(10, 3, "main\x1b[?1049halt\x1bc");
    assert!(!term.snapshot().alternate);
    assert_eq!(lines(&mut term), ["", "", ""]);
    // Leaving the (no longer active) alternate screen afterwards changes nothing.
    term.advance(b"x\x1b[?1049l");
    assert_eq!(lines(&mut term), ["x", "", ""]);
}

#[test]
fn decstr_keeps_the_screen_and_cursor() {
    let mut term = screen(10, 3, "ab\r\ncd\x1b[2;3H\x1b[!p");
    assert_eq!(lines(&mut term), ["ab", "cd", ""]);
    assert_eq!(cursor(&mut term), (1, 2));
    let mut term = screen(10, 3, BUSY);
    let before = lines(&mut term);
    let scrollback = term.scrollback_len();
    term.advance(b"\x1b[!p");
    assert_eq!(lines(&mut term), before);
    assert_eq!(term.scrollback_len(), scrollback);
    assert_eq!(term.title(), "title");
}

#[test]
fn decstr_resets_modes_pen_charset_and_region() {
    let mut term = screen(10, 3, BUSY);
    term.advance(b"\x1b[!p");
    let modes = term.modes();
    assert!(modes.get(Mode::CursorVisible));
    assert!(!modes.get(Mode::Insert));
    assert!(!modes.get(Mode::Origin));
    assert!(modes.get(Mode::AutoWrap));
    assert!(!modes.get(Mode::AppCursor));
    assert!(!modes.get(Mode::AppKeypad));
    // The pen and the character set are reset and insert mode is off: `q`
    // prints plain over the `f` of "five".
    term.advance(b"\x1b[3;1Hq");
    assert_eq!(lines(&mut term)[2], "qive");
    assert_eq!(style_at(&mut term, 2, 0), Style::default());
    // The region is the whole screen again: a line feed at the bottom scrolls it all.
    let scrollback = term.scrollback_len();
    term.advance(b"\r\n");
    assert_eq!(term.scrollback_len(), scrollback + 1);
}

#[test]
fn decstr_resets_the_modes_xterm_js_resets() {
    // xterm.js's soft reset returns every DEC private mode it tracks to its
    // default (bracketed paste, focus events, reverse wraparound, synchronized
    // output, the cursor style) but leaves mouse tracking alone.
    let mut term = screen(10, 3, "\x1b[?2004;1004;45;2026;1000h\x1b[5 q\x1b[!p");
    let modes = term.modes();
    assert!(!modes.get(Mode::BracketedPaste));
    assert!(!modes.get(Mode::FocusEvents));
    assert!(!modes.get(Mode::ReverseWrap));
    assert!(!term.synchronized());
    assert!(modes.get(Mode::MouseClick));
    let cursor = term.snapshot().cursor;
    assert_eq!((cursor.shape, cursor.blink), (CursorShape::Block, false));
}

#[test]
fn decstr_forgets_the_saved_cursor() {
    let mut term = screen(10, 3, "\x1b[2;5H\x1b7\x1b[!p\x1b[3;3H\x1b8x");
    assert_eq!(lines(&mut term), ["x", "", ""]);
}

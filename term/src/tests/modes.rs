//! Modes a viewer or the input encoder reads: cursor visibility (25),
//! DECSCUSR shapes, bracketed paste (2004), mouse tracking (9, 1000, 1002,
//! 1003) and encodings (1005, 1006, 1015), focus events (1004), application
//! cursor keys (1) and keypad (`ESC =`/`ESC >`), synchronized output (2026).

use super::screen;
use crate::{CursorShape, Mode, Modes, MouseEncoding, MouseTracking};

#[test]
fn defaults() {
    let mut term = screen(10, 2, "");
    let modes = term.modes();
    assert_eq!(modes, Modes::default());
    assert!(modes.get(Mode::CursorVisible));
    assert!(modes.get(Mode::AutoWrap));
    assert!(!modes.get(Mode::BracketedPaste));
    assert_eq!(modes.mouse_tracking(), MouseTracking::Off);
    assert_eq!(modes.mouse_encoding(), MouseEncoding::X10);
    let cursor = term.snapshot().cursor;
    assert!(cursor.visible);
    assert_eq!((cursor.shape, cursor.blink), (CursorShape::Block, false));
    assert!(!term.synchronized());
}

#[test]
fn cursor_visibility() {
    let mut term = screen(10, 2, "\x1b[?25l");
    assert!(!term.snapshot().cursor.visible);
    assert!(!term.modes().get(Mode::CursorVisible));
    term.advance(b"\x1b[?25h");
    assert!(term.snapshot().cursor.visible);
}

#[test]
fn decscusr_shapes() {
    // 0 and 1 are a blinking block: vte cannot tell `CSI 0 SP q` from
    // `CSI SP q`, which xterm.js reads as 1.
    let cases = [
        (0, CursorShape::Block, true),
        (1, CursorShape::Block, true),
        (2, CursorShape::Block, false),
        (3, CursorShape::Underline, true),
        (4, CursorShape::Underline, false),
        (5, CursorShape::Bar, true),
        (6, CursorShape::Bar, false),
    ];
    for (n, shape, blink) in cases {
        let mut term = screen(10, 2, format!("\x1b[4 q\x1b[{n} q"));
        let cursor = term.snapshot().cursor;
        assert_eq!((cursor.shape, cursor.blink), (shape, blink), "DECSCUSR {n}");
    }
    // Unknown shapes change nothing.
    let mut term = screen(10, 2, "\x1b[6 q\x1b[9 q");
    let cursor = term.snapshot().cursor;
    assert_eq!((cursor.shape, cursor.blink), (CursorShape::Bar, false));
}

#[test]
fn bracketed_paste() {
    let mut term = screen(10, 2, "\x1b[?2004h");
    assert!(term.modes().get(Mode::BracketedPaste));
    term.advance(b"\x1b[?2004l");
    assert!(!term.modes().get(Mode::BracketedPaste));
}

#[test]
fn mouse_tracking_modes_replace_each_other() {
    let cases = [
        ("\x1b[?9h", MouseTracking::Press),
        ("\x1b[?1000h", MouseTracking::Click),
        ("\x1b[?1002h", MouseTracking::Drag),
        ("\x1b[?1003h", MouseTracking::Motion),
        ("\x1b[?1003h\x1b[?1000h", MouseTracking::Click),
        ("\x1b[?1000h\x1b[?1002h", MouseTracking::Drag),
        ("\x1b[?1000h\x1b[?1000l", MouseTracking::Off),
        // As xterm.js: resetting any tracking mode turns tracking off.
        ("\x1b[?1003h\x1b[?1000l", MouseTracking::Off),
    ];
    for (seq, expected) in cases {
        assert_eq!(
            screen(10, 2, seq).modes().mouse_tracking(),
            expected,
            "{seq:?}"
        );
    }
}

#[test]
fn mouse_encodings() {
    let cases = [
        ("\x1b[?1006h", MouseEncoding::Sgr),
        ("\x1b[?1005h", MouseEncoding::Utf8),
        ("\x1b[?1015h", MouseEncoding::Urxvt),
        ("\x1b[?1006h\x1b[?1006l", MouseEncoding::X10),
        ("\x1b[?1015h\x1b[?1006h", MouseEncoding::Sgr),
    ];
    for (seq, expected) in cases {
        assert_eq!(
            screen(10, 2, seq).modes().mouse_encoding(),
            expected,
            "{seq:?}"
        );
    }
    // Tracking and encoding set in one sequence.
    let modes = screen(10, 2, "\x1b[?1002;1006h").modes();
    assert_eq!(modes.mouse_tracking(), MouseTracking::Drag);
    assert_eq!(modes.mouse_encoding(), MouseEncoding::Sgr);
}

#[test]
fn focus_events() {
    let mut term = screen(10, 2, "\x1b[?1004h");
    assert!(term.modes().get(Mode::FocusEvents));
    term.advance(b"\x1b[?1004l");
    assert!(!term.modes().get(Mode::FocusEvents));
}

#[test]
fn application_cursor_and_keypad() {
    let mut term = screen(10, 2, "\x1b[?1h\x1b=");
    assert!(term.modes().get(Mode::AppCursor));
    assert!(term.modes().get(Mode::AppKeypad));
    term.advance(b"\x1b[?1l\x1b>");
    assert!(!term.modes().get(Mode::AppCursor));
    assert!(!term.modes().get(Mode::AppKeypad));
    // DECNKM (66) is the same keypad mode.
    assert!(screen(10, 2, "\x1b[?66h").modes().get(Mode::AppKeypad));
}

#[test]
fn synchronized_output() {
    let mut term = screen(10, 2, "\x1b[?2026h");
    assert!(term.synchronized());
    term.advance(b"text");
    assert!(term.synchronized());
    term.advance(b"\x1b[?2026l");
    assert!(!term.synchronized());
}

#[test]
fn several_modes_in_one_sequence() {
    let modes = screen(10, 2, "\x1b[?1;2004;1004;25l\x1b[?1;2004h").modes();
    assert!(modes.get(Mode::AppCursor));
    assert!(modes.get(Mode::BracketedPaste));
    assert!(!modes.get(Mode::FocusEvents));
    assert!(!modes.get(Mode::CursorVisible));
}

#[test]
fn unknown_modes_and_the_wrong_kind_change_nothing() {
    assert_eq!(
        screen(10, 2, "\x1b[?9999h\x1b[?0h\x1b[77h").modes(),
        Modes::default()
    );
    // `CSI ? 4 h` is DEC smooth scroll, not insert mode; `CSI 2004 h` is not bracketed paste.
    let modes = screen(10, 2, "\x1b[?4h\x1b[2004h").modes();
    assert!(!modes.get(Mode::Insert));
    assert!(!modes.get(Mode::BracketedPaste));
    assert!(screen(10, 2, "\x1b[4h").modes().get(Mode::Insert));
}

#[test]
fn the_snapshot_carries_the_modes() {
    let mut term = screen(10, 2, "\x1b[?2004;1000h");
    let snapshot = term.snapshot();
    assert_eq!(snapshot.modes, term.modes());
    assert!(snapshot.modes.get(Mode::BracketedPaste));
}

#[test]
fn xtsave_and_xtrestore_bring_modes_back() {
    let mut term = screen(10, 3, "\x1b[?2004h\x1b[?2004;7s\x1b[?2004l\x1b[?7l");
    assert!(!term.modes().get(Mode::BracketedPaste));
    term.advance(b"\x1b[?2004;7r");
    assert!(term.modes().get(Mode::BracketedPaste));
    assert!(term.modes().get(Mode::AutoWrap));
    // A mode never saved comes back to its default.
    term.advance(b"\x1b[?1h\x1b[?1r");
    assert!(!term.modes().get(Mode::AppCursor));
}

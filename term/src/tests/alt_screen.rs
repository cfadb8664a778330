//! The alternate screen (47, 1047, 1049) and DECSC/DECRC, which save and
//! restore the cursor position, the pen and the character sets.

use super::{cursor, lines, screen, style_at};
use crate::{Attrs, Color, Style};

#[test]
fn mode_1049_shows_an_empty_screen_and_restores_the_main_one() {
    let mut term = screen(10, 3, "main\r\nscreen\x1b[1;3H");
    term.advance(b"\x1b[?1049h");
    assert!(term.snapshot().alternate);
    assert_eq!(lines(&mut term), ["", "", ""]);
    term.advance(b"\x1b[3;1Halt");
    assert_eq!(lines(&mut term), ["", "", "alt"]);
    term.advance(b"\x1b[?1049l");
    let snapshot = term.snapshot();
    assert!(!snapshot.alternate);
    assert_eq!(lines(&mut term), ["main", "screen", ""]);
    // 1049 saved the cursor on entry and restores it on exit.
    assert_eq!(cursor(&mut term), (0, 2));
}

#[test]
fn mode_1049_keeps_the_cursor_on_entry() {
    // As xterm.js: the cursor keeps its place on the (cleared) alternate screen.
    let mut term = screen(10, 3, "\x1b[2;4H\x1b[?1049h");
    assert_eq!(cursor(&mut term), (1, 3));
}

#[test]
fn the_alternate_screen_starts_empty_every_time() {
    for mode in ["47", "1047", "1049"] {
        let mut term = screen(10, 3, format!("main\x1b[?{mode}hALT\x1b[?{mode}l"));
        assert_eq!(lines(&mut term), ["main", "", ""], "mode {mode}");
        term.advance(format!("\x1b[?{mode}h").as_bytes());
        assert_eq!(lines(&mut term), ["", "", ""], "mode {mode}");
    }
}

#[test]
fn modes_47_and_1047_leave_the_cursor_where_it_is() {
    for mode in ["47", "1047"] {
        let mut term = screen(10, 3, format!("main\x1b[?{mode}h\x1b[2;3Halt\x1b[?{mode}l"));
        assert_eq!(lines(&mut term), ["main", "", ""], "mode {mode}");
        assert_eq!(cursor(&mut term), (1, 5), "mode {mode}");
        assert!(!term.snapshot().alternate);
    }
}

#[test]
fn entering_twice_and_leaving_twice_is_harmless() {
    let mut term = screen(10, 3, "main\x1b[?1049h\x1b[?1049hx\x1b[?1049l\x1b[?1049l");
    assert_eq!(lines(&mut term), ["main", "", ""]);
    assert!(!term.snapshot().alternate);
    assert_eq!(cursor(&mut term), (0, 4));
}

#[test]
fn the_pen_carries_over_to_the_alternate_screen() {
    let mut term = screen(10, 3, "\x1b[31m\x1b[?1049hx");
    assert_eq!(style_at(&mut term, 0, 0).fg, Color::Indexed(1));
}

#[test]
fn decsc_and_decrc_restore_position_pen_and_charset() {
    let mut term = screen(
        10,
        4,
        "\x1b[2;3H\x1b[1;31m\x1b(0\x1b7\x1b[m\x1b(B\x1b[4;8Hz\x1b8q",
    );
    assert_eq!(lines(&mut term), ["", "  ─", "", "       z"]);
    assert_eq!(cursor(&mut term), (1, 3));
    let mut bold_red = Style {
        fg: Color::Indexed(1),
        ..Style::default()
    };
    bold_red.attrs.set(Attrs::BOLD, true);
    assert_eq!(style_at(&mut term, 1, 2), bold_red);
    assert_eq!(style_at(&mut term, 3, 7), Style::default());
}

#[test]
fn csi_s_and_u_save_and_restore_like_decsc() {
    let mut term = screen(10, 4, "\x1b[3;4H\x1b[s\x1b[H\x1b[ux");
    assert_eq!(lines(&mut term), ["", "", "   x", ""]);
}

#[test]
fn decrc_without_decsc_homes_with_the_default_pen() {
    let mut term = screen(10, 4, "\x1b[3;4H\x1b[32m\x1b8x");
    assert_eq!(lines(&mut term), ["x", "", "", ""]);
    assert_eq!(style_at(&mut term, 0, 0), Style::default());
}

#[test]
fn each_screen_has_its_own_saved_cursor() {
    // As xterm.js: DECRC on the alternate screen does not see a DECSC made on
    // the main one.
    let mut term = screen(10, 3, "\x1b[2;2H\x1b7\x1b[?47h\x1b[3;5H\x1b8X");
    assert_eq!(lines(&mut term), ["X", "", ""]);
    term.advance(b"\x1b[?47l\x1b8Y");
    assert_eq!(lines(&mut term), ["", " Y", ""]);
}

#[test]
fn decrc_clamps_a_position_saved_before_a_shrink() {
    let mut term = screen(10, 5, "\x1b[5;10H\x1b7");
    term.resize(6, 3);
    term.advance(b"\x1b[H\x1b8");
    let (row, col) = cursor(&mut term);
    assert!(row < 3 && col < 6, "({row}, {col})");
}

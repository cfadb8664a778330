//! SGR where it meets the grid: printed cells carry the pen, style runs group
//! them, SGR 0 returns to the default, erasing keeps only the background.
//! (The parameter parsing itself is tested in `sgr.rs`.)

use super::{bg_only, screen, style_at};
use crate::{Attrs, Color, StyleId, Underline};

#[test]
fn printed_cells_carry_the_pen_and_runs_group_them() {
    let mut term = screen(8, 1, "\x1b[1;31mab\x1b[0mc\x1b[4:3;48;5;200mde");
    let snapshot = term.snapshot();
    let row = &snapshot.lines[0];
    let runs = row.style_runs();
    assert_eq!(runs.len(), 4, "{runs:?}");
    assert_eq!((runs[0].0, runs[0].1), (0, 2));
    assert_eq!((runs[1].0, runs[1].1, runs[1].2), (2, 3, StyleId::DEFAULT));
    assert_eq!((runs[2].0, runs[2].1), (3, 5));
    assert_eq!((runs[3].0, runs[3].1, runs[3].2), (5, 8, StyleId::DEFAULT));
    let bold_red = snapshot.style(runs[0].2);
    assert_eq!(bold_red.fg, Color::Indexed(1));
    assert!(bold_red.attrs.contains(Attrs::BOLD));
    let curly = snapshot.style(runs[2].2);
    assert_eq!(curly.underline, Underline::Curly);
    assert_eq!(curly.bg, Color::Indexed(200));
    assert_eq!(curly.fg, Color::Default);
}

#[test]
fn equal_styles_share_one_id() {
    let mut term = screen(8, 1, "\x1b[32ma\x1b[0mb\x1b[32mc");
    let snapshot = term.snapshot();
    let cells = snapshot.lines[0].cells();
    assert_eq!(cells[0].style(), cells[2].style());
    assert_ne!(cells[0].style(), cells[1].style());
    assert_eq!(cells[1].style(), StyleId::DEFAULT);
}

#[test]
fn colours_in_both_forms_reach_the_cells() {
    let mut term = screen(
        8,
        1,
        "\x1b[38;5;208ma\x1b[38:2::1:2:3mb\x1b[38;2;4;5;6mc\x1b[93md",
    );
    assert_eq!(style_at(&mut term, 0, 0).fg, Color::Indexed(208));
    assert_eq!(style_at(&mut term, 0, 1).fg, Color::Rgb(1, 2, 3));
    assert_eq!(style_at(&mut term, 0, 2).fg, Color::Rgb(4, 5, 6));
    assert_eq!(style_at(&mut term, 0, 3).fg, Color::Indexed(11));
}

#[test]
fn sgr_0_and_empty_sgr_reset_the_pen() {
    for reset in ["\x1b[0m", "\x1b[m", "\x1b[;m"] {
        let mut term = screen(8, 1, format!("\x1b[1;4;7;31;42mX{reset}Y"));
        assert_eq!(style_at(&mut term, 0, 1), Default::default(), "{reset:?}");
        assert_ne!(style_at(&mut term, 0, 0), Default::default());
    }
}

#[test]
fn erase_keeps_the_background_but_not_inverse_or_colours() {
    let mut term = screen(6, 2, "\x1b[7;4;35;46;9m\x1b[2J");
    for row in 0..2 {
        for col in 0..6 {
            assert_eq!(style_at(&mut term, row, col), bg_only(Color::Indexed(6)));
        }
    }
    // Inverse without a background colour erases to the default style.
    let mut term = screen(6, 2, "\x1b[7mabc\x1b[H\x1b[K");
    assert_eq!(style_at(&mut term, 0, 0), Default::default());
}

#[test]
fn a_wide_characters_run_covers_both_columns() {
    let mut term = screen(6, 1, "a\x1b[31m\u{4e2d}\x1b[mb");
    let snapshot = term.snapshot();
    let runs = snapshot.lines[0].style_runs();
    assert_eq!((runs[1].0, runs[1].1), (1, 3), "{runs:?}");
    assert_eq!(snapshot.style(runs[1].2).fg, Color::Indexed(1));
    assert_eq!((runs[2].0, runs[2].2), (3, StyleId::DEFAULT));
}

#[test]
fn printing_over_a_coloured_blank_takes_the_pen() {
    let mut term = screen(6, 1, "\x1b[41m\x1b[2J\x1b[32mx");
    let style = style_at(&mut term, 0, 0);
    assert_eq!(style.fg, Color::Indexed(2));
    assert_eq!(style.bg, Color::Indexed(1));
    assert_eq!(style_at(&mut term, 0, 1), bg_only(Color::Indexed(1)));
}

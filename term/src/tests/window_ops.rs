//! XTWINOPS: size reports in characters and pixels, title reports, and the
//! title stack. Operations that would resize or move the window are ignored.

use super::{replies, screen};

#[test]
fn sizes_in_characters() {
    assert_eq!(replies(&mut screen(80, 24, "\x1b[18t")), "\x1b[8;24;80t");
    assert_eq!(replies(&mut screen(80, 24, "\x1b[19t")), "\x1b[9;24;80t");
    let mut term = screen(80, 24, "");
    term.resize(100, 30);
    term.advance(b"\x1b[18t");
    assert_eq!(replies(&mut term), "\x1b[8;30;100t");
}

#[test]
fn sizes_in_pixels_follow_the_rendered_cell() {
    let cell_h = crate::CELL_HEIGHT.round() as usize;
    let cell_w = crate::CELL_WIDTH.round() as usize;
    assert_eq!(
        replies(&mut screen(80, 24, "\x1b[14t")),
        format!("\x1b[4;{};{}t", 24 * cell_h, 80 * cell_w)
    );
    assert_eq!(
        replies(&mut screen(80, 24, "\x1b[16t")),
        format!("\x1b[6;{cell_h};{cell_w}t")
    );
}

#[test]
fn window_state_and_position() {
    assert_eq!(replies(&mut screen(10, 3, "\x1b[11t")), "\x1b[1t");
    assert_eq!(replies(&mut screen(10, 3, "\x1b[13t")), "\x1b[3;0;0t");
}

#[test]
fn resizing_operations_are_ignored() {
    let mut term = screen(80, 24, "\x1b[8;10;20t\x1b[4;100;100t\x1b[9;1t");
    assert_eq!((term.cols(), term.rows()), (80, 24));
    assert_eq!(replies(&mut term), "");
}

#[test]
fn title_and_icon_label_reports() {
    let mut term = screen(10, 3, "\x1b]1;icon\x07\x1b]2;window\x07\x1b[20t\x1b[21t");
    assert_eq!(replies(&mut term), "\x1b]Licon\x1b\\\x1b]lwindow\x1b\\");
    assert_eq!(term.title(), "window");
    // OSC 0 sets both.
    let mut term = screen(10, 3, "\x1b]0;both\x07\x1b[20t");
    assert_eq!(replies(&mut term), "\x1b]Lboth\x1b\\");
}

#[test]
fn the_title_stack_pushes_and_pops() {
    let mut term = screen(10, 3, "\x1b]0;first\x07\x1b[22;0t\x1b]0;second\x07");
    assert_eq!(term.title(), "second");
    term.advance(b"\x1b[23;0t");
    assert_eq!(term.title(), "first");
    // Popping only the icon label leaves the window title.
    term.advance(b"\x1b[22;0t\x1b]0;third\x07\x1b[23;1t\x1b[20t");
    assert_eq!(term.title(), "third");
    assert_eq!(replies(&mut term), "\x1b]Lfirst\x1b\\");
    // Popping an empty stack changes nothing.
    term.advance(b"\x1b[23;0t\x1b[23;0t");
    assert_eq!(term.title(), "third");
}

#[test]
fn the_title_stack_is_bounded() {
    let mut term = screen(10, 3, "");
    for i in 0..50 {
        term.advance(format!("\x1b]2;t{i}\x07\x1b[22t").as_bytes());
    }
    for _ in 0..50 {
        term.advance(b"\x1b[23t");
    }
    assert_eq!(term.title(), "t40");
}

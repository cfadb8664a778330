//! Replies the terminal writes back to the program: DA1, DA2, DSR 5, CPR
//! (also in origin mode), DECRQM for set, reset and unknown modes, and the
//! XTWINOPS size report.

use super::{replies, screen};

#[test]
fn primary_and_secondary_device_attributes() {
    assert_eq!(replies(&mut screen(10, 3, "\x1b[c")), "\x1b[?1;2c");
    assert_eq!(replies(&mut screen(10, 3, "\x1b[0c")), "\x1b[?1;2c");
    assert_eq!(replies(&mut screen(10, 3, "\x1b[>c")), "\x1b[>0;276;0c");
    assert_eq!(replies(&mut screen(10, 3, "\x1b[>0c")), "\x1b[>0;276;0c");
    // Other parameters are not requests.
    assert_eq!(replies(&mut screen(10, 3, "\x1b[1c\x1b[>1c")), "");
}

#[test]
fn device_status_report() {
    assert_eq!(replies(&mut screen(10, 3, "\x1b[5n")), "\x1b[0n");
}

#[test]
fn cursor_position_report_is_one_based() {
    assert_eq!(replies(&mut screen(10, 5, "\x1b[6n")), "\x1b[1;1R");
    assert_eq!(
        replies(&mut screen(10, 5, "abc\x1b[5;5Hx\x1b[6n")),
        "\x1b[5;6R"
    );
    assert_eq!(
        replies(&mut screen(10, 5, "\x1b[3;7H\x1b[?6n")),
        "\x1b[?3;7R"
    );
}

#[test]
fn cursor_position_report_is_relative_to_the_region_in_origin_mode() {
    let mut term = screen(10, 8, "\x1b[3;6r\x1b[?6h\x1b[2;4H\x1b[6n");
    assert_eq!(replies(&mut term), "\x1b[2;4R");
    // Without origin mode the same place reports its screen position.
    let mut term = screen(10, 8, "\x1b[3;6r\x1b[4;4H\x1b[6n");
    assert_eq!(replies(&mut term), "\x1b[4;4R");
}

#[test]
fn replies_are_taken_once_and_in_order() {
    let mut term = screen(10, 3, "\x1b[5n\x1b[6n");
    assert_eq!(replies(&mut term), "\x1b[0n\x1b[1;1R");
    assert_eq!(replies(&mut term), "");
}

#[test]
fn decrqm_reports_set_reset_and_unknown_modes() {
    let mut term = screen(10, 3, "\x1b[?2004h\x1b[?2004$p");
    assert_eq!(replies(&mut term), "\x1b[?2004;1$y");
    term.advance(b"\x1b[?2004l\x1b[?2004$p");
    assert_eq!(replies(&mut term), "\x1b[?2004;2$y");
    assert_eq!(replies(&mut screen(10, 3, "\x1b[?7$p")), "\x1b[?7;1$y");
    assert_eq!(
        replies(&mut screen(10, 3, "\x1b[?9999$p")),
        "\x1b[?9999;0$y"
    );
    // ANSI modes have no `?`.
    assert_eq!(replies(&mut screen(10, 3, "\x1b[4h\x1b[4$p")), "\x1b[4;1$y");
    assert_eq!(replies(&mut screen(10, 3, "\x1b[20$p")), "\x1b[20;2$y");
}

#[test]
fn decrqm_reports_the_alternate_screen() {
    assert_eq!(
        replies(&mut screen(10, 3, "\x1b[?1049h\x1b[?1049$p")),
        "\x1b[?1049;1$y"
    );
    assert_eq!(
        replies(&mut screen(10, 3, "\x1b[?1049$p")),
        "\x1b[?1049;2$y"
    );
}

#[test]
fn window_size_report() {
    assert_eq!(replies(&mut screen(80, 24, "\x1b[18t")), "\x1b[8;24;80t");
    let mut term = screen(80, 24, "");
    term.resize(100, 30);
    term.advance(b"\x1b[18t");
    assert_eq!(replies(&mut term), "\x1b[8;30;100t");
    // Other window operations are not answered.
    assert_eq!(replies(&mut screen(80, 24, "\x1b[14t\x1b[21t")), "");
}

#[test]
fn replies_are_bounded_when_never_taken() {
    let mut term = screen(10, 3, "");
    for _ in 0..20_000 {
        term.advance(b"\x1b[6n");
    }
    let bytes = term.take_replies();
    assert!(bytes.len() <= 64 * 1024, "{} bytes", bytes.len());
    assert!(bytes.starts_with(b"\x1b[1;1R"));
}

//! Reports about the terminal itself: DA1, DA2 and DA3 in xterm's formats,
//! DSR 5, CPR (also in origin mode, and DECXCPR with its page), the DEC
//! status reports, DECRQM for set, reset, permanently reset and unknown
//! modes, and how replies are queued.

use super::{replies, screen};

#[test]
fn primary_and_secondary_device_attributes() {
    let da1 = "\x1b[?65;1;2;4;6;9;15;16;17;18;21;22;28;29c";
    assert_eq!(replies(&mut screen(10, 3, "\x1b[c")), da1);
    assert_eq!(replies(&mut screen(10, 3, "\x1b[0c")), da1);
    assert_eq!(replies(&mut screen(10, 3, "\x1b[>c")), "\x1b[>64;380;0c");
    assert_eq!(replies(&mut screen(10, 3, "\x1b[>0c")), "\x1b[>64;380;0c");
    assert_eq!(
        replies(&mut screen(10, 3, "\x1b[=c")),
        "\x1bP!|00000000\x1b\\"
    );
    // DECID (ESC Z) is DA1's old form.
    assert_eq!(replies(&mut screen(10, 3, "\x1bZ")), da1);
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
        "\x1b[?3;7;1R"
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
fn decrqm_reports_the_keyboard_modes_and_xterms_permanent_ones() {
    // DECBKM, DECHEBM and DECNRCM can be set and reset.
    for mode in [67, 35, 42] {
        let mut term = screen(10, 3, format!("\x1b[?{mode}h\x1b[?{mode}$p"));
        assert_eq!(replies(&mut term), format!("\x1b[?{mode};1$y"));
        term.advance(format!("\x1b[?{mode}l\x1b[?{mode}$p").as_bytes());
        assert_eq!(replies(&mut term), format!("\x1b[?{mode};2$y"));
    }
    // DECARM and DECHCCM are permanently reset, as in xterm.
    assert_eq!(
        replies(&mut screen(10, 3, "\x1b[?8h\x1b[?8$p\x1b[?60h\x1b[?60$p")),
        "\x1b[?8;4$y\x1b[?60;4$y"
    );
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
fn dec_status_reports_answer_as_xterm() {
    let ask = |request: &str| replies(&mut screen(10, 3, request));
    assert_eq!(ask("\x1b[?15n"), "\x1b[?13n");
    assert_eq!(ask("\x1b[?25n"), "\x1b[?20n");
    assert_eq!(ask("\x1b[?26n"), "\x1b[?27;1;0;0n");
    assert_eq!(ask("\x1b[?63;7n"), "\x1bP7!~0000\x1b\\");
    assert_eq!(ask("\x1b[?85n"), "\x1b[?83n");
    // Unknown reports are not answered.
    assert_eq!(ask("\x1b[?99n"), "");
}

#[test]
fn decrqm_reports_modes_xterm_never_sets_as_permanently_reset() {
    assert_eq!(replies(&mut screen(10, 3, "\x1b[1$p")), "\x1b[1;4$y");
    assert_eq!(replies(&mut screen(10, 3, "\x1b[19$p")), "\x1b[19;4$y");
    // Modes it keeps only to report them still toggle.
    let mut term = screen(10, 3, "\x1b[2h\x1b[2$p\x1b[?4h\x1b[?4$p");
    assert_eq!(replies(&mut term), "\x1b[2;1$y\x1b[?4;1$y");
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
    assert_eq!(
        bytes.len() % 6,
        0,
        "a reply that does not fit is dropped whole"
    );
    term.advance(b"\x1b[6n");
    assert_eq!(replies(&mut term), "\x1b[1;1R", "taking them makes room");
}

#[test]
fn decrqm_is_not_answered_below_vt_level_3() {
    assert_eq!(replies(&mut screen(10, 3, "\x1b[62;1\"p\x1b[?7$p")), "");
    assert_eq!(
        replies(&mut screen(10, 3, "\x1b[63;1\"p\x1b[?7$p")),
        "\x1b[?7;1$y"
    );
}

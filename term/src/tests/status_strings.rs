//! DECRQSS: a program asks for a setting and gets back the control
//! function that makes it (`DCS 1 $ r ... ST`), or `DCS 0 $ r ST` when the
//! request is unknown.

use super::{replies, screen};

/// The DECRQSS request for `setting`, as a program sends it.
fn request(setting: &str) -> String {
    format!("\x1bP$q{setting}\x1b\\")
}

/// The valid answer carrying `setting`.
fn answer(setting: &str) -> String {
    format!("\x1bP1$r{setting}\x1b\\")
}

#[test]
fn sgr_reports_the_pen() {
    assert_eq!(replies(&mut screen(10, 3, request("m"))), answer("0m"));
    let term = &mut screen(10, 3, format!("\x1b[1;4;31;104m{}", request("m")));
    assert_eq!(replies(term), answer("0;1;4;31;104m"));
    let term = &mut screen(10, 3, format!("\x1b[38;5;200;48;2;1;2;3m{}", request("m")));
    assert_eq!(replies(term), answer("0;38;5;200;48:2::1:2:3m"));
}

#[test]
fn decstbm_reports_the_scroll_region() {
    let term = &mut screen(10, 8, format!("\x1b[5;6r{}", request("r")));
    assert_eq!(replies(term), answer("5;6r"));
    assert_eq!(replies(&mut screen(10, 8, request("r"))), answer("1;8r"));
}

#[test]
fn decslrm_reports_the_full_width() {
    assert_eq!(replies(&mut screen(10, 3, request("s"))), answer("1;10s"));
}

#[test]
fn decscusr_reports_the_cursor_style() {
    let term = &mut screen(10, 3, format!("\x1b[4 q{}", request(" q")));
    assert_eq!(replies(term), answer("4 q"));
    let term = &mut screen(10, 3, format!("\x1b[5 q{}", request(" q")));
    assert_eq!(replies(term), answer("5 q"));
}

#[test]
fn decsca_reports_protection() {
    let term = &mut screen(10, 3, format!("\x1b[1\"q{}", request("\"q")));
    assert_eq!(replies(term), answer("1\"q"));
    assert_eq!(replies(&mut screen(10, 3, request("\"q"))), answer("0\"q"));
}

#[test]
fn decscl_reports_the_conformance_level() {
    assert_eq!(
        replies(&mut screen(10, 3, request("\"p"))),
        answer("65;1\"p")
    );
    let term = &mut screen(10, 3, format!("\x1b[63;1\"p{}", request("\"p")));
    assert_eq!(replies(term), answer("63;1\"p"));
}

#[test]
fn unknown_requests_get_the_invalid_answer() {
    assert_eq!(replies(&mut screen(10, 3, request("zz"))), "\x1bP0$r\x1b\\");
}

#[test]
fn local_function_key_settings_are_unknown_as_in_xterm() {
    // DECELF, DECLFKC and DECSMKR: nothing to report.
    for setting in ["+q", "*}", "+r"] {
        assert_eq!(
            replies(&mut screen(10, 3, request(setting))),
            "\x1bP0$r\x1b\\"
        );
    }
}

//! Cursor motion and addressing: CUP/HVP/CHA/HPA/VPA (absolute), CUU/CUD/
//! CUF/CUB/CNL/CPL/HPR/VPR (relative), clamping at the edges and the scroll
//! region's margins, origin mode (DECOM), BS and CR.

use super::{cursor, lines, screen};

#[test]
fn cup_and_hvp_are_one_based_and_default_to_home() {
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[3;5H")), (2, 4));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[3;5H\x1b[H")), (0, 0));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[2;3f")), (1, 2));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[;5H")), (0, 4));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[4H")), (3, 0));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[0;0H")), (0, 0));
}

#[test]
fn cup_places_the_next_character() {
    let mut term = screen(10, 5, "\x1b[3;5HX\x1b[1;1HY");
    assert_eq!(lines(&mut term), ["Y", "", "    X", "", ""]);
    assert_eq!(cursor(&mut term), (0, 1));
}

#[test]
fn absolute_addressing_clamps_to_the_screen() {
    let mut term = screen(10, 5, "\x1b[99;99HX");
    assert_eq!(lines(&mut term), ["", "", "", "", "         X"]);
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[2;3H\x1b[99G")), (1, 9));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[2;3H\x1b[99d")), (4, 2));
}

#[test]
fn cha_and_hpa_move_within_the_row() {
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[2;3H\x1b[7G")), (1, 6));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[2;3H\x1b[4`")), (1, 3));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[2;3H\x1b[G")), (1, 0));
}

#[test]
fn vpa_moves_within_the_column() {
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[2;3H\x1b[4d")), (3, 2));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[2;3H\x1b[d")), (0, 2));
}

#[test]
fn relative_moves_default_to_one() {
    let steps = [
        ("\x1b[A", (1, 4)),
        ("\x1b[0A", (1, 4)),
        ("\x1b[2B", (4, 4)),
        ("\x1b[3C", (2, 7)),
        ("\x1b[D", (2, 3)),
        ("\x1b[3D", (2, 1)),
    ];
    for (seq, expected) in steps {
        let mut term = screen(10, 6, format!("\x1b[3;5H{seq}"));
        assert_eq!(cursor(&mut term), expected, "{seq:?}");
    }
}

#[test]
fn relative_moves_clamp_at_the_edges() {
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[3;5H\x1b[99A")), (0, 4));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[3;5H\x1b[99B")), (4, 4));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[3;5H\x1b[99C")), (2, 9));
    assert_eq!(cursor(&mut screen(10, 5, "\x1b[3;5H\x1b[99D")), (2, 0));
}

#[test]
fn cnl_and_cpl_move_lines_and_return_the_carriage() {
    assert_eq!(cursor(&mut screen(10, 6, "\x1b[2;5H\x1b[2E")), (3, 0));
    assert_eq!(cursor(&mut screen(10, 6, "\x1b[4;5H\x1b[F")), (2, 0));
    assert_eq!(cursor(&mut screen(10, 6, "\x1b[4;5H\x1b[9F")), (0, 0));
    assert_eq!(cursor(&mut screen(10, 6, "\x1b[4;5H\x1b[9E")), (5, 0));
}

#[test]
fn hpr_and_vpr_move_right_and_down() {
    assert_eq!(cursor(&mut screen(10, 6, "\x1b[2;3H\x1b[3a")), (1, 5));
    assert_eq!(cursor(&mut screen(10, 6, "\x1b[2;3H\x1b[2e")), (3, 2));
    assert_eq!(
        cursor(&mut screen(10, 6, "\x1b[2;3H\x1b[99a\x1b[99e")),
        (5, 9)
    );
}

#[test]
fn cuu_and_cud_stop_at_the_region_margins_from_inside() {
    // Region rows 2-4 (1-based) of 6.
    let region = "\x1b[2;4r";
    assert_eq!(
        cursor(&mut screen(10, 6, format!("{region}\x1b[3;1H\x1b[9A"))),
        (1, 0)
    );
    assert_eq!(
        cursor(&mut screen(10, 6, format!("{region}\x1b[3;1H\x1b[9B"))),
        (3, 0)
    );
    // From below the region, CUU stops at its top too (the cursor is past the
    // top margin); from above it, CUD stops at the bottom margin.
    assert_eq!(
        cursor(&mut screen(10, 6, format!("{region}\x1b[6;1H\x1b[A"))),
        (4, 0)
    );
    assert_eq!(
        cursor(&mut screen(10, 6, format!("{region}\x1b[6;1H\x1b[9A"))),
        (1, 0)
    );
    assert_eq!(
        cursor(&mut screen(10, 6, format!("{region}\x1b[1;1H\x1b[9B"))),
        (3, 0)
    );
    // Outside on the far side, only the screen edge limits.
    assert_eq!(
        cursor(&mut screen(10, 6, format!("{region}\x1b[1;1H\x1b[9A"))),
        (0, 0)
    );
    assert_eq!(
        cursor(&mut screen(10, 6, format!("{region}\x1b[6;1H\x1b[9B"))),
        (5, 0)
    );
}

#[test]
fn vpr_is_not_limited_by_the_region() {
    // As xterm.js: VPR (CSI e) moves past the bottom margin, unlike CUD.
    assert_eq!(
        cursor(&mut screen(10, 6, "\x1b[2;4r\x1b[3;1H\x1b[9e")),
        (5, 0)
    );
}

#[test]
fn origin_mode_addresses_relative_to_the_region() {
    let region = "\x1b[3;5r\x1b[?6h";
    // Setting DECOM homes the cursor to the region's top-left corner.
    assert_eq!(cursor(&mut screen(10, 8, region)), (2, 0));
    assert_eq!(
        cursor(&mut screen(10, 8, format!("{region}\x1b[2;3H"))),
        (3, 2)
    );
    // Rows past the region clamp to its bottom margin.
    assert_eq!(
        cursor(&mut screen(10, 8, format!("{region}\x1b[99;1H"))),
        (4, 0)
    );
    assert_eq!(
        cursor(&mut screen(10, 8, format!("{region}\x1b[2;1H\x1b[1d"))),
        (2, 0)
    );
    assert_eq!(
        cursor(&mut screen(10, 8, format!("{region}\x1b[3d"))),
        (4, 0)
    );
    let mut term = screen(10, 8, format!("{region}\x1b[1;4HX"));
    assert_eq!(lines(&mut term), ["", "", "   X", "", "", "", "", ""]);
}

#[test]
fn leaving_origin_mode_homes_to_the_screen() {
    let mut term = screen(10, 8, "\x1b[3;5r\x1b[?6h\x1b[2;2H\x1b[?6l");
    assert_eq!(cursor(&mut term), (0, 0));
    term.advance(b"\x1b[8;1H");
    assert_eq!(cursor(&mut term), (7, 0));
}

#[test]
fn decstbm_homes_the_cursor_and_rejects_empty_regions() {
    assert_eq!(cursor(&mut screen(10, 6, "\x1b[4;4H\x1b[2;5r")), (0, 0));
    // top >= bottom is ignored: the cursor stays.
    assert_eq!(cursor(&mut screen(10, 6, "\x1b[4;4H\x1b[5;2r")), (3, 3));
}

#[test]
fn backspace_and_carriage_return() {
    let mut term = screen(10, 3, "abc\x08\x08x");
    assert_eq!(lines(&mut term), ["axc", "", ""]);
    assert_eq!(cursor(&mut term), (0, 2));
    // BS stops at column 0.
    assert_eq!(cursor(&mut screen(10, 3, "a\x08\x08\x08")), (0, 0));
    let mut term = screen(10, 3, "abc\rX");
    assert_eq!(lines(&mut term), ["Xbc", "", ""]);
}

#[test]
fn decsc_saves_and_decrc_restores_protection() {
    // Protection on at DECSC, off when restored: the restore turns it back on.
    let mut term = screen(6, 2, "\x1b[1\"q\x1b7\x1b[0\"q\x1b8ab\x1b[1;1;1;6${");
    assert_eq!(lines(&mut term)[0], "ab");
}

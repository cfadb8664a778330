//! The work meter: a sequence costs the cells it touches, not its bytes,
//! and a metered advance stops once its share is spent, the parser picking
//! up where it stopped.

use super::{lines, screen};
use crate::Term;

/// The work one advance of `bytes` took on a fresh `cols` x `rows` terminal.
fn work_of(cols: u16, rows: u16, bytes: &[u8]) -> u64 {
    let mut term = Term::new(cols, rows, 0);
    term.advance(bytes);
    term.work()
}

#[test]
fn plain_text_costs_its_characters() {
    assert_eq!(work_of(80, 24, b"hello"), 5);
    assert_eq!(work_of(80, 24, "héllo".as_bytes()), 5);
}

#[test]
fn whole_screen_sequences_cost_the_screen() {
    let cells = 200 * 100;
    for (name, bytes) in [
        ("DECRARA", &b"\x1b[;;;;7$t"[..]),
        ("DECCARA", b"\x1b[;;;;1$r"),
        ("DECERA", b"\x1b[;;;$z"),
        ("DECFRA", b"\x1b[88;;;;$x"),
        ("DECALN", b"\x1b#8"),
        ("ED 2", b"\x1b[2J"),
        ("SU 1000", b"\x1b[1000S"),
        ("SD 1000", b"\x1b[1000T"),
        ("IL 1000", b"\x1b[1000L"),
        ("DL 1000", b"\x1b[1000M"),
        ("REP 65535", b"x\x1b[65535b"),
    ] {
        let work = work_of(200, 100, bytes);
        assert!(
            work >= cells as u64,
            "{name}: {work} units for {} bytes touching {cells} cells",
            bytes.len()
        );
    }
    // Scroll regions and insert/delete lines inside them cost their region.
    let region = work_of(200, 100, b"\x1b[10;60r\x1b[10H\x1b[1000L");
    assert!(region >= 51 * 200, "IL in a 51-row region: {region}");
}

#[test]
fn a_metered_advance_stops_when_its_share_is_spent_and_resumes() {
    let mut metered = screen(100, 50, "x");
    let mut whole = screen(100, 50, "x");
    let bytes = b"\x1b[;;;;7$tA\x1b[;;;;7$tB\x1b[;;;;7$tC".repeat(3);
    whole.advance(&bytes);
    let mut at = 0;
    let mut slices = 0;
    while at < bytes.len() {
        let read = metered.advance_within(&bytes[at..], 100 * 50);
        assert!(read > 0, "every slice reads something");
        assert!(metered.work() <= 100 * 50 + 2, "one DECRARA per slice");
        at += read;
        slices += 1;
    }
    assert_eq!(slices, 10, "each whole-screen DECRARA ends a slice");
    assert_eq!(lines(&mut metered), lines(&mut whole));
    assert_eq!(
        metered.snapshot().lines[0].cells()[0].style(),
        whole.snapshot().lines[0].cells()[0].style()
    );
}

//! Robustness: no byte stream may panic the emulator or grow its memory
//! without bound. Huge and numerous parameters, sequences cut off at the end
//! of the input, invalid UTF-8, an endless OSC string, a flood of combining
//! marks, a huge REP, thousands of hyperlinks and megabytes of random bytes on
//! a 1000x1000 screen. Bounds are checked on outcomes (title length, cluster
//! text, link table, scrollback heap bytes), never on timing.

use panecast::render::ScreenJson;
use panecast_term::{Color, Term};

/// Takes a snapshot, checks its shape and renders it as JSON.
fn check(term: &mut Term) -> ScreenJson {
    if let Err(problem) = term.audit_style_counts() {
        panic!("{problem}");
    }
    let snapshot = term.snapshot();
    let (cols, rows) = (snapshot.cols as usize, snapshot.rows as usize);
    assert_eq!(snapshot.lines.len(), rows);
    assert!(snapshot.cursor.row < snapshot.rows && snapshot.cursor.col < snapshot.cols);
    for line in &snapshot.lines {
        assert_eq!(line.cells().len(), cols);
        for cell in line.cells() {
            assert!((cell.style().0 as usize) < snapshot.styles.len().max(1));
        }
    }
    for style in snapshot.styles.iter() {
        assert!((style.link as usize) < snapshot.links.len().max(1));
    }
    let json = ScreenJson::from_snapshot(&snapshot);
    serde_json::to_string(&json).expect("screen JSON serializes");
    json
}

/// Feeds `bytes` to a fresh `cols` x `rows` terminal and checks the result.
fn feed(cols: u16, rows: u16, bytes: &[u8]) -> (Term, ScreenJson) {
    let mut term = Term::new(cols, rows, 1_000);
    term.advance(bytes);
    let json = check(&mut term);
    (term, json)
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

#[test]
fn huge_parameters_clamp() {
    let (mut term, _) = feed(80, 24, b"\x1b[99999999999;99999999999H");
    assert_eq!(term.snapshot().cursor.row, 23);
    assert_eq!(term.snapshot().cursor.col, 79);
    term.advance(b"\x1b[99999999999A\x1b[99999999999D");
    let cursor = term.snapshot().cursor;
    assert_eq!((cursor.row, cursor.col), (0, 0));
    term.advance(b"\x1b[99999999999B\x1b[99999999999C");
    let cursor = term.snapshot().cursor;
    assert_eq!((cursor.row, cursor.col), (23, 79));
    for final_byte in b"@ABCDEFGHIJKLMPSTXZ`abcdefghlmnqrstu" {
        let mut seq = b"x\x1b[99999999999".to_vec();
        seq.push(*final_byte);
        term.advance(&seq);
        check(&mut term);
    }
    term.advance(b"\x1b[?99999999999h\x1b[99999999999;99999999999r\x1b[99999999999 q");
    term.advance(b"\x1b[H\x1b[38;2;99999;99999;99999m\x1b[48;5;99999mX");
    let snapshot = term.snapshot();
    let style = snapshot.style(snapshot.lines[0].cells()[0].style());
    assert_eq!(style.fg, Color::Rgb(255, 255, 255));
    assert_eq!(style.bg, Color::Indexed(255));
    check(&mut term);
}

#[test]
fn a_thousand_parameters() {
    let many = |param: &str, sep: &str, end: &str| -> Vec<u8> {
        let mut seq = b"\x1b[".to_vec();
        seq.extend(vec![param; 1000].join(sep).bytes());
        seq.extend(end.bytes());
        seq
    };
    for seq in [
        many("1", ";", "m"),
        many("5", ";", "H"),
        many("?1000", ";", "h"),
        many("38", ":", "m"),
        many("2", ":", "m"),
        many("", ";", "J"),
        many("65535", ";", "L"),
    ] {
        let mut input = seq.clone();
        input.extend(b"after");
        let (_, json) = feed(40, 10, &input);
        assert!(
            json.lines.iter().any(|l| l.contains("after")),
            "{:?}",
            &seq[..20]
        );
    }
    // Ever-growing lists of parameters in one stream.
    let mut term = Term::new(40, 10, 100);
    for n in [10, 100, 1000, 10_000] {
        term.advance(&many("7", ";", "m")[..(2 + 2 * n).min(2001)]);
        term.advance(b"m");
    }
    check(&mut term);
}

#[test]
fn truncated_sequences_at_the_end_of_the_input() {
    let prefixes: [&[u8]; 22] = [
        b"\x1b",
        b"\x1b[",
        b"\x1b[12",
        b"\x1b[12;",
        b"\x1b[?",
        b"\x1b[?25",
        b"\x1b[38;2;1",
        b"\x1b[38:2:",
        b"\x1b[ ",
        b"\x1b(",
        b"\x1b#",
        b"\x1b]",
        b"\x1b]0;tit",
        b"\x1b]8;;http://x",
        b"\x1bP",
        b"\x1bP1$r",
        b"\x1b_apc",
        b"\x1b^pm",
        b"\x1bXsos",
        b"\xe4",
        b"\xe4\xb8",
        b"\xf0\x9f\x98",
    ];
    for prefix in prefixes {
        let mut input = b"ab".to_vec();
        input.extend_from_slice(prefix);
        let (mut term, json) = feed(20, 4, &input);
        assert!(
            json.lines[0].starts_with("ab"),
            "{prefix:?}: {:?}",
            json.lines
        );
        // String terminator, then text: the parser is back in the ground state.
        term.advance(b"\x1b\\cd");
        let json = check(&mut term);
        assert!(
            json.lines.iter().any(|l| l.contains("cd")),
            "{prefix:?}: {:?}",
            json.lines
        );
    }
}

#[test]
fn invalid_utf8() {
    let input =
        b"a\xffb\xc3(c\xe2\x82d\xf0\x9f\x98e\xed\xa0\x80f\xc0\xafg\x80\xbfh\xf8\x88\x80\x80\x80i";
    let (_, json) = feed(80, 2, input);
    let line = &json.lines[0];
    let letters: String = line.chars().filter(|c| c.is_ascii_lowercase()).collect();
    assert_eq!(letters, "abcdefghi", "{line:?}");
    assert!(line.contains('\u{fffd}'), "{line:?}");
}

#[test]
fn an_endless_osc_string_is_bounded() {
    let mut term = Term::new(80, 24, 100);
    term.advance(b"\x1b]0;");
    let chunk = vec![b'x'; 64 * 1024];
    for _ in 0..160 {
        term.advance(&chunk); // 10 MB in all
    }
    term.advance(b"\x07visible");
    let json = check(&mut term);
    assert_eq!(json.lines[0], "visible");
    assert!(
        term.title().chars().count() <= 1024,
        "{} chars",
        term.title().chars().count()
    );
    assert!(term.title().bytes().all(|b| b == b'x'));

    // The same for a hyperlink URI: too long to keep, and the text after it prints.
    term.advance(b"\r\n\x1b]8;;http://");
    for _ in 0..160 {
        term.advance(&chunk);
    }
    term.advance(b"\x1b\\link\x1b]8;;\x1b\\");
    let snapshot = term.snapshot();
    assert_eq!(snapshot.lines[1].text(), "link");
    assert!(snapshot.links.iter().all(|l| l.uri.len() <= 8 * 1024));
}

#[test]
fn endless_dcs_and_apc_strings_print_nothing() {
    let mut term = Term::new(80, 24, 100);
    for opener in [&b"\x1bP1$r"[..], b"\x1b_", b"\x1b^", b"\x1bX"] {
        term.advance(opener);
        let chunk = vec![b'y'; 64 * 1024];
        for _ in 0..16 {
            term.advance(&chunk);
        }
        term.advance(b"\x1b\\");
    }
    term.advance(b"after");
    let json = check(&mut term);
    assert_eq!(json.lines[0], "after");
}

#[test]
fn a_hundred_thousand_combining_marks_on_one_cell() {
    let mut input = b"e".to_vec();
    input.extend("\u{301}".repeat(100_000).bytes());
    input.extend(b"x");
    let (mut term, json) = feed(80, 2, &input);
    let snapshot = term.snapshot();
    let cluster = snapshot.lines[0].cluster(0).expect("a cluster");
    assert!(cluster.starts_with("e\u{301}"));
    assert!(cluster.len() <= 128, "{} bytes", cluster.len());
    assert!(json.lines[0].len() <= 256, "{} bytes", json.lines[0].len());
    assert!(json.lines[0].ends_with('x'));
    assert_eq!((snapshot.cursor.row, snapshot.cursor.col), (0, 2));

    // Marks on every cell of a screen, and joiners after wide characters.
    let mut term = Term::new(40, 10, 100);
    for _ in 0..400 {
        term.advance("a\u{301}\u{302}\u{303}\u{4e2d}\u{200d}\u{200d}\u{fe0f}".as_bytes());
        term.advance("\u{300}".repeat(200).as_bytes());
    }
    let json = check(&mut term);
    assert!(json.lines.iter().all(|l| l.len() <= 40 * 130));
}

#[test]
fn a_huge_rep_is_bounded_by_the_screen() {
    let (term, json) = feed(80, 24, b"x\x1b[99999999b");
    // The parser caps a parameter at 65,535 and REP at the screen's cells (1,920):
    // 1,921 x in all, so the screen scrolled once.
    assert!(json.lines[..23].iter().all(|l| l == &"x".repeat(80)));
    assert_eq!(json.lines[23], "x");
    assert_eq!(term.scrollback_len(), 1);
    // Repeating REPs keep the same bound each.
    let mut input = b"y".to_vec();
    for _ in 0..50 {
        input.extend(b"\x1b[65535b");
    }
    let (_, json) = feed(80, 24, &input);
    assert!(json.lines.iter().all(|l| l.chars().all(|c| c == 'y')));
}

#[test]
fn ten_thousand_distinct_hyperlinks() {
    let mut term = Term::new(80, 24, 1_000);
    for i in 0..10_000 {
        term.advance(format!("\x1b]8;id={i};https://example.com/{i}\x07L\x1b]8;;\x07").as_bytes());
    }
    let json = check(&mut term);
    assert!(json.lines.iter().all(|l| l.chars().all(|c| c == 'L')));
    let snapshot = term.snapshot();
    assert!(
        snapshot.links.len() <= 4096 + 1,
        "{} links kept (id 0 included)",
        snapshot.links.len()
    );
    for line in &snapshot.lines {
        for cell in line.cells() {
            if let Some(link) = snapshot.link(&snapshot.style(cell.style())) {
                assert!(link.uri.starts_with("https://example.com/"));
            }
        }
    }
    // Long URIs are refused rather than stored.
    let long = "u".repeat(6000);
    for i in 0..100 {
        term.advance(format!("\x1b]8;;{long}{i}\x07M\x1b]8;;\x07").as_bytes());
    }
    let snapshot = term.snapshot();
    assert!(snapshot.links.iter().all(|l| l.uri.len() <= 2048));
}

#[test]
fn a_1000x1000_terminal_fed_a_megabyte_of_random_bytes() {
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let mut term = Term::new(1000, 1000, 1_000);
    let mut fed = 0;
    let mut next_check = 0;
    while fed < 1 << 20 {
        let len = 1 + rng.below(8192);
        term.advance(&rng.bytes(len));
        fed += len;
        if fed >= next_check {
            check(&mut term);
            next_check += 256 * 1024;
        }
    }
    check(&mut term);
    assert!(term.scrollback_len() <= 1_000);
    assert!(term.take_replies().len() <= 64 * 1024);
    // 1,000 lines of at most 1,000 cells of 8 bytes, with some slack per block.
    assert!(
        term.scrollback_heap_bytes() <= 16 << 20,
        "{} bytes",
        term.scrollback_heap_bytes()
    );
}

#[test]
fn escape_rich_random_input_with_resizes() {
    const PIECES: [&[u8]; 24] = [
        b"\x1b[",
        b"\x1b]",
        b"\x1b",
        b";",
        b":",
        b"?",
        b"1",
        b"2",
        b"9",
        b"99",
        b"H",
        b"J",
        b"K",
        b"L",
        b"M",
        b"@",
        b"P",
        b"m",
        b"h",
        b"r",
        b"\x07",
        b"\r\n",
        "\u{4e2d}e\u{301}".as_bytes(),
        b"text",
    ];
    let mut rng = Rng(42);
    let mut term = Term::new(120, 40, 500);
    for round in 0..200 {
        let mut chunk = Vec::new();
        for _ in 0..500 {
            chunk.extend_from_slice(PIECES[rng.below(PIECES.len())]);
        }
        term.advance(&chunk);
        if round % 10 == 0 {
            let cols = [1, 2, 3, 80, 333, 1000][rng.below(6)];
            let rows = [1, 2, 5, 40, 250][rng.below(5)];
            term.resize(cols, rows);
        }
        check(&mut term);
    }
    assert!(term.scrollback_len() <= 500);
}

#[test]
fn a_one_column_terminal_with_wide_characters() {
    // Dropped: a wide character cannot be shown on one column.
    let (_, json) = feed(1, 3, "a\u{4e2d}b".as_bytes());
    assert_eq!(json.lines, ["a", "b", ""]);
    let mut term = Term::new(80, 3, 100);
    term.advance("\u{4e2d}\u{4e2d}".as_bytes());
    term.resize(1, 3);
    term.advance("\u{4e2d}x\x1b[?7l\u{4e2d}".as_bytes());
    check(&mut term);
}

#[test]
fn scrollback_memory_follows_its_limit() {
    let mut term = Term::new(1000, 10, 500);
    let line = format!("{}\r\n", "x".repeat(1000));
    for _ in 0..10 {
        term.advance(line.repeat(500).as_bytes());
    }
    assert_eq!(term.scrollback_len(), 500);
    // 500 lines of 1,000 cells of 8 bytes is 4 MB.
    let bytes = term.scrollback_heap_bytes();
    assert!(bytes <= 8 << 20, "{bytes} bytes");
}

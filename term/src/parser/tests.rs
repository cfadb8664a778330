use super::*;

/// Everything the parser reported, as text, with adjacent ASCII runs joined
/// (how text is split into runs depends on chunking; what it says does not).
#[derive(Default)]
struct Log(Vec<String>);

impl Log {
    fn text(&mut self, s: &str) {
        match self.0.last_mut() {
            Some(last) if last.starts_with("print ") => last.push_str(s),
            _ => self.0.push(format!("print {s}")),
        }
    }
}

impl Actions for Log {
    fn print_ascii(&mut self, run: &[u8]) {
        assert!(!run.is_empty() && run.iter().all(|b| (0x20..0x7f).contains(b)));
        self.text(std::str::from_utf8(run).unwrap());
    }
    fn print_text(&mut self, text: &[char]) {
        assert!(
            !text.is_empty()
                && text
                    .iter()
                    .all(|c| !c.is_ascii() && !('\u{80}'..='\u{9f}').contains(c))
        );
        self.text(&text.iter().collect::<String>());
    }
    fn print(&mut self, c: char) {
        self.text(&c.to_string());
    }
    fn execute(&mut self, byte: u8) {
        self.0.push(format!("exec {byte:02x}"));
    }
    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        let inter = String::from_utf8_lossy(intermediates);
        self.0
            .push(format!("csi {inter}{params:?}{action} ignore={ignore}"));
    }
    fn esc_dispatch(&mut self, intermediates: &[u8], ignore: bool, byte: u8) {
        let inter = String::from_utf8_lossy(intermediates);
        self.0
            .push(format!("esc {inter}{} ignore={ignore}", byte as char));
    }
    fn osc_dispatch(&mut self, params: &[&[u8]], bell_terminated: bool) {
        let parts: Vec<String> = params
            .iter()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        self.0
            .push(format!("osc {} bel={bell_terminated}", parts.join("|")));
    }
    fn hook(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        let inter = String::from_utf8_lossy(intermediates);
        self.0
            .push(format!("hook {inter}{params:?}{action} ignore={ignore}"));
    }
    fn put(&mut self, byte: u8) {
        self.0.push(format!("put {}", byte as char));
    }
    fn unhook(&mut self) {
        self.0.push("unhook".into());
    }
}

fn parse_chunks<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Vec<String> {
    let mut parser = Parser::new();
    let mut log = Log::default();
    for chunk in chunks {
        parser.advance(&mut log, chunk);
    }
    log.0
}

fn parse(bytes: &[u8]) -> Vec<String> {
    parse_chunks([bytes])
}

/// A stream exercising every state: text in three scripts, controls, CSI
/// with private markers, sub-parameters and intermediates, ESC sequences,
/// OSC by BEL and by ST, DCS, APC, CAN inside a sequence, invalid UTF-8 and
/// 8-bit C1 controls.
const MIXED: &[u8] = b"hi \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80\r\n\x1b[1;38:2::10:20:30m\
x\x1b[?1049h\x1b[ q\x1b[>c\x1b(0q\x1b(B\x1b7\x1b]0;t;i;tle\x07\x1b]8;id=a;http://x\x1b\\\
\x1bP1$qm\x1b\\\x1b_apc\x1b\\\x1b[1\x182J\x1b[3\x0aA\xff\xc3(\x84\xc2\x85z\x7f\x1b[4:3m";

#[test]
fn reports_each_kind_of_sequence() {
    let log = parse(MIXED);
    let expect = [
        "print hi 中文 😀",
        "exec 0d",
        "exec 0a",
        "csi [1;38:2:0:10:20:30]m ignore=false",
        "print x",
        "csi ?[1049]h ignore=false",
        "csi  [0]q ignore=false",
        "csi >[0]c ignore=false",
        "esc (0 ignore=false",
        "print q",
        "esc (B ignore=false",
        "esc 7 ignore=false",
        "osc 0|t|i|tle bel=true",
        "osc 8|id=a|http://x bel=false",
        "esc \\ ignore=false",
        "hook $[1]q ignore=false",
        "put m",
        "unhook",
        "esc \\ ignore=false",
        "esc \\ ignore=false",
        "exec 18",
        "print 2J",
        "exec 0a",
        "csi [3]A ignore=false",
        "print \u{fffd}\u{fffd}(",
        "exec 84",
        "exec 85",
        "print z\x7f",
        "csi [4:3]m ignore=false",
    ];
    assert_eq!(log, expect);
}

#[test]
fn any_split_gives_the_same_actions() {
    let whole = parse(MIXED);
    for at in 1..MIXED.len() {
        let (a, b) = MIXED.split_at(at);
        assert_eq!(parse_chunks([a, b]), whole, "split at {at}");
    }
    assert_eq!(parse_chunks(MIXED.chunks(1)), whole, "byte at a time");
}

#[test]
fn a_character_split_across_chunks_is_printed_once() {
    let log = parse_chunks([&b"a\xe4"[..], b"\xb8", b"\xadb"]);
    assert_eq!(log, ["print a中b"]);
    let log = parse_chunks([&b"\xf0\x9f"[..], b"A"]);
    assert_eq!(log, ["print \u{fffd}A"]);
}

#[test]
fn too_many_parameters_are_dispatched_as_ignored() {
    let mut seq = b"\x1b[".to_vec();
    seq.extend(std::iter::repeat_n(&b"1;"[..], MAX_PARAMS + 3).flatten());
    seq.push(b'm');
    let log = parse(&seq);
    assert_eq!(log.len(), 1);
    assert!(log[0].ends_with("m ignore=true"), "{log:?}");
    let log = parse(b"\x1b[1$$$p");
    assert_eq!(log, ["csi $$[1]p ignore=true"]);
}

#[test]
fn huge_numbers_saturate() {
    assert_eq!(parse(b"\x1b[99999999999H"), ["csi [65535]H ignore=false"]);
}

#[test]
fn an_endless_osc_string_is_bounded() {
    let mut parser = Parser::new();
    let mut log = Log::default();
    parser.advance(&mut log, b"\x1b]2;");
    for _ in 0..1000 {
        parser.advance(&mut log, &[b'x'; 4096]);
    }
    assert!(
        parser.osc.capacity() <= 2 * MAX_OSC_BYTES,
        "{}",
        parser.osc.capacity()
    );
    parser.advance(&mut log, b"\x07after");
    assert_eq!(log.0.len(), 2);
    assert_eq!(
        log.0[0].len(),
        "osc 2|".len() + MAX_OSC_BYTES - 2 + " bel=true".len()
    );
    assert_eq!(log.0[1], "print after");
}

#[test]
fn controls_inside_a_sequence_run_and_the_sequence_goes_on() {
    assert_eq!(
        parse(b"\x1b[2\x08;3H"),
        ["exec 08", "csi [2;3]H ignore=false"]
    );
    assert_eq!(parse(b"\x1b[?1\x1b[5m"), ["csi [5]m ignore=false"]);
}

#[test]
fn an_osc_string_is_split_into_at_most_sixteen_parameters() {
    let many: String = (0..20).map(|i| format!("{i};")).collect();
    let log = parse(format!("\x1b]{many}\x07").as_bytes());
    let rest: String = (15..20).map(|i| format!("{i};")).collect();
    let first: Vec<String> = (0..15).map(|i| i.to_string()).collect();
    assert_eq!(log, [format!("osc {}|{rest} bel=true", first.join("|"))]);
}

//! Shared by the emulator benchmarks (`throughput.rs`, `memory.rs`,
//! `instructions.rs`, `steady.rs`, ..., and the server's `whole.rs` and
//! `replay_seek.rs`): where the shared data lives, the deterministic
//! payload generators, and how to build the alacritty_terminal instance
//! panecast is compared with.
//!
//! Every generator is seeded and pure, so each run (and each machine) feeds
//! the same bytes. Generated text uses CR LF line ends, as a pty delivers it.

// Each bench uses its own subset of these helpers.
#![allow(dead_code)]

pub mod feed;

use std::fmt::Write as _;
use std::path::PathBuf;

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::term::test::TermSize;
use alacritty_terminal::term::Config;

/// Bytes handed to the emulator at once: the pty reader's buffer size.
pub const CHUNK: usize = 64 * 1024;
/// Size of the generated payloads and of the repeated recordings.
pub const PAYLOAD_BYTES: usize = 1024 * 1024;
/// Scrollback lines both emulators keep.
pub const SCROLLBACK: usize = 10_000;

/// One benchmark input: its name, the grid size to feed it to, and its bytes.
pub struct Payload {
    pub name: String,
    pub cols: u16,
    pub rows: u16,
    pub bytes: Vec<u8>,
}

/// The shared data directory: `$PANECAST_SHARED`, else `../../shared` from
/// this crate's manifest.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("PANECAST_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

fn read(path: &std::path::Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Every vtebench payload (`bench/vtebench/*.bin`), by name, for a 120x40 grid.
pub fn vtebench() -> Vec<Payload> {
    let dir = shared_dir().join("bench/vtebench");
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "bin"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no payloads in {}", dir.display());
    paths
        .into_iter()
        .map(|path| Payload {
            name: path
                .file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned(),
            cols: 120,
            rows: 40,
            bytes: read(&path),
        })
        .collect()
}

/// A corpus recording (`corpus/cases/NAME.bin`) repeated to about 1 MiB, at
/// the size it was recorded at (`NAME.json`).
pub fn corpus_repeated(name: &str) -> Payload {
    let cases = shared_dir().join("corpus/cases");
    let meta: serde_json::Value =
        serde_json::from_slice(&read(&cases.join(format!("{name}.json"))))
            .unwrap_or_else(|e| panic!("parsing {name}.json: {e}"));
    let size = |key: &str| {
        let n = meta[key].as_u64();
        n.and_then(|n| u16::try_from(n).ok())
            .unwrap_or_else(|| panic!("{name}.json: no `{key}`"))
    };
    let once = read(&cases.join(format!("{name}.bin")));
    assert!(!once.is_empty(), "{name}.bin is empty");
    let mut bytes = Vec::with_capacity(PAYLOAD_BYTES + once.len());
    while bytes.len() < PAYLOAD_BYTES {
        bytes.extend_from_slice(&once);
    }
    Payload {
        name: name.to_owned(),
        cols: size("cols"),
        rows: size("rows"),
        bytes,
    }
}

/// SplitMix64: a tiny deterministic generator, so payloads never change.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    pub fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.below(items.len())]
    }
}

#[rustfmt::skip]
const WORDS: &[&str] = &[
    "request", "session", "viewer", "connected", "closed", "frame", "published", "bytes",
    "latency", "cache", "miss", "hit", "worker", "started", "stopped", "retry", "timeout",
    "upstream", "config", "reloaded", "user", "token", "expired", "queue", "depth", "flush",
    "checkpoint", "written", "compaction", "finished", "scheduler", "tick", "lease", "renewed",
];
#[rustfmt::skip]
const LEVELS: &[&str] = &["INFO ", "INFO ", "INFO ", "DEBUG", "WARN ", "ERROR", "TRACE"];
const MODULES: &[&str] = &[
    "panecast::session",
    "panecast::api::streams::ws",
    "panecast::pty",
    "hyper::server",
    "tokio::runtime",
    "db::pool",
    "auth::jwt",
];

fn timestamp(out: &mut String, i: usize) {
    let ms = 1_700_000_000_000u64 + i as u64 * 137;
    let (s, ms) = (ms / 1000, ms % 1000);
    let (h, m, s) = ((s / 3600) % 24, (s / 60) % 60, s % 60);
    let _ = write!(out, "2024-03-14T{h:02}:{m:02}:{s:02}.{ms:03}Z");
}

/// Plain ASCII log lines (timestamp, level, module, message), CR LF, about
/// `bytes` long. No escape sequences: the print fast path and line feeds.
pub fn ascii_log(bytes: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x5eed_0001);
    let mut out = String::with_capacity(bytes + 256);
    let mut i = 0;
    while out.len() < bytes {
        timestamp(&mut out, i);
        let _ = write!(out, " {} {}: ", rng.pick(LEVELS), rng.pick(MODULES));
        for w in 0..rng.range(3, 14) {
            if w > 0 {
                out.push(' ');
            }
            out.push_str(rng.pick(WORDS));
            if rng.below(4) == 0 {
                let _ = write!(out, "={}", rng.below(100_000));
            }
        }
        out.push_str("\r\n");
        i += 1;
    }
    out.into_bytes()
}

/// Emoji that are one scalar value.
const EMOJI: &[&str] = &[
    "😀", "😂", "🥲", "😍", "🤔", "🙈", "🎉", "🔥", "🚀", "🌸", "🍣", "🍜", "🐱", "🐶", "⭐", "✅",
    "❤️", "👍🏽", "👋🏻", "🤝🏿",
];
/// Emoji ZWJ sequences and flags: one cluster, several scalar values.
const EMOJI_SEQUENCES: &[&str] = &[
    "👨\u{200d}👩\u{200d}👧\u{200d}👦",
    "👩\u{200d}💻",
    "🧑🏿\u{200d}🚀",
    "🏳️\u{200d}🌈",
    "👩🏽\u{200d}🔬",
    "🐕\u{200d}🦺",
    "❤️\u{200d}🔥",
    "🇯🇵",
    "🇨🇳",
    "🇰🇷",
];
const PUNCTUATION: &[&str] = &["、", "。", "「", "」", "・", "ー", "！", "？", " ", " "];

fn push_range(out: &mut String, rng: &mut Rng, lo: u32, hi: u32) {
    let c = char::from_u32(lo + rng.below((hi - lo + 1) as usize) as u32).expect("a valid char");
    out.push(c);
}

/// Mixed CJK ideographs, hiragana, katakana, emoji (with skin tones, ZWJ
/// sequences and flags) and full-width punctuation, CR LF, about `bytes`
/// long. Lines run from a few cells to a little over 120, so some wrap.
pub fn cjk_emoji(bytes: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x5eed_0002);
    let mut out = String::with_capacity(bytes + 256);
    while out.len() < bytes {
        // Most glyphs are two cells wide.
        for _ in 0..rng.range(4, 64) {
            match rng.below(20) {
                0..=6 => push_range(&mut out, &mut rng, 0x4e00, 0x9fa5),
                7..=9 => push_range(&mut out, &mut rng, 0x3041, 0x3096),
                10..=11 => push_range(&mut out, &mut rng, 0x30a1, 0x30fa),
                12..=13 => out.push_str(rng.pick(EMOJI)),
                14 => out.push_str(rng.pick(EMOJI_SEQUENCES)),
                15..=17 => out.push_str(rng.pick(PUNCTUATION)),
                _ => {
                    let len = rng.range(1, 6);
                    for _ in 0..len {
                        out.push((b'a' + rng.below(26) as u8) as char);
                    }
                }
            }
        }
        out.push_str("\r\n");
    }
    out.into_bytes()
}

#[rustfmt::skip]
const FILE_NAMES: &[&str] = &[
    "Cargo.toml", "Cargo.lock", "README.md", "LICENSE", "build.rs", "main.rs", "lib.rs",
    "config.yaml", "notes.txt", "run.sh", "deploy.sh", "logo.png", "archive.tar.gz",
    "data.json", "index.html", "style.css", "app.js", "Makefile", "target", "src", "tests",
    "docs", "node_modules", ".github", "vendor", "scripts",
];

/// What `ls --color` gives each name: directories, executables, archives, images.
fn ls_colour(name: &str) -> &'static str {
    if !name.contains('.') || name.starts_with('.') {
        "01;34"
    } else if name.ends_with(".sh") {
        "01;32"
    } else if name.ends_with(".gz") {
        "01;31"
    } else if name.ends_with(".png") {
        "01;35"
    } else {
        ""
    }
}

/// A line being written: visible text is cut at `width` columns, escape
/// sequences are free.
struct Line<'a> {
    out: &'a mut String,
    visible: usize,
    width: usize,
}

impl Line<'_> {
    fn text(&mut self, s: &str) {
        let room = self.width.saturating_sub(self.visible);
        let s = &s[..s.len().min(room)];
        self.out.push_str(s);
        self.visible += s.len();
    }

    fn sgr(&mut self, params: &str) {
        let _ = write!(self.out, "\x1b[{params}m");
    }

    fn full(&self) -> bool {
        self.visible + 2 >= self.width
    }
}

/// One line of typical coloured output with `width` visible columns
/// (ASCII, `width <= 120`): `ls --color` listings, rustc diagnostics,
/// coloured logs and `git diff` lines, with SGR as those programs write it.
fn coloured_line(out: &mut String, rng: &mut Rng, i: usize, width: usize) {
    let mut line = Line {
        out,
        visible: 0,
        width,
    };
    match rng.below(4) {
        0 => {
            // ls --color
            while !line.full() {
                let name = rng.pick(FILE_NAMES);
                let colour = ls_colour(name);
                if line.visible > 0 {
                    line.text("  ");
                }
                if colour.is_empty() {
                    line.text(name);
                } else {
                    line.sgr(colour);
                    line.text(name);
                    line.sgr("0");
                }
            }
        }
        1 => match rng.below(3) {
            // rustc
            0 => {
                line.sgr("1");
                line.sgr("91");
                line.text("error[E0308]");
                line.sgr("0");
                line.sgr("1");
                line.text(": mismatched types");
                line.sgr("0");
                line.text(" in this expression, expected `usize`");
            }
            1 => {
                line.sgr("1");
                line.sgr("94");
                line.text("  --> ");
                line.sgr("0");
                line.text(&format!(
                    "src/term/emulator.rs:{}:{}",
                    1 + i % 900,
                    1 + i % 80
                ));
            }
            _ => {
                line.sgr("1");
                line.sgr("94");
                line.text(&format!("{:<4}| ", 1 + i % 999));
                line.sgr("0");
                line.text("let value = ");
                while !line.full() {
                    line.text(rng.pick(WORDS));
                    line.text("(x).");
                }
            }
        },
        2 => {
            // tracing-style log
            let mut stamp = String::new();
            timestamp(&mut stamp, i);
            line.sgr("2");
            line.text(&stamp);
            line.sgr("0");
            line.text(" ");
            let (colour, level) = match rng.below(4) {
                0 => ("33", " WARN"),
                1 => ("31", "ERROR"),
                _ => ("32", " INFO"),
            };
            line.sgr(colour);
            line.text(level);
            line.sgr("0");
            line.text(" ");
            line.sgr("2");
            line.text(rng.pick(MODULES));
            line.text(":");
            line.sgr("0");
            while !line.full() {
                line.text(" ");
                line.text(rng.pick(WORDS));
            }
        }
        _ => {
            // git diff
            let (colour, sign) = match rng.below(3) {
                0 => ("31", "-"),
                1 => ("32", "+"),
                _ => ("", " "),
            };
            if !colour.is_empty() {
                line.sgr(colour);
            }
            line.text(sign);
            line.text("    ");
            while !line.full() {
                line.text(rng.pick(WORDS));
                line.text("(); ");
            }
            if !colour.is_empty() {
                line.sgr("");
            }
        }
    }
    line.out.push_str("\r\n");
}

/// `lines` lines of typical coloured output, 20 to 120 columns each (never
/// wrapping at 120 columns), CR LF.
pub fn coloured_output(lines: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x5eed_0003);
    let mut out = String::with_capacity(lines * 100);
    for i in 0..lines {
        let width = rng.range(20, 120);
        coloured_line(&mut out, &mut rng, i, width);
    }
    out.into_bytes()
}

/// An alacritty_terminal grid of `cols` x `rows` keeping `scrollback` lines.
pub fn alacritty_term(
    cols: u16,
    rows: u16,
    scrollback: usize,
) -> alacritty_terminal::Term<VoidListener> {
    let config = Config {
        scrolling_history: scrollback,
        ..Config::default()
    };
    let size = TermSize::new(cols.into(), rows.into());
    alacritty_terminal::Term::new(config, &size, VoidListener)
}

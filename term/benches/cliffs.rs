//! The emulator's worst cases, each of which once stalled a session:
//! - `resize/scrollback_10000`: reflowing a 120x40 terminal holding 10,000
//!   lines of scrollback (coloured output, a quarter of it soft-wrapped) to
//!   80 columns (target: under 20 ms);
//! - `styles/65536_live`: 65,536 distinct styles all live on a 260x260
//!   screen, then 10,000 more new ones (each once cost a scan of every cell).
//!
//! Every input is built before the clock starts; the terminal is built and
//! fed outside the timed part too. `cargo bench --bench cliffs -- --test`
//! runs each once (CI smoke test).

mod common;

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use panecast_term::Term;

use common::{CHUNK, SCROLLBACK};

/// A 120x40 terminal whose scrollback is full of coloured lines, some
/// longer than the width.
fn full_terminal(history: &[u8]) -> Term {
    let mut term = Term::new(120, 40, SCROLLBACK);
    for chunk in history.chunks(CHUNK) {
        term.advance(chunk);
    }
    assert_eq!(term.scrollback_len(), SCROLLBACK, "the history fills it");
    term
}

/// Coloured output enough to fill the scrollback, every fourth line
/// wrapping over two or three rows.
fn history() -> Vec<u8> {
    let mut out = common::coloured_output(SCROLLBACK * 2);
    for i in 0..SCROLLBACK / 2 {
        let width = 130 + (i % 200);
        let line: String = (0..width)
            .map(|c| (b'a' + (c % 26) as u8) as char)
            .collect();
        out.extend_from_slice(format!("\x1b[3{}m{line}\x1b[m\r\n", i % 8).as_bytes());
    }
    out
}

/// `count` cells, each an `X` in a 24-bit colour of its own from `first` on.
fn distinct_cells(first: u32, count: u32) -> Vec<u8> {
    let mut out = String::with_capacity(count as usize * 24);
    for i in first..first + count {
        let (r, g, b) = ((i >> 16) as u8, (i >> 8) as u8, i as u8);
        // Writing to a String cannot fail.
        let _ = write!(out, "\x1b[38;2;{r};{g};{b}mX");
    }
    out.into_bytes()
}

fn resize(c: &mut Criterion) {
    let history = history();
    let mut group = c.benchmark_group("resize");
    group.sample_size(20);
    group.bench_function("scrollback_10000", |b| {
        b.iter_batched(
            || full_terminal(&history),
            |mut term| {
                term.resize(80, 40);
                black_box(term.scrollback_len());
                term
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn styles(c: &mut Criterion) {
    const LIVE: u32 = 1 << 16;
    const MORE: u32 = 10_000;
    let fill = distinct_cells(0, LIVE);
    let more: Vec<Vec<u8>> = distinct_cells(LIVE, MORE)
        .chunks(CHUNK)
        .map(<[u8]>::to_vec)
        .collect();
    let mut group = c.benchmark_group("styles");
    group.sample_size(20);
    group.throughput(Throughput::Elements(u64::from(MORE)));
    group.bench_function("65536_live", |b| {
        b.iter_batched(
            || {
                let mut term = Term::new(260, 260, 0);
                term.advance(&fill);
                term
            },
            |mut term| {
                for chunk in &more {
                    term.advance(chunk);
                }
                black_box(term.generation());
                term
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

/// A 1000x1000 screen whose rows each hold a few styled runs.
fn styled_screen() -> Term {
    let mut term = Term::new(1000, 1000, 0);
    let mut line = String::new();
    for run in 0..8 {
        let _ = write!(line, "\x1b[3{}m{}", run % 8, "x".repeat(125));
    }
    let mut screen = String::new();
    for _ in 0..1000 {
        screen.push_str(&line);
    }
    term.advance(screen.as_bytes());
    term
}

fn expensive(c: &mut Criterion) {
    let mut group = c.benchmark_group("expensive");
    group.sample_size(20);
    let cases: [(&str, &[u8]); 5] = [
        ("decrara", b"\x1b[;;;;7$t"),
        ("decaln", b"\x1b#8"),
        ("ed2", b"\x1b[2J"),
        ("su1000", b"\x1b[1000S"),
        ("rep65535", b"x\x1b[65535b"),
    ];
    for (name, sequence) in cases {
        let mut probe = styled_screen();
        probe.advance(sequence);
        eprintln!("expensive/{name}: {} units of work", probe.work());
        group.bench_function(name, |b| {
            b.iter_batched(
                styled_screen,
                |mut term| {
                    term.advance(sequence);
                    black_box(term.work());
                    term
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, resize, styles, expensive);
criterion_main!(benches);

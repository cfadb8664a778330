//! Search: `session::search::search_term` over 10,000 lines of scrollback
//! plus an 80x24 screen of log-like text (target: under 10 ms each).
//!
//! Cases: a literal found on a few lines, a literal found nowhere (the whole
//! text is read), a case-insensitive literal, and a regex. The terminal is
//! filled before any clock starts; each iteration searches it once, up to
//! 1,000 matches. `cargo bench --bench search -- --test` runs each once.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

use panecast::session::search::{search_term, Pattern};
use panecast_term::Term;

/// Scrollback lines searched.
const LINES: usize = 10_000;

fn filled() -> Term {
    let mut term = Term::new(80, 24, LINES);
    let mut text = String::new();
    for i in 0..LINES + 24 {
        let level = ["INFO", "WARN", "DEBUG", "ERROR"][i % 4];
        text.push_str(&format!(
            "2026-11-22T12:{:02}:{:02}Z {level} worker-{} request {i} served in {} ms\r\n",
            i / 60 % 60,
            i % 60,
            i % 7,
            i * 37 % 1000
        ));
    }
    term.advance(text.as_bytes());
    assert_eq!(term.scrollback_len(), LINES, "the scrollback is full");
    term
}

fn bench(c: &mut Criterion) {
    let mut term = filled();
    let mut group = c.benchmark_group("search_10k_lines");
    for (name, pattern) in [
        ("literal_rare", Pattern::new("request 4242 ", false, true)),
        ("literal_absent", Pattern::new("no such text", false, true)),
        (
            "literal_nocase",
            Pattern::new("worker-3 REQUEST 999", false, false),
        ),
        (
            "regex",
            Pattern::new(
                r"ERROR worker-\d request \d+ served in 9\d\d ms",
                true,
                true,
            ),
        ),
    ] {
        let pattern = pattern.expect("a valid pattern");
        group.bench_function(name, |b| {
            b.iter(|| {
                let found = search_term(
                    &mut term,
                    &pattern,
                    1000,
                    Instant::now() + Duration::from_secs(10),
                );
                black_box(found)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

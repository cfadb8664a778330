//! The terminal's saved state: `Term::save` and `Term::restore` of an 80x24
//! terminal with 10,000 full lines of styled scrollback (the default
//! scrollback, full), and of one with an empty scrollback. An upgrade saves
//! and restores every session, so these times bound its pause. The
//! terminals are filled, and the state written once, before any clock
//! starts. `cargo bench --bench state -- --test` runs each once.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

use panecast_term::Term;

/// An 80x24 terminal with `lines` lines of scrollback, all of them full.
fn filled(lines: usize) -> Term {
    let mut term = Term::new(80, 24, lines.max(1));
    let mut text = String::new();
    for i in 0..lines + 24 {
        text.push_str(&format!(
            "\x1b[3{}m{i:>6} \x1b[1m{}\x1b[0m {}\r\n",
            i % 8,
            "status ok ".repeat(3),
            "x".repeat(42)
        ));
    }
    term.advance(text.as_bytes());
    term
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("state");
    group.sample_size(10);
    for (name, lines) in [("scrollback_10k", 10_000), ("screen_only", 0)] {
        let term = filled(lines);
        let state = term.save();
        eprintln!("{name}: {} bytes", state.len());
        group.bench_function(format!("save_{name}"), |b| {
            b.iter(|| black_box(term.save()))
        });
        group.bench_function(format!("restore_{name}"), |b| {
            b.iter(|| black_box(Term::restore(&state).expect("reads back")))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

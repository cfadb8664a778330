//! Emulator throughput: panecast's `term::Term` against alacritty_terminal
//! 0.26, in MB/s of terminal output consumed, measured in the same run.
//!
//! Each payload is fed in 64 KiB chunks (the pty reader's buffer), and after
//! every chunk the changed rows are collected, as the session actor does
//! before publishing a frame: for panecast `changed_rows` since the last
//! `observe()` plus the scroll hint, for alacritty its `damage()` lines
//! followed by `reset_damage()`. Both terminals keep 10,000 lines of
//! scrollback. A fresh terminal is built for every iteration, outside the
//! timed part, and dropped outside it too.
//!
//! Payloads (each a criterion group holding the `panecast` and `alacritty`
//! ids, so the ratio comes from one run):
//! - every vtebench stream in `shared/bench/vtebench` (120x40);
//! - `ascii_log`: ~1 MiB of plain log lines (120x40);
//! - `cjk_emoji`: ~1 MiB of CJK, kana and emoji incl. ZWJ sequences (120x40);
//! - `vim-edit`, `htop`: the corpus recordings repeated to ~1 MiB, at each
//!   case's own recorded size from `NAME.json` (vim 80x24, htop 120x40).
//!
//! Inputs are read, generated and split into chunks before any clock starts.
//! `cargo bench --bench throughput -- --test` runs each once (CI smoke test).
//! Data is found under `$PANECAST_SHARED`, else `../../shared` from the crate.

mod common;

use alacritty_terminal::vte::ansi::Processor;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode, Throughput};

use common::feed::{payloads, run_alacritty, run_panecast};
use common::SCROLLBACK;

fn throughput(c: &mut Criterion) {
    for p in payloads() {
        let mut group = c.benchmark_group(&p.name);
        group.throughput(Throughput::Bytes(p.len));
        // An iteration takes 10-100 ms: a few flat samples are plenty.
        group.sampling_mode(SamplingMode::Flat);
        group.sample_size(20);
        let (cols, rows) = (p.cols, p.rows);
        group.bench_function("panecast", |b| {
            b.iter_batched(
                || panecast_term::Term::new(cols, rows, SCROLLBACK),
                |term| run_panecast(term, &p.chunks),
                BatchSize::LargeInput,
            )
        });
        group.bench_function("alacritty", |b| {
            b.iter_batched(
                || {
                    (
                        common::alacritty_term(cols, rows, SCROLLBACK),
                        Processor::new(),
                    )
                },
                |term| run_alacritty(term, &p.chunks, rows),
                BatchSize::LargeInput,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, throughput);
criterion_main!(benches);

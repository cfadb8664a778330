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

use std::hint::black_box;

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::term::TermDamage;
use alacritty_terminal::vte::ansi::Processor;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode, Throughput};

use common::{Payload, CHUNK, PAYLOAD_BYTES, SCROLLBACK};

/// A payload ready to feed: its bytes already split into pty-sized chunks.
struct Prepared {
    name: String,
    cols: u16,
    rows: u16,
    len: u64,
    chunks: Vec<Vec<u8>>,
}

impl From<Payload> for Prepared {
    fn from(p: Payload) -> Prepared {
        Prepared {
            len: p.bytes.len() as u64,
            chunks: p.bytes.chunks(CHUNK).map(<[u8]>::to_vec).collect(),
            name: p.name,
            cols: p.cols,
            rows: p.rows,
        }
    }
}

fn payloads() -> Vec<Prepared> {
    let mut all = common::vtebench();
    all.push(Payload {
        name: "ascii_log".into(),
        cols: 120,
        rows: 40,
        bytes: common::ascii_log(PAYLOAD_BYTES),
    });
    all.push(Payload {
        name: "cjk_emoji".into(),
        cols: 120,
        rows: 40,
        bytes: common::cjk_emoji(PAYLOAD_BYTES),
    });
    all.push(common::corpus_repeated("vim-edit"));
    all.push(common::corpus_repeated("htop"));
    all.into_iter().map(Prepared::from).collect()
}

/// Feeds every chunk to panecast, collecting the changed rows and the scroll
/// hint after each. Returns the terminal so it is dropped outside the timing.
fn run_panecast(mut term: panecast::term::Term, chunks: &[Vec<u8>]) -> panecast::term::Term {
    let mut seen = term.observe();
    let mut scrolls = 0;
    for chunk in chunks {
        term.advance(chunk);
        black_box(term.changed_rows(seen).count());
        let scrolled = term.scrolled_since(scrolls);
        scrolls += black_box(scrolled);
        seen = term.observe();
    }
    term
}

type Alacritty = (alacritty_terminal::Term<VoidListener>, Processor);

/// Feeds every chunk to alacritty_terminal, collecting and resetting its
/// damage after each. Returns the terminal so it is dropped outside the timing.
fn run_alacritty((mut term, mut parser): Alacritty, chunks: &[Vec<u8>], rows: u16) -> Alacritty {
    for chunk in chunks {
        parser.advance(&mut term, chunk);
        let damaged = match term.damage() {
            TermDamage::Full => usize::from(rows),
            TermDamage::Partial(lines) => lines.count(),
        };
        black_box(damaged);
        term.reset_damage();
    }
    (term, parser)
}

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
                || panecast::term::Term::new(cols, rows, SCROLLBACK),
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

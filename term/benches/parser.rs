//! The parser alone: panecast's `term::parser::Parser` against
//! `vte::Parser` 0.15, in MB/s, on every vtebench payload, measured in the
//! same run. Each payload is fed in 64 KiB chunks (the pty reader's
//! buffer) to a sink that only counts what it is handed (bytes printed,
//! controls, sequences, string bytes), so the figure is the parser's own
//! cost plus one call per action: panecast hands printable ASCII over a run
//! at a time, vte a character at a time, which is part of what is measured.
//!
//! Each payload is a criterion group `parser/NAME` with the ids `panecast`
//! and `vte`. `cargo bench --bench parser -- --test` runs each once.

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use panecast_term::parser::{self, Actions};

use common::CHUNK;

/// Counts what either parser hands on.
#[derive(Default)]
struct Sink {
    count: u64,
}

impl Actions for Sink {
    fn print_ascii(&mut self, run: &[u8]) {
        self.count += run.len() as u64;
    }
    fn print_text(&mut self, text: &[char]) {
        self.count += text.len() as u64;
    }
    fn print(&mut self, _c: char) {
        self.count += 1;
    }
    fn execute(&mut self, byte: u8) {
        self.count += u64::from(byte);
    }
    fn csi_dispatch(&mut self, params: &parser::Params, _: &[u8], _: bool, action: char) {
        self.count += params.len() as u64 + u64::from(action);
    }
    fn esc_dispatch(&mut self, _: &[u8], _: bool, byte: u8) {
        self.count += u64::from(byte);
    }
    fn osc_dispatch(&mut self, params: &[&[u8]], _: bool) {
        self.count += params.len() as u64;
    }
    fn hook(&mut self, params: &parser::Params, _: &[u8], _: bool, action: char) {
        self.count += params.len() as u64 + u64::from(action);
    }
    fn put(&mut self, byte: u8) {
        self.count += u64::from(byte);
    }
    fn unhook(&mut self) {
        self.count += 1;
    }
}

impl vte::Perform for Sink {
    fn print(&mut self, _c: char) {
        self.count += 1;
    }
    fn execute(&mut self, byte: u8) {
        self.count += u64::from(byte);
    }
    fn csi_dispatch(&mut self, params: &vte::Params, _: &[u8], _: bool, action: char) {
        self.count += params.len() as u64 + u64::from(action);
    }
    fn esc_dispatch(&mut self, _: &[u8], _: bool, byte: u8) {
        self.count += u64::from(byte);
    }
    fn osc_dispatch(&mut self, params: &[&[u8]], _: bool) {
        self.count += params.len() as u64;
    }
    fn hook(&mut self, params: &vte::Params, _: &[u8], _: bool, action: char) {
        self.count += params.len() as u64 + u64::from(action);
    }
    fn put(&mut self, byte: u8) {
        self.count += u64::from(byte);
    }
    fn unhook(&mut self) {
        self.count += 1;
    }
}

fn parsers(c: &mut Criterion) {
    for payload in common::vtebench() {
        let chunks: Vec<&[u8]> = payload.bytes.chunks(CHUNK).collect();
        let mut group = c.benchmark_group(format!("parser/{}", payload.name));
        group.throughput(Throughput::Bytes(payload.bytes.len() as u64));
        group.sampling_mode(SamplingMode::Flat);
        group.sample_size(20);
        group.bench_function("panecast", |b| {
            b.iter(|| {
                let mut parser = parser::Parser::new();
                let mut sink = Sink::default();
                for chunk in &chunks {
                    parser.advance(&mut sink, black_box(chunk));
                }
                sink.count
            })
        });
        group.bench_function("vte", |b| {
            b.iter(|| {
                let mut parser = vte::Parser::new();
                let mut sink = Sink::default();
                for chunk in &chunks {
                    parser.advance(&mut sink, black_box(chunk));
                }
                sink.count
            })
        });
        group.finish();
    }
}

criterion_group!(benches, parsers);
criterion_main!(benches);

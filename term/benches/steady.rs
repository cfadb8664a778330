//! Steady-state emulator throughput: every vtebench payload and ASCII logs,
//! each repeated to 8 MB, fed to a 120x40 panecast `Term` and to
//! alacritty_terminal 0.26 (both keeping 10,000 lines of scrollback, which
//! the 8 MB fill), so start-up does not count and the scrollback is full.
//!
//! One process times both emulators in turn (panecast, alacritty, panecast,
//! ...) for `STEADY_ROUNDS` rounds (default 5); each round's ratio is
//! taken before the median, so a loaded machine's drift cancels out.
//! Prints a markdown table: payload | panecast MB/s | alacritty MB/s | ratio
//! (MB = 10^6 bytes; MB/s are medians). `bench/steady.sh` adds the commit
//! and machine. Data is found under `$PANECAST_SHARED`, else `../../shared`
//! from the crate.

mod common;

use std::time::Instant;

use alacritty_terminal::vte::ansi::Processor;

use common::feed::{run_alacritty, run_panecast};
use common::{Payload, CHUNK, SCROLLBACK};

/// Bytes each payload is repeated to.
const STEADY_BYTES: usize = 8 * 1024 * 1024;

/// `once` repeated until it is at least [`STEADY_BYTES`] long, in chunks.
fn repeated(once: &[u8]) -> Vec<Vec<u8>> {
    let mut bytes = Vec::with_capacity(STEADY_BYTES + once.len());
    while bytes.len() < STEADY_BYTES {
        bytes.extend_from_slice(once);
    }
    bytes.chunks(CHUNK).map(<[u8]>::to_vec).collect()
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn main() {
    let rounds: usize = std::env::var("STEADY_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    // One payload's name, if given (cargo bench adds `--bench`).
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut payloads = common::vtebench();
    payloads.push(Payload {
        name: "ascii_log".into(),
        cols: 120,
        rows: 40,
        bytes: common::ascii_log(common::PAYLOAD_BYTES),
    });
    println!("| payload | panecast MB/s | alacritty MB/s | ratio |");
    println!("|---|---:|---:|---:|");
    for p in payloads {
        if filter.as_ref().is_some_and(|f| p.name != *f) {
            continue;
        }
        let chunks = repeated(&p.bytes);
        let len: usize = chunks.iter().map(Vec::len).sum();
        let (cols, rows) = (p.cols, p.rows);
        let (mut pan, mut ala, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let term = panecast_term::Term::new(cols, rows, SCROLLBACK);
            let start = Instant::now();
            let term = run_panecast(term, &chunks);
            let pan_s = start.elapsed().as_secs_f64();
            drop(term);
            let term = (
                common::alacritty_term(cols, rows, SCROLLBACK),
                Processor::new(),
            );
            let start = Instant::now();
            let term = run_alacritty(term, &chunks, rows);
            let ala_s = start.elapsed().as_secs_f64();
            drop(term);
            pan.push(len as f64 / pan_s / 1e6);
            ala.push(len as f64 / ala_s / 1e6);
            ratios.push(ala_s / pan_s);
        }
        println!(
            "| {} | {:.1} | {:.1} | {:.2}x |",
            p.name,
            median(pan),
            median(ala),
            median(ratios)
        );
    }
}

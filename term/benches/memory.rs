//! Emulator memory: heap bytes a terminal holds once 10,000 lines of typical
//! coloured output sit in its scrollback, panecast's `term::Term` against
//! alacritty_terminal 0.26 in the same run.
//!
//! A counting global allocator (wrapping `System`) tracks live and peak heap
//! bytes. The input (`common::coloured_output`: `ls --color` listings, rustc
//! diagnostics, coloured logs and `git diff` lines, 20-120 columns, enough
//! lines to fill 10,000 lines of history on a 120x40 grid) is generated first;
//! then each terminal is built and fed in 64 KiB chunks, and "held" is the
//! live heap afterwards minus the live heap before it was built. alacritty's
//! `Processor` (the parser, with a 2 MiB synchronized-update buffer) is built
//! before the baseline and so is not counted; panecast's parser lives inside
//! its `Term` and is counted. "peak" is the most heap in use while feeding.
//!
//! Prints a table; the target (panecast at most half of alacritty) is stated
//! in the bench README and checked by reading, not asserted.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::vte::ansi::Processor;

use common::{CHUNK, SCROLLBACK};

/// `System` plus counters of live and peak heap bytes.
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = CURRENT.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn shrank(bytes: usize) {
    CURRENT.fetch_sub(bytes, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, hence from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `System` with `layout`; the caller checks `new_size`.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const COLS: u16 = 120;
const ROWS: u16 = 40;

/// What one terminal held after the feed.
struct Measured {
    name: &'static str,
    history: usize,
    held: usize,
    peak: usize,
}

/// Runs `feed` (which builds a terminal, feeds it and returns it with its
/// history length) and measures the heap it leaves held.
fn measure<T>(name: &'static str, feed: impl FnOnce() -> (T, usize)) -> Measured {
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let (term, history) = feed();
    let after = CURRENT.load(Ordering::Relaxed);
    let peak = PEAK.load(Ordering::Relaxed);
    drop(term);
    Measured {
        name,
        history,
        held: after.saturating_sub(before),
        peak: peak.saturating_sub(before),
    }
}

fn main() {
    // `cargo bench -- --list` asks every bench for its names: this one has no
    // criterion ids, so it lists nothing.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    // Screen plus history, with a margin so both scrollbacks are full.
    let lines = SCROLLBACK + usize::from(ROWS) + 2_000;
    let input = common::coloured_output(lines);

    let panecast = measure("panecast", || {
        let mut term = panecast_term::Term::new(COLS, ROWS, SCROLLBACK);
        for chunk in input.chunks(CHUNK) {
            term.advance(chunk);
        }
        let history = term.scrollback_len();
        (term, history)
    });

    let mut parser: Processor = Processor::new();
    let alacritty = measure("alacritty", || {
        let mut term = common::alacritty_term(COLS, ROWS, SCROLLBACK);
        for chunk in input.chunks(CHUNK) {
            parser.advance(&mut term, chunk);
        }
        let history = term.grid().history_size();
        (term, history)
    });
    drop(parser);

    println!(
        "Heap held after {lines} lines ({} bytes) of coloured output at {COLS}x{ROWS}, \
         scrollback limit {SCROLLBACK}:",
        input.len()
    );
    println!();
    println!("| terminal | history lines | heap held (bytes) | bytes/history line | peak while feeding (bytes) | vs alacritty |");
    println!("|---|---:|---:|---:|---:|---:|");
    for m in [&panecast, &alacritty] {
        println!(
            "| {} | {} | {} | {:.1} | {} | {:.3} |",
            m.name,
            m.history,
            m.held,
            m.held as f64 / m.history.max(1) as f64,
            m.peak,
            m.held as f64 / alacritty.held.max(1) as f64,
        );
    }
    println!();
    let ratio = panecast.held as f64 / alacritty.held.max(1) as f64;
    let verdict = if ratio <= 0.5 { "met" } else { "MISSED" };
    println!("target: panecast <= 0.5 x alacritty; measured {ratio:.3} x ({verdict})");
    for m in [&panecast, &alacritty] {
        if m.history != SCROLLBACK {
            println!(
                "note: {} holds {} history lines, not {SCROLLBACK}",
                m.name, m.history
            );
        }
    }
}

//! The other side of `bench/render.sh`, which times emulators as whole
//! processes, as a user runs them: `panecast render FILE` against this
//! program feeding the same file to alacritty_terminal.
//!
//! - `whole write DIR` writes every throughput payload (the vtebench files
//!   and the generated ones) to `DIR/NAME.bin`, with `DIR/NAME.size`
//!   holding `COLS ROWS`;
//! - `whole alacritty FILE COLS ROWS` reads FILE in pty-sized chunks,
//!   feeds each to alacritty_terminal (10,000 lines of scrollback, as
//!   panecast keeps) and prints the final screen's text, as `panecast
//!   render` does;
//! - `whole pair RUNS 'A ...' 'B ...'` runs the two commands (each split at
//!   spaces) in turn, RUNS pairs after a warm-up, and prints four figures:
//!   A's and B's median cpu seconds, and the medians of the pairs' A/B cpu
//!   and wall ratios (see `pair`).

// The emulator benchmarks' helpers, shared with panecast-term's benches.
#[path = "../../term/benches/common/mod.rs"]
mod common;
mod pair;

use std::io::{Read, Write};

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::vte::ansi::Processor;
use common::feed::payloads;
use common::{alacritty_term, CHUNK, SCROLLBACK};
use pair::time_pairs;

fn main() {
    // `cargo bench` adds `--bench`; only the positional arguments matter.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["write", dir] => write(dir),
        ["alacritty", file, cols, rows] => match (cols.parse(), rows.parse()) {
            (Ok(cols), Ok(rows)) => alacritty(file, cols, rows),
            _ => Err(format!("COLS and ROWS are numbers, not {cols} {rows}")),
        },
        ["pair", runs, a, b] => match runs.parse() {
            Ok(runs) if runs > 0 => pair(runs, a, b),
            _ => Err(format!("RUNS is a number above 0, not {runs}")),
        },
        _ => Err(
            "usage: whole write DIR | whole alacritty FILE COLS ROWS | whole pair RUNS 'A' 'B'"
                .to_owned(),
        ),
    };
    if let Err(error) = result {
        eprintln!("whole: {error}");
        std::process::exit(2);
    }
}

/// Writes every payload and its size to `dir`.
fn write(dir: &str) -> Result<(), String> {
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for payload in payloads() {
        let bytes: Vec<u8> = payload.chunks.concat();
        let path = dir.join(format!("{}.bin", payload.name));
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let size = dir.join(format!("{}.size", payload.name));
        std::fs::write(&size, format!("{} {}\n", payload.cols, payload.rows))
            .map_err(|e| format!("{}: {e}", size.display()))?;
    }
    Ok(())
}

/// Times `a` against `b` pair by pair and prints the medians.
fn pair(runs: usize, a: &str, b: &str) -> Result<(), String> {
    let words = |command: &str| {
        command
            .split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let paired = time_pairs(runs, &words(a), &words(b))?;
    println!(
        "{:.6} {:.6} {:.4} {:.4}",
        paired.a_cpu, paired.b_cpu, paired.cpu_ratio, paired.wall_ratio
    );
    Ok(())
}

/// Feeds `file` to alacritty_terminal and prints its screen.
fn alacritty(file: &str, cols: u16, rows: u16) -> Result<(), String> {
    let mut input = std::fs::File::open(file).map_err(|e| format!("{file}: {e}"))?;
    let mut term = alacritty_term(cols, rows, SCROLLBACK);
    let mut parser: Processor = Processor::new();
    let mut chunk = vec![0; CHUNK];
    loop {
        let read = input.read(&mut chunk).map_err(|e| format!("{file}: {e}"))?;
        if read == 0 {
            break;
        }
        parser.advance(&mut term, &chunk[..read]);
    }
    let grid = term.grid();
    let mut screen = String::new();
    for line in 0..grid.screen_lines() {
        let row = &grid[Line(line as i32)];
        let text: String = (0..grid.columns()).map(|c| row[Column(c)].c).collect();
        screen.push_str(text.trim_end());
        screen.push('\n');
    }
    std::io::stdout()
        .write_all(screen.as_bytes())
        .map_err(|e| e.to_string())
}

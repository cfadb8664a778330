//! Instructions per payload, for a comparison with alacritty_terminal that
//! the machine's load cannot disturb. `bench/instructions.sh` runs this
//! under callgrind, counting only inside `run_panecast` or `run_alacritty`
//! (the same feeding code the criterion throughput bench times).
//!
//! `instructions IMPL PAYLOAD` feeds one payload once to `panecast` or
//! `alacritty`; with no arguments it lists the payloads.

mod common;

use alacritty_terminal::vte::ansi::Processor;

use common::feed::{payloads, run_alacritty, run_panecast};
use common::SCROLLBACK;

fn main() {
    // `cargo bench` adds `--bench`; only the positional arguments matter.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let all = payloads();
    let [implementation, name] = args.as_slice() else {
        println!("usage: instructions panecast|alacritty PAYLOAD; payloads:");
        all.iter().for_each(|p| println!("{}", p.name));
        return;
    };
    let Some(p) = all.iter().find(|p| &p.name == name) else {
        eprintln!("no payload named {name}");
        std::process::exit(2);
    };
    match implementation.as_str() {
        "panecast" => {
            let term = panecast_term::Term::new(p.cols, p.rows, SCROLLBACK);
            drop(run_panecast(term, &p.chunks));
        }
        "alacritty" => {
            let term = common::alacritty_term(p.cols, p.rows, SCROLLBACK);
            drop(run_alacritty((term, Processor::new()), &p.chunks, p.rows));
        }
        other => {
            eprintln!("no implementation named {other} (panecast or alacritty)");
            std::process::exit(2);
        }
    }
}

//! Feeding a payload to either emulator the way the session actor does:
//! in pty-sized chunks, collecting the changed rows after each. Shared by
//! the criterion throughput bench and the instruction-count bench.

use std::hint::black_box;

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::term::TermDamage;
use alacritty_terminal::vte::ansi::Processor;

use super::{Payload, CHUNK, PAYLOAD_BYTES};

/// A payload ready to feed: its bytes already split into pty-sized chunks.
pub struct Prepared {
    pub name: String,
    pub cols: u16,
    pub rows: u16,
    pub len: u64,
    pub chunks: Vec<Vec<u8>>,
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

/// Every throughput payload, prepared.
pub fn payloads() -> Vec<Prepared> {
    let mut all = super::vtebench();
    all.push(Payload {
        name: "ascii_log".into(),
        cols: 120,
        rows: 40,
        bytes: super::ascii_log(PAYLOAD_BYTES),
    });
    all.push(Payload {
        name: "cjk_emoji".into(),
        cols: 120,
        rows: 40,
        bytes: super::cjk_emoji(PAYLOAD_BYTES),
    });
    all.push(super::corpus_repeated("vim-edit"));
    all.push(super::corpus_repeated("htop"));
    all.into_iter().map(Prepared::from).collect()
}

/// Feeds every chunk to panecast, collecting the changed rows and the scroll
/// hint after each. Returns the terminal so it is dropped outside the timing.
#[inline(never)]
pub fn run_panecast(mut term: panecast_term::Term, chunks: &[Vec<u8>]) -> panecast_term::Term {
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

/// alacritty_terminal's grid with its parser.
pub type Alacritty = (alacritty_terminal::Term<VoidListener>, Processor);

/// Feeds every chunk to alacritty_terminal, collecting and resetting its
/// damage after each. Returns the terminal so it is dropped outside the timing.
#[inline(never)]
pub fn run_alacritty(
    (mut term, mut parser): Alacritty,
    chunks: &[Vec<u8>],
    rows: u16,
) -> Alacritty {
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

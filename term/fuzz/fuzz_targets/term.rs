//! Fuzzes the emulator with arbitrary bytes. The first bytes of the input
//! choose the terminal's size, how the rest is cut into `advance` calls and
//! where a resize happens; the rest is the stream. After it, the screen is
//! taken as a snapshot and checked whole. Any panic is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use panecast_term::Term;

/// Header bytes: columns, rows, two chunk lengths, the resize point and size.
const HEADER: usize = 6;

fuzz_target!(|data: &[u8]| {
    if data.len() < HEADER {
        return;
    }
    let (header, stream) = data.split_at(HEADER);
    let cols = 1 + u16::from(header[0]) % 132;
    let rows = 1 + u16::from(header[1]) % 60;
    // Chunks alternate between two lengths, so cuts land anywhere.
    let chunks = [1 + usize::from(header[2]), 1 + usize::from(header[3]) * 16];
    // The resize happens after chunk number `resize_after`, if there is one.
    let resize_after = usize::from(header[4]);
    let new_size = (
        1 + u16::from(header[5] >> 4) * 8,
        1 + u16::from(header[5] & 15) * 4,
    );

    let mut term = Term::new(cols, rows, 200);
    let mut at = 0;
    let mut chunk = 0;
    while at < stream.len() {
        let end = (at + chunks[chunk % 2]).min(stream.len());
        term.advance(&stream[at..end]);
        let _ = term.take_replies();
        if chunk == resize_after {
            term.resize(new_size.0, new_size.1);
        }
        at = end;
        chunk += 1;
    }

    let snapshot = term.snapshot();
    assert_eq!(snapshot.lines.len(), usize::from(snapshot.rows));
    assert!(snapshot.cursor.row < snapshot.rows && snapshot.cursor.col < snapshot.cols);
});

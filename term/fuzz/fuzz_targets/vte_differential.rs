//! Differential fuzzing: the same bytes go to panecast's parser and to
//! `vte::Parser`, and their actions must agree in the normal form of
//! `tests/support/vte_oracle.rs` (which names every difference on purpose).
//! The first byte chooses the chunk length the stream is cut into, so cuts
//! land inside sequences and characters; the rest is the stream.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/vte_oracle.rs"]
mod vte_oracle;

fuzz_target!(|data: &[u8]| {
    let Some((&chunk, stream)) = data.split_first() else {
        return;
    };
    let step = 1 + usize::from(chunk);
    let cuts: Vec<usize> = (step..stream.len()).step_by(step).collect();
    let comparison = vte_oracle::compare(stream, &cuts);
    assert!(comparison.agrees(), "{}", comparison.first_difference());
});

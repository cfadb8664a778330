//! Replay seeking: a synthesized 100 MB asciicast recording (mixed coloured
//! output in 4 KiB events, 10 ms apart, a resize every 5,000 events, a
//! marker every 2,000) is prepared once as a replay's `Timeline` (one pass
//! through the emulator, keyframes taken); then each iteration seeks to
//! the next of 64 random positions and takes the screen's snapshot, as a
//! replay does to answer a seek (target: under 100 ms each).
//!
//! Prints the recording's size, the time the timeline took, and the
//! keyframes kept with the memory they take. `cargo bench --bench
//! replay_seek` measures the 100 MB file (`PANECAST_SEEK_MB` sets another
//! size); run by `cargo test` (the smoke run) it uses 2 MB.

// The emulator benchmarks' helpers, shared with panecast-term's benches.
#[path = "../../term/benches/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};

use panecast::record::Cast;
use panecast::session::replay::{Timeline, KEYFRAME_BUDGET};

/// Output per event, in bytes.
const EVENT_BYTES: usize = 4096;

/// The recording's size in MB: 100 when benchmarking, 2 in the smoke run.
fn megabytes() -> usize {
    let benchmarking = std::env::args().any(|a| a == "--bench");
    std::env::var("PANECAST_SEEK_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if benchmarking { 100 } else { 2 })
}

/// An asciicast v2 file of about `bytes` bytes.
fn recording(bytes: usize) -> Vec<u8> {
    let output = String::from_utf8(common::coloured_output(20_000)).expect("UTF-8 output");
    let mut file = b"{\"version\": 2, \"width\": 120, \"height\": 40}\n".to_vec();
    let (mut at, mut index) = (0, 0);
    while file.len() < bytes {
        let mut end = (at + EVENT_BYTES).min(output.len());
        while !output.is_char_boundary(end) {
            end -= 1;
        }
        let time = index as f64 / 100.0;
        let mut push = |code: &str, data: &str| {
            serde_json::to_writer(&mut file, &(time, code, data)).expect("JSON");
            file.push(b'\n');
        };
        push("o", &output[at..end]);
        if index % 5_000 == 4_999 {
            push(
                "r",
                if index % 10_000 == 4_999 {
                    "100x30"
                } else {
                    "120x40"
                },
            );
        }
        if index % 2_000 == 1_999 {
            push("m", &format!("marker {index}"));
        }
        at = if end == output.len() { 0 } else { end };
        index += 1;
    }
    file
}

fn bench(c: &mut Criterion) {
    let file = recording(megabytes() << 20);
    let started = Instant::now();
    let cast = Cast::parse(&file).expect("a valid recording");
    let timeline = Timeline::new(cast, None);
    println!(
        "replay_seek: {:.1} MB, {:.0} s of recording, timeline in {:.2} s, {} keyframes taking {:.1} MiB (budget {} MiB)",
        file.len() as f64 / 1e6,
        timeline.duration(),
        started.elapsed().as_secs_f64(),
        timeline.keyframe_count(),
        timeline.keyframe_bytes() as f64 / f64::from(1 << 20),
        KEYFRAME_BUDGET >> 20,
    );
    drop(file);
    let mut rng = common::Rng::new(0x5eed_5eec);
    let targets: Vec<f64> = (0..64)
        .map(|_| rng.below(1_000_000) as f64 / 1e6 * timeline.duration())
        .collect();
    let mut next = 0;
    let mut group = c.benchmark_group("replay");
    group.sample_size(20);
    group.bench_function("seek_random", |b| {
        b.iter(|| {
            let (mut term, _) = timeline.seek(targets[next % targets.len()]);
            next += 1;
            black_box(term.snapshot())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

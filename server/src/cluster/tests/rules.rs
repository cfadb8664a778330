//! One test a rule.

use std::sync::Arc;

use super::same::assert_same;
use crate::cluster::{Gap, Message, Mirror, Outcome, Publisher, SessionState};
use panecast_term::{Snapshot, Term};

const LIMIT: usize = 1024;

fn term() -> Term {
    let mut term = Term::new(40, 10, 100);
    term.advance(b"\x1b[31mred\x1b[0m \x1b]8;;https://x.test\x07link\x1b]8;;\x07\r\n");
    term
}

fn joined(publisher: &Publisher) -> Mirror {
    let mut mirror = Mirror::new();
    for chunk in publisher.chunks(LIMIT).unwrap() {
        mirror.apply(Message::Chunk(chunk));
    }
    assert_same(mirror.snapshot().unwrap(), publisher.current());
    mirror
}

fn updated(outcome: Outcome) -> Arc<Snapshot> {
    match outcome {
        Outcome::Updated(snapshot) => snapshot,
        other => panic!("expected a snapshot, got {other:?}"),
    }
}

#[test]
fn deltas_carry_changes_and_revisions_are_consecutive() {
    let mut term = term();
    let mut publisher = Publisher::new(7, Arc::new(term.snapshot()));
    let mut mirror = joined(&publisher);
    for i in 0..30 {
        term.advance(format!("line {i}\r\n\x1b]2;title {i}\x07").as_bytes());
        let delta = publisher.publish(Arc::new(term.snapshot()));
        assert_eq!((delta.base, delta.revision), (i, i + 1));
        let bytes = Message::Delta(delta).encode();
        let snapshot = updated(mirror.apply(Message::decode(&bytes).unwrap()));
        assert_same(&snapshot, publisher.current());
    }
}

#[test]
fn a_scroll_sends_only_the_new_row() {
    let mut term = Term::new(80, 24, 100);
    for i in 0..24 {
        term.advance(format!("{}\r\n", letters(i, 79)).as_bytes());
    }
    let mut publisher = Publisher::new(1, Arc::new(term.snapshot()));
    term.advance(b"x\r\n");
    let delta = publisher.publish(Arc::new(term.snapshot()));
    let whole = publisher.chunks(1 << 20).unwrap()[0].total;
    let sent = Message::Delta(delta).encode().len();
    // The two changed rows and the 24 pushes' generations, not 24 rows.
    assert!(sent < 600, "a one-line scroll took {sent} bytes");
    assert!(whole > 4 * sent as u64, "the whole screen is {whole} bytes");
}

#[test]
fn duplicates_are_ignored_and_gaps_need_a_resync() {
    let mut term = term();
    let mut publisher = Publisher::new(7, Arc::new(term.snapshot()));
    let mut mirror = joined(&publisher);
    let mut deltas = Vec::new();
    for i in 0..4 {
        term.advance(format!("{i}\r\n").as_bytes());
        deltas.push(publisher.publish(Arc::new(term.snapshot())));
    }
    updated(mirror.apply(Message::Delta(deltas[0].clone())));
    assert!(matches!(
        mirror.apply(Message::Delta(deltas[0].clone())),
        Outcome::Unchanged
    ));
    assert!(matches!(
        mirror.apply(Message::Delta(deltas[2].clone())),
        Outcome::Resync(Gap::Missed { held: 1, base: 2 })
    ));
    assert_eq!(
        mirror.revision(),
        Some((7, 1)),
        "the last good screen stays"
    );
    // The missed one, late: it and the one held after it apply.
    updated(mirror.apply(Message::Delta(deltas[1].clone())));
    assert_eq!(mirror.revision(), Some((7, 3)));
    let mut other = Publisher::new(8, Arc::new(term.snapshot()));
    term.advance(b"z");
    let foreign = other.publish(Arc::new(term.snapshot()));
    assert!(matches!(
        mirror.apply(Message::Delta(foreign)),
        Outcome::Resync(Gap::OtherStream)
    ));
    assert!(matches!(
        Mirror::new().apply(Message::Delta(deltas[3].clone())),
        Outcome::Resync(Gap::NoBase)
    ));
}

#[test]
fn a_mark_reveals_a_lost_last_delta() {
    let mut term = term();
    let mut publisher = Publisher::new(5, Arc::new(term.snapshot()));
    let mut mirror = joined(&publisher);
    let mark = |p: &Publisher| Message::Mark(p.mark(SessionState::Running));
    assert!(matches!(mirror.apply(mark(&publisher)), Outcome::Unchanged));
    term.advance(b"lost\r\n");
    // The delta never arrives; the next mark says revision 1 is the latest.
    publisher.publish(Arc::new(term.snapshot()));
    assert!(matches!(
        mirror.apply(mark(&publisher)),
        Outcome::Resync(Gap::Missed { held: 0, base: 1 })
    ));
    // An older mark (reordered) and another publisher's.
    let old = Publisher::new(5, Arc::new(term.snapshot()));
    assert!(matches!(mirror.apply(mark(&old)), Outcome::Unchanged));
    let other = Publisher::new(6, Arc::new(term.snapshot()));
    assert!(matches!(
        mirror.apply(mark(&other)),
        Outcome::Resync(Gap::OtherStream)
    ));
    assert!(matches!(
        Mirror::new().apply(mark(&publisher)),
        Outcome::Resync(Gap::NoBase)
    ));
    // While a chunk set is on its way, a mark asks for nothing more.
    let mut joining = Mirror::new();
    let chunks = publisher.chunks(200).unwrap();
    assert!(chunks.len() > 1);
    joining.apply(Message::Chunk(chunks[0].clone()));
    assert!(matches!(
        joining.apply(mark(&publisher)),
        Outcome::Unchanged
    ));
}

#[test]
fn deltas_before_the_snapshot_are_held_and_applied_after() {
    let mut term = term();
    let mut publisher = Publisher::new(3, Arc::new(term.snapshot()));
    let chunks = publisher.chunks(LIMIT).unwrap();
    let mut mirror = Mirror::new();
    for i in 0..3 {
        term.advance(format!("{i}\r\n").as_bytes());
        let delta = publisher.publish(Arc::new(term.snapshot()));
        assert!(matches!(
            mirror.apply(Message::Delta(delta)),
            Outcome::Resync(Gap::NoBase)
        ));
    }
    let mut last = None;
    for chunk in chunks {
        last = Some(mirror.apply(Message::Chunk(chunk)));
    }
    assert_same(&updated(last.unwrap()), publisher.current());
}

#[test]
fn chunks_stay_under_the_limit_and_any_order_assembles() {
    let mut term = Term::new(100, 40, 100);
    for i in 0..60 {
        term.advance(format!("\x1b[3{}m{}\r\n", i % 8, letters(i, 90)).as_bytes());
    }
    let publisher = Publisher::new(1, Arc::new(term.snapshot()));
    assert!(publisher.chunks(20).is_err());
    let mut chunks = publisher.chunks(300).unwrap();
    assert!(chunks.len() > 10);
    for chunk in &chunks {
        assert!(Message::Chunk(chunk.clone()).encode().len() <= 300);
    }
    chunks.reverse();
    let mut mirror = Mirror::new();
    let last = chunks.pop().unwrap();
    for chunk in chunks {
        assert!(matches!(
            mirror.apply(Message::Chunk(chunk)),
            Outcome::Unchanged
        ));
    }
    assert_same(
        &updated(mirror.apply(Message::Chunk(last))),
        publisher.current(),
    );
}

#[test]
fn chunks_of_two_snapshots_never_make_one() {
    let mut term = term();
    let mut publisher = Publisher::new(1, Arc::new(term.snapshot()));
    let old = publisher.chunks(200).unwrap();
    term.advance(b"more text\r\n");
    publisher.publish(Arc::new(term.snapshot()));
    let new = publisher.chunks(200).unwrap();
    let mut mirror = Mirror::new();
    mirror.apply(Message::Chunk(old[0].clone()));
    assert!(matches!(
        mirror.apply(Message::Chunk(new[1].clone())),
        Outcome::Resync(Gap::MixedChunks)
    ));
    assert!(matches!(
        mirror.apply(Message::Chunk(old[1].clone())),
        Outcome::Resync(Gap::MixedChunks)
    ));
    for chunk in old.iter().skip(2) {
        assert!(!matches!(
            mirror.apply(Message::Chunk(chunk.clone())),
            Outcome::Updated(_)
        ));
    }
    assert!(mirror.snapshot().is_none());
    let mut last = None;
    for chunk in new {
        last = Some(mirror.apply(Message::Chunk(chunk)));
    }
    assert_same(&updated(last.unwrap()), publisher.current());
    assert!(!mirror.abandon_chunks());
}

#[test]
fn hostile_bytes_are_errors() {
    let mut term = term();
    let mut publisher = Publisher::new(1, Arc::new(term.snapshot()));
    term.advance(b"\x1b[?1049hhello");
    let delta = Message::Delta(publisher.publish(Arc::new(term.snapshot()))).encode();
    let chunk = Message::Chunk(publisher.chunks(LIMIT).unwrap().remove(0)).encode();
    for bytes in [delta, chunk] {
        for cut in 0..bytes.len() {
            assert!(Message::decode(&bytes[..cut]).is_err());
        }
        let mut seed = 12345u64;
        for _ in 0..2000 {
            let mut bad = bytes.clone();
            for _ in 0..4 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let at = (seed >> 33) as usize % bad.len();
                bad[at] = (seed >> 20) as u8;
            }
            // Decoding and applying either fails or yields a checked screen.
            if let Ok(message) = Message::decode(&bad) {
                let mut mirror = joined(&publisher);
                let _ = mirror.apply(message);
            }
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(Message::decode(&long).is_err());
    }
    let mut mark = Message::Mark(publisher.mark(SessionState::Running)).encode();
    mark.push(0);
    assert_eq!(
        Message::decode(&mark).unwrap_err(),
        crate::cluster::DecodeError::TrailingBytes(1)
    );
    assert!(Message::decode(&[9]).is_err(), "an unknown format byte");
}

/// `n` pseudo-random lowercase letters, which compress about as little as
/// text does.
fn letters(seed: u64, n: usize) -> String {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (b'a' + ((x >> 33) % 26) as u8) as char
        })
        .collect()
}

#[test]
fn an_incomplete_set_is_abandoned_on_the_transport_s_timeout() {
    let mut term = term();
    term.advance(b"enough text for two chunks at least, and then some more\r\n");
    let publisher = Publisher::new(1, Arc::new(term.snapshot()));
    let chunks = publisher.chunks(200).unwrap();
    let mut mirror = Mirror::new();
    mirror.apply(Message::Chunk(chunks[0].clone()));
    assert!(mirror.abandon_chunks());
    assert!(!mirror.abandon_chunks());
    // The rest alone never makes a screen.
    for chunk in chunks.iter().skip(1) {
        assert!(matches!(
            mirror.apply(Message::Chunk(chunk.clone())),
            Outcome::Unchanged
        ));
    }
    assert!(mirror.snapshot().is_none());
    assert!(matches!(
        mirror.apply(Message::Chunk(chunks[0].clone())),
        Outcome::Updated(_)
    ));
}

#[test]
fn held_deltas_are_bounded() {
    let mut term = Term::new(1000, 50, 0);
    let mut publisher = Publisher::new(1, Arc::new(term.snapshot()));
    let mut mirror = Mirror::new();
    for i in 0..200 {
        term.advance(format!("\x1b[2J\x1b[H{}", "x".repeat(1000 * 50 - 1 - i % 7)).as_bytes());
        mirror.apply(Message::Delta(publisher.publish(Arc::new(term.snapshot()))));
    }
    assert!(mirror.held() <= 64);
}

#[test]
fn a_restarted_owner_s_chunks_replace_the_old_stream() {
    let mut term = term();
    let mut old = Publisher::new(1, Arc::new(term.snapshot()));
    for _ in 0..5 {
        term.advance(b"old\r\n");
        old.publish(Arc::new(term.snapshot()));
    }
    let mut mirror = joined(&old);
    assert_eq!(mirror.revision(), Some((1, 5)));
    term.advance(b"\x1b[2Jnew owner");
    let mut new = Publisher::new(2, Arc::new(term.snapshot()));
    term.advance(b"!");
    let delta = new.publish(Arc::new(term.snapshot()));
    assert!(matches!(
        mirror.apply(Message::Delta(delta)),
        Outcome::Resync(Gap::OtherStream)
    ));
    let mut chunks = new.chunks(LIMIT).unwrap();
    // The chunk set is of revision 1: the held delta to it is dropped.
    let last = chunks.pop().unwrap();
    for chunk in chunks {
        mirror.apply(Message::Chunk(chunk));
    }
    assert_same(&updated(mirror.apply(Message::Chunk(last))), new.current());
    assert_eq!(mirror.revision(), Some((2, 1)));
}

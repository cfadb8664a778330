//! Random terminal output through an owner and a mirror joined by a channel
//! that drops, delays and duplicates messages; and a 1000x1000 screen.

use std::collections::HashMap;
use std::sync::Arc;

use proptest::prelude::*;

use super::same::assert_same;
use crate::cluster::{Message, Mirror, Outcome, Publisher, SessionState};
use panecast_term::{Snapshot, Term};

/// Pieces of output: text, colours, links, scrolling, the alternate screen.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        "[a-z ]{0,30}".prop_map(String::into_bytes),
        Just(b"\r\n".to_vec()),
        (0u8..8).prop_map(|c| format!("\x1b[3{c};4{}m", 7 - c).into_bytes()),
        Just(b"\x1b[0m".to_vec()),
        (0u8..4)
            .prop_map(|n| format!("\x1b]8;;https://e.test/{n}\x07ln{n}\x1b]8;;\x07").into_bytes()),
        Just(b"\x1b[?1049h".to_vec()),
        Just(b"\x1b[?1049l".to_vec()),
        Just(b"\x1b[2S\x1b[T".to_vec()),
        (1u8..20, 1u8..60).prop_map(|(r, c)| format!("\x1b[{r};{c}H").into_bytes()),
        Just(b"\x1b[2J".to_vec()),
        Just("\u{301}e\u{301}\u{4e2d}".as_bytes().to_vec()),
        "[a-z]{1,8}".prop_map(|t| format!("\x1b]2;{t}\x07").into_bytes()),
        Just(b"\x07\x1b[?25l\x1b[4 q".to_vec()),
    ]
}

#[derive(Debug, Clone)]
enum Step {
    Output(Vec<u8>),
    Resize(u16, u16),
    Publish,
    /// The owner says which revision is its latest.
    Mark,
    /// Deliver a message: drop it, deliver it, or deliver it and keep a copy.
    Deliver(u8, usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => piece().prop_map(Step::Output),
        1 => (1u16..70, 1u16..25).prop_map(|(c, r)| Step::Resize(c, r)),
        3 => Just(Step::Publish),
        1 => Just(Step::Mark),
        6 => (0u8..10, 0usize..8).prop_map(|(how, which)| Step::Deliver(how, which)),
    ]
}

/// Feeds `outcome` back: checks the screen, and asks for chunks on a gap.
fn check(
    outcome: Outcome,
    owner: &HashMap<u64, Arc<Snapshot>>,
    mirror: &Mirror,
    resync: &mut bool,
) {
    match outcome {
        Outcome::Updated(snapshot) => {
            // Only complete (stream, revision) pairs exist: one stream.
            let (_, revision) = mirror.revision().unwrap();
            assert_same(&snapshot, &owner[&revision]);
        }
        Outcome::Unchanged => {}
        Outcome::Resync(_) => *resync = true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_lossy_channel_never_shows_a_wrong_screen(steps in proptest::collection::vec(step(), 1..120)) {
        let mut term = Term::new(30, 8, 50);
        let mut publisher = Publisher::new(9, Arc::new(term.snapshot()));
        let mut owner = HashMap::from([(0, Arc::clone(publisher.current()))]);
        let mut mirror = Mirror::new();
        let mut channel: Vec<Message> = Vec::new();
        let mut resync = true;
        for step in steps {
            if std::mem::take(&mut resync) {
                mirror.abandon_chunks();
                channel.extend(publisher.chunks(400).unwrap().into_iter().map(Message::Chunk));
            }
            match step {
                Step::Output(bytes) => term.advance(&bytes),
                Step::Resize(cols, rows) => term.resize(cols, rows),
                Step::Publish => {
                    let delta = publisher.publish(Arc::new(term.snapshot()));
                    owner.insert(delta.revision, Arc::clone(publisher.current()));
                    channel.push(Message::Delta(delta));
                }
                Step::Mark => channel.push(Message::Mark(publisher.mark(SessionState::Running))),
                Step::Deliver(how, which) if !channel.is_empty() => {
                    let index = which.min(channel.len() - 1);
                    let message = channel.remove(index);
                    if how == 0 {
                        continue;
                    }
                    let bytes = message.encode();
                    if how == 1 {
                        channel.push(message);
                    }
                    let outcome = mirror.apply(Message::decode(&bytes).unwrap());
                    check(outcome, &owner, &mirror, &mut resync);
                }
                Step::Deliver(..) => {}
            }
        }
        // The channel drains in order, then the owner's mark tells the
        // mirror whether it missed anything: on a gap, one more chunk set.
        let delta = publisher.publish(Arc::new(term.snapshot()));
        owner.insert(delta.revision, Arc::clone(publisher.current()));
        channel.push(Message::Delta(delta));
        channel.push(Message::Mark(publisher.mark(SessionState::Running)));
        for message in channel {
            let outcome = mirror.apply(message);
            check(outcome, &owner, &mirror, &mut resync);
        }
        if resync {
            mirror.abandon_chunks();
            for chunk in publisher.chunks(400).unwrap() {
                let outcome = mirror.apply(Message::Chunk(chunk));
                check(outcome, &owner, &mirror, &mut resync);
            }
        }
        assert_eq!(mirror.revision(), Some((9, publisher.revision())));
        assert_same(mirror.snapshot().unwrap(), publisher.current());
    }
}

#[test]
fn a_thousand_by_thousand_screen_crosses_in_64k_chunks() {
    let mut term = Term::new(1000, 1000, 1000);
    let mut out = Vec::new();
    let mut x = 7u64;
    for i in 0..2000 {
        let line: String = (0..1000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (b'a' + ((x >> 33) % 26) as u8) as char
            })
            .collect();
        out.extend_from_slice(format!("\x1b[38;5;{}m{line}", i % 256).as_bytes());
    }
    term.advance(&out);
    assert_eq!(term.scrollback_len(), 1000);
    let publisher = Publisher::new(1, Arc::new(term.snapshot()));
    let chunks = publisher.chunks(64 << 10).unwrap();
    assert!(chunks.len() > 10, "{} chunks", chunks.len());
    let mut mirror = Mirror::new();
    for chunk in chunks {
        let bytes = Message::Chunk(chunk).encode();
        assert!(bytes.len() <= 64 << 10);
        mirror.apply(Message::decode(&bytes).unwrap());
    }
    assert_same(mirror.snapshot().unwrap(), publisher.current());
}

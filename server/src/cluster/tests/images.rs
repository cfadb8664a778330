//! Inline images on a mirror: a joining mirror gets every picture, deltas
//! carry each new picture once, and images the owner dropped go.

use std::sync::Arc;

use super::same::assert_same;
use crate::cluster::{Message, Mirror, Outcome, Publisher};
use panecast_term::Term;

/// A sixel of `w` x 12 pixels in one colour.
fn sixel(w: usize, red: u8) -> Vec<u8> {
    format!("\x1bPq#1;2;{red};0;0#1!{w}~-#1!{w}~\x1b\\").into_bytes()
}

/// A kitty image with id 3, placed.
const KITTY: &[u8] = b"\x1b_Ga=T,f=24,s=1,v=1,i=3,q=2;AAD/\x1b\\";

fn apply(mirror: &mut Mirror, publisher: &mut Publisher, term: &mut Term) -> usize {
    let delta = publisher.publish(Arc::new(term.snapshot()));
    let pictures = delta.body.pictures();
    let bytes = Message::Delta(delta).encode();
    match mirror.apply(Message::decode(&bytes).expect("decodes")) {
        Outcome::Updated(snapshot) => assert_same(&snapshot, publisher.current()),
        other => panic!("expected a snapshot, got {other:?}"),
    }
    pictures
}

#[test]
fn a_mirror_shows_the_owner_s_images_each_sent_once() {
    let mut term = Term::new(30, 6, 50);
    term.advance(&sixel(16, 100));
    term.advance(b"\r\n");
    let mut publisher = Publisher::new(1, Arc::new(term.snapshot()));
    let mut mirror = Mirror::new();
    for chunk in publisher.chunks(512).unwrap() {
        mirror.apply(Message::Chunk(chunk));
    }
    let joined = mirror.snapshot().expect("joined");
    assert_eq!(joined.images.len(), 1);
    assert_eq!(joined.placements().len(), 1);
    assert_same(joined, publisher.current());

    term.advance(KITTY);
    assert_eq!(apply(&mut mirror, &mut publisher, &mut term), 1);
    // Text, a scroll and the same picture again: nothing new to send.
    term.advance(b"text\r\n\r\n");
    assert_eq!(apply(&mut mirror, &mut publisher, &mut term), 0);
    term.advance(b"\x1b_Ga=p,i=3,q=2\x1b\\");
    assert_eq!(apply(&mut mirror, &mut publisher, &mut term), 0);
    term.advance(&sixel(16, 100));
    assert_eq!(apply(&mut mirror, &mut publisher, &mut term), 0);
    let shown = mirror.snapshot().expect("a snapshot");
    assert_eq!(shown.placements().len(), 4);
    assert_eq!(shown.images.len(), 2);
}

#[test]
fn images_the_owner_evicts_leave_the_mirror() {
    let mut term = Term::new(30, 6, 50);
    // Room for one 16 x 12 picture.
    term.limit_images(16 * 12 * 4, 1 << 20);
    term.advance(&sixel(16, 100));
    let mut publisher = Publisher::new(1, Arc::new(term.snapshot()));
    let mut mirror = Mirror::new();
    for chunk in publisher.chunks(4096).unwrap() {
        mirror.apply(Message::Chunk(chunk));
    }
    let first = publisher.current().images.iter().next().unwrap().hash();
    term.advance(b"\r\n");
    term.advance(&sixel(16, 50));
    assert_eq!(apply(&mut mirror, &mut publisher, &mut term), 1);
    let shown = mirror.snapshot().expect("a snapshot");
    assert_eq!(shown.images.len(), 1);
    assert!(shown.image(first).is_none());
}

#[test]
fn a_delta_whose_pictures_do_not_fit_its_base_is_refused() {
    let mut term = Term::new(30, 6, 50);
    let mut publisher = Publisher::new(1, Arc::new(term.snapshot()));
    let mut mirror = Mirror::new();
    for chunk in publisher.chunks(4096).unwrap() {
        mirror.apply(Message::Chunk(chunk));
    }
    term.advance(&sixel(16, 100));
    let delta = publisher.publish(Arc::new(term.snapshot()));
    // The same picture sent twice: the second finds it in its base.
    let mut twice = delta.clone();
    twice.revision += 1;
    twice.base += 1;
    assert!(matches!(
        mirror.apply(Message::Delta(delta)),
        Outcome::Updated(_)
    ));
    assert!(matches!(
        mirror.apply(Message::Delta(twice)),
        Outcome::Resync(crate::cluster::Gap::Invalid(reason)) if reason.contains("base holds")
    ));
}

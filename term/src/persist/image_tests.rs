//! Inline images in a saved state: pictures, slices and kitty's ids read
//! back whole, and a state whose pictures are corrupt or past the budget
//! refused.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ciborium::Value;

use super::{frame, StateError, HEADER_LEN};
use crate::image::Image;
use crate::{Snapshot, Term};

/// A kitty transmission of a `w` x `h` RGB picture in one colour.
fn kitty_rgb(keys: &str, w: u32, h: u32, rgb: [u8; 3]) -> String {
    let data: Vec<u8> = (0..w * h).flat_map(|_| rgb).collect();
    format!(
        "\x1b_Gf=24,s={w},v={h},q=2,{keys};{}\x1b\\",
        STANDARD.encode(data)
    )
}

/// A terminal showing a sixel, two kitty placements (one with a placement
/// id) and an iTerm2 image, the sixel scrolled into the scrollback.
fn pictured() -> Term {
    let mut term = Term::new(20, 6, 100);
    term.advance(b"\x1bPq#1;2;100;0;0#1!16~-#1!16~\x1b\\\r\n");
    term.advance(kitty_rgb("a=T,i=5,p=7,z=-1", 16, 17, [0, 0, 255]).as_bytes());
    term.advance(kitty_rgb("a=T,I=9", 8, 17, [0, 255, 0]).as_bytes());
    let png = Image::new(8, 17, [9, 9, 9, 255].repeat(8 * 17))
        .unwrap()
        .png();
    let iterm = format!(
        "\r\n\x1b]1337;File=inline=1;size={}:{}\x07\r\n",
        png.len(),
        STANDARD.encode(&*png)
    );
    term.advance(iterm.as_bytes());
    term.advance(b"\r\n\r\n\r\n\r\n");
    term
}

/// What a viewer sees of the images: each placement, and every picture
/// the snapshot holds with its pixels.
fn pictures(snapshot: &Snapshot) -> (String, Vec<(String, Vec<u8>)>) {
    let mut images: Vec<_> = snapshot
        .images
        .iter()
        .map(|image| (image.hash().to_string(), image.rgba().to_vec()))
        .collect();
    images.sort();
    (format!("{:?}", snapshot.placements()), images)
}

#[test]
fn images_on_the_screen_and_in_the_scrollback_read_back() {
    let mut whole = pictured();
    assert_eq!(whole.snapshot().images.len(), 4);
    let scrolled = (0..whole.scrollback_len())
        .filter(|&i| !whole.scrollback_row(i).unwrap().images().is_empty())
        .count();
    assert!(scrolled > 0, "the sixel is in the scrollback");
    let mut restored = Term::restore(&whole.save()).expect("reads back");
    let (a, b) = (whole.snapshot(), restored.snapshot());
    assert_eq!(format!("{:?}", a.lines), format!("{:?}", b.lines));
    assert_eq!(pictures(&a), pictures(&b));
    assert_eq!(restored.image_bytes(), whole.image_bytes());
    for i in 0..whole.scrollback_len() {
        let (x, y) = (whole.scrollback_row(i), restored.scrollback_row(i));
        assert_eq!(
            x.map(|l| l.images().to_vec()),
            y.map(|l| l.images().to_vec())
        );
    }
    // Kitty's ids, numbers and placement ids go on: placement 7 moves,
    // number 9 names its image, both as they would have.
    for term in [&mut whole, &mut restored] {
        term.advance(b"\x1b[1;10H\x1b_Ga=p,i=5,p=7\x1b\\\x1b_Ga=p,I=9\x1b\\");
    }
    assert_eq!(restored.take_replies(), whole.take_replies());
    let (a, b) = (whole.snapshot(), restored.snapshot());
    assert_eq!(pictures(&a), pictures(&b));
    assert_eq!(a.row_images(0).len(), 3, "{:?}", a.placements());
    assert_eq!(restored.save(), whole.save());
}

#[test]
fn a_kitty_transmission_in_progress_is_dropped() {
    let mut term = Term::new(20, 6, 0);
    let data = STANDARD.encode([1u8, 2, 3].repeat(4));
    term.advance(format!("\x1b_Ga=T,f=24,s=2,v=2,i=3,m=1;{data}\x1b\\").as_bytes());
    let mut restored = Term::restore(&term.save()).expect("reads back");
    // The last chunk alone: the first command is gone, so nothing is placed.
    restored.advance(b"\x1b_Gm=0;\x1b\\");
    assert!(restored.snapshot().placements().is_empty());
    assert_eq!(restored.image_bytes(), 0);
}

/// The saved state's payload as a CBOR value.
fn payload(term: &Term) -> Value {
    let state = term.save();
    ciborium::from_reader(&state[HEADER_LEN..]).expect("a CBOR payload")
}

/// The state of `value` framed again, read back.
fn restore(value: &Value) -> Result<Term, StateError> {
    let mut bytes = Vec::new();
    ciborium::into_writer(value, &mut bytes).expect("serializes");
    Term::restore(&frame(&bytes))
}

/// Calls `change` on every map entry of `value`, depth first.
fn visit(value: &mut Value, change: &mut impl FnMut(&str, &mut Value)) {
    match value {
        Value::Map(entries) => {
            for (key, v) in entries {
                if let Value::Text(key) = key {
                    change(key, v);
                }
                visit(v, change);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| visit(v, change)),
        _ => {}
    }
}

#[test]
fn a_corrupt_picture_is_refused() {
    let mut value = payload(&pictured());
    visit(&mut value, &mut |key, v| {
        if let (Value::Bytes(png), "png") = (v, key) {
            let last = png.len() - 20;
            png[last] ^= 0xff;
        }
    });
    let err = restore(&value).err();
    assert!(
        matches!(err, Some(StateError::Decode(ref e)) if e.contains("saved images")),
        "{err:?}"
    );
}

#[test]
fn pictures_past_the_saved_budget_are_refused() {
    let term = pictured();
    let mut value = payload(&term);
    let held = term.image_bytes() as u64;
    visit(&mut value, &mut |key, v| {
        if key == "budget" {
            *v = Value::Integer((held - 1).into());
        }
    });
    let err = restore(&value).err();
    assert!(
        matches!(err, Some(StateError::Decode(ref e)) if e.contains("within the budget")),
        "{err:?}"
    );
}

#[test]
fn a_picture_that_is_not_its_hash_is_refused() {
    let mut value = payload(&pictured());
    let mut first = true;
    visit(&mut value, &mut |key, v| {
        if key == "hash" && std::mem::take(&mut first) {
            *v = Value::Integer(1.into());
        }
    });
    let err = restore(&value).err();
    assert!(
        matches!(err, Some(StateError::Decode(ref e)) if e.contains("hash")),
        "{err:?}"
    );
}

#[test]
fn a_slice_off_its_row_is_refused() {
    let mut value = payload(&pictured());
    visit(&mut value, &mut |key, v| {
        if key == "visible" {
            *v = Value::Array(vec![Value::Integer(0.into()), Value::Integer(500.into())]);
        }
    });
    let err = restore(&value).err();
    assert!(matches!(err, Some(StateError::Inconsistent(_))), "{err:?}");
}

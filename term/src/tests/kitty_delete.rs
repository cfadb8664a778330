//! Kitty's `a=d` deletes, one test a kind: the lower-case kind removes the
//! placements it selects and keeps the images; the upper-case kind also
//! frees the images no row shows any more.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::{replies, screen};
use crate::Term;

/// Three images, id `k` a 1x1 picture of red `10 k`, placed (cursor kept):
/// id 1 at row 1 column 1 (2x1 cells, z 0), id 2 at row 3 column 6 (3x2,
/// z 5), id 3 at row 5 column 11 (1x1, z -1); rows and columns 1-based.
fn three() -> Term {
    let mut t = screen(20, 6, b"");
    for k in 1..=3u8 {
        let data = STANDARD.encode([10 * k, 0, 0]);
        t.advance(format!("\x1b_Ga=t,f=24,s=1,v=1,i={k},q=2;{data}\x1b\\").as_bytes());
    }
    t.advance(b"\x1b[1;1H\x1b_Ga=p,i=1,p=1,c=2,r=1,C=1,q=2\x1b\\");
    t.advance(b"\x1b[3;6H\x1b_Ga=p,i=2,p=1,c=3,r=2,C=1,z=5,q=2\x1b\\");
    t.advance(b"\x1b[5;11H\x1b_Ga=p,i=3,p=1,c=1,r=1,C=1,z=-1,q=2\x1b\\");
    assert_eq!(shown(&mut t), [1, 2, 3]);
    t
}

/// The ids shown (read back from each placement's colour), sorted.
fn shown(t: &mut Term) -> Vec<u8> {
    let s = t.snapshot();
    let mut ids: Vec<u8> = s
        .placements()
        .iter()
        .map(|p| s.image(p.image).expect("kept").pixel(0, 0).unwrap()[0] / 10)
        .collect();
    ids.sort();
    ids
}

/// True when image id `k` is still stored (probed without placing it).
fn stored(t: &mut Term, k: u8) -> bool {
    // A query of a placement by id: an error when the id is gone. The
    // placement made is deleted again at once.
    t.advance(format!("\x1b[6;20H\x1b_Ga=p,i={k},p=99,q=1\x1b\\").as_bytes());
    let found = replies(t).is_empty();
    t.advance(format!("\x1b_Ga=d,d=i,i={k},p=99\x1b\\").as_bytes());
    found
}

/// Runs `keys` (after `before`) as a lower-case and as an upper-case
/// delete: both leave `left` shown; the lower-case one keeps every image,
/// the upper-case one frees the removed ones.
fn check(before: &str, kind: char, keys: &str, left: &[u8]) {
    for upper in [false, true] {
        let mut t = three();
        let bytes = t.image_bytes();
        let kind = if upper {
            kind.to_ascii_uppercase()
        } else {
            kind
        };
        t.advance(format!("{before}\x1b_Ga=d,d={kind}{keys}\x1b\\").as_bytes());
        assert_eq!(replies(&mut t), "", "deletes are not answered");
        assert_eq!(shown(&mut t), left, "d={kind}{keys}");
        let removed = (1..=3).filter(|k| !left.contains(k)).count();
        assert_eq!(t.image_bytes(), bytes - if upper { removed * 4 } else { 0 });
        for k in 1..=3u8 {
            let kept = !upper || left.contains(&k);
            assert_eq!(stored(&mut t, k), kept, "id {k} after d={kind}{keys}");
        }
    }
}

#[test]
fn a_deletes_every_placement() {
    check("", 'a', "", &[]);
}

#[test]
fn i_deletes_an_id_s_placements() {
    check("", 'i', ",i=2", &[1, 3]);
    // With a placement id, only that placement.
    check("", 'i', ",i=2,p=5", &[1, 2, 3]);
}

#[test]
fn n_deletes_the_newest_image_with_a_number() {
    for kind in ['n', 'N'] {
        let mut t = three();
        let data = STANDARD.encode([70u8, 0, 0]);
        t.advance(format!("\x1b[2;15H\x1b_Ga=T,f=24,s=1,v=1,I=7,q=2;{data}\x1b\\").as_bytes());
        assert_eq!(shown(&mut t), [1, 2, 3, 7]);
        t.advance(format!("\x1b_Ga=d,d={kind},I=7\x1b\\").as_bytes());
        assert_eq!(shown(&mut t), [1, 2, 3]);
        t.advance(b"\x1b_Ga=p,I=7,q=1\x1b\\");
        assert_eq!(replies(&mut t).is_empty(), kind == 'n', "d={kind}");
    }
}

#[test]
fn c_deletes_what_covers_the_cursor() {
    check("\x1b[4;8H", 'c', "", &[1, 3]);
    check("\x1b[2;1H", 'c', "", &[1, 2, 3]);
}

#[test]
fn p_deletes_what_covers_a_cell() {
    // Row 4 column 7: the second row of id 2's placement; all of it goes.
    check("", 'p', ",x=7,y=4", &[1, 3]);
    check("", 'p', ",x=9,y=4", &[1, 2, 3]);
}

#[test]
fn q_deletes_what_covers_a_cell_at_a_z_index() {
    check("", 'q', ",x=7,y=4,z=5", &[1, 3]);
    check("", 'q', ",x=7,y=4,z=0", &[1, 2, 3]);
}

#[test]
fn x_deletes_what_covers_a_column() {
    check("", 'x', ",x=11", &[1, 2]);
    check("", 'x', ",x=2", &[2, 3]);
}

#[test]
fn y_deletes_what_covers_a_row() {
    check("", 'y', ",y=4", &[1, 3]);
    check("", 'y', ",y=2", &[1, 2, 3]);
}

#[test]
fn z_deletes_at_a_z_index() {
    check("", 'z', ",z=-1", &[1, 2]);
}

#[test]
fn r_deletes_a_range_of_ids() {
    check("", 'r', ",x=2,y=3", &[1]);
    check("", 'r', ",x=3,y=2", &[1, 2, 3]);
}

#[test]
fn f_deletes_no_frames_as_there_are_none() {
    check("", 'f', "", &[1, 2, 3]);
}

#[test]
fn an_upper_case_delete_keeps_an_image_the_scrollback_still_shows() {
    let mut t = screen(20, 3, b"");
    let data = STANDARD.encode([10u8, 0, 0]);
    t.advance(format!("\x1b_Ga=T,f=24,s=1,v=1,i=1,q=2;{data}\x1b\\\r\n\n\n").as_bytes());
    t.advance(b"\x1b_Ga=p,i=1,q=2\x1b\\");
    let bytes = t.image_bytes();
    t.advance(b"\x1b_Ga=d,d=A\x1b\\");
    assert!(t.snapshot().placements().is_empty());
    // The scrollback's line still shows the picture: its data stays.
    assert_eq!(t.image_bytes(), bytes);
}

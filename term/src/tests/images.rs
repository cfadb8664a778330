//! Inline images through the whole emulator: sixel, kitty graphics and
//! iTerm2 images decoded, anchored to rows, scrolled, cut, deleted and
//! bounded.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::{replies, screen};
use crate::image::Image;
use crate::{Snapshot, Term};

/// A sixel of `w` columns by 12 rows (two bands) in one RGB colour.
fn sixel(w: usize, rgb: (u8, u8, u8)) -> Vec<u8> {
    let (r, g, b) = rgb;
    format!("\x1bPq#1;2;{r};{g};{b}#1!{w}~-#1!{w}~\x1b\\").into_bytes()
}

/// The placements' (top row, first col, first row, last row) on screen.
fn placed(snapshot: &Snapshot) -> Vec<(i32, u16, u16, u16)> {
    snapshot
        .placements()
        .iter()
        .map(|p| (p.top, p.slice.col(), p.first_row, p.last_row))
        .collect()
}

/// The one image the snapshot shows.
fn only_image(snapshot: &Snapshot) -> std::sync::Arc<Image> {
    let placements = snapshot.placements();
    assert_eq!(placements.len(), 1, "{placements:?}");
    snapshot.image(placements[0].image).expect("kept").clone()
}

#[test]
fn a_sixel_is_placed_at_the_cursor_over_the_rows_it_covers() {
    let mut t = screen(20, 6, b"ab");
    t.advance(&sixel(16, (100, 0, 0)));
    let s = t.snapshot();
    // 16 x 12 pixels: two columns of 8, one row of 17.
    assert_eq!(placed(&s), vec![(0, 2, 0, 0)]);
    let slice = s.row_images(0)[0];
    assert_eq!(slice.visible(), (2, 4));
    assert_eq!(slice.size(), (16, 12));
    let image = only_image(&s);
    assert_eq!(image.pixel(0, 0), Some([255, 0, 0, 255]));
    // The cursor stays on the image's last row, at its left column.
    assert_eq!((s.cursor.row, s.cursor.col), (0, 2));
}

#[test]
fn images_scroll_into_the_scrollback_and_come_back() {
    // 40 pixel rows: 3 text rows.
    let mut t = screen(10, 4, b"");
    let tall = b"\x1bPq#1;2;0;0;100#1~-~-~-~-~-~-~\x1b\\";
    t.advance(tall);
    assert_eq!(placed(&t.snapshot()), vec![(0, 0, 0, 2)]);
    t.advance(b"\r\n\n\n");
    let s = t.snapshot();
    assert_eq!(placed(&s), vec![(-2, 0, 0, 0)]);
    assert_eq!(t.scrollback_len(), 2);
    let line = t.scrollback_row(0).expect("a line");
    assert_eq!(line.images().len(), 1);
    assert_eq!(line.images()[0].row(), 0);
    // Growing the screen pulls the lines back with their images.
    t.resize(10, 6);
    let s = t.snapshot();
    assert_eq!(placed(&s), vec![(0, 0, 0, 2)]);
}

#[test]
fn images_go_with_evicted_lines() {
    let mut t = Term::new(10, 2, 2);
    t.advance(&sixel(8, (0, 100, 0)));
    t.advance(b"\n\n\n\n\n\n");
    assert!(t.snapshot().placements().is_empty());
    assert!((0..t.scrollback_len()).all(|i| t.scrollback_row(i).unwrap().images().is_empty()));
}

#[test]
fn text_over_a_sixel_cuts_its_cells() {
    let mut t = screen(20, 4, b"");
    t.advance(&sixel(40, (100, 0, 0)));
    // Five columns; text over the middle one splits it in two.
    t.advance(b"\x1b[1;3HX");
    let s = t.snapshot();
    let visible: Vec<_> = s.row_images(0).iter().map(|s| s.visible()).collect();
    assert_eq!(visible, vec![(0, 2), (3, 5)]);
    t.advance(b"\x1b[1;1H\x1b[2K");
    assert!(t.snapshot().row_images(0).is_empty());
}

fn kitty_rgb(keys: &str, w: u32, h: u32, rgb: [u8; 3]) -> Vec<u8> {
    let data: Vec<u8> = (0..w * h).flat_map(|_| rgb).collect();
    format!(
        "\x1b_Gf=24,s={w},v={h},{keys};{}\x1b\\",
        STANDARD.encode(data)
    )
    .into_bytes()
}

#[test]
fn kitty_transmits_places_and_answers() {
    let mut t = screen(20, 6, b"");
    t.advance(&kitty_rgb("a=T,i=5", 16, 17, [0, 0, 255]));
    assert_eq!(replies(&mut t), "\x1b_Gi=5;OK\x1b\\");
    let s = t.snapshot();
    assert_eq!(placed(&s), vec![(0, 0, 0, 0)]);
    assert_eq!(only_image(&s).pixel(3, 3), Some([0, 0, 255, 255]));
    // The cursor moves past the image's right edge.
    assert_eq!((s.cursor.row, s.cursor.col), (0, 2));
    // Text does not erase a kitty placement.
    t.advance(b"\x1b[1;1Hxyz");
    assert_eq!(t.snapshot().row_images(0)[0].visible(), (0, 2));
    // Placed again by id, in cells, without moving the cursor.
    t.advance(b"\x1b[3;1H\x1b_Ga=p,i=5,p=2,c=4,r=2,C=1,z=-1\x1b\\");
    assert_eq!(replies(&mut t), "\x1b_Gi=5,p=2;OK\x1b\\");
    let s = t.snapshot();
    assert_eq!(placed(&s), vec![(0, 0, 0, 0), (2, 0, 2, 3)]);
    assert_eq!(s.row_images(3)[0].z(), -1);
    assert_eq!((s.cursor.row, s.cursor.col), (2, 0));
    // Delete by id and placement, then everything.
    t.advance(b"\x1b_Ga=d,d=i,i=5,p=2\x1b\\");
    assert_eq!(placed(&t.snapshot()), vec![(0, 0, 0, 0)]);
    assert_eq!(replies(&mut t), "");
    t.advance(b"\x1b_Ga=d\x1b\\");
    assert!(t.snapshot().placements().is_empty());
    // The image is still stored (lower-case d keeps it) ...
    t.advance(b"\x1b_Ga=p,i=5\x1b\\");
    assert_eq!(replies(&mut t), "\x1b_Gi=5;OK\x1b\\");
    // ... until an upper-case delete frees it.
    t.advance(b"\x1b_Ga=d,d=I,i=5\x1b\\\x1b_Ga=p,i=5\x1b\\");
    assert!(replies(&mut t).starts_with("\x1b_Gi=5;ENOENT"));
}

#[test]
fn kitty_chunks_zlib_and_png() {
    let image = Image::new(2, 2, [9, 8, 7, 255].repeat(4)).unwrap();
    let png = STANDARD.encode(&*image.png());
    // Chunks hold whole base64 quads, as the protocol asks.
    let (a, b) = png.split_at(png.len() / 8 * 4);
    let mut t = screen(20, 6, b"");
    t.advance(format!("\x1b_Ga=T,f=100,i=1,m=1;{a}\x1b\\\x1b_Gm=0;{b}\x1b\\").as_bytes());
    assert_eq!(replies(&mut t), "\x1b_Gi=1;OK\x1b\\");
    assert_eq!(only_image(&t.snapshot()).rgba(), image.rgba());

    let raw = [1u8, 2, 3, 4].repeat(4);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut z, &raw).unwrap();
    let z = STANDARD.encode(z.finish().unwrap());
    let mut t = screen(20, 6, b"");
    t.advance(format!("\x1b_Ga=T,f=32,s=2,v=2,o=z,i=2;{z}\x1b\\").as_bytes());
    assert_eq!(replies(&mut t), "\x1b_Gi=2;OK\x1b\\");
    assert_eq!(only_image(&t.snapshot()).rgba(), &raw[..]);
}

#[test]
fn kitty_refuses_files_and_answers_queries() {
    let mut t = screen(20, 6, b"");
    t.advance(b"\x1b_Ga=t,t=f,i=3;L3RtcC94\x1b\\");
    assert!(replies(&mut t).starts_with("\x1b_Gi=3;EINVAL:"));
    t.advance(&kitty_rgb("a=q,i=31", 1, 1, [0, 0, 0]));
    assert_eq!(replies(&mut t), "\x1b_Gi=31;OK\x1b\\");
    assert!(t.snapshot().placements().is_empty());
    assert_eq!(t.image_bytes(), 0);
    // Quiet: no OK, errors still (q=1); nothing (q=2).
    t.advance(&kitty_rgb("a=t,i=4,q=1", 1, 1, [0, 0, 0]));
    t.advance(b"\x1b_Ga=p,i=99,q=2\x1b\\");
    assert_eq!(replies(&mut t), "");
}

#[test]
fn iterm_inline_images_are_decoded_and_sized() {
    let image = Image::new(16, 34, [0, 255, 0, 255].repeat(16 * 34)).unwrap();
    let data = STANDARD.encode(&*image.png());
    let mut t = screen(20, 6, b"");
    t.advance(format!("\x1b]1337;File=inline=1:{data}\x07").as_bytes());
    let s = t.snapshot();
    assert_eq!(placed(&s), vec![(0, 0, 0, 1)]);
    assert_eq!((s.cursor.row, s.cursor.col), (1, 2));
    t.advance(
        format!("\x1b]1337;File=inline=1;width=4;height=1;preserveAspectRatio=0:{data}\x07")
            .as_bytes(),
    );
    let s = t.snapshot();
    let last = s.placements().pop().unwrap();
    assert_eq!(last.slice.size(), (32, 17));
    assert_eq!(last.slice.visible(), (2, 6));
    // Bad base64 places nothing and the text after it prints.
    t.advance(b"\x1b[5;1H\x1b]1337;File=inline=1:@@@@\x07ok");
    assert_eq!(t.snapshot().placements().len(), 2);
    assert_eq!(t.snapshot().lines[4].text(), "ok");
}

#[test]
fn queries_answer_truthfully() {
    let mut t = screen(20, 6, b"\x1b[c");
    assert!(replies(&mut t).starts_with("\x1b[?65;1;2;4;"));
    t.advance(b"\x1b[?1;1S\x1b[?2;1S");
    assert_eq!(replies(&mut t), "\x1b[?1;0;1024S\x1b[?2;0;2896;2896S");
}

#[test]
fn the_budget_evicts_the_oldest_images() {
    let mut t = screen(20, 6, b"");
    // 32 x 12 sixels are 1,536 bytes: room for two.
    t.limit_images(4000, 1 << 20);
    for i in 0..10u8 {
        t.advance(&sixel(32, (i * 10, 0, 0)));
        t.advance(b"\r\n");
        assert!(t.image_bytes() <= 4000);
    }
    let s = t.snapshot();
    let kept = s
        .placements()
        .iter()
        .filter(|p| s.image(p.image).is_some())
        .count();
    assert_eq!(kept, 2);
    // Over the pixel cap, a kitty image is refused with an error.
    t.limit_images(1 << 20, 100);
    t.advance(&kitty_rgb("a=T,i=9", 20, 20, [1, 2, 3]));
    assert!(replies(&mut t).starts_with("\x1b_Gi=9;EFBIG"));
}

#[test]
fn ris_and_clear_remove_kitty_placements() {
    let mut t = screen(20, 6, b"");
    t.advance(&kitty_rgb("a=T,i=1", 8, 8, [1, 1, 1]));
    t.advance(b"\x1b[2J");
    assert!(t.snapshot().placements().is_empty());
    t.advance(&kitty_rgb("a=T,i=1", 8, 8, [1, 1, 1]));
    t.advance(b"\x1bc\x1b_Ga=p,i=1\x1b\\");
    assert!(t.snapshot().placements().is_empty());
    assert!(replies(&mut t).contains("ENOENT"));
}

#[test]
fn an_overlong_apc_is_dropped_whole_and_text_continues() {
    let mut t = screen(20, 6, b"");
    let long = "A".repeat(20_000);
    t.advance(format!("\x1b_Ga=T,f=24,s=1,v=1,i=1;{long}\x1b\\after").as_bytes());
    assert_eq!(replies(&mut t), "");
    assert_eq!(t.snapshot().lines[0].text(), "after");
}

/// Hostile image output: each case leaves memory within the budget and
/// the terminal reading the next text correctly.
#[test]
fn hostile_images_stay_within_the_budget_and_text_goes_on() {
    let budget = 1 << 20;
    let png_bomb = {
        let mut png = Image::new(1, 1, vec![1, 2, 3, 4]).unwrap().png().to_vec();
        png[16..20].copy_from_slice(&60_000u32.to_be_bytes());
        png[20..24].copy_from_slice(&60_000u32.to_be_bytes());
        STANDARD.encode(png)
    };
    let zlib_bomb = {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut z, &vec![0u8; 16 << 20]).unwrap();
        STANDARD.encode(z.finish().unwrap())
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "a 20,000 x 20,000 sixel",
            b"\x1bPq\"1;1;20000;20000#1;2;100;0;0#1!20000~-!20000~-!20000~\x1b\\".to_vec(),
        ),
        (
            "a truncated kitty chunk sequence",
            format!(
                "\x1b_Ga=T,f=32,s=4,v=4,i=1,m=1;{}\x1b\\",
                "AAAA".repeat(1000)
            )
            .into_bytes(),
        ),
        (
            "bad base64",
            b"\x1b_Ga=T,f=100,i=2;!!!!\x1b\\\x1b]1337;File=inline=1:%%%%\x07".to_vec(),
        ),
        (
            "a PNG bomb",
            format!("\x1b_Ga=T,f=100,i=3;{png_bomb}\x1b\\").into_bytes(),
        ),
        (
            "a zlib bomb",
            format!("\x1b_Ga=T,f=32,s=512,v=512,o=z,i=4;{zlib_bomb}\x1b\\").into_bytes(),
        ),
        ("a thousand images", {
            let mut out = Vec::new();
            for i in 0..1000u32 {
                out.extend(kitty_rgb(
                    "a=T",
                    32,
                    32,
                    i.to_le_bytes()[..3].try_into().unwrap(),
                ));
                out.extend(sixel(32, ((i % 100) as u8, 0, 0)));
            }
            out
        }),
    ];
    for (what, bytes) in cases {
        let mut t = screen(40, 10, b"");
        t.limit_images(budget, 1 << 20);
        // Split anywhere: the cases must hold across chunk boundaries.
        for chunk in bytes.chunks(4093) {
            t.advance(chunk);
            assert!(
                t.image_bytes() <= budget as usize,
                "{what}: {} bytes",
                t.image_bytes()
            );
        }
        t.take_replies();
        t.advance(b"\x1b_Gm=0;\x1b\\\x1b[2J\x1b[Hnext text");
        assert_eq!(t.snapshot().lines[0].text(), "next text", "{what}");
    }
}

#[test]
fn decsdm_draws_a_sixel_at_the_top_left_without_scrolling_or_moving_the_cursor() {
    // 40 pixel rows: 3 text rows, on a screen of 2.
    let tall = b"\x1bPq#1;2;0;0;100#1~-~-~-~-~-~-~\x1b\\";
    let mut t = screen(10, 2, b"\x1b[?80h\x1b[2;5Hab");
    t.advance(b"\x1b[?80$p");
    assert_eq!(replies(&mut t), "\x1b[?80;1$y");
    t.advance(tall);
    let s = t.snapshot();
    // At the top-left, clipped to the screen's 2 rows: nothing scrolled.
    assert_eq!(placed(&s), vec![(0, 0, 0, 1)]);
    assert_eq!(t.scrollback_len(), 0);
    assert_eq!((s.cursor.row, s.cursor.col), (1, 6));
    // Reset (the default): at the cursor, scrolling, the cursor moved.
    let mut t = screen(10, 2, b"\x1b[?80h\x1b[?80l\x1b[2;5H");
    t.advance(b"\x1b[?80$p");
    assert_eq!(replies(&mut t), "\x1b[?80;2$y");
    t.advance(tall);
    let s = t.snapshot();
    assert_eq!(placed(&s), vec![(-1, 4, 0, 1)]);
    assert_eq!((s.cursor.row, s.cursor.col), (1, 4));
}

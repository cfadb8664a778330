//! Inline images in the rendered formats: where each row's slices fall,
//! in cells and in the image's pixels, and the PNG data URIs the HTML and
//! SVG formats embed (one per image, however many slices show it).

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use panecast_term::image::{ImageHash, ImageSlice};
use panecast_term::{Snapshot, CELL_HEIGHT, CELL_WIDTH};

/// What one row shows of one placement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Piece {
    /// The screen row.
    pub row: usize,
    /// The visible columns, `start..end`.
    pub cols: (usize, usize),
    /// The part of the image those cells show, in image pixels
    /// (x, y, width, height).
    pub view: (f64, f64, f64, f64),
    /// The image.
    pub image: ImageHash,
    /// Its z-index.
    pub z: i32,
}

/// The terminal's own cell size in pixels, which slices' sizes are in.
fn cell_px() -> (f64, f64) {
    (CELL_WIDTH.round(), CELL_HEIGHT.round())
}

impl Piece {
    /// The piece of `slice` on screen row `row`.
    pub(crate) fn of(row: usize, slice: &ImageSlice) -> Piece {
        let (cw, ch) = cell_px();
        let src = slice.src();
        let (w, h) = slice.size();
        // Image pixels per terminal pixel.
        let kx = f64::from(src.w) / f64::from(w.max(1));
        let ky = f64::from(src.h) / f64::from(h.max(1));
        let (a, b) = slice.visible();
        let left = f64::from(a - slice.col()) * cw;
        let top = f64::from(slice.row()) * ch;
        Piece {
            row,
            cols: (a as usize, b as usize),
            view: (
                f64::from(src.x) + left * kx,
                f64::from(src.y) + top * ky,
                f64::from(b - a) * cw * kx,
                ch * ky,
            ),
            image: slice.image(),
            z: slice.z(),
        }
    }
}

/// The pieces of every visible row, bottom-most placement first on each
/// row, skipping images the snapshot no longer holds.
pub(super) fn pieces(snapshot: &Snapshot) -> Vec<Piece> {
    let mut out = Vec::new();
    for r in 0..snapshot.lines.len() {
        for slice in snapshot.row_images(r) {
            if snapshot.image(slice.image()).is_some() {
                out.push(Piece::of(r, slice));
            }
        }
    }
    out.sort_by_key(|p| p.z);
    out
}

/// A PNG data URI for each image the pieces show, by hash.
pub(super) fn data_uris(snapshot: &Snapshot, pieces: &[Piece]) -> BTreeMap<ImageHash, String> {
    let mut uris = BTreeMap::new();
    for piece in pieces {
        uris.entry(piece.image).or_insert_with(|| {
            let png = snapshot
                .image(piece.image)
                .map(|i| i.png())
                .unwrap_or_default();
            format!("data:image/png;base64,{}", STANDARD.encode(&*png))
        });
    }
    uris
}

/// The text marker of a cell an image covers: U+FFFC OBJECT REPLACEMENT
/// CHARACTER, written where the cell holds no text.
pub const MARKER: char = '\u{fffc}';

#[cfg(test)]
mod tests {
    use crate::render::{render, Format};
    use panecast_term::Term;

    /// A 20x3 terminal with a 16 x 12 red sixel at column 2 of row 0 and
    /// text after it.
    fn term() -> Term {
        let mut t = Term::new(20, 3, 0);
        t.advance(b"ab\x1bPq#1;2;100;0;0#1!16~-#1!16~\x1b\\\x1b[2;1Hnext");
        t
    }

    #[test]
    fn text_marks_the_cells_an_image_covers() {
        let text = render(&term().snapshot(), Format::Text);
        assert_eq!(text, "ab\u{fffc}\u{fffc}\nnext\n\n");
    }

    #[test]
    fn json_lists_the_placements() {
        let json: serde_json::Value =
            serde_json::from_str(&render(&term().snapshot(), Format::Json)).unwrap();
        let images = json["images"].as_array().expect("images");
        assert_eq!(images.len(), 1);
        let p = &images[0];
        assert_eq!((p["row"].as_i64(), p["col"].as_u64()), (Some(0), Some(2)));
        assert_eq!(
            (p["width"].as_u64(), p["height"].as_u64()),
            (Some(16), Some(12))
        );
        assert_eq!(p["src"], serde_json::json!([0, 0, 16, 12]));
        assert_eq!(p["image"].as_str().map(str::len), Some(32));
        // No images: no key, so screens without images read as before.
        let plain = render(&Term::new(5, 1, 0).snapshot(), Format::Json);
        assert!(!plain.contains("images"));
    }

    #[test]
    fn html_and_svg_embed_the_png_once_at_its_cells() {
        let snapshot = term().snapshot();
        let html = render(&snapshot, Format::Html);
        assert_eq!(html.matches("data:image/png;base64,").count(), 1);
        assert!(html.contains("left:2ch;top:0em;width:2ch;height:1.2em;z-index:1"));
        let svg = render(&snapshot, Format::Svg);
        assert_eq!(svg.matches("data:image/png;base64,").count(), 1);
        assert!(svg.contains(
            "<svg x=\"16.8\" y=\"0\" width=\"16.8\" height=\"17\" viewBox=\"0 0 16 17\""
        ));
        // Over the text: drawn after it.
        assert!(svg.find("<use").unwrap() > svg.find("<text").unwrap());
    }
}

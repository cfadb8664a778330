//! Inline images for one viewer: the pieces a row sends, and which
//! pictures this connection has been sent (each goes once, before the
//! first message that places it).

use std::collections::HashSet;
use std::sync::Arc;

use panecast_proto as proto;
use panecast_proto::limits::{MAX_IMAGE_PNG, MAX_IMAGE_SIDE};

use crate::render::images::Piece;
use panecast_term::image::{Image, ImageHash, ImageSet, MAX_IMAGE_SIDE as TERM_MAX_SIDE};
use panecast_term::{Row, Snapshot};

// Every image the terminal keeps fits the wire's bounds.
const _: () = assert!(TERM_MAX_SIDE <= MAX_IMAGE_SIDE);

/// The pieces of images `row` shows within `cols` columns, bottom first.
pub fn row_pieces(row: &Row, cols: u16) -> Vec<proto::ImagePiece> {
    row.images()
        .iter()
        .filter_map(|slice| slice.keep(0, cols))
        .map(|slice| {
            let piece = Piece::of(0, &slice);
            let (x, y, w, h) = piece.view;
            // Sixteenths of a pixel: the view is fractional when scaled.
            let fixed = |v: f64| (v * 16.0).round().max(0.0) as u32;
            proto::ImagePiece {
                hash: piece.image.0.to_be_bytes(),
                z: piece.z,
                col: piece.cols.0 as u16,
                cols: (piece.cols.1 - piece.cols.0) as u16,
                src: [fixed(x), fixed(y), fixed(w).max(1), fixed(h).max(1)],
            }
        })
        .collect()
}

/// The pictures of `held` that `lines` place, each once, in the order
/// they first appear: those a scrollback answer brings.
pub fn placed_images(lines: &[proto::Line], held: &ImageSet) -> Vec<Arc<Image>> {
    let mut images: Vec<Arc<Image>> = Vec::new();
    for piece in lines.iter().flat_map(|line| line.images()) {
        let hash = ImageHash(u128::from_be_bytes(piece.hash));
        if let Some(image) = held.get(hash) {
            if !images.iter().any(|i| i.hash() == hash) {
                images.push(Arc::clone(image));
            }
        }
    }
    images
}

/// True when `image`'s PNG fits in an `Image` message (a bigger one is
/// not sent: its pieces are, and clients paint none).
pub fn fits_the_wire(image: &Image) -> bool {
    image.png().len() <= MAX_IMAGE_PNG
}

/// The `Image` message of `image`.
pub fn image_message(image: &Image) -> Vec<u8> {
    let png = image.png();
    let mut out = Vec::new();
    proto::Image::encode_parts(
        &image.hash().0.to_be_bytes(),
        image.width(),
        image.height(),
        &png,
        &mut out,
    );
    out
}

/// The pictures one connection has been sent, by hash: never more than
/// the session's store holds, since hashes it evicted are forgotten.
#[derive(Default)]
pub struct ImagesSent {
    sent: HashSet<ImageHash>,
}

impl ImagesSent {
    /// The images placed on `snap`'s screen that this connection lacks
    /// and that fit the wire (noted as sent now); forgets those the store
    /// no longer holds.
    pub fn for_screen(&mut self, snap: &Snapshot) -> Vec<Arc<Image>> {
        self.sent.retain(|&h| snap.images.get(h).is_some());
        let placed = snap.lines.iter().flat_map(|row| row.images());
        self.take(&snap.images, placed.map(|s| s.image()))
    }

    /// Of `images` (a scrollback answer's), those this connection lacks,
    /// noted as sent now.
    pub fn for_answer(&mut self, images: &[Arc<Image>]) -> Vec<Arc<Image>> {
        images
            .iter()
            .filter(|image| fits_the_wire(image) && self.sent.insert(image.hash()))
            .cloned()
            .collect()
    }

    /// The images of `hashes` held by `set` and not sent yet.
    fn take(&mut self, set: &ImageSet, hashes: impl Iterator<Item = ImageHash>) -> Vec<Arc<Image>> {
        let mut out = Vec::new();
        for hash in hashes {
            if let Some(image) = set.get(hash) {
                if !self.sent.contains(&hash) && fits_the_wire(image) {
                    self.sent.insert(hash);
                    out.push(Arc::clone(image));
                }
            }
        }
        out
    }
}

//! Inline images: decoded pictures, the per-row slices that anchor them to
//! cells, and the per-terminal store that bounds their memory.
//!
//! - `sixel.rs`: the sixel decoder (DCS q);
//! - `kitty.rs`: the kitty graphics protocol's commands (APC G);
//! - `iterm.rs`: iTerm2's inline-image arguments (OSC 1337 File, inline=1);
//! - `decode.rs`: PNG, TIFF and zlib payloads, each bounded;
//! - `store.rs`: the images by content hash, evicted oldest first;
//! - `saved.rs`: the store in a saved terminal state, read back within
//!   its budget;
//! - `slice.rs`: what a row holds of an image.
//!
//! An image is placed by writing an [`ImageSlice`] into each row it covers:
//! slices move with their rows (scrolling, the scrollback, resizing) at no
//! cost to rows without images, and go when their rows go.

mod decode;
pub(crate) mod iterm;
pub(crate) mod kitty;
mod saved;
pub(crate) mod sixel;
mod slice;
mod store;

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub(crate) use decode::{decode_base64, decode_picture, inflate};
pub use saved::Picture;
pub(crate) use slice::cut as slice_cut;
pub use slice::{ImageSlice, PixelRect};
pub use store::ImageSet;
pub(crate) use store::{ImageStore, StoreError};

/// Default budget of decoded image memory per session: 32 MiB.
pub const DEFAULT_IMAGE_BYTES: usize = 32 * 1024 * 1024;

/// Default cap on one image's pixels: 4096 x 4096 (64 MiB of RGBA would
/// exceed the default budget anyway).
pub const DEFAULT_IMAGE_PIXELS: u64 = 4096 * 4096;

/// Most pixels on either side of one image, whatever the pixel cap.
pub const MAX_IMAGE_SIDE: u32 = 10_000;

/// An image's identity: the first 128 bits of the SHA-256 of its size and
/// RGBA pixels. Equal pictures share one hash, so their pixels travel once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ImageHash(pub u128);

impl fmt::Display for ImageHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// A decoded picture: straight (not premultiplied) RGBA, 8 bits a channel.
pub struct Image {
    hash: ImageHash,
    width: u32,
    height: u32,
    rgba: Box<[u8]>,
    png: OnceLock<Arc<[u8]>>,
}

impl fmt::Debug for Image {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Image({} {}x{})", self.hash, self.width, self.height)
    }
}

/// Equal hashes mean equal pictures (content addressing).
impl PartialEq for Image {
    fn eq(&self, other: &Image) -> bool {
        self.hash == other.hash
    }
}

impl Eq for Image {}

impl Image {
    /// A picture from its RGBA pixels, `None` unless there are exactly
    /// `width * height * 4` bytes and neither side is 0.
    pub fn new(width: u32, height: u32, rgba: Vec<u8>) -> Option<Image> {
        let expected = (width as usize)
            .checked_mul(height as usize)?
            .checked_mul(4)?;
        if width == 0 || height == 0 || rgba.len() != expected {
            return None;
        }
        let mut digest = Sha256::new();
        digest.update(width.to_le_bytes());
        digest.update(height.to_le_bytes());
        digest.update(&rgba);
        let sum = digest.finalize();
        let mut first = [0u8; 16];
        first.copy_from_slice(&sum[..16]);
        Some(Image {
            hash: ImageHash(u128::from_be_bytes(first)),
            width,
            height,
            rgba: rgba.into_boxed_slice(),
            png: OnceLock::new(),
        })
    }

    /// Its content hash.
    pub fn hash(&self) -> ImageHash {
        self.hash
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The pixels, RGBA, row by row.
    pub fn rgba(&self) -> &[u8] {
        &self.rgba
    }

    /// The pixel at (`x`, `y`) as RGBA, `None` outside the picture.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        let mut px = [0; 4];
        px.copy_from_slice(&self.rgba[i..i + 4]);
        Some(px)
    }

    /// Decoded bytes held, what the session's budget counts.
    pub fn bytes(&self) -> usize {
        self.rgba.len()
    }

    /// The picture as a PNG file, encoded the first time it is asked for
    /// and shared after: one encoding per image, whatever the viewers.
    pub fn png(&self) -> Arc<[u8]> {
        Arc::clone(
            self.png
                .get_or_init(|| Arc::from(decode::encode_png(self.width, self.height, &self.rgba))),
        )
    }
}

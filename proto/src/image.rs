//! Inline images on the wire: the `Image` message (one picture's PNG, sent
//! once per connection) and the pieces of images a line shows.
//!
//! PROTOCOL.md ("Images") gives the byte layout and how a client paints.

use crate::limits::{MAX_COLS, MAX_IMAGE_PNG, MAX_IMAGE_SIDE};
use crate::reader::Reader;
use crate::{varint, writer, DecodeError};

/// An image's content hash: 16 bytes, the same for equal pictures.
pub type ImageHash = [u8; 16];

/// A picture a connection's lines may show, sent before the first message
/// that places it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Its content hash, which pieces name it by.
    pub hash: ImageHash,
    /// Width in pixels, 1 to [`MAX_IMAGE_SIDE`].
    pub width: u32,
    /// Height in pixels, 1 to [`MAX_IMAGE_SIDE`].
    pub height: u32,
    /// The picture as a PNG file, at most [`MAX_IMAGE_PNG`] bytes.
    pub png: Vec<u8>,
}

/// The `Image` message type byte.
pub(crate) const IMAGE: u8 = 0x0e;

impl Image {
    /// Appends this message (type byte included).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        Image::encode_parts(&self.hash, self.width, self.height, &self.png, out);
    }

    /// Appends an `Image` message from its parts, without copying the PNG
    /// into an [`Image`] first.
    pub fn encode_parts(hash: &ImageHash, width: u32, height: u32, png: &[u8], out: &mut Vec<u8>) {
        out.reserve(png.len() + 32);
        out.push(IMAGE);
        out.extend_from_slice(hash);
        writer::uint(out, width);
        writer::uint(out, height);
        writer::bytes(out, png);
    }

    pub(crate) fn decode_body(r: &mut Reader<'_>) -> Result<Image, DecodeError> {
        let hash = r.fixed::<16>()?;
        let side = |r: &mut Reader<'_>, field| {
            let n = r.u32()?;
            match n {
                1..=MAX_IMAGE_SIDE => Ok(n),
                _ => Err(DecodeError::OutOfRange { field }),
            }
        };
        let width = side(r, "image width")?;
        let height = side(r, "image height")?;
        let png = r.bytes(MAX_IMAGE_PNG, "image png")?.to_vec();
        Ok(Image {
            hash,
            width,
            height,
            png,
        })
    }
}

/// What one line shows of one image: the columns it covers (the whole
/// height of the row) and the part of the image drawn into them.
///
/// The source rectangle is in sixteenths of the image's pixels and may
/// reach past the image's edges (a picture that ends inside a cell): the
/// client clips it to the image and the destination in proportion, as
/// canvas `drawImage` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImagePiece {
    /// The image's hash (an `Image` message carries its pixels).
    pub hash: ImageHash,
    /// Stacking order: below 0 under the text, 0 and up over it; higher
    /// over lower, and in list order when equal.
    pub z: i32,
    /// First column covered.
    pub col: u16,
    /// Columns covered (at least 1); `col + cols` is at most the screen's
    /// width.
    pub cols: u16,
    /// Source rectangle `[x, y, w, h]` in 1/16 image pixels; `w` and `h`
    /// are at least 1.
    pub src: [u32; 4],
}

impl ImagePiece {
    pub(crate) fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.hash);
        writer::uint(out, varint::zigzag(self.z));
        writer::uint(out, self.col);
        writer::uint(out, self.cols);
        for v in self.src {
            writer::uint(out, v);
        }
    }

    /// Decodes a piece of a line `cols` wide.
    pub(crate) fn decode(r: &mut Reader<'_>, cols: u16) -> Result<ImagePiece, DecodeError> {
        let hash = r.fixed::<16>()?;
        let z = varint::unzigzag(r.u32()?);
        let col = r.u16_in(0, cols - 1, "image column")?;
        let width = r.u16_in(1, MAX_COLS, "image columns")?;
        if u32::from(col) + u32::from(width) > u32::from(cols) {
            return Err(DecodeError::OutOfRange {
                field: "image columns",
            });
        }
        let mut src = [0; 4];
        for v in &mut src {
            *v = r.u32()?;
        }
        if src[2] == 0 || src[3] == 0 {
            return Err(DecodeError::OutOfRange {
                field: "image source",
            });
        }
        Ok(ImagePiece {
            hash,
            z,
            col,
            cols: width,
            src,
        })
    }
}

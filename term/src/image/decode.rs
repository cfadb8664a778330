//! Payload decoding, each bounded before it allocates: base64, zlib
//! (inflated no further than a cap), PNG (the `png` crate with its limits),
//! and baseline uncompressed TIFF (what `chafa -f iterm` sends). JPEG, GIF
//! and other formats are refused: no decoder for them is linked.

use std::io::Read;

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;

use super::Image;

/// Standard base64, padding optional, trailing bits allowed (chafa pads
/// each kitty chunk with them set).
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Decodes standard base64 (padding optional), `None` when it is not.
pub(crate) fn decode_base64(text: &[u8]) -> Option<Vec<u8>> {
    BASE64.decode(text).ok()
}

/// Inflates zlib `data`, `None` when it is not zlib or inflates past `cap`
/// bytes (a zlib bomb stops at the cap).
pub(crate) fn inflate(data: &[u8], cap: usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut reader = flate2::read::ZlibDecoder::new(data).take(cap as u64 + 1);
    reader.read_to_end(&mut out).ok()?;
    (out.len() <= cap).then_some(out)
}

/// A picture file (PNG or uncompressed TIFF) decoded, refused when its
/// declared size is over `max_pixels` (before anything is allocated for it)
/// or when it is not one of those formats.
pub(crate) fn decode_picture(data: &[u8], max_pixels: u64) -> Result<Image, &'static str> {
    if data.starts_with(b"\x89PNG") {
        decode_png(data, max_pixels)
    } else if data.starts_with(b"II*\0") || data.starts_with(b"MM\0*") {
        decode_tiff(data, max_pixels)
    } else if data.starts_with(b"\xff\xd8") {
        Err("JPEG is not supported")
    } else if data.starts_with(b"GIF8") {
        Err("GIF is not supported")
    } else {
        Err("unknown picture format")
    }
}

/// PNG to RGBA, bounded by `max_pixels`.
fn decode_png(data: &[u8], max_pixels: u64) -> Result<Image, &'static str> {
    let limits = png::Limits {
        bytes: (max_pixels as usize).saturating_mul(8),
    };
    let mut decoder = png::Decoder::new_with_limits(data, limits);
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|_| "bad PNG")?;
    let (width, height) = (reader.info().width, reader.info().height);
    if u64::from(width) * u64::from(height) > max_pixels {
        return Err("PNG too large");
    }
    let mut buf = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buf).map_err(|_| "bad PNG")?;
    let pixels = (width * height) as usize;
    let rgba = match frame.color_type {
        png::ColorType::Rgba => buf[..pixels * 4].to_vec(),
        png::ColorType::Rgb => expand(&buf, pixels, |p| [p[0], p[1], p[2], 255], 3),
        png::ColorType::GrayscaleAlpha => expand(&buf, pixels, |p| [p[0], p[0], p[0], p[1]], 2),
        png::ColorType::Grayscale => expand(&buf, pixels, |p| [p[0], p[0], p[0], 255], 1),
        png::ColorType::Indexed => return Err("bad PNG"),
    };
    Image::new(width, height, rgba).ok_or("bad PNG")
}

/// Converts `pixels` pixels of `step` bytes each to RGBA.
fn expand(buf: &[u8], pixels: usize, f: impl Fn(&[u8]) -> [u8; 4], step: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(pixels * 4);
    for p in buf.chunks_exact(step).take(pixels) {
        out.extend_from_slice(&f(p));
    }
    out
}

/// A TIFF reader over the file's bytes, in its byte order.
struct Tiff<'a> {
    data: &'a [u8],
    little: bool,
}

impl Tiff<'_> {
    fn u16(&self, at: usize) -> Option<u32> {
        let b = self.data.get(at..at + 2)?;
        Some(u32::from(if self.little {
            u16::from_le_bytes([b[0], b[1]])
        } else {
            u16::from_be_bytes([b[0], b[1]])
        }))
    }

    fn u32(&self, at: usize) -> Option<u32> {
        let b: [u8; 4] = self.data.get(at..at + 4)?.try_into().ok()?;
        Some(if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    /// The values of the IFD entry at `entry` (SHORT or LONG), at most 64K.
    fn values(&self, entry: usize) -> Option<Vec<u32>> {
        let kind = self.u16(entry + 2)?;
        let count = self.u32(entry + 4)? as usize;
        let size = match kind {
            3 => 2,
            4 => 4,
            _ => return None,
        };
        if count > 65_536 {
            return None;
        }
        let base = if count * size <= 4 {
            entry + 8
        } else {
            self.u32(entry + 8)? as usize
        };
        (0..count)
            .map(|i| {
                if size == 2 {
                    self.u16(base + i * 2)
                } else {
                    self.u32(base + i * 4)
                }
            })
            .collect()
    }
}

/// Baseline TIFF, uncompressed, chunky 8-bit RGB or RGBA, to RGBA.
fn decode_tiff(data: &[u8], max_pixels: u64) -> Result<Image, &'static str> {
    const BAD: &str = "unsupported TIFF";
    let tiff = Tiff {
        data,
        little: data[0] == b'I',
    };
    let ifd = tiff.u32(4).ok_or(BAD)? as usize;
    let entries = tiff.u16(ifd).ok_or(BAD)? as usize;
    let (mut width, mut height, mut samples) = (0, 0, 1);
    let (mut offsets, mut counts) = (Vec::new(), Vec::new());
    let (mut compression, mut photometric, mut planar, mut bits) = (1, 2, 1, 8);
    let mut premultiplied = false;
    for e in 0..entries.min(256) {
        let entry = ifd + 2 + e * 12;
        let tag = tiff.u16(entry).ok_or(BAD)?;
        let values = tiff.values(entry).unwrap_or_default();
        let first = values.first().copied().unwrap_or(0);
        match tag {
            256 => width = first,
            257 => height = first,
            258 => bits = values.iter().copied().max().unwrap_or(8),
            259 => compression = first,
            262 => photometric = first,
            273 => offsets = values,
            277 => samples = first,
            279 => counts = values,
            284 => planar = first,
            338 => premultiplied = first == 1,
            _ => {}
        }
    }
    if compression != 1 || photometric != 2 || planar != 1 || bits != 8 {
        return Err(BAD);
    }
    if !(3..=4).contains(&samples) || width == 0 || height == 0 {
        return Err(BAD);
    }
    if u64::from(width) * u64::from(height) > max_pixels {
        return Err("TIFF too large");
    }
    let pixels = (width * height) as usize;
    let mut raw = Vec::with_capacity(pixels * samples as usize);
    for (&offset, &count) in offsets.iter().zip(&counts) {
        let strip = data
            .get(offset as usize..(offset as usize).saturating_add(count as usize))
            .ok_or(BAD)?;
        raw.extend_from_slice(strip);
        if raw.len() >= pixels * samples as usize {
            break;
        }
    }
    if raw.len() < pixels * samples as usize {
        return Err(BAD);
    }
    let rgba = if samples == 3 {
        expand(&raw, pixels, |p| [p[0], p[1], p[2], 255], 3)
    } else {
        expand(
            &raw,
            pixels,
            |p| {
                if premultiplied && p[3] > 0 && p[3] < 255 {
                    let un = |c: u8| (u32::from(c) * 255 / u32::from(p[3])).min(255) as u8;
                    [un(p[0]), un(p[1]), un(p[2]), p[3]]
                } else {
                    [p[0], p[1], p[2], p[3]]
                }
            },
            4,
        )
    };
    Image::new(width, height, rgba).ok_or(BAD)
}

/// RGBA to a PNG file.
pub(super) fn encode_png(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    // Writing to a Vec cannot fail, and an Image's pixels always match its
    // size: an error here would be a bug, and yields an empty file.
    let written = encoder
        .write_header()
        .and_then(|mut writer| writer.write_image_data(rgba));
    if written.is_err() {
        out.clear();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips() {
        let image = Image::new(2, 1, vec![255, 0, 0, 255, 0, 0, 255, 128]).unwrap();
        let decoded = decode_picture(&image.png(), 100).unwrap();
        assert_eq!(decoded.rgba(), image.rgba());
    }

    #[test]
    fn a_png_declaring_a_huge_size_is_refused_before_decoding() {
        let image = Image::new(1, 1, vec![1, 2, 3, 4]).unwrap();
        let mut png = image.png().to_vec();
        // IHDR's width and height: 60,000 x 60,000, CRC left wrong.
        png[16..20].copy_from_slice(&60_000u32.to_be_bytes());
        png[20..24].copy_from_slice(&60_000u32.to_be_bytes());
        assert!(decode_picture(&png, 1 << 20).is_err());
    }

    #[test]
    fn a_zlib_bomb_stops_at_the_cap() {
        let zeros = vec![0u8; 10 << 20];
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut z, &zeros).unwrap();
        let bomb = z.finish().unwrap();
        assert!(bomb.len() < 64 << 10);
        assert!(inflate(&bomb, 1 << 20).is_none());
        assert_eq!(inflate(&bomb, 10 << 20).map(|v| v.len()), Some(10 << 20));
    }

    #[test]
    fn jpeg_and_gif_are_refused_with_a_reason() {
        assert_eq!(
            decode_picture(b"\xff\xd8\xff\xe0", 100).unwrap_err(),
            "JPEG is not supported"
        );
        assert_eq!(
            decode_picture(b"GIF89a", 100).unwrap_err(),
            "GIF is not supported"
        );
    }

    #[test]
    fn an_uncompressed_tiff_decodes() {
        // 2x1 RGB, little-endian: header, pixels at 8, IFD at 14.
        let mut t = b"II*\0\x0e\0\0\0".to_vec();
        t.extend_from_slice(&[255, 0, 0, 0, 0, 255]);
        let entries: &[(u16, u16, u32)] = &[
            (256, 3, 2),
            (257, 3, 1),
            (258, 3, 8),
            (259, 3, 1),
            (262, 3, 2),
            (273, 4, 8),
            (277, 3, 3),
            (279, 4, 6),
        ];
        t.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        for &(tag, kind, value) in entries {
            t.extend_from_slice(&tag.to_le_bytes());
            t.extend_from_slice(&kind.to_le_bytes());
            t.extend_from_slice(&1u32.to_le_bytes());
            t.extend_from_slice(&value.to_le_bytes());
        }
        t.extend_from_slice(&0u32.to_le_bytes());
        let image = decode_picture(&t, 100).unwrap();
        assert_eq!(image.pixel(0, 0), Some([255, 0, 0, 255]));
        assert_eq!(image.pixel(1, 0), Some([0, 0, 255, 255]));
    }
}

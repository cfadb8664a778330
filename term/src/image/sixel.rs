//! The sixel decoder: the data of `DCS P1 ; P2 ; P3 q ... ST`, a byte at a
//! time. Pixels are allocated as they are painted, never from what the
//! raster attributes declare, and painting stops at the pixel cap: a sixel
//! declaring 20,000 x 20,000 costs what it paints.

use super::Image;

/// Colour registers (what XTSMGRAPHICS reports).
pub const COLOR_REGISTERS: usize = 1024;

/// Most parameters of one command kept.
const MAX_PARAMS: usize = 5;

/// The VT340's default colours for the first 16 registers (RGB percent).
const VT340: [(u8, u8, u8); 16] = [
    (0, 0, 0),
    (20, 20, 80),
    (80, 13, 13),
    (20, 80, 20),
    (80, 20, 80),
    (20, 80, 80),
    (80, 80, 20),
    (53, 53, 53),
    (26, 26, 26),
    (33, 33, 60),
    (60, 26, 26),
    (33, 60, 33),
    (60, 33, 60),
    (33, 60, 60),
    (60, 60, 33),
    (80, 80, 80),
];

/// The command whose parameters are being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Command {
    None,
    Raster,
    Color,
    Repeat,
}

/// A sixel image being received.
#[derive(Clone, Debug)]
pub(crate) struct SixelDecoder {
    palette: Box<[u32]>,
    color: u32,
    x: usize,
    /// Top pixel row of the current band.
    y: usize,
    /// Painted pixels (0: never painted), `stride` a row.
    pixels: Vec<u32>,
    stride: usize,
    height: usize,
    /// Extent painted so far.
    painted: (usize, usize),
    /// Size the raster attributes declared, 0 when not given.
    declared: (usize, usize),
    max_pixels: usize,
    command: Command,
    params: [u32; MAX_PARAMS],
    count: usize,
    /// Set once painting reached the cap: the rest is read and dropped.
    full: bool,
}

/// RGB percentages (0 to 100) to an opaque pixel.
fn rgb(r: u32, g: u32, b: u32) -> u32 {
    let c = |v: u32| (v.min(100) * 255 + 50) / 100;
    0xff00_0000 | c(r) | c(g) << 8 | c(b) << 16
}

/// HLS (hue 0-360 with blue at 0, lightness and saturation in percent) to
/// an opaque pixel, as the VT340 defines it.
fn hls(h: u32, l: u32, s: u32) -> u32 {
    let (l, s) = (l.min(100) as f64 / 100.0, s.min(100) as f64 / 100.0);
    // The VT340 puts blue at 0 degrees; the usual formula puts red there.
    let h = ((h % 360) as f64 + 240.0) % 360.0 / 360.0;
    let q = if l < 0.5 {
        l * (1.0 + s)
    } else {
        l + s - l * s
    };
    let p = 2.0 * l - q;
    let channel = |mut t: f64| {
        if t < 0.0 {
            t += 1.0;
        }
        if t > 1.0 {
            t -= 1.0;
        }
        let v = if t < 1.0 / 6.0 {
            p + (q - p) * 6.0 * t
        } else if t < 0.5 {
            q
        } else if t < 2.0 / 3.0 {
            p + (q - p) * (2.0 / 3.0 - t) * 6.0
        } else {
            p
        };
        (v * 100.0).round() as u32
    };
    rgb(channel(h + 1.0 / 3.0), channel(h), channel(h - 1.0 / 3.0))
}

impl SixelDecoder {
    /// A decoder that paints at most `max_pixels` pixels in all.
    pub fn new(max_pixels: u64) -> SixelDecoder {
        let mut palette = vec![rgb(0, 0, 0); COLOR_REGISTERS].into_boxed_slice();
        for (slot, &(r, g, b)) in palette.iter_mut().zip(VT340.iter()) {
            *slot = rgb(u32::from(r), u32::from(g), u32::from(b));
        }
        SixelDecoder {
            palette,
            color: palette_default(),
            x: 0,
            y: 0,
            pixels: Vec::new(),
            stride: 0,
            height: 0,
            painted: (0, 0),
            declared: (0, 0),
            max_pixels: max_pixels.min(usize::MAX as u64) as usize,
            command: Command::None,
            params: [0; MAX_PARAMS],
            count: 0,
            full: false,
        }
    }

    /// Reads one byte of the data.
    pub fn put(&mut self, byte: u8) {
        match byte {
            b'0'..=b'9' if self.command != Command::None => {
                let i = self.count.max(1) - 1;
                if self.count == 0 {
                    self.count = 1;
                }
                if i < MAX_PARAMS {
                    self.params[i] = self.params[i]
                        .saturating_mul(10)
                        .saturating_add(u32::from(byte - b'0'));
                }
                return;
            }
            b';' if self.command != Command::None => {
                self.count = (self.count.max(1) + 1).min(MAX_PARAMS + 1);
                if self.count <= MAX_PARAMS {
                    self.params[self.count - 1] = 0;
                }
                return;
            }
            _ => {}
        }
        let repeat = self.finish_command();
        match byte {
            b'?'..=b'~' => self.paint(byte - b'?', repeat),
            b'"' => self.start(Command::Raster),
            b'#' => self.start(Command::Color),
            b'!' => self.start(Command::Repeat),
            b'$' => self.x = 0,
            b'-' => {
                self.x = 0;
                self.y = self.y.saturating_add(6);
            }
            _ => {}
        }
    }

    fn start(&mut self, command: Command) {
        self.command = command;
        self.params = [0; MAX_PARAMS];
        self.count = 0;
    }

    /// Applies the command whose parameters were read; returns the repeat
    /// count for the next sixel (1 unless it was a repeat).
    fn finish_command(&mut self) -> usize {
        let command = std::mem::replace(&mut self.command, Command::None);
        let p = self.params;
        match command {
            Command::None => 1,
            Command::Repeat => p[0].max(1) as usize,
            Command::Raster => {
                if self.count >= 4 {
                    self.declared = (p[2] as usize, p[3] as usize);
                }
                1
            }
            Command::Color => {
                let register = p[0] as usize % COLOR_REGISTERS;
                if self.count >= 5 {
                    self.palette[register] = match p[1] {
                        1 => hls(p[2], p[3], p[4]),
                        2 => rgb(p[2], p[3], p[4]),
                        _ => self.palette[register],
                    };
                }
                self.color = register as u32;
                1
            }
        }
    }

    /// Paints `bits` (the six pixels of one column, top first) `repeat` times.
    fn paint(&mut self, bits: u8, repeat: usize) {
        let repeat = repeat.min(crate::image::MAX_IMAGE_SIDE as usize);
        if bits == 0 || self.full {
            self.x = self.x.saturating_add(repeat);
            return;
        }
        let (x, end) = (self.x, self.x.saturating_add(repeat));
        self.x = end;
        let bottom = (0..6).rev().find(|b| bits & (1 << b) != 0).unwrap_or(0);
        if !self.grow(end, self.y + bottom + 1) {
            self.full = true;
            return;
        }
        let color = self.palette[self.color as usize];
        for b in 0..=bottom {
            if bits & (1 << b) != 0 {
                let row = (self.y + b) * self.stride;
                self.pixels[row + x..row + end].fill(color);
            }
        }
        self.painted = (
            self.painted.0.max(end),
            self.painted.1.max(self.y + bottom + 1),
        );
    }

    /// Makes room for `width` x `height` pixels, false past the cap.
    fn grow(&mut self, width: usize, height: usize) -> bool {
        if width <= self.stride && height <= self.height {
            return true;
        }
        let side = crate::image::MAX_IMAGE_SIDE as usize;
        if width > side || height > side {
            return false;
        }
        let stride = if width > self.stride {
            width.max(self.stride * 2).min(side)
        } else {
            self.stride
        };
        let rows = if height > self.height {
            height.max(self.height * 2).min(side)
        } else {
            self.height
        };
        let (stride, rows) = if stride * rows > self.max_pixels {
            (width.max(self.stride), height.max(self.height))
        } else {
            (stride, rows)
        };
        if stride * rows > self.max_pixels {
            return false;
        }
        let mut pixels = vec![0u32; stride * rows];
        for r in 0..self.height {
            pixels[r * stride..r * stride + self.stride]
                .copy_from_slice(&self.pixels[r * self.stride..(r + 1) * self.stride]);
        }
        self.pixels = pixels;
        self.stride = stride;
        self.height = rows;
        true
    }

    /// The picture: what was painted, cut to the declared size when one
    /// was given; unpainted pixels are transparent. `None` when nothing was
    /// painted.
    pub fn finish(mut self) -> Option<Image> {
        self.finish_command();
        let (mut w, mut h) = self.painted;
        if self.declared.0 > 0 && self.declared.1 > 0 {
            w = w.min(self.declared.0);
            h = h.min(self.declared.1);
        }
        if w == 0 || h == 0 {
            return None;
        }
        let mut rgba = Vec::with_capacity(w * h * 4);
        for r in 0..h {
            for &px in &self.pixels[r * self.stride..r * self.stride + w] {
                rgba.extend_from_slice(&px.to_le_bytes());
            }
        }
        Image::new(w as u32, h as u32, rgba)
    }
}

/// The register painting starts with.
fn palette_default() -> u32 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(data: &[u8], max_pixels: u64) -> Option<Image> {
        let mut d = SixelDecoder::new(max_pixels);
        data.iter().for_each(|&b| d.put(b));
        d.finish()
    }

    #[test]
    fn rgb_registers_repeat_and_bands() {
        // 4 red columns then 4 blue, two bands of six, cut to 8 x 8.
        let image = decode(
            b"\"1;1;8;8#0;2;100;0;0#1;2;0;0;100#0!4~#1!4~-#0!4B#1!4B",
            1 << 20,
        )
        .unwrap();
        assert_eq!((image.width(), image.height()), (8, 8));
        assert_eq!(image.pixel(0, 0), Some([255, 0, 0, 255]));
        assert_eq!(image.pixel(7, 7), Some([0, 0, 255, 255]));
        // 'B' is 0b000011: rows 6 and 7 only.
        assert_eq!(image.pixel(3, 6), Some([255, 0, 0, 255]));
    }

    #[test]
    fn carriage_return_overpaints_and_unpainted_is_transparent() {
        let image = decode(b"#1;2;0;100;0@$#2;2;0;0;100A", 100).unwrap();
        // '@' paints row 0, 'A' (0b10) row 1 in another colour.
        assert_eq!((image.width(), image.height()), (1, 2));
        assert_eq!(image.pixel(0, 0), Some([0, 255, 0, 255]));
        assert_eq!(image.pixel(0, 1), Some([0, 0, 255, 255]));
        let image = decode(b"?A", 100).unwrap();
        assert_eq!(image.pixel(0, 0), Some([0, 0, 0, 0]));
    }

    #[test]
    fn hls_follows_the_vt340_hue_circle() {
        // Hue 120 is red on the VT340, 240 green, 0 blue.
        assert_eq!(hls(120, 50, 100) & 0xffffff, 0x0000ff);
        assert_eq!(hls(240, 50, 100) & 0xffffff, 0x00ff00);
        assert_eq!(hls(0, 50, 100) & 0xffffff, 0xff0000);
    }

    #[test]
    fn a_huge_declared_size_costs_what_is_painted() {
        let mut d = SixelDecoder::new(1 << 20);
        for &b in b"\"1;1;20000;20000#1~~~" {
            d.put(b);
        }
        assert!(d.pixels.len() <= 64);
        let image = d.finish().unwrap();
        assert_eq!((image.width(), image.height()), (3, 6));
    }

    #[test]
    fn painting_stops_at_the_pixel_cap() {
        let mut d = SixelDecoder::new(10_000);
        for _ in 0..1000 {
            d.put(b'!');
            d.put(b'9');
            d.put(b'9');
            d.put(b'~');
            d.put(b'-');
        }
        assert!(d.pixels.len() <= 10_000);
        let image = d.finish().unwrap();
        assert!(u64::from(image.width()) * u64::from(image.height()) <= 10_000);
    }
}

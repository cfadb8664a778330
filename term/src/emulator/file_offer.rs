//! iTerm2's inline files with `inline=0`: a program offers a file for
//! download (`OSC 1337 ; File=name=B64;size=N;inline=0 : B64-DATA BEL`).
//! The data is decoded as it arrives and kept only up to the cap the host
//! set ([`Emulator::offer_files`]; none: no file is taken); a file over the
//! cap, a `size` that does not match, bad base64 or a name that is not
//! UTF-8 is dropped without a stall. A complete file waits for the host
//! as the latest offer. An `inline=1` file is an image, decoded and placed
//! at the cursor (`graphics.rs`), whatever the file cap.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::Emulator;
use crate::image::iterm::InlineArgs;

/// Longest name kept, in bytes (longer: cut at a character boundary).
const MAX_NAME: usize = 255;

/// Work counted per byte of data, so a host bounds a slice of a large
/// file as it bounds a slice of text.
const BYTES_PER_WORK: usize = 16;

/// A file the program offered, whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOffer {
    /// Its name: the last component of the name the program gave.
    pub name: String,
    /// Its bytes.
    pub data: Vec<u8>,
}

/// A file being received.
#[derive(Debug, Clone)]
pub(super) enum Incoming {
    /// Decoding, within the cap.
    Taking {
        name: String,
        size: Option<u64>,
        decoder: Decoder,
    },
    /// An inline image (`inline=1`), within the image cap.
    Image { args: InlineArgs, decoder: Decoder },
    /// Over the cap or malformed: the rest of its data is skipped.
    Dropping,
}

/// Standard base64 decoded as it arrives, padding optional.
#[derive(Debug, Clone, Default)]
pub(super) struct Decoder {
    quad: [u8; 4],
    len: usize,
    /// Set after a `=`: nothing but `=` may follow.
    padded: bool,
    data: Vec<u8>,
}

impl Decoder {
    /// Decodes `input`; false when it is not base64.
    fn feed(&mut self, input: &[u8]) -> bool {
        for &c in input {
            if c == b'=' {
                self.padded = true;
                continue;
            }
            let Some(value) = sextet(c) else {
                return false;
            };
            if self.padded {
                return false;
            }
            self.quad[self.len] = value;
            self.len += 1;
            if self.len == 4 {
                let [a, b, c, d] = self.quad;
                self.data
                    .extend_from_slice(&[a << 2 | b >> 4, b << 4 | c >> 2, c << 6 | d]);
                self.len = 0;
            }
        }
        true
    }

    /// The bytes, once the input has ended; `None` when it ended inside a
    /// character.
    fn finish(mut self) -> Option<Vec<u8>> {
        let [a, b, c, _] = self.quad;
        match self.len {
            0 => {}
            2 => self.data.push(a << 2 | b >> 4),
            3 => self
                .data
                .extend_from_slice(&[a << 2 | b >> 4, b << 4 | c >> 2]),
            _ => return None,
        }
        Some(self.data)
    }

    fn decoded(&self) -> u64 {
        self.data.len() as u64
    }
}

fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// The name, size and `inline` flag of `name=B64;size=N;inline=0`.
fn parse_args(args: &[u8]) -> Option<(String, Option<u64>, bool)> {
    let mut name = None;
    let mut size = None;
    let mut inline = false;
    for arg in args.split(|&b| b == b';') {
        let Some(eq) = arg.iter().position(|&b| b == b'=') else {
            continue;
        };
        let (key, value) = (&arg[..eq], &arg[eq + 1..]);
        match key {
            b"name" => name = Some(String::from_utf8(STANDARD.decode(value).ok()?).ok()?),
            b"size" => size = Some(std::str::from_utf8(value).ok()?.parse().ok()?),
            b"inline" => inline = value == b"1",
            _ => {}
        }
    }
    let name = name
        .as_deref()
        .and_then(|n| n.rsplit('/').next())
        .filter(|n| !n.is_empty() && *n != "." && *n != ".." && !n.contains('\0'))
        .map_or_else(|| "download".to_owned(), |n| cut(n, MAX_NAME));
    Some((name, size, inline))
}

/// `text` cut to at most `max` bytes, at a character boundary.
fn cut(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

impl Emulator {
    /// Takes files programs offer (OSC 1337 File, `inline=0`) up to `cap`
    /// bytes each; 0 takes none (the default).
    pub fn offer_files(&mut self, cap: u64) {
        self.file_cap = cap;
    }

    /// Takes the file a program last offered whole, if any.
    pub fn take_file_offer(&mut self) -> Option<FileOffer> {
        self.file_offer.take()
    }

    /// `OSC 1337 ; File=ARGS :` read: takes the data when files are
    /// offered and this is a download (`inline=0`).
    pub(super) fn file_start(&mut self, args: &[u8]) -> bool {
        if let Some(args) = InlineArgs::parse(args) {
            self.spend(1);
            self.incoming = Some(Incoming::Image {
                args,
                decoder: Decoder::default(),
            });
            return true;
        }
        if self.file_cap == 0 {
            return false;
        }
        self.spend(1);
        self.incoming = Some(match parse_args(args) {
            Some((name, size, false)) if size.is_none_or(|s| s <= self.file_cap) => {
                Incoming::Taking {
                    name,
                    size,
                    decoder: Decoder::default(),
                }
            }
            _ => Incoming::Dropping,
        });
        true
    }

    /// A run of the data.
    pub(super) fn file_data(&mut self, data: &[u8]) {
        self.spend(data.len() / BYTES_PER_WORK + 1);
        let cap = self.file_cap;
        let image_cap = self.image_file_cap();
        if let Some(Incoming::Image { decoder, .. }) = &mut self.incoming {
            // Not base64, or over the image cap: dropped (no error reply
            // exists in iTerm2's protocol).
            if !decoder.feed(data) || decoder.decoded() > image_cap {
                self.incoming = Some(Incoming::Dropping);
            }
        }
        if let Some(Incoming::Taking { size, decoder, .. }) = &mut self.incoming {
            let limit = size.map_or(cap, |s| s.min(cap));
            // Three bytes per four characters: past this, it is too large.
            if !decoder.feed(data) || decoder.decoded() > limit {
                self.incoming = Some(Incoming::Dropping);
            }
        }
    }

    /// The end of the data: a whole, matching file becomes the offer.
    pub(super) fn file_end(&mut self, complete: bool) {
        if let Some(Incoming::Image { .. }) = &self.incoming {
            if let Some(Incoming::Image { args, decoder }) = self.incoming.take() {
                // One cut short is dropped.
                if let (Some(data), true) = (decoder.finish(), complete) {
                    self.show_inline_image(args, &data);
                }
            }
            return;
        }
        let Some(Incoming::Taking {
            name,
            size,
            decoder,
        }) = self.incoming.take()
        else {
            return;
        };
        if !complete {
            return;
        }
        if let Some(data) = decoder.finish() {
            let fits = data.len() as u64 <= self.file_cap;
            if fits && size.is_none_or(|s| s == data.len() as u64) {
                self.file_offer = Some(FileOffer { name, data });
            }
        }
    }
}

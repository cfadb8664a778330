//! The `Frame` message: the screen's size, cursor, modes, title, scroll hint
//! and changed lines since this viewer's previous frame.

use std::sync::OnceLock;

use crate::deflate::{self, DEFLATED_FRAME};
use crate::limits::{MAX_COLS, MAX_DEFLATED_BODY, MAX_ROWS, MAX_TITLE};
use crate::reader::Reader;
use crate::{writer, DecodeError, Line};

/// The cursor's shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CursorShape {
    /// A filled block (0).
    #[default]
    Block,
    /// A line under the cell (1).
    Underline,
    /// A vertical bar left of the cell (2).
    Bar,
}

/// Where the cursor is and how it looks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    /// Row, 0 at the top; less than the frame's `rows`.
    pub row: u16,
    /// Column, 0 at the left; less than the frame's `cols`.
    pub col: u16,
    /// False when the program hid the cursor.
    pub visible: bool,
    /// True when the cursor should blink.
    pub blink: bool,
    /// Its shape.
    pub shape: CursorShape,
}

/// The bits of the cursor byte that hold its shape.
pub(crate) const CURSOR_SHAPE: u8 = 0x03;
pub(crate) const CURSOR_VISIBLE: u8 = 1 << 2;
pub(crate) const CURSOR_BLINK: u8 = 1 << 3;

impl Cursor {
    fn encode_into(&self, out: &mut Vec<u8>) {
        let mut byte = self.shape as u8;
        if self.visible {
            byte |= CURSOR_VISIBLE;
        }
        if self.blink {
            byte |= CURSOR_BLINK;
        }
        out.push(byte);
        writer::uint(out, self.row);
        writer::uint(out, self.col);
    }

    fn decode(r: &mut Reader<'_>, cols: u16, rows: u16) -> Result<Cursor, DecodeError> {
        let byte = r.flags(CURSOR_SHAPE | CURSOR_VISIBLE | CURSOR_BLINK, "cursor flags")?;
        let shape = match byte & CURSOR_SHAPE {
            0 => CursorShape::Block,
            1 => CursorShape::Underline,
            2 => CursorShape::Bar,
            _ => {
                return Err(DecodeError::OutOfRange {
                    field: "cursor shape",
                })
            }
        };
        let row = r.u16_in(0, rows - 1, "cursor row")?;
        let col = r.u16_in(0, cols - 1, "cursor column")?;
        Ok(Cursor {
            row,
            col,
            visible: byte & CURSOR_VISIBLE != 0,
            blink: byte & CURSOR_BLINK != 0,
            shape,
        })
    }
}

/// Which mouse events the program asked for (xterm's tracking modes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MouseTracking {
    /// No mouse reporting (0): the client may use the mouse for selection.
    #[default]
    Off,
    /// Presses only (1, mode 9).
    Press,
    /// Presses and releases (2, mode 1000).
    Click,
    /// Also motion while a button is held (3, mode 1002).
    Drag,
    /// Also all motion (4, mode 1003).
    Motion,
}

impl MouseTracking {
    const ALL: [MouseTracking; 5] = [
        MouseTracking::Off,
        MouseTracking::Press,
        MouseTracking::Click,
        MouseTracking::Drag,
        MouseTracking::Motion,
    ];
}

/// Terminal modes the client needs to know about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Modes {
    /// Application cursor keys (DECCKM), bit 0.
    pub app_cursor: bool,
    /// Bracketed paste (2004), bit 1.
    pub bracketed_paste: bool,
    /// Application keypad (DECKPAM), bit 2.
    pub app_keypad: bool,
    /// The alternate screen is shown (47/1047/1049), bit 3.
    pub alt_screen: bool,
    /// The program wants focus in/out events (1004), bit 4.
    pub focus_events: bool,
    /// Mouse reports use the SGR encoding (1006), bit 5.
    pub mouse_sgr: bool,
    /// Reverse video for the whole screen (DECSCNM), bit 6.
    pub reverse_video: bool,
    /// Mouse tracking, bits 7-9.
    pub mouse: MouseTracking,
    /// The program asked for key release and repeat events (the kitty
    /// keyboard protocol's flag 2): the client sends releases, bit 10.
    pub key_releases: bool,
    /// The program asked for every key as an escape code (kitty flag 8):
    /// the client sends keys that type text as `Key`, not `Text`, bit 11.
    pub key_all: bool,
}

// The mode bits on the wire: one bit per flag of `Modes`, and the mouse
// tracking value in the three bits from `MOUSE_SHIFT`.
pub(crate) const APP_CURSOR: u32 = 1;
pub(crate) const BRACKETED_PASTE: u32 = 1 << 1;
pub(crate) const APP_KEYPAD: u32 = 1 << 2;
pub(crate) const ALT_SCREEN: u32 = 1 << 3;
pub(crate) const FOCUS_EVENTS: u32 = 1 << 4;
pub(crate) const MOUSE_SGR: u32 = 1 << 5;
pub(crate) const REVERSE_VIDEO: u32 = 1 << 6;
pub(crate) const MOUSE_SHIFT: u32 = 7;
pub(crate) const KEY_RELEASES: u32 = 1 << 10;
pub(crate) const KEY_ALL: u32 = 1 << 11;
/// Every mode bit defined; the others are reserved.
pub(crate) const MODE_BITS: u32 = (1 << 12) - 1;

impl Modes {
    /// The flags with their bits (the mouse tracking value aside).
    fn flags(self) -> [(bool, u32); 9] {
        [
            (self.app_cursor, APP_CURSOR),
            (self.bracketed_paste, BRACKETED_PASTE),
            (self.app_keypad, APP_KEYPAD),
            (self.alt_screen, ALT_SCREEN),
            (self.focus_events, FOCUS_EVENTS),
            (self.mouse_sgr, MOUSE_SGR),
            (self.reverse_video, REVERSE_VIDEO),
            (self.key_releases, KEY_RELEASES),
            (self.key_all, KEY_ALL),
        ]
    }

    /// The modes as the bitfield sent on the wire.
    pub fn to_bits(self) -> u32 {
        self.flags()
            .iter()
            .filter(|(on, _)| *on)
            .fold((self.mouse as u32) << MOUSE_SHIFT, |acc, (_, bit)| {
                acc | bit
            })
    }

    /// The modes from the wire bitfield; `None` if reserved bits (12 and up)
    /// are set or the mouse tracking value is unknown.
    pub fn from_bits(bits: u32) -> Option<Modes> {
        if bits & !MODE_BITS != 0 {
            return None;
        }
        let bit = |b: u32| bits & b != 0;
        let mouse = MouseTracking::ALL.get((bits >> MOUSE_SHIFT & 7) as usize)?;
        Some(Modes {
            app_cursor: bit(APP_CURSOR),
            bracketed_paste: bit(BRACKETED_PASTE),
            app_keypad: bit(APP_KEYPAD),
            alt_screen: bit(ALT_SCREEN),
            focus_events: bit(FOCUS_EVENTS),
            mouse_sgr: bit(MOUSE_SGR),
            reverse_video: bit(REVERSE_VIDEO),
            mouse: *mouse,
            key_releases: bit(KEY_RELEASES),
            key_all: bit(KEY_ALL),
        })
    }
}

/// A changed line and the row it goes to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameLine {
    /// Row index, 0 at the top.
    pub row: u16,
    /// The line's new content.
    pub line: Line,
}

/// The screen's state and the lines that changed since the previous frame.
///
/// The client applies a frame in this order: if `full`, reset the screen to
/// `cols` x `rows` blank cells; otherwise shift it up by `scroll` rows
/// (clearing it when `scroll >= rows`); then replace each line in `lines`;
/// then take the cursor, modes and (if present) title.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// Sequence number, counting this connection's frames from 0.
    pub seq: u64,
    /// Screen width, 1 to [`MAX_COLS`].
    pub cols: u16,
    /// Screen height, 1 to [`MAX_ROWS`].
    pub rows: u16,
    /// The client clears the whole screen before applying the lines: rows not
    /// sent are blank. Set on a connection's first frame, on every size change
    /// and whenever the server resynchronises.
    pub full: bool,
    /// The cursor.
    pub cursor: Cursor,
    /// Terminal modes.
    pub modes: Modes,
    /// The new window title, only when it changed (`Some("")` clears it).
    pub title: Option<String>,
    /// Rows the screen scrolled up since this viewer's previous frame; the
    /// client shifts its rows up by this much before applying `lines`. Must be
    /// 0 when `full` is set.
    pub scroll: u32,
    /// Lines the session's scrollback holds once this frame is applied
    /// (the main screen's, also while the alternate screen is shown): the
    /// client forgets the scrollback lines it cached beyond that many above
    /// the screen.
    pub scrollback: u32,
    /// Lines that went into the scrollback since this viewer's previous
    /// frame: the scrollback indices the client holds move up by this much.
    /// Must be 0 when `full` is set.
    pub pushed: u32,
    /// How many of the `pushed` lines, the first ones, are the client's own
    /// top rows as they were before this frame, unchanged: the client may
    /// keep them as scrollback. At most `pushed` and `rows`.
    pub kept: u32,
    /// The changed lines, in increasing row order.
    pub lines: Vec<FrameLine>,
}

/// A frame encoded without its sequence number (see [`Frame::encode_shared`]),
/// and its body compressed once the first connection that takes compressed
/// frames asks for it.
#[derive(Clone, Debug)]
pub struct EncodedFrame {
    body: Vec<u8>,
    /// The compressed body; `None` inside when the frame goes plain.
    deflated: OnceLock<Option<Vec<u8>>>,
}

impl PartialEq for EncodedFrame {
    fn eq(&self, other: &Self) -> bool {
        self.body == other.body
    }
}

impl Eq for EncodedFrame {}

impl EncodedFrame {
    /// Appends the complete message with sequence number `seq`.
    pub fn write(&self, seq: u64, out: &mut Vec<u8>) {
        out.push(FRAME);
        writer::uint(out, seq);
        out.extend_from_slice(&self.body);
    }

    /// Appends the message with sequence number `seq` for a connection that
    /// takes compressed frames: a compressed `Frame` (0x0F) when that is
    /// smaller, else the plain one. The body is compressed on the first
    /// call and kept for the connections after it.
    pub fn write_deflated(&self, seq: u64, out: &mut Vec<u8>) {
        match self.deflated.get_or_init(|| deflate::compress(&self.body)) {
            Some(packed) => {
                out.push(DEFLATED_FRAME);
                writer::uint(out, seq);
                writer::uint(out, self.body.len() as u64);
                out.extend_from_slice(packed);
            }
            None => self.write(seq, out),
        }
    }

    /// Size of the message without its sequence number, in bytes.
    pub fn body_len(&self) -> usize {
        self.body.len()
    }
}

/// The `Frame` message type byte.
pub(crate) const FRAME: u8 = 0x03;
pub(crate) const FULL: u8 = 1;
pub(crate) const HAS_TITLE: u8 = 1 << 1;

impl Frame {
    /// Appends this frame as a complete message (type byte included).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.push(FRAME);
        writer::uint(out, self.seq);
        writer::uint(out, self.cols);
        writer::uint(out, self.rows);
        let mut flags = 0;
        if self.full {
            flags |= FULL;
        }
        if self.title.is_some() {
            flags |= HAS_TITLE;
        }
        out.push(flags);
        self.cursor.encode_into(out);
        writer::uint(out, self.modes.to_bits());
        if let Some(title) = &self.title {
            writer::str(out, title);
        }
        writer::uint(out, self.scroll);
        writer::uint(out, self.scrollback);
        writer::uint(out, self.pushed);
        writer::uint(out, self.kept);
        writer::len(out, self.lines.len());
        for line in &self.lines {
            writer::uint(out, line.row);
            line.line.encode_into(out);
        }
    }

    /// Encodes everything but the sequence number, so a server can send the
    /// same frame to many connections, each with its own `seq`.
    pub fn encode_shared(&self) -> EncodedFrame {
        let mut bytes = Vec::new();
        self.encode_into(&mut bytes);
        // The message is the type byte, `seq` as a varint, then the body.
        let mut seq = Vec::new();
        writer::uint(&mut seq, self.seq);
        EncodedFrame {
            body: bytes.split_off(1 + seq.len()),
            deflated: OnceLock::new(),
        }
    }

    /// Decodes the body of a frame (after the type byte).
    pub(crate) fn decode_body(r: &mut Reader<'_>) -> Result<Frame, DecodeError> {
        let seq = r.u64()?;
        Frame::decode_after_seq(seq, r)
    }

    /// Decodes the body of a compressed frame (after the type byte): its
    /// `seq`, the inflated body's length, and the compressed body, which
    /// takes the rest of the message.
    pub(crate) fn decode_deflated(r: &mut Reader<'_>) -> Result<Frame, DecodeError> {
        let seq = r.u64()?;
        let len = r.u64()?;
        if len > MAX_DEFLATED_BODY as u64 {
            return Err(DecodeError::TooLarge {
                field: "compressed frame body",
                len,
                max: MAX_DEFLATED_BODY as u64,
            });
        }
        let body = deflate::inflate(r.rest(), len as usize)?;
        let mut body = Reader::new(&body);
        let frame = Frame::decode_after_seq(seq, &mut body)?;
        body.finish()?;
        Ok(frame)
    }

    /// Decodes a frame's fields after its `seq`.
    fn decode_after_seq(seq: u64, r: &mut Reader<'_>) -> Result<Frame, DecodeError> {
        let cols = r.u16_in(1, MAX_COLS, "cols")?;
        let rows = r.u16_in(1, MAX_ROWS, "rows")?;
        let flags = r.flags(FULL | HAS_TITLE, "frame flags")?;
        let cursor = Cursor::decode(r, cols, rows)?;
        let modes = Modes::from_bits(r.u32()?).ok_or(DecodeError::OutOfRange { field: "modes" })?;
        let title = match flags & HAS_TITLE {
            0 => None,
            _ => Some(r.str(MAX_TITLE, "title")?.to_owned()),
        };
        let full = flags & FULL != 0;
        let scroll = r.u32()?;
        if full && scroll != 0 {
            return Err(DecodeError::OutOfRange { field: "scroll" });
        }
        let scrollback = r.u32()?;
        let pushed = r.u32()?;
        if full && pushed != 0 {
            return Err(DecodeError::OutOfRange { field: "pushed" });
        }
        let kept = r.u32()?;
        if kept > pushed || kept > u32::from(rows) {
            return Err(DecodeError::OutOfRange { field: "kept" });
        }
        let n = r.count(usize::from(rows), "lines")?;
        let mut lines = Vec::with_capacity(n);
        let mut next_row = 0;
        for _ in 0..n {
            let row = r.u16_in(next_row, rows - 1, "line row")?;
            next_row = row + 1;
            let line = Line::decode(r, cols)?;
            lines.push(FrameLine { row, line });
        }
        Ok(Frame {
            seq,
            cols,
            rows,
            full,
            cursor,
            modes,
            title,
            scroll,
            scrollback,
            pushed,
            kept,
            lines,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_bits_round_trip() {
        let modes = Modes {
            app_cursor: true,
            alt_screen: true,
            mouse_sgr: true,
            mouse: MouseTracking::Drag,
            ..Modes::default()
        };
        assert_eq!(modes.to_bits(), 0b011_0101001);
        assert_eq!(Modes::from_bits(modes.to_bits()), Some(modes));
        assert_eq!(Modes::from_bits(5 << MOUSE_SHIFT), None);
        assert_eq!(Modes::from_bits(1 << 12), None);
        let keys = Modes {
            key_releases: true,
            key_all: true,
            ..Modes::default()
        };
        assert_eq!(keys.to_bits(), 0b11 << 10);
        assert_eq!(Modes::from_bits(keys.to_bits()), Some(keys));
    }

    #[test]
    fn a_shared_frame_carries_each_connections_seq() {
        let frame = Frame {
            seq: 7,
            cols: 80,
            rows: 24,
            full: true,
            title: Some("t".into()),
            ..Frame::default()
        };
        let shared = frame.encode_shared();
        for seq in [0, 1, 127, 128, 1 << 40] {
            let mut out = Vec::new();
            shared.write(seq, &mut out);
            let mut expected = Vec::new();
            Frame {
                seq,
                ..frame.clone()
            }
            .encode_into(&mut expected);
            assert_eq!(out, expected);
        }
    }
}

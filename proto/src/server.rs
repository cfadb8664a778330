//! Server-to-client messages.

use crate::deflate::DEFLATED_FRAME;
use crate::frame::FRAME;
use crate::image::IMAGE;
use crate::limits::{
    MAX_CLIPBOARD, MAX_COLS, MAX_ERROR_MESSAGE, MAX_FILE_NAME, MAX_FILE_OFFER, MAX_ROWS,
    MAX_SCROLLBACK_LINES, MAX_SESSION_ID, MAX_STYLE_DEFS,
};
use crate::reader::Reader;
use crate::replay::REPLAY_STATE;
use crate::room::ROOM;
use crate::sync::SYNC;
use crate::{
    varint, writer, DecodeError, Frame, Image, Line, ReplayState, Room, Style, StyleDef, Sync,
};

/// The protocol version this crate speaks, sent in every `Hello`.
pub const PROTOCOL_VERSION: u16 = 1;

/// What a connection may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Watch only (0): may send `ScrollbackRequest` and `Ping`, nothing else.
    View,
    /// Watch and type (1): may send every client message.
    Control,
}

/// The first message on every connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// Protocol version; [`PROTOCOL_VERSION`] (decoding rejects any other).
    pub version: u16,
    /// The session's id.
    pub session_id: String,
    /// This connection's role.
    pub role: Role,
    /// Screen width.
    pub cols: u16,
    /// Screen height.
    pub rows: u16,
}

/// Style definitions, sent before the first frame that uses them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Styles {
    /// Drop every definition received so far (except id 0) before adding
    /// these: the server renumbered its style table.
    pub reset: bool,
    /// The server's style-table generation; it changes only with `reset`.
    /// Informational: clients need not track it.
    pub epoch: u32,
    /// The definitions; a later definition of an id replaces an earlier one.
    pub defs: Vec<StyleDef>,
}

/// Scrollback lines answering a `ScrollbackRequest`.
///
/// Index 1 is the scrollback line just above the screen's top row, 2 the one
/// above it, up to `total` (the oldest). Indices are relative to the screen of
/// the last `Frame` the server sent before this message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scrollback {
    /// Scrollback lines the session holds now.
    pub total: u64,
    /// Index of `lines[0]`: the request's start (at least 1).
    pub start: u64,
    /// Width the lines were laid out at (the screen's width).
    pub cols: u16,
    /// `lines[i]` has index `start + i`: the first is the nearest to the
    /// screen. Fewer than requested when the scrollback ends.
    pub lines: Vec<Line>,
}

/// A message from the server to the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerMessage {
    /// 0x01: the first message: version, session, role and size.
    Hello(Hello),
    /// 0x02: style definitions.
    Styles(Styles),
    /// 0x03: screen changes.
    Frame(Frame),
    /// 0x04: the program rang the bell.
    Bell,
    /// 0x05: the program exited.
    Exit {
        /// Its exit status, or `None` when a signal killed it.
        code: Option<i32>,
    },
    /// 0x06: an error (usually followed by a close with the same code).
    Error {
        /// A code from [`close`](crate::close).
        code: u16,
        /// A human-readable explanation.
        message: String,
    },
    /// 0x07: scrollback lines answering a request.
    Scrollback(Scrollback),
    /// 0x08: the answer to a `Ping`.
    Pong {
        /// The ping's token.
        token: u64,
    },
    /// 0x09: a program set the clipboard (OSC 52); sent only to control
    /// connections, and only when the server allows it.
    Clipboard {
        /// The text to put on the clipboard, at most
        /// [`MAX_CLIPBOARD`](crate::limits::MAX_CLIPBOARD) bytes.
        text: String,
    },
    /// 0x0A: who else is connected: sent after the first frame and
    /// whenever the counts change.
    Presence {
        /// Connections that watch (view role).
        view: u32,
        /// Connections that may type (control role).
        control: u32,
    },
    /// 0x0B: where a replay stands (replays only).
    ReplayState(ReplayState),
    /// 0x0C: who is connected, by name, and who drives the size: sent
    /// after the first frame and whenever it changes.
    Room(Room),
    /// 0x0D: a program offered a file for download (iTerm2's
    /// `OSC 1337 ; File=...;inline=0`); sent only to control connections
    /// of sessions whose profile moves files.
    FileOffer {
        /// The file's name, at most
        /// [`MAX_FILE_NAME`](crate::limits::MAX_FILE_NAME) bytes.
        name: String,
        /// Its bytes, at most
        /// [`MAX_FILE_OFFER`](crate::limits::MAX_FILE_OFFER).
        data: Vec<u8>,
    },
    /// 0x0E: a picture that lines show (see [`ImagePiece`](crate::ImagePiece)),
    /// sent before the first message that places it, once per connection.
    Image(Image),
    /// 0x10: where the connection stands: the screen revision to resume
    /// from, the last input whose echo the screen shows, the terminal's
    /// echo (see [`Sync`]).
    Sync(Sync),
}

pub(crate) const HELLO: u8 = 0x01;
pub(crate) const STYLES: u8 = 0x02;
pub(crate) const BELL: u8 = 0x04;
pub(crate) const EXIT: u8 = 0x05;
pub(crate) const ERROR: u8 = 0x06;
pub(crate) const SCROLLBACK: u8 = 0x07;
pub(crate) const PONG: u8 = 0x08;
pub(crate) const CLIPBOARD: u8 = 0x09;
pub(crate) const PRESENCE: u8 = 0x0a;
pub(crate) const FILE_OFFER: u8 = 0x0d;

impl Hello {
    /// Appends this message (type byte included).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.push(HELLO);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.push(match self.role {
            Role::View => 0,
            Role::Control => 1,
        });
        writer::uint(out, self.cols);
        writer::uint(out, self.rows);
        writer::str(out, &self.session_id);
    }

    fn decode_body(r: &mut Reader<'_>) -> Result<Hello, DecodeError> {
        let version = r.u16_le()?;
        if version != PROTOCOL_VERSION {
            return Err(DecodeError::UnsupportedVersion(version));
        }
        let role = match r.u8()? {
            0 => Role::View,
            1 => Role::Control,
            _ => return Err(DecodeError::OutOfRange { field: "role" }),
        };
        let cols = r.u16_in(1, MAX_COLS, "cols")?;
        let rows = r.u16_in(1, MAX_ROWS, "rows")?;
        let session_id = r.str(MAX_SESSION_ID, "session id")?.to_owned();
        Ok(Hello {
            version,
            session_id,
            role,
            cols,
            rows,
        })
    }
}

pub(crate) const RESET: u8 = 1;

impl Styles {
    /// Appends this message (type byte included).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.push(STYLES);
        out.push(if self.reset { RESET } else { 0 });
        writer::uint(out, self.epoch);
        writer::len(out, self.defs.len());
        for def in &self.defs {
            writer::uint(out, def.id);
            def.style.encode_into(out);
        }
    }

    fn decode_body(r: &mut Reader<'_>) -> Result<Styles, DecodeError> {
        let reset = r.flags(RESET, "styles flags")? & RESET != 0;
        let epoch = r.u32()?;
        let n = r.count(MAX_STYLE_DEFS, "style definitions")?;
        let mut defs = Vec::with_capacity(n);
        for _ in 0..n {
            let id = r.u32()?;
            if id == 0 {
                return Err(DecodeError::OutOfRange { field: "style id" });
            }
            let style = Style::decode(r)?;
            defs.push(StyleDef { id, style });
        }
        Ok(Styles { reset, epoch, defs })
    }
}

impl Scrollback {
    /// Appends this message (type byte included).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.push(SCROLLBACK);
        writer::uint(out, self.total);
        writer::uint(out, self.start);
        writer::uint(out, self.cols);
        writer::len(out, self.lines.len());
        for line in &self.lines {
            line.encode_into(out);
        }
    }

    fn decode_body(r: &mut Reader<'_>) -> Result<Scrollback, DecodeError> {
        let total = r.u64()?;
        let start = r.u64()?;
        if start == 0 {
            return Err(DecodeError::OutOfRange { field: "start" });
        }
        let cols = r.u16_in(1, MAX_COLS, "cols")?;
        let n = r.count(MAX_SCROLLBACK_LINES.into(), "scrollback lines")?;
        let mut lines = Vec::with_capacity(n);
        for _ in 0..n {
            lines.push(Line::decode(r, cols)?);
        }
        Ok(Scrollback {
            total,
            start,
            cols,
            lines,
        })
    }
}

pub(crate) const HAS_CODE: u8 = 1;

impl ServerMessage {
    /// The message as one WebSocket binary message.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }

    /// Appends the message to `out` (type byte first).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        match self {
            ServerMessage::Hello(hello) => hello.encode_into(out),
            ServerMessage::Styles(styles) => styles.encode_into(out),
            ServerMessage::Frame(frame) => frame.encode_into(out),
            ServerMessage::Bell => out.push(BELL),
            ServerMessage::Exit { code } => {
                out.push(EXIT);
                match code {
                    Some(code) => {
                        out.push(HAS_CODE);
                        writer::uint(out, varint::zigzag(*code));
                    }
                    None => out.push(0),
                }
            }
            ServerMessage::Error { code, message } => {
                out.push(ERROR);
                writer::uint(out, *code);
                writer::str(out, message);
            }
            ServerMessage::Scrollback(scrollback) => scrollback.encode_into(out),
            ServerMessage::Pong { token } => {
                out.push(PONG);
                writer::uint(out, *token);
            }
            ServerMessage::Clipboard { text } => {
                out.push(CLIPBOARD);
                writer::str(out, text);
            }
            ServerMessage::Presence { view, control } => {
                out.push(PRESENCE);
                writer::uint(out, *view);
                writer::uint(out, *control);
            }
            ServerMessage::ReplayState(state) => state.encode_into(out),
            ServerMessage::Room(room) => room.encode_into(out),
            ServerMessage::FileOffer { name, data } => {
                out.push(FILE_OFFER);
                writer::str(out, name);
                writer::bytes(out, data);
            }
            ServerMessage::Image(image) => image.encode_into(out),
            ServerMessage::Sync(sync) => sync.encode_into(out),
        }
    }

    /// Decodes one WebSocket binary message. A client should ignore messages
    /// that fail with [`DecodeError::UnknownType`] (newer servers may send
    /// types it does not know) and close with [`DecodeError::close_code`] on
    /// any other error. A compressed frame (0x0F) decodes to the
    /// [`ServerMessage::Frame`] it holds.
    pub fn decode(bytes: &[u8]) -> Result<ServerMessage, DecodeError> {
        let mut r = Reader::new(bytes);
        let message = match r.u8()? {
            HELLO => ServerMessage::Hello(Hello::decode_body(&mut r)?),
            STYLES => ServerMessage::Styles(Styles::decode_body(&mut r)?),
            FRAME => ServerMessage::Frame(Frame::decode_body(&mut r)?),
            DEFLATED_FRAME => ServerMessage::Frame(Frame::decode_deflated(&mut r)?),
            BELL => ServerMessage::Bell,
            EXIT => ServerMessage::Exit {
                code: match r.flags(HAS_CODE, "exit flags")? {
                    0 => None,
                    _ => Some(varint::unzigzag(r.u32()?)),
                },
            },
            ERROR => ServerMessage::Error {
                code: r.u16_in(0, u16::MAX, "error code")?,
                message: r.str(MAX_ERROR_MESSAGE, "error message")?.to_owned(),
            },
            SCROLLBACK => ServerMessage::Scrollback(Scrollback::decode_body(&mut r)?),
            PONG => ServerMessage::Pong { token: r.u64()? },
            CLIPBOARD => ServerMessage::Clipboard {
                text: r.str(MAX_CLIPBOARD, "clipboard text")?.to_owned(),
            },
            PRESENCE => ServerMessage::Presence {
                view: r.u32()?,
                control: r.u32()?,
            },
            REPLAY_STATE => ServerMessage::ReplayState(ReplayState::decode_body(&mut r)?),
            ROOM => ServerMessage::Room(Room::decode_body(&mut r)?),
            FILE_OFFER => ServerMessage::FileOffer {
                name: r.str(MAX_FILE_NAME, "file name")?.to_owned(),
                data: r.bytes(MAX_FILE_OFFER, "file data")?.to_vec(),
            },
            IMAGE => ServerMessage::Image(Image::decode_body(&mut r)?),
            SYNC => ServerMessage::Sync(Sync::decode_body(&mut r)?),
            other => return Err(DecodeError::UnknownType(other)),
        };
        r.finish()?;
        Ok(message)
    }
}

//! Client-to-server messages: input, resize, scrollback requests, pings.

use crate::limits::{
    MAX_CLIENT_MESSAGE, MAX_COLS, MAX_PASTE, MAX_ROWS, MAX_SCROLLBACK_LINES, MAX_TEXT,
};
use crate::reader::Reader;
use crate::{writer, DecodeError, ReplayControl, Role};

/// Defines [`NamedKey`] from one table: variant, wire code, doc.
macro_rules! named_keys {
    ($($name:ident = $code:literal, $doc:literal;)*) => {
        /// A key that does not produce a character. The server turns it into
        /// bytes with the terminal's current modes (application cursor keys,
        /// application keypad).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum NamedKey {
            $(#[doc = $doc] $name,)*
        }

        impl NamedKey {
            /// Every named key, in wire-code order.
            pub const ALL: &'static [NamedKey] = &[$(NamedKey::$name),*];

            /// The key's wire code (never 0, which means a character).
            pub fn code(self) -> u8 {
                match self {
                    $(NamedKey::$name => $code,)*
                }
            }

            /// The key with this wire code.
            pub fn from_code(code: u8) -> Option<NamedKey> {
                match code {
                    $($code => Some(NamedKey::$name),)*
                    _ => None,
                }
            }

            /// The key's name, as in PROTOCOL.md and the golden vectors.
            pub fn name(self) -> &'static str {
                match self {
                    $(NamedKey::$name => stringify!($name),)*
                }
            }
        }
    };
}

named_keys! {
    Enter = 0x01, "Enter (Return).";
    Tab = 0x02, "Tab (with Shift: back-tab).";
    Backspace = 0x03, "Backspace.";
    Escape = 0x04, "Escape.";
    Up = 0x05, "Arrow up.";
    Down = 0x06, "Arrow down.";
    Left = 0x07, "Arrow left.";
    Right = 0x08, "Arrow right.";
    Home = 0x09, "Home.";
    End = 0x0a, "End.";
    PageUp = 0x0b, "Page up.";
    PageDown = 0x0c, "Page down.";
    Insert = 0x0d, "Insert.";
    Delete = 0x0e, "Delete (forward).";
    F1 = 0x20, "F1.";
    F2 = 0x21, "F2.";
    F3 = 0x22, "F3.";
    F4 = 0x23, "F4.";
    F5 = 0x24, "F5.";
    F6 = 0x25, "F6.";
    F7 = 0x26, "F7.";
    F8 = 0x27, "F8.";
    F9 = 0x28, "F9.";
    F10 = 0x29, "F10.";
    F11 = 0x2a, "F11.";
    F12 = 0x2b, "F12.";
    F13 = 0x2c, "F13.";
    F14 = 0x2d, "F14.";
    F15 = 0x2e, "F15.";
    F16 = 0x2f, "F16.";
    F17 = 0x30, "F17.";
    F18 = 0x31, "F18.";
    F19 = 0x32, "F19.";
    F20 = 0x33, "F20.";
    F21 = 0x34, "F21.";
    F22 = 0x35, "F22.";
    F23 = 0x36, "F23.";
    F24 = 0x37, "F24.";
    Kp0 = 0x40, "Keypad 0.";
    Kp1 = 0x41, "Keypad 1.";
    Kp2 = 0x42, "Keypad 2.";
    Kp3 = 0x43, "Keypad 3.";
    Kp4 = 0x44, "Keypad 4.";
    Kp5 = 0x45, "Keypad 5.";
    Kp6 = 0x46, "Keypad 6.";
    Kp7 = 0x47, "Keypad 7.";
    Kp8 = 0x48, "Keypad 8.";
    Kp9 = 0x49, "Keypad 9.";
    KpDecimal = 0x4a, "Keypad decimal point.";
    KpDivide = 0x4b, "Keypad /.";
    KpMultiply = 0x4c, "Keypad *.";
    KpSubtract = 0x4d, "Keypad -.";
    KpAdd = 0x4e, "Keypad +.";
    KpEnter = 0x4f, "Keypad Enter.";
    KpEqual = 0x50, "Keypad =.";
    ShiftLeft = 0x60, "Left Shift, alone: sent only while the frame's modes ask for all keys.";
    ShiftRight = 0x61, "Right Shift, alone (as `ShiftLeft`).";
    ControlLeft = 0x62, "Left Control, alone (as `ShiftLeft`).";
    ControlRight = 0x63, "Right Control, alone (as `ShiftLeft`).";
    AltLeft = 0x64, "Left Alt, alone (as `ShiftLeft`).";
    AltRight = 0x65, "Right Alt, alone (as `ShiftLeft`).";
    MetaLeft = 0x66, "Left Meta (Command, Windows key), alone (as `ShiftLeft`).";
    MetaRight = 0x67, "Right Meta, alone (as `ShiftLeft`).";
}

/// A key press.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// A key that produces this character with the current keyboard layout
    /// (what the browser reports as `KeyboardEvent.key`, Shift applied).
    Char(char),
    /// A key that does not produce a character.
    Named(NamedKey),
}

/// What happened to a key, in bits 4-5 of a `Key` message's modifier byte.
/// A client sends repeats and releases only while the frame's modes ask
/// (`key_releases`); a server that was not asked treats a repeat as a
/// press and ignores a release.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KeyEvent {
    /// Pressed (0).
    #[default]
    Press,
    /// Auto-repeated while held (1).
    Repeat,
    /// Released (2).
    Release,
}

impl KeyEvent {
    /// Every event, by wire value.
    pub const ALL: [KeyEvent; 3] = [KeyEvent::Press, KeyEvent::Repeat, KeyEvent::Release];
}

/// Where [`KeyEvent`] sits in a `Key` message's modifier byte.
pub(crate) const KEY_EVENT_SHIFT: u8 = 4;

/// Modifier keys held during a key press or mouse event.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers(u8);

impl Modifiers {
    /// No modifier.
    pub const NONE: Modifiers = Modifiers(0);
    /// Shift, bit 0.
    pub const SHIFT: Modifiers = Modifiers(1);
    /// Alt (Option), bit 1.
    pub const ALT: Modifiers = Modifiers(1 << 1);
    /// Control, bit 2.
    pub const CTRL: Modifiers = Modifiers(1 << 2);
    /// Meta (Command, Windows key), bit 3.
    pub const META: Modifiers = Modifiers(1 << 3);
    /// Every defined bit.
    pub const ALL: Modifiers = Modifiers(0x0f);

    /// The modifiers with these bits, or `None` if bits 4-7 are set.
    pub fn from_bits(bits: u8) -> Option<Modifiers> {
        (bits & !Modifiers::ALL.0 == 0).then_some(Modifiers(bits))
    }

    /// The raw bits.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// True when every bit of `other` is set.
    pub fn contains(self, other: Modifiers) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Modifiers {
    type Output = Modifiers;

    fn bitor(self, rhs: Modifiers) -> Modifiers {
        Modifiers(self.0 | rhs.0)
    }
}

/// What the mouse did.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseKind {
    /// A button went down (0).
    Press,
    /// A button went up (1).
    Release,
    /// The pointer moved to another cell (2).
    Move,
    /// The wheel turned up, one notch (3).
    WheelUp,
    /// The wheel turned down, one notch (4).
    WheelDown,
    /// The wheel tilted left (5).
    WheelLeft,
    /// The wheel tilted right (6).
    WheelRight,
}

impl MouseKind {
    const ALL: [MouseKind; 7] = [
        MouseKind::Press,
        MouseKind::Release,
        MouseKind::Move,
        MouseKind::WheelUp,
        MouseKind::WheelDown,
        MouseKind::WheelLeft,
        MouseKind::WheelRight,
    ];
}

/// Which mouse button.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseButton {
    /// No button: a move with no button held, or a wheel event (0).
    None,
    /// The primary button (1).
    Left,
    /// The middle button (2).
    Middle,
    /// The secondary button (3).
    Right,
}

impl MouseButton {
    const ALL: [MouseButton; 4] = [
        MouseButton::None,
        MouseButton::Left,
        MouseButton::Middle,
        MouseButton::Right,
    ];
}

/// A mouse event over a cell.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MouseEvent {
    /// What happened.
    pub kind: MouseKind,
    /// Which button (for a move: the button held, if any).
    pub button: MouseButton,
    /// Row of the cell under the pointer, 0 at the top.
    pub row: u16,
    /// Column of the cell under the pointer, 0 at the left.
    pub col: u16,
    /// Modifiers held.
    pub mods: Modifiers,
}

/// The colour theme a viewer paints with (the `Theme` message's id byte).
/// The server answers a program's colour queries (OSC 4, 10, 11, 12) from
/// the theme a control viewer last sent.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Theme {
    /// Light text on a dark background (0), the default.
    #[default]
    Dark,
    /// Dark text on a light background (1).
    Light,
    /// High contrast: white on black (2).
    Contrast,
    /// Solarized dark (3).
    Solarized,
    /// xterm's defaults: its 16 colours on black (4).
    Xterm,
}

impl Theme {
    /// Every theme, in id order.
    pub const ALL: [Theme; 5] = [
        Theme::Dark,
        Theme::Light,
        Theme::Contrast,
        Theme::Solarized,
        Theme::Xterm,
    ];

    /// The theme's name, as in PROTOCOL.md and the golden vectors.
    pub fn name(self) -> &'static str {
        match self {
            Theme::Dark => "dark",
            Theme::Light => "light",
            Theme::Contrast => "contrast",
            Theme::Solarized => "solarized",
            Theme::Xterm => "xterm",
        }
    }
}

/// A message from the client to the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientMessage {
    /// 0x81: a key press, repeat or release.
    Key {
        /// The key.
        key: Key,
        /// Modifiers held.
        mods: Modifiers,
        /// Press, repeat or release.
        event: KeyEvent,
    },
    /// 0x82: text typed or committed by an input method, sent as is.
    Text {
        /// The text.
        text: String,
    },
    /// 0x83: pasted text; the server brackets it when the program asked for
    /// bracketed paste and strips anything that could end the bracket.
    Paste {
        /// The text.
        text: String,
    },
    /// 0x84: a mouse event.
    Mouse(MouseEvent),
    /// 0x85: the client's viewport changed size.
    Resize {
        /// New width, 1 to [`MAX_COLS`].
        cols: u16,
        /// New height, 1 to [`MAX_ROWS`].
        rows: u16,
    },
    /// 0x86: asks for scrollback lines `start .. start + count` (1 = just above
    /// the screen).
    ScrollbackRequest {
        /// First line wanted, at least 1.
        start: u64,
        /// How many, 1 to [`MAX_SCROLLBACK_LINES`].
        count: u16,
    },
    /// 0x87: the client's window gained or lost focus.
    Focus {
        /// True when focused.
        focused: bool,
    },
    /// 0x88: asks for a `Pong` with the same token.
    Ping {
        /// Echoed back in the `Pong`.
        token: u64,
    },
    /// 0x89: the theme this viewer paints with; the server ignores it from
    /// a view connection.
    Theme {
        /// The theme.
        theme: Theme,
    },
    /// 0x8F: this connection drives the session's size from now on (its
    /// last `Resize` applies at once under the `driver` policy).
    TakeControl,
    /// 0x90: the client has had this many bytes of binary messages on this
    /// connection (every binary message the server sent counts its whole
    /// length, `Hello` included). A client that says so is sent frames only
    /// while what it has not yet had stays within a window sized to its
    /// link (PROTOCOL.md, "Flow control"): its screen stays current on a slow link.
    Received {
        /// Bytes had since the connection opened.
        bytes: u64,
    },
    /// 0x8A-0x8E: controls a replay; a view connection may send these to
    /// a replay, no connection to a live session.
    Replay(ReplayControl),
}

pub(crate) const KEY: u8 = 0x81;
pub(crate) const TEXT: u8 = 0x82;
pub(crate) const PASTE: u8 = 0x83;
pub(crate) const MOUSE: u8 = 0x84;
pub(crate) const RESIZE: u8 = 0x85;
pub(crate) const SCROLLBACK_REQUEST: u8 = 0x86;
pub(crate) const FOCUS: u8 = 0x87;
pub(crate) const PING: u8 = 0x88;
pub(crate) const THEME: u8 = 0x89;
pub(crate) const TAKE_CONTROL: u8 = 0x8f;
pub(crate) const RECEIVED: u8 = 0x90;

/// The key byte that means "a character follows".
const KEY_CHAR: u8 = 0;

impl ClientMessage {
    /// The message as one WebSocket binary message.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }

    /// Appends the message to `out` (type byte first).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        match self {
            ClientMessage::Key { key, mods, event } => {
                out.push(KEY);
                match key {
                    Key::Char(ch) => {
                        out.push(KEY_CHAR);
                        writer::uint(out, u32::from(*ch));
                    }
                    Key::Named(named) => out.push(named.code()),
                }
                out.push(mods.bits() | (*event as u8) << KEY_EVENT_SHIFT);
            }
            ClientMessage::Text { text } => {
                out.push(TEXT);
                writer::str(out, text);
            }
            ClientMessage::Paste { text } => {
                out.push(PASTE);
                writer::str(out, text);
            }
            ClientMessage::Mouse(event) => {
                out.push(MOUSE);
                out.push(event.kind as u8);
                out.push(event.button as u8);
                out.push(event.mods.bits());
                writer::uint(out, event.row);
                writer::uint(out, event.col);
            }
            ClientMessage::Resize { cols, rows } => {
                out.push(RESIZE);
                writer::uint(out, *cols);
                writer::uint(out, *rows);
            }
            ClientMessage::ScrollbackRequest { start, count } => {
                out.push(SCROLLBACK_REQUEST);
                writer::uint(out, *start);
                writer::uint(out, *count);
            }
            ClientMessage::Focus { focused } => {
                out.push(FOCUS);
                out.push(u8::from(*focused));
            }
            ClientMessage::Received { bytes } => {
                out.push(RECEIVED);
                writer::uint(out, *bytes);
            }
            ClientMessage::Ping { token } => {
                out.push(PING);
                writer::uint(out, *token);
            }
            ClientMessage::Theme { theme } => {
                out.push(THEME);
                out.push(*theme as u8);
            }
            ClientMessage::TakeControl => out.push(TAKE_CONTROL),
            ClientMessage::Replay(control) => control.encode_into(out),
        }
    }

    /// Decodes one WebSocket binary message from a client. Messages over
    /// [`MAX_CLIENT_MESSAGE`] bytes fail with [`DecodeError::TooLarge`] before
    /// any parsing. The server closes the connection with
    /// [`DecodeError::close_code`] on any error.
    pub fn decode(bytes: &[u8]) -> Result<ClientMessage, DecodeError> {
        if bytes.len() > MAX_CLIENT_MESSAGE {
            return Err(DecodeError::TooLarge {
                field: "message",
                len: bytes.len() as u64,
                max: MAX_CLIENT_MESSAGE as u64,
            });
        }
        let mut r = Reader::new(bytes);
        let message = match r.u8()? {
            KEY => {
                let key = match r.u8()? {
                    KEY_CHAR => Key::Char(
                        char::from_u32(r.u32()?)
                            .ok_or(DecodeError::OutOfRange { field: "key char" })?,
                    ),
                    code => Key::Named(
                        NamedKey::from_code(code)
                            .ok_or(DecodeError::OutOfRange { field: "key" })?,
                    ),
                };
                let bits = r.u8()?;
                let event = KeyEvent::ALL
                    .get(usize::from(bits >> KEY_EVENT_SHIFT))
                    .copied()
                    .ok_or(DecodeError::OutOfRange { field: "key event" })?;
                ClientMessage::Key {
                    key,
                    mods: Modifiers(bits & Modifiers::ALL.0),
                    event,
                }
            }
            TEXT => ClientMessage::Text {
                text: r.str(MAX_TEXT, "text")?.to_owned(),
            },
            PASTE => ClientMessage::Paste {
                text: r.str(MAX_PASTE, "paste")?.to_owned(),
            },
            MOUSE => {
                let kind = MouseKind::ALL.get(usize::from(r.u8()?)).copied().ok_or(
                    DecodeError::OutOfRange {
                        field: "mouse kind",
                    },
                )?;
                let button = MouseButton::ALL.get(usize::from(r.u8()?)).copied().ok_or(
                    DecodeError::OutOfRange {
                        field: "mouse button",
                    },
                )?;
                let mods = modifiers(&mut r)?;
                ClientMessage::Mouse(MouseEvent {
                    kind,
                    button,
                    row: r.u16_in(0, MAX_ROWS - 1, "mouse row")?,
                    col: r.u16_in(0, MAX_COLS - 1, "mouse column")?,
                    mods,
                })
            }
            RESIZE => ClientMessage::Resize {
                cols: r.u16_in(1, MAX_COLS, "cols")?,
                rows: r.u16_in(1, MAX_ROWS, "rows")?,
            },
            SCROLLBACK_REQUEST => {
                let start = r.u64()?;
                if start == 0 {
                    return Err(DecodeError::OutOfRange { field: "start" });
                }
                ClientMessage::ScrollbackRequest {
                    start,
                    count: r.u16_in(1, MAX_SCROLLBACK_LINES, "count")?,
                }
            }
            FOCUS => ClientMessage::Focus {
                focused: r.bool("focused")?,
            },
            PING => ClientMessage::Ping { token: r.u64()? },
            RECEIVED => ClientMessage::Received { bytes: r.u64()? },
            THEME => ClientMessage::Theme {
                theme: Theme::ALL
                    .get(usize::from(r.u8()?))
                    .copied()
                    .ok_or(DecodeError::OutOfRange { field: "theme" })?,
            },
            TAKE_CONTROL => ClientMessage::TakeControl,
            kind if ReplayControl::owns(kind) => {
                ClientMessage::Replay(ReplayControl::decode_body(kind, &mut r)?)
            }
            other => return Err(DecodeError::UnknownType(other)),
        };
        r.finish()?;
        Ok(message)
    }

    /// True for messages only a [`Role::Control`] connection may send (all
    /// but `ScrollbackRequest`, `Ping`, `Received`, `Theme` and, to a replay, the
    /// replay controls); the server closes a [`Role::View`] connection that
    /// sends one with 1008. (A view connection's `Theme` is allowed, and
    /// ignored.)
    pub fn requires_control(&self) -> bool {
        !matches!(
            self,
            ClientMessage::ScrollbackRequest { .. }
                | ClientMessage::Ping { .. }
                | ClientMessage::Received { .. }
                | ClientMessage::Theme { .. }
        )
    }

    /// True when a connection with `role` may send this message to a live
    /// session (`replay` false) or to a replay (`replay` true). Replay
    /// controls go to replays only; input goes to live sessions only.
    pub fn allowed_for(&self, role: Role, replay: bool) -> bool {
        match self {
            ClientMessage::Replay(_) => replay,
            ClientMessage::ScrollbackRequest { .. }
            | ClientMessage::Ping { .. }
            | ClientMessage::Received { .. }
            | ClientMessage::Theme { .. } => true,
            _ => !replay && role == Role::Control,
        }
    }
}

fn modifiers(r: &mut Reader<'_>) -> Result<Modifiers, DecodeError> {
    Modifiers::from_bits(r.u8()?).ok_or(DecodeError::OutOfRange { field: "modifiers" })
}

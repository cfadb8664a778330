//! The wire's constants as a JavaScript module, for the web client: it has
//! no build step, so `web/wire.js` is this module's output, committed, and
//! `tests/web_module.rs` fails when the two differ. Every value is read from
//! the constant the encoder and decoder use.

use crate::{client, close, frame, line, replay, room, server, style};
use crate::{Attrs, KeyEvent, Modifiers, NamedKey, PROTOCOL_VERSION};

/// `(name, value)` pairs, each name the JavaScript property.
macro_rules! entries {
    ($($name:ident = $value:expr),* $(,)?) => {
        vec![$((stringify!($name).to_string(), u32::from($value))),*]
    };
}

/// One exported table: its name, what it holds, its entries.
struct Table {
    name: &'static str,
    doc: &'static str,
    entries: Vec<(String, u32)>,
}

fn tables() -> Vec<Table> {
    vec![
        Table {
            name: "MSG",
            doc: "Message types, server to client then client to server (PROTOCOL.md section 4).",
            entries: entries![
                HELLO = server::HELLO,
                STYLES = server::STYLES,
                FRAME = frame::FRAME,
                BELL = server::BELL,
                EXIT = server::EXIT,
                ERROR = server::ERROR,
                SCROLLBACK = server::SCROLLBACK,
                PONG = server::PONG,
                CLIPBOARD = server::CLIPBOARD,
                PRESENCE = server::PRESENCE,
                REPLAY_STATE = replay::REPLAY_STATE,
                ROOM = room::ROOM,
                FILE_OFFER = server::FILE_OFFER,
                IMAGE = crate::image::IMAGE,
                DEFLATED_FRAME = crate::deflate::DEFLATED_FRAME,
                KEY = client::KEY,
                TEXT = client::TEXT,
                PASTE = client::PASTE,
                MOUSE = client::MOUSE,
                RESIZE = client::RESIZE,
                SCROLLBACK_REQUEST = client::SCROLLBACK_REQUEST,
                FOCUS = client::FOCUS,
                PING = client::PING,
                THEME = client::THEME,
                PLAY = replay::PLAY,
                PAUSE = replay::PAUSE,
                SPEED = replay::SPEED,
                SEEK = replay::SEEK,
                MARKER = replay::MARKER,
                TAKE_CONTROL = client::TAKE_CONTROL,
            ],
        },
        Table {
            name: "CLOSE",
            doc: "Close codes (PROTOCOL.md, \"Errors and close codes\").",
            entries: close::ALL
                .iter()
                .map(|(name, code)| (name.to_string(), u32::from(*code)))
                .collect(),
        },
        Table {
            name: "KEYS",
            doc: "Named key codes of a Key message (PROTOCOL.md section 6).",
            entries: NamedKey::ALL
                .iter()
                .map(|key| (key.name().to_string(), u32::from(key.code())))
                .collect(),
        },
        Table {
            name: "KEY_EVENT",
            doc: "Key events, in the bits from SHIFT of a Key message's modifier byte.",
            entries: entries![
                PRESS = KeyEvent::Press as u8,
                REPEAT = KeyEvent::Repeat as u8,
                RELEASE = KeyEvent::Release as u8,
                SHIFT = client::KEY_EVENT_SHIFT,
            ],
        },
        Table {
            name: "MOD",
            doc: "Modifier bits of Key and Mouse messages.",
            entries: entries![
                SHIFT = Modifiers::SHIFT.bits(),
                ALT = Modifiers::ALT.bits(),
                CTRL = Modifiers::CTRL.bits(),
                META = Modifiers::META.bits(),
            ],
        },
        Table {
            name: "ATTR",
            doc: "Attribute bits of a style; LINK: a link URI follows the colours.",
            entries: entries![
                BOLD = Attrs::BOLD.bits(),
                DIM = Attrs::DIM.bits(),
                ITALIC = Attrs::ITALIC.bits(),
                BLINK = Attrs::BLINK.bits(),
                INVERSE = Attrs::INVERSE.bits(),
                INVISIBLE = Attrs::INVISIBLE.bits(),
                STRIKE = Attrs::STRIKE.bits(),
                ALL = Attrs::ALL.bits(),
                LINK = style::HAS_LINK,
            ],
        },
        Table {
            name: "LINE",
            doc: "Line flags (PROTOCOL.md section 5).",
            entries: entries![
                WRAPPED = line::WRAPPED,
                HAS_WIDE = line::HAS_WIDE,
                HAS_CLUSTERS = line::HAS_CLUSTERS,
                HAS_FILL = line::HAS_FILL,
                HAS_IMAGES = line::HAS_IMAGES,
            ],
        },
        Table {
            name: "FRAME",
            doc: "Frame flags, and the cursor's flags beside its shape (bits 0-1).",
            entries: entries![
                FULL = frame::FULL,
                HAS_TITLE = frame::HAS_TITLE,
                CURSOR_VISIBLE = frame::CURSOR_VISIBLE,
                CURSOR_BLINK = frame::CURSOR_BLINK,
            ],
        },
        Table {
            name: "MODE",
            doc: "A frame's mode bits; the mouse tracking value in the 3 bits from MOUSE_SHIFT.",
            entries: entries![
                APP_CURSOR = frame::APP_CURSOR,
                BRACKETED_PASTE = frame::BRACKETED_PASTE,
                APP_KEYPAD = frame::APP_KEYPAD,
                ALT_SCREEN = frame::ALT_SCREEN,
                FOCUS_EVENTS = frame::FOCUS_EVENTS,
                MOUSE_SGR = frame::MOUSE_SGR,
                REVERSE_VIDEO = frame::REVERSE_VIDEO,
                MOUSE_SHIFT = frame::MOUSE_SHIFT,
                KEY_RELEASES = frame::KEY_RELEASES,
                KEY_ALL = frame::KEY_ALL,
                ALL = frame::MODE_BITS,
            ],
        },
        Table {
            name: "FLAG",
            doc: "The flags bytes of the other messages.",
            entries: entries![
                STYLES_RESET = server::RESET,
                EXIT_HAS_CODE = server::HAS_CODE,
                REPLAY_PLAYING = replay::PLAYING,
                ROOM_YOU_DRIVE = room::YOU_DRIVE,
                ROOM_CONTROL = room::CONTROL,
                ROOM_DRIVES = room::DRIVES,
            ],
        },
    ]
}

/// The web client's `web/wire.js`: every constant of the wire the client
/// uses, as frozen objects (`MSG`, `CLOSE`, `KEYS`, `KEY_EVENT`, `MOD`,
/// `ATTR`, `LINE`, `FRAME`, `MODE`, `FLAG`) and `VERSION`, generated from
/// the constants this crate encodes and decodes with.
pub fn javascript_module() -> String {
    let mut out = String::from(
        "// Generated by panecast-proto (proto/src/js.rs) from the constants its encoder\n\
         // and decoder use: do not edit. Regenerate with\n\
         // cargo test -p panecast-proto --test web_module -- --ignored regenerate_web_module\n\
         const f = Object.freeze;\n",
    );
    out.push_str(&format!(
        "// The protocol version (Hello).\nexport const VERSION = {PROTOCOL_VERSION};\n"
    ));
    for table in tables() {
        out.push_str(&format!(
            "// {}\nexport const {} = f({{",
            table.doc, table.name
        ));
        let mut width = WIDTH; // the first entry starts a line
        for (name, value) in &table.entries {
            let entry = format!("{name}: {value},");
            if width + entry.len() > WIDTH {
                out.push_str("\n ");
                width = 1;
            }
            out.push(' ');
            out.push_str(&entry);
            width += entry.len() + 1;
        }
        out.push_str("\n});\n");
    }
    out
}

/// The longest line of a table's entries, in bytes.
const WIDTH: usize = 100;

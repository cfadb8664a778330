//! The wire's constants in JavaScript, for the web client: it has no build
//! step, so this module's output is committed as the generated block at
//! the top of `web/protocol.js`, and `tests/js_constants.rs` fails when the two
//! differ. Every value is read from the constant the encoder and decoder
//! use.

use crate::{client, close, frame, limits, line, replay, room, server, style};
use crate::{Attrs, KeyEvent, Modifiers, NamedKey, Theme, PROTOCOL_VERSION};
use crate::{SUBPROTOCOL, TOKEN_SUBPROTOCOL};

/// `(name, value)` pairs, each name the JavaScript property.
macro_rules! entries {
    ($($name:ident = $value:expr),* $(,)?) => {
        vec![$((stringify!($name).to_string(), u32::from($value))),*]
    };
}

/// A size limit as a table's value: every limit of `limits` is below 2^32
/// (the largest, `MAX_FILE_OFFER`, is 2^28), and `limits_fit` checks it.
fn limit(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// One exported table: its name, what it holds, its entries.
struct Table {
    name: &'static str,
    doc: &'static str,
    entries: Vec<(String, u32)>,
}

/// Every table of the module, in order.
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
                SYNC = crate::sync::SYNC,
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
                RECEIVED = client::RECEIVED,
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
            name: "WARNINGS",
            doc: "Error codes that warn and do not close: FIRST to END, END excluded.",
            entries: entries![FIRST = close::WARNINGS.start, END = close::WARNINGS.end],
        },
        Table {
            name: "LIMIT",
            doc: "Size limits (proto/src/limits.rs, PROTOCOL.md \"Limits\"): strings and bytes in bytes.",
            entries: entries![
                CLIENT_MESSAGE = limit(limits::MAX_CLIENT_MESSAGE),
                COLS = limits::MAX_COLS,
                ROWS = limits::MAX_ROWS,
                SESSION_ID = limit(limits::MAX_SESSION_ID),
                TITLE = limit(limits::MAX_TITLE),
                LINK = limit(limits::MAX_LINK),
                CLIPBOARD = limit(limits::MAX_CLIPBOARD),
                FILE_NAME = limit(limits::MAX_FILE_NAME),
                FILE_OFFER = limit(limits::MAX_FILE_OFFER),
                ERROR_MESSAGE = limit(limits::MAX_ERROR_MESSAGE),
                TEXT = limit(limits::MAX_TEXT),
                PASTE = limit(limits::MAX_PASTE),
                LINE_TEXT = limit(limits::MAX_LINE_TEXT),
                STYLE_DEFS = limit(limits::MAX_STYLE_DEFS),
                CELL_CODEPOINTS = limits::MAX_CELL_CODEPOINTS,
                LINE_IMAGES = limit(limits::MAX_LINE_IMAGES),
                IMAGE_SIDE = limits::MAX_IMAGE_SIDE,
                IMAGE_PNG = limit(limits::MAX_IMAGE_PNG),
                DEFLATED_BODY = limit(limits::MAX_DEFLATED_BODY),
                ROOM_ENTRIES = limit(limits::MAX_ROOM_ENTRIES),
                MEMBER_NAME = limit(limits::MAX_MEMBER_NAME),
                SCROLLBACK_LINES = limits::MAX_SCROLLBACK_LINES,
                REPLAY_MARKERS = limit(limits::MAX_REPLAY_MARKERS),
                MARKER_LABEL = limit(limits::MAX_MARKER_LABEL),
                MIN_REPLAY_SPEED = limits::MIN_REPLAY_SPEED,
                MAX_REPLAY_SPEED = limits::MAX_REPLAY_SPEED,
            ],
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
                ALL = line::LINE_FLAGS,
            ],
        },
        Table {
            name: "FRAME",
            doc: "Frame flags; the cursor's flags beside its shape; MODES: every mode bit, the mouse tracking value in the 3 from MOUSE_SHIFT.",
            entries: entries![
                FULL = frame::FULL,
                HAS_TITLE = frame::HAS_TITLE,
                CURSOR_SHAPE = frame::CURSOR_SHAPE,
                CURSOR_VISIBLE = frame::CURSOR_VISIBLE,
                CURSOR_BLINK = frame::CURSOR_BLINK,
                MOUSE_SHIFT = frame::MOUSE_SHIFT,
                MODES = frame::MODE_BITS,
            ],
        },
        Table {
            name: "MODE",
            doc: "A frame's mode flags, each by its field of Modes in camelCase (the decoded name).",
            entries: entries![
                appCursor = frame::APP_CURSOR,
                bracketedPaste = frame::BRACKETED_PASTE,
                appKeypad = frame::APP_KEYPAD,
                altScreen = frame::ALT_SCREEN,
                focusEvents = frame::FOCUS_EVENTS,
                mouseSgr = frame::MOUSE_SGR,
                reverseVideo = frame::REVERSE_VIDEO,
                keyReleases = frame::KEY_RELEASES,
                keyAll = frame::KEY_ALL,
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
                ECHO_KNOWN = crate::sync::KNOWN,
                ECHO_ON = crate::sync::ECHOES,
                ECHO_CANONICAL = crate::sync::CANONICAL,
                ECHO_BARRED = crate::sync::BARRED,
            ],
        },
    ]
}

/// The generated block of the web client's `web/protocol.js`: every
/// constant of the wire, as frozen objects (`MSG`, `CLOSE`, `KEYS`,
/// `KEY_EVENT`, `MOD`, `ATTR`, `LINE`, `FRAME`, `MODE`, `FLAG`), the
/// `THEME_IDS`, the `FINAL` close codes and `VERSION`, exported, from the constants this
/// crate encodes and decodes with.
pub fn javascript_constants() -> String {
    let mut out = String::from(
        "// Generated by panecast-proto (proto/src/js.rs) from the constants its encoder\n\
         // and decoder use, down to the end marker: do not edit. Regenerate with\n\
         // cargo test -p panecast-proto --test js_constants -- --ignored regenerate_js_constants\n\
         // Each table is frozen; t([v, 'A B C']) is { A: v, B: v + 1, C: v + 2 },\n\
         // t([v, 'A B C', 2]) is { A: v, B: 2 v, C: 4 v }.\n\
         const t = (...runs) => Object.freeze(Object.fromEntries(runs.flatMap(([v, s, k]) =>\n  \
         s.split(' ').map((name, i) => [name, k ? v * k ** i : v + i]))));\n",
    );
    out.push_str(&format!(
        "// The protocol version (Hello).\nexport const VERSION = {PROTOCOL_VERSION};\n"
    ));
    for table in tables() {
        let runs: Vec<String> = runs(&table.entries)
            .into_iter()
            .map(|run| run.render())
            .collect();
        out.push_str(&format!(
            "// {}\nexport const {} = t({});\n",
            table.doc,
            table.name,
            runs.join(", ")
        ));
    }
    out.push_str(&format!(
        "// The WebSocket subprotocol, and the prefix of the one that carries a credential.\n\
         export const SUBPROTOCOL = '{SUBPROTOCOL}';\n\
         export const TOKEN_SUBPROTOCOL = '{TOKEN_SUBPROTOCOL}';\n"
    ));
    let themes: Vec<String> = Theme::ALL
        .iter()
        .map(|theme| format!("'{}'", theme.name()))
        .collect();
    out.push_str(&format!(
        "// Theme names, each at its id of a Theme message.\n\
         export const THEME_IDS = [{}];\n",
        themes.join(", ")
    ));
    let last: Vec<String> = close::FINAL.iter().map(u16::to_string).collect();
    out.push_str(&format!(
        "// The close codes after which a client does not reconnect (PROTOCOL.md section 8).\n\
         export const FINAL = new Set([{}]);\n",
        last.join(", ")
    ));
    out
}

/// Entries whose values follow each other: `start`, then `start + 1`,
/// `start + 2`... (`doubles` false) or `start`, `2 start`, `4 start`...
struct Run<'a> {
    start: u32,
    doubles: bool,
    names: Vec<&'a str>,
}

impl Run<'_> {
    /// As an argument of the module's `t`.
    fn render(&self) -> String {
        let names = self.names.join(" ");
        match self.doubles {
            false => format!("[{}, '{names}']", self.start),
            true => format!("[{}, '{names}', 2]", self.start),
        }
    }
}

/// The value after `value` in a run that adds one or doubles.
fn next(value: u32, doubles: bool) -> Option<u32> {
    match doubles {
        false => value.checked_add(1),
        true => value.checked_mul(2).filter(|_| value > 0),
    }
}

/// `entries` as the fewest runs, each as long as it can go: where a run
/// could add one or double (1, 2), the longer of the two is taken.
fn runs(entries: &[(String, u32)]) -> Vec<Run<'_>> {
    let length = |from: usize, doubles: bool| {
        let mut value = entries[from].1;
        let mut n = 1;
        while let Some((_, v)) = entries.get(from + n) {
            if next(value, doubles) != Some(*v) {
                break;
            }
            value = *v;
            n += 1;
        }
        n
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let doubles = length(i, true) > length(i, false);
        let n = length(i, doubles);
        out.push(Run {
            start: entries[i].1,
            doubles,
            names: entries[i..i + n]
                .iter()
                .map(|(name, _)| name.as_str())
                .collect(),
        });
        i += n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_add_one_or_double_whichever_goes_further() {
        let entries: Vec<(String, u32)> =
            [("A", 1), ("B", 2), ("C", 4), ("D", 8), ("E", 9), ("F", 3)]
                .iter()
                .map(|(n, v)| (n.to_string(), *v))
                .collect();
        let rendered: Vec<String> = runs(&entries).iter().map(Run::render).collect();
        assert_eq!(rendered, ["[1, 'A B C D', 2]", "[9, 'E']", "[3, 'F']"]);
    }

    #[test]
    fn limits_fit() {
        for (name, value) in &tables()
            .into_iter()
            .find(|t| t.name == "LIMIT")
            .map(|t| t.entries)
            .unwrap_or_default()
        {
            assert!(*value < u32::MAX, "{name}");
        }
        assert_eq!(limit(limits::MAX_FILE_OFFER), 1 << 28);
    }
}

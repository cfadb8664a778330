//! Golden vectors: `vectors/NAME.bin` holds one encoded message and
//! `vectors/NAME.json` describes it (schema in `vectors/README.md`).
//!
//! `committed_vectors_decode_to_their_description` checks every committed pair:
//! the `.bin` decodes to what the `.json` says and encodes back to the same
//! bytes. `committed_vectors_match_the_cases` checks that the committed files
//! are exactly what the encoder makes of the cases below. To change a vector,
//! edit its case and run
//! `cargo test -p panecast-proto --test vectors -- --ignored regenerate_vectors`,
//! then review the diff: the first two tests keep comparing against the files.

use std::path::{Path, PathBuf};

use panecast_proto::*;
use serde_json::{json, Value};

/// A message of either direction.
enum Message {
    Server(ServerMessage),
    Client(ClientMessage),
    /// A frame sent compressed (0x0F).
    Deflated(Frame),
}

impl Message {
    fn encode(&self) -> Vec<u8> {
        match self {
            Message::Server(m) => m.encode(),
            Message::Client(m) => m.encode(),
            Message::Deflated(frame) => {
                let mut out = Vec::new();
                frame.encode_shared().write_deflated(frame.seq, &mut out);
                out
            }
        }
    }
}

struct Case {
    name: &'static str,
    description: &'static str,
    message: Message,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors")
}

// ---- building the cases ----

fn line(cols: u16, wrapped: bool, runs: &[(&str, u32)]) -> Line {
    let mut builder = LineBuilder::new(cols);
    for (text, style) in runs {
        for ch in text.chars() {
            let mut buf = [0; 4];
            builder.push(ch.encode_utf8(&mut buf), 1, *style).unwrap();
        }
    }
    builder.finish(wrapped)
}

fn cells(cols: u16, cells: &[(&str, u8, u32)]) -> Line {
    Line::from_cells(cols, false, cells.iter().copied()).unwrap()
}

fn row(row: u16, line: Line) -> FrameLine {
    FrameLine { row, line }
}

fn cursor(row: u16, col: u16) -> Cursor {
    Cursor {
        row,
        col,
        visible: true,
        blink: false,
        shape: CursorShape::Block,
    }
}

fn shell_modes() -> Modes {
    Modes {
        bracketed_paste: true,
        ..Modes::default()
    }
}

fn server(name: &'static str, description: &'static str, m: ServerMessage) -> Case {
    Case {
        name,
        description,
        message: Message::Server(m),
    }
}

fn client(name: &'static str, description: &'static str, m: ClientMessage) -> Case {
    Case {
        name,
        description,
        message: Message::Client(m),
    }
}

/// The hash the image vectors name their picture by.
const IMAGE_HASH: ImageHash = [
    0x3f, 0x1c, 0x52, 0x9e, 0x07, 0x81, 0xd2, 0x44, 0x6b, 0x90, 0x0a, 0xee, 0x15, 0x73, 0xc8, 0x2d,
];

fn cases() -> Vec<Case> {
    vec![
        server(
            "hello_control",
            "First message of a control connection to an 80x24 session.",
            ServerMessage::Hello(Hello {
                version: PROTOCOL_VERSION,
                session_id: "s-7f3a9c".into(),
                role: Role::Control,
                cols: 80,
                rows: 24,
            }),
        ),
        server(
            "hello_view",
            "First message of a view-only connection to a 200x50 session (cols >= 128: two-byte varint).",
            ServerMessage::Hello(Hello {
                version: PROTOCOL_VERSION,
                session_id: "build-log".into(),
                role: Role::View,
                cols: 200,
                rows: 50,
            }),
        ),
        server(
            "styles_basic",
            "Style definitions: 16-colour, 256-colour and truecolor colours, attributes, a curly coloured underline, a hyperlink.",
            ServerMessage::Styles(Styles {
                reset: false,
                epoch: 0,
                defs: vec![
                    StyleDef {
                        id: 1,
                        style: Style {
                            fg: Color::Indexed(2),
                            attrs: Attrs::BOLD,
                            ..Style::default()
                        },
                    },
                    StyleDef {
                        id: 2,
                        style: Style {
                            fg: Color::Indexed(208),
                            bg: Color::Indexed(236),
                            ..Style::default()
                        },
                    },
                    StyleDef {
                        id: 3,
                        style: Style {
                            fg: Color::Rgb(255, 135, 0),
                            bg: Color::Rgb(40, 44, 52),
                            attrs: Attrs::ITALIC | Attrs::DIM,
                            ..Style::default()
                        },
                    },
                    StyleDef {
                        id: 4,
                        style: Style {
                            underline: UnderlineKind::Curly,
                            underline_color: Color::Rgb(255, 0, 0),
                            ..Style::default()
                        },
                    },
                    StyleDef {
                        id: 5,
                        style: Style {
                            fg: Color::Indexed(4),
                            underline: UnderlineKind::Single,
                            link: Some("https://example.com/docs?q=panecast".into()),
                            ..Style::default()
                        },
                    },
                    StyleDef {
                        id: 6,
                        style: Style {
                            attrs: Attrs::INVERSE,
                            ..Style::default()
                        },
                    },
                ],
            }),
        ),
        server(
            "styles_reset",
            "The server renumbered its style table: drop all definitions, then define id 1 anew.",
            ServerMessage::Styles(Styles {
                reset: true,
                epoch: 3,
                defs: vec![StyleDef {
                    id: 1,
                    style: Style {
                        fg: Color::Indexed(1),
                        attrs: Attrs::STRIKE | Attrs::BLINK | Attrs::INVISIBLE,
                        underline: UnderlineKind::Double,
                        ..Style::default()
                    },
                }],
            }),
        ),
        server(
            "frame_first",
            "First frame of a connection (full): a shell prompt and an ls listing; bracketed paste on.",
            ServerMessage::Frame(Frame {
                seq: 0,
                cols: 80,
                rows: 24,
                full: true,
                cursor: cursor(2, 12),
                modes: shell_modes(),
                title: Some("~".into()),
                scroll: 0,
                scrollback: 0,
                pushed: 0,
                kept: 0,
                lines: vec![
                    row(0, line(80, false, &[("user@host", 1), (":~$ ls", 0)])),
                    row(
                        1,
                        line(80, false, &[("Cargo.toml  README.md  ", 0), ("src", 5)]),
                    ),
                    row(2, line(80, false, &[("user@host", 1), (":~$ ", 0)])),
                ],
            }),
        ),
        Case {
            name: "frame_deflated",
            description: "A full frame of 24 rows of log lines, compressed (0x0F): seq 7, the inflated body's length, then raw DEFLATE. It decodes to the Frame it holds.",
            message: Message::Deflated(Frame {
                seq: 7,
                cols: 80,
                rows: 24,
                full: true,
                cursor: cursor(23, 0),
                modes: shell_modes(),
                title: None,
                scroll: 0,
                scrollback: 120,
                pushed: 0,
                kept: 0,
                lines: (0..24u16)
                    .map(|r| {
                        let text = format!("2026-11-26 12:00:{:02} INFO request {r} served in 3 ms", r);
                        row(r, line(80, false, &[(text.as_str(), 0)]))
                    })
                    .collect(),
            }),
        },
        server(
            "frame_styles",
            "256-colour and truecolor runs, and a status bar whose styled blanks reach the right edge (sent as the fill style).",
            ServerMessage::Frame(Frame {
                seq: 41,
                cols: 40,
                rows: 10,
                full: false,
                cursor: cursor(3, 0),
                modes: Modes::default(),
                title: None,
                scroll: 0,
                scrollback: 0,
                pushed: 0,
                kept: 0,
                lines: vec![
                    row(3, line(40, false, &[("warn", 2), (": ", 0), ("disk 91%", 3)])),
                    row(
                        9,
                        line(
                            40,
                            false,
                            &[(" NORMAL ", 6), (" main.rs", 2), (&" ".repeat(24), 2)],
                        ),
                    ),
                ],
            }),
        ),
        server(
            "frame_cjk",
            "Wide (CJK) cells: each takes two columns, the second being its spacer; a fullwidth comma; mixed with ASCII.",
            ServerMessage::Frame(Frame {
                seq: 5,
                cols: 20,
                rows: 2,
                full: false,
                cursor: cursor(0, 16),
                modes: shell_modes(),
                title: None,
                scroll: 0,
                scrollback: 0,
                pushed: 0,
                kept: 0,
                lines: vec![row(
                    0,
                    cells(
                        20,
                        &[
                            ("你", 2, 0),
                            ("好", 2, 0),
                            ("，", 2, 0),
                            ("世", 2, 0),
                            ("界", 2, 0),
                            (" ", 1, 0),
                            ("o", 1, 1),
                            ("k", 1, 1),
                            (" ", 1, 0),
                            ("日", 2, 1),
                        ],
                    ),
                )],
            }),
        ),
        server(
            "frame_cluster",
            "Multi-codepoint cells: e + U+0301 COMBINING ACUTE in one cell, and a wide ZWJ family emoji (5 codepoints) after it.",
            ServerMessage::Frame(Frame {
                seq: 6,
                cols: 20,
                rows: 2,
                full: false,
                cursor: cursor(1, 0),
                modes: shell_modes(),
                title: None,
                scroll: 0,
                scrollback: 0,
                pushed: 0,
                kept: 0,
                lines: vec![row(
                    0,
                    cells(
                        20,
                        &[
                            ("c", 1, 0),
                            ("a", 1, 0),
                            ("f", 1, 0),
                            ("e\u{301}", 1, 0),
                            (" ", 1, 0),
                            ("\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}", 2, 0),
                            ("!", 1, 0),
                        ],
                    ),
                )],
            }),
        ),
        server(
            "frame_scroll",
            "The screen scrolled up 2 rows since the previous frame: the client shifts its rows up by 2, then applies the new bottom rows (the first soft-wrapped). Both rows went into the scrollback; the first is the client's old top row, unchanged (kept 1), the second changed before it left (so the client drops its copy).",
            ServerMessage::Frame(Frame {
                seq: 1234,
                cols: 10,
                rows: 5,
                full: false,
                cursor: cursor(4, 2),
                modes: shell_modes(),
                title: None,
                scroll: 2,
                scrollback: 40,
                pushed: 2,
                kept: 1,
                lines: vec![
                    row(2, line(10, true, &[("0123456789", 0)])),
                    row(3, line(10, false, &[("abc", 0)])),
                    row(4, line(10, false, &[("$ ", 0)])),
                ],
            }),
        ),
        server(
            "frame_title",
            "A full-screen program: new title, alternate screen, application cursor and keypad, focus events, SGR mouse with drag tracking, blinking bar cursor.",
            ServerMessage::Frame(Frame {
                seq: 300,
                cols: 80,
                rows: 24,
                full: false,
                cursor: Cursor {
                    row: 0,
                    col: 5,
                    visible: true,
                    blink: true,
                    shape: CursorShape::Bar,
                },
                modes: Modes {
                    app_cursor: true,
                    bracketed_paste: true,
                    app_keypad: true,
                    alt_screen: true,
                    focus_events: true,
                    mouse_sgr: true,
                    reverse_video: false,
                    mouse: MouseTracking::Drag,
                    key_releases: false,
                    key_all: false,
                },
                title: Some("vim — README.md".into()),
                scroll: 0,
                scrollback: 0,
                pushed: 0,
                kept: 0,
                lines: vec![row(0, line(80, false, &[("# pane", 1), ("cast", 4)]))],
            }),
        ),
        server(
            "frame_resize",
            "After a resize to 120x40: a full frame of a blank screen with a hidden underline cursor; reverse video, click mouse tracking, key releases and all keys as key events on.",
            ServerMessage::Frame(Frame {
                seq: 1301,
                cols: 120,
                rows: 40,
                full: true,
                cursor: Cursor {
                    row: 39,
                    col: 119,
                    visible: false,
                    blink: false,
                    shape: CursorShape::Underline,
                },
                modes: Modes {
                    reverse_video: true,
                    mouse: MouseTracking::Click,
                    key_releases: true,
                    key_all: true,
                    ..Modes::default()
                },
                title: Some(String::new()),
                scroll: 0,
                scrollback: 0,
                pushed: 0,
                kept: 0,
                lines: vec![],
            }),
        ),
        server(
            "image",
            "A 2x1 picture (red, then green) as a PNG, named by its hash.",
            ServerMessage::Image(Image {
                hash: IMAGE_HASH,
                width: 2,
                height: 1,
                png: vec![0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0xf4, 0x22, 0x7f, 0x8a, 0x00, 0x00, 0x00, 0x0e, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8, 0xcf, 0xc0, 0x00, 0x42, 0xff, 0x01, 0x0f, 0xf9, 0x03, 0xfd, 0x98, 0x79, 0xd7, 0x00, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82],
            }),
        ),
        server(
            "frame_image",
            "Two rows of a 16x30-pixel picture (cells of 8x17 pixels) shown 2 columns wide from column 3 over text, and a picture under the text of row 1 (z -1), cut to columns 5-7: source rectangles in 1/16 pixels, the second row's reaching past the picture's bottom.",
            ServerMessage::Frame(Frame {
                seq: 12,
                cols: 20,
                rows: 3,
                full: false,
                cursor: cursor(2, 0),
                modes: shell_modes(),
                title: None,
                scroll: 0,
                scrollback: 0,
                pushed: 0,
                kept: 0,
                lines: vec![
                    row(
                        0,
                        line(20, false, &[("$ show", 0)]).with_images(vec![ImagePiece {
                            hash: IMAGE_HASH,
                            z: 0,
                            col: 3,
                            cols: 2,
                            src: [0, 0, 256, 272],
                        }]),
                    ),
                    row(
                        1,
                        line(20, false, &[("text over", 0)]).with_images(vec![
                            ImagePiece {
                                hash: [0xab; 16],
                                z: -1,
                                col: 5,
                                cols: 3,
                                src: [640, 0, 384, 272],
                            },
                            ImagePiece {
                                hash: IMAGE_HASH,
                                z: 0,
                                col: 3,
                                cols: 2,
                                src: [0, 272, 256, 272],
                            },
                        ]),
                    ),
                ],
            }),
        ),
        server("bell", "The program rang the bell.", ServerMessage::Bell),
        server(
            "exit_code",
            "The program exited with status 1.",
            ServerMessage::Exit { code: Some(1) },
        ),
        server(
            "exit_signal",
            "A signal killed the program: no exit code.",
            ServerMessage::Exit { code: None },
        ),
        server(
            "error_not_found",
            "Error 4004 (session not found), sent before closing with 4004.",
            ServerMessage::Error {
                code: close::SESSION_NOT_FOUND,
                message: "session not found: s-000".into(),
            },
        ),
        server(
            "scrollback",
            "Three scrollback lines answering a request for start=1: lines[0] is just above the screen.",
            ServerMessage::Scrollback(Scrollback {
                total: 1500,
                start: 1,
                cols: 80,
                lines: vec![
                    line(80, false, &[("make: *** [all] Error 2", 2)]),
                    Line::default(),
                    line(80, false, &[("$ make", 0)]),
                ],
            }),
        ),
        server(
            "pong",
            "Answer to a ping with the largest token (a 10-byte varint).",
            ServerMessage::Pong { token: u64::MAX },
        ),
        server(
            "sync",
            "Where the connection stands: a revision with a three-byte varint, input 17 applied, a password prompt (echo known off, canonical).",
            ServerMessage::Sync(Sync {
                revision: Revision {
                    generation: 300,
                    scroll_count: 2,
                    pushes: 70000,
                    style_epoch: 0,
                    cols: 80,
                    rows: 24,
                },
                input: 17,
                echo: Echo {
                    known: true,
                    echo: false,
                    canonical: true,
                    barred: false,
                },
            }),
        ),
        server(
            "sync_barred",
            "A session whose profile bars prediction, at a shell's raw prompt: nothing sent yet (input 0).",
            ServerMessage::Sync(Sync {
                revision: Revision {
                    generation: 1,
                    scroll_count: 0,
                    pushes: 0,
                    style_epoch: 1,
                    cols: 132,
                    rows: 43,
                },
                input: 0,
                echo: Echo {
                    known: true,
                    echo: false,
                    canonical: false,
                    barred: true,
                },
            }),
        ),
        server(
            "clipboard",
            "A program set the clipboard (OSC 52) to non-ASCII text with a newline.",
            ServerMessage::Clipboard {
                text: "ls -l\nÉté".to_owned(),
            },
        ),
        server(
            "file_offer",
            "A program offered a file (OSC 1337 File, inline=0): a non-ASCII name, bytes that are not text.",
            ServerMessage::FileOffer {
                name: "résumé.bin".to_owned(),
                data: vec![0x00, 0xff, 0x0a, b'o', b'k'],
            },
        ),
        server(
            "presence",
            "Three viewers and one controller.",
            ServerMessage::Presence {
                view: 3,
                control: 1,
            },
        ),
        server(
            "room",
            "Alice (a person) drives, with this connection; a key with two view connections; an unlabelled link; 3 more not listed.",
            ServerMessage::Room(Room {
                policy: SizePolicy::Driver,
                you_drive: true,
                entries: vec![
                    RoomEntry {
                        name: "alice".to_owned(),
                        kind: MemberKind::Person,
                        role: Role::Control,
                        drives: true,
                        connections: 1,
                    },
                    RoomEntry {
                        name: "ci".to_owned(),
                        kind: MemberKind::Key,
                        role: Role::View,
                        drives: false,
                        connections: 2,
                    },
                    RoomEntry {
                        name: String::new(),
                        kind: MemberKind::Link,
                        role: Role::View,
                        drives: false,
                        connections: 1,
                    },
                ],
                unlisted: 3,
            }),
        ),
        client(
            "take_control",
            "This connection drives the size from now on.",
            ClientMessage::TakeControl,
        ),
        client(
            "key_ctrl_c",
            "Ctrl+C.",
            ClientMessage::Key {
                key: Key::Char('c'),
                mods: Modifiers::CTRL,
                event: KeyEvent::Press,
            },
        ),
        client(
            "key_enter",
            "Enter without modifiers.",
            ClientMessage::Key {
                key: Key::Named(NamedKey::Enter),
                mods: Modifiers::NONE,
                event: KeyEvent::Press,
            },
        ),
        client(
            "key_shift_f12",
            "Shift+F12.",
            ClientMessage::Key {
                key: Key::Named(NamedKey::F12),
                mods: Modifiers::SHIFT,
                event: KeyEvent::Press,
            },
        ),
        client(
            "key_alt_e_acute",
            "Alt+é: a non-ASCII character (U+00E9, a two-byte varint).",
            ClientMessage::Key {
                key: Key::Char('é'),
                mods: Modifiers::ALT,
                event: KeyEvent::Press,
            },
        ),
        client(
            "key_kp_enter_meta",
            "Keypad Enter with Ctrl and Meta.",
            ClientMessage::Key {
                key: Key::Named(NamedKey::KpEnter),
                mods: Modifiers::CTRL | Modifiers::META,
                event: KeyEvent::Press,
            },
        ),
        client(
            "key_release_shift_a",
            "Shift+A released (event 2 in bits 4-5 of the modifier byte), sent while the frame's modes ask for key releases.",
            ClientMessage::Key {
                key: Key::Char('A'),
                mods: Modifiers::SHIFT,
                event: KeyEvent::Release,
            },
        ),
        client(
            "key_repeat_left",
            "Arrow left auto-repeated (event 1), sent while the frame's modes ask for key releases.",
            ClientMessage::Key {
                key: Key::Named(NamedKey::Left),
                mods: Modifiers::NONE,
                event: KeyEvent::Repeat,
            },
        ),
        client(
            "key_release_control_right",
            "Right Control released alone (a modifier key, 0x63; Ctrl no longer held), sent while the frame's modes ask for all keys and releases.",
            ClientMessage::Key {
                key: Key::Named(NamedKey::ControlRight),
                mods: Modifiers::NONE,
                event: KeyEvent::Release,
            },
        ),
        client(
            "text",
            "Text committed by an input method.",
            ClientMessage::Text {
                text: "日本語 ok".into(),
            },
        ),
        client(
            "paste",
            "A multi-line paste.",
            ClientMessage::Paste {
                text: "echo one\necho two\n".into(),
            },
        ),
        client(
            "mouse_press",
            "Left button pressed over row 5, column 130.",
            ClientMessage::Mouse(MouseEvent {
                kind: MouseKind::Press,
                button: MouseButton::Left,
                row: 5,
                col: 130,
                mods: Modifiers::NONE,
            }),
        ),
        client(
            "mouse_drag",
            "The pointer moved with the right button held, Shift down.",
            ClientMessage::Mouse(MouseEvent {
                kind: MouseKind::Move,
                button: MouseButton::Right,
                row: 10,
                col: 3,
                mods: Modifiers::SHIFT,
            }),
        ),
        client(
            "mouse_wheel",
            "Wheel down one notch with Ctrl.",
            ClientMessage::Mouse(MouseEvent {
                kind: MouseKind::WheelDown,
                button: MouseButton::None,
                row: 0,
                col: 0,
                mods: Modifiers::CTRL,
            }),
        ),
        client(
            "resize",
            "The viewport is now 132x43.",
            ClientMessage::Resize {
                cols: 132,
                rows: 43,
            },
        ),
        client(
            "scrollback_request",
            "Ask for the 100 scrollback lines just above the screen.",
            ClientMessage::ScrollbackRequest {
                start: 1,
                count: 100,
            },
        ),
        client(
            "focus_in",
            "The window gained focus.",
            ClientMessage::Focus { focused: true },
        ),
        client(
            "focus_out",
            "The window lost focus.",
            ClientMessage::Focus { focused: false },
        ),
        client(
            "ping",
            "Ping with token 1700000000000.",
            ClientMessage::Ping {
                token: 1_700_000_000_000,
            },
        ),
        client(
            "received",
            "The client has had 70000 bytes (a three-byte varint).",
            ClientMessage::Received { bytes: 70_000 },
        ),
        client(
            "theme_light",
            "The control viewer paints the light theme.",
            ClientMessage::Theme {
                theme: Theme::Light,
            },
        ),
        client(
            "replay_play",
            "Play the replay.",
            ClientMessage::Replay(ReplayControl::Play),
        ),
        client(
            "replay_pause",
            "Pause the replay.",
            ClientMessage::Replay(ReplayControl::Pause),
        ),
        client(
            "replay_speed",
            "Play at 2x (200 percent).",
            ClientMessage::Replay(ReplayControl::Speed(200)),
        ),
        client(
            "replay_seek",
            "Go to 90.5 s from the start.",
            ClientMessage::Replay(ReplayControl::Seek(90_500)),
        ),
        client(
            "replay_marker_next",
            "Go to the next marker.",
            ClientMessage::Replay(ReplayControl::Marker(true)),
        ),
        client(
            "replay_marker_previous",
            "Go to the previous marker.",
            ClientMessage::Replay(ReplayControl::Marker(false)),
        ),
        server(
            "replay_state",
            "Paused at 1.5 s of 2 min 10 s at 1x, two markers, one with a non-ASCII label.",
            ServerMessage::ReplayState(ReplayState {
                title: "deploy".into(),
                duration_ms: 130_000,
                position_ms: 1_500,
                playing: false,
                speed: 100,
                markers: vec![
                    ReplayMarker {
                        time_ms: 1_000,
                        label: "build".into(),
                    },
                    ReplayMarker {
                        time_ms: 125_250,
                        label: "tests passed ✓".into(),
                    },
                ],
            }),
        ),
    ]
}

// ---- describing messages as JSON ----

/// Bytes as lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn u64_json(value: u64) -> Value {
    Value::String(value.to_string())
}

fn color_json(color: Color) -> Value {
    match color {
        Color::Default => json!("default"),
        Color::Indexed(i) => json!({ "indexed": i }),
        Color::Rgb(r, g, b) => json!({ "rgb": [r, g, b] }),
    }
}

fn attrs_json(attrs: Attrs) -> Value {
    let names = [
        (Attrs::BOLD, "bold"),
        (Attrs::DIM, "dim"),
        (Attrs::ITALIC, "italic"),
        (Attrs::BLINK, "blink"),
        (Attrs::INVERSE, "inverse"),
        (Attrs::INVISIBLE, "invisible"),
        (Attrs::STRIKE, "strike"),
    ];
    names
        .iter()
        .filter(|(bit, _)| attrs.contains(*bit))
        .map(|(_, name)| json!(name))
        .collect()
}

fn mods_json(mods: Modifiers) -> Value {
    let names = [
        (Modifiers::SHIFT, "shift"),
        (Modifiers::ALT, "alt"),
        (Modifiers::CTRL, "ctrl"),
        (Modifiers::META, "meta"),
    ];
    names
        .iter()
        .filter(|(bit, _)| mods.contains(*bit))
        .map(|(_, name)| json!(name))
        .collect()
}

fn style_json(style: &Style) -> Value {
    let underline = match style.underline {
        UnderlineKind::None => "none",
        UnderlineKind::Single => "single",
        UnderlineKind::Double => "double",
        UnderlineKind::Curly => "curly",
        UnderlineKind::Dotted => "dotted",
        UnderlineKind::Dashed => "dashed",
    };
    json!({
        "fg": color_json(style.fg),
        "bg": color_json(style.bg),
        "underline_color": color_json(style.underline_color),
        "attrs": attrs_json(style.attrs),
        "underline": underline,
        "link": style.link,
    })
}

fn line_json(line: &Line) -> Value {
    json!({
        "wrapped": line.wrapped(),
        "text": line.text(),
        "wide": line.wide_runs().iter().map(|w| json!([w.col, w.count])).collect::<Vec<_>>(),
        "clusters": line.clusters().iter().map(|c| json!([c.col, c.codepoints])).collect::<Vec<_>>(),
        "runs": line.runs().iter().map(|r| json!([r.len, r.style])).collect::<Vec<_>>(),
        "columns": line.columns(),
        "fill": line.fill(),
        "images": line.images().iter().map(|p| json!({
            "hash": hex(&p.hash),
            "z": p.z,
            "col": p.col,
            "cols": p.cols,
            "src": p.src,
        })).collect::<Vec<_>>(),
        "cells": line.cells().map(|c| json!({
            "col": c.col,
            "text": c.text,
            "width": c.width,
            "style": c.style,
        })).collect::<Vec<_>>(),
    })
}

fn server_json(message: &ServerMessage) -> (&'static str, Value) {
    match message {
        ServerMessage::Hello(h) => (
            "hello",
            json!({
                "version": h.version,
                "session_id": h.session_id,
                "role": match h.role { Role::View => "view", Role::Control => "control" },
                "cols": h.cols,
                "rows": h.rows,
            }),
        ),
        ServerMessage::Styles(s) => (
            "styles",
            json!({
                "reset": s.reset,
                "epoch": s.epoch,
                "defs": s.defs.iter().map(|d| json!({ "id": d.id, "style": style_json(&d.style) })).collect::<Vec<_>>(),
            }),
        ),
        ServerMessage::Frame(f) => {
            let shape = match f.cursor.shape {
                CursorShape::Block => "block",
                CursorShape::Underline => "underline",
                CursorShape::Bar => "bar",
            };
            let mouse = match f.modes.mouse {
                MouseTracking::Off => "off",
                MouseTracking::Press => "press",
                MouseTracking::Click => "click",
                MouseTracking::Drag => "drag",
                MouseTracking::Motion => "motion",
            };
            let lines: Vec<Value> = f
                .lines
                .iter()
                .map(|l| json!({ "row": l.row, "line": line_json(&l.line) }))
                .collect();
            (
                "frame",
                json!({
                    "seq": u64_json(f.seq),
                    "cols": f.cols,
                    "rows": f.rows,
                    "full": f.full,
                    "cursor": {
                        "row": f.cursor.row,
                        "col": f.cursor.col,
                        "visible": f.cursor.visible,
                        "blink": f.cursor.blink,
                        "shape": shape,
                    },
                    "modes": {
                        "app_cursor": f.modes.app_cursor,
                        "bracketed_paste": f.modes.bracketed_paste,
                        "app_keypad": f.modes.app_keypad,
                        "alt_screen": f.modes.alt_screen,
                        "focus_events": f.modes.focus_events,
                        "mouse_sgr": f.modes.mouse_sgr,
                        "reverse_video": f.modes.reverse_video,
                        "mouse": mouse,
                        "key_releases": f.modes.key_releases,
                        "key_all": f.modes.key_all,
                    },
                    "title": f.title,
                    "scroll": f.scroll,
                    "scrollback": f.scrollback,
                    "pushed": f.pushed,
                    "kept": f.kept,
                    "lines": lines,
                }),
            )
        }
        ServerMessage::Bell => ("bell", json!({})),
        ServerMessage::Exit { code } => ("exit", json!({ "code": code })),
        ServerMessage::Error { code, message } => {
            ("error", json!({ "code": code, "message": message }))
        }
        ServerMessage::Scrollback(s) => (
            "scrollback",
            json!({
                "total": u64_json(s.total),
                "start": u64_json(s.start),
                "cols": s.cols,
                "lines": s.lines.iter().map(line_json).collect::<Vec<_>>(),
            }),
        ),
        ServerMessage::Pong { token } => ("pong", json!({ "token": u64_json(*token) })),
        ServerMessage::Sync(sync) => (
            "sync",
            json!({
                "revision": {
                    "generation": u64_json(sync.revision.generation),
                    "scroll_count": u64_json(sync.revision.scroll_count),
                    "pushes": u64_json(sync.revision.pushes),
                    "style_epoch": sync.revision.style_epoch,
                    "cols": sync.revision.cols,
                    "rows": sync.revision.rows,
                },
                "input": u64_json(sync.input),
                "echo": {
                    "known": sync.echo.known,
                    "echo": sync.echo.echo,
                    "canonical": sync.echo.canonical,
                    "barred": sync.echo.barred,
                },
            }),
        ),
        ServerMessage::Clipboard { text } => ("clipboard", json!({ "text": text })),
        ServerMessage::FileOffer { name, data } => (
            "file_offer",
            json!({
                "name": name,
                "data_hex": hex(data),
            }),
        ),
        ServerMessage::Image(i) => (
            "image",
            json!({
                "hash": hex(&i.hash),
                "width": i.width,
                "height": i.height,
                "png_hex": hex(&i.png),
            }),
        ),
        ServerMessage::Presence { view, control } => {
            ("presence", json!({ "view": view, "control": control }))
        }
        ServerMessage::Room(r) => (
            "room",
            json!({
                "policy": r.policy.name(),
                "you_drive": r.you_drive,
                "entries": r.entries.iter().map(|e| json!({
                    "name": e.name,
                    "kind": e.kind.name(),
                    "role": match e.role { Role::View => "view", Role::Control => "control" },
                    "drives": e.drives,
                    "connections": e.connections,
                })).collect::<Vec<_>>(),
                "unlisted": r.unlisted,
            }),
        ),
        ServerMessage::ReplayState(r) => (
            "replay_state",
            json!({
                "title": r.title,
                "duration_ms": u64_json(r.duration_ms),
                "position_ms": u64_json(r.position_ms),
                "playing": r.playing,
                "speed": r.speed,
                "markers": r.markers.iter().map(|m| json!({ "time_ms": u64_json(m.time_ms), "label": m.label })).collect::<Vec<_>>(),
            }),
        ),
    }
}

fn client_json(message: &ClientMessage) -> (&'static str, Value) {
    match message {
        ClientMessage::Key { key, mods, event } => {
            let key = match key {
                Key::Char(ch) => json!({ "char": ch.to_string() }),
                Key::Named(named) => json!({ "named": named.name() }),
            };
            let event = match event {
                KeyEvent::Press => "press",
                KeyEvent::Repeat => "repeat",
                KeyEvent::Release => "release",
            };
            let message = json!({ "key": key, "mods": mods_json(*mods), "event": event });
            ("key", message)
        }
        ClientMessage::Text { text } => ("text", json!({ "text": text })),
        ClientMessage::Paste { text } => ("paste", json!({ "text": text })),
        ClientMessage::Mouse(m) => {
            let kind = match m.kind {
                MouseKind::Press => "press",
                MouseKind::Release => "release",
                MouseKind::Move => "move",
                MouseKind::WheelUp => "wheel_up",
                MouseKind::WheelDown => "wheel_down",
                MouseKind::WheelLeft => "wheel_left",
                MouseKind::WheelRight => "wheel_right",
            };
            let button = match m.button {
                MouseButton::None => "none",
                MouseButton::Left => "left",
                MouseButton::Middle => "middle",
                MouseButton::Right => "right",
            };
            (
                "mouse",
                json!({
                    "kind": kind,
                    "button": button,
                    "row": m.row,
                    "col": m.col,
                    "mods": mods_json(m.mods),
                }),
            )
        }
        ClientMessage::Resize { cols, rows } => ("resize", json!({ "cols": cols, "rows": rows })),
        ClientMessage::ScrollbackRequest { start, count } => (
            "scrollback_request",
            json!({ "start": u64_json(*start), "count": count }),
        ),
        ClientMessage::Focus { focused } => ("focus", json!({ "focused": focused })),
        ClientMessage::Ping { token } => ("ping", json!({ "token": u64_json(*token) })),
        ClientMessage::Received { bytes } => ("received", json!({ "bytes": u64_json(*bytes) })),
        ClientMessage::Theme { theme } => ("theme", json!({ "theme": theme.name() })),
        ClientMessage::TakeControl => ("take_control", json!({})),
        ClientMessage::Replay(control) => match control {
            ReplayControl::Play => ("replay_play", json!({})),
            ReplayControl::Pause => ("replay_pause", json!({})),
            ReplayControl::Speed(speed) => ("replay_speed", json!({ "speed": speed })),
            ReplayControl::Seek(ms) => ("replay_seek", json!({ "ms": u64_json(*ms) })),
            ReplayControl::Marker(forward) => ("replay_marker", json!({ "forward": forward })),
        },
    }
}

/// The JSON description of a message (without name and description).
fn describe(message: &Message, bytes: &[u8]) -> Value {
    let (direction, (ty, fields)) = match message {
        Message::Server(m) => ("server_to_client", server_json(m)),
        Message::Client(m) => ("client_to_server", client_json(m)),
        Message::Deflated(frame) => (
            "server_to_client",
            server_json(&ServerMessage::Frame(frame.clone())),
        ),
    };
    json!({
        "direction": direction,
        "type": ty,
        "type_byte": bytes.first(),
        "message": fields,
    })
}

fn case_json(case: &Case) -> Value {
    let bytes = case.message.encode();
    let mut value = describe(&case.message, &bytes);
    value["name"] = json!(case.name);
    value["description"] = json!(case.description);
    value["size"] = json!(bytes.len());
    value
}

// ---- the tests ----

/// The committed `.bin` files, sorted by name.
fn committed() -> Vec<(String, Vec<u8>, Value)> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .expect("vectors directory")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == "bin").then(|| path.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let bin = std::fs::read(dir().join(format!("{name}.bin"))).expect("read .bin");
            let text =
                std::fs::read_to_string(dir().join(format!("{name}.json"))).expect("read .json");
            let json: Value = serde_json::from_str(&text).expect("parse .json");
            (name, bin, json)
        })
        .collect()
}

#[test]
fn committed_vectors_decode_to_their_description() {
    let vectors = committed();
    assert!(vectors.len() >= 30, "only {} vectors", vectors.len());
    for (name, bin, json) in vectors {
        assert_eq!(json["name"], json!(name), "{name}: name field");
        assert_eq!(json["size"], json!(bin.len()), "{name}: size field");
        let message = match json["direction"].as_str() {
            Some("server_to_client") => {
                match ServerMessage::decode(&bin).unwrap_or_else(|e| panic!("{name}: {e}")) {
                    ServerMessage::Frame(frame) if bin[0] == 0x0F => Message::Deflated(frame),
                    message => Message::Server(message),
                }
            }
            Some("client_to_server") => Message::Client(
                ClientMessage::decode(&bin).unwrap_or_else(|e| panic!("{name}: {e}")),
            ),
            other => panic!("{name}: bad direction {other:?}"),
        };
        let described = describe(&message, &bin);
        for field in ["direction", "type", "type_byte", "message"] {
            assert_eq!(described[field], json[field], "{name}: {field}");
        }
        assert_eq!(message.encode(), bin, "{name}: re-encoding");
    }
}

#[test]
fn committed_vectors_match_the_cases() {
    let cases = cases();
    let committed = committed();
    let mut case_names: Vec<&str> = cases.iter().map(|c| c.name).collect();
    case_names.sort();
    let file_names: Vec<&str> = committed.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(case_names, file_names, "cases and committed files differ");
    for case in &cases {
        let (_, bin, json) = committed
            .iter()
            .find(|(name, _, _)| name == case.name)
            .expect("committed");
        assert_eq!(&case.message.encode(), bin, "{}: bytes", case.name);
        assert_eq!(&case_json(case), json, "{}: description", case.name);
    }
}

#[test]
fn every_message_type_has_a_vector() {
    let mut types: Vec<u8> = cases().iter().map(|c| c.message.encode()[0]).collect();
    types.sort();
    types.dedup();
    assert_eq!(
        types,
        [
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
            0x0f, 0x10, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c,
            0x8d, 0x8e, 0x8f, 0x90
        ]
    );
}

/// Rewrites `vectors/` from the cases. Ignored: run it on purpose (see the
/// module docs), then review and commit the diff.
#[test]
#[ignore = "a tool, not a test: rewrites vectors/ on purpose (cargo test -- --ignored regenerate_vectors)"]
fn regenerate_vectors() {
    for entry in std::fs::read_dir(dir()).expect("vectors directory") {
        let path = entry.expect("entry").path();
        if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("bin" | "json")
        ) {
            std::fs::remove_file(&path).expect("remove old vector");
        }
    }
    for case in cases() {
        std::fs::write(
            dir().join(format!("{}.bin", case.name)),
            case.message.encode(),
        )
        .expect("write .bin");
        let mut text = serde_json::to_string_pretty(&case_json(&case)).expect("json");
        text.push('\n');
        std::fs::write(dir().join(format!("{}.json", case.name)), text).expect("write .json");
    }
}

//! Round trips for every message type, exact bytes for a few, and the typed
//! errors for malformed input.

use panecast_proto::limits::{MAX_CLIENT_MESSAGE, MAX_TEXT, MAX_TITLE};
use panecast_proto::*;

fn server_round_trip(message: ServerMessage) -> Vec<u8> {
    let bytes = message.encode();
    assert_eq!(ServerMessage::decode(&bytes), Ok(message));
    bytes
}

fn client_round_trip(message: ClientMessage) -> Vec<u8> {
    let bytes = message.encode();
    assert_eq!(ClientMessage::decode(&bytes), Ok(message));
    bytes
}

fn line(cols: u16, cells: &[(&str, u8, u32)]) -> Line {
    Line::from_cells(cols, false, cells.iter().copied()).unwrap()
}

fn frame() -> Frame {
    Frame {
        seq: 7,
        cols: 10,
        rows: 3,
        full: false,
        cursor: Cursor {
            row: 2,
            col: 9,
            visible: true,
            blink: true,
            shape: CursorShape::Bar,
        },
        modes: Modes {
            bracketed_paste: true,
            mouse: MouseTracking::Motion,
            mouse_sgr: true,
            ..Modes::default()
        },
        title: Some("top".into()),
        scroll: 1,
        scrollback: 10_000,
        pushed: 1,
        kept: 1,
        lines: vec![
            FrameLine {
                row: 0,
                line: line(10, &[("a", 1, 1), ("你", 2, 2)]),
            },
            FrameLine {
                row: 2,
                line: line(10, &[("e\u{301}", 1, 0)]),
            },
        ],
    }
}

#[test]
fn hello_round_trips_with_exact_bytes() {
    let bytes = server_round_trip(ServerMessage::Hello(Hello {
        version: PROTOCOL_VERSION,
        session_id: "ab".into(),
        role: Role::Control,
        cols: 80,
        rows: 24,
    }));
    assert_eq!(bytes, [0x01, 0x01, 0x00, 0x01, 80, 24, 0x02, b'a', b'b']);
    server_round_trip(ServerMessage::Hello(Hello {
        version: PROTOCOL_VERSION,
        session_id: String::new(),
        role: Role::View,
        cols: 1000,
        rows: 1,
    }));
}

#[test]
fn hello_with_another_version_is_unsupported() {
    assert_eq!(
        ServerMessage::decode(&[0x01, 0x02, 0x00, 0x01, 80, 24, 0x00]),
        Err(DecodeError::UnsupportedVersion(2))
    );
}

#[test]
fn styles_round_trip() {
    let bytes = server_round_trip(ServerMessage::Styles(Styles {
        reset: false,
        epoch: 0,
        defs: vec![StyleDef {
            id: 1,
            style: Style {
                fg: Color::Indexed(1),
                attrs: Attrs::BOLD,
                ..Style::default()
            },
        }],
    }));
    assert_eq!(
        bytes,
        [0x02, 0x00, 0x00, 0x01, 0x01, 0x01, 0x00, 0x01, 0x01, 0x00, 0x00]
    );
    server_round_trip(ServerMessage::Styles(Styles {
        reset: true,
        epoch: u32::MAX,
        defs: vec![
            StyleDef {
                id: 300,
                style: Style {
                    fg: Color::Rgb(1, 2, 3),
                    bg: Color::Indexed(236),
                    underline_color: Color::Rgb(255, 0, 0),
                    attrs: Attrs::ALL,
                    underline: UnderlineKind::Dashed,
                    link: Some("https://example.com/?q=ü".into()),
                },
            },
            StyleDef {
                id: u32::MAX,
                style: Style {
                    link: Some(String::new()),
                    ..Style::default()
                },
            },
        ],
    }));
    server_round_trip(ServerMessage::Styles(Styles::default()));
}

#[test]
fn style_id_zero_cannot_be_redefined() {
    assert_eq!(
        ServerMessage::decode(&[0x02, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
        Err(DecodeError::OutOfRange { field: "style id" })
    );
}

#[test]
fn frame_round_trips() {
    server_round_trip(ServerMessage::Frame(frame()));
    server_round_trip(ServerMessage::Frame(Frame {
        seq: u64::MAX,
        cols: 1,
        rows: 1,
        full: true,
        ..Frame::default()
    }));
}

#[test]
fn a_minimal_frame_has_exact_bytes() {
    let bytes = server_round_trip(ServerMessage::Frame(Frame {
        seq: 0,
        cols: 80,
        rows: 24,
        full: true,
        cursor: Cursor {
            row: 0,
            col: 2,
            visible: true,
            ..Cursor::default()
        },
        lines: vec![FrameLine {
            row: 0,
            line: line(80, &[("$", 1, 0), (" ", 1, 0), (" ", 1, 0)]),
        }],
        ..Frame::default()
    }));
    assert_eq!(
        bytes,
        [
            0x03, // Frame
            0x00, // seq
            80, 24,   // cols, rows
            0x01, // flags: full
            0x04, 0x00, 0x02, // cursor: visible block at (0, 2)
            0x00, // modes
            0x00, // scroll
            0x00, // scrollback
            0x00, // pushed
            0x00, // kept
            0x01, // one line
            0x00, 0x00, 0x01, b'$', 0x00, // row 0: "$", default style
        ]
    );
}

#[test]
fn frame_fields_are_range_checked() {
    let mut bytes = encode_frame(&frame());
    // cols (byte 2) = 0.
    bytes[2] = 0;
    assert_eq!(
        ServerMessage::decode(&bytes),
        Err(DecodeError::OutOfRange { field: "cols" })
    );

    let mut bad = frame();
    bad.cursor.row = 3;
    assert_eq!(
        ServerMessage::decode(&encode_frame(&bad)),
        Err(DecodeError::OutOfRange {
            field: "cursor row"
        })
    );

    let mut bad = frame();
    bad.lines.swap(0, 1);
    assert_eq!(
        ServerMessage::decode(&encode_frame(&bad)),
        Err(DecodeError::OutOfRange { field: "line row" })
    );

    let mut bad = frame();
    bad.full = true;
    assert_eq!(
        ServerMessage::decode(&encode_frame(&bad)),
        Err(DecodeError::OutOfRange { field: "scroll" })
    );

    let mut bad = frame();
    bad.scroll = 0;
    bad.full = true;
    assert_eq!(
        ServerMessage::decode(&encode_frame(&bad)),
        Err(DecodeError::OutOfRange { field: "pushed" })
    );

    let mut bad = frame();
    bad.kept = 2;
    assert_eq!(
        ServerMessage::decode(&encode_frame(&bad)),
        Err(DecodeError::OutOfRange { field: "kept" }),
        "kept is at most pushed"
    );

    let mut bad = frame();
    bad.pushed = 10;
    bad.kept = 4;
    assert_eq!(
        ServerMessage::decode(&encode_frame(&bad)),
        Err(DecodeError::OutOfRange { field: "kept" }),
        "kept is at most rows"
    );

    let mut bad = frame();
    bad.title = Some("x".repeat(MAX_TITLE + 1));
    assert_eq!(
        ServerMessage::decode(&encode_frame(&bad)),
        Err(DecodeError::TooLarge {
            field: "title",
            len: MAX_TITLE as u64 + 1,
            max: MAX_TITLE as u64
        })
    );

    let mut bad = frame();
    bad.cols = 2; // line 0 ("a" and a wide cell) needs 3 columns.
    bad.cursor.col = 0;
    assert_eq!(
        ServerMessage::decode(&encode_frame(&bad)),
        Err(DecodeError::InvalidLine("line wider than the screen"))
    );
}

/// Encodes a frame on its own, without wrapping it in a `ServerMessage`.
fn encode_frame(frame: &Frame) -> Vec<u8> {
    let mut out = Vec::new();
    frame.encode_into(&mut out);
    out
}

#[test]
fn simple_server_messages_round_trip() {
    assert_eq!(server_round_trip(ServerMessage::Bell), [0x04]);
    assert_eq!(
        server_round_trip(ServerMessage::Exit { code: Some(0) }),
        [0x05, 0x01, 0x00]
    );
    assert_eq!(
        server_round_trip(ServerMessage::Exit { code: Some(-1) }),
        [0x05, 0x01, 0x01]
    );
    server_round_trip(ServerMessage::Exit {
        code: Some(i32::MIN),
    });
    assert_eq!(
        server_round_trip(ServerMessage::Exit { code: None }),
        [0x05, 0x00]
    );
    let bytes = server_round_trip(ServerMessage::Error {
        code: close::SESSION_NOT_FOUND,
        message: "no".into(),
    });
    assert_eq!(bytes, [0x06, 0xa4, 0x1f, 0x02, b'n', b'o']);
    assert_eq!(
        server_round_trip(ServerMessage::Pong { token: 300 }),
        [0x08, 0xac, 0x02]
    );
    assert_eq!(
        server_round_trip(ServerMessage::Clipboard { text: "hi".into() }),
        [0x09, 0x02, b'h', b'i']
    );
    assert_eq!(
        server_round_trip(ServerMessage::FileOffer {
            name: "a".into(),
            data: vec![0, 1],
        }),
        [0x0d, 0x01, b'a', 0x02, 0x00, 0x01]
    );
}

#[test]
fn scrollback_round_trips() {
    server_round_trip(ServerMessage::Scrollback(Scrollback {
        total: 5000,
        start: 1,
        cols: 10,
        lines: vec![
            line(10, &[("a", 1, 0)]),
            Line::default(),
            Line::from_cells(10, true, [("b", 1, 3)]).unwrap(),
        ],
    }));
    server_round_trip(ServerMessage::Scrollback(Scrollback {
        total: 0,
        start: 9,
        cols: 80,
        lines: vec![],
    }));
    assert_eq!(
        ServerMessage::decode(&[0x07, 0x00, 0x00, 0x50, 0x00]),
        Err(DecodeError::OutOfRange { field: "start" })
    );
}

#[test]
fn key_messages_round_trip() {
    assert_eq!(
        client_round_trip(ClientMessage::Key {
            key: Key::Char('c'),
            mods: Modifiers::CTRL,
            event: KeyEvent::Press,
        }),
        [0x81, 0x00, b'c', 0x04]
    );
    assert_eq!(
        client_round_trip(ClientMessage::Key {
            key: Key::Named(NamedKey::Enter),
            mods: Modifiers::NONE,
            event: KeyEvent::Press,
        }),
        [0x81, 0x01, 0x00]
    );
    client_round_trip(ClientMessage::Key {
        key: Key::Char('\u{10ffff}'),
        mods: Modifiers::ALL,
        event: KeyEvent::Press,
    });
    for &named in NamedKey::ALL {
        client_round_trip(ClientMessage::Key {
            key: Key::Named(named),
            mods: Modifiers::SHIFT | Modifiers::META,
            event: KeyEvent::Press,
        });
        assert_eq!(NamedKey::from_code(named.code()), Some(named));
    }
    assert_eq!(NamedKey::ALL.len(), 14 + 24 + 17 + 8);
    // The event rides in bits 4-5 of the modifier byte.
    assert_eq!(
        client_round_trip(ClientMessage::Key {
            key: Key::Char('a'),
            mods: Modifiers::SHIFT,
            event: KeyEvent::Release,
        }),
        [0x81, 0x00, b'a', 0x21]
    );
    assert_eq!(
        client_round_trip(ClientMessage::Key {
            key: Key::Named(NamedKey::Escape),
            mods: Modifiers::NONE,
            event: KeyEvent::Repeat,
        }),
        [0x81, 0x04, 0x10]
    );
}

#[test]
fn key_messages_are_range_checked() {
    // A surrogate is not a char.
    assert_eq!(
        ClientMessage::decode(&[0x81, 0x00, 0x80, 0xb0, 0x03, 0x00]),
        Err(DecodeError::OutOfRange { field: "key char" })
    );
    assert_eq!(
        ClientMessage::decode(&[0x81, 0x0f, 0x00]),
        Err(DecodeError::OutOfRange { field: "key" })
    );
    assert_eq!(
        ClientMessage::decode(&[0x81, 0x01, 0x30]),
        Err(DecodeError::OutOfRange { field: "key event" })
    );
    assert_eq!(
        ClientMessage::decode(&[0x81, 0x01, 0xf0]),
        Err(DecodeError::OutOfRange { field: "key event" })
    );
}

#[test]
fn other_client_messages_round_trip() {
    assert_eq!(
        client_round_trip(ClientMessage::Text { text: "hé".into() }),
        [0x82, 0x03, b'h', 0xc3, 0xa9]
    );
    client_round_trip(ClientMessage::Text {
        text: String::new(),
    });
    client_round_trip(ClientMessage::Paste {
        text: "a\nb\x1b[201~".into(),
    });
    assert_eq!(
        client_round_trip(ClientMessage::Mouse(MouseEvent {
            kind: MouseKind::Press,
            button: MouseButton::Left,
            row: 5,
            col: 200,
            mods: Modifiers::NONE,
        })),
        [0x84, 0x00, 0x01, 0x00, 0x05, 0xc8, 0x01]
    );
    client_round_trip(ClientMessage::Mouse(MouseEvent {
        kind: MouseKind::WheelRight,
        button: MouseButton::None,
        row: 999,
        col: 999,
        mods: Modifiers::ALT,
    }));
    assert_eq!(
        client_round_trip(ClientMessage::Resize {
            cols: 120,
            rows: 40
        }),
        [0x85, 120, 40]
    );
    client_round_trip(ClientMessage::ScrollbackRequest {
        start: 1,
        count: 1000,
    });
    assert_eq!(
        client_round_trip(ClientMessage::Focus { focused: true }),
        [0x87, 0x01]
    );
    client_round_trip(ClientMessage::Focus { focused: false });
    client_round_trip(ClientMessage::Ping { token: u64::MAX });
    for (id, theme) in Theme::ALL.into_iter().enumerate() {
        assert_eq!(
            client_round_trip(ClientMessage::Theme { theme }),
            [0x89, id as u8]
        );
    }
}

#[test]
fn client_messages_are_range_checked() {
    assert_eq!(
        ClientMessage::decode(&[0x85, 0x00, 0x01]),
        Err(DecodeError::OutOfRange { field: "cols" })
    );
    // rows = 1001.
    assert_eq!(
        ClientMessage::decode(&[0x85, 0x01, 0xe9, 0x07]),
        Err(DecodeError::OutOfRange { field: "rows" })
    );
    assert_eq!(
        ClientMessage::decode(&[0x86, 0x01, 0xe9, 0x07]),
        Err(DecodeError::OutOfRange { field: "count" })
    );
    assert_eq!(
        ClientMessage::decode(&[0x86, 0x00, 0x01]),
        Err(DecodeError::OutOfRange { field: "start" })
    );
    assert_eq!(
        ClientMessage::decode(&[0x87, 0x02]),
        Err(DecodeError::OutOfRange { field: "focused" })
    );
    assert_eq!(
        ClientMessage::decode(&[0x89, Theme::ALL.len() as u8]),
        Err(DecodeError::OutOfRange { field: "theme" })
    );
    assert_eq!(
        ClientMessage::decode(&[0x84, 0x07, 0x00, 0x00, 0x00, 0x00]),
        Err(DecodeError::OutOfRange {
            field: "mouse kind"
        })
    );
    assert_eq!(
        ClientMessage::decode(&[0x84, 0x00, 0x04, 0x00, 0x00, 0x00]),
        Err(DecodeError::OutOfRange {
            field: "mouse button"
        })
    );
}

#[test]
fn view_connections_may_only_ping_and_read_scrollback() {
    let ping = ClientMessage::Ping { token: 1 };
    let request = ClientMessage::ScrollbackRequest { start: 1, count: 1 };
    let resize = ClientMessage::Resize { cols: 1, rows: 1 };
    assert!(ping.allowed_for(Role::View, false) && request.allowed_for(Role::View, false));
    assert!(!resize.allowed_for(Role::View, false));
    assert!(resize.allowed_for(Role::Control, false));
    assert!(ClientMessage::Focus { focused: true }.requires_control());
    // A view connection's theme is allowed on the wire, and ignored; so is
    // a replay's.
    let theme = ClientMessage::Theme {
        theme: Theme::Light,
    };
    assert!(theme.allowed_for(Role::View, false) && theme.allowed_for(Role::View, true));
}

#[test]
fn replay_controls_go_to_replays_and_input_to_live_sessions() {
    let play = ClientMessage::Replay(ReplayControl::Play);
    let resize = ClientMessage::Resize { cols: 1, rows: 1 };
    let ping = ClientMessage::Ping { token: 1 };
    assert!(play.allowed_for(Role::View, true) && play.allowed_for(Role::Control, true));
    assert!(!play.allowed_for(Role::View, false) && !play.allowed_for(Role::Control, false));
    assert!(!resize.allowed_for(Role::Control, true));
    assert!(ping.allowed_for(Role::View, true));
}

#[test]
fn replay_controls_round_trip_and_bad_values_are_refused() {
    for control in [
        ReplayControl::Play,
        ReplayControl::Pause,
        ReplayControl::Speed(50),
        ReplayControl::Speed(800),
        ReplayControl::Seek(u64::MAX),
        ReplayControl::Marker(false),
        ReplayControl::Marker(true),
    ] {
        let message = ClientMessage::Replay(control);
        assert_eq!(ClientMessage::decode(&message.encode()), Ok(message));
    }
    let slow = [0x8c, 49];
    assert_eq!(
        ClientMessage::decode(&slow),
        Err(DecodeError::OutOfRange { field: "speed" })
    );
    let fast = [0x8c, 0xa1, 0x06]; // 801
    assert_eq!(
        ClientMessage::decode(&fast),
        Err(DecodeError::OutOfRange { field: "speed" })
    );
    assert!(ClientMessage::decode(&[0x8e, 2]).is_err());
    assert!(ClientMessage::decode(&[0x8a, 0]).is_err(), "trailing byte");
    assert_eq!(
        ClientMessage::decode(&[0x91]),
        Err(DecodeError::UnknownType(0x91))
    );
}

#[test]
fn replay_state_round_trips_and_a_position_past_the_end_is_refused() {
    let state = ReplayState {
        title: "t".into(),
        duration_ms: 90_000,
        position_ms: 1_500,
        playing: true,
        speed: 200,
        markers: vec![ReplayMarker {
            time_ms: 1_000,
            label: "build".into(),
        }],
    };
    let message = ServerMessage::ReplayState(state.clone());
    assert_eq!(ServerMessage::decode(&message.encode()), Ok(message));
    let past = ServerMessage::ReplayState(ReplayState {
        position_ms: 90_001,
        ..state
    });
    assert_eq!(
        ServerMessage::decode(&past.encode()),
        Err(DecodeError::OutOfRange { field: "position" })
    );
}

#[test]
fn empty_and_truncated_messages_are_truncated() {
    assert_eq!(ServerMessage::decode(&[]), Err(DecodeError::Truncated));
    assert_eq!(ClientMessage::decode(&[]), Err(DecodeError::Truncated));
    let bytes = ServerMessage::Frame(frame()).encode();
    for len in 0..bytes.len() {
        assert_eq!(
            ServerMessage::decode(&bytes[..len]),
            Err(DecodeError::Truncated),
            "prefix of {len} bytes"
        );
    }
    // A string whose length runs past the end.
    assert_eq!(
        ClientMessage::decode(&[0x82, 0x05, b'a']),
        Err(DecodeError::Truncated)
    );
}

#[test]
fn unknown_types_are_reported_with_their_byte() {
    assert_eq!(
        ServerMessage::decode(&[0x00]),
        Err(DecodeError::UnknownType(0x00))
    );
    assert_eq!(
        ServerMessage::decode(&[0x81, 0x01, 0x00]),
        Err(DecodeError::UnknownType(0x81))
    );
    assert_eq!(
        ClientMessage::decode(&[0x01]),
        Err(DecodeError::UnknownType(0x01))
    );
    assert_eq!(
        ClientMessage::decode(&[0xff, 1, 2, 3]),
        Err(DecodeError::UnknownType(0xff))
    );
    assert_eq!(DecodeError::UnknownType(0xff).close_code(), 1003);
}

#[test]
fn oversized_input_is_too_large() {
    let big = vec![0x83; MAX_CLIENT_MESSAGE + 1];
    let err = ClientMessage::decode(&big).unwrap_err();
    assert_eq!(
        err,
        DecodeError::TooLarge {
            field: "message",
            len: MAX_CLIENT_MESSAGE as u64 + 1,
            max: MAX_CLIENT_MESSAGE as u64
        }
    );
    assert_eq!(err.close_code(), close::MESSAGE_TOO_BIG);

    // A paste that fills the limit exactly is fine.
    let text = "x".repeat(MAX_CLIENT_MESSAGE - 1 - 3);
    let bytes = client_round_trip(ClientMessage::Paste { text });
    assert_eq!(bytes.len(), MAX_CLIENT_MESSAGE);

    let text = "x".repeat(MAX_TEXT + 1);
    let err = ClientMessage::decode(&ClientMessage::Text { text }.encode()).unwrap_err();
    assert!(matches!(err, DecodeError::TooLarge { field: "text", .. }));
    assert_eq!(err.close_code(), 1009);
}

#[test]
fn overlong_and_overflowing_varints_are_rejected() {
    // Ping token 0 written as two bytes.
    let err = ClientMessage::decode(&[0x88, 0x80, 0x00]).unwrap_err();
    assert_eq!(err, DecodeError::OverlongVarint);
    assert_eq!(err.close_code(), close::PROTOCOL_ERROR);
    // Eleven bytes for a u64.
    let mut bytes = vec![0x88];
    bytes.extend([0xff; 10]);
    bytes.push(0x01);
    assert_eq!(
        ClientMessage::decode(&bytes),
        Err(DecodeError::VarintOverflow)
    );
    // 2^32 where a u32 (the resize width) is expected.
    assert_eq!(
        ClientMessage::decode(&[0x85, 0x80, 0x80, 0x80, 0x80, 0x10, 0x01]),
        Err(DecodeError::VarintOverflow)
    );
}

#[test]
fn invalid_utf8_is_rejected() {
    assert_eq!(
        ClientMessage::decode(&[0x82, 0x02, 0xc3, 0x28]),
        Err(DecodeError::InvalidUtf8 { field: "text" })
    );
    assert_eq!(
        ServerMessage::decode(&[0x06, 0x00, 0x01, 0xff]),
        Err(DecodeError::InvalidUtf8 {
            field: "error message"
        })
    );
}

#[test]
fn trailing_bytes_are_rejected() {
    assert_eq!(
        ServerMessage::decode(&[0x04, 0x00]),
        Err(DecodeError::TrailingBytes(1))
    );
    assert_eq!(
        ClientMessage::decode(&[0x87, 0x01, 0x02, 0x03]),
        Err(DecodeError::TrailingBytes(2))
    );
}

#[test]
fn a_file_offer_with_a_name_too_long_is_refused() {
    let long = ServerMessage::FileOffer {
        name: "x".repeat(panecast_proto::limits::MAX_FILE_NAME + 1),
        data: Vec::new(),
    };
    assert_eq!(
        ServerMessage::decode(&long.encode()),
        Err(DecodeError::TooLarge {
            field: "file name",
            len: panecast_proto::limits::MAX_FILE_NAME as u64 + 1,
            max: panecast_proto::limits::MAX_FILE_NAME as u64
        })
    );
    // A data length past the bytes there is truncated, not allocated.
    assert_eq!(
        ServerMessage::decode(&[0x0d, 0x01, b'a', 0xff, 0xff, 0x03]),
        Err(DecodeError::Truncated)
    );
}

#[test]
fn an_image_out_of_bounds_is_refused() {
    use panecast_proto::limits::{MAX_IMAGE_PNG, MAX_IMAGE_SIDE};
    let image = |width, height, png: Vec<u8>| {
        ServerMessage::Image(Image {
            hash: [9; 16],
            width,
            height,
            png,
        })
    };
    let ok = image(MAX_IMAGE_SIDE, 1, vec![1, 2, 3]);
    assert_eq!(ServerMessage::decode(&ok.encode()), Ok(ok));
    for (width, height) in [(0, 1), (1, 0), (MAX_IMAGE_SIDE + 1, 1)] {
        assert!(matches!(
            ServerMessage::decode(&image(width, height, Vec::new()).encode()),
            Err(DecodeError::OutOfRange { .. })
        ));
    }
    assert_eq!(
        ServerMessage::decode(&image(1, 1, vec![0; MAX_IMAGE_PNG + 1]).encode()),
        Err(DecodeError::TooLarge {
            field: "image png",
            len: MAX_IMAGE_PNG as u64 + 1,
            max: MAX_IMAGE_PNG as u64
        })
    );
    // A hash cut short is truncated.
    assert_eq!(
        ServerMessage::decode(&[0x0e, 1, 2, 3]),
        Err(DecodeError::Truncated)
    );
}

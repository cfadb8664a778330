//! Property tests: the decoders never panic, and encoding then decoding gives
//! back the message.

use panecast_proto::*;
use proptest::prelude::*;
use proptest::sample::select;

/// A cell as `(text, width, style)`.
type CellSpec = (String, u8, u32);

fn cell() -> impl Strategy<Value = CellSpec> {
    let text = prop_oneof![
        4 => (0x20u8..0x7f).prop_map(|b| ((char::from(b)).to_string(), 1u8)),
        1 => (0x4e00u32..0x9fa5).prop_map(|c| (char::from_u32(c).unwrap_or('中').to_string(), 2)),
        1 => select(vec!["e\u{301}", "a\u{308}\u{304}", "\u{0915}\u{093f}"]).prop_map(|s| (s.to_owned(), 1)),
        1 => select(vec!["👍🏽", "👨\u{200d}👩\u{200d}👧", "🇫🇷"]).prop_map(|s| (s.to_owned(), 2)),
        2 => select(vec!["", " ", "\0"]).prop_map(|s| (s.to_owned(), 1)),
    ];
    (text, 0u32..4).prop_map(|((text, width), style)| (text, width, style))
}

/// Pushes cells until the line is full; returns the line and the cells taken.
fn build(cols: u16, wrapped: bool, cells: &[CellSpec]) -> (Line, Vec<CellSpec>) {
    let mut builder = LineBuilder::new(cols);
    let mut taken = Vec::new();
    for (text, width, style) in cells {
        if builder.push(text, *width, *style).is_err() {
            break;
        }
        taken.push((text.clone(), *width, *style));
    }
    (builder.finish(wrapped), taken)
}

/// An image piece within `cols` columns.
fn piece(cols: u16) -> impl Strategy<Value = ImagePiece> {
    (0..cols).prop_flat_map(move |col| {
        (
            any::<[u8; 16]>(),
            any::<i32>(),
            1..=cols - col,
            any::<[u32; 2]>(),
            1..=u32::MAX,
            1..=u32::MAX,
        )
            .prop_map(move |(hash, z, width, [x, y], w, h)| ImagePiece {
                hash,
                z,
                col,
                cols: width,
                src: [x, y, w, h],
            })
    })
}

fn line(cols: u16) -> impl Strategy<Value = Line> {
    (
        any::<bool>(),
        prop::collection::vec(cell(), 0..48),
        prop::collection::vec(piece(cols), 0..3),
    )
        .prop_map(move |(wrapped, cells, images)| {
            build(cols, wrapped, &cells).0.with_images(images)
        })
}

fn color() -> impl Strategy<Value = Color> {
    prop_oneof![
        Just(Color::Default),
        any::<u8>().prop_map(Color::Indexed),
        any::<(u8, u8, u8)>().prop_map(|(r, g, b)| Color::Rgb(r, g, b)),
    ]
}

fn style() -> impl Strategy<Value = Style> {
    (
        color(),
        color(),
        color(),
        0u8..0x80,
        0u8..6,
        proptest::option::of(".{0,30}"),
    )
        .prop_map(|(fg, bg, underline_color, attrs, underline, link)| Style {
            fg,
            bg,
            underline_color,
            attrs: Attrs::from_bits(attrs).unwrap_or_default(),
            underline: UnderlineKind::from_byte(underline).unwrap_or_default(),
            link,
        })
}

fn frame() -> impl Strategy<Value = Frame> {
    (1u16..=40, 1u16..=12).prop_flat_map(|(cols, rows)| {
        (
            any::<u64>(),
            any::<bool>(),
            (0..rows, 0..cols, any::<bool>(), any::<bool>(), 0u8..3),
            (0u32..1 << 10).prop_filter_map("valid modes", Modes::from_bits),
            proptest::option::of(".{0,20}"),
            0u32..30,
            prop::collection::btree_map(0..rows, line(cols), 0..=usize::from(rows)),
        )
            .prop_map(
                move |(
                    seq,
                    full,
                    (row, col, visible, blink, shape),
                    modes,
                    title,
                    scroll,
                    lines,
                )| {
                    Frame {
                        seq,
                        cols,
                        rows,
                        full,
                        cursor: Cursor {
                            row,
                            col,
                            visible,
                            blink,
                            shape: [CursorShape::Block, CursorShape::Underline, CursorShape::Bar]
                                [usize::from(shape)],
                        },
                        modes,
                        title,
                        scroll: if full { 0 } else { scroll },
                        scrollback: scroll * 1000,
                        pushed: if full { 0 } else { scroll + 3 },
                        kept: if full { 0 } else { scroll.min(u32::from(rows)) },
                        lines: lines
                            .into_iter()
                            .map(|(row, line)| FrameLine { row, line })
                            .collect(),
                    }
                },
            )
    })
}

fn server_message() -> impl Strategy<Value = ServerMessage> {
    prop_oneof![
        (".{0,20}", any::<bool>(), 1u16..=1000, 1u16..=1000).prop_map(
            |(session_id, control, cols, rows)| ServerMessage::Hello(Hello {
                version: PROTOCOL_VERSION,
                session_id,
                role: if control { Role::Control } else { Role::View },
                cols,
                rows,
            })
        ),
        (
            any::<bool>(),
            any::<u32>(),
            prop::collection::vec((1u32.., style()), 0..6)
        )
            .prop_map(|(reset, epoch, defs)| ServerMessage::Styles(Styles {
                reset,
                epoch,
                defs: defs
                    .into_iter()
                    .map(|(id, style)| StyleDef { id, style })
                    .collect(),
            })),
        frame().prop_map(ServerMessage::Frame),
        Just(ServerMessage::Bell),
        proptest::option::of(any::<i32>()).prop_map(|code| ServerMessage::Exit { code }),
        (any::<u16>(), ".{0,40}")
            .prop_map(|(code, message)| ServerMessage::Error { code, message }),
        (1u16..=40).prop_flat_map(|cols| (
            any::<u64>(),
            1u64..,
            prop::collection::vec(line(cols), 0..8)
        )
            .prop_map(
                move |(total, start, lines)| ServerMessage::Scrollback(Scrollback {
                    total,
                    start,
                    cols,
                    lines
                })
            )),
        any::<u64>().prop_map(|token| ServerMessage::Pong { token }),
        ".{0,40}".prop_map(|text| ServerMessage::Clipboard { text }),
        (".{0,40}", proptest::collection::vec(any::<u8>(), 0..64))
            .prop_map(|(name, data)| ServerMessage::FileOffer { name, data }),
        (
            any::<[u8; 16]>(),
            1u32..=10_000,
            1u32..=10_000,
            proptest::collection::vec(any::<u8>(), 0..64)
        )
            .prop_map(|(hash, width, height, png)| ServerMessage::Image(Image {
                hash,
                width,
                height,
                png
            })),
    ]
}

fn mods() -> impl Strategy<Value = Modifiers> {
    (0u8..16).prop_map(|bits| Modifiers::from_bits(bits).unwrap_or_default())
}

fn client_message() -> impl Strategy<Value = ClientMessage> {
    let key = prop_oneof![
        any::<char>().prop_map(Key::Char),
        select(NamedKey::ALL).prop_map(Key::Named),
    ];
    let kinds = vec![
        MouseKind::Press,
        MouseKind::Release,
        MouseKind::Move,
        MouseKind::WheelUp,
        MouseKind::WheelDown,
        MouseKind::WheelLeft,
        MouseKind::WheelRight,
    ];
    let buttons = vec![
        MouseButton::None,
        MouseButton::Left,
        MouseButton::Middle,
        MouseButton::Right,
    ];
    prop_oneof![
        (key, mods(), select(KeyEvent::ALL.to_vec()))
            .prop_map(|(key, mods, event)| ClientMessage::Key { key, mods, event }),
        ".{0,40}".prop_map(|text| ClientMessage::Text { text }),
        ".{0,40}".prop_map(|text| ClientMessage::Paste { text }),
        (
            select(kinds),
            select(buttons),
            0u16..1000,
            0u16..1000,
            mods()
        )
            .prop_map(
                |(kind, button, row, col, mods)| ClientMessage::Mouse(MouseEvent {
                    kind,
                    button,
                    row,
                    col,
                    mods
                })
            ),
        (1u16..=1000, 1u16..=1000).prop_map(|(cols, rows)| ClientMessage::Resize { cols, rows }),
        (1u64.., 1u16..=1000)
            .prop_map(|(start, count)| ClientMessage::ScrollbackRequest { start, count }),
        any::<bool>().prop_map(|focused| ClientMessage::Focus { focused }),
        any::<u64>().prop_map(|token| ClientMessage::Ping { token }),
        select(Theme::ALL.to_vec()).prop_map(|theme| ClientMessage::Theme { theme }),
    ]
}

/// Every message type byte either side knows, to steer random bodies past the
/// first check.
const TYPES: [u8; 17] = [
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,
    0x89,
];

/// Feeds `bytes` to both decoders; whatever decodes must survive a second
/// trip through the encoder unchanged.
fn decode_both(bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(message) = ServerMessage::decode(bytes) {
        prop_assert_eq!(ServerMessage::decode(&message.encode()), Ok(message));
    }
    if let Ok(message) = ClientMessage::decode(bytes) {
        prop_assert_eq!(ClientMessage::decode(&message.encode()), Ok(message));
    }
    Ok(())
}

// 256 cases per property by default; set PROPTEST_CASES for a longer soak.
proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        decode_both(&bytes)?;
    }

    #[test]
    fn random_bodies_after_a_known_type_never_panic(
        ty in select(TYPES.to_vec()),
        body in prop::collection::vec(any::<u8>(), 0..256),
    ) {
        let mut bytes = vec![ty];
        bytes.extend(body);
        decode_both(&bytes)?;
    }

    #[test]
    fn mutated_messages_never_panic(
        message in server_message(),
        client in client_message(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..4),
    ) {
        for mut bytes in [message.encode(), client.encode()] {
            for (at, byte, op) in &edits {
                let i = at.index(bytes.len() + 1);
                match op {
                    0 if i < bytes.len() => bytes[i] = *byte,
                    1 => bytes.insert(i, *byte),
                    _ if i < bytes.len() => { bytes.remove(i); }
                    _ => bytes.push(*byte),
                }
            }
            decode_both(&bytes)?;
        }
    }

    #[test]
    fn server_messages_round_trip(message in server_message()) {
        let bytes = message.encode();
        prop_assert_eq!(ServerMessage::decode(&bytes), Ok(message));
    }

    #[test]
    fn client_messages_round_trip(message in client_message()) {
        let bytes = message.encode();
        prop_assert_eq!(ClientMessage::decode(&bytes), Ok(message));
    }

    #[test]
    fn every_proper_prefix_is_truncated(message in server_message(), client in client_message()) {
        let bytes = message.encode();
        for len in 0..bytes.len() {
            prop_assert_eq!(ServerMessage::decode(&bytes[..len]), Err(DecodeError::Truncated));
        }
        let bytes = client.encode();
        for len in 0..bytes.len() {
            prop_assert_eq!(ClientMessage::decode(&bytes[..len]), Err(DecodeError::Truncated));
        }
    }

    #[test]
    fn a_line_yields_the_cells_it_was_built_from(
        cols in 1u16..=60,
        wrapped in any::<bool>(),
        cells in prop::collection::vec(cell(), 0..64),
    ) {
        let (line, taken) = build(cols, wrapped, &cells);
        prop_assert_eq!(line.wrapped(), wrapped);
        let blank = |text: &str| text.is_empty() || text == " " || text == "\0";
        let mut col = 0u16;
        let mut got = line.cells();
        for (text, width, style) in &taken {
            if col < line.columns() {
                let cell = got.next();
                let expected_text = if blank(text) { " " } else { text.as_str() };
                prop_assert_eq!(
                    cell,
                    Some(Cell { col, text: expected_text, width: *width, style: *style })
                );
            } else {
                // Dropped trailing cells are blanks in the fill style, or in
                // the default style when the cells stop short of the edge.
                prop_assert!(blank(text) && *width == 1);
                prop_assert_eq!(*style, line.fill());
            }
            col += u16::from(*width);
        }
        prop_assert_eq!(got.next(), None);
        if line.fill() != 0 {
            prop_assert_eq!(col, cols);
        }
        let widths: u16 = line.runs().iter().map(|run| run.len).sum();
        prop_assert_eq!(widths, line.columns());
    }
}

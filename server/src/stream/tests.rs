//! A model client applies the encoded messages exactly as PROTOCOL.md says;
//! whatever frames it receives or misses, it must end with the server's screen.
//! Like the browser, it keeps style ids in its cells and resolves them when
//! it paints, so a definition replaced under a row it still shows would show.

use std::collections::HashMap;

use panecast_proto as proto;

use super::{FrameCache, ViewerState};
use panecast_term::{Color, Snapshot, StyleId, Term};

/// The client's copy of the screen: per cell (text, style id).
#[derive(Default)]
struct ModelClient {
    cols: usize,
    grid: Vec<Vec<(String, u32)>>,
    /// Scrollback lines the session holds, from the last frame.
    scrollback: u32,
    styles: HashMap<u32, proto::Style>,
    title: String,
    cursor: (u16, u16),
    last_seq: Option<u64>,
    bells: usize,
    /// Rows kept as scrollback lines, by absolute number (`base - index`).
    kept: HashMap<u64, String>,
    /// The absolute number of the top screen row: lines pushed so far.
    base: u64,
}

impl ModelClient {
    fn apply(&mut self, bytes: &[u8]) {
        match proto::ServerMessage::decode(bytes).expect("server messages decode") {
            proto::ServerMessage::Styles(styles) => {
                if styles.reset {
                    self.styles.clear();
                }
                for def in styles.defs {
                    self.styles.insert(def.id, def.style);
                }
            }
            proto::ServerMessage::Frame(frame) => {
                assert_eq!(
                    frame.seq,
                    self.last_seq.map_or(0, |s| s + 1),
                    "seq counts up"
                );
                self.last_seq = Some(frame.seq);
                let (cols, rows) = (frame.cols as usize, frame.rows as usize);
                let blank = || vec![(" ".to_string(), 0); cols];
                if frame.full || self.grid.len() != rows || self.cols != cols {
                    self.grid = vec![blank(); rows];
                    self.cols = cols;
                    self.kept.clear();
                    self.base = 0;
                } else {
                    let text = self.text();
                    for (r, line) in text.into_iter().take(frame.kept as usize).enumerate() {
                        self.kept.insert(self.base + r as u64, line);
                    }
                    self.base += u64::from(frame.pushed);
                    if frame.scroll > 0 {
                        let n = (frame.scroll as usize).min(rows);
                        self.grid.drain(..n);
                        self.grid.extend((0..n).map(|_| blank()));
                    }
                }
                for fl in frame.lines {
                    let mut row = blank();
                    let mut end = 0;
                    for cell in fl.line.cells() {
                        self.lookup(cell.style);
                        row[cell.col as usize] = (cell.text.to_string(), cell.style);
                        if cell.width == 2 {
                            row[cell.col as usize + 1] = (String::new(), cell.style);
                        }
                        end = (cell.col + cell.width as u16) as usize;
                    }
                    self.lookup(fl.line.fill());
                    for cell in &mut row[end..] {
                        *cell = (" ".to_string(), fl.line.fill());
                    }
                    self.grid[fl.row as usize] = row;
                }
                if let Some(title) = frame.title {
                    self.title = title;
                }
                self.cursor = (frame.cursor.row, frame.cursor.col);
                self.scrollback = frame.scrollback;
            }
            proto::ServerMessage::Bell => self.bells += 1,
            other => panic!("unexpected message {other:?}"),
        }
    }

    fn lookup(&self, id: u32) -> Option<proto::Style> {
        if id == 0 {
            return None;
        }
        Some(
            self.styles
                .get(&id)
                .cloned()
                .expect("style defined before use"),
        )
    }

    fn text(&self) -> Vec<String> {
        self.grid
            .iter()
            .map(|row| {
                row.iter()
                    .map(|c| c.0.as_str())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect()
    }
}

fn expected(snap: &Snapshot) -> (Vec<String>, Vec<Vec<Option<proto::Style>>>) {
    let text = snap
        .lines
        .iter()
        .map(|row| row.text().trim_end().to_string())
        .collect();
    let styles = snap
        .lines
        .iter()
        .map(|row| {
            row.cells()
                .iter()
                .map(|c| {
                    (c.style() != StyleId::DEFAULT)
                        .then(|| super::wire_style(&snap.style(c.style()), snap))
                })
                .collect()
        })
        .collect();
    (text, styles)
}

/// Every row the client kept as a scrollback line is that line, as the
/// terminal holds it (lines the scrollback has dropped are not checked).
fn check_kept(client: &ModelClient, term: &Term) {
    let len = term.scrollback_len() as u64;
    for (&line, text) in &client.kept {
        let index = client.base - line;
        if index > len {
            continue;
        }
        let row = term.scrollback_row((len - index) as usize).unwrap();
        assert_eq!(row.text().trim_end(), text, "scrollback line {index}");
    }
}

fn check(client: &ModelClient, snap: &Snapshot) {
    let (text, styles) = expected(snap);
    assert_eq!(client.text(), text);
    for (r, row) in styles.iter().enumerate() {
        for (c, style) in row.iter().enumerate() {
            let shown = client.lookup(client.grid[r][c].1);
            assert_eq!(&shown, style, "style at row {r} col {c}");
        }
    }
    assert_eq!(client.title, *snap.title);
    assert_eq!(client.cursor, (snap.cursor.row, snap.cursor.col));
}

fn send(
    viewer: &mut ViewerState,
    client: &mut ModelClient,
    snap: &Snapshot,
    cache: &FrameCache,
) -> usize {
    let mut out = Vec::new();
    viewer.update(snap, cache, &mut out);
    let bytes = out.iter().map(Vec::len).sum();
    for message in &out {
        client.apply(message);
    }
    bytes
}

#[test]
fn a_viewer_that_skips_frames_converges() {
    let mut term = Term::new(30, 8, 100);
    let cache = FrameCache::default();
    let (mut fast, mut slow) = (ViewerState::new(), ViewerState::new());
    let (mut fast_client, mut slow_client) = (ModelClient::default(), ModelClient::default());
    let chunks: Vec<Vec<u8>> = (0..60)
        .map(|i| {
            format!(
                "\x1b[3{}mline {i} \u{4e2d}\u{6587} e\u{301}\x1b[0m\r\n{}",
                i % 8,
                if i % 7 == 0 {
                    "\x1b[2;5r\x1b[5;1H\n\n\x1b[r"
                } else {
                    ""
                }
            )
            .into_bytes()
        })
        .collect();
    for (i, chunk) in chunks.iter().enumerate() {
        term.advance(chunk);
        if i == 30 {
            term.advance(b"\x1b]2;half way\x07\x1b[?1049h\x1b[44mALT\x1b[0m");
        }
        if i == 45 {
            term.advance(b"\x1b[?1049l");
        }
        let snap = term.snapshot();
        send(&mut fast, &mut fast_client, &snap, &cache);
        check(&fast_client, &snap);
        check_kept(&fast_client, &term);
        if i % 9 == 0 {
            send(&mut slow, &mut slow_client, &snap, &cache);
            check(&slow_client, &snap);
            check_kept(&slow_client, &term);
        }
    }
    let snap = term.snapshot();
    send(&mut slow, &mut slow_client, &snap, &cache);
    check(&slow_client, &snap);
}

#[test]
fn rows_kept_as_scrollback_are_the_lines_the_terminal_holds() {
    // Rows written and then scrolled off between two frames (the client
    // never saw their last text), regions from the top that push without
    // a whole-screen scroll, edits above the cursor, reverse index and the
    // alternate screen: whatever the client keeps must be the real line.
    let mut term = Term::new(20, 6, 1000);
    let cache = FrameCache::default();
    let mut viewers: Vec<(ViewerState, ModelClient, usize)> = [1, 2, 5, 13]
        .into_iter()
        .map(|every| (ViewerState::new(), ModelClient::default(), every))
        .collect();
    let mut kept = 0;
    for i in 0..400 {
        let chunk = match i % 11 {
            0 => format!("a{i}\r\nb{i}\r\nc{i}"),
            1 => format!("\x1b[1;4r\x1b[4;1H\r\nr{i}\r\nq{i}\x1b[r\x1b[6;1H"),
            2 => format!("\x1b[3A\rchanged {i}\x1b[3B\r\n"),
            3 if i % 3 == 0 => {
                format!("\x1b[?1049h\x1b[H\r\nalt{i}\r\n\r\n\r\n\r\n\r\n\r\n\x1b[?1049l")
            }
            4 => (0..9).map(|k| format!("many {i} {k}\r\n")).collect(),
            // Reverse index at the top: the top row is new (blank) before
            // its change is stamped, then it scrolls off.
            5 => format!("\x1b[H\x1bM\x1b[6;1H\r\nafter RI {i}\r\n"),
            _ => format!("line {i}\r\n"),
        };
        term.advance(chunk.as_bytes());
        let snap = term.snapshot();
        for (viewer, client, every) in &mut viewers {
            if i % *every == 0 {
                send(viewer, client, &snap, &cache);
                check(client, &snap);
                check_kept(client, &term);
                kept = kept.max(client.kept.len());
            }
        }
    }
    assert!(
        kept > 100,
        "the clients kept rows ({kept}), so the check checked something"
    );
}

/// A viewer and its client shown ten lines of a 40x10 screen, then the
/// frame that `more` brings, applied; the frame is returned.
fn frame_after_ten_lines_and(more: &[u8]) -> proto::Frame {
    let mut term = Term::new(40, 10, 100);
    let cache = FrameCache::default();
    let mut viewer = ViewerState::new();
    let mut client = ModelClient::default();
    for i in 0..10 {
        term.advance(format!("line {i}\r\n").as_bytes());
    }
    send(&mut viewer, &mut client, &term.snapshot(), &cache);
    term.advance(more);
    let snap = term.snapshot();
    let mut out = Vec::new();
    viewer.update(&snap, &cache, &mut out);
    for message in &out {
        client.apply(message);
    }
    check(&client, &snap);
    match proto::ServerMessage::decode(out.last().unwrap()).unwrap() {
        proto::ServerMessage::Frame(f) => f,
        other => panic!("{other:?}"),
    }
}

#[test]
fn scrolling_sends_only_the_new_lines_with_a_hint() {
    let frame = frame_after_ten_lines_and(b"next 1\r\nnext 2\r\n");
    assert_eq!(frame.scroll, 2);
    assert!(!frame.full);
    let rows: Vec<u16> = frame.lines.iter().map(|l| l.row).collect();
    assert_eq!(rows, [7, 8, 9], "only the rows that scrolled in or changed");
}

#[test]
fn a_scroll_of_more_than_a_screen_is_sent_whole() {
    // A client moves its cached scrollback lines by the hint, so a hint
    // capped at the screen's height would leave them at the wrong indices.
    let more: String = (0..25).map(|i| format!("more {i}\r\n")).collect();
    let frame = frame_after_ten_lines_and(more.as_bytes());
    assert_eq!(frame.scroll, 25);
    assert!(!frame.full);
}

#[test]
fn nothing_is_sent_when_nothing_changed_and_bells_are_coalesced() {
    let mut term = Term::new(10, 3, 0);
    let cache = FrameCache::default();
    let mut viewer = ViewerState::new();
    let mut client = ModelClient::default();
    send(&mut viewer, &mut client, &term.snapshot(), &cache);
    assert_eq!(send(&mut viewer, &mut client, &term.snapshot(), &cache), 0);
    term.advance(b"\x07\x07\x07");
    send(&mut viewer, &mut client, &term.snapshot(), &cache);
    assert_eq!(client.bells, 1);
    term.advance(b"\x1b[2;2H");
    assert!(
        send(&mut viewer, &mut client, &term.snapshot(), &cache) > 0,
        "cursor moves are sent"
    );
    assert_eq!(client.cursor, (1, 1));
}

#[test]
fn viewers_at_the_same_point_share_one_encoding() {
    let mut term = Term::new(20, 5, 0);
    let cache = FrameCache::default();
    let mut viewers: Vec<ViewerState> = (0..5).map(|_| ViewerState::new()).collect();
    term.advance(b"hello");
    let snap = term.snapshot();
    let mut outs = Vec::new();
    for viewer in &mut viewers {
        let mut out = Vec::new();
        viewer.update(&snap, &cache, &mut out);
        outs.push(out);
    }
    assert!(outs.windows(2).all(|w| w[0] == w[1]));
    assert_eq!(cache.entries.lock().unwrap().len(), 1);
}

#[test]
fn a_reused_style_id_is_defined_again() {
    let mut term = Term::new(8, 2, 0);
    let cache = FrameCache::default();
    let mut viewer = ViewerState::new();
    let mut client = ModelClient::default();
    term.advance(b"\x1b[31mred");
    let first = term.snapshot();
    let red = first.lines[0].cells()[0].style();
    send(&mut viewer, &mut client, &first, &cache);
    // The red cells are overwritten: a snapshot frees the id, and the next
    // new style takes it.
    term.advance(b"\x1b[H\x1b[m   ");
    term.snapshot();
    term.advance(b"\x1b[H\x1b[32mgreen");
    let snap = term.snapshot();
    assert_eq!(snap.lines[0].cells()[0].style(), red, "the id was reused");
    assert_eq!(snap.style(red).fg, Color::Indexed(2));
    assert_eq!(
        snap.style_epoch, first.style_epoch,
        "nothing was renumbered"
    );
    send(&mut viewer, &mut client, &snap, &cache);
    check(&client, &snap);
}

#[test]
fn a_viewer_that_missed_the_free_is_sent_the_new_definition() {
    let mut term = Term::new(8, 2, 0);
    let cache = FrameCache::default();
    let (mut viewer, mut client) = (ViewerState::new(), ModelClient::default());
    term.advance(b"\x1b[31mred");
    send(&mut viewer, &mut client, &term.snapshot(), &cache);
    for change in [&b"\x1b[H\x1b[m   "[..], b"\x1b[H\x1b[32mgreen"] {
        term.advance(change);
        term.snapshot();
    }
    let snap = term.snapshot();
    send(&mut viewer, &mut client, &snap, &cache);
    check(&client, &snap);
}

#[test]
fn a_cached_frame_is_only_shared_by_the_same_screen() {
    // The cursor, modes and title can change without a new row generation:
    // a viewer that jumps straight to such a snapshot must not be given the
    // frame another viewer got for the earlier one of that generation.
    let mut term = Term::new(20, 5, 0);
    let cache = FrameCache::default();
    let (mut a, mut b) = (ViewerState::new(), ViewerState::new());
    let (mut client_a, mut client_b) = (ModelClient::default(), ModelClient::default());
    term.advance(b"hello");
    let first = term.snapshot();
    send(&mut a, &mut client_a, &first, &cache);
    send(&mut b, &mut client_b, &first, &cache);
    for change in [
        &b"!"[..],
        b"\x1b[3;3H\x1b[?1h",
        b"\x1b]2;one\x07",
        b"\x1b]2;two\x07",
    ] {
        let before = term.snapshot().generation;
        term.advance(change);
        let snap = term.snapshot();
        if change != b"!" {
            assert_eq!(snap.generation, before, "no row changed");
        }
        // `a` follows every step, `b` only every other one.
        send(&mut a, &mut client_a, &snap, &cache);
        check(&client_a, &snap);
        if change.starts_with(b"\x1b[3") || change.ends_with(b"two\x07") {
            send(&mut b, &mut client_b, &snap, &cache);
            check(&client_b, &snap);
        }
    }
}

#[test]
fn clearing_the_scrollback_alone_sends_a_frame_that_says_so() {
    let mut term = Term::new(10, 3, 100);
    let cache = FrameCache::default();
    let (mut viewer, mut client) = (ViewerState::new(), ModelClient::default());
    term.advance(b"1\r\n2\r\n3\r\n4\r\n5");
    send(&mut viewer, &mut client, &term.snapshot(), &cache);
    assert_eq!(client.scrollback, 2);
    term.advance(b"\x1b[3J");
    let snap = term.snapshot();
    assert!(
        send(&mut viewer, &mut client, &snap, &cache) > 0,
        "a frame is sent"
    );
    assert_eq!(client.scrollback, 0);
    check(&client, &snap);
}

#[test]
fn rows_a_client_shows_never_change_meaning_while_ids_are_reused() {
    // Every line a new colour on a short screen with a short scrollback:
    // ids are freed as lines leave the scrollback and reused at once. The
    // fast client sees every snapshot, the slow one a few; both must show
    // the server's colours after every frame they get.
    let mut term = Term::new(12, 4, 3);
    let cache = FrameCache::default();
    let (mut fast, mut slow) = (ViewerState::new(), ViewerState::new());
    let (mut fast_client, mut slow_client) = (ModelClient::default(), ModelClient::default());
    let mut reused = 0;
    let mut seen = HashMap::new();
    for i in 0..400u32 {
        let (r, g, b) = (i % 7 * 30, i % 11 * 20, i % 5 * 50);
        let bg = if i % 3 == 0 { "\x1b[44m" } else { "" };
        term.advance(format!("\x1b[38;2;{r};{g};{b}m{bg}x{i}\x1b[K\x1b[m\r\n").as_bytes());
        let snap = term.snapshot();
        for cell in snap.lines.iter().flat_map(|l| l.cells()) {
            let id = cell.style();
            let stamp = snap.styles.stamp(id.0 as usize);
            if let Some(old) = seen.insert(id, stamp) {
                reused += usize::from(old != stamp);
            }
        }
        send(&mut fast, &mut fast_client, &snap, &cache);
        check(&fast_client, &snap);
        if i % 5 == 0 {
            send(&mut slow, &mut slow_client, &snap, &cache);
            check(&slow_client, &snap);
        }
    }
    assert!(reused > 100, "ids were reused {reused} times");
}

#[test]
fn a_big_screen_goes_out_in_shared_pieces_and_converges() {
    use super::{Outgoing, PIECE_CELLS};
    let cols = 1000u16;
    let mut term = Term::new(cols, 100, 0);
    for r in 0..100 {
        term.advance(format!("\x1b[{};1H\x1b[3{}mrow {r}", r + 1, r % 8).as_bytes());
    }
    let snap = term.snapshot();
    let cache = FrameCache::default();
    let (mut a, mut b) = (ViewerState::new(), ViewerState::new());
    let (mut a_out, mut b_out) = (Vec::new(), Vec::new());
    a.update_lazily(&snap, &cache, &mut a_out);
    b.update_lazily(&snap, &cache, &mut b_out);
    let pieces = |out: &[Outgoing]| -> Vec<(usize, u64)> {
        out.iter()
            .filter_map(|o| match o {
                Outgoing::Piece { index, seq, .. } => Some((*index, *seq)),
                Outgoing::Bytes(_) | Outgoing::Image(_) => None,
            })
            .collect()
    };
    let rows_per_piece = PIECE_CELLS / cols as usize;
    let expected: Vec<(usize, u64)> = (0..100usize.div_ceil(rows_per_piece))
        .map(|i| (i, i as u64))
        .collect();
    assert_eq!(
        pieces(&a_out),
        expected,
        "numbered pieces of {rows_per_piece} rows"
    );
    let shared = a_out.iter().zip(&b_out).any(|pair| match pair {
        (Outgoing::Piece { pieces: x, .. }, Outgoing::Piece { pieces: y, .. }) => {
            std::sync::Arc::ptr_eq(x, y)
        }
        _ => false,
    });
    assert!(shared, "both viewers send the one encoding");
    // Viewer b takes compressed frames (these pieces are small: they go
    // plain) and converges all the same.
    assert_eq!(a_out.len(), b_out.len());
    let mut client = ModelClient::default();
    let mut deflated_client = ModelClient::default();
    for (a, b) in a_out.into_iter().zip(b_out) {
        client.apply(&a.into_bytes(false));
        deflated_client.apply(&b.into_bytes(true));
    }
    check(&client, &snap);
    check(&deflated_client, &snap);
    // A later change that touches every row goes out in pieces too, as a
    // diff the client applies on top.
    for r in 0..100 {
        term.advance(format!("\x1b[{};1H\x1b[1mROW {r}", r + 1).as_bytes());
    }
    let snap = term.snapshot();
    send(&mut a, &mut client, &snap, &cache);
    check(&client, &snap);
}

#[test]
fn a_viewer_that_gives_up_the_rest_of_a_frame_gets_a_full_one_next() {
    use super::Outgoing;
    use std::collections::VecDeque;
    let mut term = Term::new(1000, 100, 0);
    for r in 0..100 {
        term.advance(format!("\x1b[{};1H\x1b[3{}mrow {r}", r + 1, r % 8).as_bytes());
    }
    let cache = FrameCache::default();
    let mut viewer = ViewerState::new();
    let mut client = ModelClient::default();
    send(&mut viewer, &mut client, &term.snapshot(), &cache);
    // A change to every row, of which the client takes two pieces.
    for r in 0..100 {
        term.advance(format!("\x1b[{};1H\x1b[1mROW {r}", r + 1).as_bytes());
    }
    let snap = term.snapshot();
    let mut out = Vec::new();
    viewer.update_lazily(&snap, &cache, &mut out);
    let mut rest = VecDeque::from(out);
    for _ in 0..2 {
        client.apply(&rest.pop_front().expect("a piece").into_bytes(false));
    }
    viewer.give_up_rest(&mut rest);
    assert!(
        rest.iter().all(|m| !matches!(m, Outgoing::Piece { .. })),
        "no piece is left to send"
    );
    // Unchanged since, the screen still comes whole, numbered on from the
    // last piece the client got (the model checks the numbering).
    let mut out = Vec::new();
    viewer.update_lazily(&snap, &cache, &mut out);
    let mut full = false;
    for message in out {
        let bytes = message.into_bytes(false);
        if let Ok(proto::ServerMessage::Frame(frame)) = proto::ServerMessage::decode(&bytes) {
            full |= frame.full;
        }
        client.apply(&bytes);
    }
    assert!(full, "the next frame is full");
    check(&client, &snap);
}

/// A 16 x 12 sixel of one colour (`r` percent red, the rest blue).
fn sixel(r: u8) -> String {
    format!("\x1bPq#1;2;{r};0;{};#1!16~-#1!16~\x1b\\", 100 - r)
}

/// The hashes of the `Image` messages that bring `viewer` to `term`'s
/// screen, checking that each comes before the frame that places it.
fn images_sent(viewer: &mut ViewerState, term: &mut Term, cache: &FrameCache) -> Vec<[u8; 16]> {
    let mut out = Vec::new();
    viewer.update(&term.snapshot(), cache, &mut out);
    let mut hashes = Vec::new();
    for bytes in out {
        match proto::ServerMessage::decode(&bytes).expect("decodes") {
            proto::ServerMessage::Image(image) => hashes.push(image.hash),
            proto::ServerMessage::Frame(frame) => {
                for piece in frame.lines.iter().flat_map(|l| l.line.images()) {
                    assert!(hashes.contains(&piece.hash), "sent before it is placed");
                }
            }
            _ => {}
        }
    }
    hashes
}

#[test]
fn a_picture_goes_once_per_viewer_until_the_store_forgets_it() {
    let mut term = Term::new(20, 5, 100);
    // Room for one 16 x 12 picture (768 bytes of RGBA), not two.
    term.limit_images(1000, 1 << 20);
    let cache = FrameCache::default();
    let mut viewer = ViewerState::new();
    term.advance(sixel(100).as_bytes());
    let red = images_sent(&mut viewer, &mut term, &cache);
    assert_eq!(red.len(), 1, "the first frame's picture");
    term.advance(b"\r\ntext");
    assert!(
        images_sent(&mut viewer, &mut term, &cache).is_empty(),
        "once"
    );
    assert_eq!(
        images_sent(&mut ViewerState::new(), &mut term, &cache),
        red,
        "another viewer"
    );
    // A blue picture evicts the red one; when red comes back, it is sent
    // again: the viewer forgot it with the store.
    term.advance(format!("\x1b[2J\x1b[H{}", sixel(0)).as_bytes());
    let blue = images_sent(&mut viewer, &mut term, &cache);
    assert_eq!(blue.len(), 1);
    assert_ne!(blue, red);
    term.advance(format!("\x1b[2J\x1b[H{}", sixel(100)).as_bytes());
    assert_eq!(images_sent(&mut viewer, &mut term, &cache), red, "again");
}

#[test]
fn a_slow_viewer_gets_only_the_pictures_its_frame_places() {
    let mut term = Term::new(20, 5, 100);
    let cache = FrameCache::default();
    let mut viewer = ViewerState::new();
    assert!(images_sent(&mut viewer, &mut term, &cache).is_empty());
    // Two pictures come and go between two of its frames.
    term.advance(sixel(100).as_bytes());
    term.advance(b"\x1b[2J\x1b[H");
    term.advance(sixel(0).as_bytes());
    let blue = term.snapshot().row_images(0)[0].image().0.to_be_bytes();
    assert_eq!(images_sent(&mut viewer, &mut term, &cache), [blue]);
}

#[test]
fn a_scrollback_answer_brings_the_pictures_its_lines_place_once() {
    let mut term = Term::new(20, 3, 100);
    term.advance(sixel(100).as_bytes());
    term.advance(b"\r\n\r\n\r\n\r\n\r\n");
    let rows: Vec<_> = (0..term.scrollback_len())
        .filter_map(|i| term.scrollback_row(i))
        .collect();
    let lines: Vec<proto::Line> = rows.iter().map(|row| super::encode_row(row, 20)).collect();
    let placing = lines.iter().filter(|l| !l.images().is_empty()).count();
    assert!(placing >= 1, "the picture scrolled into the scrollback");
    let pictures = super::placed_images(&lines, &term.images());
    assert_eq!(
        pictures.len(),
        1,
        "one picture, however many lines place it"
    );
    let none = super::placed_images(&lines, &Term::new(20, 3, 100).images());
    assert!(none.is_empty(), "a store without the picture brings none");
}

#[test]
fn a_viewer_that_takes_compressed_frames_gets_the_shared_screen_in_fewer_bytes() {
    let mut term = Term::new(80, 24, 100);
    for i in 0..40 {
        term.advance(format!("2026-11-26 14:00:{i:02} INFO request {i} served\r\n").as_bytes());
    }
    let snap = term.snapshot();
    let cache = FrameCache::default();
    let (mut plain_viewer, mut deflated_viewer) = (ViewerState::new(), ViewerState::new());
    let (mut plain_out, mut deflated_out) = (Vec::new(), Vec::new());
    plain_viewer.update_lazily(&snap, &cache, &mut plain_out);
    deflated_viewer.update_lazily(&snap, &cache, &mut deflated_out);
    let (mut plain, mut deflated) = (ModelClient::default(), ModelClient::default());
    let (mut plain_bytes, mut deflated_bytes) = (0, 0);
    let mut compressed = 0;
    for (a, b) in plain_out.into_iter().zip(deflated_out) {
        let (a, b) = (a.into_bytes(false), b.into_bytes(true));
        plain_bytes += a.len();
        deflated_bytes += b.len();
        compressed += usize::from(b[0] == 0x0F);
        plain.apply(&a);
        deflated.apply(&b);
    }
    check(&plain, &snap);
    check(&deflated, &snap);
    assert_eq!(compressed, 1, "the frame goes compressed");
    assert!(
        deflated_bytes * 2 < plain_bytes,
        "compressed {deflated_bytes} bytes, plain {plain_bytes}"
    );
}

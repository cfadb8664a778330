//! Per-viewer frame state, and a cache that lets viewers at the same point
//! share one encoded frame.
//!
//! A frame of a big screen goes out in pieces of at most [`PIECE_CELLS`]
//! cells of lines: the first piece carries the frame's header (full or
//! not, title, scroll hint), the others are plain diff frames with the
//! rest of its lines. The pieces are encoded once and shared (`Arc`) by
//! every viewer at that point, and a viewer writes one piece at a time,
//! when its socket takes it (see [`Outgoing`]). A viewer that stops
//! reading gives up the rest of its frame ([`ViewerState::give_up_rest`])
//! and holds one piece, never a screen of its own.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use panecast_proto as proto;

use super::images::{image_message, ImagesSent};
use super::lines::{encode_row, wire_style};
use panecast_term::image::Image;
use panecast_term::{CursorShape, KeyboardFlags, Mode, Modes, MouseTracking, Snapshot};

/// Everything a frame is computed from: where the viewer stands and the
/// snapshot's state. Rows are identified by the generation (a row's content
/// never changes without a new generation), but the cursor, modes, title
/// and size can change while it stays the same, so they are part of the
/// key too: two snapshots of one generation are not the same frame.
#[derive(Clone, PartialEq, Eq, Debug)]
struct FrameKey {
    /// The screen the frame brings the viewer to.
    to: Sent,
    /// The title, when the frame carries it.
    title: Option<Arc<str>>,
    /// `None` for a full frame, else where the viewer stands.
    from: Option<Base>,
}

/// What a diff frame is computed against: the viewer's last screen.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Base {
    /// Rows with a generation above this changed since.
    generation: u64,
    /// The whole screen's scroll count (the scroll hint's basis).
    scroll_count: u64,
    /// Rows pushed into the scrollback.
    pushes: u64,
}

impl Base {
    /// The screen of `snap`, as a later frame's starting point.
    fn of(snap: &Snapshot) -> Base {
        Base {
            generation: snap.generation,
            scroll_count: snap.scroll_count,
            pushes: snap.pushes.count(),
        }
    }
}

/// Cells of lines in one piece of a frame: a screen up to 200x80 goes out
/// in one message; a 1000x1000 one in 62 of at most 16 rows.
pub const PIECE_CELLS: usize = 16_384;

/// A frame's pieces, each a frame message without its sequence number.
type Pieces = Arc<Vec<proto::EncodedFrame>>;

pub(super) struct CachedFrame {
    key: FrameKey,
    frame: Pieces,
    styles: Arc<Vec<u16>>,
}

/// A message for one viewer, written only when it is about to be sent.
pub enum Outgoing {
    /// A message already encoded for this viewer (styles, bell).
    Bytes(Vec<u8>),
    /// A picture the frame after it places, encoded when it is sent.
    Image(Arc<Image>),
    /// Piece `index` of a shared frame, numbered `seq` on this connection.
    Piece {
        /// The frame's pieces, shared by the viewers at that point.
        pieces: Pieces,
        /// Which piece.
        index: usize,
        /// Its sequence number.
        seq: u64,
    },
}

impl Outgoing {
    /// The message's bytes; a frame's piece compressed when `deflate` says
    /// the connection takes compressed frames (and compressing makes it
    /// smaller: see [`proto::EncodedFrame::write_deflated`]).
    pub fn into_bytes(self, deflate: bool) -> Vec<u8> {
        match self {
            Outgoing::Bytes(bytes) => bytes,
            Outgoing::Image(image) => image_message(&image),
            Outgoing::Piece { pieces, index, seq } => {
                let piece = &pieces[index];
                let mut message = Vec::with_capacity(piece.body_len() + 10);
                if deflate {
                    piece.write_deflated(seq, &mut message);
                } else {
                    piece.write(seq, &mut message);
                }
                message
            }
        }
    }
}

/// Encoded frames shared by the viewers of one session.
#[derive(Default)]
pub struct FrameCache {
    pub(super) entries: Mutex<Vec<CachedFrame>>,
}

/// Frames kept: viewers are rarely spread over more points than this.
const CACHE_ENTRIES: usize = 8;

impl FrameCache {
    fn get_or_encode(
        &self,
        key: FrameKey,
        encode: impl FnOnce() -> (Vec<proto::EncodedFrame>, Vec<u16>),
    ) -> (Pieces, Arc<Vec<u16>>) {
        // A poisoned lock only means another viewer panicked mid-insert; the
        // entries are still whole, so keep using them.
        let lookup = |entries: &Vec<CachedFrame>| {
            entries
                .iter()
                .find(|e| e.key == key)
                .map(|e| (Arc::clone(&e.frame), Arc::clone(&e.styles)))
        };
        if let Some(hit) = lookup(&self.entries.lock().unwrap_or_else(|e| e.into_inner())) {
            return hit;
        }
        let (frame, styles) = encode();
        let (frame, styles) = (Arc::new(frame), Arc::new(styles));
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        // Frames to a generation older than the previous one's are no use.
        entries.retain(|e| e.key.to.base.generation + 1 >= key.to.base.generation);
        if entries.len() >= CACHE_ENTRIES {
            entries.remove(0);
        }
        entries.push(CachedFrame {
            key,
            frame: Arc::clone(&frame),
            styles: Arc::clone(&styles),
        });
        (frame, styles)
    }
}

/// A screen as a viewer has it: what one viewer has been sent, and what a
/// frame brings it to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Sent {
    /// What a later diff frame is computed against.
    base: Base,
    cols: u16,
    rows: u16,
    style_epoch: u32,
    scrollback: u32,
    cursor: proto::Cursor,
    modes: proto::Modes,
}

/// The state of one viewer's stream: what it has, and the next sequence number.
pub struct ViewerState {
    seq: u64,
    sent: Option<Sent>,
    title: Arc<str>,
    bells: Option<u64>,
    /// Per style id, the stamp of the definition this connection was sent
    /// (0: none). A reused id has a new stamp, so it is defined again.
    styles_sent: Vec<u32>,
    /// The client has only part of its last frame: the next one is full.
    partial: bool,
    /// The pictures this connection has.
    images: ImagesSent,
}

impl Default for ViewerState {
    fn default() -> Self {
        ViewerState {
            seq: 0,
            sent: None,
            title: Arc::from(""),
            bells: None,
            styles_sent: Vec::new(),
            partial: false,
            images: ImagesSent::default(),
        }
    }
}

impl ViewerState {
    /// A viewer that has nothing yet: its first frame is full.
    pub fn new() -> ViewerState {
        ViewerState::default()
    }

    /// A client that reconnects holding the screen of `revision` (the last
    /// `Sync` it had): its first frame is a diff from there, as a slow
    /// viewer's is after it skipped screens. A revision this session never
    /// reached, or of another size or style table, is ignored: the first
    /// frame is full. The client keeps its style definitions and pictures;
    /// those the frame's rows use are defined again.
    pub fn resume_from(&mut self, revision: &proto::Revision, snap: &Snapshot) {
        let reachable = revision.cols == snap.cols
            && revision.rows == snap.rows
            && revision.style_epoch == snap.style_epoch
            && revision.generation <= snap.generation
            && revision.scroll_count <= snap.scroll_count
            && revision.pushes <= snap.pushes.count();
        if !reachable {
            return;
        }
        self.sent = Some(Sent {
            base: Base {
                generation: revision.generation,
                scroll_count: revision.scroll_count,
                pushes: revision.pushes,
            },
            cols: revision.cols,
            rows: revision.rows,
            style_epoch: revision.style_epoch,
            // Not known: the first frame says them all again.
            scrollback: u32::MAX,
            cursor: proto::Cursor {
                row: u16::MAX,
                ..wire_cursor(snap)
            },
            modes: wire_modes(&snap.modes, snap.alternate),
        });
        // Not a title a program can set: the first frame carries the title.
        self.title = Arc::from("\u{0}");
    }

    /// The screen the frames sent so far bring the client to, as a `Sync`
    /// tells it; `None` before the first frame, and while the client holds
    /// only part of the last one.
    pub fn revision(&self) -> Option<proto::Revision> {
        let sent = self.sent.filter(|_| !self.partial)?;
        Some(proto::Revision {
            generation: sent.base.generation,
            scroll_count: sent.base.scroll_count,
            pushes: sent.base.pushes,
            style_epoch: sent.style_epoch,
            cols: sent.cols,
            rows: sent.rows,
        })
    }

    /// The scroll count of the last screen this viewer was sent, if any:
    /// scrollback indices it is given count from that screen.
    pub fn scroll_count(&self) -> Option<u64> {
        self.sent.map(|s| s.base.scroll_count)
    }

    /// Appends to `out` the messages (styles, frame, bell) that bring this
    /// viewer to `snap`, frames plain; nothing when it already has it.
    pub fn update(&mut self, snap: &Snapshot, cache: &FrameCache, out: &mut Vec<Vec<u8>>) {
        let mut outgoing = Vec::new();
        self.update_lazily(snap, cache, &mut outgoing);
        out.extend(
            outgoing
                .into_iter()
                .map(|message| message.into_bytes(false)),
        );
    }

    /// As [`ViewerState::update`], with the frame's pieces left shared
    /// until each is written ([`Outgoing::into_bytes`]) as it is sent.
    pub fn update_lazily(&mut self, snap: &Snapshot, cache: &FrameCache, out: &mut Vec<Outgoing>) {
        let mut bytes = Vec::new();
        if let Some(seen) = self.bells {
            if snap.bells > seen {
                bytes.push(proto::ServerMessage::Bell.encode());
            }
        }
        self.bells = Some(snap.bells);

        let cursor = wire_cursor(snap);
        let modes = wire_modes(&snap.modes, snap.alternate);
        let with_title = *self.title != *snap.title;
        let restart = match self.sent {
            None => true,
            Some(s) => {
                self.partial
                    || s.cols != snap.cols
                    || s.rows != snap.rows
                    || s.style_epoch != snap.style_epoch
            }
        };
        if let Some(s) = self.sent {
            let unchanged = s.base == Base::of(snap)
                && s.scrollback == scrollback_lines(snap)
                && s.cursor == cursor
                && s.modes == modes
                && !with_title
                && !restart;
            if unchanged {
                out.extend(bytes.into_iter().map(Outgoing::Bytes));
                return;
            }
            if s.style_epoch != snap.style_epoch {
                self.styles_sent.clear();
                bytes.push(
                    proto::ServerMessage::Styles(proto::Styles {
                        reset: true,
                        epoch: snap.style_epoch,
                        defs: Vec::new(),
                    })
                    .encode(),
                );
            }
        }
        let from = if restart {
            None
        } else {
            self.sent.map(|s| s.base)
        };
        let with_title = with_title || from.is_none();
        let to = Sent {
            base: Base::of(snap),
            cols: snap.cols,
            rows: snap.rows,
            style_epoch: snap.style_epoch,
            scrollback: scrollback_lines(snap),
            cursor,
            modes,
        };
        let key = FrameKey {
            to,
            title: with_title.then(|| Arc::clone(&snap.title)),
            from,
        };
        let (pieces, used) = cache.get_or_encode(key, || encode_frame(snap, from, with_title));
        self.define_styles(snap, &used, &mut bytes);
        out.extend(bytes.into_iter().map(Outgoing::Bytes));
        // Only the pictures placed on the screen the frame brings: a viewer
        // that skipped frames never gets those it no longer needs.
        out.extend(
            self.images
                .for_screen(snap)
                .into_iter()
                .map(Outgoing::Image),
        );
        for index in 0..pieces.len() {
            out.push(Outgoing::Piece {
                pieces: Arc::clone(&pieces),
                index,
                seq: self.seq,
            });
            self.seq += 1;
        }
        self.title = Arc::clone(&snap.title);
        self.sent = Some(to);
        self.partial = false;
    }

    /// True when the client has only part of the last frame (see
    /// [`ViewerState::give_up_rest`]): it needs the screen whole.
    pub fn is_partial(&self) -> bool {
        self.partial
    }

    /// Lets go of the frame pieces left in `rest` (what
    /// [`ViewerState::update_lazily`] gave that was not sent yet), for a
    /// viewer whose socket has stopped taking them: the client keeps the
    /// pieces it got, sequence numbers go on from the last one, and its
    /// next frame is full. Messages that are not pieces stay in `rest`.
    pub fn give_up_rest(&mut self, rest: &mut VecDeque<Outgoing>) {
        let before = rest.len();
        rest.retain(|message| !matches!(message, Outgoing::Piece { .. }));
        let dropped = (before - rest.len()) as u64;
        if dropped > 0 {
            self.seq -= dropped;
            self.partial = true;
        }
    }

    /// Sends definitions of the styles in `used` this viewer does not have
    /// as `snap` defines them.
    fn define_styles(&mut self, snap: &Snapshot, used: &[u16], out: &mut Vec<Vec<u8>>) {
        let defs = used
            .iter()
            .filter(|&&id| self.note_sent(id, snap.styles.stamp(id as usize)))
            .map(|&id| proto::StyleDef {
                id: id as u32,
                style: wire_style(&snap.style(panecast_term::StyleId(id)), snap),
            })
            .collect();
        push_definitions(defs, snap.style_epoch, out);
    }

    /// Sends the definitions of a scrollback answer's styles (id, stamp,
    /// style) this viewer does not have, before the answer itself.
    pub fn define_answer_styles(
        &mut self,
        styles: &[(u16, u32, proto::Style)],
        out: &mut Vec<Vec<u8>>,
    ) {
        let defs = styles
            .iter()
            .filter(|(id, stamp, _)| self.note_sent(*id, *stamp))
            .map(|(id, _, style)| proto::StyleDef {
                id: *id as u32,
                style: style.clone(),
            })
            .collect();
        let epoch = self.sent.map_or(0, |s| s.style_epoch);
        push_definitions(defs, epoch, out);
    }

    /// Appends the `Image` messages a scrollback answer placing `images`
    /// needs first: those this viewer lacks.
    pub fn send_answer_images(&mut self, images: &[Arc<Image>], out: &mut Vec<Vec<u8>>) {
        let new = self.images.for_answer(images);
        out.extend(new.iter().map(|image| image_message(image)));
    }

    /// Notes that this viewer has definition `stamp` of style `id`; true
    /// when it had another one (or none) and must be sent it.
    fn note_sent(&mut self, id: u16, stamp: u32) -> bool {
        if self.styles_sent.len() <= id as usize {
            self.styles_sent.resize(id as usize + 1, 0);
        }
        let changed = self.styles_sent[id as usize] != stamp;
        self.styles_sent[id as usize] = stamp;
        changed
    }
}

/// Appends a Styles message holding `defs`, if there are any.
fn push_definitions(defs: Vec<proto::StyleDef>, epoch: u32, out: &mut Vec<Vec<u8>>) {
    if !defs.is_empty() {
        let styles = proto::Styles {
            reset: false,
            epoch,
            defs,
        };
        out.push(proto::ServerMessage::Styles(styles).encode());
    }
}

/// Encodes the frame from the viewer's screen `from` to `snap`, or a full
/// frame when `from` is `None`, in pieces of at most [`PIECE_CELLS`] cells
/// of lines (at least one row each, and one piece at least). Also returns
/// the style ids it uses.
fn encode_frame(
    snap: &Snapshot,
    from: Option<Base>,
    with_title: bool,
) -> (Vec<proto::EncodedFrame>, Vec<u16>) {
    let wire = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    let (since, scroll, pushed, kept) = match from {
        Some(base) => {
            let pushed = wire(snap.pushes.count().saturating_sub(base.pushes));
            let kept = snap
                .pushes
                .kept(base.pushes, base.generation, snap.rows as usize);
            (
                base.generation,
                wire(snap.scroll_count.saturating_sub(base.scroll_count)),
                pushed,
                kept,
            )
        }
        None => (0, 0, 0, 0),
    };
    let mut used = Vec::new();
    let mut lines = Vec::new();
    for (r, row) in snap.lines.iter().enumerate() {
        let changed = row.generation() > since;
        let blank = row.stored_len() == 0 && !row.is_wrapped() && row.images().is_empty();
        if !changed || (from.is_none() && blank) {
            continue;
        }
        let line = encode_row(row, snap.cols);
        for run in line.runs() {
            used.push(run.style as u16);
        }
        used.push(line.fill() as u16);
        lines.push(proto::FrameLine {
            row: r as u16,
            line,
        });
    }
    used.sort_unstable();
    used.dedup();
    used.retain(|&id| id != 0);
    let rows_per_piece = (PIECE_CELLS / usize::from(snap.cols)).max(1);
    let mut chunks = Vec::new();
    while lines.len() > rows_per_piece {
        let rest = lines.split_off(rows_per_piece);
        chunks.push(std::mem::replace(&mut lines, rest));
    }
    chunks.push(lines);
    let pieces = chunks
        .into_iter()
        .enumerate()
        .map(|(i, lines)| {
            let first = i == 0;
            proto::Frame {
                seq: 0,
                cols: snap.cols,
                rows: snap.rows,
                full: first && from.is_none(),
                cursor: wire_cursor(snap),
                modes: wire_modes(&snap.modes, snap.alternate),
                title: (first && with_title).then(|| snap.title.to_string()),
                scroll: if first { scroll } else { 0 },
                scrollback: scrollback_lines(snap),
                pushed: if first { pushed } else { 0 },
                kept: if first { kept } else { 0 },
                lines,
            }
            .encode_shared()
        })
        .collect();
    (pieces, used)
}

/// The scrollback's length as the wire carries it.
fn scrollback_lines(snap: &Snapshot) -> u32 {
    u32::try_from(snap.scrollback_len).unwrap_or(u32::MAX)
}

fn wire_cursor(snap: &Snapshot) -> proto::Cursor {
    proto::Cursor {
        row: snap.cursor.row.min(snap.rows - 1),
        col: snap.cursor.col.min(snap.cols - 1),
        visible: snap.cursor.visible,
        blink: snap.cursor.blink,
        shape: match snap.cursor.shape {
            CursorShape::Block => proto::CursorShape::Block,
            CursorShape::Underline => proto::CursorShape::Underline,
            CursorShape::Bar => proto::CursorShape::Bar,
        },
    }
}

fn wire_modes(modes: &Modes, alternate: bool) -> proto::Modes {
    let keyboard = modes.keyboard().flags;
    proto::Modes {
        app_cursor: modes.get(Mode::AppCursor),
        bracketed_paste: modes.get(Mode::BracketedPaste),
        app_keypad: modes.get(Mode::AppKeypad),
        alt_screen: alternate,
        focus_events: modes.get(Mode::FocusEvents),
        mouse_sgr: modes.get(Mode::MouseSgr),
        reverse_video: modes.get(Mode::ReverseVideo),
        mouse: match modes.mouse_tracking() {
            MouseTracking::Off => proto::MouseTracking::Off,
            MouseTracking::Press => proto::MouseTracking::Press,
            MouseTracking::Click => proto::MouseTracking::Click,
            MouseTracking::Drag => proto::MouseTracking::Drag,
            MouseTracking::Motion => proto::MouseTracking::Motion,
        },
        key_releases: keyboard.contains(KeyboardFlags::EVENT_TYPES),
        key_all: keyboard.contains(KeyboardFlags::ALL_KEYS),
    }
}

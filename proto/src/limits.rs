//! Every size limit of the protocol, in one place. PROTOCOL.md ("Limits")
//! states the same numbers; a decoder rejects anything beyond them.

/// Largest client-to-server message, in bytes (1 MiB). Bigger ones are
/// rejected with [`DecodeError::TooLarge`](crate::DecodeError::TooLarge)
/// before any parsing, and the server closes with 1009.
pub const MAX_CLIENT_MESSAGE: usize = 1 << 20;

/// Most columns a screen (or a scrollback line) may have.
pub const MAX_COLS: u16 = 1000;

/// Most rows a screen may have.
pub const MAX_ROWS: u16 = 1000;

/// Longest session id, in UTF-8 bytes.
pub const MAX_SESSION_ID: usize = 128;

/// Longest window title, in UTF-8 bytes.
pub const MAX_TITLE: usize = 4096;

/// Longest hyperlink URI, in UTF-8 bytes.
pub const MAX_LINK: usize = 4096;

/// Longest text of a `Clipboard` message, in UTF-8 bytes.
pub const MAX_CLIPBOARD: usize = 64 * 1024;

/// Longest file name of a `FileOffer`, in UTF-8 bytes.
pub const MAX_FILE_NAME: usize = 255;

/// Largest file of a `FileOffer`, in bytes (256 MiB; the server's own cap,
/// `limits.upload_bytes`, is usually lower).
pub const MAX_FILE_OFFER: usize = 256 << 20;

/// Longest message of an `Error`, in UTF-8 bytes.
pub const MAX_ERROR_MESSAGE: usize = 1024;

/// Longest `Text` (typed or IME-committed), in UTF-8 bytes.
pub const MAX_TEXT: usize = 64 * 1024;

/// Longest `Paste`, in UTF-8 bytes: whatever fits in one client message.
pub const MAX_PASTE: usize = MAX_CLIENT_MESSAGE;

/// Most Unicode scalar values (codepoints) in the text of one cell.
pub const MAX_CELL_CODEPOINTS: u8 = 32;

/// Longest text of one line, in UTF-8 bytes: every column a cell with the
/// longest allowed cluster of 4-byte codepoints.
pub const MAX_LINE_TEXT: usize = MAX_COLS as usize * MAX_CELL_CODEPOINTS as usize * 4;

/// Most image pieces one line carries.
pub const MAX_LINE_IMAGES: usize = 16;

/// Most pixels on either side of an `Image`.
pub const MAX_IMAGE_SIDE: u32 = 10_000;

/// Largest PNG of one `Image` message, in bytes (16 MiB). The panecast
/// server does not send an image whose PNG is bigger: its pieces still
/// come in lines, and the client, lacking the picture, paints none.
pub const MAX_IMAGE_PNG: usize = 16 << 20;

/// Largest body of a compressed frame once inflated, in bytes (8 MiB: a
/// frame piece of [`MAX_SCROLLBACK_ANSWER_CELLS`]-many cells is well under
/// it). A server sends a bigger body plain.
pub const MAX_DEFLATED_BODY: usize = 8 << 20;

/// Most style definitions in one `Styles` message.
pub const MAX_STYLE_DEFS: usize = 1 << 16;

/// Most lines in one scrollback request or answer.
pub const MAX_SCROLLBACK_LINES: u16 = 1000;

/// Most cells of lines (lines times the width they are laid out at) the
/// panecast server puts in one scrollback answer, however many were asked
/// for (at least one line): 65 lines at 1000 columns, all 1000 at up to 65.
/// Reading them holds up the session's program, so one answer stays short.
pub const MAX_SCROLLBACK_ANSWER_CELLS: usize = 65_536;

/// Most markers one `ReplayState` lists (the first ones of the recording).
pub const MAX_REPLAY_MARKERS: usize = 1024;

/// Longest marker label in a `ReplayState`, in UTF-8 bytes.
pub const MAX_MARKER_LABEL: usize = 256;

/// Slowest replay speed, in percent of real time (0.5x).
pub const MIN_REPLAY_SPEED: u16 = 50;

/// Fastest replay speed, in percent of real time (8x).
pub const MAX_REPLAY_SPEED: u16 = 800;

/// Most entries one `Room` lists (the rest are counted, not named).
pub const MAX_ROOM_ENTRIES: usize = 64;

/// Longest name of a room's member (a user, key or link label), in UTF-8
/// bytes.
pub const MAX_MEMBER_NAME: usize = 64;

//! panecast's wire protocol: the messages a panecast server and its web client
//! exchange over WebSocket, one protocol message per binary WebSocket message.
//!
//! `PROTOCOL.md` in this crate is the byte-level specification; golden vectors
//! in `vectors/` pin it down. This crate does no I/O: it turns messages into
//! bytes ([`ServerMessage::encode`], [`ClientMessage::encode`]) and bytes into
//! messages ([`ServerMessage::decode`], [`ClientMessage::decode`]). Decoding
//! never panics, whatever the input.
//!
//! A server builds frames line by line with [`LineBuilder`] (or
//! [`Line::from_cells`]), and closes a connection whose message fails to decode
//! with [`DecodeError::close_code`].

#![warn(missing_docs)]

mod client;
pub mod close;
mod deflate;
mod error;
mod frame;
mod image;
mod js;
pub mod limits;
mod line;
mod reader;
mod replay;
mod room;
mod server;
mod style;
mod sync;
mod varint;
mod writer;

pub use client::{
    ClientMessage, Key, KeyEvent, Modifiers, MouseButton, MouseEvent, MouseKind, NamedKey, Theme,
};
pub use deflate::DEFLATE_MIN_BODY;
pub use error::{DecodeError, LineError};
pub use frame::{Cursor, CursorShape, EncodedFrame, Frame, FrameLine, Modes, MouseTracking};
pub use image::{Image, ImageHash, ImagePiece};
pub use js::javascript_constants;
pub use line::{Cell, Cells, Cluster, Line, LineBuilder, StyleRun, WideRun};
pub use replay::{ReplayControl, ReplayMarker, ReplayState};
pub use room::{MemberKind, Room, RoomEntry, SizePolicy};
pub use server::{Hello, Role, Scrollback, ServerMessage, Styles, PROTOCOL_VERSION};
pub use style::{Attrs, Color, Style, StyleDef, UnderlineKind};
pub use sync::{Echo, Revision, Sync};

/// The WebSocket subprotocol every stream of the protocol speaks.
pub const SUBPROTOCOL: &str = "panecast";

/// The prefix of the subprotocol that carries a credential, for clients
/// that cannot set headers (browsers): `panecast.token.` then the token.
pub const TOKEN_SUBPROTOCOL: &str = "panecast.token.";

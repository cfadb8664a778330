//! Recording and replay: sessions written as asciicast v2 files beside
//! their actor ([`Recorder`]), the recordings directory with its names,
//! listing and retention ([`Recordings`]), and reading any asciicast v2
//! file back ([`Cast`]) to render or replay it.

mod alis;
mod cast;
mod json;
mod retention;
mod store;
mod utf8;
mod writer;

pub use alis::{
    AlisEncoder, EOT as ALIS_EOT, MAGIC as ALIS_MAGIC, SUBPROTOCOL as ALIS_SUBPROTOCOL,
};
pub use cast::{apply, looks_like_cast, Cast, CastError, CastHeader, Event, EventKind, SNIFF};
pub use store::{
    valid_name, RecordError, RecordOptions, RecordingInfo, Recordings, SessionToRecord,
};
pub use writer::{Header, Recorder};

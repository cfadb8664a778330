//! Feeds arbitrary bytes to both decoders: they must never panic, and anything
//! they accept must survive a trip through the encoder unchanged.
//!
//! Run with `cargo +nightly fuzz run decode` from `proto/`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use panecast_proto::{ClientMessage, ServerMessage};

fuzz_target!(|data: &[u8]| {
    if let Ok(message) = ServerMessage::decode(data) {
        assert_eq!(ServerMessage::decode(&message.encode()), Ok(message));
    }
    if let Ok(message) = ClientMessage::decode(data) {
        assert_eq!(ClientMessage::decode(&message.encode()), Ok(message));
    }
});

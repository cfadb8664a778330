//! Turning what a user types into the bytes a program reads from its
//! terminal. The encoding depends on the terminal's modes (application
//! cursor keys, the kitty keyboard flags, `modifyOtherKeys`, ...), so the
//! session actor encodes with its grid's current modes; the HTTP API and the
//! WebSocket share this module.

mod encode;
mod keys;
mod kitty;
mod legacy;
mod mouse;
mod other_keys;
mod paste;

pub use encode::encode_key;
pub use keys::{parse_key, Key, KeyCode, KeyEvent, ModifierKey, Modifiers, UnknownKey};
pub use mouse::encode_mouse;
pub use paste::encode_paste;

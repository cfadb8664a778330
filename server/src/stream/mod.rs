//! Turning snapshots into wire messages for viewers.
//!
//! Each viewer remembers the generation and scroll count of the last frame it
//! was sent; the next frame carries only rows changed since, plus a scroll
//! hint. A slow viewer simply asks less often, so it skips intermediate
//! states and always converges on the latest screen. Encoded frame bodies are
//! shared between viewers that are at the same point, so a hundred viewers
//! of one session cost about one encoding per frame.

mod encoder;
pub mod events;
mod flow;
mod images;
mod lines;
pub mod redraw;
mod scrollback;

pub use encoder::{FrameCache, Outgoing, ViewerState, PIECE_CELLS};
pub use flow::{Flow, FlowError};
pub use images::{image_message, placed_images, ImagesSent};
pub use lines::{encode_row, wire_style, wire_style_linked};
pub use scrollback::{
    answer, decode_answer, encode_answer, rebase_scrollback, AnswerError, ScrollbackLines,
};

#[cfg(test)]
mod tests;

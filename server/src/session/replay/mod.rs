//! Replays: a read-only session whose output comes from a recording
//! instead of a pty. [`Sessions::replay`] starts one for one viewer: its
//! actor (the [player](player)) plays the file through the same [`Term`],
//! publishes on the same `watch`, and is read through the same
//! [`SessionHandle`], so the WebSocket stream and the web client are the
//! ones of live sessions. Seeking restores a keyframe of the
//! [`Timeline`] and plays only the events after it.
//!
//! [`Sessions::replay`]: super::Sessions::replay
//! [`Term`]: panecast_term::Term
//! [`SessionHandle`]: super::SessionHandle

mod player;
mod timeline;

use panecast_proto::{ReplayControl, ReplayState};
use tokio::sync::{mpsc, watch};

pub(super) use player::{Player, INITIAL_SPEED};
pub use timeline::{Marker, Timeline, KEYFRAME_BUDGET, REPLAY_SCROLLBACK};

/// A handle's way to its player: controls in, the playback's state out.
#[derive(Clone)]
pub(crate) struct ReplayLink {
    pub controls: mpsc::Sender<ReplayControl>,
    pub state: watch::Receiver<ReplayState>,
}

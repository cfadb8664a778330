//! The messages of a replay: a viewer's controls (play, pause, speed,
//! seek, marker jumps) and the server's description of the playback.

use crate::limits::{
    MAX_MARKER_LABEL, MAX_REPLAY_MARKERS, MAX_REPLAY_SPEED, MAX_TITLE, MIN_REPLAY_SPEED,
};
use crate::reader::Reader;
use crate::{writer, DecodeError};

/// A viewer's control of a replay (client to server, types 0x8A-0x8E).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayControl {
    /// 0x8A: play from the current position (from the start when at the end).
    Play,
    /// 0x8B: pause at the current position.
    Pause,
    /// 0x8C: play at this speed, in percent of real time,
    /// [`MIN_REPLAY_SPEED`] to [`MAX_REPLAY_SPEED`].
    Speed(u16),
    /// 0x8D: go to this many milliseconds from the start (past the end
    /// means the end).
    Seek(u64),
    /// 0x8E: go to the next marker (true) or the previous one (false).
    Marker(bool),
}

pub(crate) const PLAY: u8 = 0x8a;
pub(crate) const PAUSE: u8 = 0x8b;
pub(crate) const SPEED: u8 = 0x8c;
pub(crate) const SEEK: u8 = 0x8d;
pub(crate) const MARKER: u8 = 0x8e;

impl ReplayControl {
    /// True when `byte` is the type byte of a replay control.
    pub(crate) fn owns(byte: u8) -> bool {
        (PLAY..=MARKER).contains(&byte)
    }

    /// Appends the message (type byte first).
    pub(crate) fn encode_into(self, out: &mut Vec<u8>) {
        match self {
            ReplayControl::Play => out.push(PLAY),
            ReplayControl::Pause => out.push(PAUSE),
            ReplayControl::Speed(percent) => {
                out.push(SPEED);
                writer::uint(out, percent);
            }
            ReplayControl::Seek(ms) => {
                out.push(SEEK);
                writer::uint(out, ms);
            }
            ReplayControl::Marker(forward) => {
                out.push(MARKER);
                out.push(u8::from(forward));
            }
        }
    }

    /// Decodes the body of a message whose type byte [`Self::owns`].
    pub(crate) fn decode_body(kind: u8, r: &mut Reader<'_>) -> Result<ReplayControl, DecodeError> {
        Ok(match kind {
            PLAY => ReplayControl::Play,
            PAUSE => ReplayControl::Pause,
            SPEED => ReplayControl::Speed(r.u16_in(MIN_REPLAY_SPEED, MAX_REPLAY_SPEED, "speed")?),
            SEEK => ReplayControl::Seek(r.u64()?),
            MARKER => ReplayControl::Marker(r.bool("marker direction")?),
            other => return Err(DecodeError::UnknownType(other)),
        })
    }
}

/// A marker of the recording being replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayMarker {
    /// Milliseconds from the start.
    pub time_ms: u64,
    /// Its label, at most [`MAX_MARKER_LABEL`] bytes (may be empty).
    pub label: String,
}

/// 0x0B: where a replay stands; sent after the first frame and whenever
/// it plays, pauses, seeks, changes speed or reaches the end. Between two,
/// a playing replay's position advances at `speed` percent of real time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayState {
    /// The recording's title: its header's `title`, else its name (at
    /// most [`MAX_TITLE`] bytes).
    pub title: String,
    /// The recording's length in milliseconds (long pauses shortened).
    pub duration_ms: u64,
    /// The position the screen shows, in milliseconds from the start.
    pub position_ms: u64,
    /// Whether it plays.
    pub playing: bool,
    /// Speed in percent of real time, [`MIN_REPLAY_SPEED`] to [`MAX_REPLAY_SPEED`].
    pub speed: u16,
    /// The markers in time order, at most [`MAX_REPLAY_MARKERS`].
    pub markers: Vec<ReplayMarker>,
}

pub(crate) const REPLAY_STATE: u8 = 0x0b;
pub(crate) const PLAYING: u8 = 1;

impl ReplayState {
    /// Appends this message (type byte included).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.push(REPLAY_STATE);
        out.push(if self.playing { PLAYING } else { 0 });
        writer::uint(out, self.speed);
        writer::uint(out, self.duration_ms);
        writer::uint(out, self.position_ms);
        writer::str(out, &self.title);
        writer::len(out, self.markers.len());
        for marker in &self.markers {
            writer::uint(out, marker.time_ms);
            writer::str(out, &marker.label);
        }
    }

    pub(crate) fn decode_body(r: &mut Reader<'_>) -> Result<ReplayState, DecodeError> {
        let playing = r.flags(PLAYING, "replay flags")? & PLAYING != 0;
        let speed = r.u16_in(MIN_REPLAY_SPEED, MAX_REPLAY_SPEED, "speed")?;
        let duration_ms = r.u64()?;
        let position_ms = r.u64()?;
        if position_ms > duration_ms {
            return Err(DecodeError::OutOfRange { field: "position" });
        }
        let title = r.str(MAX_TITLE, "replay title")?.to_owned();
        let n = r.count(MAX_REPLAY_MARKERS, "markers")?;
        let mut markers = Vec::with_capacity(n);
        for _ in 0..n {
            let time_ms = r.u64()?;
            let label = r.str(MAX_MARKER_LABEL, "marker label")?.to_owned();
            markers.push(ReplayMarker { time_ms, label });
        }
        Ok(ReplayState {
            title,
            duration_ms,
            position_ms,
            playing,
            speed,
            markers,
        })
    }
}

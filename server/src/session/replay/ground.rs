//! Tells where a byte stream stands outside every escape sequence, the
//! only places a keyframe may be taken: [`Term::fork`] starts a fresh
//! parser, which is exact only there.
//!
//! It follows the states of the parser (ECMA-48 / DEC's, as `vte` has
//! them) just far enough to know when a sequence has ended, erring on the
//! side of "inside": a place it calls ground is ground for the parser.
//!
//! [`Term::fork`]: crate::term::Term::fork

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Ground,
    /// After ESC.
    Escape,
    /// After ESC and intermediate bytes.
    EscapeIntermediate,
    /// In a control sequence (CSI), up to its final byte.
    Csi,
    /// In an OSC string, up to BEL or ST.
    Osc,
    /// In another control string (DCS, SOS, PM, APC), up to ST.
    String,
}

/// The parser state the bytes seen so far leave.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SequenceTracker {
    state: State,
}

impl SequenceTracker {
    /// Follows `bytes`.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.state = next(self.state, byte);
        }
    }

    /// True when the bytes so far end outside any escape sequence.
    pub fn at_ground(&self) -> bool {
        self.state == State::Ground
    }
}

fn next(state: State, byte: u8) -> State {
    // From anywhere: ESC starts over, CAN and SUB cancel.
    match byte {
        ESC => return State::Escape,
        CAN | SUB => return State::Ground,
        _ => {}
    }
    match state {
        State::Ground => State::Ground,
        State::Escape => match byte {
            b'[' => State::Csi,
            b']' => State::Osc,
            b'P' | b'X' | b'^' | b'_' => State::String,
            0x20..=0x2f => State::EscapeIntermediate,
            0x30..=0x7e => State::Ground,
            _ => State::Escape,
        },
        State::EscapeIntermediate => match byte {
            0x30..=0x7e => State::Ground,
            _ => State::EscapeIntermediate,
        },
        State::Csi => match byte {
            0x40..=0x7e => State::Ground,
            _ => State::Csi,
        },
        State::Osc if byte == BEL => State::Ground,
        State::Osc => State::Osc,
        State::String => State::String,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends_at_ground(bytes: &[u8]) -> bool {
        let mut tracker = SequenceTracker::default();
        tracker.feed(bytes);
        tracker.at_ground()
    }

    #[test]
    fn plain_text_and_whole_sequences_end_at_ground() {
        assert!(ends_at_ground(b"hello\r\n"));
        assert!(ends_at_ground(b"\x1b[1;31mred\x1b[0m"));
        assert!(ends_at_ground(b"\x1b]0;title\x07"));
        assert!(ends_at_ground(b"\x1b]0;title\x1b\\"));
        assert!(ends_at_ground(b"\x1b(B\x1b7"));
        assert!(ends_at_ground(b"\x1bP$qm\x1b\\"));
    }

    #[test]
    fn cut_sequences_do_not() {
        for cut in [
            &b"\x1b"[..],
            b"\x1b[",
            b"\x1b[1;3",
            b"\x1b]0;tit",
            b"\x1b]0;title\x1b",
            b"\x1b(",
            b"\x1bP$q",
            b"\x1bPq#0;2;0;0;0\x07",
        ] {
            assert!(!ends_at_ground(cut), "{cut:?}");
        }
    }

    #[test]
    fn can_cancels_a_sequence() {
        assert!(ends_at_ground(b"\x1b[12\x18"));
        assert!(ends_at_ground(b"\x1b]0;x\x1a"));
    }
}

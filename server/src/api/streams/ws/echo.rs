//! What the client is told in `Sync` messages (PROTOCOL.md, 0x10): the
//! screen revision it holds, to resume from after a reconnect; the last of
//! its inputs the program has had time to echo, to judge what it predicted;
//! how the program's terminal echoes, so that it never predicts at a
//! password prompt.
//!
//! The client numbers its input messages (from the stream's `input`
//! parameter, one per Key, Text, Paste, Mouse or Focus message) and names
//! itself (`client`), so that an input sent again after a reconnect is
//! applied once (see [`crate::session::InputTag`]).

use std::collections::VecDeque;
use std::time::Duration;

use panecast_proto as proto;
use tokio::time::Instant;

use crate::pty::LineDiscipline;
use crate::session::InputTag;

/// How long after an input is written its echo is taken to be on the
/// screen: a program echoes within a millisecond or two, the session
/// publishes as soon as its output stops, and a mirror's owner is a NATS
/// hop away. An echo later than this is judged absent (the client drops
/// its prediction, and shows the echo when it comes).
pub(super) const ECHO_TIME: Duration = Duration::from_millis(30);

/// Inputs whose echo time runs, at most: more (a paste split in many
/// messages) settle together with the newest.
const MAX_RUNNING: usize = 256;

/// The client's inputs on one connection, and what it was last told.
pub(super) struct Echoes {
    /// Who the client is, when it said (inputs are then applied once).
    client: Option<u128>,
    /// The number of its next input message.
    next: u64,
    /// Inputs written whose echo time runs: their numbers and when it ends.
    running: VecDeque<(u64, Instant)>,
    /// The last input whose echo time has passed, until the client is sent
    /// a screen published after that (a screen held by the flow window,
    /// or not yet taken, may not show the echo).
    ready: u64,
    /// The last input whose echo time had passed before the screen the
    /// client was last sent.
    settled: u64,
    /// What the last `Sync` said, if one was sent.
    told: Option<proto::Sync>,
}

impl Echoes {
    /// A connection whose client numbers its next input `first`, of which
    /// the session applied up to `applied` before (a resumed client's).
    pub(super) fn new(client: Option<u128>, first: u64, applied: u64) -> Echoes {
        Echoes {
            client,
            next: first,
            running: VecDeque::new(),
            // Applied before this connection: long echoed.
            ready: applied,
            settled: applied,
            told: None,
        }
    }

    /// Numbers the client's next input message: its tag, when the client
    /// named itself, and its number.
    pub(super) fn number(&mut self) -> (Option<InputTag>, u64) {
        let seq = self.next;
        self.next += 1;
        let tag = self.client.map(|client| InputTag { client, seq });
        (tag, seq)
    }

    /// Input `seq` was written at `now` (or applied before): its echo time
    /// starts.
    pub(super) fn written(&mut self, seq: u64, now: Instant) {
        if self.running.len() >= MAX_RUNNING {
            self.running.pop_front();
        }
        self.running.push_back((seq, now + ECHO_TIME));
    }

    /// When the next echo time ends, while one runs.
    pub(super) fn due(&self) -> Option<Instant> {
        self.running.front().map(|(_, at)| *at)
    }

    /// Moves on past every input whose echo time ended by `now`: they
    /// settle with the next screen the client is [`shown`](Echoes::shown).
    pub(super) fn settle(&mut self, now: Instant) {
        while let Some(&(seq, at)) = self.running.front() {
            if at > now {
                break;
            }
            self.ready = self.ready.max(seq);
            self.running.pop_front();
        }
    }

    /// The client now has, whole, the latest screen published: every input
    /// whose echo time ended before has had its echo shown (or has none).
    pub(super) fn shown(&mut self) {
        self.settled = self.ready;
    }

    /// The `Sync` to send for `revision` and `discipline`, when it says
    /// something the last one did not.
    pub(super) fn sync(
        &mut self,
        revision: Option<proto::Revision>,
        discipline: Option<LineDiscipline>,
        barred: bool,
    ) -> Option<proto::Sync> {
        let revision = revision.or(self.told.map(|t| t.revision))?;
        let mut echo = discipline.map_or(proto::Echo::default(), |d| proto::Echo {
            known: true,
            echo: d.echo,
            canonical: d.canonical,
            barred: false,
        });
        echo.barred = barred;
        let sync = proto::Sync {
            revision,
            input: self.settled,
            echo,
        };
        if self.told == Some(sync) {
            return None;
        }
        self.told = Some(sync);
        Some(sync)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn revision(generation: u64) -> proto::Revision {
        proto::Revision {
            generation,
            cols: 80,
            rows: 24,
            ..proto::Revision::default()
        }
    }

    #[test]
    fn inputs_settle_once_their_echo_time_has_passed() {
        let start = Instant::now();
        let mut echoes = Echoes::new(Some(5), 1, 0);
        let (tag, seq) = echoes.number();
        assert_eq!((tag, seq), (Some(InputTag { client: 5, seq: 1 }), 1));
        echoes.written(seq, start);
        assert_eq!(echoes.due(), Some(start + ECHO_TIME));
        let first = echoes
            .sync(Some(revision(3)), None, false)
            .expect("the first");
        assert_eq!((first.input, first.echo.known), (0, false));
        assert_eq!(
            echoes.sync(Some(revision(3)), None, false),
            None,
            "nothing new"
        );
        echoes.settle(start + ECHO_TIME / 2);
        echoes.shown();
        assert_eq!(echoes.sync(None, None, false), None, "not yet");
        echoes.settle(start + ECHO_TIME);
        assert_eq!(
            echoes.sync(None, None, false),
            None,
            "not before the client has a screen published since"
        );
        echoes.shown();
        let settled = echoes.sync(None, None, false).expect("input 1 settled");
        assert_eq!((settled.input, settled.revision), (1, revision(3)));
        assert_eq!(echoes.due(), None);
        let password = LineDiscipline {
            echo: false,
            canonical: true,
        };
        let told = echoes
            .sync(None, Some(password), false)
            .expect("the echo changed");
        assert!(!told.echo.may_predict());
    }

    #[test]
    fn a_resumed_client_starts_from_what_was_applied() {
        // Sending again from 6: 6 and 7 arrived before the link dropped.
        let mut echoes = Echoes::new(Some(5), 6, 7);
        let first = echoes.sync(Some(revision(1)), None, false).expect("a sync");
        assert_eq!(first.input, 7, "what the session applied");
        assert_eq!(echoes.number().1, 6, "numbered as the client says");
        // A client that numbers from 1 without a past: nothing applied.
        let mut fresh = Echoes::new(None, 1, 0);
        assert_eq!(fresh.number(), (None, 1));
        assert_eq!(
            fresh.sync(None, None, false),
            None,
            "no revision yet: no sync"
        );
    }
}

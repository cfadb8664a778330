//! What is typed, between the keyboard and the link, as the web client's
//! `typing.js`: each input message numbered and held until acknowledged
//! ([`Outbox`]), predicted on the screen until the program echoes it
//! ([`Predictor`]), and the screen revision to resume from when the link
//! comes back.

use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

use panecast_proto::{Revision, Role, Sync};
use tokio::time::Instant;

use super::keys::Effect;
use super::outbox::{Outbox, HELD_MESSAGES};
use super::predict::{Mode, Predictor, Shown};
use super::screen::{Changes, Screen};

/// An input unacknowledged this long, or three round trips if longer,
/// means the link is quiet (as the web client).
pub const QUIET_AFTER: Duration = Duration::from_secs(1);

/// The typing of one attach, across its connections.
#[derive(Debug)]
pub struct Typing {
    outbox: Outbox,
    predictor: Predictor,
    /// The last `Sync`'s revision, while no frame came after it: the screen
    /// held is that one.
    revision: Option<Revision>,
    /// When each input not yet acknowledged was typed, oldest first.
    sent_at: VecDeque<(u64, Instant)>,
}

/// What a new connection's `Hello` leads to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Opened {
    /// Input messages held, to send in order before anything new.
    pub send: Vec<Vec<u8>>,
    /// Inputs dropped, since the connection cannot type.
    pub dropped: usize,
}

impl Typing {
    /// Typing for the client `client` (32 hex digits), predicting in `mode`.
    pub fn new(client: String, mode: Mode) -> Typing {
        Typing {
            outbox: Outbox::new(client),
            predictor: Predictor::new(mode),
            revision: None,
            sent_at: VecDeque::new(),
        }
    }

    /// Takes an input message, `bytes`, that has `effects` on `screen`:
    /// whether to send it now, or `None` when it was dropped (the link is
    /// down and the bound reached).
    pub fn input(
        &mut self,
        bytes: Vec<u8>,
        effects: &[Effect],
        screen: &Screen,
        now: Instant,
    ) -> Option<Option<Vec<u8>>> {
        let open = self.outbox.is_open();
        let seq = self.outbox.push(bytes.clone())?;
        self.sent_at.push_back((seq, now));
        if self.sent_at.len() > HELD_MESSAGES {
            self.sent_at.pop_front();
        }
        self.predictor.input(seq, effects, screen);
        Some(open.then_some(bytes))
    }

    /// The next connection's query parameters: `client`, `input`, and
    /// `resume` when the screen held is the last `Sync`'s.
    pub fn query(&self) -> String {
        let (client, input) = self.outbox.params();
        let mut query = format!("client={client}&input={input}");
        if let Some(revision) = self.revision {
            query.push_str("&resume=");
            query.push_str(&revision.to_query());
        }
        query
    }

    /// Whether the next connection resumes from the screen held.
    pub fn resumes(&self) -> bool {
        self.revision.is_some()
    }

    /// A `Sync`: the revision held, the echo state, and the inputs the
    /// program has had.
    pub fn sync(&mut self, sync: &Sync, screen: &Screen) {
        self.revision = Some(sync.revision);
        self.predictor.set_echo(sync.echo);
        self.outbox.acked(sync.input);
        while self
            .sent_at
            .front()
            .is_some_and(|(seq, _)| *seq <= sync.input)
        {
            self.sent_at.pop_front();
        }
        self.predictor.judge(sync.input, screen);
    }

    /// A frame was applied, with `changes`.
    pub fn frame(&mut self, changes: &Changes, screen: &Screen) {
        // Until the Sync that follows it.
        self.revision = None;
        if changes.full || changes.scroll > 0 || changes.pushed {
            self.predictor.reset(screen);
        }
    }

    /// Styles were defined: the screen held is no revision's until the
    /// next `Sync`.
    pub fn styles(&mut self) {
        self.revision = None;
    }

    /// A new connection that does not resume: the screen starts again.
    pub fn fresh(&mut self) {
        self.revision = None;
    }

    /// A connection's `Hello`, at `now`: one that may type sends what was
    /// held (its wait for the server starts now); one that cannot drops it.
    pub fn hello(&mut self, role: Role, now: Instant) -> Opened {
        if role == Role::Control {
            for (_, at) in &mut self.sent_at {
                *at = now;
            }
            return Opened {
                send: self.outbox.opened(),
                dropped: 0,
            };
        }
        self.sent_at.clear();
        Opened {
            send: Vec::new(),
            dropped: self.outbox.discard(),
        }
    }

    /// The connection closed: what is typed is held until the next.
    pub fn closed(&mut self) {
        self.outbox.closed();
    }

    /// A round-trip sample.
    pub fn rtt(&mut self, rtt: Duration) {
        self.predictor.rtt(rtt.as_secs_f64() * 1000.0);
    }

    /// How long the oldest input has waited for its acknowledgement, if one
    /// waits.
    pub fn waiting(&self, now: Instant) -> Option<Duration> {
        self.sent_at.front().map(|(_, at)| now - *at)
    }

    /// Whether the link has been quiet too long, given the oldest input's
    /// wait: how long, if so.
    pub fn quiet(&self, now: Instant) -> Option<Duration> {
        let srtt = self.predictor.srtt().unwrap_or(0.0);
        let limit = QUIET_AFTER.max(Duration::from_secs_f64(3.0 * srtt / 1000.0));
        self.waiting(now).filter(|w| *w > limit)
    }

    /// The predictions shown now.
    pub fn shown(&self) -> Vec<Shown> {
        self.predictor.shown()
    }

    /// The cursor as predicted, when it shows.
    pub fn cursor(&self) -> Option<(u16, u16)> {
        self.predictor.shown_cursor()
    }

    /// Rows whose shown predictions changed since the last call.
    pub fn touched(&mut self) -> BTreeSet<u16> {
        self.predictor.take_touched()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use panecast_proto::Echo;

    fn sync(input: u64) -> Sync {
        Sync {
            revision: Revision {
                generation: 3,
                cols: 80,
                rows: 24,
                ..Revision::default()
            },
            input,
            echo: Echo::default(),
        }
    }

    #[test]
    fn a_connection_resumes_from_the_last_sync_and_numbers_from_the_first_held() {
        let mut t = Typing::new("0123456789abcdef0123456789abcdef".into(), Mode::Auto);
        let screen = Screen::default();
        let now = Instant::now();
        assert_eq!(t.query(), "client=0123456789abcdef0123456789abcdef&input=1");
        assert_eq!(
            t.input(b"a".to_vec(), &[], &screen, now),
            Some(None),
            "held"
        );
        assert_eq!(t.hello(Role::Control, now).send, [b"a".to_vec()]);
        assert_eq!(
            t.input(b"b".to_vec(), &[], &screen, now),
            Some(Some(b"b".to_vec()))
        );
        t.sync(&sync(1), &screen);
        assert!(t.resumes());
        assert!(t.query().ends_with("&input=2&resume=3.0.0.0.80.24"));
        t.frame(&Changes::default(), &screen);
        assert!(!t.resumes(), "a frame came after the Sync");
        assert_eq!(t.waiting(now), Some(Duration::ZERO));
        assert_eq!(
            t.quiet(now + Duration::from_secs(2)),
            Some(Duration::from_secs(2))
        );
        t.sync(&sync(2), &screen);
        assert_eq!(t.waiting(now), None);
        t.closed();
        assert_eq!(t.input(b"c".to_vec(), &[], &screen, now), Some(None));
        let view = t.hello(Role::View, now);
        assert_eq!((view.send.len(), view.dropped), (0, 1));
    }
}

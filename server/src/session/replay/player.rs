//! The replay's actor: plays the timeline on the server clock at the
//! chosen speed, answers the viewer's controls, and publishes screens on
//! the same `watch` a live session's actor does, so the stream and the
//! client are the same.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use panecast_proto::limits::{MAX_MARKER_LABEL, MAX_REPLAY_MARKERS, MAX_TITLE};
use panecast_proto::{ReplayControl, ReplayMarker, ReplayState};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use crate::record::Cast;
use panecast_term::{Snapshot, Term};

use crate::access::Principal;

use super::super::actor::{scrollback_timed, search_now, sleep_until_some};
use super::super::command::{Reply, ScrollbackReply, SearchReply};
use super::super::search;
use super::super::{
    serve, Command, FreezeRequest, Input, InputTag, Reader, Runtime, SessionError, Status,
};
use super::timeline::Timeline;

/// Speed at the start, in percent of real time.
pub const INITIAL_SPEED: u16 = 100;
/// A marker this close behind the position (seconds) counts as the current
/// one: "previous" goes to the one before it.
const MARKER_SLACK: f64 = 0.001;

/// What a player starts with.
pub(in crate::session) struct Player {
    pub cast: Cast,
    /// The title viewers are told: the header's, else the recording's name.
    pub title: String,
    pub idle_limit: Option<f64>,
    pub commands: mpsc::Receiver<Command>,
    pub controls: mpsc::Receiver<ReplayControl>,
    pub screen: watch::Sender<Arc<Snapshot>>,
    pub state: watch::Sender<ReplayState>,
    /// Held so viewers see the session running while it plays.
    pub status: watch::Sender<Status>,
    pub published: Arc<AtomicU64>,
    /// Shortest time between two published screens.
    pub frame: Duration,
}

/// The playback's state.
struct Playback {
    title: String,
    timeline: Timeline,
    term: Term,
    /// The first event not yet played.
    next: usize,
    /// The position at `anchor`, in seconds.
    position: f64,
    anchor: Instant,
    playing: bool,
    speed: u16,
    last_publish: Option<Instant>,
    /// Set by a seek: the next screen is from another terminal, so it gets
    /// a new style epoch (viewers start over) and keeps the bell count.
    restarted: bool,
    epoch_shift: u32,
    bells_shift: u64,
    last_epoch: u32,
    last_bells: u64,
}

impl Player {
    /// Prepares the timeline (one pass through the file), then plays until
    /// every handle is gone or the session is killed.
    pub async fn run(self) {
        let Player {
            cast,
            title,
            idle_limit,
            mut commands,
            mut controls,
            screen,
            state,
            status,
            published,
            frame,
        } = self;
        // Nobody holds the session once its viewer has gone (or never
        // came): then preparing stops, and the replay's slot is free.
        let Some(timeline) = Timeline::prepare(cast, idle_limit, || screen.is_closed()) else {
            return;
        };
        let (term, next) = timeline.seek(0.0);
        let mut playback = Playback {
            title,
            timeline,
            term,
            next,
            position: 0.0,
            anchor: Instant::now(),
            playing: false,
            speed: INITIAL_SPEED,
            last_publish: None,
            restarted: true,
            epoch_shift: 0,
            bells_shift: 0,
            last_epoch: screen.borrow().style_epoch,
            last_bells: 0,
        };
        let out = Outlets {
            screen: &screen,
            state: &state,
            published: &published,
        };
        playback.publish(&out, Instant::now());
        playback.tell(&out);
        loop {
            let wake = playback.wake(frame);
            tokio::select! {
                biased;
                command = commands.recv() => {
                    if serve(&mut playback, command).await.is_break() {
                        break;
                    }
                }
                control = controls.recv() => match control {
                    None => break,
                    Some(control) => playback.control(control, &out, Instant::now()),
                },
                () = sleep_until_some(wake) => playback.tick(&out, Instant::now()),
            }
        }
        drop(status);
    }
}

/// A replay takes no input and keeps its recorded sizes; it reads its
/// terminal as a live session does.
impl Runtime for Playback {
    type Stop = ();

    async fn input(&mut self, _: Input, _: Principal, _: Option<InputTag>, reply: Reply) {
        let _ = reply.send(Err(SessionError::Replay));
    }

    async fn resize(&mut self, _: u16, _: u16, _: Principal, reply: Reply) {
        let _ = reply.send(Err(SessionError::Replay));
    }

    fn scrollback(&mut self, start: u64, count: u16, _: Reader, reply: ScrollbackReply) {
        let _ = reply.send(scrollback_timed(&self.term, start, count));
    }

    fn search(&mut self, pattern: search::Pattern, limit: usize, _: Reader, reply: SearchReply) {
        let _ = reply.send(Ok(search_now(&mut self.term, pattern, limit)));
    }

    async fn marker(&mut self, _: String, _: Principal, reply: Reply) {
        let _ = reply.send(Err(SessionError::Replay));
    }

    /// A replay's program is not asked about colours: nothing to answer.
    fn theme(&mut self, _: panecast_proto::Theme, _: Principal) {}

    async fn kill(&mut self, _: Option<Principal>, reply: oneshot::Sender<()>) -> ControlFlow<()> {
        let _ = reply.send(());
        ControlFlow::Break(())
    }

    /// Replays are not handed over: the request's sender sees it dropped.
    async fn freeze(&mut self, _: FreezeRequest) {}

    async fn closed(&mut self) {}
}

/// Where a player publishes.
struct Outlets<'a> {
    screen: &'a watch::Sender<Arc<Snapshot>>,
    state: &'a watch::Sender<ReplayState>,
    published: &'a AtomicU64,
}

impl Playback {
    /// The position at `now`, in seconds.
    fn position(&self, now: Instant) -> f64 {
        if !self.playing {
            return self.position;
        }
        let elapsed = now.saturating_duration_since(self.anchor).as_secs_f64();
        (self.position + elapsed * f64::from(self.speed) / 100.0).min(self.timeline.duration())
    }

    /// Re-anchors the clock at `now` (before a change of speed or state).
    fn settle(&mut self, now: Instant) {
        self.position = self.position(now);
        self.anchor = now;
    }

    /// When the next event is due (no sooner than a frame after the last
    /// screen); `None` while paused.
    fn wake(&self, frame: Duration) -> Option<Instant> {
        if !self.playing {
            return None;
        }
        let due = self
            .timeline
            .time_of(self.next)
            .unwrap_or(self.timeline.duration());
        let wait = ((due - self.position) * 100.0 / f64::from(self.speed)).max(0.0);
        let at = self.anchor + Duration::from_secs_f64(wait);
        Some(match self.last_publish {
            Some(last) => at.max(last + frame),
            None => at,
        })
    }

    /// Plays what is due by `now`; stops at the end.
    fn tick(&mut self, out: &Outlets<'_>, now: Instant) {
        let position = self.position(now);
        let next = self
            .timeline
            .play_until(&mut self.term, self.next, position);
        if next != self.next {
            self.next = next;
            self.publish(out, now);
        }
        if self.timeline.time_of(self.next).is_none() {
            self.position = self.timeline.duration();
            self.playing = false;
            self.tell(out);
        }
    }

    fn control(&mut self, control: ReplayControl, out: &Outlets<'_>, now: Instant) {
        match control {
            ReplayControl::Play => {
                if self.position(now) >= self.timeline.duration() {
                    self.seek(0.0, out, now);
                }
                self.settle(now);
                self.playing = true;
            }
            ReplayControl::Pause => {
                self.tick(out, now);
                self.settle(now);
                self.playing = false;
            }
            ReplayControl::Speed(speed) => {
                self.settle(now);
                self.speed = speed;
            }
            ReplayControl::Seek(ms) => self.seek(ms as f64 / 1000.0, out, now),
            ReplayControl::Marker(forward) => {
                let at = self.position(now);
                let markers = self.timeline.markers();
                let target = if forward {
                    markers
                        .iter()
                        .find(|m| m.time > at + MARKER_SLACK)
                        .map_or(self.timeline.duration(), |m| m.time)
                } else {
                    markers
                        .iter()
                        .rev()
                        .find(|m| m.time < at - MARKER_SLACK)
                        .map_or(0.0, |m| m.time)
                };
                self.seek(target, out, now);
            }
        }
        self.tell(out);
    }

    /// Shows the screen at `at` seconds, from the nearest keyframe.
    fn seek(&mut self, at: f64, out: &Outlets<'_>, now: Instant) {
        let at = at.clamp(0.0, self.timeline.duration());
        (self.term, self.next) = self.timeline.seek(at);
        self.position = at;
        self.anchor = now;
        self.restarted = true;
        self.publish(out, now);
    }

    fn publish(&mut self, out: &Outlets<'_>, now: Instant) {
        let mut snapshot = self.term.snapshot();
        if self.restarted {
            self.restarted = false;
            self.epoch_shift = self
                .last_epoch
                .wrapping_add(1)
                .wrapping_sub(snapshot.style_epoch);
            self.bells_shift = self.last_bells.wrapping_sub(snapshot.bells);
        }
        snapshot.style_epoch = snapshot.style_epoch.wrapping_add(self.epoch_shift);
        snapshot.bells = snapshot.bells.wrapping_add(self.bells_shift);
        (self.last_epoch, self.last_bells) = (snapshot.style_epoch, snapshot.bells);
        out.published.fetch_add(1, Ordering::AcqRel);
        out.screen.send_replace(Arc::new(snapshot));
        self.last_publish = Some(now);
    }

    /// Publishes where the replay stands.
    fn tell(&self, out: &Outlets<'_>) {
        let ms = |seconds: f64| (seconds * 1000.0).round() as u64;
        let duration_ms = ms(self.timeline.duration());
        let markers = self
            .timeline
            .markers()
            .iter()
            .take(MAX_REPLAY_MARKERS)
            .map(|m| ReplayMarker {
                time_ms: ms(m.time).min(duration_ms),
                label: clip(&m.label, MAX_MARKER_LABEL).to_owned(),
            })
            .collect();
        out.state.send_replace(ReplayState {
            title: clip(&self.title, MAX_TITLE).to_owned(),
            duration_ms,
            position_ms: ms(self.position).min(duration_ms),
            playing: self.playing,
            speed: self.speed,
            markers,
        });
    }
}

/// The longest prefix of `text` of at most `max` bytes.
fn clip(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

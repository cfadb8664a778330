//! A node's mirror of another node's session: a session to the API and
//! the stream layers like any other, whose screens are rebuilt from its
//! owner's messages ([`crate::cluster::Mirror`]) and whose commands go to
//! the owner as asks. One per session per node, shared by all its
//! viewers there; it ends when its last handle goes.
//!
//! It joins with a chunk set sent to its own inbox, then applies the
//! deltas published on the session's subject. On any gap (a missed
//! revision, a mark it does not hold, a chunk set that stalls) it asks for
//! a new chunk set and keeps the last good screen meanwhile. Every second
//! it asks the owner to keep publishing, which also tells it whether the
//! owner is there: when NATS says for [`GONE_AFTER`] that no one takes
//! the owner's asks, its node is gone and the mirror ends with
//! [`EndReason::NodeGone`].

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use async_nats::Subscriber;
use futures_util::StreamExt;
use panecast_proto::SizePolicy;
use tokio::sync::{mpsc, oneshot, watch};

use super::ask::{ask, ask_subject, screen_subject, Answer, Ask, Asked};
use crate::access::Principal;
use crate::cluster::{Bus, EndCause, Kind, Message, Mirror, Outcome, SessionRecord, SessionState};
use crate::config::Limits;
use crate::pty::ExitStatus;
use crate::session::search;
use crate::session::{
    serve, Command, EndReason, FreezeRequest, Input, InputTag, Reader, Reply, Runtime,
    ScrollbackReply, SearchReply, SessionError, SessionHandle, SessionInfo, Status,
};
use crate::session::{Outputs, Source, WeakHandle};
use crate::stream::{placed_images, ScrollbackLines};
use panecast_term::image::ImageSet;
use panecast_term::Snapshot;

/// How often the mirror asks its owner to go on publishing.
const WATCH_EVERY: Duration = Duration::from_secs(1);

/// How long NATS must say that no one takes the owner's asks before the
/// mirror takes its node for gone (a node reconnecting after a NATS
/// restart is back well within it).
const GONE_AFTER: Duration = Duration::from_millis(2500);

/// How long a chunk set may take to arrive before it is asked for again.
const CHUNKS_WITHIN: Duration = Duration::from_secs(2);

/// Commands queued to a mirror before senders wait.
const COMMAND_QUEUE: usize = 32;

/// Why a mirror could not be opened.
#[derive(Debug, thiserror::Error)]
pub(in crate::cluster) enum OpenError {
    /// The owner has no such session (any more).
    #[error("the session is not on its node any more")]
    NotFound,
    /// The owner did not answer, or NATS failed.
    #[error("the session's node cannot be reached: {0}")]
    Unreachable(String),
}

/// The session's info as its record tells it.
fn info_of(record: &SessionRecord) -> SessionInfo {
    SessionInfo {
        id: record.id.clone(),
        name: record.name.clone(),
        owner: record.owner.as_deref().and_then(|o| o.parse().ok()),
        profile: record.profile.clone(),
        command: record.command.clone(),
        pid: record.pid,
        created_at: crate::time::parse_rfc3339(&record.created_at)
            .unwrap_or(SystemTime::UNIX_EPOCH),
        recording: record.recording.clone(),
    }
}

/// The status a mark's state tells, if it tells one.
fn status_of(state: &SessionState) -> Option<Status> {
    match state {
        SessionState::Running => Some(Status::Running),
        SessionState::Exited {
            code,
            signal,
            at_ms,
            ..
        } => Some(Status::Exited {
            status: ExitStatus {
                code: *code,
                signal: signal.clone(),
            },
            at: SystemTime::UNIX_EPOCH + Duration::from_millis(*at_ms),
        }),
        SessionState::Gone { .. } => None,
    }
}

/// The end reason of a cause.
fn reason_of(cause: EndCause) -> EndReason {
    match cause {
        EndCause::Exited => EndReason::Exited,
        EndCause::Deleted => EndReason::Deleted,
        EndCause::ShutDown => EndReason::ShutDown,
    }
}

/// What runs when a mirror ends, before its viewers are told: given the
/// mirror, so that whoever keeps it can forget it (and not a newer one).
pub(in crate::cluster) type Ended = Box<dyn FnOnce(&WeakHandle) + Send>;

/// Opens a mirror of `record`'s session, owned by another node: returns
/// once its first screen arrived. `ended` runs when it ends.
pub(in crate::cluster) async fn open(
    bus: Bus,
    record: &SessionRecord,
    limits: &Limits,
    size_policy: SizePolicy,
    ended: Ended,
) -> Result<SessionHandle, OpenError> {
    let unreachable = |e: &dyn std::fmt::Display| OpenError::Unreachable(e.to_string());
    let client = bus.client();
    let screens = client
        .subscribe(screen_subject(&record.id))
        .await
        .map_err(|e| unreachable(&e))?;
    let inbox = client.new_inbox();
    let chunks = client
        .subscribe(inbox.clone())
        .await
        .map_err(|e| unreachable(&e))?;
    let mut link = Link {
        asks: ask_subject(&record.node, &record.id),
        owner: record.node.clone(),
        bus,
        inbox,
        screens,
        chunks,
        mirror: Mirror::new(),
    };
    let first = tokio::time::timeout(CHUNKS_WITHIN, link.join())
        .await
        .map_err(|_| OpenError::Unreachable("no screen from its node in time".to_owned()))??;
    let status = if record.state == "exited" {
        Status::Exited {
            status: ExitStatus {
                code: record.exit_code,
                signal: record.exit_signal.clone(),
            },
            at: record
                .exited_at
                .as_deref()
                .and_then(crate::time::parse_rfc3339)
                .unwrap_or(SystemTime::UNIX_EPOCH),
        }
    } else {
        Status::Running
    };
    let (screen_tx, screen_rx) = watch::channel(first);
    let (status_tx, status_rx) = watch::channel(status);
    let (discipline_tx, discipline_rx) = watch::channel(None);
    let (commands_tx, commands_rx) = mpsc::channel(COMMAND_QUEUE);
    let published = Arc::new(AtomicU64::new(1));
    let (probes_tx, probes_rx) = mpsc::channel(4);
    let handle = SessionHandle::new(
        info_of(record),
        commands_tx,
        Outputs {
            screen: screen_rx,
            status: status_rx,
            published: Arc::clone(&published),
            discipline: discipline_rx,
        },
        limits,
        size_policy,
        Source::Mirror {
            node: record.node.clone(),
        },
    );
    let follower = Follower {
        link,
        handle: handle.downgrade(),
        screen: screen_tx,
        status: status_tx,
        discipline: discipline_tx,
        published,
        from: crate::random::u64().unwrap_or(0),
        seq: 0,
        chunks_asked: None,
        silent_since: None,
        probes: probes_tx,
        ended: Some(ended),
        pending: None,
    };
    tokio::spawn(follower.run(commands_rx, probes_rx));
    Ok(handle)
}

/// The mirror's NATS side.
struct Link {
    bus: Bus,
    /// Where asks about the session go.
    asks: String,
    /// The node that owns the session: the only one whose screens count.
    owner: String,
    /// Where chunk sets for this mirror come.
    inbox: String,
    screens: Subscriber,
    chunks: Subscriber,
    mirror: Mirror,
}

impl Link {
    /// Asks for the whole screen and applies what comes until it is whole.
    async fn join(&mut self) -> Result<Arc<Snapshot>, OpenError> {
        let watch = Ask::Watch {
            chunks_to: Some(self.inbox.clone()),
        };
        match ask(&self.bus, &self.asks, &watch).await {
            Asked::Answer(Answer::Done) => {}
            Asked::Answer(Answer::NoSession) => return Err(OpenError::NotFound),
            Asked::Answer(other) => {
                return Err(OpenError::Unreachable(format!(
                    "an answer out of place: {other:?}"
                )))
            }
            Asked::NoResponders => {
                return Err(OpenError::Unreachable("its node is not there".to_owned()))
            }
            Asked::Failed(e) => return Err(OpenError::Unreachable(e)),
        }
        loop {
            let message = tokio::select! {
                Some(message) = self.chunks.next() => message,
                Some(message) = self.screens.next() => message,
                else => return Err(OpenError::Unreachable("NATS closed".to_owned())),
            };
            if let Ok(message) = self.open(&message) {
                if let Outcome::Updated(snapshot) = self.mirror.apply(message) {
                    return Ok(snapshot);
                }
            }
        }
    }

    /// A screen message from the owner: opened from its seal (the owner's
    /// own, for the subject it came on), then decoded.
    fn open(&self, message: &async_nats::Message) -> Result<Message, String> {
        let opened = self
            .bus
            .open(Kind::Screen, message.subject.as_str(), &message.payload)
            .map_err(|refusal| refusal.to_string())?;
        if opened.sender != self.owner {
            return Err(format!(
                "a screen sealed by node {}, not by the owner {}",
                opened.sender, self.owner
            ));
        }
        Message::decode(opened.payload).map_err(|e| e.to_string())
    }
}

/// A mirror's task: applies the owner's messages and forwards commands.
struct Follower {
    link: Link,
    /// To set why the session ended (a strong handle would keep it open).
    handle: WeakHandle,
    screen: watch::Sender<Arc<Snapshot>>,
    status: watch::Sender<Status>,
    /// How the owner's terminal echoes, as it tells.
    discipline: watch::Sender<Option<crate::pty::LineDiscipline>>,
    published: Arc<AtomicU64>,
    /// This mirror's id among its owner's askers.
    from: u64,
    /// Inputs sent so far.
    seq: u64,
    /// When a chunk set was last asked for, while one is awaited.
    chunks_asked: Option<Instant>,
    /// Since when NATS says no one takes the owner's asks.
    silent_since: Option<Instant>,
    /// Where the answers to the mirror's watches come.
    probes: mpsc::Sender<Asked>,
    /// Runs once, when the mirror ends.
    ended: Option<Ended>,
    /// The state of the last mark, with its stream and revision, until the
    /// mirror holds that revision.
    pending: Option<(u64, u64, SessionState)>,
}

/// Why a mirror stops.
enum Stop {
    /// Its last handle went.
    Unused,
    /// The session ended, for this reason.
    Ended(EndReason),
}

impl Follower {
    async fn run(
        mut self,
        mut commands: mpsc::Receiver<Command>,
        mut probes: mpsc::Receiver<Asked>,
    ) {
        let mut ticks = tokio::time::interval(WATCH_EVERY);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let stop = loop {
            tokio::select! {
                biased;
                command = commands.recv() => {
                    if let ControlFlow::Break(stop) = serve(&mut self, command).await {
                        break stop;
                    }
                }
                Some(message) = self.link.screens.next() => {
                    if let Some(stop) = self.apply(&message).await {
                        break stop;
                    }
                }
                Some(message) = self.link.chunks.next() => {
                    if let Some(stop) = self.apply(&message).await {
                        break stop;
                    }
                }
                Some(probe) = probes.recv() => {
                    if let Some(stop) = self.probed(probe) {
                        break stop;
                    }
                }
                _ = ticks.tick() => {
                    let awaited = self.chunks_asked.is_some_and(|at| at.elapsed() >= CHUNKS_WITHIN);
                    if awaited {
                        self.link.mirror.abandon_chunks();
                        self.chunks_asked = None;
                    }
                    self.probe(false);
                }
            }
        };
        if let Some(ended) = self.ended.take() {
            ended(&self.handle);
        }
        if let Stop::Ended(reason) = stop {
            self.end(reason);
        }
    }

    /// Asks the owner to go on publishing (and for a chunk set when
    /// `chunks`, or while one is awaited), answered into `probes`.
    fn probe(&mut self, chunks: bool) {
        let chunks = chunks || self.chunks_asked.is_some();
        if chunks && self.chunks_asked.is_none() {
            self.chunks_asked = Some(Instant::now());
        }
        let watch = Ask::Watch {
            chunks_to: chunks.then(|| self.link.inbox.clone()),
        };
        let (bus, subject, probes) = (
            self.link.bus.clone(),
            self.link.asks.clone(),
            self.probes.clone(),
        );
        tokio::spawn(async move {
            let answer = ask(&bus, &subject, &watch).await;
            // A full channel only drops a probe's news; the next one tells.
            let _ = probes.try_send(answer);
        });
    }

    /// What a probe's answer says about the owner.
    fn probed(&mut self, probe: Asked) -> Option<Stop> {
        match probe {
            Asked::Answer(Answer::NoSession) => {
                Some(Stop::Ended(self.end_reason().unwrap_or(EndReason::Deleted)))
            }
            Asked::NoResponders => {
                let since = *self.silent_since.get_or_insert_with(Instant::now);
                (since.elapsed() >= GONE_AFTER).then_some(Stop::Ended(EndReason::NodeGone))
            }
            Asked::Answer(_) => {
                self.silent_since = None;
                None
            }
            Asked::Failed(_) => None,
        }
    }

    /// The reason set on the handle, when the status says the session ended.
    fn end_reason(&self) -> Option<EndReason> {
        let handle = self.handle.upgrade()?;
        (!handle.status().running()).then(|| handle.end_reason())
    }

    /// Applies a message from the owner.
    async fn apply(&mut self, message: &async_nats::Message) -> Option<Stop> {
        let message = match self.link.open(message) {
            Ok(message) => message,
            Err(e) => {
                tracing::warn!(error = %e, "a screen message from another node refused");
                return None;
            }
        };
        if let Message::Discipline(now) = message {
            self.discipline.send_replace(Some(now));
            return None;
        }
        if let Message::Clipboard(text) = message {
            // The terminal keeps no more; a message must fit a viewer's.
            if text.len() > panecast_proto::limits::MAX_CLIPBOARD {
                tracing::warn!(
                    bytes = text.len(),
                    "a clipboard text from another node over the limit"
                );
                return None;
            }
            if let Some(handle) = self.handle.upgrade() {
                handle.clipboard_sender().send_replace(Some(text.into()));
            }
            return None;
        }
        if let Message::Mark(mark) = &message {
            if let SessionState::Gone { cause } = mark.state {
                return Some(Stop::Ended(reason_of(cause)));
            }
            self.pending = Some((mark.stream, mark.revision, mark.state.clone()));
        }
        match self.link.mirror.apply(message) {
            Outcome::Updated(snapshot) => {
                if self.link.mirror.held() == 0 {
                    self.chunks_asked = None;
                }
                self.published.fetch_add(1, Ordering::AcqRel);
                self.screen.send_replace(snapshot);
            }
            Outcome::Unchanged => {}
            Outcome::Resync(gap) => {
                if self.chunks_asked.is_none() {
                    tracing::debug!(?gap, "a mirror resyncs");
                    self.probe(true);
                }
            }
        }
        self.take_state();
        None
    }

    /// Takes the state of the last mark once the mirror holds the screen
    /// the mark came after: viewers never see a program's exit before its
    /// last screen.
    fn take_state(&mut self) {
        let Some((stream, revision, _)) = &self.pending else {
            return;
        };
        let held = self.link.mirror.revision();
        if !held.is_some_and(|(s, r)| s == *stream && r >= *revision) {
            return;
        }
        let Some((_, _, state)) = self.pending.take() else {
            return;
        };
        if let (Some(status), Some(handle)) = (status_of(&state), self.handle.upgrade()) {
            if let SessionState::Exited { cause, .. } = state {
                handle.set_end_reason(reason_of(cause));
            }
            self.status.send_if_modified(|now| {
                let changed = now.running() != status.running();
                if changed {
                    *now = status;
                }
                changed
            });
        }
    }

    /// Ends the mirror: its viewers see the status and close with `reason`.
    fn end(self, reason: EndReason) {
        if let Some(handle) = self.handle.upgrade() {
            handle.set_end_reason(reason);
        }
        self.status.send_if_modified(|now| {
            if now.running() {
                *now = Status::Exited {
                    status: ExitStatus {
                        code: None,
                        signal: None,
                    },
                    at: SystemTime::now(),
                };
                true
            } else {
                false
            }
        });
        // Dropping the screen's sender tells the viewers the session is over.
    }
}

/// A mirror forwards its commands to the owner as asks.
impl Runtime for Follower {
    type Stop = Stop;

    async fn input(&mut self, input: Input, by: Principal, tag: Option<InputTag>, reply: Reply) {
        self.seq += 1;
        let input = Ask::Input {
            from: self.from,
            seq: self.seq,
            input,
            by,
            tag,
        };
        // Asked again once when unanswered: the owner applies it once (a
        // new seal each time, so the bus takes it again).
        let mut asked = ask(&self.link.bus, &self.link.asks, &input).await;
        if matches!(asked, Asked::Failed(_)) {
            asked = ask(&self.link.bus, &self.link.asks, &input).await;
        }
        let _ = reply.send(done(asked));
    }

    async fn resize(&mut self, cols: u16, rows: u16, by: Principal, reply: Reply) {
        let resize = Ask::Resize { cols, rows, by };
        let asked = ask(&self.link.bus, &self.link.asks, &resize).await;
        let _ = reply.send(done(asked));
    }

    fn scrollback(&mut self, start: u64, count: u16, who: Reader, reply: ScrollbackReply) {
        let (bus, subject) = (self.link.bus.clone(), self.link.asks.clone());
        // The mirror holds the owner's pictures (replicated with its rows):
        // the answer's come from there.
        let held = self.screen.borrow().images.clone();
        tokio::spawn(async move {
            let scrollback = Ask::Scrollback {
                start,
                count,
                reader: who,
            };
            if let Some(lines) = lines(ask(&bus, &subject, &scrollback).await, &held) {
                let _ = reply.send(lines);
            }
        });
    }

    fn search(&mut self, pattern: search::Pattern, limit: usize, who: Reader, reply: SearchReply) {
        let (bus, subject) = (self.link.bus.clone(), self.link.asks.clone());
        tokio::spawn(async move {
            let search = Ask::Search {
                pattern: pattern.source().clone(),
                limit,
                reader: who,
            };
            let found = match ask(&bus, &subject, &search).await {
                Asked::Answer(Answer::Found { found, spent_us }) => {
                    Ok((found, Duration::from_micros(spent_us)))
                }
                other => Err(refusal(other)),
            };
            let _ = reply.send(found);
        });
    }

    async fn marker(&mut self, label: String, by: Principal, reply: Reply) {
        let asked = ask(&self.link.bus, &self.link.asks, &Ask::Marker { label, by }).await;
        let _ = reply.send(done(asked));
    }

    fn theme(&mut self, theme: panecast_proto::Theme, by: Principal) {
        let (bus, subject) = (self.link.bus.clone(), self.link.asks.clone());
        tokio::spawn(async move {
            // The owner answers its program's colour queries; a lost theme
            // leaves the one before.
            let _ = ask(&bus, &subject, &Ask::Theme { theme, by }).await;
        });
    }

    async fn kill(
        &mut self,
        by: Option<Principal>,
        reply: oneshot::Sender<()>,
    ) -> ControlFlow<Stop> {
        let Some(by) = by else {
            // This node shuts down; the session goes on on its own.
            let _ = reply.send(());
            return ControlFlow::Break(Stop::Ended(EndReason::ShutDown));
        };
        let reason = match ask(&self.link.bus, &self.link.asks, &Ask::Delete { by }).await {
            Asked::Answer(Answer::Deleted(state)) => {
                if let Some(status) = status_of(&state) {
                    self.status.send_replace(status);
                }
                Some(EndReason::Deleted)
            }
            Asked::Answer(Answer::NoSession) => Some(EndReason::Deleted),
            Asked::NoResponders => Some(EndReason::NodeGone),
            _ => None,
        };
        if let (Some(reason), Some(handle)) = (reason, self.handle.upgrade()) {
            handle.set_end_reason(reason);
        }
        let _ = reply.send(());
        match reason {
            Some(reason) => ControlFlow::Break(Stop::Ended(reason)),
            None => ControlFlow::Continue(()),
        }
    }

    /// A mirror is not handed over: it ends with the upgrade, and the
    /// request's sender sees it dropped.
    async fn freeze(&mut self, _: FreezeRequest) {}

    async fn closed(&mut self) -> Stop {
        Stop::Unused
    }
}

/// The outcome of an ask answered with `Done`.
fn done(asked: Asked) -> Result<(), SessionError> {
    match asked {
        Asked::Answer(Answer::Done) => Ok(()),
        other => Err(refusal(other)),
    }
}

/// The session error an answer other than the one expected stands for.
fn refusal(asked: Asked) -> SessionError {
    match asked {
        Asked::Answer(Answer::Refused(e)) => e,
        Asked::Answer(Answer::NoSession) => SessionError::Exited,
        _ => SessionError::NodeUnreachable,
    }
}

/// Scrollback lines from the owner's answer, with the pictures they place
/// that `held` (the mirror's images) has; `None` when there are none (the
/// asker sees its request dropped, as when a session ends).
fn lines(asked: Asked, held: &ImageSet) -> Option<(ScrollbackLines, Duration)> {
    let Asked::Answer(Answer::Lines {
        lines,
        styles,
        stamps,
        scroll_count,
        spent_us,
    }) = asked
    else {
        return None;
    };
    match crate::stream::decode_answer(&lines.0, &styles.0, &stamps) {
        Ok((answer, styles)) => Some((
            ScrollbackLines {
                images: placed_images(&answer.lines, held),
                answer,
                scroll_count,
                styles,
            },
            Duration::from_micros(spent_us),
        )),
        Err(e) => {
            tracing::warn!(error = %e, "scrollback from another node that does not decode");
            None
        }
    }
}

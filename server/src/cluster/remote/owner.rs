//! The owner's side: answers other nodes' asks about this node's sessions
//! on one subscription, and publishes the screens of the sessions some
//! node watches.
//!
//! Every ask is opened from its seal first (a forged, changed or replayed
//! one is refused there, and logged), then checked as if it came from
//! outside: who it acts for gets their grant again from this node's own
//! configuration ([`Gate`]), and the API's one check decides; a session
//! to start is resolved again from its request. A refusal is answered
//! and logged.
//!
//! Each session asked about gets a task of its own while it is watched
//! or sent input: it publishes a delta for every screen the session
//! publishes (so at most at the pacer's rate), a mark a moment after the
//! deltas settle, every second and when the session's state changes, and
//! a chunk set to a node's inbox when it joins or resyncs. Inputs go
//! through that task too, so that they are applied in order and once per
//! `(from, seq)`. Other asks (resize, reads, markers, themes, delete) are
//! answered each by a task of its own, so a slow one holds up nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant, SystemTime};

use async_nats::Subject;
use futures_util::StreamExt;
use panecast_proto::Role;
use tokio::sync::mpsc;

use super::ask::{asks_of, decode, encode, screen_subject, Answer, Ask, WATCH_FOR};
use super::incoming::Incoming;
use crate::access::{Action, Principal, Target};
use crate::cluster::{Bus, EndCause, Kind, Message, Publisher, Registry, SessionState};
use crate::session::search::Pattern;
use crate::session::{
    EndReason, Gate, Input, InputTag, RefusalKind, SessionError, SessionHandle, Sessions, Status,
};

/// How long after a delta, with no delta since, its mark follows.
const SETTLE: Duration = Duration::from_millis(100);

/// How often a watched session's mark goes out anyway.
const MARK_EVERY: Duration = Duration::from_secs(1);

/// How long to wait before subscribing again after the subscription ended.
const RESUBSCRIBE_DELAY: Duration = Duration::from_secs(1);

/// Room kept in NATS's largest message for what a seal adds (its header
/// with the longest node name, and its tag).
const SEAL_ROOM: usize = 512;

/// Asks that one session's task handles, in order.
enum Queued {
    Watch {
        chunks_to: Option<String>,
        reply: Subject,
    },
    Input {
        from: u64,
        seq: u64,
        input: Input,
        by: Principal,
        tag: Option<InputTag>,
        reply: Subject,
    },
}

/// The tasks of the sessions asked about, by id.
type Served = Arc<Mutex<HashMap<String, mpsc::Sender<Queued>>>>;

/// Asks queued to one session's task before the serving loop waits.
const QUEUE: usize = 64;

/// Serves other nodes' asks about the sessions of `sessions` until the
/// server ends, judged by `gate`; returns once it takes them.
pub(in crate::cluster) async fn serve_asks(
    sessions: Weak<Sessions>,
    registry: Arc<Registry>,
    gate: Arc<dyn Gate>,
) -> Result<(), async_nats::SubscribeError> {
    let bus = registry.bus().clone();
    let client = bus.client().clone();
    let first = client.subscribe(asks_of(registry.node())).await?;
    tokio::spawn(async move {
        let served: Served = Arc::default();
        let mut subscribed = Some(first);
        loop {
            let mut asks = match subscribed.take() {
                Some(asks) => asks,
                None => match client.subscribe(asks_of(registry.node())).await {
                    Ok(asks) => asks,
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot take asks from other nodes");
                        tokio::time::sleep(RESUBSCRIBE_DELAY).await;
                        continue;
                    }
                },
            };
            while let Some(message) = asks.next().await {
                let Some(sessions) = sessions.upgrade() else {
                    return;
                };
                let Some(reply) = message.reply else {
                    continue;
                };
                // Refused (and logged) by the bus when no node sealed it
                // for this subject, or it was taken before.
                let Ok(opened) = bus.open(Kind::Ask, message.subject.as_str(), &message.payload)
                else {
                    continue;
                };
                let from = opened.sender.to_owned();
                let id = message.subject.rsplit('.').next().unwrap_or_default();
                let ask: Ask = match decode(opened.payload) {
                    Ok(ask) => ask,
                    Err(e) => {
                        tracing::warn!(error = %e, subject = %message.subject, "an ask that does not decode");
                        continue;
                    }
                };
                let asked = Incoming {
                    bus: bus.clone(),
                    gate: Arc::clone(&gate),
                    from,
                    reply,
                };
                match ask {
                    Ask::Recordings { .. }
                    | Ask::Recording { .. }
                    | Ask::RecordingPart { .. }
                    | Ask::DeleteRecording { .. } => {
                        let sessions = Arc::clone(&sessions);
                        tokio::spawn(async move {
                            let answer = super::recordings::answer(&sessions, &asked, ask).await;
                            asked.respond(&answer).await;
                        });
                    }
                    Ask::Create { request, by } => {
                        let (sessions, node) = (Arc::clone(&sessions), registry.node().to_owned());
                        tokio::spawn(async move {
                            let answer = create(&sessions, &asked, &request.0, &by, &node).await;
                            asked.respond(&answer).await;
                        });
                    }
                    ask => match sessions.get(id) {
                        Some(session) => dispatch(&sessions, &served, session, ask, asked).await,
                        None => asked.respond(&Answer::NoSession).await,
                    },
                }
            }
            tokio::time::sleep(RESUBSCRIBE_DELAY).await;
        }
    });
    Ok(())
}

/// Starts the session `request` asks for, for `by`, as this node's
/// configuration resolves it; the record of the session, or why not.
async fn create(
    sessions: &Arc<Sessions>,
    asked: &Incoming,
    request: &[u8],
    by: &Principal,
    node: &str,
) -> Answer {
    let grant = match asked.allowed(by, Action::Create, None) {
        Ok(grant) => grant,
        Err(Answer::Refused(e)) => {
            return Answer::NotCreated {
                kind: RefusalKind::Denied,
                message: e.to_string(),
            }
        }
        Err(answer) => return answer,
    };
    let created = match asked.gate.admit(request, &grant) {
        Ok(spec) => sessions.create(spec).await,
        Err(e) => {
            asked.denied(by, "a new session", &e.to_string());
            Err(e)
        }
    };
    match created {
        Ok(session) => Answer::Created(Box::new(crate::cluster::sessions::record_of(
            &session, node,
        ))),
        Err(e) => Answer::NotCreated {
            kind: e.refusal_kind(),
            message: e.to_string(),
        },
    }
}

/// The answer of a session's reply.
fn done(result: Result<(), SessionError>) -> Answer {
    match result {
        Ok(()) => Answer::Done,
        Err(e) => Answer::Refused(e),
    }
}

/// Hands `ask` to the session's task, or answers it in a task of its own.
async fn dispatch(
    sessions: &Arc<Sessions>,
    served: &Served,
    session: SessionHandle,
    ask: Ask,
    asked: Incoming,
) {
    let queued = match ask {
        Ask::Watch { chunks_to } => Queued::Watch {
            chunks_to,
            reply: asked.reply.clone(),
        },
        Ask::Input {
            from,
            seq,
            input,
            by,
            tag,
        } => {
            let target = target_of(&session);
            if let Err(refusal) = asked.allowed(&by, Action::Control, Some(target)) {
                asked.respond(&refusal).await;
                return;
            }
            Queued::Input {
                from,
                seq,
                input,
                by,
                tag,
                reply: asked.reply.clone(),
            }
        }
        other => {
            let sessions = Arc::clone(sessions);
            tokio::spawn(async move {
                let answer = answer(&sessions, &session, other, &asked).await;
                asked.respond(&answer).await;
            });
            return;
        }
    };
    let bus = asked.bus;
    let queue = {
        let mut served_now = served.lock().unwrap_or_else(PoisonError::into_inner);
        let queue = served_now
            .entry(session.id().to_owned())
            .or_insert_with(|| start_serving(session.clone(), bus.clone(), Arc::clone(served)));
        queue.clone()
    };
    if let Err(mpsc::error::SendError(queued)) = queue.send(queued).await {
        // The task ended as this came: a new one takes it.
        let queue = start_serving(session.clone(), bus, Arc::clone(served));
        lock(served).insert(session.id().to_owned(), queue.clone());
        // Just started, with room in its queue.
        let _ = queue.send(queued).await;
    }
}

/// Locks the map of served sessions (a map of senders, whole after any
/// panic).
fn lock(served: &Served) -> std::sync::MutexGuard<'_, HashMap<String, mpsc::Sender<Queued>>> {
    served.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A session as the access check sees it.
fn target_of(session: &SessionHandle) -> Target<'_> {
    let info = session.info();
    Target {
        id: &info.id,
        name: info.name.as_deref(),
        owner: info.owner.as_ref(),
    }
}

/// Answers an ask that needs no order, once who it acts for may.
async fn answer(
    sessions: &Sessions,
    session: &SessionHandle,
    ask: Ask,
    asked: &Incoming,
) -> Answer {
    answered(sessions, session, ask, asked)
        .await
        .unwrap_or_else(|refusal| refusal)
}

/// [`answer`], with a refusal for who an ask acts for as the error.
async fn answered(
    sessions: &Sessions,
    session: &SessionHandle,
    ask: Ask,
    asked: &Incoming,
) -> Result<Answer, Answer> {
    let target = Some(target_of(session));
    Ok(match ask {
        Ask::Resize { cols, rows, by } => {
            asked.allowed(&by, Action::Control, target)?;
            done(session.resize(cols, rows, &by).await)
        }
        Ask::Marker { label, by } => {
            asked.allowed(&by, Action::Control, target)?;
            done(session.add_marker(label, &by).await)
        }
        Ask::Theme { theme, by } => {
            asked.allowed(&by, Action::Control, target)?;
            session.set_theme(Role::Control, theme, &by).await;
            Answer::Done
        }
        Ask::Scrollback {
            start,
            count,
            reader,
        } => {
            asked.allowed(reader.principal(), Action::Read, target)?;
            let started = Instant::now();
            match session.scrollback(start, count, &reader).await {
                Ok(lines) => {
                    let (encoded, styles) =
                        crate::stream::encode_answer(&lines.answer, &lines.styles);
                    Answer::Lines {
                        lines: crate::cluster::Bytes(encoded),
                        styles: crate::cluster::Bytes(styles),
                        stamps: lines.styles.iter().map(|(_, stamp, _)| *stamp).collect(),
                        scroll_count: lines.scroll_count,
                        spent_us: micros(started.elapsed()),
                    }
                }
                Err(e) => Answer::Refused(e),
            }
        }
        Ask::Search {
            pattern,
            limit,
            reader,
        } => {
            asked.allowed(reader.principal(), Action::Read, target)?;
            let started = Instant::now();
            let Ok(compiled) = Pattern::new(&pattern.text, pattern.regex, pattern.case) else {
                // The asking node compiled it: the same binary compiles it here.
                return Ok(Answer::Refused(SessionError::NodeUnreachable));
            };
            match session.search(compiled, limit, &reader).await {
                Ok(found) => Answer::Found {
                    found,
                    spent_us: micros(started.elapsed()),
                },
                Err(e) => Answer::Refused(e),
            }
        }
        Ask::Delete { by } => {
            asked.allowed(&by, Action::Delete, target)?;
            let Some(session) = sessions.remove(session.id()) else {
                return Ok(Answer::NoSession);
            };
            session.delete(&by).await;
            Answer::Deleted(state_of(&session))
        }
        // Queued to the session's task, or answered as it came: never here.
        Ask::Watch { .. }
        | Ask::Input { .. }
        | Ask::Create { .. }
        | Ask::Recordings { .. }
        | Ask::Recording { .. }
        | Ask::RecordingPart { .. }
        | Ask::DeleteRecording { .. } => Answer::NoSession,
    })
}

/// Microseconds, saturating.
fn micros(spent: Duration) -> u64 {
    u64::try_from(spent.as_micros()).unwrap_or(u64::MAX)
}

/// The session's state, as marks tell it.
pub(super) fn state_of(session: &SessionHandle) -> SessionState {
    match session.status() {
        Status::Running => SessionState::Running,
        Status::Exited { status, at } => SessionState::Exited {
            code: status.code,
            signal: status.signal,
            at_ms: at
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            cause: cause_of(session.end_reason()),
        },
    }
}

/// The cause marks tell for `reason`.
fn cause_of(reason: EndReason) -> EndCause {
    match reason {
        EndReason::Exited | EndReason::NodeGone => EndCause::Exited,
        EndReason::Deleted => EndCause::Deleted,
        EndReason::ShutDown => EndCause::ShutDown,
    }
}

/// Starts the task that serves `session`'s screens and inputs; it ends
/// once no node watched for [`WATCH_FOR`], or with the session.
fn start_serving(session: SessionHandle, bus: Bus, served: Served) -> mpsc::Sender<Queued> {
    let (queue, mut asks) = mpsc::channel(QUEUE);
    let mine = queue.clone();
    tokio::spawn(async move {
        let id = session.id().to_owned();
        let mut serving = Serving::new(session, bus);
        serving.run(&mut asks).await;
        {
            let mut served = lock(&served);
            if served.get(&id).is_some_and(|q| q.same_channel(&mine)) {
                served.remove(&id);
            }
            // No ask comes in after this; a sender that holds this queue
            // finds it closed and starts a new task.
            asks.close();
        }
        // Asks queued as the task ended are answered, never dropped (a
        // dropped ask is a time-out on the asking node).
        while let Some(queued) = asks.recv().await {
            serving.queued(queued).await;
        }
    });
    queue
}

/// One session's screens and inputs, served.
struct Serving {
    session: SessionHandle,
    bus: Bus,
    subject: Subject,
    /// The largest message NATS takes.
    limit: usize,
    /// Set while some node watches.
    publisher: Option<Publisher>,
    watched_until: Instant,
    /// The last input applied of each asking mirror.
    applied: HashMap<u64, u64>,
    /// When the mark of the deltas just sent is due.
    settle_at: Option<Instant>,
}

impl Serving {
    fn new(session: SessionHandle, bus: Bus) -> Serving {
        // What the seal adds must fit too: its header and tag.
        let limit = bus
            .client()
            .server_info()
            .max_payload
            .saturating_sub(SEAL_ROOM);
        Serving {
            subject: screen_subject(session.id()).into(),
            session,
            bus,
            limit,
            publisher: None,
            watched_until: Instant::now(),
            applied: HashMap::new(),
            settle_at: None,
        }
    }

    /// Serves asks and screens until no node watched for [`WATCH_FOR`],
    /// or the session is gone.
    async fn run(&mut self, asks: &mut mpsc::Receiver<Queued>) {
        let mut screens = self.session.subscribe();
        screens.borrow_and_update();
        let mut status = self.session.watch_status();
        let mut clipboard = self.session.watch_clipboard();
        let mut discipline = self.session.watch_discipline();
        // The first tick a period from now: an immediate one could end the
        // task before it took the ask it was started for.
        let mut ticks =
            tokio::time::interval_at(tokio::time::Instant::now() + MARK_EVERY, MARK_EVERY);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let settle = self.settle_at;
            // Asks first: a tick that finds the task unwatched must not win
            // over an ask already queued (before this, under load the first
            // tick could be ready at the first poll and end the task with
            // its first Watch unanswered: the asking node timed out).
            tokio::select! {
                biased;
                queued = asks.recv() => match queued {
                    Some(queued) => self.queued(queued).await,
                    None => return,
                },
                changed = screens.changed() => {
                    if changed.is_err() {
                        self.gone().await;
                        return;
                    }
                    let screen = Arc::clone(&screens.borrow_and_update());
                    self.publish(screen).await;
                }
                changed = status.changed() => {
                    if changed.is_ok() {
                        status.borrow_and_update();
                        // The screen the session published before its
                        // state changed goes first: a mirror takes a state
                        // only once it holds the revision its mark names.
                        if screens.has_changed().unwrap_or(false) {
                            let screen = Arc::clone(&screens.borrow_and_update());
                            self.publish(screen).await;
                        }
                        self.mark().await;
                    }
                }
                Ok(()) = discipline.changed() => {
                    let now = *discipline.borrow_and_update();
                    if let (Some(now), Some(_)) = (now, &self.publisher) {
                        self.send(Message::Discipline(now).encode()).await;
                    }
                }
                changed = clipboard.changed() => {
                    let text = clipboard.borrow_and_update().clone();
                    if let (Ok(()), Some(text), Some(_)) = (changed, text, &self.publisher) {
                        self.send(Message::Clipboard(text.to_string()).encode()).await;
                    }
                }
                () = sleep_until(settle) => {
                    self.settle_at = None;
                    self.mark().await;
                }
                _ = ticks.tick() => {
                    if Instant::now() >= self.watched_until {
                        // Unwatched for WATCH_FOR: a later ask starts anew.
                        return;
                    }
                    self.mark().await;
                }
            }
        }
    }

    async fn queued(&mut self, queued: Queued) {
        match queued {
            Queued::Watch { chunks_to, reply } => {
                self.watched_until = Instant::now() + WATCH_FOR;
                let publisher = self
                    .publisher
                    .get_or_insert_with(|| Publisher::new(stream_id(), self.session.screen()));
                if let Some(inbox) = chunks_to {
                    let inbox = Subject::from(inbox);
                    match publisher.chunks(self.limit) {
                        Ok(chunks) => {
                            for chunk in chunks {
                                let bytes = Message::Chunk(chunk).encode();
                                if self
                                    .bus
                                    .publish(Kind::Screen, inbox.clone(), &bytes)
                                    .await
                                    .is_err()
                                {
                                    break;
                                }
                            }
                        }
                        Err(e) => tracing::warn!(error = %e, "cannot send a screen in chunks"),
                    }
                    // A mirror that joins learns how the terminal echoes.
                    let now = *self.session.watch_discipline().borrow();
                    if let Some(now) = now {
                        let bytes = Message::Discipline(now).encode();
                        if let Err(e) = self.bus.publish(Kind::Screen, inbox, &bytes).await {
                            tracing::debug!(error = %e, "cannot send the line discipline");
                        }
                    }
                }
                self.answer(reply, &Answer::Done).await;
            }
            Queued::Input {
                from,
                seq,
                input,
                by,
                tag,
                reply,
            } => {
                let last = self.applied.entry(from).or_insert(0);
                let answer = if seq <= *last {
                    // A retry of an input already applied.
                    Answer::Done
                } else {
                    *last = seq;
                    done(self.session.send_input(input, &by, tag).await)
                };
                self.answer(reply, &answer).await;
            }
        }
    }

    /// Publishes the changes to `screen` while some node watches: as a
    /// delta, or as a chunk set when the delta is over NATS's limit.
    async fn publish(&mut self, screen: Arc<panecast_term::Snapshot>) {
        let Some(publisher) = &mut self.publisher else {
            return;
        };
        let delta = publisher.publish(screen);
        let bytes = Message::Delta(delta).encode();
        if bytes.len() <= self.limit {
            self.send(bytes).await;
        } else {
            match publisher.chunks(self.limit) {
                Ok(chunks) => {
                    for chunk in chunks {
                        self.send(Message::Chunk(chunk).encode()).await;
                    }
                }
                Err(e) => tracing::warn!(error = %e, "cannot send a screen in chunks"),
            }
        }
        self.settle_at = Some(Instant::now() + SETTLE);
    }

    /// Publishes the latest revision and the session's state.
    async fn mark(&mut self) {
        if let Some(publisher) = &self.publisher {
            let mark = publisher.mark(state_of(&self.session));
            self.send(Message::Mark(mark).encode()).await;
        }
    }

    /// The session is over here: tells the watching nodes.
    async fn gone(&mut self) {
        if let Some(publisher) = &self.publisher {
            let cause = cause_of(self.session.end_reason());
            let mark = publisher.mark(SessionState::Gone { cause });
            self.send(Message::Mark(mark).encode()).await;
        }
    }

    async fn send(&self, bytes: Vec<u8>) {
        if let Err(e) = self
            .bus
            .publish(Kind::Screen, self.subject.clone(), &bytes)
            .await
        {
            tracing::debug!(error = %e, "cannot publish a screen");
        }
    }

    /// Sends `answer` to an ask's `reply` subject, sealed.
    async fn answer(&self, reply: Subject, answer: &Answer) {
        if let Err(e) = self.bus.publish(Kind::Answer, reply, &encode(answer)).await {
            tracing::debug!(error = %e, "cannot answer an ask");
        }
    }
}

/// Waits until `at`, or forever without one.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// A new publisher's stream id: random, so that a publisher started
/// again is never taken for the one before (0 when the system has no
/// randomness to give: two streams may then share an id, and a mirror
/// that holds one of them resyncs on the other's marks or misses).
fn stream_id() -> u64 {
    crate::random::u64().unwrap_or(0)
}

//! The owner's side: answers other nodes' asks about this node's sessions
//! on one subscription, and publishes the screens of the sessions some
//! node watches.
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

use async_nats::{Client, Subject};
use futures_util::StreamExt;
use panecast_proto::Role;
use tokio::sync::mpsc;

use super::ask::{asks_of, decode, encode, screen_subject, Answer, Ask, WATCH_FOR};
use crate::cluster::{EndCause, Message, Publisher, Registry, SessionState};
use crate::session::search::Pattern;
use crate::session::{EndReason, Input, SessionError, SessionHandle, Sessions, Status};

/// How long after a delta, with no delta since, its mark follows.
const SETTLE: Duration = Duration::from_millis(100);

/// How often a watched session's mark goes out anyway.
const MARK_EVERY: Duration = Duration::from_secs(1);

/// How long to wait before subscribing again after the subscription ended.
const RESUBSCRIBE_DELAY: Duration = Duration::from_secs(1);

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
        reply: Subject,
    },
}

/// The tasks of the sessions asked about, by id.
type Served = Arc<Mutex<HashMap<String, mpsc::Sender<Queued>>>>;

/// Asks queued to one session's task before the serving loop waits.
const QUEUE: usize = 64;

/// Serves other nodes' asks about the sessions of `sessions` until the
/// server ends; returns once it takes them.
pub(in crate::session) async fn serve_asks(
    sessions: Weak<Sessions>,
    registry: Arc<Registry>,
) -> Result<(), async_nats::SubscribeError> {
    let client = registry.client().clone();
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
                let id = message.subject.rsplit('.').next().unwrap_or_default();
                let ask: Ask = match decode(&message.payload) {
                    Ok(ask) => ask,
                    Err(e) => {
                        tracing::warn!(error = %e, subject = %message.subject, "an ask that does not decode");
                        continue;
                    }
                };
                if matches!(
                    ask,
                    Ask::Recordings
                        | Ask::Recording(_)
                        | Ask::RecordingPart { .. }
                        | Ask::DeleteRecording(_)
                ) {
                    let (client, recordings) = (client.clone(), Arc::clone(sessions.recordings()));
                    tokio::spawn(async move {
                        let answer = super::recordings::answer(recordings, ask).await;
                        respond(&client, reply, &answer).await;
                    });
                    continue;
                }
                if let Ask::Create(spec) = ask {
                    let (client, sessions, node) = (
                        client.clone(),
                        Arc::clone(&sessions),
                        registry.node().to_owned(),
                    );
                    tokio::spawn(async move {
                        let answer = match sessions.create(*spec).await {
                            Ok(session) => Answer::Created(Box::new(
                                crate::session::cluster::record_of(&session, &node),
                            )),
                            Err(e) => Answer::NotCreated {
                                kind: e.refusal_kind(),
                                message: e.to_string(),
                            },
                        };
                        respond(&client, reply, &answer).await;
                    });
                    continue;
                }
                let Some(session) = sessions.get(id) else {
                    respond(&client, reply, &Answer::NoSession).await;
                    continue;
                };
                dispatch(&sessions, &served, &client, session, ask, reply).await;
            }
            tokio::time::sleep(RESUBSCRIBE_DELAY).await;
        }
    });
    Ok(())
}

/// Sends `answer` to `reply`; a lost answer is the asker's timeout.
async fn respond(client: &Client, reply: Subject, answer: &Answer) {
    if let Err(e) = client.publish(reply, encode(answer).into()).await {
        tracing::debug!(error = %e, "cannot answer an ask");
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
    client: &Client,
    session: SessionHandle,
    ask: Ask,
    reply: Subject,
) {
    let queued = match ask {
        Ask::Watch { chunks_to } => Queued::Watch { chunks_to, reply },
        Ask::Input { from, seq, input } => Queued::Input {
            from,
            seq,
            input,
            reply,
        },
        other => {
            let (client, sessions) = (client.clone(), Arc::clone(sessions));
            tokio::spawn(async move {
                let answer = answer(&sessions, &session, other).await;
                respond(&client, reply, &answer).await;
            });
            return;
        }
    };
    let queue = {
        let mut served_now = served.lock().unwrap_or_else(PoisonError::into_inner);
        let queue = served_now
            .entry(session.id().to_owned())
            .or_insert_with(|| start_serving(session.clone(), client.clone(), Arc::clone(served)));
        queue.clone()
    };
    if let Err(mpsc::error::SendError(queued)) = queue.send(queued).await {
        // The task ended as this came: a new one takes it.
        let queue = start_serving(session.clone(), client.clone(), Arc::clone(served));
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

/// Answers an ask that needs no order.
async fn answer(sessions: &Sessions, session: &SessionHandle, ask: Ask) -> Answer {
    match ask {
        Ask::Resize { cols, rows } => done(session.resize(cols, rows).await),
        Ask::Marker(label) => done(session.add_marker(label).await),
        Ask::Theme(theme) => {
            session.set_theme(Role::Control, theme).await;
            Answer::Done
        }
        Ask::Scrollback {
            start,
            count,
            reader,
        } => {
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
            let started = Instant::now();
            let Ok(compiled) = Pattern::new(&pattern.text, pattern.regex, pattern.case) else {
                // The asking node compiled it: the same binary compiles it here.
                return Answer::Refused(SessionError::NodeUnreachable);
            };
            match session.search(compiled, limit, &reader).await {
                Ok(found) => Answer::Found {
                    found,
                    spent_us: micros(started.elapsed()),
                },
                Err(e) => Answer::Refused(e),
            }
        }
        Ask::Delete => {
            let Some(session) = sessions.remove(session.id()) else {
                return Answer::NoSession;
            };
            session.kill().await;
            Answer::Deleted(state_of(&session))
        }
        // Queued to the session's task, or answered as it came: never here.
        Ask::Watch { .. }
        | Ask::Input { .. }
        | Ask::Create(_)
        | Ask::Recordings
        | Ask::Recording(_)
        | Ask::RecordingPart { .. }
        | Ask::DeleteRecording(_) => Answer::NoSession,
    }
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
fn start_serving(session: SessionHandle, client: Client, served: Served) -> mpsc::Sender<Queued> {
    let (queue, mut asks) = mpsc::channel(QUEUE);
    let mine = queue.clone();
    tokio::spawn(async move {
        let id = session.id().to_owned();
        let mut serving = Serving::new(session, client);
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
    client: Client,
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
    fn new(session: SessionHandle, client: Client) -> Serving {
        let limit = client.server_info().max_payload;
        Serving {
            subject: screen_subject(session.id()).into(),
            session,
            client,
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
                    match publisher.chunks(self.limit) {
                        Ok(chunks) => {
                            for chunk in chunks {
                                let bytes = Message::Chunk(chunk).encode();
                                if self
                                    .client
                                    .publish(inbox.clone(), bytes.into())
                                    .await
                                    .is_err()
                                {
                                    break;
                                }
                            }
                        }
                        Err(e) => tracing::warn!(error = %e, "cannot send a screen in chunks"),
                    }
                }
                respond(&self.client, reply, &Answer::Done).await;
            }
            Queued::Input {
                from,
                seq,
                input,
                reply,
            } => {
                let last = self.applied.entry(from).or_insert(0);
                let answer = if seq <= *last {
                    // A retry of an input already applied.
                    Answer::Done
                } else {
                    *last = seq;
                    done(self.session.send_input(input).await)
                };
                respond(&self.client, reply, &answer).await;
            }
        }
    }

    /// Publishes the changes to `screen` while some node watches: as a
    /// delta, or as a chunk set when the delta is over NATS's limit.
    async fn publish(&mut self, screen: Arc<crate::term::Snapshot>) {
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
            .client
            .publish(self.subject.clone(), bytes.into())
            .await
        {
            tracing::debug!(error = %e, "cannot publish a screen");
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

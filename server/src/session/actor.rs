//! The session actor: owns the terminal, applies the pty's output, answers
//! commands, publishes screens, and sees the child to its end.
//!
//! Its life has two phases. While the child lives, output, commands, the
//! child's exit and the synchronized-output deadline are served in one
//! `select!`, commands first. Output is parsed in slices of at most
//! [`SLICE_WORK`] units of the terminal's work meter (cells touched, not
//! bytes) and [`SLICE_TIME`], with commands looked at between slices: a
//! kill, input or shutdown never waits behind more than one slice, whatever
//! a program prints, and no more pty output is read while a chunk is being
//! parsed (backpressure). Searches run in slices of their own between the
//! others. An actor runs on the emulator pool's quick lane while its steps
//! are short; when its program's output keeps it busy it moves to the bulk
//! lane, and comes back once it has been idle for a while (see
//! [`crate::pool`] and [`super::busy`]).
//! After each slice it yields its worker, so the sessions that share a
//! lane take turns: a flood takes bounded slices, never a worker, and never
//! waits in front of another session's echo.
//!
//! Once the child has exited and its output is drained (or after it was
//! killed), the final screen and exit status are published and the session
//! lingers, answering commands with [`SessionError::Exited`], until the
//! linger time passes or it is killed.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::{sleep_until, Instant};

use crate::access::Principal;
use crate::input::{encode_key, encode_mouse, encode_paste};
use crate::pool::Lane;
use crate::pty::{ChildState, ExitStatus, LineDiscipline, Pty, PtyEvents, Sandbox};
use crate::record::Recorder;
use crate::stream::ScrollbackLines;
use panecast_term::Mode;
use panecast_term::{Effect, FileOffer, Snapshot, Term};

use super::busy::Busyness;
use super::command::{Reply, ScrollbackReply, SearchReply, MAX_SEARCHES};
use super::pacer::Pacer;
use super::search;
use super::{
    serve, Command, FreezeRequest, Frozen, FrozenRecording, Input, InputTag, Metrics, Reader,
    Runtime, SavedSession, SessionError, SessionInfo, Status, Thawed, Timings,
};

/// How long output may still be read after the child exited, for when
/// another process (a background job) keeps the terminal open.
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(1);
/// How long to wait for the child to be reaped after SIGKILL.
const KILL_WAIT: Duration = Duration::from_secs(1);
/// Units of the terminal's work meter parsed between two looks at the
/// commands: about a 64 KiB chunk of plain text, a millisecond or two.
const SLICE_WORK: u64 = 128 * 1024;
/// Time a slice may take: it is parsed in steps of [`STEP_WORK`] until
/// this has passed, for a machine (or a build) slower than the meter
/// assumes, since other sessions on the same worker wait meanwhile.
const SLICE_TIME: Duration = Duration::from_millis(1);
/// Units of work parsed between two looks at the clock.
const STEP_WORK: u64 = 8 * 1024;
/// Work applied from what is left queued once the child has exited and its
/// output stopped being read; the rest is dropped.
const FINISH_WORK: u64 = 16 * SLICE_WORK;

/// The state an actor runs with.
pub(super) struct Actor {
    pub info: SessionInfo,
    pub term: Term,
    pub pty: Option<Pty>,
    pub events: PtyEvents,
    /// The session's walls, which end every process it started.
    pub sandbox: Sandbox,
    /// The program's state, which outlives the terminal.
    pub program: Arc<ChildState>,
    pub commands: mpsc::Receiver<Command>,
    pub screen: watch::Sender<Arc<Snapshot>>,
    pub clipboard: Arc<watch::Sender<Option<Arc<str>>>>,
    /// Where the latest file a program offered (OSC 1337 File) goes.
    pub file_offers: Arc<watch::Sender<Option<Arc<FileOffer>>>>,
    pub status: watch::Sender<Status>,
    /// How the program's terminal echoes, read at each publish and before
    /// each input.
    pub discipline: watch::Sender<Option<LineDiscipline>>,
    pub timings: Timings,
    pub metrics: Arc<Metrics>,
    /// Writes the session's recording, when it is recorded.
    pub recorder: Option<Recorder>,
    /// Screens published, read by viewers to count the ones they skip.
    pub published: Arc<AtomicU64>,
    /// How the program ended, for a session handed over after its end.
    pub exited: Option<ExitStatus>,
}

/// Why the live phase's loop returned.
enum Turn {
    /// The live phase is over.
    Ended(Ending),
    /// Output keeps the actor busy: go on in the bulk lane.
    Busy,
    /// It has been idle for a while: go on in the quick lane.
    Idle,
}

/// How the live phase ended.
enum Ending {
    /// The child exited by itself: linger.
    Exited,
    /// The session was killed; tell whoever asked.
    Killed(Option<oneshot::Sender<()>>),
}

impl Actor {
    /// Runs the session to its end.
    pub async fn run(mut self) {
        let live = Live {
            pacer: Pacer::new(self.timings.frame, self.timings.sync_timeout),
            parsing: None,
            searches: VecDeque::new(),
            output_open: self.pty.is_some(),
            exit: self.exited.take(),
            killed: false,
            started: Instant::now(),
            drain_deadline: None,
            busyness: Busyness::new(Instant::now()),
            actor: self,
        };
        // Only a panic in the bulk lane loses the state (as a panic on any
        // lane ends an actor).
        let Some((mut live, ending)) = live.run_in_lanes().await else {
            return;
        };
        live.finish();
        let mut actor = live.actor;
        let reply = match ending {
            Ending::Exited => actor.linger().await,
            Ending::Killed(reply) => reply,
        };
        let Actor {
            sandbox,
            program,
            info,
            term,
            ..
        } = actor;
        end_processes(sandbox, program, &info).await;
        if let Some(reply) = reply {
            let _ = reply.send(());
        }
        // Freeing a big screen and scrollback takes a while: as for a reflow.
        tokio::task::block_in_place(|| drop(term));
    }

    /// After the exit: keep the final screen, refuse input, end on kill
    /// (returning whom to tell) or when the linger time has passed.
    async fn linger(&mut self) -> Option<oneshot::Sender<()>> {
        let deadline = Instant::now() + self.timings.linger;
        loop {
            tokio::select! {
                command = self.commands.recv() => {
                    if let ControlFlow::Break(reply) = serve(&mut Lingering(self), command).await {
                        return reply;
                    }
                }
                () = sleep_until(deadline) => return None,
            }
        }
    }

    /// Freezes a session whose program has ended: there is no pty to stop.
    async fn freeze_ended(&mut self, request: FreezeRequest) {
        let status = self.status.borrow().clone();
        let frozen = Frozen {
            saved: SavedSession::new(&self.info, (self.term.cols(), self.term.rows()), 0, &status),
            term: self.term.save(),
            master: None,
            program: Arc::clone(&self.program),
            pending_input: Vec::new(),
            recording: None,
            sandbox: self.sandbox.save(),
        };
        let _ = request.reply.send(frozen);
        let _ = request.thaw.await;
    }
}

/// A session whose program has ended: it keeps its final screen, answers
/// reads, refuses changes, and ends when killed (with whom to tell) or
/// when every handle is gone.
struct Lingering<'a>(&'a mut Actor);

impl Runtime for Lingering<'_> {
    type Stop = Option<oneshot::Sender<()>>;

    async fn input(&mut self, _: Input, _: Principal, _: Option<InputTag>, reply: Reply) {
        let _ = reply.send(Err(SessionError::Exited));
    }

    async fn resize(&mut self, _: u16, _: u16, _: Principal, reply: Reply) {
        let _ = reply.send(Err(SessionError::Exited));
    }

    fn scrollback(&mut self, start: u64, count: u16, _: Reader, reply: ScrollbackReply) {
        let _ = reply.send(scrollback_timed(&self.0.term, start, count));
    }

    fn search(&mut self, pattern: search::Pattern, limit: usize, _: Reader, reply: SearchReply) {
        let _ = reply.send(Ok(search_now(&mut self.0.term, pattern, limit)));
    }

    async fn marker(&mut self, _: String, _: Principal, reply: Reply) {
        let _ = reply.send(Err(SessionError::Exited));
    }

    /// No program is left to ask about colours.
    fn theme(&mut self, _: panecast_proto::Theme, _: Principal) {}

    async fn kill(
        &mut self,
        _: Option<Principal>,
        reply: oneshot::Sender<()>,
    ) -> ControlFlow<Self::Stop> {
        ControlFlow::Break(Some(reply))
    }

    async fn freeze(&mut self, request: FreezeRequest) {
        self.0.freeze_ended(request).await;
    }

    async fn closed(&mut self) -> Self::Stop {
        None
    }
}

/// The live phase's state.
struct Live {
    actor: Actor,
    pacer: Pacer,
    /// The chunk being parsed, and how much of it is done.
    parsing: Option<(Vec<u8>, usize)>,
    /// Searches under way, oldest first, with whom to answer.
    searches: VecDeque<(search::Job, SearchReply)>,
    /// False once the output task hit end of file (or was given up on).
    output_open: bool,
    /// The exit status, once the child has been reaped.
    exit: Option<ExitStatus>,
    /// Set once the session is being killed: output is read and dropped,
    /// so that a flood being killed does not hold the kill up.
    killed: bool,
    started: Instant,
    /// When output stops being read after the child's exit.
    drain_deadline: Option<Instant>,
    /// The recent work, which decides the lane.
    busyness: Busyness,
}

impl Runtime for Live {
    type Stop = Ending;

    async fn input(&mut self, input: Input, _: Principal, _: Option<InputTag>, reply: Reply) {
        let _ = reply.send(self.write_input(input));
    }

    async fn resize(&mut self, cols: u16, rows: u16, _: Principal, reply: Reply) {
        let _ = reply.send(self.resize_to(cols, rows));
    }

    fn scrollback(&mut self, start: u64, count: u16, _: Reader, reply: ScrollbackReply) {
        let _ = reply.send(scrollback_timed(&self.actor.term, start, count));
    }

    /// Queued, and worked on in slices between the others; refused when
    /// [`MAX_SEARCHES`] are under way.
    fn search(&mut self, pattern: search::Pattern, limit: usize, _: Reader, reply: SearchReply) {
        if self.searches.len() >= MAX_SEARCHES {
            let _ = reply.send(Err(SessionError::ReadsPaced));
        } else {
            let job = search::Job::new(&self.actor.term, pattern, limit);
            self.searches.push_back((job, reply));
        }
    }

    async fn marker(&mut self, label: String, _: Principal, reply: Reply) {
        let recorder = self.actor.recorder.as_mut();
        let marked = recorder.is_some_and(|r| r.marker(&label));
        let _ = reply.send(if marked {
            Ok(())
        } else {
            Err(SessionError::NotRecording)
        });
    }

    fn theme(&mut self, theme: panecast_proto::Theme, _: Principal) {
        self.actor.term.set_theme(super::colors_of(theme));
    }

    async fn kill(
        &mut self,
        _: Option<Principal>,
        reply: oneshot::Sender<()>,
    ) -> ControlFlow<Self::Stop> {
        self.terminate().await;
        ControlFlow::Break(Ending::Killed(Some(reply)))
    }

    async fn freeze(&mut self, request: FreezeRequest) {
        self.freeze_now(request).await;
    }

    async fn closed(&mut self) -> Self::Stop {
        self.terminate().await;
        Ending::Killed(None)
    }
}

impl Live {
    /// Runs the live phase to its end, in the quick lane while the
    /// session's steps are short and in the bulk lane while its output
    /// keeps it busy; `None` if it panicked in the bulk lane.
    async fn run_in_lanes(mut self) -> Option<(Live, Ending)> {
        loop {
            match self.run(Lane::Quick).await {
                Turn::Ended(ending) => return Some((self, ending)),
                Turn::Idle => {}
                Turn::Busy => match crate::pool::bulk_handle() {
                    Ok(bulk) => {
                        let (back, turn) = bulk
                            .spawn(async move {
                                let turn = self.run(Lane::Bulk).await;
                                (self, turn)
                            })
                            .await
                            .ok()?;
                        self = back;
                        if let Turn::Ended(ending) = turn {
                            return Some((self, ending));
                        }
                    }
                    // No bulk lane (its threads could not start): the slices
                    // go on here, taking turns with the others.
                    Err(_) => tokio::task::yield_now().await,
                },
            }
        }
    }

    /// Serves the session in `lane` until it ends or belongs in the other.
    async fn run(&mut self, lane: Lane) -> Turn {
        loop {
            if self.exit.is_some() && !self.output_open && self.parsing.is_none() {
                return Turn::Ended(Ending::Exited);
            }
            // In the bulk lane: back to the quick one after a quiet spell.
            let back_at = match lane {
                Lane::Bulk if !self.has_work() => Some(self.busyness.back_at(Instant::now())),
                _ => {
                    self.busyness.not_idle();
                    None
                }
            };
            self.search_slice();

            let publish_deadline = self.pacer.deadline();
            let drain_deadline = self.drain_deadline;
            let parsing = self.parsing.is_some();
            let searching = !self.searches.is_empty();
            let a = &mut self.actor;
            tokio::select! {
                biased;
                command = a.commands.recv() => {
                    if let ControlFlow::Break(ending) = serve(self, command).await {
                        return Turn::Ended(ending);
                    }
                }
                status = &mut a.events.exit, if self.exit.is_none() => {
                    self.exit = Some(status.unwrap_or_else(|_| unknown_exit()));
                    self.drain_deadline = Some(Instant::now() + DRAIN_AFTER_EXIT);
                }
                () = std::future::ready(()), if parsing => {
                    self.parse_slice();
                    if lane == Lane::Quick && (self.parsing.is_some() || self.busyness.busy()) {
                        return Turn::Busy;
                    }
                    // Let the runtime fire its timers between slices.
                    tokio::task::yield_now().await;
                }
                chunk = a.events.output.recv(), if self.output_open => match chunk {
                    Some(bytes) => self.output(bytes),
                    None => self.output_open = false,
                },
                () = sleep_until_some(publish_deadline) => self.publish(Instant::now()),
                () = sleep_until_some(drain_deadline) => self.output_open = false,
                () = sleep_until_some(back_at) => return Turn::Idle,
                () = std::future::ready(()), if searching => {
                    // A search slice was done: the others on this worker
                    // go first, and the clock and the publish timer move
                    // on (a search would otherwise hold the screen's
                    // publication, and so every echo, for its whole length).
                    tokio::task::yield_now().await;
                }
            }
        }
    }

    /// Freezes the session for an upgrade (see [`super::freeze`]): stops
    /// the pty's I/O, parses and records everything read, closes the
    /// recording and hands the state back; once thawed (the upgrade did not
    /// happen), goes on where it stopped, queued input first.
    async fn freeze_now(&mut self, request: FreezeRequest) {
        let mut pending = match self.actor.pty.as_mut() {
            Some(pty) => pty.pause().await,
            None => Vec::new(),
        };
        if let Some((bytes, done)) = self.parsing.take() {
            self.apply_and_record(bytes, done);
        }
        if self.output_open {
            // The output task sends what it had read, then its channel closes.
            while let Some(bytes) = self.actor.events.output.recv().await {
                self.actor.metrics.chunk_read(bytes.len());
                self.apply_and_record(bytes, 0);
            }
        }
        pending.extend(self.carry_out_effects());
        self.publish(Instant::now());
        let status = match &self.exit {
            Some(status) => Status::Exited {
                status: status.clone(),
                at: SystemTime::now(),
            },
            None => Status::Running,
        };
        let (recorded, recording) = match self.actor.recorder.take() {
            Some(recorder) => {
                let (elapsed, input) = (recorder.elapsed(), recorder.records_input());
                // Waits for the recording's writer to flush: off the
                // pool's workers, which run the other sessions.
                let size = tokio::task::spawn_blocking(move || recorder.close())
                    .await
                    .ok()
                    .flatten();
                let live = size.is_some();
                let recording = FrozenRecording {
                    elapsed,
                    input,
                    live,
                };
                (size.unwrap_or(0), Some(recording))
            }
            None => (0, None),
        };
        let a = &self.actor;
        let frozen = Frozen {
            saved: SavedSession::new(&a.info, (a.term.cols(), a.term.rows()), recorded, &status),
            term: a.term.save(),
            master: a
                .pty
                .as_ref()
                .filter(|_| self.exit.is_none())
                .map(Pty::master_fd),
            program: Arc::clone(&a.program),
            pending_input: pending.clone(),
            recording,
            sandbox: a.sandbox.save(),
        };
        let _ = request.reply.send(frozen);
        if let Ok(Thawed { recorder }) = request.thaw.await {
            self.actor.recorder = recorder;
        }
        if let Some(pty) = self.actor.pty.as_mut() {
            match pty.resume() {
                Ok(output) => {
                    self.actor.events.output = output;
                    self.output_open = true;
                }
                Err(error) => {
                    tracing::error!(id = %self.actor.info.id, %error, "cannot read the pty again after an upgrade that did not happen");
                    self.output_open = false;
                }
            }
        }
        let _ = self.write(pending);
    }

    /// Applies `bytes` from `from` on, at once, and hands the whole chunk
    /// to the recording, if any.
    fn apply_and_record(&mut self, bytes: Vec<u8>, from: usize) {
        self.actor.term.advance(&bytes[from..]);
        if let Some(recorder) = self.actor.recorder.as_mut() {
            recorder.output(bytes);
        }
    }

    /// Sends the terminal's clipboard writes and file offers on; returns
    /// its replies to
    /// the program, in order.
    fn carry_out_effects(&mut self) -> Vec<u8> {
        let mut replies = Vec::new();
        for effect in self.actor.term.take_effects() {
            match effect {
                Effect::Reply(reply) => replies.extend_from_slice(&reply),
                Effect::Clipboard(text) => {
                    self.actor.clipboard.send_replace(Some(text.into()));
                }
                Effect::FileOffer(offer) => {
                    self.actor.file_offers.send_replace(Some(Arc::new(offer)));
                }
            }
        }
        replies
    }

    /// Whether output or a search waits to be worked on.
    fn has_work(&self) -> bool {
        self.parsing.is_some() || !self.searches.is_empty() || !self.actor.events.output.is_empty()
    }

    /// Works on the oldest search for one slice; answers it when it is done.
    fn search_slice(&mut self) {
        let Some((job, _)) = self.searches.front_mut() else {
            return;
        };
        let until = std::time::Instant::now() + search::SEARCH_SLICE;
        if job.step(&mut self.actor.term, until) {
            if let Some((job, reply)) = self.searches.pop_front() {
                let spent = job.spent();
                let _ = reply.send(Ok((job.found(), spent)));
            }
        }
    }

    /// Reads the terminal's line discipline, telling the handles when it
    /// changed (a program that turns echo off for a password may print
    /// nothing first).
    fn read_discipline(&self) {
        if let Some(now) = self.actor.pty.as_ref().and_then(Pty::line_discipline) {
            self.actor.discipline.send_if_modified(|known| {
                let changed = *known != Some(now);
                *known = Some(now);
                changed
            });
        }
    }

    fn write_input(&mut self, input: Input) -> Result<(), SessionError> {
        self.read_discipline();
        let bytes = match input {
            Input::Bytes(bytes) => bytes,
            Input::Keys(keys) => {
                let modes = self.actor.term.modes();
                keys.iter()
                    .flat_map(|key| encode_key(key, &modes))
                    .collect()
            }
            Input::Paste(text) => encode_paste(&text, &self.actor.term.modes()),
            Input::Mouse(event) => {
                let term = &self.actor.term;
                match encode_mouse(&event, &term.modes(), term.cols(), term.rows()) {
                    Some(bytes) => bytes,
                    None => return Ok(()),
                }
            }
            Input::Focus(focused) => {
                if !self.actor.term.modes().get(Mode::FocusEvents) {
                    return Ok(());
                }
                if focused {
                    b"\x1b[I".to_vec()
                } else {
                    b"\x1b[O".to_vec()
                }
            }
        };
        if let Some(recorder) = self.actor.recorder.as_mut() {
            recorder.input(&bytes);
        }
        let len = bytes.len();
        self.write(bytes)?;
        self.actor.metrics.input_written(len);
        Ok(())
    }

    fn write(&mut self, bytes: Vec<u8>) -> Result<(), SessionError> {
        let pty = self.actor.pty.as_ref().ok_or(SessionError::Exited)?;
        pty.write(bytes).map_err(|e| match e {
            crate::pty::InputError::Busy => SessionError::InputBusy,
            crate::pty::InputError::Closed => SessionError::Exited,
        })
    }

    fn resize_to(&mut self, cols: u16, rows: u16) -> Result<(), SessionError> {
        let pty = self.actor.pty.as_ref().ok_or(SessionError::Exited)?;
        let term = &self.actor.term;
        if (cols, rows) == (term.cols(), term.rows()) {
            // Nothing to do: no SIGWINCH, no new frame.
            return Ok(());
        }
        pty.resize(cols, rows).map_err(SessionError::Resize)?;
        // Reflowing a big scrollback takes long: the worker's other tasks
        // move to another thread meanwhile instead of waiting behind it.
        let term = &mut self.actor.term;
        tokio::task::block_in_place(|| term.resize(cols, rows));
        if let Some(recorder) = self.actor.recorder.as_mut() {
            recorder.resize(cols, rows);
        }
        self.changed(false);
        Ok(())
    }

    /// Takes a chunk of output (drops it once the session is being killed)
    /// and parses its first slice; the rest waits for the next turns.
    fn output(&mut self, bytes: Vec<u8>) {
        self.actor.metrics.chunk_read(bytes.len());
        if !self.killed {
            // Parsed in the next turns, each followed by a yield.
            self.parsing = Some((bytes, 0));
        }
    }

    /// Parses one slice of the chunk under way; once the chunk is done,
    /// hands it to the recording, if any, without a copy. Then sends the
    /// terminal's answers and publishes if it is time.
    fn parse_slice(&mut self) {
        let Some((bytes, done)) = self.parsing.as_mut() else {
            return;
        };
        let started = std::time::Instant::now();
        let mut work = 0;
        while *done < bytes.len() && work < SLICE_WORK && started.elapsed() < SLICE_TIME {
            let term = &mut self.actor.term;
            *done += term.advance_within(&bytes[*done..], STEP_WORK);
            work += term.work();
        }
        self.busyness.worked(Instant::now(), started.elapsed());
        let (len, finished) = (bytes.len(), *done >= bytes.len());
        if finished {
            self.record_parsing();
        }
        let replies = self.carry_out_effects();
        if !replies.is_empty() {
            // A child that does not read cannot take answers either: drop them.
            drop(self.write(replies));
        }
        // The output task gathers reads into one chunk until its buffer is nearly
        // full or the pty has nothing more ready; a big chunk means the
        // program was still writing. Publishing after each chunk that merely
        // outran the output task would send a frame every millisecond of a flood.
        let more_expected =
            !finished || !self.actor.events.output.is_empty() || len >= crate::pty::READ_BUFFER / 2;
        self.changed(more_expected);
    }

    /// Hands the chunk under way, parsed or not, to the recording.
    fn record_parsing(&mut self) {
        if let Some((bytes, _)) = self.parsing.take() {
            if let Some(recorder) = self.actor.recorder.as_mut() {
                recorder.output(bytes);
            }
        }
    }

    fn changed(&mut self, more_expected: bool) {
        let now = Instant::now();
        let synchronized = self.actor.term.synchronized();
        if self.pacer.changed(now, more_expected, synchronized) {
            self.publish(now);
        }
    }

    fn publish(&mut self, now: Instant) {
        self.read_discipline();
        let snapshot = Arc::new(self.actor.term.snapshot());
        self.actor.published.fetch_add(1, Ordering::AcqRel);
        self.actor.screen.send_replace(snapshot);
        self.actor.metrics.frame_published();
        self.pacer.published(now);
    }

    /// Hangs up the child's process groups, kills them after the grace
    /// period, and waits for the child to be reaped. Output from then on is
    /// dropped: the screen stays as it was when the kill was asked for.
    async fn terminate(&mut self) {
        self.killed = true;
        self.record_parsing();
        if self.exit.is_some() {
            return;
        }
        let Some(pty) = self.actor.pty.as_ref() else {
            return;
        };
        pty.hang_up();
        if self.wait_exit(self.actor.timings.grace).await {
            return;
        }
        if let Some(pty) = self.actor.pty.as_ref() {
            pty.kill();
        }
        self.wait_exit(KILL_WAIT).await;
    }

    /// Waits up to `limit` for the exit status, applying output meanwhile
    /// so the child is not blocked writing. True once the child is reaped.
    async fn wait_exit(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            let a = &mut self.actor;
            tokio::select! {
                status = &mut a.events.exit => {
                    self.exit = Some(status.unwrap_or_else(|_| unknown_exit()));
                    return true;
                }
                chunk = a.events.output.recv(), if self.output_open => match chunk {
                    Some(bytes) => self.output(bytes),
                    None => self.output_open = false,
                },
                () = sleep_until(deadline) => return false,
            }
        }
    }

    /// Releases the terminal (closing every descriptor and ending the pty
    /// tasks), applies what output is left, up to [`FINISH_WORK`] (drops
    /// it after a kill), publishes the final screen and the exit status,
    /// and logs the end.
    fn finish(&mut self) {
        self.actor.pty = None;
        self.actor.events.output.close();
        self.record_parsing();
        let mut work = FINISH_WORK;
        while let Ok(bytes) = self.actor.events.output.try_recv() {
            self.actor.metrics.chunk_read(bytes.len());
            if self.killed {
                continue;
            }
            if work > 0 {
                let term = &mut self.actor.term;
                term.advance_within(&bytes, work);
                work = work.saturating_sub(term.work());
            }
            if let Some(recorder) = self.actor.recorder.as_mut() {
                recorder.output(bytes);
            }
        }
        self.publish(Instant::now());
        // Dropping the recorder waits for its writer to write out the rest.
        self.actor.recorder = None;
        let status = self.exit.take().unwrap_or_else(unknown_exit);
        let info = &self.actor.info;
        tracing::info!(
            id = %info.id,
            profile = %info.profile.as_deref().unwrap_or("-"),
            pid = info.pid,
            exit_code = %status.code.map_or_else(|| "unknown".to_owned(), |c| c.to_string()),
            signal = %status.signal.as_deref().unwrap_or("-"),
            duration_ms = self.started.elapsed().as_millis() as u64,
            "session ended"
        );
        self.actor.status.send_replace(Status::Exited {
            status,
            at: SystemTime::now(),
        });
    }
}

/// Ends what an ended session's program left running (background jobs,
/// `setsid` children), through its sandbox: a session that goes leaves
/// nothing behind.
async fn end_processes(mut sandbox: Sandbox, program: Arc<ChildState>, info: &SessionInfo) {
    let id = info.id.clone();
    let ended = tokio::task::spawn_blocking(move || sandbox.end(&program, &id)).await;
    if ended.is_err() {
        tracing::error!(id = %info.id, "ending the session's processes failed");
    }
}

/// The status of a child whose end could not be observed.
fn unknown_exit() -> ExitStatus {
    ExitStatus {
        code: None,
        signal: None,
    }
}

/// Sleeps until `deadline`, or forever when there is none.
pub(super) async fn sleep_until_some(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// A search run to its end (or its deadline) at once, for when nothing
/// else waits on the actor (no program runs): the answer and the time it took.
pub(super) fn search_now(
    term: &mut Term,
    pattern: search::Pattern,
    limit: usize,
) -> (search::Found, Duration) {
    let mut job = search::Job::new(term, pattern, limit);
    while !job.step(term, std::time::Instant::now() + search::SEARCH_SLICE) {}
    let spent = job.spent();
    (job.found(), spent)
}

/// Scrollback lines `start .. start + count` of `term` (see
/// [`stream::answer`](crate::stream::answer)), with the time they took.
pub(super) fn scrollback_timed(term: &Term, start: u64, count: u16) -> (ScrollbackLines, Duration) {
    let started = std::time::Instant::now();
    let lines = crate::stream::answer(term, start, count);
    (lines, started.elapsed())
}

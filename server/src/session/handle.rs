//! The handle to a session: cheap to clone, used by the HTTP API and by
//! viewers (the WebSocket) to read the screen and to send commands.

use std::any::Any;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use panecast_proto::limits::MAX_MARKER_LABEL;
use panecast_proto::{ReplayControl, ReplayState, Role, SizePolicy};
use tokio::sync::{mpsc, oneshot, watch};

use crate::access::{Credential, Principal};
use crate::config::Limits;
use panecast_term::{FileOffer, Snapshot};

use super::budget::{InputBudget, ReadLimit};
use super::reads::{ReadShares, Reader};
use super::replay::ReplayLink;
use super::room::{Badge, MemberId, Presence, Room};
use super::search;
use super::shares::{Share, Shares};
use super::wait::{Conditions, Matched, Matcher, WaitError, WaitRequest, Waited, Waits};
use super::{Command, EndReason, Input, InputTag, SessionError, SessionInfo, Status};
use crate::pty::LineDiscipline;
use crate::stream::ScrollbackLines;

/// A session seen from outside its actor.
#[derive(Clone)]
pub struct SessionHandle {
    shared: Arc<Shared>,
}

struct Shared {
    info: SessionInfo,
    commands: mpsc::Sender<Command>,
    screen: watch::Receiver<Arc<Snapshot>>,
    status: watch::Receiver<Status>,
    /// What the layers above keep for the session (the stream's frame
    /// cache and redraw feed), one value a type: see [`SessionHandle::attached`].
    attached: Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
    viewers: Arc<AtomicUsize>,
    /// Streams each credential holds on this session.
    streams_by: Arc<Shares>,
    /// Who is connected, and who drives the size.
    room: Arc<watch::Sender<Room>>,
    /// The latest text a program put on the clipboard (OSC 52).
    clipboard: Arc<watch::Sender<Option<Arc<str>>>>,
    /// The latest file a program offered (OSC 1337 File).
    file_offers: Arc<watch::Sender<Option<Arc<FileOffer>>>>,
    /// An [`EndReason`] as a number, set before the session is killed.
    end_reason: AtomicU8,
    /// Input from every transport draws on this.
    budget: Mutex<InputBudget>,
    /// The last numbered input applied of each client.
    inputs: super::inputs::ClientInputs,
    /// How the program's terminal echoes; `None` while unknown (a replay).
    discipline: watch::Receiver<Option<LineDiscipline>>,
    /// The shares of the actor's time for searches and scrollback, by
    /// credential and by connection.
    reads: Mutex<ReadShares>,
    max_cols: u16,
    max_rows: u16,
    /// The waits open on the session.
    waits: Waits,
    /// `limits.max_wait_ms`, `max_waits_per_session`, `max_waits_per_credential`.
    wait_limits: (Duration, usize, usize),
    /// Screens published, counted by the actor.
    published: Arc<AtomicU64>,
    /// Where its screens come from.
    source: Source,
    /// Last, so that it is dropped after everything above.
    _release: ReleaseOnDrop,
}

/// Returns the memory a session's handle held to the system once the last
/// handle is gone: the fields dropped before it (the last screen, the
/// cached frames) were freed after the actor's own release, often on
/// another thread, where the allocator would otherwise keep them.
struct ReleaseOnDrop;

impl Drop for ReleaseOnDrop {
    fn drop(&mut self) {
        super::memory::release_freed_memory_soon();
    }
}

/// Where a session's screens come from: the same session to the API and
/// the stream layers whichever it is.
pub(crate) enum Source {
    /// Its program's pty, on this node.
    Live,
    /// A recording, played.
    Replay(ReplayLink),
    /// Another node's session, mirrored from its owner `node`.
    Mirror {
        /// The owner.
        node: String,
    },
}

/// A session's handle that does not keep it alive: a replay ends when its
/// last [`SessionHandle`] goes, but the registry still reaches it to end it
/// at shutdown.
#[derive(Clone)]
pub(crate) struct WeakHandle(std::sync::Weak<Shared>);

impl WeakHandle {
    /// The session, if a handle to it is still held.
    pub fn upgrade(&self) -> Option<SessionHandle> {
        self.0.upgrade().map(|shared| SessionHandle { shared })
    }

    /// True when both are handles of one session.
    pub fn same(&self, other: &WeakHandle) -> bool {
        std::sync::Weak::ptr_eq(&self.0, &other.0)
    }
}

/// A place among a session's viewers and in its room, given back when
/// dropped.
pub struct ViewerSlot {
    viewers: Arc<AtomicUsize>,
    room: Arc<watch::Sender<Room>>,
    id: MemberId,
    /// Where the size the room asks for when this viewer leaves is sent.
    commands: mpsc::Sender<Command>,
    /// Who the viewer is: the sizes it drives act for it.
    by: Principal,
    /// The credential's shares this stream counts against.
    _shares: Vec<Share>,
}

impl ViewerSlot {
    /// This viewer's place in the room.
    pub fn member(&self) -> MemberId {
        self.id
    }
}

/// Why a stream found no place among a session's viewers. Each is
/// refused with the close code `TOO_MANY_VIEWERS` (4029).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StreamRefusal {
    /// Every slot this stream may take is taken (view streams leave
    /// `limits.viewer_reserve` slots to control streams and the admin).
    #[error("too many viewers on this session")]
    Full,
    /// The credential holds `limits.max_viewers_per_credential` streams
    /// on this session.
    #[error("this credential has too many streams open on this session")]
    CredentialOnSession,
    /// The credential holds `limits.max_streams_per_credential` streams
    /// over all sessions.
    #[error("this credential has too many streams open")]
    Credential,
}

impl Drop for ViewerSlot {
    fn drop(&mut self) {
        if self.viewers.fetch_sub(1, Ordering::AcqRel) == 1 {
            // The last viewer goes: what it held (its last screen, its
            // frames) is freed on its own thread, after the actor's release.
            super::memory::release_freed_memory_soon();
        }
        let mut apply = None;
        self.room.send_modify(|room| apply = room.leave(self.id));
        // The next driver's window (or a new smallest) sizes the pty; an
        // error only means the session is over.
        if let (Some((cols, rows)), Ok(runtime)) = (apply, tokio::runtime::Handle::try_current()) {
            let (commands, by) = (self.commands.clone(), self.by.clone());
            runtime.spawn(async move {
                let (reply, _) = oneshot::channel();
                let resize = Command::Resize {
                    cols,
                    rows,
                    by,
                    reply,
                };
                let _ = commands.send(resize).await;
            });
        }
    }
}

/// Sleeps until `at`, or for ever when there is none.
async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// What a session's actor publishes for its handles to read.
pub(crate) struct Outputs {
    /// The latest screen.
    pub screen: watch::Receiver<Arc<Snapshot>>,
    /// Running, or how it ended.
    pub status: watch::Receiver<Status>,
    /// Screens published so far.
    pub published: Arc<AtomicU64>,
    /// How the program's terminal echoes.
    pub discipline: watch::Receiver<Option<LineDiscipline>>,
}

impl SessionHandle {
    pub(crate) fn new(
        info: SessionInfo,
        commands: mpsc::Sender<Command>,
        Outputs {
            screen,
            status,
            published,
            discipline,
        }: Outputs,
        limits: &Limits,
        size_policy: SizePolicy,
        source: Source,
    ) -> SessionHandle {
        SessionHandle {
            shared: Arc::new(Shared {
                info,
                commands,
                screen,
                status,
                attached: Mutex::default(),
                viewers: Arc::default(),
                streams_by: Arc::default(),
                room: Arc::new(watch::channel(Room::new(size_policy)).0),
                clipboard: Arc::new(watch::channel(None).0),
                file_offers: Arc::new(watch::channel(None).0),
                end_reason: AtomicU8::new(EndReason::Exited as u8),
                budget: Mutex::new(InputBudget::new(limits.input_rate, limits.input_burst)),
                inputs: Default::default(),
                discipline,
                reads: Mutex::new(ReadShares::new(ReadLimit {
                    share: f64::from(limits.read_share_percent) / 100.0,
                    burst: Duration::from_millis(limits.read_burst_ms),
                })),
                max_cols: limits.max_cols,
                max_rows: limits.max_rows,
                waits: Waits::default(),
                wait_limits: (
                    Duration::from_millis(limits.max_wait_ms),
                    limits.max_waits_per_session,
                    limits.max_waits_per_credential,
                ),
                published,
                source,
                _release: ReleaseOnDrop,
            }),
        }
    }

    /// A handle that does not keep the session alive.
    pub(crate) fn downgrade(&self) -> WeakHandle {
        WeakHandle(Arc::downgrade(&self.shared))
    }

    fn replay(&self) -> Option<&ReplayLink> {
        match &self.shared.source {
            Source::Replay(link) => Some(link),
            _ => None,
        }
    }

    /// True when the session replays a recording (read-only, controlled
    /// with [`Self::control_replay`]).
    pub fn is_replay(&self) -> bool {
        self.replay().is_some()
    }

    /// The node that runs the session, when it is another node's (this is
    /// a mirror of it).
    pub fn remote_node(&self) -> Option<&str> {
        match &self.shared.source {
            Source::Mirror { node } => Some(node),
            _ => None,
        }
    }

    /// A receiver of the replay's state, when the session is a replay.
    pub fn watch_replay(&self) -> Option<watch::Receiver<ReplayState>> {
        self.replay().map(|r| r.state.clone())
    }

    /// Plays, pauses, seeks or changes the speed of a replay.
    pub async fn control_replay(&self, control: ReplayControl) -> Result<(), SessionError> {
        let replay = self.replay().ok_or(SessionError::Exited)?;
        replay
            .controls
            .send(control)
            .await
            .map_err(|_| SessionError::Exited)
    }

    /// Adds a marker with `label` (at most 256 bytes) to the session's
    /// recording, at this moment, for `by`.
    pub async fn add_marker(&self, label: String, by: &Principal) -> Result<(), SessionError> {
        if label.len() > MAX_MARKER_LABEL {
            return Err(SessionError::BadMarker(format!(
                "the label is {} bytes; the limit is {MAX_MARKER_LABEL}",
                label.len()
            )));
        }
        self.request(|reply| Command::Marker(label, by.clone(), reply))
            .await
    }

    /// How many screens the session has published so far.
    pub fn published(&self) -> u64 {
        self.shared.published.load(Ordering::Acquire)
    }

    /// What the session is: id, profile, command, pid, start time.
    pub fn info(&self) -> &SessionInfo {
        &self.shared.info
    }

    /// The id.
    pub fn id(&self) -> &str {
        &self.shared.info.id
    }

    /// The latest published screen.
    pub fn screen(&self) -> Arc<Snapshot> {
        Arc::clone(&self.shared.screen.borrow())
    }

    /// A receiver of published screens, for a viewer. Only the latest screen
    /// is kept, so a slow viewer skips intermediate ones. Read it with
    /// `borrow_and_update`; `changed` fails once the session has ended and
    /// its final screen has been read.
    pub fn subscribe(&self) -> watch::Receiver<Arc<Snapshot>> {
        let mut screen = self.shared.screen.clone();
        screen.mark_changed();
        screen
    }

    /// The session's value of type `T`, which a layer above keeps for it
    /// (the stream's frame cache, its redraw feed): made on first use,
    /// dropped with the session's last handle. The session knows nothing
    /// of what it holds.
    pub fn attached<T: Any + Default + Send + Sync>(&self) -> Arc<T> {
        // A list of pointers, consistent after any panic.
        let mut attached = self
            .shared
            .attached
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = attached
            .iter()
            .find_map(|value| Arc::clone(value).downcast::<T>().ok())
        {
            return found;
        }
        let made = Arc::new(T::default());
        attached.push(Arc::clone(&made) as Arc<dyn Any + Send + Sync>);
        made
    }

    /// The streams each credential holds on this session.
    pub(super) fn streams_by(&self) -> &Arc<Shares> {
        &self.shared.streams_by
    }

    /// Takes a place among the viewers for `by` with `role`, shown as
    /// `badge`, holding `shares`, or `None` when `limit` are connected.
    pub(super) fn join_viewer(
        &self,
        limit: usize,
        (role, by): (Role, Principal),
        badge: Badge,
        shares: Vec<Share>,
    ) -> Option<ViewerSlot> {
        let viewers = &self.shared.viewers;
        viewers
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < limit).then_some(n + 1)
            })
            .ok()?;
        let mut id = 0;
        self.shared
            .room
            .send_modify(|room| id = room.join(badge, role));
        Some(ViewerSlot {
            viewers: Arc::clone(viewers),
            room: Arc::clone(&self.shared.room),
            id,
            commands: self.shared.commands.clone(),
            by,
            _shares: shares,
        })
    }

    /// The first `limit` matches of `pattern` in the scrollback and screen,
    /// within the pattern's deadline, for `who`: refused while `who` has
    /// used up its share of the actor's time for reads (on its connection
    /// or for its credential).
    pub async fn search(
        &self,
        pattern: search::Pattern,
        limit: usize,
        who: &Reader,
    ) -> Result<search::Found, SessionError> {
        self.may_read(who)?;
        let (reply, answer) = oneshot::channel();
        self.shared
            .commands
            .send(Command::Search {
                pattern,
                limit,
                who: who.clone(),
                reply,
            })
            .await
            .map_err(|_| SessionError::Exited)?;
        let (found, spent) = answer.await.map_err(|_| SessionError::Exited)??;
        self.reads().charge(who, spent);
        Ok(found)
    }

    /// Waits, for `who`, until one of `request`'s conditions holds (see
    /// [`super::wait`]) and answers which, where, and the screen then; or
    /// the time-out's screen as [`WaitError::TimedOut`]. Refused when the
    /// request is malformed or too many waits are open. The same for a
    /// session of this node, a replay and another node's (its mirror).
    pub async fn wait(&self, request: WaitRequest, who: &Credential) -> Result<Waited, WaitError> {
        let (max_wait, per_session, per_credential) = self.shared.wait_limits;
        let conditions = Conditions::new(&request, max_wait)?;
        let _slot = self.shared.waits.take(who, per_session, per_credential)?;
        let mut matcher = Matcher::new(&conditions);
        let mut screens = self.subscribe();
        let mut status = self.watch_status();
        let (mut screens_open, mut status_open) = (true, true);
        let mut idle_at = conditions.idle_from(tokio::time::Instant::now());
        loop {
            let screen = Arc::clone(&screens.borrow_and_update());
            if let Some((matched, at)) = matcher.check(&conditions, &screen) {
                return Ok(Waited {
                    matched,
                    at: Some(at),
                    screen,
                });
            }
            let ended = !status.borrow_and_update().running();
            if ended && conditions.exit() {
                return Ok(Waited {
                    matched: Matched::Exit,
                    at: None,
                    screen,
                });
            }
            // The actor publishes the final screen before the status: once
            // the status says ended, the latest screen is the final one.
            if ended && Arc::ptr_eq(&screen, &self.screen()) {
                return Err(WaitError::Exited(screen));
            }
            tokio::select! {
                changed = screens.changed(), if screens_open => match changed {
                    Ok(()) => idle_at = conditions.idle_from(tokio::time::Instant::now()),
                    Err(_) => screens_open = false,
                },
                changed = status.changed(), if status_open => status_open = changed.is_ok(),
                () = sleep_until(idle_at) => {
                    return Ok(Waited { matched: Matched::Idle, at: None, screen: self.screen() });
                }
                () = tokio::time::sleep_until(conditions.deadline) => {
                    return Err(WaitError::TimedOut(self.screen()));
                }
            }
        }
    }

    /// Whether `who` has actor time left for a read.
    fn may_read(&self, who: &Reader) -> Result<(), SessionError> {
        if self.reads().allows(who, Instant::now()) {
            Ok(())
        } else {
            Err(SessionError::ReadsPaced)
        }
    }

    fn reads(&self) -> std::sync::MutexGuard<'_, ReadShares> {
        self.shared
            .reads
            .lock()
            // The shares are numbers, consistent after any panic.
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// How many viewers watch and control now.
    pub fn presence(&self) -> Presence {
        self.shared.room.borrow().presence()
    }

    /// Who is connected and who drives the size, as of now.
    pub fn room(&self) -> Room {
        self.shared.room.borrow().clone()
    }

    /// A receiver of the room, for pages that show who is there.
    pub fn watch_room(&self) -> watch::Receiver<Room> {
        self.shared.room.subscribe()
    }

    /// A viewer's window is `cols` x `rows`: the pty takes that size when
    /// the size policy says this window counts (the driver's, or the
    /// smallest), and never otherwise. Refused when out of range.
    pub async fn resize_window(
        &self,
        slot: &ViewerSlot,
        cols: u16,
        rows: u16,
    ) -> Result<(), SessionError> {
        self.check_size(cols, rows)?;
        let mut apply = None;
        self.shared.room.send_if_modified(|room| {
            apply = room.report_size(slot.id, cols, rows);
            false
        });
        match apply {
            Some((cols, rows)) => self.resize(cols, rows, &slot.by).await,
            None => Ok(()),
        }
    }

    /// The viewer of `slot` drives the size from now on (a control viewer
    /// only: a view viewer's request changes nothing); under the `driver`
    /// policy its window applies at once.
    pub async fn take_control(&self, slot: &ViewerSlot) -> Result<(), SessionError> {
        let mut apply = None;
        self.shared.room.send_if_modified(|room| {
            let taken;
            (taken, apply) = room.take_control(slot.id);
            taken
        });
        match apply {
            Some((cols, rows)) => self.resize(cols, rows, &slot.by).await,
            None => Ok(()),
        }
    }

    /// A receiver of what programs put on the clipboard from now on (OSC 52).
    pub fn watch_clipboard(&self) -> watch::Receiver<Option<Arc<str>>> {
        self.shared.clipboard.subscribe()
    }

    /// Where the actor publishes clipboard writes.
    pub(crate) fn clipboard_sender(&self) -> Arc<watch::Sender<Option<Arc<str>>>> {
        Arc::clone(&self.shared.clipboard)
    }

    /// A receiver of the files programs offer from now on (OSC 1337 File).
    pub fn watch_file_offers(&self) -> watch::Receiver<Option<Arc<FileOffer>>> {
        self.shared.file_offers.subscribe()
    }

    /// Where the actor publishes file offers.
    pub(super) fn file_offer_sender(&self) -> Arc<watch::Sender<Option<Arc<FileOffer>>>> {
        Arc::clone(&self.shared.file_offers)
    }

    /// Scrollback lines `start .. start + count`, 1 being the line just
    /// above the terminal's screen as it is when the actor answers, for
    /// `who`: refused while `who` has used up its share of the actor's time
    /// for reads.
    pub async fn scrollback(
        &self,
        start: u64,
        count: u16,
        who: &Reader,
    ) -> Result<ScrollbackLines, SessionError> {
        self.may_read(who)?;
        let (reply, answer) = oneshot::channel();
        self.shared
            .commands
            .send(Command::Scrollback {
                start,
                count,
                who: who.clone(),
                reply,
            })
            .await
            .map_err(|_| SessionError::Exited)?;
        let (lines, spent) = answer.await.map_err(|_| SessionError::Exited)?;
        self.reads().charge(who, spent);
        Ok(lines)
    }

    /// Whether the child runs, or how it ended.
    pub fn status(&self) -> Status {
        self.shared.status.borrow().clone()
    }

    /// A receiver of status changes, for a viewer that reports the exit.
    pub fn watch_status(&self) -> watch::Receiver<Status> {
        self.shared.status.clone()
    }

    /// Queues input for the child, typed by `by`. Keys are encoded with
    /// the terminal's modes at the moment they are written.
    /// Input from every transport shares the session's input rate. An
    /// input with a `tag` is applied once: a repeat of one applied already
    /// (sent again after a reconnect) is taken as done.
    pub async fn send_input(
        &self,
        input: Input,
        by: &Principal,
        tag: Option<InputTag>,
    ) -> Result<(), SessionError> {
        let taken = match tag {
            Some(tag) => match self.shared.inputs.take(tag) {
                Some(taken) => Some(taken),
                None => return Ok(()),
            },
            None => None,
        };
        let allowed = self
            .shared
            .budget
            .lock()
            // The bucket is two numbers, consistent after any panic.
            .unwrap_or_else(PoisonError::into_inner)
            .take(input.size(), Instant::now());
        let sent = if allowed {
            self.request(|reply| Command::Input {
                input,
                by: by.clone(),
                tag,
                reply,
            })
            .await
        } else {
            Err(SessionError::RateLimited)
        };
        if let (Err(_), Some(taken)) = (&sent, taken) {
            self.shared.inputs.give_back(taken);
        }
        sent
    }

    /// Every numbered client's last input applied, to carry across an
    /// upgrade.
    pub(super) fn applied_inputs(&self) -> Vec<(u128, u64)> {
        self.shared.inputs.export()
    }

    /// Takes in [`SessionHandle::applied_inputs`] of an earlier process
    /// image, before any client reconnects.
    pub(super) fn restore_applied_inputs(&self, applied: impl IntoIterator<Item = (u128, u64)>) {
        self.shared.inputs.import(applied);
    }

    /// The last input of `client` this session applied (0: none).
    pub fn applied_input(&self, client: u128) -> u64 {
        self.shared.inputs.applied(client)
    }

    /// A receiver of how the program's terminal echoes (`None`: unknown).
    pub fn watch_discipline(&self) -> watch::Receiver<Option<LineDiscipline>> {
        self.shared.discipline.clone()
    }

    /// Resizes the terminal within the configured limits, for `by`; the
    /// child gets SIGWINCH. Every transport comes through here.
    pub async fn resize(&self, cols: u16, rows: u16, by: &Principal) -> Result<(), SessionError> {
        self.check_size(cols, rows)?;
        self.request(|reply| Command::Resize {
            cols,
            rows,
            by: by.clone(),
            reply,
        })
        .await
    }

    /// Refuses a size outside the configured limits.
    fn check_size(&self, cols: u16, rows: u16) -> Result<(), SessionError> {
        let (max_cols, max_rows) = (self.shared.max_cols, self.shared.max_rows);
        for (name, value, max) in [("cols", cols, max_cols), ("rows", rows, max_rows)] {
            if !(1..=max).contains(&value) {
                return Err(SessionError::BadSize(format!(
                    "{name} {value} is out of range: use 1 to {max}"
                )));
            }
        }
        Ok(())
    }

    /// A viewer with `role` paints `theme`: the program's colour queries
    /// (OSC 4, 10, 11, 12) are answered from the theme a control viewer sent
    /// last. A view connection's theme is ignored: watching does not change
    /// what the program is told.
    pub async fn set_theme(&self, role: Role, theme: panecast_proto::Theme, by: &Principal) {
        if role == Role::Control {
            let theme = Command::Theme(theme, by.clone());
            // An error means the session is over: nothing left to answer.
            let _ = self.shared.commands.send(theme).await;
        }
    }

    /// Why the session ended, once its status is [`Status::Exited`]:
    /// [`EndReason::Exited`] unless it was deleted or the server shut down.
    pub fn end_reason(&self) -> EndReason {
        match self.shared.end_reason.load(Ordering::Acquire) {
            r if r == EndReason::Deleted as u8 => EndReason::Deleted,
            r if r == EndReason::ShutDown as u8 => EndReason::ShutDown,
            r if r == EndReason::NodeGone as u8 => EndReason::NodeGone,
            _ => EndReason::Exited,
        }
    }

    /// Sets why the session ended, for a mirror told so by its owner.
    pub(crate) fn set_end_reason(&self, reason: EndReason) {
        self.shared
            .end_reason
            .store(reason as u8, Ordering::Release);
    }

    /// Ends the session because it was deleted: hangs up the child's process
    /// groups, kills them after the grace period, reaps the child, and
    /// returns the final status. `by` deleted it; a mirror asks its owner
    /// to, on their behalf.
    pub async fn delete(&self, by: &Principal) -> Status {
        self.end(EndReason::Deleted, Some(by.clone())).await
    }

    /// Ends the session as [`Self::delete`] does, for this server itself
    /// (a name set free for a new session).
    pub async fn kill(&self) -> Status {
        self.end(EndReason::Deleted, None).await
    }

    /// Ends the session because the server shuts down (as [`Self::kill`]).
    pub async fn shut_down(&self) -> Status {
        self.end(EndReason::ShutDown, None).await
    }

    async fn end(&self, reason: EndReason, by: Option<Principal>) -> Status {
        // Set before the actor can publish the exit, so that viewers who see
        // the exit also see why. A child that already exited keeps its reason.
        if self.status().running() {
            self.shared
                .end_reason
                .store(reason as u8, Ordering::Release);
        }
        let (reply, done) = oneshot::channel();
        if self
            .shared
            .commands
            .send(Command::Kill(by, reply))
            .await
            .is_ok()
        {
            // An error only means the actor had already ended.
            let _ = done.await;
        }
        self.status()
    }

    /// Asks the actor to freeze for an upgrade; false when it is gone.
    pub(super) async fn freeze(&self, request: super::FreezeRequest) -> bool {
        self.shared
            .commands
            .send(Command::Freeze(request))
            .await
            .is_ok()
    }

    async fn request(
        &self,
        command: impl FnOnce(super::command::Reply) -> Command,
    ) -> Result<(), SessionError> {
        let (reply, answer) = oneshot::channel();
        self.shared
            .commands
            .send(command(reply))
            .await
            .map_err(|_| SessionError::Exited)?;
        answer.await.unwrap_or(Err(SessionError::Exited))
    }
}

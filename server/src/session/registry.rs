//! The registry of open sessions: creates them within the limits, finds
//! them by id, and ends them all at shutdown.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::{Duration, SystemTime};

use panecast_proto::SizePolicy;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use crate::access::{Action, Credential, Denied, Grant, Principal, Target};
use crate::config::Limits;
use crate::pty::{self, Isolation, SpawnError};
use crate::random;
use crate::record::{Cast, RecordingInfo, Recordings, SessionToRecord};
use panecast_term::Term;

use super::actor::Actor;
use super::errors::{CreateError, FindError};
use super::handle::{Outputs, Source, StreamRefusal, ViewerSlot, WeakHandle};
use super::placement::Placement;
use super::replay::{Player, ReplayLink, INITIAL_SPEED, REPLAY_SCROLLBACK};
use super::room::{Badge, Room};
use super::shares::{Share, Shares};
use super::{Metrics, SessionHandle, SessionInfo, SessionSpec, Status, Timings};

/// How long shutting down waits for an ended session's viewers to close
/// (their close handshake waits on each client).
const VIEWERS_CLOSE_WITHIN: Duration = Duration::from_secs(2);

/// Makes the session's sandbox, sets its user, `HOME` and cgroup in the
/// spec, and starts the child. Blocking.
fn sandbox_and_spawn(
    isolation: &Isolation,
    id: &str,
    spec: &mut SessionSpec,
    waits: Arc<AtomicU64>,
) -> Result<(pty::Pty, pty::PtyEvents, pty::Sandbox), CreateError> {
    let sandbox = isolation
        .enter(id, spec.user.as_deref())
        .map_err(|e| match e {
            pty::EnterError::NoUid(..) => CreateError::NoUid(e),
            pty::EnterError::Other(reason) => CreateError::Spawn(SpawnError {
                program: spec.spawn.argv.first().cloned().unwrap_or_default(),
                reason,
                short_of: None,
            }),
        })?;
    let mut set = |name: &str, value: &str| {
        spec.spawn.env.retain(|(n, _)| n != name);
        spec.spawn.env.push((name.to_owned(), value.to_owned()));
    };
    if let Some(home) = sandbox.home().and_then(|home| home.to_str()) {
        set("HOME", home);
    }
    if let Some(user) = spec.user.clone() {
        set("USER", &user);
        set("LOGNAME", &user);
    }
    spec.spawn.identity = sandbox.identity().cloned();
    spec.spawn.cgroup_procs = sandbox.cgroup_procs();
    let (pty, events) = pty::spawn(&spec.spawn, waits)?;
    Ok((pty, events, sandbox))
}

/// A session's parts, ready for its actor: a new one, or one handed over.
pub(super) struct Started {
    pub info: SessionInfo,
    pub term: Term,
    /// Its pty, while its program runs.
    pub pty: Option<pty::Pty>,
    pub events: pty::PtyEvents,
    pub sandbox: pty::Sandbox,
    pub recorder: Option<crate::record::Recorder>,
    pub status: Status,
}

/// Commands queued to an actor before senders wait.
const COMMAND_QUEUE: usize = 32;

/// A replay's place among `limits.max_replays`, and its credential's
/// share; given back when dropped (when the replay ends).
pub struct ReplaySlot {
    replays: Arc<AtomicUsize>,
    _share: Share,
}

impl Drop for ReplaySlot {
    fn drop(&mut self) {
        self.replays.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Every open session, by id.
pub struct Sessions {
    state: Mutex<State>,
    pub(super) limits: Limits,
    /// Whose window sets a session's size.
    size_policy: SizePolicy,
    metrics: Arc<Metrics>,
    pub(super) recordings: Arc<Recordings>,
    /// Replays playing now (each has a thread, its recording's events and
    /// keyframes), at most `limits.max_replays`.
    replays: Arc<AtomicUsize>,
    /// Replays each credential plays now.
    replays_by: Arc<Shares>,
    /// Streams each credential holds over all sessions.
    streams_by: Arc<Shares>,
    /// How sessions are walled off from each other and ended.
    isolation: Arc<Isolation>,
    /// Set while an upgrade freezes the sessions; true tells streams to
    /// close with 1012 (the server restarts).
    pub(super) restarting: watch::Sender<bool>,
    /// Where the sessions are placed among other nodes, once placed
    /// (`serve --cluster`).
    placement: OnceLock<Arc<dyn Placement>>,
    /// Held while a mirror of another node's session opens, so that two
    /// viewers arriving at once open one.
    opening: tokio::sync::Mutex<()>,
}

pub(super) struct State {
    pub(super) open: HashMap<String, SessionHandle>,
    /// Replays, by id, ended at shutdown with the sessions (they end by
    /// themselves when their viewer goes, and leave this list then).
    replays: HashMap<String, WeakHandle>,
    /// Mirrors of other nodes' sessions, by id: each ends when its last
    /// handle goes (its last viewer or request), and leaves this map then.
    mirrors: HashMap<String, WeakHandle>,
    /// Sessions being spawned: they hold a slot before they are open.
    pub(super) starting: usize,
    /// Names of the sessions being spawned: taken from the moment the
    /// name is checked, so two creates cannot both pass the check.
    naming: HashSet<String>,
    pub(super) closing: bool,
    /// Set while an upgrade freezes the sessions: no new ones start.
    pub(super) upgrading: bool,
}

impl Sessions {
    /// An empty registry enforcing `limits`, recording into `recordings`,
    /// walling sessions off with `isolation`.
    pub fn new(
        limits: Limits,
        size_policy: SizePolicy,
        recordings: Arc<Recordings>,
        isolation: Isolation,
    ) -> Arc<Sessions> {
        Arc::new(Sessions {
            state: Mutex::new(State {
                open: HashMap::new(),
                replays: HashMap::new(),
                mirrors: HashMap::new(),
                starting: 0,
                naming: HashSet::new(),
                closing: false,
                upgrading: false,
            }),
            limits,
            size_policy,
            metrics: Arc::new(Metrics::default()),
            recordings,
            replays: Arc::default(),
            replays_by: Arc::default(),
            streams_by: Arc::default(),
            isolation: Arc::new(isolation),
            restarting: watch::channel(false).0,
            placement: OnceLock::new(),
            opening: tokio::sync::Mutex::new(()),
        })
    }

    /// Places the sessions among other nodes (a cluster), once: false,
    /// changing nothing, when they were placed already.
    pub fn place(&self, placement: Arc<dyn Placement>) -> bool {
        self.placement.set(placement).is_ok()
    }

    /// Where the sessions are placed, once they are.
    pub fn placement(&self) -> Option<&Arc<dyn Placement>> {
        self.placement.get()
    }

    /// Whether `grant` may do `action` on recording `info`. A recording
    /// belongs to the session it recorded: this node's open session,
    /// another node's by its record, or a closed one by its id and name
    /// (owner unknown). A file of no session has the empty id, which only
    /// credentials that reach every session reach.
    pub fn check_recording(
        &self,
        grant: &Grant,
        info: &RecordingInfo,
        action: Action,
    ) -> Result<(), Denied> {
        let open = info.session.as_deref().and_then(|id| self.get(id));
        let remote_owner: Option<Credential> = info
            .session
            .as_deref()
            .filter(|_| open.is_none())
            .and_then(|id| self.placement()?.elsewhere(id))
            .and_then(|elsewhere| elsewhere.owner);
        let target = match &open {
            Some(session) => {
                let info = session.info();
                Target {
                    id: &info.id,
                    name: info.name.as_deref(),
                    owner: info.owner.as_ref(),
                }
            }
            None => Target {
                id: info.session.as_deref().unwrap_or_default(),
                name: info.session_name.as_deref(),
                owner: remote_owner.as_ref(),
            },
        };
        grant.check(action, Some(target))
    }

    /// How sessions are walled off from each other and ended.
    pub fn isolation(&self) -> &Isolation {
        &self.isolation
    }

    /// The limits the registry enforces.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// How the sessions' sizes follow their viewers.
    pub fn size_policy(&self) -> SizePolicy {
        self.size_policy
    }

    /// The recordings directory sessions record into.
    pub fn recordings(&self) -> &Arc<Recordings> {
        &self.recordings
    }

    /// The counters of every session.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Starts a session. Sizes in `spec` must already be validated.
    /// A lingering session (exited) holding the name, or the oldest one when
    /// no slot is free, is ended to make room.
    pub async fn create(
        self: &Arc<Self>,
        mut spec: SessionSpec,
    ) -> Result<SessionHandle, CreateError> {
        let (_slot, evicted) = self.reserve(spec.name.as_deref())?;
        let evicted_ids: Vec<String> = evicted.iter().map(|s| s.id().to_owned()).collect();
        for session in evicted {
            session.kill().await;
        }
        let id = random::hex128().map_err(|e| CreateError::Internal(e.to_string()))?;
        let claim = match (self.placement(), spec.name.as_deref()) {
            (Some(placement), Some(name)) => Some(placement.claim(name, &id, &evicted_ids).await?),
            _ => None,
        };
        spec.spawn.env.push((pty::MARKER.to_owned(), id.clone()));
        let recorder = match spec.record {
            Some(options) => Some(
                self.recordings.start(&SessionToRecord {
                    id: &id,
                    name: spec.name.as_deref(),
                    profile: spec.profile.as_deref(),
                    argv: &spec.spawn.argv,
                    term: spec
                        .spawn
                        .env
                        .iter()
                        .find(|(name, _)| name == "TERM")
                        .map_or("", |(_, value)| value),
                    size: (spec.spawn.cols, spec.spawn.rows),
                    options,
                })?,
            ),
            None => None,
        };
        let waits = self.metrics.pty_wait_counter();
        let isolation = Arc::clone(&self.isolation);
        let sandboxed = id.clone();
        let (spawned, spec) = tokio::task::spawn_blocking(move || {
            (
                sandbox_and_spawn(&isolation, &sandboxed, &mut spec, waits),
                spec,
            )
        })
        .await
        .map_err(|e| CreateError::Internal(e.to_string()))?;
        let (pty, events, sandbox) = spawned?;

        let info = SessionInfo {
            id: id.clone(),
            name: spec.name,
            owner: spec.owner,
            profile: spec.profile,
            command: spec.spawn.argv,
            pid: pty.pid(),
            created_at: SystemTime::now(),
            recording: recorder.as_ref().map(|r| r.name().to_owned()),
        };
        let mut term = Term::new(spec.spawn.cols, spec.spawn.rows, spec.scrollback);
        term.limit_scrollback_cells(self.limits.max_scrollback_cells);
        term.offer_files(spec.files);
        term.limit_images(self.limits.image_bytes, self.limits.image_pixels);
        let started = Started {
            info,
            term,
            pty: Some(pty),
            events,
            sandbox,
            recorder,
            status: Status::Running,
        };
        let (cols, rows) = (spec.spawn.cols, spec.spawn.rows);
        let handle = self.launch(started, cols, rows).await?;
        if let Some(placement) = self.placement() {
            placement.announce(&handle, cols, rows).await;
        }
        if let Some(claim) = claim {
            claim.keep();
        }
        Ok(handle)
    }

    /// Starts the actor of a session whose program runs (or ran), and
    /// opens it; ends it again when shutdown began meanwhile.
    pub(super) async fn launch(
        self: &Arc<Self>,
        started: Started,
        cols: u16,
        rows: u16,
    ) -> Result<SessionHandle, CreateError> {
        let Started {
            info,
            mut term,
            pty,
            events,
            sandbox,
            recorder,
            status,
        } = started;
        let id = info.id.clone();
        let (screen_tx, screen_rx) = watch::channel(Arc::new(term.snapshot()));
        let exited = match &status {
            Status::Running => None,
            Status::Exited { status, .. } => Some(status.clone()),
        };
        let (status_tx, status_rx) = watch::channel(status);
        let (commands_tx, commands_rx) = mpsc::channel(COMMAND_QUEUE);
        let published = Arc::new(AtomicU64::new(0));
        let discipline = pty.as_ref().and_then(pty::Pty::line_discipline);
        let (discipline_tx, discipline_rx) = watch::channel(discipline);
        let handle = SessionHandle::new(
            info.clone(),
            commands_tx,
            Outputs {
                screen: screen_rx,
                status: status_rx,
                published: Arc::clone(&published),
                discipline: discipline_rx,
            },
            &self.limits,
            self.size_policy,
            Source::Live,
        );
        tracing::info!(
            id = %info.id,
            name = %info.name.as_deref().unwrap_or("-"),
            owner = %info.owner.as_ref().map_or_else(|| "-".to_owned(), |o| o.to_string()),
            profile = %info.profile.as_deref().unwrap_or("-"),
            command = ?info.command,
            pid = info.pid,
            cols,
            rows,
            "session started"
        );
        let program = match &pty {
            Some(pty) => pty.child(),
            None => pty::ChildState::reaped_before(info.pid as libc::pid_t),
        };
        let actor = Actor {
            info,
            term,
            program,
            pty,
            events,
            sandbox,
            commands: commands_rx,
            screen: screen_tx,
            clipboard: handle.clipboard_sender(),
            file_offers: handle.file_offer_sender(),
            status: status_tx,
            discipline: discipline_tx,
            timings: self.timings(),
            metrics: Arc::clone(&self.metrics),
            recorder,
            published,
            exited,
        };
        let registry = Arc::downgrade(self);
        let ended = id.clone();
        crate::pool::spawn(async move {
            actor.run().await;
            if let Some(registry) = Weak::upgrade(&registry) {
                registry.remove(&ended);
            }
            super::memory::release_freed_memory_now();
        })
        .map_err(|e| CreateError::Internal(format!("cannot start the session: {e}")))?;
        let closing = {
            let mut state = self.lock();
            if !state.closing {
                state.open.insert(id.clone(), handle.clone());
            }
            state.closing
        };
        self.metrics.session_created();
        if closing {
            // Shutdown began while this child started: end it with the others.
            handle.shut_down().await;
            return Err(CreateError::ShuttingDown);
        }
        Ok(handle)
    }

    /// Gives a stream of `who` with `role` a place among `session`'s
    /// viewers. View streams of credentials other than the admin token
    /// leave `limits.viewer_reserve` slots free for control streams and
    /// the admin; and every credential but the admin token holds at most
    /// `limits.max_viewers_per_credential` streams on one session and
    /// `limits.max_streams_per_credential` over all. Every transport
    /// (WebSocket, ALiS, replays) joins here.
    pub fn join_stream(
        &self,
        session: &SessionHandle,
        who: &Principal,
        role: panecast_proto::Role,
        badge: Badge,
    ) -> Result<ViewerSlot, StreamRefusal> {
        let joined = self.take_stream_slot(session, who, role, badge);
        if joined.is_err() {
            self.metrics.stream_refused();
        }
        joined
    }

    fn take_stream_slot(
        &self,
        session: &SessionHandle,
        principal: &Principal,
        role: panecast_proto::Role,
        badge: Badge,
    ) -> Result<ViewerSlot, StreamRefusal> {
        let who = &principal.credential;
        let l = &self.limits;
        let admin = *who == Credential::Admin;
        let mut shares = Vec::new();
        if !admin {
            let on_session = session
                .streams_by()
                .take(who, l.max_viewers_per_credential)
                .ok_or(StreamRefusal::CredentialOnSession)?;
            let overall = self
                .streams_by
                .take(who, l.max_streams_per_credential)
                .ok_or(StreamRefusal::Credential)?;
            shares = vec![on_session, overall];
        }
        let limit = if admin || role == panecast_proto::Role::Control {
            l.max_viewers
        } else {
            l.max_viewers.saturating_sub(l.viewer_reserve)
        };
        session
            .join_viewer(limit, (role, principal.clone()), badge, shares)
            .ok_or(StreamRefusal::Full)
    }

    /// Takes a replay slot for `who`, before its recording is read: at most
    /// `limits.max_replays` replays are read, prepared or played at once,
    /// and at most `limits.max_replays_per_credential` for one credential.
    pub fn reserve_replay(&self, who: &Credential) -> Result<ReplaySlot, CreateError> {
        let per_credential = self.limits.max_replays_per_credential;
        let share = self
            .replays_by
            .take(who, per_credential)
            .ok_or(CreateError::TooManyReplaysForCredential(per_credential))?;
        let max = self.limits.max_replays;
        self.replays
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(|_| CreateError::TooManyReplays(max))?;
        Ok(ReplaySlot {
            replays: Arc::clone(&self.replays),
            _share: share,
        })
    }

    /// Starts a replay of the recording `name` (parsed into `cast`) in
    /// `slot`, for one viewer: a read-only session, listed nowhere, that ends when its
    /// last handle is dropped. Pauses longer than `idle_limit` seconds are
    /// shortened. It starts paused at the beginning.
    pub fn replay(
        self: &Arc<Self>,
        slot: ReplaySlot,
        name: &str,
        cast: Cast,
        idle_limit: Option<f64>,
    ) -> Result<SessionHandle, CreateError> {
        let release = move || drop(slot);
        let id = match random::hex128() {
            Ok(id) => id,
            Err(e) => {
                release();
                return Err(CreateError::Internal(e.to_string()));
            }
        };
        let info = SessionInfo {
            id: id.clone(),
            name: None,
            owner: None,
            profile: None,
            command: Vec::new(),
            pid: 0,
            created_at: SystemTime::now(),
            recording: Some(name.to_owned()),
        };
        let mut term = Term::new(cast.header.width, cast.header.height, REPLAY_SCROLLBACK);
        let (screen_tx, screen_rx) = watch::channel(Arc::new(term.snapshot()));
        let (status_tx, status_rx) = watch::channel(Status::Running);
        let (commands_tx, commands_rx) = mpsc::channel(COMMAND_QUEUE);
        let (controls_tx, controls_rx) = mpsc::channel(COMMAND_QUEUE);
        let (state_tx, state_rx) = watch::channel(panecast_proto::ReplayState {
            speed: INITIAL_SPEED,
            ..Default::default()
        });
        let published = Arc::new(AtomicU64::new(0));
        let handle = SessionHandle::new(
            info,
            commands_tx,
            Outputs {
                screen: screen_rx,
                status: status_rx,
                published: Arc::clone(&published),
                // A replay has no terminal: nothing is known of its echo.
                discipline: watch::channel(None).1,
            },
            &self.limits,
            self.size_policy,
            Source::Replay(ReplayLink {
                controls: controls_tx,
                state: state_rx,
            }),
        );
        let title = cast
            .header
            .title
            .clone()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| name.to_owned());
        let player = Player {
            cast,
            title,
            idle_limit,
            commands: commands_rx,
            controls: controls_rx,
            screen: screen_tx,
            state: state_tx,
            status: status_tx,
            published,
            frame: self.limits.frame_interval(),
        };
        tracing::info!(id = %id, recording = %name, "replay started");
        let (registry, ended) = (Arc::downgrade(self), id.clone());
        crate::pool::spawn(async move {
            player.run().await;
            release();
            if let Some(registry) = Weak::upgrade(&registry) {
                registry.lock().replays.remove(&ended);
            }
            tracing::info!(id = %ended, "replay ended");
            super::memory::release_freed_memory_now();
        })
        .map_err(|e| CreateError::Internal(format!("cannot start the replay: {e}")))?;
        let closing = {
            let mut state = self.lock();
            state.replays.insert(id, handle.downgrade());
            state.closing
        };
        if closing {
            return Err(CreateError::ShuttingDown);
        }
        Ok(handle)
    }

    /// The session with this id, or else with this name.
    pub fn get(&self, id_or_name: &str) -> Option<SessionHandle> {
        let state = self.lock();
        if let Some(session) = state.open.get(id_or_name) {
            return Some(session.clone());
        }
        state
            .open
            .values()
            .find(|s| s.info().name.as_deref() == Some(id_or_name))
            .cloned()
    }

    /// The session with this id, or else with this name: this node's, or
    /// in a cluster another node's, through this node's mirror of it
    /// (opened when there is none yet: it waits for the first screen).
    pub async fn find(
        self: &Arc<Self>,
        id_or_name: &str,
    ) -> Result<Option<SessionHandle>, FindError> {
        if let Some(session) = self.get(id_or_name) {
            return Ok(Some(session));
        }
        let Some(placement) = self.placement() else {
            return Ok(None);
        };
        // An open mirror serves on while its owner is briefly out of the
        // registry (paused, cut off); it ends by itself if the owner is gone.
        if let Some(mirror) = self.mirror(id_or_name) {
            return Ok(Some(mirror));
        }
        placement.find(self, id_or_name).await
    }

    /// Starts a session as [`Self::create`] does, on `node` among the
    /// nodes the sessions are placed on (see [`Placement::create_on`]).
    /// Unplaced, only this node may be asked for.
    pub async fn create_on(
        self: &Arc<Self>,
        spec: SessionSpec,
        node: Option<&str>,
        remote: super::RemoteCreate,
    ) -> Result<SessionHandle, CreateError> {
        match self.placement() {
            Some(placement) => placement.create_on(self, spec, node, remote).await,
            None => match node {
                Some(node) => Err(CreateError::UnknownNode(node.to_owned())),
                None => self.create(spec).await,
            },
        }
    }

    /// Whether session `id` is open on this node or, in a cluster, on
    /// another (as this node's copy of the registry says).
    pub fn exists(&self, id: &str) -> bool {
        self.get(id).is_some() || self.placement().is_some_and(|p| p.elsewhere(id).is_some())
    }

    /// This node's open mirror of session `id`, if any.
    pub(crate) fn mirror(&self, id: &str) -> Option<SessionHandle> {
        self.lock().mirrors.get(id).and_then(WeakHandle::upgrade)
    }

    /// Held while a mirror is opened: one at a time, so that two finds of
    /// one session open one mirror.
    pub(crate) async fn opening_mirror(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.opening.lock().await
    }

    /// Keeps `mirror` as this node's mirror of session `id`.
    pub(crate) fn keep_mirror(&self, id: &str, mirror: &SessionHandle) {
        self.lock()
            .mirrors
            .insert(id.to_owned(), mirror.downgrade());
    }

    /// Forgets this node's mirror of session `id`, if it is still `mirror`.
    pub(crate) fn forget_mirror(&self, id: &str, mirror: &WeakHandle) {
        let mut state = self.lock();
        if state.mirrors.get(id).is_some_and(|m| m.same(mirror)) {
            state.mirrors.remove(id);
        }
    }

    /// Every open session, oldest first.
    pub fn list(&self) -> Vec<SessionHandle> {
        let mut sessions: Vec<SessionHandle> = self.lock().open.values().cloned().collect();
        sessions.sort_by(|a, b| (a.info().created_at, a.id()).cmp(&(b.info().created_at, b.id())));
        sessions
    }

    /// Takes a session out of the registry (its actor goes on until killed
    /// or done lingering).
    pub fn remove(&self, id: &str) -> Option<SessionHandle> {
        self.lock().open.remove(id)
    }

    /// Refuses new sessions and ends every open one, concurrently, then
    /// gives their viewers a moment to send their close frames (1001, going
    /// away) before the caller stops the runtime under them.
    pub async fn shutdown(&self) {
        let sessions: Vec<SessionHandle> = {
            let mut state = self.lock();
            state.closing = true;
            let mut replays: Vec<WeakHandle> = state.replays.drain().map(|(_, r)| r).collect();
            replays.extend(state.mirrors.drain().map(|(_, m)| m));
            state
                .open
                .drain()
                .map(|(_, handle)| handle)
                .chain(replays.iter().filter_map(WeakHandle::upgrade))
                .collect()
        };
        let mut ending = JoinSet::new();
        for session in sessions {
            ending.spawn(async move {
                session.shut_down().await;
                let mut room = session.watch_room();
                let gone = room.wait_for(Room::is_empty);
                // Viewers that take longer are dropped with the runtime.
                let _ = tokio::time::timeout(VIEWERS_CLOSE_WITHIN, gone).await;
            });
        }
        while ending.join_next().await.is_some() {}
    }

    pub(super) fn timings(&self) -> Timings {
        Timings {
            frame: self.limits.frame_interval(),
            sync_timeout: self.limits.sync_timeout(),
            linger: self.limits.linger(),
            grace: self.limits.grace(),
        }
    }

    /// Takes a slot for a new session named `name`, and the name with it,
    /// in one step under the lock: a name being started is taken as surely
    /// as one running, until the slot is dropped. Sessions that have
    /// exited (lingering with their final screen) give way: the one holding
    /// the name, and the oldest when every slot is taken. Only running or
    /// starting sessions can make creation fail.
    fn reserve(&self, name: Option<&str>) -> Result<(Slot<'_>, Vec<SessionHandle>), CreateError> {
        let mut state = self.lock();
        if state.closing {
            return Err(CreateError::ShuttingDown);
        }
        if state.upgrading {
            return Err(CreateError::Upgrading);
        }
        let mut evicted = Vec::new();
        if let Some(name) = name {
            if state.naming.contains(name) {
                return Err(CreateError::NameTaken(name.to_owned()));
            }
            let holder = state
                .open
                .iter()
                .find(|(_, s)| s.info().name.as_deref() == Some(name))
                .map(|(id, s)| (id.clone(), s.status().running()));
            match holder {
                Some((_, true)) => return Err(CreateError::NameTaken(name.to_owned())),
                Some((id, false)) => evicted.extend(state.open.remove(&id)),
                None => {}
            }
        }
        if state.open.len() + state.starting >= self.limits.max_sessions {
            let oldest_exited = state
                .open
                .values()
                .filter(|s| !s.status().running())
                .min_by(|a, b| (a.info().created_at, a.id()).cmp(&(b.info().created_at, b.id())))
                .map(|s| s.id().to_owned());
            match oldest_exited {
                Some(id) => evicted.extend(state.open.remove(&id)),
                None => return Err(CreateError::TooMany(self.limits.max_sessions)),
            }
        }
        state.starting += 1;
        if let Some(name) = name {
            state.naming.insert(name.to_owned());
        }
        let slot = Slot {
            sessions: self,
            name: name.map(str::to_owned),
        };
        Ok((slot, evicted))
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays consistent even if a holder panicked: every
        // update is a single insert, remove or counter change.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A reserved place (and name) for a session being started; released on
/// drop, by which time a started session is open under its name.
struct Slot<'a> {
    sessions: &'a Sessions,
    name: Option<String>,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut state = self.sessions.lock();
        state.starting -= 1;
        if let Some(name) = &self.name {
            state.naming.remove(name);
        }
    }
}

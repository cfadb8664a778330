//! The handle to a session: cheap to clone, used by the HTTP API and by
//! viewers (the WebSocket) to read the screen and to send commands.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, watch};

use crate::stream::FrameCache;
use crate::term::Snapshot;

use super::{Command, EndReason, Input, ScrollbackLines, SessionError, SessionInfo, Status};

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
    frames: Arc<FrameCache>,
    viewers: Arc<AtomicUsize>,
    /// An [`EndReason`] as a number, set before the session is killed.
    end_reason: AtomicU8,
}

/// A place among a session's viewers, given back when dropped.
pub struct ViewerSlot {
    viewers: Arc<AtomicUsize>,
}

impl Drop for ViewerSlot {
    fn drop(&mut self) {
        self.viewers.fetch_sub(1, Ordering::AcqRel);
    }
}

impl SessionHandle {
    pub(super) fn new(
        info: SessionInfo,
        commands: mpsc::Sender<Command>,
        screen: watch::Receiver<Arc<Snapshot>>,
        status: watch::Receiver<Status>,
    ) -> SessionHandle {
        SessionHandle {
            shared: Arc::new(Shared {
                info,
                commands,
                screen,
                status,
                frames: Arc::default(),
                viewers: Arc::default(),
                end_reason: AtomicU8::new(EndReason::Exited as u8),
            }),
        }
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

    /// Encoded frames shared by this session's viewers.
    pub fn frame_cache(&self) -> Arc<FrameCache> {
        Arc::clone(&self.shared.frames)
    }

    /// Viewers connected now.
    pub fn viewers(&self) -> usize {
        self.shared.viewers.load(Ordering::Acquire)
    }

    /// Waits until every viewer has left (each one's task has sent its close
    /// frame and dropped its place), or `limit` has passed.
    pub async fn viewers_left(&self, limit: std::time::Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        while self.viewers() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    /// Takes a place among the viewers, or `None` when `max` are connected.
    pub fn join_viewer(&self, max: usize) -> Option<ViewerSlot> {
        let viewers = &self.shared.viewers;
        viewers
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()?;
        Some(ViewerSlot {
            viewers: Arc::clone(viewers),
        })
    }

    /// Scrollback lines `start .. start + count`, 1 being the line just
    /// above the terminal's screen as it is when the actor answers.
    pub async fn scrollback(
        &self,
        start: u64,
        count: u16,
    ) -> Result<ScrollbackLines, SessionError> {
        let (reply, answer) = oneshot::channel();
        self.shared
            .commands
            .send(Command::Scrollback {
                start,
                count,
                reply,
            })
            .await
            .map_err(|_| SessionError::Exited)?;
        answer.await.map_err(|_| SessionError::Exited)
    }

    /// Whether the child runs, or how it ended.
    pub fn status(&self) -> Status {
        self.shared.status.borrow().clone()
    }

    /// A receiver of status changes, for a viewer that reports the exit.
    pub fn watch_status(&self) -> watch::Receiver<Status> {
        self.shared.status.clone()
    }

    /// Queues input for the child. Keys are encoded with the terminal's
    /// modes at the moment they are written.
    pub async fn send_input(&self, input: Input) -> Result<(), SessionError> {
        self.request(|reply| Command::Input(input, reply)).await
    }

    /// Resizes the terminal; the child gets SIGWINCH.
    pub async fn resize(&self, cols: u16, rows: u16) -> Result<(), SessionError> {
        self.request(|reply| Command::Resize { cols, rows, reply })
            .await
    }

    /// Why the session ended, once its status is [`Status::Exited`]:
    /// [`EndReason::Exited`] unless it was deleted or the server shut down.
    pub fn end_reason(&self) -> EndReason {
        match self.shared.end_reason.load(Ordering::Acquire) {
            r if r == EndReason::Deleted as u8 => EndReason::Deleted,
            r if r == EndReason::ShutDown as u8 => EndReason::ShutDown,
            _ => EndReason::Exited,
        }
    }

    /// Ends the session because it was deleted: hangs up the child's process
    /// groups, kills them after the grace period, reaps the child, and
    /// returns the final status.
    pub async fn kill(&self) -> Status {
        self.end(EndReason::Deleted).await
    }

    /// Ends the session because the server shuts down (as [`Self::kill`]).
    pub async fn shut_down(&self) -> Status {
        self.end(EndReason::ShutDown).await
    }

    async fn end(&self, reason: EndReason) -> Status {
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
            .send(Command::Kill(reply))
            .await
            .is_ok()
        {
            // An error only means the actor had already ended.
            let _ = done.await;
        }
        self.status()
    }

    async fn request(
        &self,
        command: impl FnOnce(super::Reply) -> Command,
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

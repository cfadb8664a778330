//! The registry's side of an upgrade: freezing every open session (no new
//! one starts meanwhile), thawing them when the upgrade does not happen,
//! telling streams the server restarts, and taking in the sessions an
//! earlier process image handed over.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinSet;

use super::registry::Started;
use super::{
    CreateError, FreezeRequest, Frozen, FrozenRecording, InputTag, SavedSession, SessionHandle,
    Sessions, Thawed,
};
use crate::pty::{Pty, PtyEvents, SavedSandbox};
use panecast_term::Term;

/// A frozen session: its handle, what it handed back, and how to thaw it.
pub struct FrozenSession {
    /// The session.
    pub handle: SessionHandle,
    /// What it handed back.
    pub frozen: Frozen,
    thaw: oneshot::Sender<Thawed>,
}

/// A session handed over by an earlier process image, ready to go on.
pub struct HandedOver {
    /// Its description.
    pub saved: SavedSession,
    /// Its terminal.
    pub term: Term,
    /// Its pty, taken back with [`crate::pty::adopt`], while its program runs.
    pub pty: Option<(Pty, PtyEvents)>,
    /// Its walls.
    pub sandbox: SavedSandbox,
    /// Its recording's clock and settings.
    pub recording: Option<FrozenRecording>,
    /// Input it had queued and not written.
    pub pending_input: Vec<u8>,
}

impl Sessions {
    /// Freezes every open session for an upgrade, within `within`; no
    /// session starts until they are thawed. Sessions that end meanwhile
    /// are left out. Fails (thawing what froze) when shutdown or another
    /// upgrade is under way, or a session does not answer in time.
    pub async fn freeze_all(
        self: &Arc<Self>,
        within: Duration,
    ) -> Result<Vec<FrozenSession>, String> {
        let deadline = tokio::time::Instant::now() + within;
        {
            let mut state = self.lock();
            if state.closing {
                return Err("the server is shutting down".to_owned());
            }
            if state.upgrading {
                return Err("an upgrade is already under way".to_owned());
            }
            state.upgrading = true;
        }
        // Sessions being spawned are open once their create returns.
        while self.lock().starting > 0 {
            if tokio::time::Instant::now() >= deadline {
                self.thaw(Vec::new());
                return Err("sessions being started did not finish in time".to_owned());
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let open: Vec<SessionHandle> = self.lock().open.values().cloned().collect();
        let mut asking = JoinSet::new();
        for handle in open {
            asking.spawn(freeze_one(handle));
        }
        let mut frozen = Vec::new();
        loop {
            match tokio::time::timeout_at(deadline, asking.join_next()).await {
                Ok(Some(Ok(Some(session)))) => frozen.push(session),
                // Gone before it froze: the session has ended.
                Ok(Some(_)) => {}
                Ok(None) => return Ok(frozen),
                Err(_) => {
                    self.thaw(frozen);
                    // Those still freezing are thawed as they answer.
                    let sessions = Arc::clone(self);
                    tokio::spawn(async move {
                        while let Some(answer) = asking.join_next().await {
                            if let Ok(Some(session)) = answer {
                                sessions.thaw(vec![session]);
                            }
                        }
                    });
                    return Err("a session did not freeze in time".to_owned());
                }
            }
        }
    }

    /// Thaws sessions an upgrade froze and did not hand over: each goes on
    /// where it stopped, its recording reopened where it was closed. New
    /// sessions may start again.
    pub fn thaw(&self, frozen: Vec<FrozenSession>) {
        for session in frozen {
            let recorder = self.reopen_recording(&session.frozen.saved, session.frozen.recording);
            let _ = session.thaw.send(Thawed { recorder });
        }
        self.restarting.send_replace(false);
        self.lock().upgrading = false;
    }

    /// Tells every stream that the server restarts (they close with 1012).
    pub fn announce_restart(&self) {
        self.restarting.send_replace(true);
    }

    /// Becomes true when the server is about to restart.
    pub fn watch_restart(&self) -> watch::Receiver<bool> {
        self.restarting.subscribe()
    }

    /// Takes in a session an earlier process image handed over: same id,
    /// name, owner, screen and program; its recording reopened where it
    /// stopped; its queued input written first.
    pub async fn adopt(self: &Arc<Self>, handed: HandedOver) -> Result<SessionHandle, CreateError> {
        let HandedOver {
            saved,
            mut term,
            pty,
            sandbox,
            recording,
            pending_input,
        } = handed;
        let sandbox = self
            .isolation()
            .adopt(sandbox)
            .map_err(CreateError::Internal)?;
        term.limit_scrollback_cells(self.limits().max_scrollback_cells);
        let recorder = self.reopen_recording(&saved, recording);
        let status = saved.status();
        let (pty, events) = match pty {
            Some((pty, events)) if status.running() => {
                // The input queue is empty: this cannot be refused.
                let _ = pty.write(pending_input);
                (Some(pty), events)
            }
            _ => (None, ended_events()),
        };
        let started = Started {
            info: saved.info(),
            term,
            pty,
            events,
            sandbox,
            recorder,
            status,
        };
        let handle = self.launch(started, saved.cols, saved.rows).await?;
        handle.restore_applied_inputs(
            saved
                .inputs
                .iter()
                .filter_map(|(client, seq)| Some((InputTag::parse_client(client)?, *seq))),
        );
        // In a cluster its record (and name) stayed in the registry across
        // the exec; it is followed again from here, and removed when it ends.
        if let Some(placement) = self.placement() {
            placement.announce(&handle, saved.cols, saved.rows).await;
        }
        Ok(handle)
    }

    /// The recording of a frozen session, reopened at its size then, if it
    /// was live (a failure is logged: the session goes on unrecorded).
    fn reopen_recording(
        &self,
        saved: &SavedSession,
        recording: Option<FrozenRecording>,
    ) -> Option<crate::record::Recorder> {
        let (Some(file), Some(clock)) = (&saved.recording, recording) else {
            return None;
        };
        if !clock.live {
            return None;
        }
        let reopened = self.recordings().resume(
            &file.name,
            &saved.id,
            file.offset,
            clock.elapsed,
            clock.input,
        );
        match reopened {
            Ok(recorder) => Some(recorder),
            Err(error) => {
                tracing::error!(id = %saved.id, recording = %file.name, %error, "cannot reopen the recording: the session goes on unrecorded");
                None
            }
        }
    }
}

/// Asks one session to freeze: what it handed back, or `None` when it
/// ended first.
async fn freeze_one(handle: SessionHandle) -> Option<FrozenSession> {
    let (reply, answer) = oneshot::channel();
    let (thaw, thawed) = oneshot::channel();
    let request = FreezeRequest {
        reply,
        thaw: thawed,
    };
    if !handle.freeze(request).await {
        return None;
    }
    let mut frozen = answer.await.ok()?;
    frozen.saved.inputs = handle
        .applied_inputs()
        .into_iter()
        .map(|(client, seq)| (format!("{client:032x}"), seq))
        .collect();
    Some(FrozenSession {
        handle,
        frozen,
        thaw,
    })
}

/// The events of a program that has ended: no output, no exit to come.
fn ended_events() -> PtyEvents {
    PtyEvents {
        output: mpsc::channel(1).1,
        exit: oneshot::channel().1,
    }
}

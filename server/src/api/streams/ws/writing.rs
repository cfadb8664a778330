//! Sending to a connection: messages, and frames whose pieces a slow
//! socket may give up on (it is sent the screen whole once it reads again).

use std::collections::VecDeque;
use std::sync::Arc;

use axum::extract::ws::Message;
use panecast_proto::ServerMessage;
use tokio::time::error::Elapsed;
use tokio::time::timeout;

use super::closing::Ending;
use super::viewer::{Viewer, STALLED_AFTER};
use panecast_term::Snapshot;

impl Viewer {
    /// Sends one message. A socket that has not taken it after
    /// [`Viewer::dead_after`] belongs to a dead peer.
    pub(super) async fn send(&mut self, message: Message) -> Result<(), Ending> {
        let binary = binary_len(&message);
        let result = timeout(self.dead_after(), self.socket.send(message)).await;
        self.sent(result, binary)
    }

    /// What a send came to: a binary message of `binary` bytes is counted
    /// once it went out; the connection ends when the socket broke or
    /// stayed full.
    pub(super) fn sent(
        &mut self,
        result: Result<Result<(), axum::Error>, Elapsed>,
        binary: Option<usize>,
    ) -> Result<(), Ending> {
        match result {
            Ok(Ok(())) => {
                if let Some(bytes) = binary {
                    self.sessions.metrics().stream_message_sent(bytes);
                    self.flow.sent(bytes, tokio::time::Instant::now());
                }
                Ok(())
            }
            Ok(Err(_)) | Err(_) => Err(Ending::gone()),
        }
    }

    pub(super) async fn send_message(&mut self, message: ServerMessage) -> Result<(), Ending> {
        self.send(Message::Binary(message.encode().into())).await
    }

    /// Tells the client where the connection stands (a `Sync`), when that
    /// changed since it was last told.
    pub(super) async fn sync(&mut self) -> Result<(), Ending> {
        let discipline = *self.session.watch_discipline().borrow();
        match self
            .echoes
            .sync(self.state.revision(), discipline, !self.predict)
        {
            Some(sync) => self.send_message(ServerMessage::Sync(sync)).await,
            None => Ok(()),
        }
    }

    /// The client has the screen just sent, unless only part of it went
    /// (a stalled socket): inputs settled by then are judged on it.
    pub(super) fn shown(&mut self) {
        if self.state.revision().is_some() {
            self.echoes.shown();
        }
    }

    /// Counts the screens published since this viewer last caught up that
    /// it never got: a slow viewer skips to the latest.
    pub(super) fn count_skipped(&mut self) {
        let now = self.session.published();
        if let Some(seen) = self.seen {
            let skipped = now.saturating_sub(seen + 1);
            if skipped > 0 {
                self.sessions.metrics().frames_skipped(skipped);
            }
        }
        self.seen = Some(now);
    }

    /// Sends what brings the client to `screen` (nothing if it has it).
    /// A frame's pieces stay shared with the other viewers until each is
    /// written, as the socket takes the one before. The screen itself is
    /// let go before anything is sent, so a viewer whose socket has stopped
    /// taking messages does not keep an old screen alive; and one whose
    /// socket has not taken a piece for a while ([`STALLED_AFTER`]) lets go of the
    /// rest of the frame too, and is sent the screen whole once its socket
    /// takes the piece it was on.
    pub(super) async fn update(&mut self, screen: Arc<Snapshot>) -> Result<(), Ending> {
        self.send_frame(screen).await?;
        // A frame given up on is made good as soon as the socket takes
        // messages again: with the screen as it is now, whole.
        while self.state.is_partial() {
            self.send_frame(self.session.screen()).await?;
        }
        Ok(())
    }

    /// Sends the messages that bring the client to `screen`, giving up the
    /// rest of the frame if the socket stops taking its pieces.
    pub(super) async fn send_frame(&mut self, screen: Arc<Snapshot>) -> Result<(), Ending> {
        let mut out = Vec::new();
        self.state.update_lazily(&screen, &self.cache, &mut out);
        drop(screen);
        let mut rest = VecDeque::from(out);
        while let Some(message) = rest.pop_front() {
            let message = Message::Binary(message.into_bytes(self.deflate).into());
            let binary = binary_len(&message);
            let dead_after = self.dead_after();
            let result = {
                let sent = timeout(dead_after, self.socket.send(message));
                tokio::pin!(sent);
                let stalled = tokio::time::sleep(self.stalled_after);
                tokio::pin!(stalled);
                let mut waiting = true;
                loop {
                    tokio::select! {
                        result = &mut sent => break result,
                        () = &mut stalled, if waiting => {
                            waiting = false;
                            self.state.give_up_rest(&mut rest);
                            self.stalled_after = (self.stalled_after * 2).min(dead_after);
                            // What this viewer alone held of the frame is
                            // freed now, on a worker's arena: given back.
                            crate::session::release_freed_memory_soon();
                        }
                    }
                }
            };
            self.sent(result, binary)?;
        }
        if !self.state.is_partial() {
            self.stalled_after = STALLED_AFTER;
        }
        Ok(())
    }
}

/// The length of a binary message (what the stream metrics count).
pub(super) fn binary_len(message: &Message) -> Option<usize> {
    match message {
        Message::Binary(bytes) => Some(bytes.len()),
        _ => None,
    }
}

//! Counters for `/metrics`, shared by the registry and every actor.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Monotonic counters; gauges are computed from the registry when read.
#[derive(Debug, Default)]
pub struct Metrics {
    sessions_created: AtomicU64,
    pty_read_bytes: AtomicU64,
    pty_read_chunks: AtomicU64,
    frames_published: AtomicU64,
    input_bytes: AtomicU64,
    stream_frames_sent: AtomicU64,
    stream_bytes_sent: AtomicU64,
    auth_failures: AtomicU64,
    frames_skipped: AtomicU64,
    streams_refused: AtomicU64,
    connections_evicted: AtomicU64,
    connections_refused: AtomicU64,
    /// Shared with every pty output task.
    pty_waits: Arc<AtomicU64>,
}

impl Metrics {
    pub(super) fn session_created(&self) {
        self.sessions_created.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn chunk_read(&self, bytes: usize) {
        self.pty_read_bytes
            .fetch_add(bytes as u64, Ordering::Relaxed);
        self.pty_read_chunks.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn frame_published(&self) {
        self.frames_published.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn input_written(&self, bytes: usize) {
        self.input_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// Counts one binary message of `bytes` sent to a stream viewer.
    pub fn stream_message_sent(&self, bytes: usize) {
        self.stream_frames_sent.fetch_add(1, Ordering::Relaxed);
        self.stream_bytes_sent
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// Counts screens a slow viewer never got: it was sent a later one.
    pub fn frames_skipped(&self, n: u64) {
        self.frames_skipped.fetch_add(n, Ordering::Relaxed);
    }

    /// The counter pty readers bump each time a full channel makes them
    /// wait for their session (backpressure on the program).
    pub(super) fn pty_wait_counter(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.pty_waits)
    }

    /// Screens skipped by slow viewers.
    pub fn skipped_frames(&self) -> u64 {
        self.frames_skipped.load(Ordering::Relaxed)
    }

    /// Times a pty reader waited because its session was behind.
    pub fn pty_backpressure_waits(&self) -> u64 {
        self.pty_waits.load(Ordering::Relaxed)
    }

    /// Counts one request refused for want of a valid credential.
    pub fn auth_failed(&self) {
        self.auth_failures.fetch_add(1, Ordering::Relaxed);
    }

    /// Sessions started since the server started.
    pub fn sessions_created(&self) -> u64 {
        self.sessions_created.load(Ordering::Relaxed)
    }

    /// Bytes read from every pty.
    pub fn pty_read_bytes(&self) -> u64 {
        self.pty_read_bytes.load(Ordering::Relaxed)
    }

    /// Chunks the pty output tasks handed to the actors.
    pub fn pty_read_chunks(&self) -> u64 {
        self.pty_read_chunks.load(Ordering::Relaxed)
    }

    /// Screens published by the actors.
    pub fn frames_published(&self) -> u64 {
        self.frames_published.load(Ordering::Relaxed)
    }

    /// Input bytes written to ptys from clients (keys encoded, pastes
    /// bracketed), not counting the terminal's own replies.
    pub fn input_bytes(&self) -> u64 {
        self.input_bytes.load(Ordering::Relaxed)
    }

    /// Binary messages sent to stream viewers.
    pub fn stream_frames_sent(&self) -> u64 {
        self.stream_frames_sent.load(Ordering::Relaxed)
    }

    /// Bytes of binary messages sent to stream viewers.
    pub fn stream_bytes_sent(&self) -> u64 {
        self.stream_bytes_sent.load(Ordering::Relaxed)
    }

    /// Requests refused for want of a valid credential.
    pub fn auth_failures(&self) -> u64 {
        self.auth_failures.load(Ordering::Relaxed)
    }

    pub(super) fn stream_refused(&self) {
        self.streams_refused.fetch_add(1, Ordering::Relaxed);
    }

    /// Streams refused a viewer slot (session full, or the credential at
    /// its share).
    pub fn streams_refused(&self) -> u64 {
        self.streams_refused.load(Ordering::Relaxed)
    }

    /// Counts an idle HTTP connection closed to make room for a new one.
    pub fn connection_evicted(&self) {
        self.connections_evicted.fetch_add(1, Ordering::Relaxed);
    }

    /// Idle HTTP connections closed to make room for new ones.
    pub fn connections_evicted(&self) -> u64 {
        self.connections_evicted.load(Ordering::Relaxed)
    }

    /// Counts a new HTTP connection refused: those it could replace were busy.
    pub fn connection_refused(&self) {
        self.connections_refused.fetch_add(1, Ordering::Relaxed);
    }

    /// New HTTP connections refused because those they could replace were busy.
    pub fn connections_refused(&self) -> u64 {
        self.connections_refused.load(Ordering::Relaxed)
    }
}

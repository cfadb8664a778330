//! The cluster's NATS connection, with this node's [`Seal`]: everything a
//! node publishes goes out sealed, and everything it takes in is opened
//! before it is read. A refusal is counted by reason (`/metrics`) and
//! logged as an audit line, at most one a second with a count of the
//! others, so a flood of forgeries cannot flood the log.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::{Client, RequestErrorKind, Subject};

use super::seal::{Kind, Opened, Refusal, Seal};

/// The cluster's connection and this node's seal.
#[derive(Clone, Debug)]
pub struct Bus {
    client: Client,
    seal: Arc<Seal>,
    log: Arc<RefusalLog>,
}

/// Why a request got no answer it could use.
#[derive(Debug)]
pub enum RequestFailure {
    /// NATS says no one takes requests on the subject.
    NoResponders,
    /// No answer in time, or NATS failed.
    Failed(String),
    /// An answer came, but did not open.
    Refused(Refusal),
}

impl Bus {
    /// `client`, sealing and opening with `seal`.
    pub fn new(client: Client, seal: Seal) -> Bus {
        Bus {
            client,
            seal: Arc::new(seal),
            log: Arc::default(),
        }
    }

    /// The NATS connection, for subscriptions and inboxes.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// This node's seal.
    pub fn seal(&self) -> &Seal {
        &self.seal
    }

    /// Publishes `payload` on `subject`, sealed as a `kind` message.
    pub async fn publish(
        &self,
        kind: Kind,
        subject: Subject,
        payload: &[u8],
    ) -> Result<(), async_nats::PublishError> {
        let sealed = self.seal.seal(kind, subject.as_str(), payload);
        self.client.publish(subject, sealed.into()).await
    }

    /// Sends `payload` to `subject` as an ask and waits up to `timeout`
    /// for the answer, which is opened: an answer is taken only when a
    /// node sealed it for this very request's reply subject.
    pub async fn request(
        &self,
        subject: &str,
        payload: &[u8],
        timeout: Duration,
    ) -> Result<Vec<u8>, RequestFailure> {
        let sealed = self.seal.seal(Kind::Ask, subject, payload);
        let request = async_nats::Request::new()
            .payload(sealed.into())
            .timeout(Some(timeout));
        match self.client.send_request(subject.to_owned(), request).await {
            Ok(message) => self
                .open(Kind::Answer, message.subject.as_str(), &message.payload)
                .map(|opened| opened.payload.to_vec())
                .map_err(RequestFailure::Refused),
            Err(e) if e.kind() == RequestErrorKind::NoResponders => {
                Err(RequestFailure::NoResponders)
            }
            Err(e) => Err(RequestFailure::Failed(e.to_string())),
        }
    }

    /// Counts an ask that opened but that this node's configuration
    /// refused for who it acts for (the owner logs it).
    pub fn count_denied(&self) {
        self.log.denied.fetch_add(1, Ordering::Relaxed);
    }

    /// How many asks [`Bus::count_denied`] counted.
    pub fn denied(&self) -> u64 {
        self.log.denied.load(Ordering::Relaxed)
    }

    /// Opens `payload`, received on `subject` as a `kind` message; a
    /// refusal is counted and logged.
    pub fn open<'a>(
        &self,
        kind: Kind,
        subject: &str,
        payload: &'a [u8],
    ) -> Result<Opened<'a>, Refusal> {
        self.seal
            .open(kind, subject, payload)
            .inspect_err(|refusal| {
                self.log.refused(kind, subject, *refusal);
            })
    }
}

/// Refusals logged at most once a second.
#[derive(Debug)]
struct RefusalLog {
    start: Instant,
    /// Milliseconds from `start` of the last line; `u64::MAX`: none yet.
    last_ms: AtomicU64,
    /// Refusals not logged since the last line.
    quiet: AtomicU64,
    /// Asks opened but refused for who they act for.
    denied: AtomicU64,
}

impl Default for RefusalLog {
    fn default() -> RefusalLog {
        RefusalLog {
            start: Instant::now(),
            last_ms: AtomicU64::new(u64::MAX),
            quiet: AtomicU64::new(0),
            denied: AtomicU64::new(0),
        }
    }
}

impl RefusalLog {
    fn refused(&self, kind: Kind, subject: &str, refusal: Refusal) {
        let now = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let last = self.last_ms.load(Ordering::Relaxed);
        let due = last == u64::MAX || now.saturating_sub(last) >= 1000;
        if !due
            || self
                .last_ms
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            self.quiet.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let others = self.quiet.swap(0, Ordering::Relaxed);
        tracing::warn!(
            target: "panecast::audit",
            event = "bus_refused",
            kind = kind.name(),
            subject,
            reason = refusal.name(),
            others,
            "a message from the cluster bus refused: {refusal}"
        );
    }
}

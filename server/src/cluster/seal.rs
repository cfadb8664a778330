//! Every message one node sends another, and every record a node writes
//! to the cluster's buckets, is sealed: signed with HMAC-SHA256 under a
//! key only the nodes hold (`[cluster] key_file`), naming the node that
//! sealed it, what it is, where it goes, and when. A node opens what it
//! receives before it reads it, so a process that reaches the bus but not
//! the key can neither forge nor change a request, an answer, a screen or
//! a record; and, for requests, neither replay one.
//!
//! The bytes of a sealed message:
//!
//! ```text
//! version 1 | kind 1 | sender length 1 | sender | boot 8 | seq 8 | time 8 | payload | tag 32
//! ```
//!
//! (integers little-endian; `boot` is random per process start, `seq`
//! counts the sender's asks from 1, `time` is milliseconds since the Unix
//! epoch). The tag covers all of that and the context the message was
//! sealed for: the NATS subject it was published on (an answer: the
//! asker's reply subject), or the bucket and key of a record. A message
//! published again on another subject, or a record copied to another
//! key, does not open.
//!
//! What opening checks, beyond the tag:
//! - asks, answers and screens: sealed within [`MAX_SKEW`] of the
//!   receiver's clock (nodes keep their clocks within it, as NTP does);
//! - asks: sealed after the receiver started, and each `(sender, boot,
//!   seq)` taken once, by a sliding window per sender (as IPsec's and
//!   DTLS's anti-replay windows): a replayed ask is refused. Screens need
//!   no window: a replayed delta or mark names a revision the mirror holds
//!   or passed, and is ignored or resynced from;
//! - records: the tag only. They are state, read again long after they
//!   were written.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::secret_file::SecretFileError;

type HmacSha256 = Hmac<Sha256>;

/// The format's version byte.
const VERSION: u8 = 1;

/// The bytes of the tag.
const TAG: usize = 32;

/// The longest node name a seal carries (NATS subjects hold it too).
pub const MAX_SENDER: usize = 255;

/// How far a message's time may be from the receiver's clock.
pub const MAX_SKEW: Duration = Duration::from_secs(30);

/// How many asks of one sender the replay window remembers: an ask
/// overtaken by this many later ones is refused as too old.
const WINDOW: u64 = 1 << 16;

/// The fewest characters a bus key may have.
pub const MIN_KEY_LEN: usize = 32;

/// What a sealed message is: part of what the tag covers, so one kind is
/// never taken for another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A request to a session's owner (or to a node, to create one).
    Ask = 1,
    /// The owner's answer, sealed for the asker's reply subject.
    Answer = 2,
    /// A screen message: a delta, a chunk, a mark or a clipboard text.
    Screen = 3,
    /// A value in one of the cluster's KV buckets.
    Record = 4,
}

impl Kind {
    fn of(byte: u8) -> Option<Kind> {
        [Kind::Ask, Kind::Answer, Kind::Screen, Kind::Record]
            .into_iter()
            .find(|kind| *kind as u8 == byte)
    }

    /// The name a refusal's log line and metric give it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Ask => "ask",
            Kind::Answer => "answer",
            Kind::Screen => "screen",
            Kind::Record => "record",
        }
    }
}

/// Why a sealed message was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Not a sealed message of this version, or cut short.
    #[error("not a sealed message")]
    Malformed,
    /// Sealed as another kind of message.
    #[error("sealed as another kind of message")]
    WrongKind,
    /// The tag does not match: another key, another subject or key, or
    /// changed bytes.
    #[error("its tag does not match (another key, another subject, or changed)")]
    BadTag,
    /// Sealed too long ago, or in the future, for the receiver's clock.
    #[error("sealed {skew_ms} ms from this node's clock")]
    Stale {
        /// How far from the receiver's clock, in milliseconds.
        skew_ms: u64,
    },
    /// An ask sealed before this node started (what it took before is
    /// not known, so it could be a replay).
    #[error("an ask sealed before this node started")]
    BeforeStart,
    /// An ask already taken.
    #[error("an ask already taken (a replay)")]
    Replayed,
    /// An ask older than the replay window still remembers.
    #[error("an ask older than the replay window")]
    OutOfWindow,
}

impl Refusal {
    /// Every refusal, for metrics.
    pub const ALL: [Refusal; 7] = [
        Refusal::Malformed,
        Refusal::WrongKind,
        Refusal::BadTag,
        Refusal::Stale { skew_ms: 0 },
        Refusal::BeforeStart,
        Refusal::Replayed,
        Refusal::OutOfWindow,
    ];

    /// Its name, for metrics and logs.
    pub fn name(self) -> &'static str {
        match self {
            Refusal::Malformed => "malformed",
            Refusal::WrongKind => "wrong_kind",
            Refusal::BadTag => "bad_tag",
            Refusal::Stale { .. } => "stale",
            Refusal::BeforeStart => "before_start",
            Refusal::Replayed => "replayed",
            Refusal::OutOfWindow => "out_of_window",
        }
    }

    fn index(self) -> usize {
        match self {
            Refusal::Malformed => 0,
            Refusal::WrongKind => 1,
            Refusal::BadTag => 2,
            Refusal::Stale { .. } => 3,
            Refusal::BeforeStart => 4,
            Refusal::Replayed => 5,
            Refusal::OutOfWindow => 6,
        }
    }
}

/// A secret too short to be the cluster's key.
#[derive(Debug, thiserror::Error)]
#[error("the key must be at least {MIN_KEY_LEN} characters (`panecast key` prints one)")]
pub struct KeyTooShort;

/// Why `[cluster] key_file` holds no key.
#[derive(Debug, thiserror::Error)]
pub enum BusKeyError {
    /// The file cannot be read, is not private or is empty.
    #[error(transparent)]
    File(#[from] SecretFileError),
    /// The secret in the file is too short.
    #[error("cluster.key_file {}: {source}", path.display())]
    Short {
        /// The file.
        path: PathBuf,
        /// Why the secret is no key.
        source: KeyTooShort,
    },
}

/// Why a node cannot seal.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// The node's name is empty or longer than a seal can name.
    #[error("a node's name is 1 to {MAX_SENDER} bytes, not {0}")]
    NodeName(usize),
    /// No random number for the node's boot.
    #[error("no randomness: {0}")]
    Randomness(#[source] getrandom::Error),
}

/// The cluster's shared secret, read from `[cluster] key_file`.
#[derive(Clone)]
pub struct BusKey([u8; 32]);

impl std::fmt::Debug for BusKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BusKey(..)")
    }
}

impl BusKey {
    /// The key in the file at `path`: at least [`MIN_KEY_LEN`] characters
    /// (`panecast key` prints one), in a file sessions may not read.
    pub fn load(path: &Path) -> Result<BusKey, BusKeyError> {
        let text = crate::secret_file::read(path, "cluster.key_file")?;
        BusKey::from_secret(&text).map_err(|source| BusKeyError::Short {
            path: path.to_owned(),
            source,
        })
    }

    /// The key made from `secret`, at least [`MIN_KEY_LEN`] characters.
    pub fn from_secret(secret: &str) -> Result<BusKey, KeyTooShort> {
        if secret.len() < MIN_KEY_LEN {
            return Err(KeyTooShort);
        }
        Ok(BusKey(derive(secret.as_bytes(), "panecast bus key v1")))
    }

    /// A key for `purpose` derived from this one: what else the nodes of
    /// a cluster must share (the sign-in cookies' key).
    pub fn derive(&self, purpose: &str) -> [u8; 32] {
        derive(&self.0, purpose)
    }
}

/// HMAC-SHA256 of `purpose` under `key`.
fn derive(key: &[u8], purpose: &str) -> [u8; 32] {
    let mut mac = mac(key);
    mac.update(purpose.as_bytes());
    mac.finalize().into_bytes().into()
}

fn mac(key: &[u8]) -> HmacSha256 {
    // HMAC takes a key of any length.
    <HmacSha256 as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!())
}

/// A message that opened: who sealed it, and what it carries.
#[derive(Debug, PartialEq, Eq)]
pub struct Opened<'a> {
    /// The node that sealed it.
    pub sender: &'a str,
    /// Its payload.
    pub payload: &'a [u8],
}

/// Milliseconds since the Unix epoch: the clock seals are stamped with.
pub type Clock = Box<dyn Fn() -> u64 + Send + Sync>;

fn system_clock() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// One node's sealing and opening: its key, its name, and what it has
/// taken of each sender's asks.
pub struct Seal {
    key: [u8; 32],
    node: String,
    boot: u64,
    asks: AtomicU64,
    started_ms: u64,
    clock: Clock,
    windows: Mutex<HashMap<(String, u64), Window>>,
    refused: [AtomicU64; Refusal::ALL.len()],
}

impl std::fmt::Debug for Seal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seal")
            .field("node", &self.node)
            .finish_non_exhaustive()
    }
}

impl Seal {
    /// Seals and opens as node `node` with `key`, from now on.
    pub fn new(key: &BusKey, node: &str) -> Result<Seal, SealError> {
        Seal::with_clock(key, node, Box::new(system_clock))
    }

    /// As [`Seal::new`], with another clock (tests).
    pub fn with_clock(key: &BusKey, node: &str, clock: Clock) -> Result<Seal, SealError> {
        if node.is_empty() || node.len() > MAX_SENDER {
            return Err(SealError::NodeName(node.len()));
        }
        Ok(Seal {
            key: key.derive("panecast bus messages v1"),
            node: node.to_owned(),
            boot: crate::random::u64().map_err(SealError::Randomness)?,
            asks: AtomicU64::new(0),
            started_ms: clock(),
            clock,
            windows: Mutex::new(HashMap::new()),
            refused: Default::default(),
        })
    }

    /// The node this seals as.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// `payload` sealed as a `kind` message for `context` (its subject,
    /// or a record's bucket and key).
    pub fn seal(&self, kind: Kind, context: &str, payload: &[u8]) -> Vec<u8> {
        let seq = match kind {
            Kind::Ask => self.asks.fetch_add(1, Ordering::Relaxed) + 1,
            Kind::Answer | Kind::Screen | Kind::Record => 0,
        };
        let time = match kind {
            Kind::Record => 0,
            Kind::Ask | Kind::Answer | Kind::Screen => (self.clock)(),
        };
        let sender = self.node.as_bytes();
        let mut out = Vec::with_capacity(3 + sender.len() + 24 + payload.len() + TAG);
        out.push(VERSION);
        out.push(kind as u8);
        // At most MAX_SENDER (255) bytes: checked in `with_clock`.
        out.push(sender.len() as u8);
        out.extend_from_slice(sender);
        out.extend_from_slice(&self.boot.to_le_bytes());
        out.extend_from_slice(&seq.to_le_bytes());
        out.extend_from_slice(&time.to_le_bytes());
        out.extend_from_slice(payload);
        let tag = self.tag(context, &out);
        out.extend_from_slice(&tag);
        out
    }

    /// The payload of `sealed`, a `kind` message for `context`, once its
    /// tag, its time and (for asks) its freshness check; or why not. A
    /// refusal is counted (see [`Seal::refusals`]).
    pub fn open<'a>(
        &self,
        kind: Kind,
        context: &str,
        sealed: &'a [u8],
    ) -> Result<Opened<'a>, Refusal> {
        let opened = self.check(kind, context, sealed);
        if let Err(refusal) = &opened {
            self.refused[refusal.index()].fetch_add(1, Ordering::Relaxed);
        }
        opened
    }

    fn check<'a>(
        &self,
        kind: Kind,
        context: &str,
        sealed: &'a [u8],
    ) -> Result<Opened<'a>, Refusal> {
        let header = Header::parse(sealed).ok_or(Refusal::Malformed)?;
        let (body, tag) = sealed.split_at(sealed.len() - TAG);
        let mut mac = self.mac_of(context);
        mac.update(body);
        mac.verify_slice(tag).map_err(|_| Refusal::BadTag)?;
        if header.kind != kind {
            return Err(Refusal::WrongKind);
        }
        let sender =
            std::str::from_utf8(&body[3..3 + header.sender_len]).map_err(|_| Refusal::Malformed)?;
        let payload = &body[header.payload_at..];
        if kind == Kind::Record {
            return Ok(Opened { sender, payload });
        }
        let now = (self.clock)();
        let skew_ms = now.abs_diff(header.time);
        if skew_ms > MAX_SKEW.as_millis() as u64 {
            return Err(Refusal::Stale { skew_ms });
        }
        if kind == Kind::Ask {
            if header.time < self.started_ms {
                return Err(Refusal::BeforeStart);
            }
            self.take(sender, header.boot, header.seq)?;
        }
        Ok(Opened { sender, payload })
    }

    /// Takes ask `seq` of `sender`'s run `boot`, once.
    fn take(&self, sender: &str, boot: u64, seq: u64) -> Result<(), Refusal> {
        let mut windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        // A sender silent for twice the skew can be forgotten: any ask it
        // sealed before is refused as stale from then on.
        if windows.len() > 16 {
            windows.retain(|_, w| w.seen.elapsed() < MAX_SKEW * 2);
        }
        windows
            .entry((sender.to_owned(), boot))
            .or_insert_with(Window::new)
            .take(seq)
    }

    /// How many messages were refused, by reason (in [`Refusal::ALL`]'s
    /// order).
    pub fn refusals(&self) -> [u64; Refusal::ALL.len()] {
        std::array::from_fn(|i| self.refused[i].load(Ordering::Relaxed))
    }

    fn mac_of(&self, context: &str) -> HmacSha256 {
        let mut mac = mac(&self.key);
        // A context is a subject or a bucket and key: far under 64 KiB.
        let len = u16::try_from(context.len()).unwrap_or(u16::MAX);
        mac.update(&len.to_le_bytes());
        mac.update(context.as_bytes());
        mac
    }

    fn tag(&self, context: &str, body: &[u8]) -> [u8; TAG] {
        let mut mac = self.mac_of(context);
        mac.update(body);
        mac.finalize().into_bytes().into()
    }
}

/// The fixed fields of a sealed message.
struct Header {
    kind: Kind,
    sender_len: usize,
    boot: u64,
    seq: u64,
    time: u64,
    payload_at: usize,
}

impl Header {
    fn parse(sealed: &[u8]) -> Option<Header> {
        let (&version, rest) = sealed.split_first()?;
        if version != VERSION {
            return None;
        }
        let (&kind, rest) = rest.split_first()?;
        let (&sender_len, rest) = rest.split_first()?;
        let sender_len = usize::from(sender_len);
        let fixed = rest.get(sender_len..sender_len + 24)?;
        let payload_at = 3 + sender_len + 24;
        if sealed.len() < payload_at + TAG {
            return None;
        }
        let word = |i: usize| {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&fixed[i * 8..i * 8 + 8]);
            u64::from_le_bytes(bytes)
        };
        Some(Header {
            kind: Kind::of(kind)?,
            sender_len,
            boot: word(0),
            seq: word(1),
            time: word(2),
            payload_at,
        })
    }
}

/// Which of one sender's last [`WINDOW`] asks were taken.
struct Window {
    /// The highest seq taken.
    top: u64,
    /// Bit `seq % WINDOW` set: taken.
    bits: Box<[u64]>,
    seen: Instant,
}

impl Window {
    fn new() -> Window {
        Window {
            top: 0,
            bits: vec![0; (WINDOW / 64) as usize].into_boxed_slice(),
            seen: Instant::now(),
        }
    }

    fn take(&mut self, seq: u64) -> Result<(), Refusal> {
        if seq == 0 {
            return Err(Refusal::Malformed);
        }
        self.seen = Instant::now();
        if seq > self.top {
            // The positions between the old top and this one are free again.
            let cleared = (seq - self.top).min(WINDOW);
            for n in seq - cleared + 1..=seq {
                self.set(n, false);
            }
            self.top = seq;
            self.set(seq, true);
            return Ok(());
        }
        if self.top - seq >= WINDOW {
            return Err(Refusal::OutOfWindow);
        }
        if self.get(seq) {
            return Err(Refusal::Replayed);
        }
        self.set(seq, true);
        Ok(())
    }

    fn get(&self, seq: u64) -> bool {
        let bit = seq % WINDOW;
        self.bits[(bit / 64) as usize] & (1 << (bit % 64)) != 0
    }

    fn set(&mut self, seq: u64, on: bool) {
        let bit = seq % WINDOW;
        let word = &mut self.bits[(bit / 64) as usize];
        if on {
            *word |= 1 << (bit % 64);
        } else {
            *word &= !(1 << (bit % 64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const SECRET: &str = "the-cluster-secret-0123456789abcdef";

    /// A clock of the test's own, moved by hand.
    #[derive(Clone)]
    struct Now(Arc<AtomicU64>);

    impl Now {
        fn new() -> Now {
            Now(Arc::new(AtomicU64::new(1_000_000_000)))
        }

        fn clock(&self) -> Clock {
            let now = Arc::clone(&self.0);
            Box::new(move || now.load(Ordering::Relaxed))
        }

        fn advance(&self, ms: u64) {
            self.0.fetch_add(ms, Ordering::Relaxed);
        }
    }

    fn key() -> BusKey {
        BusKey::from_secret(SECRET).expect("long enough")
    }

    fn node_at(name: &str, now: &Now) -> Seal {
        Seal::with_clock(&key(), name, now.clock()).expect("a seal")
    }

    fn node(name: &str) -> Seal {
        Seal::new(&key(), name).expect("a seal")
    }

    #[test]
    fn what_one_node_seals_another_opens_once_for_its_subject() {
        let (a, b) = (node("a"), node("b"));
        let sealed = a.seal(Kind::Ask, "panecast.ask.b.s1", b"type ls");
        let opened = b
            .open(Kind::Ask, "panecast.ask.b.s1", &sealed)
            .expect("opens");
        assert_eq!(
            opened,
            Opened {
                sender: "a",
                payload: b"type ls"
            }
        );
        // The same ask again: a replay.
        assert_eq!(
            b.open(Kind::Ask, "panecast.ask.b.s1", &sealed),
            Err(Refusal::Replayed)
        );
        // Published on another session's subject, or as another kind.
        let other = a.seal(Kind::Ask, "panecast.ask.b.s1", b"x");
        assert_eq!(
            b.open(Kind::Ask, "panecast.ask.b.s2", &other),
            Err(Refusal::BadTag)
        );
        assert_eq!(
            b.open(Kind::Screen, "panecast.ask.b.s1", &other),
            Err(Refusal::WrongKind)
        );
        assert_eq!(b.refusals()[Refusal::Replayed.index()], 1);
        assert_eq!(b.refusals()[Refusal::BadTag.index()], 1);
    }

    #[test]
    fn a_changed_byte_or_another_key_is_refused() {
        let (a, b) = (node("a"), node("b"));
        let sealed = a.seal(Kind::Record, "panecast_links/abc", br#"{"role":"view"}"#);
        for i in 0..sealed.len() {
            let mut changed = sealed.clone();
            changed[i] ^= 0x20;
            assert!(
                b.open(Kind::Record, "panecast_links/abc", &changed)
                    .is_err(),
                "byte {i} changed and still opened"
            );
        }
        let stranger = Seal::with_clock(
            &BusKey::from_secret("another-secret-of-32-characters!!").expect("key"),
            "a",
            Now::new().clock(),
        )
        .expect("a seal");
        let forged = stranger.seal(Kind::Record, "panecast_links/abc", br#"{"role":"control"}"#);
        assert_eq!(
            b.open(Kind::Record, "panecast_links/abc", &forged),
            Err(Refusal::BadTag)
        );
        assert_eq!(
            b.open(Kind::Record, "panecast_links/abc", b""),
            Err(Refusal::Malformed)
        );
        assert_eq!(
            b.open(
                Kind::Record,
                "panecast_links/abc",
                &sealed[..sealed.len() - 1]
            ),
            Err(Refusal::BadTag)
        );
        // Records have no time: opened however old.
        assert!(b.open(Kind::Record, "panecast_links/abc", &sealed).is_ok());
        assert!(b.open(Kind::Record, "panecast_links/abc", &sealed).is_ok());
    }

    #[test]
    fn old_asks_and_asks_from_before_the_start_are_refused() {
        let now = Now::new();
        let a = node_at("a", &now);
        let early = a.seal(Kind::Ask, "s", b"early");
        now.advance(5);
        let b = node_at("b", &now);
        assert_eq!(b.open(Kind::Ask, "s", &early), Err(Refusal::BeforeStart));
        let later = a.seal(Kind::Ask, "s", b"later");
        let screen = a.seal(Kind::Screen, "s", b"delta");
        now.advance(MAX_SKEW.as_millis() as u64 + 1);
        assert!(matches!(
            b.open(Kind::Ask, "s", &later),
            Err(Refusal::Stale { .. })
        ));
        assert!(matches!(
            b.open(Kind::Screen, "s", &screen),
            Err(Refusal::Stale { .. })
        ));
        assert!(b
            .open(Kind::Screen, "s", &a.seal(Kind::Screen, "s", b"now"))
            .is_ok());
    }

    #[test]
    fn the_window_takes_asks_out_of_order_once() {
        let mut window = Window::new();
        for seq in [3, 1, 2, 5] {
            assert_eq!(window.take(seq), Ok(()), "{seq}");
        }
        assert_eq!(window.take(2), Err(Refusal::Replayed));
        assert_eq!(window.take(4), Ok(()));
        assert_eq!(window.take(0), Err(Refusal::Malformed));
        // Far ahead: the old ones fall out of the window.
        assert_eq!(window.take(5 + WINDOW), Ok(()));
        assert_eq!(window.take(5), Err(Refusal::OutOfWindow));
        assert_eq!(window.take(6), Ok(()), "just inside, never taken");
        assert_eq!(window.take(6), Err(Refusal::Replayed));
        // A position used before the jump is free again for its new seq.
        assert_eq!(window.take(3 + WINDOW), Ok(()));
    }

    #[test]
    fn a_short_key_or_name_is_refused() {
        assert!(BusKey::from_secret("short").is_err());
        assert!(matches!(Seal::new(&key(), ""), Err(SealError::NodeName(0))));
        let long = Seal::new(&key(), &"n".repeat(MAX_SENDER + 1)).unwrap_err();
        assert_eq!(
            long.to_string(),
            format!(
                "a node's name is 1 to {MAX_SENDER} bytes, not {}",
                MAX_SENDER + 1
            )
        );
        assert_ne!(key().derive("a"), key().derive("b"));
    }
}

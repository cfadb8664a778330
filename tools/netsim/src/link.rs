//! The emulated link every connection shares: its settings, one token bucket
//! per direction, the blackhole, the counters, and the signal that resets
//! every connection.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};
use tokio::time::sleep_until;

use crate::bucket::TokenBucket;
use crate::profile::{Rate, Settings, SEGMENT_BYTES};
use crate::rng::SplitMix64;

/// Which way data goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Client to upstream.
    Up,
    /// Upstream to client.
    Down,
}

/// Bytes a writer may send, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    /// How many of the bytes asked for (at most one segment on a limited
    /// direction, all of them on an unlimited one).
    pub len: usize,
    /// When they may go.
    pub at: Instant,
}

/// The counters `stats` reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Connections accepted and not yet closed.
    pub open: u64,
    /// Connections accepted since the start.
    pub total: u64,
    /// Bytes delivered to upstream.
    pub up_bytes: u64,
    /// Bytes delivered to clients.
    pub down_bytes: u64,
}

impl fmt::Display for Stats {
    /// `open=1 total=3 up_bytes=100 down_bytes=200`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "open={} total={} up_bytes={} down_bytes={}",
            self.open, self.total, self.up_bytes, self.down_bytes
        )
    }
}

/// A connection's place on the link: its number, how it learns of a
/// `reset`, and what `reset` waits on until the connection is closed.
#[derive(Debug)]
pub struct Membership {
    /// The connection's number, from 0 in the order accepted.
    pub id: u64,
    /// Changes when every connection must be reset.
    pub reset: watch::Receiver<u64>,
    /// Held until the connection is closed; `reset` waits for every one of
    /// its generation to be dropped. Nothing is ever sent on it.
    _alive: mpsc::Sender<()>,
}

/// The rate and delay settings with the buckets they make.
struct Shaping {
    settings: Settings,
    up: Option<TokenBucket>,
    down: Option<TokenBucket>,
}

/// A bucket for `rate`: none when unlimited, `old` reshaped when there was
/// one, else a new full one.
fn bucket_for(
    rate: Rate,
    burst: u64,
    old: Option<TokenBucket>,
    now: Instant,
) -> Option<TokenBucket> {
    let rate = rate.bytes_per_sec()?;
    Some(match old {
        Some(mut bucket) => {
            bucket.reshape(rate, burst, now);
            bucket
        }
        None => TokenBucket::new(rate, burst, now),
    })
}

/// The connections of one generation: members hold clones of `alive`, and
/// `gone` yields nothing once every clone is dropped.
struct Generation {
    alive: mpsc::Sender<()>,
    gone: mpsc::Receiver<()>,
}

impl Generation {
    fn new() -> Generation {
        let (alive, gone) = mpsc::channel(1);
        Generation { alive, gone }
    }
}

/// Locks a mutex whose holders never panic while holding it; were one to,
/// the data is still consistent (every update is a single assignment), so
/// the poison is ignored rather than spread.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The emulated link.
pub struct Link {
    shaping: Mutex<Shaping>,
    /// When the current blackhole ends, if one was ever started.
    blackhole: watch::Sender<Option<Instant>>,
    generation: Mutex<Generation>,
    resets: watch::Sender<u64>,
    seed: u64,
    open: AtomicU64,
    total: AtomicU64,
    up_bytes: AtomicU64,
    down_bytes: AtomicU64,
}

impl Link {
    /// A link with these settings, its jitter drawn from `seed`.
    pub fn new(settings: Settings, seed: u64) -> Link {
        let now = Instant::now();
        Link {
            shaping: Mutex::new(Shaping {
                settings,
                up: bucket_for(settings.up, settings.burst_bytes, None, now),
                down: bucket_for(settings.down, settings.burst_bytes, None, now),
            }),
            blackhole: watch::Sender::new(None),
            generation: Mutex::new(Generation::new()),
            resets: watch::Sender::new(0),
            seed,
            open: AtomicU64::new(0),
            total: AtomicU64::new(0),
            up_bytes: AtomicU64::new(0),
            down_bytes: AtomicU64::new(0),
        }
    }

    /// The current settings.
    pub fn settings(&self) -> Settings {
        lock(&self.shaping).settings
    }

    /// Switches to new settings for data from now on: new reads get the new
    /// delay, and the buckets fill at the new rates from now.
    pub fn set_settings(&self, settings: Settings) {
        let mut shaping = lock(&self.shaping);
        let now = Instant::now();
        let burst = settings.burst_bytes;
        shaping.up = bucket_for(settings.up, burst, shaping.up.take(), now);
        shaping.down = bucket_for(settings.down, burst, shaping.down.take(), now);
        shaping.settings = settings;
    }

    /// The jitter generator for one direction of one connection: repeatable
    /// for the same seed, connection number and direction.
    pub fn jitter_rng(&self, id: u64, direction: Direction) -> SplitMix64 {
        let lane = match direction {
            Direction::Up => 0,
            Direction::Down => 1,
        };
        SplitMix64::new(self.seed, id.wrapping_mul(2).wrapping_add(lane))
    }

    /// How much of `wanted` bytes may go in `direction`, and when. The
    /// bytes granted are taken from the direction's bucket at once.
    pub fn grant(&self, direction: Direction, wanted: usize) -> Grant {
        let mut shaping = lock(&self.shaping);
        let now = Instant::now();
        let bucket = match direction {
            Direction::Up => shaping.up.as_mut(),
            Direction::Down => shaping.down.as_mut(),
        };
        match bucket {
            None => Grant {
                len: wanted,
                at: now,
            },
            Some(bucket) => {
                let len = wanted.min(SEGMENT_BYTES);
                Grant {
                    len,
                    at: bucket.grant(len, now),
                }
            }
        }
    }

    /// Counts bytes written to the far side.
    pub fn delivered(&self, direction: Direction, bytes: usize) {
        let counter = match direction {
            Direction::Up => &self.up_bytes,
            Direction::Down => &self.down_bytes,
        };
        counter.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// Starts a blackhole of `length` from now, in place of any current
    /// one, and says when it ends.
    pub fn blackhole(&self, length: Duration) -> Instant {
        let until = Instant::now() + length;
        self.blackhole.send_replace(Some(until));
        until
    }

    /// A receiver of the blackhole's end, for [`clear_of_blackhole`].
    pub fn blackhole_watch(&self) -> watch::Receiver<Option<Instant>> {
        self.blackhole.subscribe()
    }

    /// Counts a newly accepted connection and makes it a member of the
    /// current generation.
    pub fn join(&self) -> Membership {
        self.open.fetch_add(1, Ordering::Relaxed);
        let id = self.total.fetch_add(1, Ordering::Relaxed);
        let generation = lock(&self.generation);
        Membership {
            id,
            reset: self.resets.subscribe(),
            _alive: generation.alive.clone(),
        }
    }

    /// Counts a connection as closed. Call once its sockets are gone.
    pub fn leave(&self, membership: Membership) {
        self.open.fetch_sub(1, Ordering::Relaxed);
        drop(membership);
    }

    /// Tells every current connection to close hard, and returns, with how
    /// many were open, once every one has left.
    pub async fn reset(&self) -> u64 {
        let open = self.open.load(Ordering::Relaxed);
        let old = {
            let mut generation = lock(&self.generation);
            let old = std::mem::replace(&mut *generation, Generation::new());
            // Under the lock, so a connection joins either the old
            // generation and sees this change or the new one and does not.
            self.resets.send_modify(|count| *count += 1);
            old
        };
        let Generation { alive, mut gone } = old;
        drop(alive);
        // Nothing is ever sent: this returns once every member is dropped.
        gone.recv().await;
        open
    }

    /// The counters now.
    pub fn stats(&self) -> Stats {
        Stats {
            open: self.open.load(Ordering::Relaxed),
            total: self.total.load(Ordering::Relaxed),
            up_bytes: self.up_bytes.load(Ordering::Relaxed),
            down_bytes: self.down_bytes.load(Ordering::Relaxed),
        }
    }
}

/// Returns when no blackhole is on, waiting out the current one (and any
/// that replaces it meanwhile).
pub async fn clear_of_blackhole(watch: &mut watch::Receiver<Option<Instant>>) {
    loop {
        let until = *watch.borrow_and_update();
        match until {
            Some(until) if until > Instant::now() => {
                tokio::select! {
                    () = sleep_until(until.into()) => {}
                    changed = watch.changed() => {
                        if changed.is_err() {
                            // The link is gone: nothing can change it now.
                            sleep_until(until.into()).await;
                        }
                    }
                }
            }
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{find, Overrides};

    fn link(name: &str) -> Link {
        let profile = find(name).expect("a profile");
        Link::new(Settings::resolve(profile, &Overrides::default()), 1)
    }

    #[test]
    fn limited_directions_grant_one_segment_and_unlimited_all() {
        let mobile = link("mobile");
        assert_eq!(mobile.grant(Direction::Down, 100_000).len, SEGMENT_BYTES);
        assert_eq!(mobile.grant(Direction::Up, 10).len, 10);
        mobile.set_settings(link("lan").settings());
        assert_eq!(mobile.grant(Direction::Down, 100_000).len, 100_000);
    }

    #[tokio::test]
    async fn reset_waits_for_every_member_of_its_generation() {
        let link = std::sync::Arc::new(link("lan"));
        let mut first = link.join();
        let second = link.join();
        assert_eq!(link.stats().open, 2);

        let resetting = tokio::spawn({
            let link = link.clone();
            async move { link.reset().await }
        });
        first.reset.changed().await.expect("the link is alive");
        link.leave(first);
        tokio::task::yield_now().await;
        assert!(!resetting.is_finished());

        // Joined after the reset: not waited on, not told.
        let later = link.join();
        link.leave(second);
        assert_eq!(resetting.await.expect("reset ran"), 2);
        assert!(!later.reset.has_changed().expect("the link is alive"));
        assert_eq!(
            link.stats(),
            Stats {
                open: 1,
                total: 3,
                up_bytes: 0,
                down_bytes: 0
            }
        );
    }

    #[tokio::test]
    async fn a_blackhole_holds_until_its_end() {
        let link = link("lan");
        let mut watch = link.blackhole_watch();
        clear_of_blackhole(&mut watch).await;
        let until = link.blackhole(Duration::from_millis(50));
        clear_of_blackhole(&mut watch).await;
        assert!(Instant::now() >= until);
    }
}

//! The accept loop: HTTP/1.1 connections with a header-read timeout (which
//! also bounds how long a connection may sit idle between requests), a cap
//! on open connections, and room kept for new requests. A connection is
//! busy from a request's arrival until its response's body is done, idle
//! otherwise (never used, or between keep-alive requests). When the cap is
//! reached, the longest idle connection of the address holding most is
//! closed to let the new one in; and one address (an IPv6 /64) holds at
//! most its share, past which its own longest idle connection gives way.
//! Trusted proxies carry many users: they have no per-address share. So
//! neither idle nor keep-alive sockets, from one address or many, can lock
//! anyone out. With TLS, each connection's handshake runs in its own task,
//! within the header timeout, so a slow client never holds up the accept
//! loop.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::connect_info::ConnectInfo;
use axum::extract::Request;
use axum::response::Response;
use axum::Router;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch};
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

use super::origin::Tls;
use crate::access::TrustedProxies;
use crate::session::Metrics;

/// How the listener treats connections.
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    /// Open connections at most.
    pub max: usize,
    /// Open connections from one address at most (an IPv6 address counts
    /// by its /64), except from trusted proxies.
    pub per_address: usize,
    /// Proxies that carry many users' connections: no per-address cap.
    pub proxies: TrustedProxies,
    /// Time for a request's headers, and the longest idle time between
    /// requests.
    pub header_timeout: Duration,
}

/// Where a connection comes from, as the per-address cap counts it: an
/// IPv4 address, or an IPv6 address's /64 (one host usually holds a whole
/// /64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Source(IpAddr);

impl Source {
    fn of(addr: IpAddr) -> Source {
        match addr {
            IpAddr::V4(_) => Source(addr),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Source(IpAddr::V4(v4)),
                None => {
                    let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                    Source(IpAddr::V6(Ipv6Addr::from(prefix)))
                }
            },
        }
    }
}

/// What a connection is doing, as its requests report it.
struct Activity {
    /// Requests under way, from their arrival until their response's body
    /// is sent (or dropped).
    busy: AtomicUsize,
    /// When it last went idle (accepted, or a response done), in
    /// milliseconds since the table's start.
    idle_since: AtomicU64,
    /// The table's start.
    epoch: Instant,
}

impl Activity {
    fn new(epoch: Instant) -> Activity {
        let activity = Activity {
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            epoch,
        };
        activity.touch();
        activity
    }

    fn touch(&self) {
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.idle_since.store(now, Ordering::Release);
    }

    /// Since when it is idle, or `None` while a request is under way.
    fn idle_since(&self) -> Option<u64> {
        (self.busy.load(Ordering::Acquire) == 0).then(|| self.idle_since.load(Ordering::Acquire))
    }
}

/// A request under way on a connection; dropped when its response's body
/// is done.
struct Busy(Arc<Activity>);

impl Busy {
    fn start(activity: &Arc<Activity>) -> Busy {
        activity.busy.fetch_add(1, Ordering::AcqRel);
        Busy(Arc::clone(activity))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that keeps its connection counted busy until it is done.
struct Tracked {
    body: Body,
    _busy: Busy,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// One open connection, as the cap sees it.
struct Open {
    source: Source,
    activity: Arc<Activity>,
    /// Dropping this closes the connection.
    _close: oneshot::Sender<()>,
}

/// Why a new connection was not let in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// Its address holds its share, every one of them busy.
    AddressBusy,
    /// The table is full, every connection busy.
    AllBusy,
}

/// The open connections, by accept number, and how many each source holds.
struct Table {
    next: u64,
    open: BTreeMap<u64, Open>,
    per_source: HashMap<Source, usize>,
    epoch: Instant,
}

impl Table {
    fn new() -> Table {
        Table {
            next: 0,
            open: BTreeMap::new(),
            per_source: HashMap::new(),
            epoch: Instant::now(),
        }
    }

    /// Makes room for a connection from `source` and enters it; returns
    /// its number, its activity, and how many idle connections it closed. An idle connection (never used, or between
    /// requests) gives way: the longest idle of the same source when that
    /// source holds `limits.per_address` (unless `exempt`), else, with
    /// `limits.max` open, the longest idle of the source holding most.
    fn admit(
        &mut self,
        source: Source,
        exempt: bool,
        max: usize,
        per_address: usize,
        close: oneshot::Sender<()>,
    ) -> Result<(u64, Arc<Activity>, usize), Refusal> {
        let mut evicted = 0;
        let held = self.per_source.get(&source).copied().unwrap_or(0);
        if !exempt && held >= per_address {
            let victim = self.longest_idle(|s| s == source);
            self.remove(victim.ok_or(Refusal::AddressBusy)?);
            evicted += 1;
        }
        if self.open.len() >= max {
            let heaviest = self
                .open
                .values()
                .filter(|c| c.activity.idle_since().is_some())
                .map(|c| c.source)
                .max_by_key(|s| self.per_source.get(s).copied().unwrap_or(0));
            let victim = heaviest.and_then(|h| self.longest_idle(|s| s == h));
            self.remove(victim.ok_or(Refusal::AllBusy)?);
            evicted += 1;
        }
        let number = self.next;
        self.next += 1;
        let activity = Arc::new(Activity::new(self.epoch));
        self.open.insert(
            number,
            Open {
                source,
                activity: Arc::clone(&activity),
                _close: close,
            },
        );
        *self.per_source.entry(source).or_default() += 1;
        Ok((number, activity, evicted))
    }

    /// The connection idle the longest among those whose source `matches`.
    fn longest_idle(&self, matches: impl Fn(Source) -> bool) -> Option<u64> {
        self.open
            .iter()
            .filter(|(_, c)| matches(c.source))
            .filter_map(|(n, c)| c.activity.idle_since().map(|since| (since, *n)))
            .min()
            .map(|(_, n)| n)
    }

    /// Forgets connection `number` (closing it, if it is still open).
    fn remove(&mut self, number: u64) {
        if let Some(gone) = self.open.remove(&number) {
            if let Some(count) = self.per_source.get_mut(&gone.source) {
                *count -= 1;
                if *count == 0 {
                    self.per_source.remove(&gone.source);
                }
            }
        }
    }
}

/// Unsent bytes the kernel holds for one connection (it doubles the figure
/// for its bookkeeping). Without a cap, loopback and fast links autotune the
/// buffer to megabytes: a viewer that stops reading would then be sent
/// hundreds of frames it never asked for, instead of skipping to the latest
/// screen, and each such viewer would pin megabytes of kernel memory.
const SEND_BUFFER: libc::c_int = 64 * 1024;

/// Caps the connection's send buffer at [`SEND_BUFFER`]; on failure the
/// kernel's default stays, which only costs memory.
fn cap_send_buffer(stream: &TcpStream) {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is the open socket `stream` owns, and the
    // option value is a c_int read through a pointer valid for its size.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_SNDBUF,
            (&SEND_BUFFER as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

fn lock(table: &Mutex<Table>) -> MutexGuard<'_, Table> {
    // Every update is one insert or remove: consistent after a panic.
    table.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Serves `router` on `listener` (over TLS with `tls`) until `shutdown`
/// completes, then lets open requests finish for up to `drain`. While
/// `paused` is true no connection is accepted: they wait in the backlog
/// (an upgrade hands the socket over meanwhile).
#[allow(clippy::too_many_arguments)]
pub async fn serve(
    listener: TcpListener,
    router: Router,
    tls: Option<TlsAcceptor>,
    limits: ConnectionLimits,
    metrics: Arc<Metrics>,
    shutdown: impl Future<Output = ()>,
    drain: Duration,
    mut paused: watch::Receiver<bool>,
) {
    let table = Arc::new(Mutex::new(Table::new()));
    let (stopping_tx, stopping) = watch::channel(false);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    tokio::pin!(shutdown);
    loop {
        let accepting = !*paused.borrow_and_update();
        let (stream, peer) = tokio::select! {
            // The sender lives as long as the server; gone, nothing pauses.
            Ok(()) = paused.changed() => continue,
            accepted = listener.accept(), if accepting => match accepted {
                Ok(pair) => pair,
                Err(error) => {
                    // Out of descriptors or similar: let some close, go on.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let (close_tx, close_rx) = oneshot::channel();
        let exempt = limits.proxies.trusts(peer.ip());
        let admitted = lock(&table).admit(
            Source::of(peer.ip()),
            exempt,
            limits.max,
            limits.per_address,
            close_tx,
        );
        let (number, activity) = match admitted {
            Ok((number, activity, evicted)) => {
                for _ in 0..evicted {
                    metrics.connection_evicted();
                }
                (number, activity)
            }
            Err(refusal) => {
                metrics.connection_refused();
                refuse(peer, refusal, &limits);
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        cap_send_buffer(&stream);
        let service = tracked(router.clone(), activity, peer, tls.is_some());
        let service = TowerToHyperService::new(service);
        let table = Arc::clone(&table);
        let stopping = stopping.clone();
        let builder = builder.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            let mut close = close_rx;
            match tls {
                None => run(&builder, stream, service, close, stopping).await,
                Some(acceptor) => {
                    let handshake =
                        tokio::time::timeout(limits.header_timeout, acceptor.accept(stream));
                    let done = tokio::select! {
                        done = handshake => Some(done),
                        _ = &mut close => None,
                    };
                    match done {
                        Some(Ok(Ok(stream))) => {
                            run(&builder, stream, service, close, stopping).await
                        }
                        Some(Ok(Err(error))) => {
                            tracing::debug!(%peer, %error, "TLS handshake failed")
                        }
                        Some(Err(_)) => tracing::debug!(%peer, "TLS handshake timed out"),
                        None => {}
                    }
                }
            }
            lock(&table).remove(number);
        });
    }
    drop(listener);
    stopping_tx.send_replace(true);
    let _ = tokio::time::timeout(drain, async {
        while !lock(&table).open.is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

/// Logs a refused connection.
fn refuse(peer: SocketAddr, refusal: Refusal, limits: &ConnectionLimits) {
    match refusal {
        Refusal::AddressBusy => tracing::warn!(
            %peer,
            per_address = limits.per_address,
            "connection refused: this address's connections are all busy"
        ),
        Refusal::AllBusy => tracing::warn!(
            %peer,
            max = limits.max,
            "connection refused: every connection is busy"
        ),
    }
}

/// The router for one connection from `peer`: each request counts the
/// connection busy until its response's body is done, and carries the
/// peer's address (and whether TLS carried it).
fn tracked(
    router: Router,
    activity: Arc<Activity>,
    peer: SocketAddr,
    secure: bool,
) -> impl tower::Service<
    Request<Incoming>,
    Response = Response,
    Error = std::convert::Infallible,
    Future = impl Future<Output = Result<Response, std::convert::Infallible>> + Send,
> + Clone
       + Send {
    tower::service_fn(move |mut request: Request<Incoming>| {
        let busy = Busy::start(&activity);
        let router = router.clone();
        async move {
            request.extensions_mut().insert(ConnectInfo(peer));
            if secure {
                request.extensions_mut().insert(Tls);
            }
            let response = router.oneshot(request).await?;
            Ok(response.map(|body| Body::new(Tracked { body, _busy: busy })))
        }
    })
}

/// Serves one connection until it ends, is evicted (`close`), or the
/// server stops (then it finishes its request first).
async fn run<S, I>(
    builder: &http1::Builder,
    io: I,
    service: S,
    close: oneshot::Receiver<()>,
    mut stopping: watch::Receiver<bool>,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: hyper::service::Service<Request<Incoming>, Response = axum::response::Response>
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let connection = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => {}
        // Evicted: dropping the connection closes the socket.
        _ = close => {}
        true = async { stopping.wait_for(|s| *s).await.is_ok() } => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(last: u8) -> Source {
        Source::of(IpAddr::from([10, 0, 0, last]))
    }

    /// Admits a connection from `from` into `table`; its close receiver
    /// tells whether it was closed since.
    fn admit(
        table: &mut Table,
        from: Source,
        exempt: bool,
        max: usize,
        per_address: usize,
    ) -> Result<(u64, Arc<Activity>, oneshot::Receiver<()>), Refusal> {
        let (tx, rx) = oneshot::channel();
        table
            .admit(from, exempt, max, per_address, tx)
            .map(|(n, a, _)| (n, a, rx))
    }

    fn closed(rx: &mut oneshot::Receiver<()>) -> bool {
        matches!(rx.try_recv(), Err(oneshot::error::TryRecvError::Closed))
    }

    /// Marks a connection idle since `at` ms.
    fn idle_at(activity: &Activity, at: u64) {
        activity.idle_since.store(at, Ordering::Release);
    }

    #[test]
    fn the_longest_idle_connection_gives_way_even_after_requests() {
        let mut table = Table::new();
        let (_, a, mut a_rx) = admit(&mut table, source(1), false, 3, 10).expect("a");
        let (_, b, mut b_rx) = admit(&mut table, source(2), false, 3, 10).expect("b");
        let (_, c, _c_rx) = admit(&mut table, source(3), false, 3, 10).expect("c");
        // a served a request and went idle after b did; c is busy.
        idle_at(&b, 5);
        idle_at(&a, 9);
        let _busy = Busy::start(&c);
        idle_at(&c, 0);
        let (_, _, mut d_rx) = admit(&mut table, source(4), false, 3, 10).expect("room");
        assert!(closed(&mut b_rx), "b was idle the longest");
        assert!(!closed(&mut a_rx));
        let _a_busy = Busy::start(&a);
        let (_, e, _e_rx) = admit(&mut table, source(5), false, 3, 10).expect("room");
        assert!(closed(&mut d_rx), "d, never used, was the one idle");
        let _e_busy = Busy::start(&e);
        let refused = admit(&mut table, source(6), false, 3, 10).err();
        assert_eq!(refused, Some(Refusal::AllBusy));
        assert!(!closed(&mut a_rx));
    }

    #[test]
    fn one_address_holds_its_share_and_no_more_unless_it_is_a_proxy() {
        let mut table = Table::new();
        let mut first = Vec::new();
        for _ in 0..2 {
            first.push(admit(&mut table, source(1), false, 100, 2).expect("in its share"));
        }
        idle_at(&first[0].1, 1);
        idle_at(&first[1].1, 2);
        admit(&mut table, source(1), false, 100, 2).expect("its oldest idle gives way");
        assert!(closed(&mut first[0].2));
        assert_eq!(table.per_source[&source(1)], 2);
        let busy: Vec<_> = table
            .open
            .values()
            .map(|c| Busy::start(&c.activity))
            .collect();
        assert_eq!(
            admit(&mut table, source(1), false, 100, 2).err(),
            Some(Refusal::AddressBusy)
        );
        admit(&mut table, source(2), false, 100, 2).expect("another address gets in");
        admit(&mut table, source(1), true, 100, 2).expect("a trusted proxy has no share");
        drop(busy);
    }

    #[test]
    fn a_full_table_takes_from_the_address_holding_most() {
        let mut table = Table::new();
        let (_, lone, mut lone_rx) = admit(&mut table, source(1), false, 4, 10).expect("lone");
        idle_at(&lone, 0);
        let mut crowd = Vec::new();
        for at in 1..4 {
            let (_, activity, rx) = admit(&mut table, source(2), false, 4, 10).expect("crowd");
            idle_at(&activity, at);
            crowd.push(rx);
        }
        admit(&mut table, source(3), false, 4, 10).expect("room");
        assert!(!closed(&mut lone_rx), "the lone connection stays");
        assert!(closed(&mut crowd[0]), "the crowd's longest idle goes");
    }

    #[test]
    fn an_ipv6_host_counts_by_its_64() {
        let a: IpAddr = "2001:db8:1:2::1".parse().expect("v6");
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().expect("v6");
        let c: IpAddr = "2001:db8:1:3::1".parse().expect("v6");
        assert_eq!(Source::of(a), Source::of(b));
        assert_ne!(Source::of(a), Source::of(c));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().expect("mapped");
        assert_eq!(Source::of(mapped), source(1));
    }
}

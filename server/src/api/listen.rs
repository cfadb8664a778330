//! The accept loop: HTTP/1.1 connections with a header-read timeout (which
//! also bounds how long a connection may sit idle between requests), a cap
//! on open connections, and room kept for new requests: when the cap is
//! reached, the oldest connection that has not sent a request yet is
//! closed to let the new one in, so idle sockets cannot lock anyone out.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::extract::connect_info::ConnectInfo;
use axum::extract::Request;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch};
use tower::ServiceExt;

/// How the listener treats connections.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// Open connections at most.
    pub max: usize,
    /// Time for a request's headers, and the longest idle time between
    /// requests.
    pub header_timeout: Duration,
}

/// One open connection, as the cap sees it.
struct Open {
    /// Set once a request has arrived on it.
    used: Arc<AtomicBool>,
    /// Dropping this closes the connection.
    _close: oneshot::Sender<()>,
}

/// The open connections, oldest first (by accept number).
#[derive(Default)]
struct Table {
    next: u64,
    open: BTreeMap<u64, Open>,
}

impl Table {
    /// Makes room for one more: closes the oldest unused connection when
    /// `max` are open. False when every open connection is in use.
    fn make_room(&mut self, max: usize) -> bool {
        if self.open.len() < max {
            return true;
        }
        let victim = self
            .open
            .iter()
            .find(|(_, c)| !c.used.load(Ordering::Acquire))
            .map(|(n, _)| *n);
        match victim {
            Some(n) => {
                self.open.remove(&n);
                true
            }
            None => false,
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

/// Serves `router` on `listener` until `shutdown` completes, then lets
/// open requests finish for up to `drain`.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
    drain: Duration,
) {
    let table = Arc::new(Mutex::new(Table::default()));
    let (stopping_tx, stopping) = watch::channel(false);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
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
        let used = Arc::new(AtomicBool::new(false));
        let number = {
            let mut table = lock(&table);
            if !table.make_room(limits.max) {
                tracing::warn!(%peer, max = limits.max, "connection refused: every connection is busy");
                continue;
            }
            let number = table.next;
            table.next += 1;
            table.open.insert(
                number,
                Open {
                    used: Arc::clone(&used),
                    _close: close_tx,
                },
            );
            number
        };
        let _ = stream.set_nodelay(true);
        cap_send_buffer(&stream);
        let service = router
            .clone()
            .map_request(move |mut request: Request<Incoming>| {
                used.store(true, Ordering::Release);
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            });
        let connection = builder
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service))
            .with_upgrades();
        let table = Arc::clone(&table);
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                // Evicted: dropping the connection closes the socket.
                _ = close_rx => {}
                true = async { stopping.wait_for(|s| *s).await.is_ok() } => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            lock(&table).open.remove(&number);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn open(used: bool) -> (Open, oneshot::Receiver<()>) {
        let (tx, rx) = oneshot::channel();
        (
            Open {
                used: Arc::new(AtomicBool::new(used)),
                _close: tx,
            },
            rx,
        )
    }

    #[test]
    fn the_oldest_unused_connection_makes_room() {
        let mut table = Table::default();
        let (a, mut a_closed) = open(true);
        let (b, mut b_closed) = open(false);
        let (c, _) = open(false);
        table.open.insert(0, a);
        table.open.insert(1, b);
        table.open.insert(2, c);
        assert!(table.make_room(4));
        assert!(table.make_room(3));
        assert!(!table.open.contains_key(&1));
        assert!(
            matches!(
                b_closed.try_recv(),
                Err(oneshot::error::TryRecvError::Closed)
            ),
            "b's sender is dropped: it closes"
        );
        assert!(matches!(
            a_closed.try_recv(),
            Err(oneshot::error::TryRecvError::Empty)
        ));
        table.open.remove(&2);
        assert!(!table.make_room(1), "every connection is in use");
    }
}

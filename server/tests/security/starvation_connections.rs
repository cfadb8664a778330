//! The connection table: keep-alive sockets that keep sending requests,
//! all from one address, cannot lock anyone out, and one address never
//! holds most of the table.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::common::{test_config, Server};

/// The attacker's address: loopback, but not the victim's 127.0.0.1.
const ATTACKER: [u8; 4] = [127, 0, 0, 2];

/// A keep-alive connection from [`ATTACKER`].
async fn attacker_connection(server: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((ATTACKER, 0)))?;
    socket.connect(server).await
}

/// Sends `GET /healthz` on a keep-alive connection and reads the whole
/// answer; an error once the server has closed the connection.
async fn healthz(stream: &mut TcpStream) -> std::io::Result<()> {
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await?;
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        answer.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&answer);
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(str::to_owned)
                })
                .and_then(|l| l.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if answer.len() >= end + 4 + length {
                return Ok(());
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_alive_sockets_from_one_address_leave_the_admin_served() {
    let mut config = test_config();
    config.limits.max_connections = 64;
    config.limits.max_connections_per_address = 16;
    let server = Server::start(config);
    let addr = server.addr;
    // The attack, scaled down: 80 keep-alive connections, each asking for
    // /healthz every 200 ms, reconnecting whenever it is closed.
    let stop = Arc::new(AtomicBool::new(false));
    let answered = Arc::new(AtomicUsize::new(0));
    let progress = Arc::new(tokio::sync::Notify::new());
    let mut attackers = Vec::new();
    for _ in 0..80 {
        let (stop, answered) = (Arc::clone(&stop), Arc::clone(&answered));
        let progress = Arc::clone(&progress);
        attackers.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let Ok(mut stream) = attacker_connection(addr).await else {
                    continue;
                };
                while !stop.load(Ordering::Relaxed) && healthz(&mut stream).await.is_ok() {
                    answered.fetch_add(1, Ordering::Relaxed);
                    progress.notify_one();
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }));
    }
    // The attack is under way once its connections have been answered.
    while answered.load(Ordering::Relaxed) < 80 {
        progress.notified().await;
    }
    // The victim: fresh connections with the admin token, all answered.
    let victim = tokio::task::spawn_blocking(move || {
        (0..20)
            .map(|_| server.call("GET", "/api/sessions", None).status)
            .collect::<Vec<u16>>()
    });
    let statuses = victim.await.expect("the victim's requests ran");
    stop.store(true, Ordering::Relaxed);
    for attacker in attackers {
        let _ = attacker.await;
    }
    assert_eq!(statuses, vec![200; 20]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_keeps_only_its_share_of_the_table() {
    let mut config = test_config();
    config.limits.max_connections = 64;
    config.limits.max_connections_per_address = 16;
    let server = Server::start(config);
    // 40 keep-alive connections, opened and used one after another.
    let mut streams = Vec::new();
    for _ in 0..40 {
        let mut stream = attacker_connection(server.addr).await.expect("connect");
        healthz(&mut stream).await.expect("answered when new");
        streams.push(stream);
    }
    // Each one past the share closed the address's longest idle one: only
    // the last 16 still answer.
    let mut open = Vec::new();
    for (i, stream) in streams.iter_mut().enumerate() {
        if healthz(stream).await.is_ok() {
            open.push(i);
        }
    }
    assert_eq!(open, (24..40).collect::<Vec<_>>());
    // Another address is not held back by it, and /metrics counts the
    // 24 connections closed to make room.
    let metrics = tokio::task::spawn_blocking(move || server.call("GET", "/metrics", None));
    let metrics = metrics.await.expect("ran");
    assert_eq!(metrics.status, 200);
    assert!(
        metrics
            .body
            .lines()
            .any(|l| l == "panecast_connections_evicted_total 24"),
        "{}",
        metrics.body
    );
}

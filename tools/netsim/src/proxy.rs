//! Accepting clients and carrying each connection: connect upstream, pump
//! both directions, and close as the ends do, or hard (RST) on `reset` or
//! when either side fails.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use socket2::SockRef;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::sleep;

use crate::console::Console;
use crate::delay::DelayLine;
use crate::link::{clear_of_blackhole, Direction, Link, Membership};
use crate::pump::pump;

/// Accepts clients for ever, each carried by a task of its own.
pub async fn serve(listener: TcpListener, upstream: Arc<str>, link: Arc<Link>, console: Console) {
    loop {
        match listener.accept().await {
            Ok((client, _)) => {
                let membership = link.join();
                tokio::spawn(carry(
                    client,
                    upstream.clone(),
                    link.clone(),
                    membership,
                    console.clone(),
                ));
            }
            Err(error) => {
                console.err(format!("netsim: accept: {error}"));
                // Out of file descriptors, say: let some close first.
                sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// One connection, from accepted to closed.
async fn carry(
    mut client: TcpStream,
    upstream: Arc<str>,
    link: Arc<Link>,
    mut membership: Membership,
    console: Console,
) {
    let id = membership.id;
    let accepted = std::time::Instant::now();
    let connected = tokio::select! {
        Ok(()) = membership.reset.changed() => None,
        result = connect(&link, &upstream) => match result {
            Ok(server) => Some(server),
            Err(error) => {
                console.err(format!("netsim: connection {id}: upstream {upstream}: {error}"));
                None
            }
        },
    };
    let Some(mut server) = connected else {
        close_hard(&client, &console);
        drop(client);
        link.leave(membership);
        return;
    };
    for stream in [&client, &server] {
        // The link sets the pace: no Nagle delays of the proxy's own.
        if let Err(error) = stream.set_nodelay(true) {
            console.err(format!("netsim: connection {id}: TCP_NODELAY: {error}"));
        }
    }

    let clean = {
        let (client_read, client_write) = client.split();
        let (server_read, server_write) = server.split();
        let handshake = DelayLine::after_handshake(
            link.jitter_rng(id, Direction::Up),
            accepted,
            link.settings().rtt(),
        );
        let up = pump(&link, Direction::Up, handshake, client_read, server_write);
        let down = pump(
            &link,
            Direction::Down,
            DelayLine::new(link.jitter_rng(id, Direction::Down)),
            server_read,
            client_write,
        );
        tokio::select! {
            Ok(()) = membership.reset.changed() => false,
            result = async { tokio::try_join!(up, down) } => result.is_ok(),
        }
    };
    if !clean {
        close_hard(&client, &console);
        close_hard(&server, &console);
    }
    drop((client, server));
    link.leave(membership);
}

/// Connects to upstream once no blackhole is on: in a blackhole not even
/// the handshake gets through, so upstream sees the connection when it ends.
async fn connect(link: &Link, upstream: &str) -> io::Result<TcpStream> {
    clear_of_blackhole(&mut link.blackhole_watch()).await;
    TcpStream::connect(upstream).await
}

/// Makes closing `stream` send RST rather than FIN: SO_LINGER on, for zero
/// seconds.
fn close_hard(stream: &TcpStream, console: &Console) {
    if let Err(error) = SockRef::from(stream).set_linger(Some(Duration::ZERO)) {
        console.err(format!("netsim: SO_LINGER: {error}"));
    }
}

//! Connection exhaustion: idle sockets cannot lock anyone out.

use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::common::{test_config, Server};

#[test]
fn two_thousand_idle_connections_do_not_block_healthz() {
    let mut config = test_config();
    config.limits.max_connections = 512;
    let server = Server::start(config);
    let idle: Vec<TcpStream> = (0..2000)
        .map(|_| TcpStream::connect(server.addr).expect("connect"))
        .collect();
    let mut times = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let r = server.raw("GET", "/healthz", &[], None);
        times.push(start.elapsed());
        assert_eq!(r.status, 200);
    }
    times.sort();
    assert!(
        times[2] < Duration::from_millis(100),
        "median /healthz with 2000 idle connections: {:?}",
        times
    );
    drop(idle);
}

#[test]
fn a_silent_connection_is_closed_after_the_header_timeout() {
    use std::io::Read;
    let mut config = test_config();
    config.limits.header_timeout_secs = 1;
    let server = Server::start(config);
    let mut silent = TcpStream::connect(server.addr).expect("connect");
    silent
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let start = Instant::now();
    let mut buf = [0u8; 64];
    // The server closes it: the read ends (0 bytes, or a 408 then 0).
    while silent
        .read(&mut buf)
        .expect("closed by the server, not timed out")
        > 0
    {}
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
}

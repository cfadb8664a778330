//! netsim end to end: the built binary between real loopback sockets,
//! driven through its stdin and stdout.
//!
//! Timing is only ever checked from below (the link may never be faster
//! than it was told to be), since a loaded machine only makes things slower.

mod harness;

use std::io::ErrorKind;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::process::Command;
use tokio::time::{sleep, timeout};

use harness::{accept, echo_server, upstream, within, Netsim, Noise};

/// Where two byte strings first differ, if they do.
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or((a.len() != b.len()).then(|| a.len().min(b.len())))
}

/// Writes `send` and, at the same time, reads `expect` bytes; returns when
/// the first of them arrived (or the writing ended, when none are expected)
/// and what arrived.
async fn send_and_receive(
    stream: &mut TcpStream,
    send: &[u8],
    expect: usize,
) -> (Instant, Vec<u8>) {
    let (mut reader, mut writer) = stream.split();
    let writing = async { writer.write_all(send).await.expect("write") };
    let reading = async {
        let mut received = vec![0; expect];
        if expect == 0 {
            return (Instant::now(), received);
        }
        reader
            .read_exact(&mut received[..1])
            .await
            .expect("first byte");
        let first = Instant::now();
        reader
            .read_exact(&mut received[1..])
            .await
            .expect("the rest");
        (first, received)
    };
    within("sending and receiving", async {
        tokio::join!(writing, reading).1
    })
    .await
}

/// One byte to an echo server and back.
async fn round_trip(stream: &mut TcpStream) -> Duration {
    let start = Instant::now();
    stream.write_all(b"x").await.expect("write");
    let mut byte = [0];
    within("the echo", stream.read_exact(&mut byte))
        .await
        .expect("echoed");
    start.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bytes_arrive_intact_and_in_order_both_ways() {
    const LEN: usize = 2_000_000;
    let echo = echo_server().await;
    // Each read is delayed by 0 to 20 ms, drawn afresh: without the delay
    // line's ordering, later chunks would overtake earlier ones.
    let mut netsim = Netsim::start(
        echo,
        &["--rtt-ms", "10", "--jitter-ms", "20", "--seed", "7"],
    )
    .await;
    let mut clients = Vec::new();
    for seed in 1..=3u64 {
        let stream = netsim.connect().await;
        clients.push(tokio::spawn(async move {
            let mut noise = Noise::new(seed);
            let data = noise.bytes(LEN);
            let (mut reader, mut writer) = stream.into_split();
            let sent = data.clone();
            let writing = tokio::spawn(async move {
                let mut offset = 0;
                while offset < sent.len() {
                    let end = (offset + noise.between(1, 100_000)).min(sent.len());
                    writer.write_all(&sent[offset..end]).await.expect("write");
                    offset = end;
                }
                writer.shutdown().await.expect("half-close");
            });
            let mut echoed = Vec::with_capacity(LEN);
            within("the echo", reader.read_to_end(&mut echoed))
                .await
                .expect("read to the end");
            writing.await.expect("the writer");
            assert_eq!(
                first_difference(&echoed, &data),
                None,
                "connection {seed}: {} of {LEN} bytes back",
                echoed.len()
            );
        }));
    }
    for client in clients {
        client.await.expect("a client");
    }
    let total = 3 * LEN as u64;
    let stats = within("the connections closing", async {
        loop {
            let stats = netsim.stats().await;
            if stats[0] == 0 {
                return stats;
            }
            sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert_eq!(stats, [0, 3, total, total]);
}

#[tokio::test]
async fn a_round_trip_takes_at_least_the_configured_rtt() {
    let echo = echo_server().await;
    let lan = Netsim::start(echo, &["--profile", "lan"]).await;
    let mut far = Netsim::start(echo, &["--rtt-ms", "200"]).await;
    assert!(
        far.banner
            .contains("(profile lan: rtt 200 ms, jitter 0 ms,"),
        "{}",
        far.banner
    );
    let mut near_stream = lan.connect().await;
    let mut far_stream = far.connect().await;
    for stream in [&near_stream, &far_stream] {
        stream.set_nodelay(true).expect("TCP_NODELAY");
    }
    for _ in 0..3 {
        let near = round_trip(&mut near_stream).await;
        assert!(near >= Duration::from_millis(1), "lan round trip {near:?}");
        let far_time = round_trip(&mut far_stream).await;
        assert!(
            far_time >= Duration::from_millis(200),
            "200 ms link round trip {far_time:?}"
        );
    }
    // The new profile applies to the open connection from now on: 600 ms,
    // less at most its 50 ms of jitter.
    let answer = far.command("profile satellite").await;
    assert!(
        answer.starts_with("ok profile satellite: rtt 600 ms, jitter 50 ms,"),
        "{answer}"
    );
    for _ in 0..2 {
        let time = round_trip(&mut far_stream).await;
        assert!(
            time >= Duration::from_millis(550),
            "satellite round trip {time:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limits_each_direction_of_the_whole_link() {
    const EACH: usize = 100_000;
    const BURST: usize = 10_000;
    const BYTES_PER_SEC: f64 = 800_000.0 / 8.0;
    let (listener, address) = upstream().await;
    let netsim = Netsim::start(
        address,
        &[
            "--up-kbit",
            "800",
            "--down-kbit",
            "800",
            "--burst-bytes",
            "10000",
        ],
    )
    .await;
    assert!(
        netsim
            .banner
            .contains("down 800 kbit/s, up 800 kbit/s, burst 10000 bytes)"),
        "{}",
        netsim.banner
    );

    // Two connections share the link: each sends 100 KB each way, so each
    // direction carries 200 KB through one bucket.
    let start = Instant::now();
    let mut downs = Vec::new();
    let mut ups = Vec::new();
    for pair in 0..2u64 {
        let mut client = netsim.connect().await;
        let mut server = accept(&listener).await;
        let up_data = Noise::new(10 + pair).bytes(EACH);
        let down_data = Noise::new(20 + pair).bytes(EACH);
        let (up_sent, down_sent) = (up_data.clone(), down_data.clone());
        downs.push(tokio::spawn(async move {
            let (at_first, received) = send_and_receive(&mut client, &up_sent, EACH).await;
            assert_eq!(first_difference(&received, &down_data), None);
            (at_first, Instant::now())
        }));
        ups.push(tokio::spawn(async move {
            let (at_first, received) = send_and_receive(&mut server, &down_sent, EACH).await;
            assert_eq!(first_difference(&received, &up_data), None);
            (at_first, Instant::now())
        }));
    }
    // Whatever the bucket held at the start, at most BURST bytes go at
    // once; the rest at the rate.
    let least = Duration::from_secs_f64((2 * EACH - BURST) as f64 / BYTES_PER_SEC);
    for (name, tasks) in [("down", downs), ("up", ups)] {
        let mut last = start;
        for task in tasks {
            last = last.max(task.await.expect("a transfer").1);
        }
        assert!(
            last - start >= least,
            "{name}: 200 KB in {:?}, under {least:?}",
            last - start
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blackhole_holds_everything_until_it_ends() {
    let (listener, address) = upstream().await;
    let mut netsim = Netsim::start(address, &[]).await;
    let mut client = netsim.connect().await;
    let mut server = accept(&listener).await;
    let (_, got) = send_and_receive(&mut client, b"before", 0).await;
    assert!(got.is_empty());
    let (_, got) = send_and_receive(&mut server, b"", 6).await;
    assert_eq!(got, b"before");

    let asked = Instant::now();
    let answer = netsim.command("blackhole 1.0").await;
    assert!(answer.starts_with("ok blackhole until "), "{answer}");
    let ends = asked + Duration::from_secs(1);

    let mut noise = Noise::new(5);
    let up = noise.bytes(300_000);
    let down = noise.bytes(300_000);
    let mut late_client = netsim.connect().await;
    let (client_side, server_side, late) = tokio::join!(
        send_and_receive(&mut client, &up, down.len()),
        send_and_receive(&mut server, &down, up.len()),
        async {
            late_client.write_all(b"late").await.expect("write");
            let mut late_server = accept(&listener).await;
            let accepted = Instant::now();
            let mut got = [0; 4];
            within("the late bytes", late_server.read_exact(&mut got))
                .await
                .expect("read");
            (accepted, got)
        },
    );
    assert!(
        client_side.0 >= ends,
        "down arrived {:?} early",
        ends - client_side.0
    );
    assert!(
        server_side.0 >= ends,
        "up arrived {:?} early",
        ends - server_side.0
    );
    assert!(
        late.0 >= ends,
        "upstream saw the late connection {:?} early",
        ends - late.0
    );
    assert_eq!(first_difference(&client_side.1, &down), None);
    assert_eq!(first_difference(&server_side.1, &up), None);
    assert_eq!(&late.1, b"late");
    assert_eq!(netsim.line().await, "blackhole over");
}

#[tokio::test]
async fn reset_closes_every_connection_hard_and_new_ones_work() {
    let (listener, address) = upstream().await;
    let mut netsim = Netsim::start(address, &[]).await;
    let mut pairs = Vec::new();
    for _ in 0..2 {
        let mut client = netsim.connect().await;
        let mut server = accept(&listener).await;
        send_and_receive(&mut client, b"ping", 0).await;
        assert_eq!(send_and_receive(&mut server, b"pong", 4).await.1, b"ping");
        assert_eq!(send_and_receive(&mut client, b"", 4).await.1, b"pong");
        pairs.push((client, server));
    }

    assert_eq!(netsim.command("reset").await, "ok reset 2 connections");
    assert_eq!(netsim.stats().await[..2], [0, 2]);

    let mut buffer = [0; 16];
    for (client, server) in &mut pairs {
        let error = within("the client reading", client.read(&mut buffer))
            .await
            .expect_err("the client's read fails");
        assert_eq!(error.kind(), ErrorKind::ConnectionReset, "client: {error}");
        let error = within("upstream reading", server.read(&mut buffer))
            .await
            .expect_err("upstream's read fails");
        assert_eq!(
            error.kind(),
            ErrorKind::ConnectionReset,
            "upstream: {error}"
        );
    }
    // A write learns of the reset too: the first write to fail says so
    // (one may still succeed if it beat the RST into the kernel).
    let mut client = netsim.connect().await;
    let mut server = accept(&listener).await;
    send_and_receive(&mut client, b"ping", 0).await;
    assert_eq!(send_and_receive(&mut server, b"", 4).await.1, b"ping");
    assert_eq!(netsim.command("reset").await, "ok reset 1 connection");
    let error = within("the client writing", async {
        loop {
            match client.write(b"x").await {
                Ok(_) => sleep(Duration::from_millis(10)).await,
                Err(error) => return error,
            }
        }
    })
    .await;
    assert_eq!(error.kind(), ErrorKind::ConnectionReset, "client: {error}");

    // New connections are carried as before.
    let mut client = netsim.connect().await;
    let mut server = accept(&listener).await;
    send_and_receive(&mut client, b"again", 0).await;
    assert_eq!(send_and_receive(&mut server, b"yes", 5).await.1, b"again");
    assert_eq!(send_and_receive(&mut client, b"", 3).await.1, b"yes");
    assert_eq!(netsim.stats().await[..2], [1, 4]);
}

#[tokio::test]
async fn mistakes_are_answered_and_the_proxy_keeps_going() {
    let echo = echo_server().await;
    let mut netsim = Netsim::start(echo, &["--profile", "mobile"]).await;
    assert_eq!(
        netsim.banner,
        format!(
            "netsim listening on {} (profile mobile: rtt 150 ms, jitter 30 ms, \
             down 1600 kbit/s, up 750 kbit/s, burst 20000 bytes)",
            netsim.address
        )
    );
    for bad in [
        "jump",
        "blackhole",
        "blackhole soon",
        "blackhole -1",
        "profile dialup",
        "reset everything",
        "stats please",
    ] {
        let answer = netsim.command(bad).await;
        assert!(answer.starts_with("error: "), "{bad:?} answered {answer:?}");
    }
    assert_eq!(netsim.stats().await, [0, 0, 0, 0]);

    // Without stdin it carries on.
    netsim.close_stdin();
    let mut stream = netsim.connect().await;
    let (_, echoed) = send_and_receive(&mut stream, b"hello", 5).await;
    assert_eq!(echoed, b"hello");
    assert!(netsim.child().try_wait().expect("status").is_none());

    // SIGTERM ends it, successfully. (The shell's own `kill`: there may be
    // no kill binary.)
    let pid = netsim.child().id().expect("still running");
    let kill = Command::new("sh")
        .args(["-c", &format!("kill -TERM {pid}")])
        .status()
        .await
        .expect("kill runs");
    assert!(kill.success());
    let status = within("netsim exiting", netsim.child().wait())
        .await
        .expect("wait");
    assert!(status.success(), "{status}");
}

/// Byte `at` of an endless stream in which any lost, repeated or moved
/// byte shows.
fn pattern(start: usize, len: usize) -> Vec<u8> {
    (start..start + len)
        .map(|at| ((at as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_hold_stops_reading_and_drops_nothing() {
    // Far more than netsim's 1 MiB and the kernel's socket buffers on both
    // of its sides can hold.
    const UNBOUNDED: usize = 256 << 20;
    let (listener, address) = upstream().await;
    let netsim = Netsim::start(address, &[]).await;
    let mut client = netsim.connect().await;
    let mut server = accept(&listener).await;

    // Upstream reads nothing: netsim's hold fills, it stops reading, and
    // the client's writes stall.
    let mut written = 0;
    loop {
        assert!(
            written < UNBOUNDED,
            "{written} bytes written with nobody reading"
        );
        let piece = pattern(written, 64 * 1024);
        match timeout(Duration::from_secs(1), client.write(&piece)).await {
            Ok(result) => written += result.expect("write"),
            Err(_) => break,
        }
    }
    // Then every byte written arrives, in order.
    let mut received = vec![0; written];
    within("the held bytes", server.read_exact(&mut received))
        .await
        .expect("read");
    assert_eq!(first_difference(&received, &pattern(0, written)), None);
}

//! ALiS: readers of a flooding session's ALiS stream cost one render per
//! screen for all of them, off the async workers, so the server stays
//! responsive.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{session_id, test_config, ws, Server, TOKEN};

/// ALiS readers of the flooding session.
const READERS: usize = 10;
/// Longest 99th-percentile `/healthz` while they read. A render per
/// connection on the async workers shows up as a second or more (p99
/// 1.4 s with 20 readers); this leaves room for a loaded 2-core machine
/// running a debug build and other tests at once.
const P99_BOUND: Duration = Duration::from_millis(300);

#[test]
fn alis_readers_of_a_flooding_big_screen_leave_healthz_fast() {
    let server = Server::start(test_config());
    // A wide screen, every cell rewritten in a new colour as fast as can be.
    let flood = "yes \"$(i=0; while [ $i -lt 60 ]; do printf '\\033[3%dmAB\\033[4%dmCD' \
                 $((i % 8)) $(((i + 3) % 8)); i=$((i + 1)); done)\"";
    let session = server.create(&["sh", "-c", flood], json!({ "cols": 400, "rows": 150 }));
    let id = session_id(&session);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let auth = format!("Bearer {TOKEN}");
    let path = format!("/api/sessions/{id}/alis");
    // Readers that read everything, as fast as they can.
    let readers: Vec<_> = (0..READERS)
        .map(|_| {
            let (addr, path, auth) = (server.addr, path.clone(), auth.clone());
            runtime.spawn(async move {
                let mut client = ws::connect(addr, &path, &[("Authorization", &auth)], None)
                    .await
                    .expect("an ALiS stream");
                let far = tokio::time::Instant::now() + Duration::from_secs(3600);
                while client.next_raw(far).await.is_some() {}
            })
        })
        .collect();
    let mut times: Vec<Duration> = (0..100)
        .map(|_| {
            let started = Instant::now();
            let r = server.raw("GET", "/healthz", &[], None);
            assert_eq!(r.status, 200);
            let took = started.elapsed();
            std::thread::sleep(Duration::from_millis(20));
            took
        })
        .collect();
    times.sort();
    let p99 = times[98];
    for reader in readers {
        reader.abort();
    }
    assert!(
        p99 < P99_BOUND,
        "/healthz p99 {p99:?} with {READERS} ALiS readers"
    );
}

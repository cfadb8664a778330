//! What a rolling update sees when the server is told to stop: every viewer
//! gets close code 1001 ("going away", so clients reconnect elsewhere) and
//! the health check fails at once.

mod common;

use std::time::Duration;

use common::{session_id, test_config, Server, TOKEN};
use panecast_proto::close;

#[tokio::test]
async fn viewers_get_going_away_and_health_fails_at_once() {
    let server = Server::start(test_config());
    let addr = server.addr;
    let session = server.create(&["sh", "-c", "echo ready; exec cat"], serde_json::json!({}));
    let id = session_id(&session);
    let mut viewer = common::ws::open(addr, TOKEN, &id, "view").await;
    viewer
        .until("the first frame", Duration::from_secs(10), |m| m.frames > 0)
        .await;
    assert_eq!(server.raw("GET", "/healthz", &[], None).status, 200);

    let stopping = tokio::task::spawn_blocking(move || server.stop());
    let closed = viewer.close_code(Duration::from_secs(10)).await;
    assert_eq!(closed.code, Some(close::GOING_AWAY), "{closed:?}");
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "nothing answers the health check once shutting down"
    );
    stopping.await.expect("the server stopped");
}

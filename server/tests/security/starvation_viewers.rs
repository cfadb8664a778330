//! Viewer slots: one credential cannot take every stream slot of a
//! session, nor lock the controller and the admin out.

use std::net::SocketAddr;
use std::time::Duration;

use panecast_proto::close;
use tokio::time::Instant;

use crate::common::ws::{self, Client, Kind};
use crate::common::{session_id, Server, TOKEN};
use crate::support::{keyed_config, mint, CONTROL_KEY, VIEW_KEY};

const LIMIT: Duration = Duration::from_secs(10);

/// What became of a stream just opened: `Ok` with the client when the
/// server took it (its first message arrived), or the close code and
/// reason it was refused with.
async fn outcome(
    addr: SocketAddr,
    path: &str,
    token: &str,
) -> Result<Client, (Option<u16>, String)> {
    let auth = format!("Bearer {token}");
    let mut client = ws::connect(addr, path, &[("Authorization", &auth)], None)
        .await
        .unwrap_or_else(|r| panic!("the upgrade was refused: {} {}", r.status, r.body));
    let deadline = Instant::now() + LIMIT;
    let alis = path.ends_with("/alis");
    // An ALiS stream starts with its magic; a panecast stream with Hello.
    // A refused one gets an Error (panecast) and the close.
    let first = if alis {
        client.next_raw(deadline).await.map(|_| Kind::Hello)
    } else {
        client.next(deadline).await
    };
    match first {
        Some(Kind::Hello) => Ok(client),
        Some(_) => {
            let closed = client.close_code(LIMIT).await;
            Err((closed.code, closed.reason))
        }
        None => {
            let closed = client.closed.clone().expect("closed, not timed out");
            Err((closed.code, closed.reason))
        }
    }
}

fn alis_path(id: &str) -> String {
    format!("/api/sessions/{id}/alis")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_view_link_opening_alis_sockets_that_never_read_leaves_room_for_control_and_admin() {
    let mut config = keyed_config();
    config.limits.max_viewers = 12;
    config.limits.viewer_reserve = 4;
    config.limits.max_viewers_per_credential = 5;
    let server = Server::start(config);
    let id = session_id(&server.create(&["cat"], serde_json::json!({})));
    let link = mint(&server, &id, "view")["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    // The attack: one view link opens sockets and never reads them.
    let mut held = Vec::new();
    for _ in 0..5 {
        held.push(
            outcome(server.addr, &alis_path(&id), &link)
                .await
                .expect("in its share"),
        );
    }
    let refused = outcome(server.addr, &alis_path(&id), &link).await.err();
    let (code, reason) = refused.expect("the sixth stream of one link is refused");
    assert_eq!(code, Some(close::TOO_MANY_VIEWERS));
    assert!(reason.contains("this credential"), "{reason}");
    // Other view credentials fill the slots view streams may take (12 - 4).
    let second = mint(&server, &id, "view")["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    for _ in 0..3 {
        held.push(
            outcome(server.addr, &alis_path(&id), &second)
                .await
                .expect("room"),
        );
    }
    let refused = outcome(server.addr, &ws::ws_path(&id, Some("view")), VIEW_KEY).await;
    let (code, reason) = refused.err().expect("view streams leave the reserve free");
    assert_eq!(code, Some(close::TOO_MANY_VIEWERS));
    assert_eq!(reason, "too many viewers on this session");
    // The reserve: a control stream and the admin's control stream get in.
    let control = ws::ws_path(&id, Some("control"));
    held.push(
        outcome(server.addr, &control, CONTROL_KEY)
            .await
            .expect("a controller gets in"),
    );
    held.push(
        outcome(server.addr, &control, TOKEN)
            .await
            .expect("the admin gets in"),
    );
    drop(held);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_credential_holds_at_most_its_share_of_streams_over_all_sessions() {
    let mut config = keyed_config();
    config.limits.max_streams_per_credential = 3;
    let server = Server::start(config);
    let a = session_id(&server.create(&["cat"], serde_json::json!({})));
    let b = session_id(&server.create(&["cat"], serde_json::json!({})));
    let (view_a, view_b) = (ws::ws_path(&a, Some("view")), ws::ws_path(&b, Some("view")));
    let mut held = Vec::new();
    for path in [&view_a, &view_a, &view_b] {
        held.push(
            outcome(server.addr, path, VIEW_KEY)
                .await
                .expect("in its share"),
        );
    }
    let (code, reason) = outcome(server.addr, &view_b, VIEW_KEY)
        .await
        .err()
        .expect("the fourth stream of the key is refused");
    assert_eq!(code, Some(close::TOO_MANY_VIEWERS));
    assert_eq!(reason, "this credential has too many streams open");
    held.push(
        outcome(server.addr, &view_b, CONTROL_KEY)
            .await
            .expect("another key gets in"),
    );
    // A stream closed gives its place back.
    held.remove(0).close().await;
    let mut again = None;
    for _ in 0..50 {
        if let Ok(client) = outcome(server.addr, &view_b, VIEW_KEY).await {
            again = Some(client);
            break;
        }
    }
    assert!(again.is_some(), "the closed stream's place came back");
}

//! `GET /api/sessions/{id}/alis`: a session as an ALiS v1 live stream, so a
//! page that embeds asciinema-player (its `websocket` driver) shows it live.
//!
//! The stream is built from the same published screens as the panecast
//! stream: a reset with the screen drawn as ANSI, then, for every screen a
//! viewer would see, output that redraws it (at most one per
//! [`MIN_INTERVAL`], so the bytes are bounded by the screen's size, never
//! by how much the program prints), a resize when the size changes, and
//! the exit and end of transmission once the program has ended.

use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::Extension;
use tokio::time::{sleep_until, timeout, Instant};

use super::error::{ApiError, ErrorBody};
use super::guard::Caller;
use super::AppState;
use crate::record::{AlisEncoder, ALIS_EOT, ALIS_MAGIC, ALIS_SUBPROTOCOL};
use crate::render::{self, Format};
use crate::session::{SessionHandle, Status, ViewerSlot};
use crate::term::Snapshot;

/// Shortest time between two redraws sent.
const MIN_INTERVAL: Duration = Duration::from_millis(33);
/// A socket that takes no message for this long is dropped.
const SEND_TIMEOUT: Duration = Duration::from_secs(45);

/// Checks the origin (for a cookie-borne credential), then upgrades with
/// the `v1.alis` subprotocol. The guard has authenticated the caller and
/// found the session within its scope.
#[utoipa::path(
    get,
    path = "/api/sessions/{id}/alis",
    params(("id" = String, Path, description = "The session's id or name")),
    responses(
        (status = 101, description = "Switching to the ALiS v1 stream (subprotocol v1.alis)"),
        (status = 403, description = "origin_forbidden", body = ErrorBody),
        (status = 426, description = "upgrade_required: not a WebSocket upgrade request", body = ErrorBody),
    )
)]
pub async fn upgrade(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Extension(session): Extension<SessionHandle>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let ws = ws.map_err(super::ws::not_an_upgrade)?;
    caller.check_stream_origin(&headers, &state.config.allowed_origins)?;
    let sessions = std::sync::Arc::clone(&state.sessions);
    Ok(ws
        .protocols([ALIS_SUBPROTOCOL])
        .on_upgrade(move |mut socket| async move {
            let who = caller.grant().credential();
            match sessions.join_stream(&session, who, panecast_proto::Role::View) {
                Ok(slot) => {
                    let _ = stream(&mut socket, &session, slot).await;
                }
                Err(refusal) => {
                    let _ = close(
                        &mut socket,
                        panecast_proto::close::TOO_MANY_VIEWERS,
                        &refusal.to_string(),
                    )
                    .await;
                }
            }
        }))
}

/// Streams the session until it ends or the socket goes.
async fn stream(
    socket: &mut WebSocket,
    session: &SessionHandle,
    _slot: ViewerSlot,
) -> Result<(), ()> {
    let mut screens = session.subscribe();
    let mut alis = AlisEncoder::default();
    send(socket, ALIS_MAGIC.to_vec()).await?;
    let first = screens.borrow_and_update().clone();
    let mut size = (first.cols, first.rows);
    send(socket, alis.reset(0, size.0, size.1, &redraw(&first))).await?;
    let mut last = Instant::now();
    loop {
        tokio::select! {
            changed = screens.changed() => {
                if changed.is_err() {
                    break;
                }
                sleep_until(last + MIN_INTERVAL).await;
                let screen = screens.borrow_and_update().clone();
                let now = Instant::now();
                let mut since = micros(now - last);
                if (screen.cols, screen.rows) != size {
                    size = (screen.cols, screen.rows);
                    send(socket, alis.resize(since, size.0, size.1)).await?;
                    since = 0;
                }
                send(socket, alis.output(since, &redraw(&screen))).await?;
                last = now;
            }
            message = socket.recv() => match message {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return Err(()),
                Some(Ok(_)) => {}
            },
        }
    }
    let final_screen = screens.borrow().clone();
    send(
        socket,
        alis.output(micros(last.elapsed()), &redraw(&final_screen)),
    )
    .await?;
    if let Status::Exited { status, .. } = session.status() {
        let code = status
            .code
            .unwrap_or(u32::from(status.signal.is_some()) * 128);
        send(socket, alis.exit(0, code)).await?;
    }
    send(socket, vec![ALIS_EOT]).await?;
    close(socket, 1000, "the session ended").await
}

/// The ANSI that redraws a screen from any state: leave the alternate
/// screen unless the screen is on it, then the full redraw.
fn redraw(screen: &Snapshot) -> String {
    let body = render::render(screen, Format::Ansi);
    if screen.alternate {
        body
    } else {
        format!("\x1b[?1049l{body}")
    }
}

fn micros(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX)
}

async fn send(socket: &mut WebSocket, bytes: Vec<u8>) -> Result<(), ()> {
    match timeout(SEND_TIMEOUT, socket.send(Message::Binary(bytes.into()))).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

async fn close(socket: &mut WebSocket, code: u16, reason: &str) -> Result<(), ()> {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    match timeout(SEND_TIMEOUT, socket.send(Message::Close(Some(frame)))).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

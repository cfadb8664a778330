//! `GET /api/sessions/{id}/alis`: a session as an ALiS v1 live stream, so a
//! page that embeds asciinema-player (its `websocket` driver) shows it live.
//!
//! The stream is built from the same published screens as the panecast
//! stream: a reset with the screen drawn as ANSI, then, for every screen a
//! viewer would see, output that redraws it, a resize when the size
//! changes, and the exit and end of transmission once the program has
//! ended. The redraws are rendered once for all of a session's ALiS
//! viewers, off the async workers and paced (see [`crate::stream::redraw`]),
//! so the bytes are bounded by the screen's size, never by how much the
//! program prints; a viewer whose socket is slow skips to the latest. A
//! redraw goes out in events of at most [`CHUNK`] bytes, each written when
//! the socket has taken the one before, so a viewer that stops reading
//! holds one chunk, not a screen.

use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::Extension;
use tokio::time::{timeout, Instant};

use crate::api::auth::caller::Caller;
use crate::api::error::{ApiError, ErrorBody};
use crate::api::state::AppState;
use crate::record::{AlisEncoder, ALIS_EOT, ALIS_MAGIC, ALIS_SUBPROTOCOL};
use crate::session::{SessionHandle, Status, ViewerSlot};

/// Most text in one output event: a redraw goes out in chunks.
const CHUNK: usize = 64 * 1024;
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
    caller: Caller,
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
            let who = caller.grant().principal();
            match sessions.join_stream(&session, &who, panecast_proto::Role::View, caller.badge()) {
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
    let feed = session
        .attached::<crate::stream::redraw::RedrawSlot>()
        .feed(|| session.subscribe());
    let mut redraws = feed.subscribe();
    let mut alis = AlisEncoder::default();
    send(socket, ALIS_MAGIC.to_vec()).await?;
    // The feed renders the current screen first, even an ended session's.
    let first = redraws
        .wait_for(Option::is_some)
        .await
        .map_err(|_| ())?
        .clone()
        .ok_or(())?;
    let mut size = (first.cols, first.rows);
    let mut pieces = chunks(&first.text);
    let init = pieces.next().unwrap_or_default();
    send(socket, alis.reset(0, size.0, size.1, init)).await?;
    for piece in pieces {
        send(socket, alis.output(0, piece)).await?;
    }
    let mut last = Instant::now();
    loop {
        tokio::select! {
            changed = redraws.changed() => {
                // The feed ends after the session's final screen.
                if changed.is_err() {
                    break;
                }
                let Some(redraw) = redraws.borrow_and_update().clone() else {
                    continue;
                };
                let now = Instant::now();
                let mut since = micros(now - last);
                if (redraw.cols, redraw.rows) != size {
                    size = (redraw.cols, redraw.rows);
                    send(socket, alis.resize(since, size.0, size.1)).await?;
                    since = 0;
                }
                for piece in chunks(&redraw.text) {
                    send(socket, alis.output(since, piece)).await?;
                    since = 0;
                }
                last = now;
            }
            message = socket.recv() => match message {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return Err(()),
                Some(Ok(_)) => {}
            },
        }
    }
    if let Status::Exited { status, .. } = session.status() {
        let code = status
            .code
            .unwrap_or(u32::from(status.signal.is_some()) * 128);
        send(socket, alis.exit(micros(last.elapsed()), code)).await?;
    }
    send(socket, vec![ALIS_EOT]).await?;
    close(socket, 1000, "the session ended").await
}

/// `text` in pieces of at most [`CHUNK`] bytes, cut on character
/// boundaries (the player's terminal parses the pieces as one stream).
fn chunks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = rest.len().min(CHUNK);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redraw_is_cut_into_chunks_on_character_boundaries() {
        let text = "é".repeat(CHUNK); // 2 bytes each
        let pieces: Vec<&str> = chunks(&text).collect();
        assert_eq!(pieces.len(), 2);
        assert!(pieces.iter().all(|p| p.len() <= CHUNK));
        assert_eq!(pieces.concat(), text);
        assert_eq!(chunks("").count(), 0);
    }
}

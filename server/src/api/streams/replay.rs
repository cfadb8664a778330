//! Replays: `GET /api/recordings/{name}/ws` plays a recording over the
//! WebSocket stream of live sessions (proto/PROTOCOL.md), to one view
//! connection that controls it (play, pause, speed, seek, markers); and
//! `POST /api/sessions/{id}/markers` adds a marker to a session's
//! recording.
//!
//! A credential reaches a replay when it reaches the recording (see
//! [`crate::api::handlers::recordings`]); the replay is always view-only.

use crate::api::error::ErrorCode;
use std::io::Read;
use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::Extension;
use serde::Deserialize;

use super::ws::{deflate_asked, not_an_upgrade, refuse, refuse_origin, Viewer};
use crate::access::{Action, Principal, Role as AccessRole};
use crate::api::auth::caller::Caller;
use crate::api::auth::guard::PROTOCOL;
use crate::api::error::{ApiError, ErrorBody};
use crate::api::handlers::recordings::{blocking, check, stem};
use crate::api::http::body::JsonBody;
use crate::api::state::AppState;
use crate::record::{Cast, RecordError};
use crate::session::SessionHandle;

/// `GET /api/recordings/{name}/ws`: a replay of the recording, for this
/// connection alone; it ends when the connection does.
/// The replay stream's query.
#[derive(Deserialize)]
pub struct ReplayQuery {
    /// 1: the client takes compressed frames (PROTOCOL.md, 0x0F).
    deflate: Option<u8>,
}

#[utoipa::path(
    get,
    path = "/api/recordings/{name}/ws",
    params(
        ("name" = String, Path, description = "The recording's name, with or without `.cast`"),
        ("deflate" = Option<u8>, Query, description = "1: send frames compressed (PROTOCOL.md, 0x0F); 0 (default): plain", minimum = 0, maximum = 1),
    ),
    responses(
        (status = 101, description = "Switching to the WebSocket stream of the replay (proto/PROTOCOL.md); closed at once with 4006 and why when a cookie-borne credential comes from another origin"),
        (status = 400, description = "bad_recording_name, bad_query", body = ErrorBody),
        (status = 404, description = "recording_not_found (also one outside the credential's scope)", body = ErrorBody),
        (status = 413, description = "recording_too_large: over `recordings.max_replay_bytes`", body = ErrorBody),
        (status = 422, description = "bad_recording: not an asciicast v2 file", body = ErrorBody),
        (status = 426, description = "upgrade_required: not a WebSocket upgrade request", body = ErrorBody),
        (status = 429, description = "too_many_replays", body = ErrorBody),
    )
)]
pub async fn upgrade(
    State(state): State<AppState>,
    caller: Caller,
    Path(name): Path<String>,
    query: Result<Query<ReplayQuery>, QueryRejection>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query?;
    let deflate = deflate_asked(query.deflate)?;
    let name = stem(&name).to_owned();
    let recordings = Arc::clone(state.sessions.recordings());
    let by = caller.grant().principal();
    let info = crate::api::handlers::recordings::find(&state, &name, &by).await?;
    check(&state, caller.grant(), &info, Action::Read)?;
    let ws = ws.map_err(not_an_upgrade)?;
    if let Err(refused) = caller.check_stream_origin(&headers, &state.config.allowed_origins) {
        return Ok(refuse_origin(ws, PROTOCOL, refused));
    }
    let max_bytes = state.config.recordings.max_replay_bytes;
    if info.bytes > max_bytes {
        return Err(ApiError::new(
            ErrorCode::RecordingTooLarge,
            format!(
                "the recording has {} bytes; replays are limited to {max_bytes}",
                info.bytes
            ),
        ));
    }
    // The slot first: reading and parsing the file is part of the work a
    // slot bounds.
    let slot = state.sessions.reserve_replay(caller.grant().credential())?;
    let cast = match crate::api::handlers::recordings::elsewhere(&state, &info) {
        Some(node) => read_cast_elsewhere(&state.sessions, (node, &name), max_bytes, &by).await?,
        None => {
            let name = name.clone();
            blocking(move || read_cast(&recordings, &name, max_bytes)).await??
        }
    };
    let idle_limit = cast.header.idle_time_limit.or_else(|| {
        let limit = state.config.recordings.idle_time_limit_ms;
        (limit > 0).then(|| limit as f64 / 1000.0)
    });
    let session = state.sessions.replay(slot, &name, cast, idle_limit)?;
    let ping_every = state.config.limits.ping_interval();
    let sessions = Arc::clone(&state.sessions);
    Ok(ws
        .protocols([PROTOCOL])
        .on_upgrade(move |mut socket| async move {
            let who = caller.grant().principal();
            // The replay is this connection's alone; refused, it ends with
            // the handle dropped here.
            match sessions.join_stream(&session, &who, panecast_proto::Role::View, caller.badge()) {
                Ok(slot) => {
                    Viewer::new(
                        socket,
                        session,
                        caller,
                        AccessRole::View,
                        slot,
                        ping_every,
                        sessions,
                    )
                    .with_deflate(deflate)
                    .run()
                    .await
                }
                Err(refusal) => refuse(&mut socket, refusal).await,
            }
        }))
}

/// Reads recording `name` from `node`, which holds it, for `by`, a part
/// at a time, at most `max_bytes` of it, and parses it.
async fn read_cast_elsewhere(
    sessions: &crate::session::Sessions,
    (node, name): (&str, &str),
    max_bytes: u64,
    by: &Principal,
) -> Result<Cast, ApiError> {
    let mut bytes = Vec::new();
    loop {
        let part = sessions
            .read_recording_elsewhere(node, name, bytes.len() as u64, by)
            .await?;
        if part.is_empty() || bytes.len() as u64 >= max_bytes {
            break;
        }
        bytes.extend_from_slice(&part);
    }
    bytes.truncate(usize::try_from(max_bytes).unwrap_or(usize::MAX));
    parse_cast(&bytes)
}

/// A recording's bytes as a cast, or 422.
fn parse_cast(bytes: &[u8]) -> Result<Cast, ApiError> {
    Cast::parse(bytes).map_err(|e| ApiError::new(ErrorCode::BadRecording, e.to_string()))
}

/// Reads and parses a recording, at most `max_bytes` of it.
fn read_cast(
    recordings: &crate::record::Recordings,
    name: &str,
    max_bytes: u64,
) -> Result<Cast, ApiError> {
    let mut bytes = Vec::new();
    recordings
        .open(name)?
        .take(max_bytes)
        .read_to_end(&mut bytes)
        .map_err(RecordError::from)?;
    parse_cast(&bytes)
}

/// The body of `POST /api/sessions/{id}/markers`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MarkerRequest {
    /// The marker's label, at most 256 bytes (may be empty).
    label: String,
}

/// `POST /api/sessions/{id}/markers`: adds a marker (an `m` event) to the
/// session's recording, now.
#[utoipa::path(
    post,
    path = "/api/sessions/{id}/markers",
    params(("id" = String, Path, description = "The session's id or name")),
    request_body = MarkerRequest,
    responses(
        (status = 204, description = "The marker is in the recording"),
        (status = 400, description = "bad_marker (label over 256 bytes), bad_json, bad_body", body = ErrorBody),
        (status = 409, description = "not_recording, session_exited", body = ErrorBody),
        (status = 413, description = "body_too_large", body = ErrorBody),
    )
)]
pub async fn add_marker(
    Extension(session): Extension<SessionHandle>,
    caller: Caller,
    JsonBody(request): JsonBody<MarkerRequest>,
) -> Result<StatusCode, ApiError> {
    session
        .add_marker(request.label, &caller.grant().principal())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

//! The recording routes: list, download (also while being written),
//! delete, and a session's recording by the session's id.
//!
//! A recording belongs to the session it recorded: a credential reaches it
//! when it reaches that session (by id, name or owner while the session is
//! open; by id or name after), and anything else answers 404 as if the
//! recording did not exist. Files panecast did not write (dropped into the
//! directory, e.g. from `asciinema rec`) belong to no session: only
//! credentials that reach every session see them.

use crate::api::error::ErrorCode;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Serialize;
use tokio::io::AsyncReadExt;

use crate::access::{Action, Denied, Grant, Principal};
use crate::record::{RecordError, RecordingInfo};
use crate::session::SessionHandle;

use crate::api::auth::caller::Caller;
use crate::api::error::{ApiError, ErrorBody};
use crate::api::state::AppState;

/// The media type of asciicast files.
const ASCIICAST: &str = "application/x-asciicast";
/// Bytes read from the file per chunk of the response.
const CHUNK: usize = 64 * 1024;

/// The answer of `GET /api/recordings`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct RecordingList {
    /// The recordings the caller reaches, oldest first.
    recordings: Vec<RecordingInfo>,
}

/// `GET /api/recordings`: the recordings the caller reaches, oldest first.
#[utoipa::path(
    get,
    path = "/api/recordings",
    responses(
        (status = 200, description = "The recordings", body = RecordingList),
        (status = 500, description = "internal, recording_io", body = ErrorBody),
    )
)]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<RecordingList>, ApiError> {
    let recordings = std::sync::Arc::clone(state.sessions.recordings());
    let here = super::sessions::node(&state).map(str::to_owned);
    let mut list: Vec<RecordingInfo> = blocking(move || recordings.list())
        .await??
        .into_iter()
        .map(|info| RecordingInfo {
            node: here.clone(),
            ..info
        })
        .collect();
    let by = caller.grant().principal();
    list.extend(state.sessions.recordings_elsewhere(&by).await);
    list.sort_by(|a, b| (&a.started_at, &a.name).cmp(&(&b.started_at, &b.name)));
    list.retain(|info| check(&state, caller.grant(), info, Action::List).is_ok());
    Ok(Json(RecordingList { recordings: list }))
}

/// Recording `name`'s entry: this node's, or in a cluster the one of the
/// node that holds it (asked for `by`).
pub(in crate::api) async fn find(
    state: &AppState,
    name: &str,
    by: &Principal,
) -> Result<RecordingInfo, ApiError> {
    let recordings = std::sync::Arc::clone(state.sessions.recordings());
    let local = {
        let name = name.to_owned();
        blocking(move || recordings.info(&name)).await?
    };
    match local {
        Ok(info) => Ok(RecordingInfo {
            node: super::sessions::node(state).map(str::to_owned),
            ..info
        }),
        Err(RecordError::NotFound(_)) => state
            .sessions
            .recording_elsewhere(name, by)
            .await
            .ok_or_else(|| RecordError::NotFound(name.to_owned()).into()),
        Err(e) => Err(e.into()),
    }
}

/// The node that holds `info`'s file, when it is not this one.
pub(in crate::api) fn elsewhere<'a>(state: &AppState, info: &'a RecordingInfo) -> Option<&'a str> {
    info.node
        .as_deref()
        .filter(|node| Some(*node) != super::sessions::node(state))
}

/// `GET /api/recordings/{name}`: the asciicast file, as far as it is
/// written when asked.
#[utoipa::path(
    get,
    path = "/api/recordings/{name}",
    params(("name" = String, Path, description = "The recording's name, with or without `.cast`")),
    responses(
        (status = 200, description = "The asciicast v2 file", content_type = "application/x-asciicast", body = String),
        (status = 400, description = "bad_recording_name", body = ErrorBody),
        (status = 404, description = "recording_not_found (also one outside the credential's scope)", body = ErrorBody),
        (status = 500, description = "internal, recording_io", body = ErrorBody),
    )
)]
pub async fn download(
    State(state): State<AppState>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let name = stem(&name).to_owned();
    let by = caller.grant().principal();
    let info = find(&state, &name, &by).await?;
    check(&state, caller.grant(), &info, Action::Read)?;
    let mut response = match elsewhere(&state, &info) {
        Some(node) => {
            // Read from its node a part at a time, as the client takes them.
            let (sessions, node) = (std::sync::Arc::clone(&state.sessions), node.to_owned());
            let parts = futures_util::stream::try_unfold(0u64, move |offset| {
                let (sessions, node, name) = (sessions.clone(), node.clone(), name.clone());
                let by = by.clone();
                async move {
                    let part = sessions
                        .read_recording_elsewhere(&node, &name, offset, &by)
                        .await
                        .map_err(std::io::Error::other)?;
                    if part.is_empty() {
                        return Ok::<_, std::io::Error>(None);
                    }
                    let next = offset + part.len() as u64;
                    Ok(Some((Bytes::from(part), next)))
                }
            });
            Body::from_stream(parts).into_response()
        }
        None => {
            let recordings = std::sync::Arc::clone(state.sessions.recordings());
            let file = blocking(move || recordings.open(&name)).await??;
            let file = tokio::fs::File::from_std(file);
            let chunks = futures_util::stream::try_unfold(file, |mut file| async move {
                let mut buffer = vec![0; CHUNK];
                let read = file.read(&mut buffer).await?;
                if read == 0 {
                    return Ok::<_, std::io::Error>(None);
                }
                buffer.truncate(read);
                Ok(Some((Bytes::from(buffer), file)))
            });
            Body::from_stream(chunks).into_response()
        }
    };
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(ASCIICAST));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

/// `DELETE /api/recordings/{name}`: 204 once deleted; 409 while live.
/// Admins only.
#[utoipa::path(
    delete,
    path = "/api/recordings/{name}",
    params(("name" = String, Path, description = "The recording's name, with or without `.cast`")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "bad_recording_name", body = ErrorBody),
        (status = 404, description = "recording_not_found (also one outside the credential's scope)", body = ErrorBody),
        (status = 409, description = "recording_live: the session still records", body = ErrorBody),
        (status = 500, description = "internal, recording_io", body = ErrorBody),
    )
)]
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    let name = stem(&name).to_owned();
    let by = caller.grant().principal();
    let info = find(&state, &name, &by).await?;
    check(&state, caller.grant(), &info, Action::Delete)?;
    match elsewhere(&state, &info) {
        Some(node) => {
            state
                .sessions
                .delete_recording_elsewhere(node, &name, &by)
                .await?
        }
        None => {
            let recordings = std::sync::Arc::clone(state.sessions.recordings());
            blocking(move || recordings.delete(&name)).await??;
        }
    }
    Ok(StatusCode::NO_CONTENT)
}

/// The access check for a recording: 404 outside the caller's scope, 403
/// beyond its role (see [`crate::session::Sessions::check_recording`]).
pub(in crate::api) fn check(
    state: &AppState,
    grant: &Grant,
    info: &RecordingInfo,
    action: Action,
) -> Result<(), ApiError> {
    state
        .sessions
        .check_recording(grant, info, action)
        .map_err(|denied| match denied {
            Denied::NotFound => RecordError::NotFound(info.name.clone()).into(),
            Denied::Forbidden(message) => ApiError::forbidden(message),
        })
}

/// `GET /api/sessions/{id}/recording`: a redirect to the session's recording.
#[utoipa::path(
    get,
    path = "/api/sessions/{id}/recording",
    params(("id" = String, Path, description = "The session's id or name")),
    responses(
        (status = 302, description = "To the recording", headers(("Location" = String, description = "/api/recordings/{name}"))),
        (status = 404, description = "not_recorded", body = ErrorBody),
        (status = 500, description = "internal", body = ErrorBody),
    )
)]
pub async fn of_session(
    Extension(session): Extension<SessionHandle>,
) -> Result<Response, ApiError> {
    let id = session.id();
    let name = session.info().recording.as_deref().ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotRecorded,
            format!("session '{id}' is not recorded"),
        )
    })?;
    let location = HeaderValue::from_str(&format!("/api/recordings/{name}"))
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    Ok((StatusCode::FOUND, [(header::LOCATION, location)]).into_response())
}

/// A name with its `.cast` extension, if given, removed.
pub(in crate::api) fn stem(name: &str) -> &str {
    name.strip_suffix(".cast").unwrap_or(name)
}

/// Runs file-system work off the async workers.
pub(in crate::api) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))
}

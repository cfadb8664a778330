//! The recording routes: list, download (also while being written),
//! delete, and a session's recording by the session's id.
//!
//! A recording belongs to the session it recorded: a credential reaches it
//! when it reaches that session (by id, name or owner while the session is
//! open; by id or name after), and anything else answers 404 as if the
//! recording did not exist. Files panecast did not write (dropped into the
//! directory, e.g. from `asciinema rec`) belong to no session: only
//! credentials that reach every session see them.

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Serialize;
use tokio::io::AsyncReadExt;

use crate::access::{Action, Denied, Grant, Target};
use crate::record::{RecordError, RecordingInfo};
use crate::session::SessionHandle;

use super::error::{ApiError, ErrorBody};
use super::guard::Caller;
use super::AppState;

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
    Extension(caller): Extension<Caller>,
) -> Result<Json<RecordingList>, ApiError> {
    let recordings = std::sync::Arc::clone(state.sessions.recordings());
    let list: Vec<RecordingInfo> = blocking(move || recordings.list())
        .await??
        .into_iter()
        .filter(|info| check(&state, caller.grant(), info, Action::List).is_ok())
        .collect();
    Ok(Json(RecordingList { recordings: list }))
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
    Extension(caller): Extension<Caller>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let name = stem(&name).to_owned();
    let recordings = std::sync::Arc::clone(state.sessions.recordings());
    let (info, file) = blocking(move || {
        let info = recordings.info(&name)?;
        Ok::<_, RecordError>((info, recordings.open(&name)?))
    })
    .await??;
    check(&state, caller.grant(), &info, Action::Read)?;
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
    let mut response = Body::from_stream(chunks).into_response();
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
    Extension(caller): Extension<Caller>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    let name = stem(&name).to_owned();
    let recordings = std::sync::Arc::clone(state.sessions.recordings());
    let info = {
        let (recordings, name) = (std::sync::Arc::clone(&recordings), name.clone());
        blocking(move || recordings.info(&name)).await??
    };
    check(&state, caller.grant(), &info, Action::Delete)?;
    blocking(move || recordings.delete(&name)).await??;
    Ok(StatusCode::NO_CONTENT)
}

/// The access check for a recording: 404 outside the caller's scope, 403
/// beyond its role.
pub(super) fn check(
    state: &AppState,
    grant: &Grant,
    info: &RecordingInfo,
    action: Action,
) -> Result<(), ApiError> {
    let open = info
        .session
        .as_deref()
        .and_then(|id| state.sessions.get(id));
    let target = match &open {
        Some(session) => super::target(session),
        None => Target {
            id: info.session.as_deref().unwrap_or_default(),
            name: info.session_name.as_deref(),
            owner: None,
        },
    };
    // A file of no session has the empty id, which only credentials that
    // reach every session reach.
    grant
        .check(action, Some(target))
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
            StatusCode::NOT_FOUND,
            "not_recorded",
            format!("session '{id}' is not recorded"),
        )
    })?;
    let location = HeaderValue::from_str(&format!("/api/recordings/{name}"))
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    Ok((StatusCode::FOUND, [(header::LOCATION, location)]).into_response())
}

/// A name with its `.cast` extension, if given, removed.
pub(super) fn stem(name: &str) -> &str {
    name.strip_suffix(".cast").unwrap_or(name)
}

/// Runs file-system work off the async workers.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))
}

//! The recording routes: list, download (also while being written),
//! delete, and a session's recording by the session's id.

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use tokio::io::AsyncReadExt;

use crate::record::RecordingInfo;

use super::error::ApiError;
use super::AppState;

/// The media type of asciicast files.
const ASCIICAST: &str = "application/x-asciicast";
/// Bytes read from the file per chunk of the response.
const CHUNK: usize = 64 * 1024;

/// `GET /api/recordings`: every recording, oldest first.
pub async fn list(State(state): State<AppState>) -> Result<Json<serde_json::Value>, ApiError> {
    let recordings = std::sync::Arc::clone(state.sessions.recordings());
    let list: Vec<RecordingInfo> = blocking(move || recordings.list()).await??;
    Ok(Json(json!({ "recordings": list })))
}

/// `GET /api/recordings/{name}`: the asciicast file, as far as it is
/// written when asked.
pub async fn download(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let name = stem(&name).to_owned();
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
    let mut response = Body::from_stream(chunks).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(ASCIICAST));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

/// `DELETE /api/recordings/{name}`: 204 once deleted; 409 while live.
pub async fn delete(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    let name = stem(&name).to_owned();
    let recordings = std::sync::Arc::clone(state.sessions.recordings());
    blocking(move || recordings.delete(&name)).await??;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/sessions/{id}/recording`: a redirect to the session's recording.
pub async fn of_session(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let session = state
        .sessions
        .get(&id)
        .ok_or_else(|| ApiError::no_session(&id))?;
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
fn stem(name: &str) -> &str {
    name.strip_suffix(".cast").unwrap_or(name)
}

/// Runs file-system work off the async workers.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))
}

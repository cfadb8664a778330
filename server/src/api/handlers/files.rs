//! The file routes: upload into and download from the working directory
//! of a session's foreground process, for sessions whose profile has
//! `files = true`, as the session's user (see [`crate::files`]). The guard
//! has resolved the session within the caller's scope and checked the
//! control role.

use crate::api::error::ErrorCode;
use axum::body::{Body, Bytes};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::io::AsyncReadExt;
use utoipa::{IntoParams, ToSchema};

use crate::files::{
    check_name, check_path, Download, FileError, NameError, Place, PlaceError, Upload,
};
use crate::session::SessionHandle;

use crate::api::error::{ApiError, ErrorBody};
use crate::api::state::AppState;

/// Bytes read from the worker per chunk of a download's response.
const CHUNK: usize = 64 * 1024;

/// The answer of an upload.
#[derive(Serialize, ToSchema)]
pub struct Uploaded {
    /// The file's name.
    name: String,
    /// Its size in bytes.
    size: u64,
    /// The directory it was written to: the working directory of the
    /// session's foreground process.
    directory: String,
}

/// The query of an upload.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct UploadQuery {
    /// Replace a file of that name (default false: 409 `file_exists`).
    #[serde(default)]
    overwrite: bool,
}

/// The query of a download.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct DownloadQuery {
    /// The file, relative to the working directory.
    path: String,
}

/// True when sessions of `profile` move files (`files = true`).
pub fn enabled(state: &AppState, profile: Option<&str>) -> bool {
    profile
        .and_then(|name| state.config.profiles.get(name))
        .is_some_and(|profile| profile.files)
}

/// Where `session`'s files go, once it is checked that they may.
fn place(state: &AppState, session: &SessionHandle) -> Result<Place, ApiError> {
    if !enabled(state, session.info().profile.as_deref()) {
        return Err(ApiError::new(
            ErrorCode::FilesDisabled,
            "this session's profile does not move files (set files = true in its profile)",
        ));
    }
    if let Some(node) = session.remote_node() {
        return Err(ApiError::new(
            ErrorCode::FilesOnOwner,
            format!("this session runs on node '{node}': move its files through that node"),
        ));
    }
    if !session.status().running() {
        return Err(ApiError::new(
            ErrorCode::SessionExited,
            "the session's program has exited",
        ));
    }
    Place::of(session.info().pid).map_err(|e| match e {
        PlaceError::Gone => ApiError::new(ErrorCode::SessionExited, e.to_string()),
        PlaceError::Io(_) => ApiError::new(ErrorCode::FileIo, e.to_string()),
    })
}

fn bad_name(e: NameError) -> ApiError {
    ApiError::new(ErrorCode::BadName, e.to_string())
}

impl From<FileError> for ApiError {
    fn from(e: FileError) -> ApiError {
        let code = match e {
            FileError::Exists => ErrorCode::FileExists,
            FileError::NotFound => ErrorCode::FileNotFound,
            FileError::Outside => ErrorCode::OutsideCwd,
            FileError::Denied(_) => ErrorCode::FileDenied,
            FileError::NotAFile => ErrorCode::NotAFile,
            FileError::TooLarge(_) => ErrorCode::TooLarge,
            FileError::Io(_) => ErrorCode::FileIo,
        };
        ApiError::new(code, e.to_string())
    }
}

fn too_large(cap: u64) -> ApiError {
    FileError::TooLarge(cap).into()
}

/// `PUT /api/sessions/{id}/files/{name}`: writes the body to `name` in
/// the working directory of the session's foreground process, as the
/// session's user; 201 once it is there whole.
#[utoipa::path(
    put,
    path = "/api/sessions/{id}/files/{name}",
    params(
        ("id" = String, Path, description = "The session's id or name"),
        ("name" = String, Path, description = "The file's name: no '/', not '.' or '..', no NUL, at most 255 bytes"),
        UploadQuery,
    ),
    request_body(content = Vec<u8>, content_type = "application/octet-stream", description = "The file's bytes, at most limits.upload_bytes"),
    responses(
        (status = 201, description = "Written (to a temporary file, renamed once whole)", body = Uploaded),
        (status = 400, description = "bad_name, bad_query", body = ErrorBody),
        (status = 403, description = "forbidden (not the control role), files_disabled (the profile lacks files = true), file_denied (the session's user may not write there), outside_cwd", body = ErrorBody),
        (status = 409, description = "file_exists (without overwrite=true), files_on_owner (another node runs the session), session_exited", body = ErrorBody),
        (status = 413, description = "too_large: over limits.upload_bytes (Content-Length over it is refused before reading)", body = ErrorBody),
        (status = 500, description = "file_io", body = ErrorBody),
    )
)]
pub async fn upload(
    State(state): State<AppState>,
    Extension(session): Extension<SessionHandle>,
    Path((_, name)): Path<(String, String)>,
    query: Result<Query<UploadQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let Query(query) = query?;
    let cap = state.config.limits.upload_bytes;
    let place = place(&state, &session)?;
    check_name(&name).map_err(bad_name)?;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > cap) {
        return Err(too_large(cap));
    }
    let mut upload = Upload::start(&place, &name, query.overwrite).await?;
    let mut received = 0u64;
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError::new(
                ErrorCode::BadBody,
                format!("the body could not be read: {e}"),
            )
        })?;
        received += chunk.len() as u64;
        if received > cap {
            // Dropping the upload cuts it short: nothing is written.
            return Err(too_large(cap));
        }
        upload.write(&chunk).await?;
    }
    let size = upload.finish().await?;
    tracing::info!(session = %session.id(), file = %name, size, "file uploaded");
    Ok((
        StatusCode::CREATED,
        Json(Uploaded {
            name,
            size,
            directory: place.path.to_string_lossy().into_owned(),
        }),
    )
        .into_response())
}

/// `GET /api/sessions/{id}/files?path=P`: the file at `P`, relative to the
/// working directory of the session's foreground process, read as the
/// session's user, as an attachment.
#[utoipa::path(
    get,
    path = "/api/sessions/{id}/files",
    params(("id" = String, Path, description = "The session's id or name"), DownloadQuery),
    responses(
        (status = 200, description = "The file's bytes", content_type = "application/octet-stream", body = Vec<u8>,
            headers(("Content-Disposition" = String, description = "attachment, with the file's name"))),
        (status = 400, description = "bad_path (empty, absolute or holding NUL), bad_query, not_a_file", body = ErrorBody),
        (status = 403, description = "forbidden (not the control role), files_disabled, outside_cwd (the path, `..` or a symbolic link leads out of the directory), file_denied (the session's user may not read it)", body = ErrorBody),
        (status = 404, description = "file_not_found", body = ErrorBody),
        (status = 409, description = "files_on_owner, session_exited", body = ErrorBody),
        (status = 413, description = "too_large: over limits.upload_bytes", body = ErrorBody),
        (status = 500, description = "file_io", body = ErrorBody),
    )
)]
pub async fn download(
    State(state): State<AppState>,
    Extension(session): Extension<SessionHandle>,
    query: Result<Query<DownloadQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query?;
    let place = place(&state, &session)?;
    check_path(&query.path).map_err(|e| ApiError::new(ErrorCode::BadPath, e.to_string()))?;
    let Download { size, bytes } =
        Download::start(&place, &query.path, state.config.limits.upload_bytes).await?;
    let stream = futures_util::stream::unfold((bytes, size), |(mut bytes, left)| async move {
        if left == 0 {
            return None;
        }
        let mut buffer = vec![0u8; usize::try_from(left).map_or(CHUNK, |l| l.min(CHUNK))];
        match bytes.read(&mut buffer).await {
            Ok(0) => Some((
                Err(std::io::Error::other("the file shrank while read")),
                (bytes, 0),
            )),
            Ok(n) => {
                buffer.truncate(n);
                Some((Ok(Bytes::from(buffer)), (bytes, left - n as u64)))
            }
            Err(e) => Some((Err(e), (bytes, 0))),
        }
    });
    let file_name = query.path.rsplit('/').next().unwrap_or_default();
    let mut response = Body::from_stream(stream).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(size));
    if let Ok(value) = HeaderValue::from_str(&disposition(file_name)) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// `attachment` with the name, ASCII-safe (`filename`) and whole
/// (`filename*`, RFC 5987).
fn disposition(name: &str) -> String {
    let plain: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded: String = name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("attachment; filename=\"{plain}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disposition_names_the_file_safely() {
        assert_eq!(
            disposition("a b.txt"),
            "attachment; filename=\"a b.txt\"; filename*=UTF-8''a%20b.txt"
        );
        assert_eq!(
            disposition("x\"y\r\n.txt"),
            "attachment; filename=\"x_y__.txt\"; filename*=UTF-8''x%22y%0D%0A.txt"
        );
    }
}

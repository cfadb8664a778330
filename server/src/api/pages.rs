//! The web client: `/` (sessions), `/s/{id}` (a terminal), `/embed/{id}`
//! (a bare terminal for iframes) and its modules under `/web/NAME`, all
//! compiled into the binary. `GET /api/profiles` lists what `/` can start.

use axum::extract::{Path, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::error::ApiError;
use super::AppState;
use crate::assets::asset;

/// Answers a compiled-in file; scripts may be loaded from other origins (for
/// the `<panecast-terminal>` element), and nothing is cached for long, so an
/// upgraded server is picked up on reload.
fn file(name: &str) -> Result<Response, ApiError> {
    let (content_type, bytes) = asset(name).ok_or_else(|| {
        ApiError::new(
            axum::http::StatusCode::NOT_FOUND,
            "not_found",
            format!("no file '{name}'"),
        )
    })?;
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if name.ends_with(".html") {
        // The first load carries ?token=: no request the page makes may
        // repeat its URL (with the token) in a Referer header.
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        );
    } else {
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
    }
    Ok(response)
}

/// `GET /`: the session list.
pub async fn index() -> Result<Response, ApiError> {
    file("index.html")
}

/// `GET /s/{id}`: a full-window terminal.
pub async fn terminal(Path(_id): Path<String>) -> Result<Response, ApiError> {
    file("terminal.html")
}

/// `GET /embed/{id}`: a bare terminal for iframes.
pub async fn embed(Path(_id): Path<String>) -> Result<Response, ApiError> {
    file("embed.html")
}

/// `GET /web/{name}`: a module or other file of the client (no token needed:
/// it is the same for everyone).
pub async fn web_file(Path(name): Path<String>) -> Result<Response, ApiError> {
    file(&name)
}

/// `GET /api/profiles`: the names of the profiles a session can start from.
pub async fn profiles(State(state): State<AppState>) -> Json<Vec<String>> {
    Json(state.config.profiles.keys().cloned().collect())
}

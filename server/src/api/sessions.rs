//! The session routes: create, list, show, delete, screen, input, resize.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;

use crate::input::parse_key;
use crate::render::{self, Format};
use crate::session::{Input, SessionHandle};

use super::body::JsonBody;
use super::create::{size, CreateRequest};
use super::error::ApiError;
use super::view::SessionView;
use super::AppState;

/// `POST /api/sessions`: 201 with the new session and its `Location`.
pub async fn create(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<CreateRequest>,
) -> Result<Response, ApiError> {
    let spec = request.resolve(&state.config, state.allow_any_command)?;
    let session = state.sessions.create(spec).await?;
    let mut headers = HeaderMap::new();
    if let Ok(location) = HeaderValue::from_str(&format!("/api/sessions/{}", session.id())) {
        headers.insert(header::LOCATION, location);
    }
    Ok((
        StatusCode::CREATED,
        headers,
        Json(SessionView::of(&session)),
    )
        .into_response())
}

/// `GET /api/sessions`: every open session, oldest first.
pub async fn list(State(state): State<AppState>) -> Json<serde_json::Value> {
    let sessions: Vec<SessionView> = state.sessions.list().iter().map(SessionView::of).collect();
    Json(json!({ "sessions": sessions }))
}

/// `GET /api/sessions/{id}`.
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<SessionView>, ApiError> {
    Ok(Json(SessionView::of(&find(&state, &id)?)))
}

/// `DELETE /api/sessions/{id}`: ends the session (hangup, then kill after the
/// grace period) and answers its final state once the child is reaped.
pub async fn delete(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<SessionView>, ApiError> {
    let session = state
        .sessions
        .remove(&id)
        .ok_or_else(|| ApiError::no_session(&id))?;
    session.kill().await;
    Ok(Json(SessionView::of(&session)))
}

/// The query of `GET /api/sessions/{id}/screen`.
#[derive(Deserialize)]
pub struct ScreenQuery {
    format: Option<String>,
}

/// `GET /api/sessions/{id}/screen?format=...`: the latest published screen.
pub async fn screen(
    State(state): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<ScreenQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::bad_request("bad_query", e.body_text()))?;
    let format: Format = query
        .format
        .as_deref()
        .unwrap_or("text")
        .parse()
        .map_err(|e: String| ApiError::bad_request("bad_format", e))?;
    let snapshot = find(&state, &id)?.screen();
    // Rendering a large screen takes a while: keep it off the async workers.
    let body = tokio::task::spawn_blocking(move || render::render(&snapshot, format))
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    Ok(([(header::CONTENT_TYPE, format.content_type())], body).into_response())
}

/// The body of `POST /api/sessions/{id}/input`: exactly one of the fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputRequest {
    text: Option<String>,
    keys: Option<Vec<String>>,
}

/// `POST /api/sessions/{id}/input`: 204 once queued for the child.
pub async fn input(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<InputRequest>,
) -> Result<StatusCode, ApiError> {
    let input = match (request.text, request.keys) {
        (Some(text), None) => Input::Bytes(text.into_bytes()),
        (None, Some(names)) => Input::Keys(
            names
                .iter()
                .map(|name| parse_key(name))
                .collect::<Result<_, _>>()
                .map_err(|e| ApiError::bad_request("unknown_key", e.to_string()))?,
        ),
        _ => {
            return Err(ApiError::bad_request(
                "bad_request",
                "give exactly one of 'text' or 'keys'",
            ))
        }
    };
    find(&state, &id)?.send_input(input).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The body of `POST /api/sessions/{id}/resize`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResizeRequest {
    cols: u64,
    rows: u64,
}

/// `POST /api/sessions/{id}/resize`: 204 once the terminal has the new size.
pub async fn resize(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<ResizeRequest>,
) -> Result<StatusCode, ApiError> {
    let (cols, rows) = size(request.cols, request.rows, &state.config.limits)?;
    find(&state, &id)?.resize(cols, rows).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The session `id` names, or 404.
pub(super) fn find(state: &AppState, id: &str) -> Result<SessionHandle, ApiError> {
    state
        .sessions
        .get(id)
        .ok_or_else(|| ApiError::no_session(id))
}

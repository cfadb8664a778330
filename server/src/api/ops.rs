//! The routes outside the session API: `/healthz`, `/metrics`, and the JSON
//! answers for unknown routes and methods.

use std::fmt::Write;

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::error::ApiError;
use super::AppState;
use crate::config::MetricsAccess;

/// `GET /healthz`: 200 while the server runs.
pub async fn healthz() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok" }))
}

/// `GET /metrics`: counters and gauges in the Prometheus text format. With
/// `metrics = "token"` (the default) it needs a credential, of any role,
/// as a bearer header.
pub async fn metrics(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if state.config.metrics == MetricsAccess::Token {
        let authorized = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .and_then(|(_, token)| state.access.authenticate(token.trim()))
            .is_some();
        if !authorized {
            return ApiError::unauthorized().into_response();
        }
    }
    let sessions = state.sessions.list();
    let running = sessions.iter().filter(|s| s.status().running()).count();
    let m = state.sessions.metrics();
    let rows: [(&str, &str, &str, u64); 6] = [
        (
            "panecast_sessions",
            "gauge",
            "Sessions open, running or lingering after exit.",
            sessions.len() as u64,
        ),
        (
            "panecast_sessions_running",
            "gauge",
            "Sessions whose child runs.",
            running as u64,
        ),
        (
            "panecast_sessions_created_total",
            "counter",
            "Sessions started.",
            m.sessions_created(),
        ),
        (
            "panecast_pty_read_bytes_total",
            "counter",
            "Bytes read from ptys.",
            m.pty_read_bytes(),
        ),
        (
            "panecast_pty_read_chunks_total",
            "counter",
            "Chunks handed from pty readers to sessions.",
            m.pty_read_chunks(),
        ),
        (
            "panecast_frames_published_total",
            "counter",
            "Screens published by sessions.",
            m.frames_published(),
        ),
    ];
    let mut body = String::new();
    for (name, kind, help, value) in rows {
        // Writing to a String cannot fail.
        let _ = write!(
            body,
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}\n"
        );
    }
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        body,
    )
        .into_response()
}

/// Any unknown route: 404.
pub async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such route")
}

/// A known route with the wrong method: 405.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this route does not take that method",
    )
}

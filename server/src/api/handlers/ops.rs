//! The routes outside the session API: `/healthz`, `/metrics`, and the JSON
//! answers for unknown routes and methods.

use crate::api::error::ErrorCode;
use std::fmt::Write;

use axum::extract::{FromRef, Request, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use crate::api::auth::auth_state::AuthState;
use crate::api::auth::signin;
use crate::api::error::{ApiError, ErrorBody};
use crate::api::http::origin::peer_of;
use crate::api::state::AppState;
use crate::cluster::Refusal;
use crate::config::MetricsAccess;

/// The answer of `GET /healthz`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Health {
    /// Always `ok`.
    status: &'static str,
    /// How sessions are walled off: `uid` (each runs as a uid of its own,
    /// ended by uid), `cgroup` (all run as the server's user; each is ended
    /// by its cgroup) or `none` (all run as the server's user; ended by
    /// tracking, best effort).
    #[schema(example = "uid")]
    isolation: &'static str,
}

/// `GET /healthz`: 200 while the server runs, with its isolation mode.
#[utoipa::path(
    get,
    path = "/healthz",
    responses((status = 200, description = "The server runs", body = Health)),
    security(())
)]
pub async fn healthz(State(state): State<AppState>) -> Json<Health> {
    Json(Health {
        status: "ok",
        isolation: state.sessions().isolation().mode().name(),
    })
}

/// `GET /metrics`: counters and gauges in the Prometheus text format. With
/// `metrics = "token"` (the default) it needs, as a bearer header, the
/// admin token, an admin key or a key with `metrics = true`; never a share
/// link.
#[utoipa::path(
    get,
    path = "/metrics",
    responses(
        (status = 200, description = "The metrics, in the Prometheus text format", content_type = "text/plain", body = String),
        (status = 401, description = "unauthorized: `metrics = \"token\"` and no valid bearer credential", body = ErrorBody),
        (status = 429, description = "too_many_auth_failures: this address presented too many wrong credentials this minute", body = ErrorBody),
        (status = 403, description = "forbidden: a credential that may not read metrics (a share link, a key without `metrics = true`)", body = ErrorBody),
    ),
    security((), ("bearer" = []))
)]
pub async fn metrics(State(state): State<AppState>, request: Request) -> Response {
    if state.config.metrics == MetricsAccess::Token {
        let (peer, _) = peer_of(state.trusted(), &request);
        let auth = AuthState::from_ref(&state);
        if let Some(refused) = signin::refusal(&auth, peer) {
            return refused;
        }
        let grant = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .and_then(|(_, token)| state.access.authenticate(token.trim()));
        match grant {
            None => {
                if request.headers().contains_key(header::AUTHORIZATION) {
                    signin::failed(&auth, peer);
                }
                return ApiError::unauthorized().into_response();
            }
            Some(grant) if !grant.may_read_metrics() => {
                return ApiError::forbidden(
                    "this credential may not read /metrics: use the admin token or a key with metrics = true",
                )
                .into_response()
            }
            Some(_) => {}
        }
    }
    let sessions = state.sessions.list();
    let running = sessions.iter().filter(|s| s.status().running()).count();
    let m = state.sessions.metrics();
    let (view, control) = sessions.iter().fold((0, 0), |(v, c), s| {
        let p = s.presence();
        (v + p.view, c + p.control)
    });
    let rows: [(&str, &str, &str, u64); 15] = [
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
        (
            "panecast_stream_frames_sent_total",
            "counter",
            "Binary messages sent to stream viewers.",
            m.stream_frames_sent(),
        ),
        (
            "panecast_stream_bytes_sent_total",
            "counter",
            "Bytes of binary messages sent to stream viewers.",
            m.stream_bytes_sent(),
        ),
        (
            "panecast_input_bytes_total",
            "counter",
            "Input bytes written to ptys from clients.",
            m.input_bytes(),
        ),
        (
            "panecast_auth_failures_total",
            "counter",
            "API requests refused for want of a valid credential.",
            m.auth_failures(),
        ),
        (
            "panecast_stream_frames_skipped_total",
            "counter",
            "Screens slow viewers skipped: they were sent a later one instead.",
            m.skipped_frames(),
        ),
        (
            "panecast_pty_backpressure_waits_total",
            "counter",
            "Times a pty reader waited for its session to catch up (the program was held back).",
            m.pty_backpressure_waits(),
        ),
        (
            "panecast_streams_refused_total",
            "counter",
            "Streams refused a viewer slot (session full, or the credential at its share): close 4029.",
            m.streams_refused(),
        ),
        (
            "panecast_connections_evicted_total",
            "counter",
            "Idle HTTP connections closed to make room for new ones.",
            m.connections_evicted(),
        ),
        (
            "panecast_connections_refused_total",
            "counter",
            "New HTTP connections refused: those they could replace were all busy.",
            m.connections_refused(),
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
    let _ = write!(
        body,
        "# HELP panecast_viewers Stream connections open, by role.\n# TYPE panecast_viewers gauge\n\
         panecast_viewers{{role=\"view\"}} {view}\npanecast_viewers{{role=\"control\"}} {control}\n"
    );
    if let Some(registry) = state.sessions.cluster() {
        let _ = write!(
            body,
            "# HELP panecast_bus_refused_total Messages from the cluster bus refused by their seal \
             (forged, changed, replayed, stale), by reason.\n\
             # TYPE panecast_bus_refused_total counter\n"
        );
        let refused = registry.bus().seal().refusals();
        for (refusal, count) in Refusal::ALL.iter().zip(refused) {
            let _ = writeln!(
                body,
                "panecast_bus_refused_total{{reason=\"{}\"}} {count}",
                refusal.name()
            );
        }
        let _ = write!(
            body,
            "# HELP panecast_bus_denied_total Asks from other nodes, opened, that this node's own \
             configuration refused for who they act for.\n\
             # TYPE panecast_bus_denied_total counter\npanecast_bus_denied_total {}\n",
            registry.bus().denied()
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
    ApiError::new(ErrorCode::NotFound, "no such route")
}

/// A known route with the wrong method: 405.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this route does not take that method",
    )
}

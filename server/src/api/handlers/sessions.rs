//! The session routes: create, list, show, delete, screen, input, resize.
//! The guard has authenticated the caller and resolved the session (by id
//! or name) within its scope and role before any of these run.

use crate::api::error::ErrorCode;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::access::{Credential, Grant, Target};
use crate::input::parse_key;
use crate::render::{self, Format, RevisedScreen};
use crate::session::{Input, RemoteCreate, SessionHandle};

use super::view::SessionView;
use crate::api::audit;
use crate::api::auth::caller::Caller;
use crate::api::auth::guard::target;
use crate::api::error::{ApiError, ErrorBody};
use crate::api::http::body::JsonBody;
use crate::api::spec::{self, CreateRequest};
use crate::api::state::AppState;

/// The answer of `GET /api/sessions`.
#[derive(Serialize, ToSchema)]
pub struct SessionList {
    /// The open sessions the caller reaches, oldest first.
    sessions: Vec<SessionView>,
}

/// `POST /api/sessions`: 201 with the new session and its `Location`.
#[utoipa::path(
    post,
    path = "/api/sessions",
    request_body(content = CreateRequest, description = "Every field is optional; an empty body starts the default profile"),
    responses(
        (status = 201, description = "The session started", body = SessionView,
            headers(("Location" = String, description = "The session's URL"))),
        (status = 400, description = "bad_json, bad_body, bad_request, bad_size, bad_scrollback, bad_command, bad_env, bad_cwd, bad_name, unknown_profile, spawn_failed", body = ErrorBody),
        (status = 403, description = "forbidden: the credential may not start this profile or command, or give this name (outside its scope)", body = ErrorBody),
        (status = 404, description = "node_not_found: `node` names no live node of the cluster (or there is no cluster)", body = ErrorBody),
        (status = 409, description = "name_taken, name_reserved (declared in `[[sessions]]`)", body = ErrorBody),
        (status = 413, description = "body_too_large", body = ErrorBody),
        (status = 429, description = "too_many_sessions (in a cluster: on every node)", body = ErrorBody),
        (status = 500, description = "internal, recording_failed", body = ErrorBody),
        (status = 503, description = "shutting_down; short_of_descriptors, short_of_processes, short_of_terminals: the system has no open file, process or pty left for a new session; cluster_unavailable: NATS or the node chosen cannot be reached", body = ErrorBody),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<CreateRequest>,
) -> Result<Response, ApiError> {
    let session = start(&state, &caller, request).await?;
    let grant = caller.grant();
    let mut headers = HeaderMap::new();
    if let Ok(location) = HeaderValue::from_str(&format!("/api/sessions/{}", session.id())) {
        headers.insert(header::LOCATION, location);
    }
    Ok((
        StatusCode::CREATED,
        headers,
        Json(view(&state, &session, grant)),
    )
        .into_response())
}

/// Starts the session `request` asks for, within what the caller may
/// start (the guard checked [`Action::Create`](crate::access::Action) first), and audits it.
pub(in crate::api) async fn start(
    state: &AppState,
    caller: &Caller,
    request: CreateRequest,
) -> Result<SessionHandle, ApiError> {
    spec::not_declared(&state.config, request.name.as_deref())?;
    let on = request.node.clone();
    let remote = RemoteCreate {
        request: serde_json::to_vec(&request)
            .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?,
        by: caller.grant().principal(),
    };
    let spec = request.resolve(&state.config, state.allow_any_command, caller.grant())?;
    let session = state
        .sessions
        .create_on(spec, on.as_deref(), remote)
        .await?;
    let grant = caller.grant();
    audit::session_created(
        caller.peer(),
        grant.credential(),
        grant.role(),
        session.id(),
    );
    Ok(session)
}

/// `GET /api/sessions`: the open sessions the caller reaches, oldest first;
/// in a cluster, every node's (this node's from itself, the others' from
/// the registry), checked by the same rule.
#[utoipa::path(
    get,
    path = "/api/sessions",
    responses(
        (status = 200, description = "The sessions", body = SessionList),
        (status = 503, description = "cluster_unavailable: the cluster's registry cannot be read (`serve --cluster`)", body = ErrorBody),
    )
)]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<SessionList>, ApiError> {
    Ok(Json(SessionList {
        sessions: visible(&state, caller.grant()).await?,
    }))
}

/// `session` as `grant` sees it, from this node.
pub(in crate::api) fn view(
    state: &AppState,
    session: &SessionHandle,
    grant: &Grant,
) -> SessionView {
    SessionView::of(session, grant, node(state)).with_files(&state.config)
}

/// The open sessions `grant` reaches, oldest first (in a cluster, every
/// node's).
pub(in crate::api) async fn visible(
    state: &AppState,
    grant: &Grant,
) -> Result<Vec<SessionView>, ApiError> {
    let here = node(state);
    let mut sessions: Vec<SessionView> = state
        .sessions
        .list()
        .iter()
        .filter(|s| grant.reaches(target(s)))
        .map(|s| SessionView::of(s, grant, here).with_files(&state.config))
        .collect();
    if let Some(registry) = state.sessions.cluster() {
        // A name another node's session took while this node was gone
        // is that session's in every list.
        for view in &mut sessions {
            if registry.lost_name(&view.id) {
                view.name = None;
            }
        }
        let records = registry
            .list()
            .await
            .map_err(|e| ApiError::cluster_unavailable(&e.to_string()))?;
        sessions.extend(
            records
                .iter()
                .filter(|record| record.node != registry.node())
                .filter(|record| {
                    // Not one this version reads: no owner, so only the
                    // rules that ignore the owner let a caller reach it.
                    let owner = record
                        .owner
                        .as_deref()
                        .and_then(|owner| owner.parse::<Credential>().ok());
                    grant.reaches(Target {
                        id: &record.id,
                        name: record.name.as_deref(),
                        owner: owner.as_ref(),
                    })
                })
                .map(|record| SessionView::remote(record, grant).with_files(&state.config)),
        );
        // RFC 3339 UTC times of one format sort as strings; ties by id.
        sessions.sort_by(|a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
    }
    Ok(sessions)
}

/// This node's name in a cluster.
pub(in crate::api) fn node(state: &AppState) -> Option<&str> {
    state.sessions.cluster().map(|registry| registry.node())
}

/// `GET /api/sessions/{id}`.
#[utoipa::path(
    get,
    path = "/api/sessions/{id}",
    params(("id" = String, Path, description = "The session's id or name")),
    responses((status = 200, description = "The session", body = SessionView))
)]
pub async fn show(
    State(state): State<AppState>,
    caller: Caller,
    Extension(session): Extension<SessionHandle>,
) -> Json<SessionView> {
    Json(view(&state, &session, caller.grant()))
}

/// `DELETE /api/sessions/{id}`: ends the session (hangup, then kill after the
/// grace period, and every process it left behind) and answers its final
/// state once the child is reaped. Its share links end with it.
#[utoipa::path(
    delete,
    path = "/api/sessions/{id}",
    params(("id" = String, Path, description = "The session's id or name")),
    responses((status = 200, description = "The session's final state", body = SessionView))
)]
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Extension(session): Extension<SessionHandle>,
) -> Result<Json<SessionView>, ApiError> {
    let session = end(&state, &caller, session).await?;
    Ok(Json(view(&state, &session, caller.grant())))
}

/// Ends `session` (the guard checked [`Action::Delete`](crate::access::Action)):
/// its links end with it, the end is audited, and it is answered once the
/// child is reaped.
pub(in crate::api) async fn end(
    state: &AppState,
    caller: &Caller,
    session: SessionHandle,
) -> Result<SessionHandle, ApiError> {
    // Another node's session is deleted by its owner, asked by the mirror.
    let session = match state.sessions.remove(session.id()) {
        Some(local) => local,
        None if session.remote_node().is_some() => session,
        None => return Err(ApiError::no_session(session.id())),
    };
    state.access.links().end_session(session.id());
    let grant = caller.grant();
    audit::session_deleted(
        caller.peer(),
        grant.credential(),
        grant.role(),
        session.id(),
    );
    session.delete(&grant.principal()).await;
    Ok(session)
}

/// The query of `GET /api/sessions/{id}/screen`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ScreenQuery {
    /// `text` (default), `json`, `ansi`, `html` or `svg`.
    format: Option<String>,
}

/// `GET /api/sessions/{id}/screen?format=...`: the latest published screen.
#[utoipa::path(
    get,
    path = "/api/sessions/{id}/screen",
    params(("id" = String, Path, description = "The session's id or name"), ScreenQuery),
    responses(
        (status = 200, description = "The screen in the asked format",
            content(
                (String = "text/plain"),
                (Object = "application/json"),
                (String = "text/html"),
                (String = "image/svg+xml"),
            )),
        (status = 400, description = "bad_query, bad_format", body = ErrorBody),
        (status = 500, description = "internal", body = ErrorBody),
    )
)]
pub async fn screen(
    Extension(session): Extension<SessionHandle>,
    query: Result<Query<ScreenQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query?;
    let format: Format = query
        .format
        .as_deref()
        .unwrap_or("text")
        .parse()
        .map_err(|e: String| ApiError::new(ErrorCode::BadFormat, e))?;
    let snapshot = session.screen();
    // Rendering a large screen takes a while: keep it off the async workers.
    let body = tokio::task::spawn_blocking(move || match format {
        // The JSON carries the screen's revision (for a wait's `after`).
        Format::Json => RevisedScreen::of(&snapshot).render(),
        _ => render::render(&snapshot, format),
    })
    .await
    .map_err(|e| ApiError::new(ErrorCode::Internal, e.to_string()))?;
    Ok(([(header::CONTENT_TYPE, format.content_type())], body).into_response())
}

/// The body of `POST /api/sessions/{id}/input`: exactly one of the fields.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InputRequest {
    /// Text to type, as is.
    text: Option<String>,
    /// Key names, such as `Enter`, `C-c`, `Up`.
    keys: Option<Vec<String>>,
}

/// The header of an input's answer that carries the revision of the
/// last screen published before the input was written: output the input
/// causes comes in later revisions, so a wait with `after` set to it sees
/// that output (and nothing published before the keys).
pub const REVISION_HEADER: &str = "panecast-revision";

/// `POST /api/sessions/{id}/input`: 204 once written to the child, with
/// the revision of the last screen published before it in
/// `Panecast-Revision`. Shares the session's
/// input rate with its WebSocket streams (429 past it).
#[utoipa::path(
    post,
    path = "/api/sessions/{id}/input",
    params(("id" = String, Path, description = "The session's id or name")),
    request_body = InputRequest,
    responses(
        (status = 204, description = "Written to the program",
            headers(("Panecast-Revision" = u64, description = "The revision of the last screen published before the input was written: a wait's `after`"))),
        (status = 400, description = "bad_json, bad_body, bad_request, unknown_key", body = ErrorBody),
        (status = 409, description = "session_exited", body = ErrorBody),
        (status = 413, description = "body_too_large", body = ErrorBody),
        (status = 429, description = "input_rate_limited, input_busy", body = ErrorBody),
    )
)]
pub async fn input(
    Extension(session): Extension<SessionHandle>,
    caller: Caller,
    JsonBody(request): JsonBody<InputRequest>,
) -> Result<Response, ApiError> {
    let input = input_of(request.text, request.keys)?;
    let revision = type_into(&session, input, caller.grant()).await?;
    let revision = HeaderValue::from(revision);
    Ok((StatusCode::NO_CONTENT, [(REVISION_HEADER, revision)]).into_response())
}

/// Queues `input` for the program of `session`, typed by `by`, and
/// answers the revision
/// of the last screen published before it was written: a wait `after` it
/// sees every row the keys' output changes. The revision is read first:
/// read after the write, it could already hold that output (a mirror's
/// owner answers once the keys are written, and its echo may reach the
/// mirror before the answer does), and such a wait would never match.
pub(in crate::api) async fn type_into(
    session: &SessionHandle,
    input: Input,
    by: &Grant,
) -> Result<u64, ApiError> {
    let revision = session.screen().generation;
    session.send_input(input, &by.principal(), None).await?;
    Ok(revision)
}

/// What to type: exactly one of `text` (as is) or `keys` (by name, see
/// [`parse_key`]); 400 `unknown_key` or `bad_request` otherwise.
pub(in crate::api) fn input_of(
    text: Option<String>,
    keys: Option<Vec<String>>,
) -> Result<Input, ApiError> {
    Ok(match (text, keys) {
        (Some(text), None) => Input::Bytes(text.into_bytes()),
        (None, Some(names)) => Input::Keys(
            names
                .iter()
                .map(|name| parse_key(name))
                .collect::<Result<_, _>>()
                .map_err(|e| ApiError::new(ErrorCode::UnknownKey, e.to_string()))?,
        ),
        _ => {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                "give exactly one of 'text' or 'keys'",
            ))
        }
    })
}

/// The body of `POST /api/sessions/{id}/resize`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResizeRequest {
    /// Width, 1 to the configured maximum.
    cols: u64,
    /// Height, 1 to the configured maximum.
    rows: u64,
}

/// `POST /api/sessions/{id}/resize`: 204 once the terminal has the new size.
/// The session checks the limits, as it does for every transport.
#[utoipa::path(
    post,
    path = "/api/sessions/{id}/resize",
    params(("id" = String, Path, description = "The session's id or name")),
    request_body = ResizeRequest,
    responses(
        (status = 204, description = "The terminal has the new size"),
        (status = 400, description = "bad_json, bad_body, bad_size", body = ErrorBody),
        (status = 409, description = "session_exited", body = ErrorBody),
        (status = 413, description = "body_too_large", body = ErrorBody),
        (status = 500, description = "resize_failed", body = ErrorBody),
    )
)]
pub async fn resize(
    Extension(session): Extension<SessionHandle>,
    caller: Caller,
    JsonBody(request): JsonBody<ResizeRequest>,
) -> Result<StatusCode, ApiError> {
    let narrow = |name: &str, value: u64| {
        u16::try_from(value).map_err(|_| {
            ApiError::new(
                ErrorCode::BadSize,
                format!("{name} {value} is out of range"),
            )
        })
    };
    let (cols, rows) = (narrow("cols", request.cols)?, narrow("rows", request.rows)?);
    session
        .resize(cols, rows, &caller.grant().principal())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

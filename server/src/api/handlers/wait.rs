//! `POST /api/sessions/{id}/wait`: waits until a text or regex is on the
//! screen, the output has been idle, or the program ended (see
//! [`crate::session::wait`]).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Serialize;
use utoipa::ToSchema;

use crate::render::RevisedScreen;
use crate::session::wait::{At, Matched, WaitError, WaitRequest, Waited};
use crate::session::SessionHandle;

use crate::api::auth::caller::Caller;
use crate::api::error::{ApiError, ErrorBody, ErrorCode};
use crate::api::http::body::JsonBody;

/// The answer of a wait: what held, where, and the screen then.
#[derive(Serialize, ToSchema)]
pub struct WaitAnswer {
    /// `text`, `regex`, `idle` or `exit`.
    matched: Matched,
    /// Where the text or regex matched (absent for `idle` and `exit`).
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<At>,
    /// The screen JSON (as `GET .../screen?format=json`) when it held.
    #[schema(value_type = Object)]
    screen: RevisedScreen,
    /// That screen's revision.
    revision: u64,
}

/// The 408 answer: the error body, the screen at the time-out and its
/// revision.
#[derive(Serialize, ToSchema)]
pub struct WaitTimeout {
    /// A message for people.
    error: String,
    /// `wait_timeout`.
    code: ErrorCode,
    /// The screen JSON at the time-out.
    #[schema(value_type = Object)]
    screen: RevisedScreen,
    /// That screen's revision.
    revision: u64,
}

/// The handler.
#[utoipa::path(
    post,
    path = "/api/sessions/{id}/wait",
    params(("id" = String, Path, description = "The session's id or name")),
    request_body = WaitRequest,
    responses(
        (status = 200, description = "A condition held", body = WaitAnswer),
        (status = 400, description = "bad_json, bad_body, bad_wait (no condition), bad_pattern, bad_timeout (over limits.max_wait_ms)", body = ErrorBody),
        (status = 408, description = "wait_timeout: nothing held in time; the screen then", body = WaitTimeout),
        (status = 409, description = "session_exited: the program ended and the wait was not for its end", body = ErrorBody),
        (status = 413, description = "body_too_large", body = ErrorBody),
        (status = 429, description = "too_many_waits: limits.max_waits_per_session or max_waits_per_credential", body = ErrorBody),
    )
)]
pub async fn wait(
    caller: Caller,
    Extension(session): Extension<SessionHandle>,
    JsonBody(request): JsonBody<WaitRequest>,
) -> Result<Response, ApiError> {
    Ok(match run(&caller, &session, request).await? {
        Ok(answer) => Json(answer).into_response(),
        Err(timeout) => (StatusCode::REQUEST_TIMEOUT, Json(timeout)).into_response(),
    })
}

/// Waits on `session` for `caller`: what held, or the time-out's answer
/// (the `wait_timeout` error body with the screen); any other refusal as
/// the API's error.
pub(in crate::api) async fn run(
    caller: &Caller,
    session: &SessionHandle,
    request: WaitRequest,
) -> Result<Result<WaitAnswer, WaitTimeout>, ApiError> {
    match session.wait(request, caller.grant().credential()).await {
        Ok(Waited {
            matched,
            at,
            screen,
        }) => Ok(Ok(WaitAnswer {
            matched,
            at,
            revision: screen.generation,
            screen: RevisedScreen::of(&screen),
        })),
        Err(WaitError::TimedOut(screen)) => Ok(Err(WaitTimeout {
            error: WaitError::TimedOut(screen.clone()).to_string(),
            code: ErrorCode::WaitTimeout,
            revision: screen.generation,
            screen: RevisedScreen::of(&screen),
        })),
        Err(e) => Err(e.into()),
    }
}

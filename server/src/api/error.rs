//! The one error type of the API: a status, a stable machine-readable code
//! and a message, answered as `{"error": message, "code": code}`.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use super::origin::OriginRefusal;
use crate::pty::{Shortage, SpawnError};
use crate::record::RecordError;
use crate::session::wait::WaitError;
use crate::session::{CreateError, RefusalKind, SessionError};

/// The JSON body of every error answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// A message for people; it may change.
    pub error: String,
    /// A stable code clients can match on (see the table in `docs/api.md`).
    pub code: String,
}

/// An error answered to a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable code clients can match on.
    pub code: &'static str,
    /// A message for people.
    pub message: String,
}

impl ApiError {
    /// An error with any status.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    /// 400: the request is malformed or a value is out of range.
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// 401: no valid token.
    pub fn unauthorized() -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid credential is required: send the header 'Authorization: Bearer TOKEN'",
        )
    }

    /// 403: the credential's role does not allow it.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    /// 503: another node of the cluster, or NATS, cannot be reached.
    pub fn cluster_unavailable(reason: &str) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "cluster_unavailable",
            format!("the cluster cannot be reached: {reason}"),
        )
    }

    /// 404 for an unknown session id, or one outside the caller's scope:
    /// both echo what was asked, so neither tells the other apart.
    pub fn no_session(id: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "session_not_found",
            format!("no session with id or name '{id}'"),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(ErrorBody {
            error: self.message,
            code: self.code.to_owned(),
        });
        let mut response = (self.status, body).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

impl From<OriginRefusal> for ApiError {
    fn from(refused: OriginRefusal) -> Self {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "origin_forbidden",
            refused.to_string(),
        )
    }
}

impl From<SessionError> for ApiError {
    fn from(err: SessionError) -> ApiError {
        let (status, code) = match err {
            SessionError::Exited => (StatusCode::CONFLICT, "session_exited"),
            SessionError::InputBusy => (StatusCode::TOO_MANY_REQUESTS, "input_busy"),
            SessionError::Resize(_) => (StatusCode::INTERNAL_SERVER_ERROR, "resize_failed"),
            SessionError::BadSize(_) => (StatusCode::BAD_REQUEST, "bad_size"),
            SessionError::RateLimited => (StatusCode::TOO_MANY_REQUESTS, "input_rate_limited"),
            SessionError::ReadsPaced => (StatusCode::TOO_MANY_REQUESTS, "reads_paced"),
            SessionError::Replay => (StatusCode::CONFLICT, "replay_read_only"),
            SessionError::NotRecording => (StatusCode::CONFLICT, "not_recording"),
            SessionError::BadMarker(_) => (StatusCode::BAD_REQUEST, "bad_marker"),
            SessionError::NodeUnreachable => {
                (StatusCode::SERVICE_UNAVAILABLE, "cluster_unavailable")
            }
        };
        ApiError::new(status, code, err.to_string())
    }
}

impl From<CreateError> for ApiError {
    fn from(err: CreateError) -> ApiError {
        let (status, code) = match err {
            CreateError::TooMany(_) | CreateError::NoUid(_) => {
                (StatusCode::TOO_MANY_REQUESTS, "too_many_sessions")
            }
            CreateError::TooManyReplays(_) | CreateError::TooManyReplaysForCredential(_) => {
                (StatusCode::TOO_MANY_REQUESTS, "too_many_replays")
            }
            CreateError::ShuttingDown | CreateError::Upgrading => {
                (StatusCode::SERVICE_UNAVAILABLE, "shutting_down")
            }
            CreateError::NameTaken(_) => (StatusCode::CONFLICT, "name_taken"),
            CreateError::Spawn(SpawnError {
                short_of: Some(shortage),
                ..
            }) => (StatusCode::SERVICE_UNAVAILABLE, short_of(shortage)),
            CreateError::Spawn(_) => (StatusCode::BAD_REQUEST, "spawn_failed"),
            CreateError::Record(_) => (StatusCode::INTERNAL_SERVER_ERROR, "recording_failed"),
            CreateError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
            CreateError::UnknownNode(_) => (StatusCode::NOT_FOUND, "node_not_found"),
            CreateError::ClusterUnavailable(_) => {
                (StatusCode::SERVICE_UNAVAILABLE, "cluster_unavailable")
            }
            CreateError::Refused { code, .. } => match code {
                RefusalKind::Full => (StatusCode::TOO_MANY_REQUESTS, "too_many_sessions"),
                RefusalKind::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "shutting_down"),
                RefusalKind::ShortOf(shortage) => {
                    (StatusCode::SERVICE_UNAVAILABLE, short_of(shortage))
                }
                RefusalKind::Spawn => (StatusCode::BAD_REQUEST, "spawn_failed"),
                RefusalKind::Record => (StatusCode::INTERNAL_SERVER_ERROR, "recording_failed"),
                RefusalKind::NameTaken => (StatusCode::CONFLICT, "name_taken"),
                RefusalKind::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
            },
        };
        ApiError::new(status, code, err.to_string())
    }
}

impl From<WaitError> for ApiError {
    fn from(err: WaitError) -> ApiError {
        let (status, code) = match err {
            WaitError::NoCondition => (StatusCode::BAD_REQUEST, "bad_wait"),
            WaitError::BadPattern(_) => (StatusCode::BAD_REQUEST, "bad_pattern"),
            WaitError::TimeoutTooLong { .. } => (StatusCode::BAD_REQUEST, "bad_timeout"),
            WaitError::TooMany(_) | WaitError::TooManyForCredential(_) => {
                (StatusCode::TOO_MANY_REQUESTS, "too_many_waits")
            }
            WaitError::TimedOut(_) => (StatusCode::REQUEST_TIMEOUT, "wait_timeout"),
            WaitError::Exited(_) => (StatusCode::CONFLICT, "session_exited"),
        };
        ApiError::new(status, code, err.to_string())
    }
}

/// The code of a create refused for want of `shortage`.
fn short_of(shortage: Shortage) -> &'static str {
    match shortage {
        Shortage::Descriptors => "short_of_descriptors",
        Shortage::Processes => "short_of_processes",
        Shortage::Terminals => "short_of_terminals",
    }
}

impl From<RecordError> for ApiError {
    fn from(err: RecordError) -> ApiError {
        let (status, code) = match err {
            RecordError::BadName(_) => (StatusCode::BAD_REQUEST, "bad_recording_name"),
            RecordError::NotFound(_) => (StatusCode::NOT_FOUND, "recording_not_found"),
            RecordError::Live(_) => (StatusCode::CONFLICT, "recording_live"),
            RecordError::Io(_) => (StatusCode::INTERNAL_SERVER_ERROR, "recording_io"),
        };
        ApiError::new(status, code, err.to_string())
    }
}

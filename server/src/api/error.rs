//! The one error type of the API: a stable machine-readable [`ErrorCode`]
//! (which carries the HTTP status) and a message, answered as
//! `{"error": message, "code": code}`.

use axum::extract::rejection::QueryRejection;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

pub use super::error_code::ErrorCode;
use super::origin_refusal::OriginRefusal;
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
    pub code: ErrorCode,
}

/// An error answered to a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// A stable code clients can match on; it decides the status.
    pub code: ErrorCode,
    /// A message for people.
    pub message: String,
}

impl ApiError {
    /// An error with `code`, answered with the code's status.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
        }
    }

    /// The HTTP status: the code's.
    pub fn status(&self) -> StatusCode {
        self.code.status()
    }

    /// 401: no valid token.
    pub fn unauthorized() -> ApiError {
        ApiError::new(
            ErrorCode::Unauthorized,
            "a valid credential is required: send the header 'Authorization: Bearer TOKEN'",
        )
    }

    /// 403: the credential's role does not allow it.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Forbidden, message)
    }

    /// 503: another node of the cluster, or NATS, cannot be reached.
    pub fn cluster_unavailable(reason: &str) -> ApiError {
        ApiError::new(
            ErrorCode::ClusterUnavailable,
            format!("the cluster cannot be reached: {reason}"),
        )
    }

    /// 404 for an unknown session id, or one outside the caller's scope:
    /// both echo what was asked, so neither tells the other apart.
    pub fn no_session(id: &str) -> ApiError {
        ApiError::new(
            ErrorCode::SessionNotFound,
            format!("no session with id or name '{id}'"),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let body = Json(ErrorBody {
            error: self.message,
            code: self.code,
        });
        let mut response = (status, body).into_response();
        if status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

impl From<QueryRejection> for ApiError {
    /// A query string that does not parse: `bad_query`, with axum's reason.
    fn from(rejection: QueryRejection) -> ApiError {
        ApiError::new(ErrorCode::BadQuery, rejection.body_text())
    }
}

impl From<OriginRefusal> for ApiError {
    fn from(refused: OriginRefusal) -> Self {
        ApiError::new(ErrorCode::OriginForbidden, refused.to_string())
    }
}

impl From<SessionError> for ApiError {
    fn from(err: SessionError) -> ApiError {
        let code = match err {
            SessionError::Exited => ErrorCode::SessionExited,
            SessionError::InputBusy => ErrorCode::InputBusy,
            SessionError::Resize(_) => ErrorCode::ResizeFailed,
            SessionError::BadSize(_) => ErrorCode::BadSize,
            SessionError::RateLimited => ErrorCode::InputRateLimited,
            SessionError::ReadsPaced => ErrorCode::ReadsPaced,
            SessionError::Replay => ErrorCode::ReplayReadOnly,
            SessionError::NotRecording => ErrorCode::NotRecording,
            SessionError::BadMarker(_) => ErrorCode::BadMarker,
            SessionError::NodeUnreachable => ErrorCode::ClusterUnavailable,
            SessionError::Denied(_) => ErrorCode::Forbidden,
        };
        ApiError::new(code, err.to_string())
    }
}

impl From<CreateError> for ApiError {
    fn from(err: CreateError) -> ApiError {
        let code = match err {
            CreateError::TooMany(_) | CreateError::NoUid(_) => ErrorCode::TooManySessions,
            CreateError::TooManyReplays(_) | CreateError::TooManyReplaysForCredential(_) => {
                ErrorCode::TooManyReplays
            }
            CreateError::ShuttingDown | CreateError::Upgrading => ErrorCode::ShuttingDown,
            CreateError::NameTaken(_) => ErrorCode::NameTaken,
            CreateError::Spawn(SpawnError {
                short_of: Some(shortage),
                ..
            }) => short_of(shortage),
            CreateError::Spawn(_) => ErrorCode::SpawnFailed,
            CreateError::Record(_) => ErrorCode::RecordingFailed,
            CreateError::Internal(_) => ErrorCode::Internal,
            CreateError::UnknownNode(_) => ErrorCode::NodeNotFound,
            CreateError::ClusterUnavailable(_) => ErrorCode::ClusterUnavailable,
            CreateError::Denied(_) => ErrorCode::Forbidden,
            CreateError::Refused { code, .. } => match code {
                RefusalKind::Full => ErrorCode::TooManySessions,
                RefusalKind::Unavailable => ErrorCode::ShuttingDown,
                RefusalKind::ShortOf(shortage) => short_of(shortage),
                RefusalKind::Spawn => ErrorCode::SpawnFailed,
                RefusalKind::Record => ErrorCode::RecordingFailed,
                RefusalKind::NameTaken => ErrorCode::NameTaken,
                RefusalKind::Denied => ErrorCode::Forbidden,
                RefusalKind::Internal => ErrorCode::Internal,
            },
        };
        ApiError::new(code, err.to_string())
    }
}

impl From<WaitError> for ApiError {
    fn from(err: WaitError) -> ApiError {
        let code = match err {
            WaitError::NoCondition => ErrorCode::BadWait,
            WaitError::BadPattern(_) => ErrorCode::BadPattern,
            WaitError::TimeoutTooLong { .. } => ErrorCode::BadTimeout,
            WaitError::TooMany(_) | WaitError::TooManyForCredential(_) => ErrorCode::TooManyWaits,
            WaitError::TimedOut(_) => ErrorCode::WaitTimeout,
            WaitError::Exited(_) => ErrorCode::SessionExited,
        };
        ApiError::new(code, err.to_string())
    }
}

/// The code of a create refused for want of `shortage`.
fn short_of(shortage: Shortage) -> ErrorCode {
    match shortage {
        Shortage::Descriptors => ErrorCode::ShortOfDescriptors,
        Shortage::Processes => ErrorCode::ShortOfProcesses,
        Shortage::Terminals => ErrorCode::ShortOfTerminals,
    }
}

impl From<RecordError> for ApiError {
    fn from(err: RecordError) -> ApiError {
        let code = match err {
            RecordError::BadName(_) => ErrorCode::BadRecordingName,
            RecordError::NotFound(_) => ErrorCode::RecordingNotFound,
            RecordError::Live(_) => ErrorCode::RecordingLive,
            RecordError::Io(_) => ErrorCode::RecordingIo,
        };
        ApiError::new(code, err.to_string())
    }
}

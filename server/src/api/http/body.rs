//! The JSON body extractor: reads the body within the size limit (413 past
//! it) and parses it whatever the content type says, so `curl -d` works;
//! malformed JSON or unknown fields are a 400 that says what is wrong. An
//! empty body counts as `{}`.

use crate::api::error::ErrorCode;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use crate::api::error::ApiError;

/// A request body parsed as JSON into `T`.
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(ErrorCode::BodyTooLarge, "the request body is too large")
            } else {
                ApiError::new(ErrorCode::BadBody, rejection.body_text())
            }
        })?;
        // An empty body stands for `{}`, so `curl -X POST` creates a shell.
        let json: &[u8] = if bytes.trim_ascii().is_empty() {
            b"{}"
        } else {
            &bytes
        };
        serde_json::from_slice(json)
            .map(JsonBody)
            .map_err(|e| ApiError::new(ErrorCode::BadJson, format!("invalid JSON body: {e}")))
    }
}

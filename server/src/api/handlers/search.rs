//! `GET /api/sessions/{id}/search?q=&regex=0|1&case=0|1&limit=N`: matches of a
//! pattern in a session's scrollback and screen (see [`crate::session::search`]).

use crate::api::error::ErrorCode;
use axum::extract::rejection::QueryRejection;
use axum::extract::Query;
use axum::{Extension, Json};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::session::search::{Found, Pattern, MAX_MATCHES};
use crate::session::SessionHandle;

use crate::api::auth::caller::Caller;
use crate::api::error::{ApiError, ErrorBody};

/// Matches returned when the request names no limit.
const DEFAULT_LIMIT: usize = 100;

/// The query string.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// The pattern.
    q: String,
    /// `1`: `q` is a regular expression; `0` (default): plain text.
    regex: Option<u8>,
    /// `1`: match case; `0` (default): ignore it.
    case: Option<u8>,
    /// The most matches to answer (default 100).
    limit: Option<usize>,
}

/// A `0|1` flag, default off.
fn flag(value: Option<u8>, name: &str) -> Result<bool, ApiError> {
    match value {
        None | Some(0) => Ok(false),
        Some(1) => Ok(true),
        Some(_) => Err(ApiError::new(
            ErrorCode::BadQuery,
            format!("{name} must be 0 or 1"),
        )),
    }
}

/// The handler: 200 with [`Found`], 400 for a bad pattern or limit.
#[utoipa::path(
    get,
    path = "/api/sessions/{id}/search",
    params(("id" = String, Path, description = "The session's id or name"), SearchQuery),
    responses(
        (status = 200, description = "The matches", body = Found),
        (status = 400, description = "bad_query, bad_limit, bad_pattern", body = ErrorBody),
        (status = 429, description = "reads_paced: this credential's (or this connection's) searches and scrollback reads took their share of the session", body = ErrorBody),
    )
)]
pub async fn search(
    caller: Caller,
    Extension(session): Extension<SessionHandle>,
    query: Result<Query<SearchQuery>, QueryRejection>,
) -> Result<Json<Found>, ApiError> {
    let Query(query) = query?;
    let pattern = (
        query.q.as_str(),
        flag(query.regex, "regex")?,
        flag(query.case, "case")?,
    );
    Ok(Json(run(&caller, &session, pattern, query.limit).await?))
}

/// The first `limit` (default 100, at most [`MAX_MATCHES`]) matches of
/// `(pattern, regex, case)` in `session`, paced as `caller`'s reads:
/// 400 `bad_limit` or `bad_pattern`, 429 `reads_paced`.
pub(in crate::api) async fn run(
    caller: &Caller,
    session: &SessionHandle,
    (pattern, regex, case): (&str, bool, bool),
    limit: Option<usize>,
) -> Result<Found, ApiError> {
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_MATCHES).contains(&limit) {
        return Err(ApiError::new(
            ErrorCode::BadLimit,
            format!("limit must be in 1..={MAX_MATCHES}"),
        ));
    }
    let pattern = Pattern::new(pattern, regex, case)
        .map_err(|e| ApiError::new(ErrorCode::BadPattern, e.to_string()))?;
    Ok(session.search(pattern, limit, &caller.reader()).await?)
}

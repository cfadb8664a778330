//! Share links over HTTP: `POST|GET /api/sessions/{id}/links`,
//! `DELETE /api/sessions/{id}/links/{link_id}` (admins), and
//! `POST /api/sessions/{id}/login`, which trades the credential the page
//! holds (a link's token from the URL fragment) for a cookie scoped to
//! that session's API paths.

use crate::api::error::ErrorCode;
use std::time::{Duration, SystemTime};

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};

use crate::access::{LinkError, LinkInfo, Role};
use crate::session::SessionHandle;

use crate::api::audit;
use crate::api::auth::caller::Caller;
use crate::api::error::{ApiError, ErrorBody};
use crate::api::http::body::JsonBody;
use crate::api::http::cookies;
use crate::api::state::AppState;
use crate::time::rfc3339;

/// The body of `POST /api/sessions/{id}/links`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MintRequest {
    /// `view` (default) or `control`.
    role: Option<Role>,
    /// Lifetime in seconds; default `limits.link_ttl_secs`.
    ttl: Option<u64>,
    /// What the people who open it are called in the session's room (1 to
    /// 64 bytes, no control characters); without one they are shown as
    /// an unnamed link.
    label: Option<String>,
}

/// A link as the API shows it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct LinkView {
    /// Its id (used to revoke it).
    id: String,
    /// `view` or `control`.
    role: Role,
    /// Its label, if it was given one.
    label: Option<String>,
    /// When it was minted, RFC 3339 UTC.
    created_at: String,
    /// When it stops working, RFC 3339 UTC.
    expires_at: String,
    /// Streams open with it now.
    viewers: usize,
    /// The token: only in the answer to the mint, never listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<String>,
    /// The page to open (the token travels in the fragment): only in the
    /// answer to the mint.
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

impl LinkView {
    fn of(info: &LinkInfo) -> LinkView {
        LinkView {
            id: info.id.clone(),
            role: info.role,
            label: info.label.clone(),
            created_at: rfc3339(info.created_at),
            expires_at: rfc3339(info.expires_at),
            viewers: info.viewers,
            token: None,
            url: None,
        }
    }
}

/// The answer of `GET /api/sessions/{id}/links`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct LinkList {
    /// The live links, without their tokens.
    links: Vec<LinkView>,
}

/// `POST /api/sessions/{id}/links`: 201 with the link, its token and URL.
#[utoipa::path(
    post,
    path = "/api/sessions/{id}/links",
    params(("id" = String, Path, description = "The session's id or name")),
    request_body = MintRequest,
    responses(
        (status = 201, description = "The link, with its token and URL", body = LinkView),
        (status = 400, description = "bad_json, bad_body, bad_role, bad_ttl, bad_label", body = ErrorBody),
        (status = 413, description = "body_too_large", body = ErrorBody),
        (status = 429, description = "too_many_links", body = ErrorBody),
        (status = 500, description = "internal", body = ErrorBody),
    )
)]
pub async fn mint(
    State(state): State<AppState>,
    caller: Caller,
    Extension(session): Extension<SessionHandle>,
    headers: HeaderMap,
    JsonBody(request): JsonBody<MintRequest>,
) -> Result<Response, ApiError> {
    let role = request.role.unwrap_or(Role::View);
    let ttl = Duration::from_secs(request.ttl.unwrap_or(state.config.limits.link_ttl_secs));
    let (info, token) = state
        .access
        .links()
        .mint(session.id(), role, ttl, request.label)
        .map_err(|e| match e {
            LinkError::BadRole => ApiError::new(ErrorCode::BadRole, e.to_string()),
            LinkError::BadTtl(_) => ApiError::new(ErrorCode::BadTtl, e.to_string()),
            LinkError::BadLabel => ApiError::new(ErrorCode::BadLabel, e.to_string()),
            LinkError::TooMany(_) => ApiError::new(ErrorCode::TooManyLinks, e.to_string()),
            LinkError::Random(_) => ApiError::new(ErrorCode::Internal, e.to_string()),
        })?;
    audit::link_minted(
        caller.peer(),
        caller.grant().credential(),
        session.id(),
        &info.id,
        role,
    );
    let page = format!("/s/{}", session.id());
    let origin = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|host| {
            format!(
                "{}://{host}",
                if caller.secure() { "https" } else { "http" }
            )
        })
        .unwrap_or_default();
    let mut view = LinkView::of(&info);
    view.url = Some(format!("{origin}{page}#t={token}"));
    view.token = Some(token);
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

/// `GET /api/sessions/{id}/links`: the live links, without their tokens.
#[utoipa::path(
    get,
    path = "/api/sessions/{id}/links",
    params(("id" = String, Path, description = "The session's id or name")),
    responses((status = 200, description = "The live links", body = LinkList))
)]
pub async fn list(
    State(state): State<AppState>,
    Extension(session): Extension<SessionHandle>,
) -> Json<LinkList> {
    let links: Vec<LinkView> = state
        .access
        .links()
        .list(session.id())
        .iter()
        .map(LinkView::of)
        .collect();
    Json(LinkList { links })
}

/// `DELETE /api/sessions/{id}/links/{link_id}`: revokes the link; every
/// stream opened with it closes with code 4003 within a second.
#[utoipa::path(
    delete,
    path = "/api/sessions/{id}/links/{link_id}",
    params(
        ("id" = String, Path, description = "The session's id or name"),
        ("link_id" = String, Path, description = "The link's id"),
    ),
    responses(
        (status = 204, description = "Revoked"),
        (status = 404, description = "link_not_found", body = ErrorBody),
    )
)]
pub async fn revoke(
    State(state): State<AppState>,
    caller: Caller,
    Extension(session): Extension<SessionHandle>,
    Path((_, link_id)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    state
        .access
        .links()
        .revoke(session.id(), &link_id)
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::LinkNotFound,
                format!("no live link '{link_id}' on this session"),
            )
        })?;
    audit::link_revoked(
        caller.peer(),
        caller.grant().credential(),
        session.id(),
        &link_id,
    );
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/sessions/{id}/login`: sets the `panecast_link` cookie (for a
/// link) scoped to this session's API paths, lasting as long as the link,
/// so a reload needs no token. The cookie holds exactly the link token the
/// guard checked (from the `Authorization` header or the subprotocol);
/// a request authenticated by its cookie, or by another credential, gets
/// no cookie.
#[utoipa::path(
    post,
    path = "/api/sessions/{id}/login",
    params(("id" = String, Path, description = "The session's id or name")),
    responses(
        (status = 204, description = "Done; for a share link's token, with the cookie",
            headers(("Set-Cookie" = String, description = "panecast_link, for a share link"))),
        (status = 400, description = "bad_path", body = ErrorBody),
    )
)]
pub async fn login(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let Some(ticket) = caller.grant().link_ticket() else {
        return Ok(StatusCode::NO_CONTENT.into_response());
    };
    let Some(token) = caller.link_token() else {
        return Ok(StatusCode::NO_CONTENT.into_response());
    };
    let remaining = ticket
        .expires_at
        .duration_since(SystemTime::now())
        .unwrap_or_default()
        .as_secs()
        .min(state.config.limits.cookie_max_age_secs);
    let path = format!("{}/api/sessions/{id}", state.config.base_path);
    let cookie =
        cookies::set(cookies::LINK, token, &path, remaining, caller.secure()).ok_or_else(|| {
            ApiError::new(ErrorCode::BadPath, "the session id cannot be a cookie path")
        })?;
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, cookie)]).into_response())
}

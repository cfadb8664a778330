//! The web client: `/` (sessions), `/s/{id}` (a terminal), `/r/{name}`
//! (a recording played back), `/embed/{id}`
//! (a bare terminal for iframes) and its modules under `/web/NAME`, all
//! compiled into the binary. The pages hold no secret and need no
//! credential: they fetch everything through the API. `?token=` on a page
//! is traded for a cookie and dropped from the URL by a redirect.
//! `GET /api/profiles` lists what `/` can start.

use crate::api::error::ErrorCode;
use axum::extract::{FromRef, OriginalUri, Path, RawQuery, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::Json;

use crate::access::Credential;
use crate::api::auth::auth_state::AuthState;
use crate::api::auth::caller::Caller;
use crate::api::auth::signin;
use crate::api::error::{ApiError, ErrorBody};
use crate::api::http::cookies;
use crate::api::http::origin::peer_of;
use crate::api::http::served;
use crate::api::state::AppState;
use crate::assets::asset;

/// Answers a compiled-in file (see [`served`] for its coding, ETag and
/// caching; `version` is the `?v=` of its URL); scripts may be loaded from
/// other origins (for the `<panecast-terminal>` element).
fn file(name: &str, headers: &HeaderMap, version: Option<&str>) -> Result<Response, ApiError> {
    let asset = asset(name)
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no file '{name}'")))?;
    let mut response = served::respond(asset, headers, version);
    if !name.ends_with(".html") {
        response.headers_mut().insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
    }
    Ok(response)
}

/// A page: `?token=` in its URL becomes a cookie, by a redirect to the
/// same URL without it, so the token leaves the address bar and history;
/// unless that would replace the visitor's own credential from a link on
/// another site (see [`replaces_from_elsewhere`]): then the redirect sets
/// nothing.
fn page(state: &AppState, request: &Request, name: &str) -> Result<Response, ApiError> {
    let Some(token) = query_token(request.uri()) else {
        return file(name, request.headers(), None);
    };
    let (peer, secure) = peer_of(state.trusted(), request);
    let auth = AuthState::from_ref(state);
    if let Some(refused) = signin::refusal(&auth, peer) {
        return Ok(refused);
    }
    let Some(grant) = state
        .access
        .authenticate(&token)
        .filter(|g| !matches!(g.credential(), Credential::Link(_)))
    else {
        signin::failed(&auth, peer);
        return Err(ApiError::unauthorized());
    };
    let max_age = state.config.limits.cookie_max_age_secs;
    let path = format!("{}/", state.config.base_path);
    let cookie = cookies::set(cookies::TOKEN, &token, &path, max_age, secure)
        .ok_or_else(|| ApiError::new(ErrorCode::BadToken, "the token cannot be a cookie"))?;
    // Under a base path the routes see the URI without the prefix; the
    // redirect needs the one the browser asked for.
    let asked = request
        .extensions()
        .get::<OriginalUri>()
        .map_or(request.uri(), |original| &original.0);
    let target = without_token(asked);
    if replaces_from_elsewhere(state, request.headers(), grant.credential()) {
        tracing::info!(
            credential = %grant.credential(),
            %peer,
            "a ?token= from another site did not replace the visitor's credential"
        );
        return Ok(Redirect::to(&target).into_response());
    }
    tracing::debug!(credential = %grant.credential(), "page token traded for a cookie");
    Ok(([(header::SET_COOKIE, cookie)], Redirect::to(&target)).into_response())
}

/// Login CSRF: true when trading would replace the visitor's own valid
/// credential cookie with another credential and the navigation did not
/// start on this server or in the address bar (`Sec-Fetch-Site` other
/// than `same-origin` or `none`, or absent). A page on another site could
/// otherwise sign the visitor in as its author. A visitor with no valid
/// cookie (a first sign-in from a link in a chat or a mail) is signed in.
fn replaces_from_elsewhere(state: &AppState, headers: &HeaderMap, new: &Credential) -> bool {
    let started_here = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("same-origin") || v.eq_ignore_ascii_case("none"));
    !started_here
        && cookies::read(headers, cookies::TOKEN)
            .filter_map(|held| state.access.authenticate(held))
            .any(|held| held.credential() != new)
}

fn query_token(uri: &Uri) -> Option<String> {
    uri.query()?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, _)| *name == "token")
        .map(|(_, value)| value.to_owned())
}

fn without_token(uri: &Uri) -> String {
    let rest: Vec<&str> = uri
        .query()
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty() && !pair.starts_with("token="))
        .collect();
    if rest.is_empty() {
        uri.path().to_owned()
    } else {
        format!("{}?{}", uri.path(), rest.join("&"))
    }
}

/// What every page route (`/`, `/s/{id}`, `/r/{name}`, `/embed/{id}`)
/// answers, for the OpenAPI document.
#[derive(utoipa::IntoResponses)]
// Never built: it only describes the answers `page` gives.
#[allow(dead_code)]
enum PageResponses {
    /// The page (compressed as `Accept-Encoding` asks, with a strong ETag; `Cache-Control: no-cache`)
    #[response(status = 200, content_type = "text/html")]
    Page(String),
    /// Not modified: the `If-None-Match` ETag is the page's
    #[response(status = 304)]
    NotModified,
    /// A `token` in the query became a cookie (not when a link from another site would replace the visitor's own credential); back to the same URL without it
    #[response(status = 303, headers(("Set-Cookie" = String), ("Location" = String)))]
    Redirect,
    /// bad_token
    #[response(status = 400)]
    BadToken(ErrorBody),
    /// unauthorized: the query's token is not valid
    #[response(status = 401)]
    Unauthorized(ErrorBody),
    /// too_many_auth_failures: this address presented too many wrong credentials this minute
    #[response(status = 429)]
    TooManyFailures(ErrorBody),
}

/// `GET /`: the session list.
#[utoipa::path(
    get,
    path = "/",
    params(("token" = Option<String>, Query, description = "A credential to trade for a cookie")),
    responses(PageResponses),
    security(())
)]
pub async fn index(State(state): State<AppState>, request: Request) -> Result<Response, ApiError> {
    match crate::api::auth::oidc::web::bar(&AuthState::from_ref(&state), request.headers()) {
        Some(bar) if query_token(request.uri()).is_none() => {
            // With `[auth.oidc]`: who is signed in, rendered here (web/ stays
            // small). The page is this visitor's: sent as it is, never
            // stored by others, and not validated (no ETag).
            let html = asset("index.html").map_or_else(String::new, |asset| {
                String::from_utf8_lossy(asset.identity).replacen(
                    "<h1>panecast</h1>",
                    &format!("<h1>panecast</h1>\n{bar}"),
                    1,
                )
            });
            Ok((
                [
                    (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                    (header::CACHE_CONTROL, "private, no-cache"),
                    (header::VARY, "Accept-Encoding, Cookie"),
                ],
                html,
            )
                .into_response())
        }
        _ => page(&state, &request, "index.html"),
    }
}

/// `GET /s/{id}`: a full-window terminal.
#[utoipa::path(
    get,
    path = "/s/{id}",
    params(("id" = String, Path, description = "The session's id or name"), ("token" = Option<String>, Query, description = "A credential to trade for a cookie")),
    responses(PageResponses),
    security(())
)]
pub async fn terminal(
    State(state): State<AppState>,
    Path(_id): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    page(&state, &request, "terminal.html")
}

/// `GET /r/{name}`: a recording played in the terminal, with controls.
#[utoipa::path(
    get,
    path = "/r/{name}",
    params(("name" = String, Path, description = "The recording's name"), ("token" = Option<String>, Query, description = "A credential to trade for a cookie")),
    responses(PageResponses),
    security(())
)]
pub async fn replay(
    State(state): State<AppState>,
    Path(_name): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    page(&state, &request, "replay.html")
}

/// `GET /embed/{id}`: a bare terminal for iframes.
#[utoipa::path(
    get,
    path = "/embed/{id}",
    params(("id" = String, Path, description = "The session's id or name"), ("token" = Option<String>, Query, description = "A credential to trade for a cookie")),
    responses(PageResponses),
    security(())
)]
pub async fn embed(
    State(state): State<AppState>,
    Path(_id): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    page(&state, &request, "embed.html")
}

/// `GET /web/{name}`: a module or other file of the client (no token needed:
/// it is the same for everyone). At `?v=` its current version (as the
/// pages ask for their bundles) it may be cached for good.
#[utoipa::path(
    get,
    path = "/web/{name}",
    params(
        ("name" = String, Path, description = "The file's name"),
        ("v" = Option<String>, Query, description = "The file's version, as the pages give it for their bundles: at the current one the answer is `Cache-Control: public, max-age=31536000, immutable`, else `no-cache`"),
        ("Accept-Encoding" = Option<String>, Header, description = "`br` and `gzip` are sent when smaller (brotli first at equal q-values)"),
        ("If-None-Match" = Option<String>, Header, description = "An ETag this answer sent: 304 while the file is the same"),
    ),
    responses(
        (status = 200, description = "The file",
            headers(("ETag" = String, description = "Strong, one for each content coding"), ("Cache-Control" = String), ("Vary" = String), ("Content-Encoding" = Option<String>)),
            content((String = "text/javascript"), (String = "text/html"), (String = "text/css"), (String = "image/svg+xml"), (String = "application/octet-stream"))),
        (status = 304, description = "Not modified: the If-None-Match ETag is the file's",
            headers(("ETag" = String), ("Cache-Control" = String), ("Vary" = String))),
        (status = 404, description = "not_found", body = ErrorBody),
    ),
    security(())
)]
pub async fn web_file(
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let version = query
        .as_deref()
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("v="));
    file(&name, &headers, version)
}

/// `GET /api/profiles`: the profiles the caller may start sessions from.
#[utoipa::path(
    get,
    path = "/api/profiles",
    responses((status = 200, description = "The profiles' names", body = Vec<String>))
)]
pub async fn profiles(State(state): State<AppState>, caller: Caller) -> Json<Vec<String>> {
    Json(
        state
            .config
            .profiles
            .keys()
            .filter(|p| caller.grant().may_start(Some(p)).is_ok())
            .cloned()
            .collect(),
    )
}

/// Headers on every answer: no framing (clickjacking) except `/embed/`,
/// which the origins in `embed_ancestors` may frame; no sniffing; no
/// `Referer` leaving the server.
pub async fn security_headers(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let embed = request.uri().path().starts_with("/embed/");
    let mut response = next.run(request).await;
    let ancestors = if embed && !state.config.embed_ancestors.is_empty() {
        state.config.embed_ancestors.join(" ")
    } else {
        "'none'".to_owned()
    };
    let headers = response.headers_mut();
    if let Ok(csp) = HeaderValue::from_str(&format!("frame-ancestors {ancestors}")) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    if !embed {
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_leaves_the_url() {
        let uri: Uri = "/s/abc?role=view&token=T&fit=scale".parse().expect("uri");
        assert_eq!(query_token(&uri).as_deref(), Some("T"));
        assert_eq!(without_token(&uri), "/s/abc?role=view&fit=scale");
        let uri: Uri = "/?token=T".parse().expect("uri");
        assert_eq!(without_token(&uri), "/");
        assert_eq!(query_token(&"/".parse().expect("uri")), None);
    }
}

//! Sign-in at the OpenID provider of `[auth.oidc]`: `GET /auth/login`
//! sends the browser to the provider, `GET /auth/callback` takes it back
//! and sets the `panecast_signin` cookie, `POST /auth/logout` ends it (and
//! sends the browser to the provider's end-session endpoint when it has
//! one). The guard reads the cookie with [`signed_in`]: the person is a
//! `user:NAME` whom `[[auth.rules]]` give a role, as for a trusted proxy.
//!
//! Refusals are HTML pages for a browser (`Accept: text/html`) and the
//! JSON error body otherwise, with the same status and code.

use crate::api::error::ErrorCode;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;

use crate::access::Grant;
use crate::api::audit;
use crate::api::auth::auth_state::AuthState;
use crate::api::auth::oidc::{FlowError, PENDING_SECS};
use crate::api::error::{ApiError, ErrorBody};
use crate::api::http::cookies;
use crate::api::http::origin::{origin_allowed, peer_of};

/// Who the `panecast_signin` cookie says signed in.
pub enum SignedIn {
    /// No cookie, or no `[auth.oidc]`.
    Absent,
    /// A cookie that is forged, expired or ended by a logout.
    Invalid,
    /// A person no rule gives a role.
    NoRule(String),
    /// A person, and the grant a rule gives them.
    Person(Grant),
}

/// Who signed in at the provider, as the request's cookie says.
pub fn signed_in(state: &AuthState, headers: &HeaderMap) -> SignedIn {
    let Some(signin) = &state.signin else {
        return SignedIn::Absent;
    };
    let mut values = cookies::read(headers, cookies::SIGNIN).peekable();
    if values.peek().is_none() {
        return SignedIn::Absent;
    }
    let Some(person) = values.find_map(|value| signin.person(value)) else {
        return SignedIn::Invalid;
    };
    let groups: Vec<&str> = person.groups.iter().map(String::as_str).collect();
    match state.access.people().grant(&person.user, &groups) {
        Some(grant) => SignedIn::Person(grant),
        None => SignedIn::NoRule(person.user),
    }
}

/// The parameters the provider sends back.
#[derive(Debug, Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /auth/login`: to the provider, with a new sign-in under way.
#[utoipa::path(
    get,
    path = "/auth/login",
    responses(
        (status = 303, description = "To the provider's authorization endpoint; sets the panecast_signin_pending cookie (HttpOnly, SameSite=Lax, 10 minutes)", headers(("Set-Cookie" = String), ("Location" = String))),
        (status = 400, description = "bad_host: no redirect_url configured and no Host to make one from", body = ErrorBody),
        (status = 404, description = "signin_not_configured: no [auth.oidc]", body = ErrorBody),
        (status = 503, description = "provider_unavailable: the provider's discovery document cannot be read", body = ErrorBody),
    ),
    security(())
)]
pub async fn login(State(state): State<AuthState>, request: Request) -> Response {
    let html = wants_html(request.headers());
    let (peer, secure) = peer_of(&state.trusted, &request);
    let Some(signin) = &state.signin else {
        return refusal(&state, html, not_configured());
    };
    let redirect = match signin.redirect_url() {
        Some(url) => url.to_owned(),
        None => {
            let Some(host) = request
                .headers()
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
            else {
                return refusal(&state, html, ApiError::new(ErrorCode::BadHost, "no Host"));
            };
            let scheme = if secure { "https" } else { "http" };
            format!("{scheme}://{host}{}/auth/callback", state.config.base_path)
        }
    };
    match signin.start(&redirect).await {
        Ok((url, pending)) => {
            let cookie = cookies::set_same_site(
                cookies::SIGNIN_PENDING,
                &pending,
                &auth_path(&state),
                PENDING_SECS,
                secure,
                "Lax",
            );
            let mut response = Redirect::to(&url).into_response();
            if let Some(cookie) = cookie {
                response.headers_mut().insert(header::SET_COOKIE, cookie);
            }
            response
        }
        Err(error) => {
            audit::signin_refused(peer, None, "provider_unavailable", &error.to_string());
            refusal(&state, html, flow_error(error))
        }
    }
}

/// `GET /auth/callback`: back from the provider; the code traded, the ID
/// token verified, the person signed in.
#[utoipa::path(
    get,
    path = "/auth/callback",
    params(
        ("code" = Option<String>, Query, description = "The authorization code"),
        ("state" = Option<String>, Query, description = "The state sent to the provider"),
        ("error" = Option<String>, Query, description = "The provider's error (access_denied)"),
    ),
    responses(
        (status = 303, description = "Signed in: sets the panecast_signin cookie; to the session list", headers(("Set-Cookie" = String), ("Location" = String))),
        (status = 400, description = "bad_state: no sign-in under way in this browser, or another one's state; signin_failed: the provider refused the code", body = ErrorBody),
        (status = 401, description = "bad_id_token: the ID token fails its verification (signature, issuer, audience, expiry, nonce) or names no one", body = ErrorBody),
        (status = 403, description = "signin_denied: the sign-in was denied at the provider; no_rule: no rule of [auth] gives the person a role", body = ErrorBody),
        (status = 404, description = "signin_not_configured: no [auth.oidc]", body = ErrorBody),
        (status = 500, description = "internal: the sign-in cookie cannot be set", body = ErrorBody),
        (status = 503, description = "provider_unavailable: the provider cannot be reached", body = ErrorBody),
    ),
    security(())
)]
pub async fn callback(
    State(state): State<AuthState>,
    query: Result<Query<CallbackQuery>, QueryRejection>,
    request: Request,
) -> Response {
    let html = wants_html(request.headers());
    let (peer, secure) = peer_of(&state.trusted, &request);
    let mut response = finish(&state, query, request.headers(), peer, html, secure).await;
    // The sign-in under way is used once, whatever came of it.
    if let Some(clear) = cookies::set_same_site(
        cookies::SIGNIN_PENDING,
        "",
        &auth_path(&state),
        0,
        secure,
        "Lax",
    ) {
        response.headers_mut().append(header::SET_COOKIE, clear);
    }
    response
}

/// The callback's checks and the sign-in, in order (see [`callback`]).
async fn finish(
    state: &AuthState,
    query: Result<Query<CallbackQuery>, QueryRejection>,
    headers: &HeaderMap,
    peer: std::net::IpAddr,
    html: bool,
    secure: bool,
) -> Response {
    let Some(signin) = &state.signin else {
        return refusal(state, html, not_configured());
    };
    let bad_state = |reason: &str| {
        audit::signin_refused(peer, None, "bad_state", reason);
        let message = format!("{reason}: sign in again");
        refusal(state, html, ApiError::new(ErrorCode::BadState, message))
    };
    let Ok(Query(query)) = query else {
        return bad_state("the callback's parameters cannot be read");
    };
    let pending =
        cookies::read(headers, cookies::SIGNIN_PENDING).find_map(|value| signin.pending(value));
    let Some(pending) = pending else {
        return bad_state("no sign-in is under way in this browser (or it took over 10 minutes)");
    };
    if !query.state.as_deref().is_some_and(|s| pending.state_is(s)) {
        return bad_state("the state is not the one this sign-in sent");
    }
    if let Some(error) = &query.error {
        let said = query.error_description.as_deref().unwrap_or_default();
        audit::signin_refused(peer, None, "signin_denied", &format!("{error} {said}"));
        let message = format!("the sign-in was not completed at the provider ({error}: {said})");
        let error = ApiError::new(ErrorCode::SigninDenied, message);
        return refusal(state, html, error);
    }
    let Some(code) = query.code else {
        return bad_state("the provider sent no code");
    };
    let person = match signin.finish(pending, code).await {
        Ok(person) => person,
        Err(error) => {
            let api = flow_error(error);
            audit::signin_refused(peer, None, api.code.as_str(), &api.message);
            return refusal(state, html, api);
        }
    };
    let people = state.access.people();
    let person = crate::api::auth::oidc::Person {
        groups: people.named_groups(&person.groups),
        ..person
    };
    let groups: Vec<&str> = person.groups.iter().map(String::as_str).collect();
    if people.grant(&person.user, &groups).is_none() {
        audit::signin_refused(peer, Some(&person.user), "no_rule", "no rule names them");
        return refusal(state, html, no_rule(&person.user));
    }
    let max_age = state.config.limits.cookie_max_age_secs;
    let sealed = signin.seal_person(&person, max_age);
    let home = format!("{}/", state.config.base_path);
    let Some(cookie) = cookies::set(cookies::SIGNIN, &sealed, &home, max_age, secure) else {
        let error = ApiError::new(ErrorCode::Internal, "the sign-in cookie cannot be set");
        return refusal(state, html, error);
    };
    audit::signed_in(peer, &person.user, &person.groups);
    ([(header::SET_COOKIE, cookie)], Redirect::to(&home)).into_response()
}

/// `POST /auth/logout`: ends the sign-in (its cookie stops working on
/// this server at once) and clears the cookie.
#[utoipa::path(
    post,
    path = "/auth/logout",
    responses(
        (status = 303, description = "Signed out: clears the panecast_signin cookie; to the provider's end-session endpoint when it has one, else to the session list", headers(("Set-Cookie" = String), ("Location" = String))),
        (status = 403, description = "csrf: not sent from this server's pages (Origin, Sec-Fetch-Site)", body = ErrorBody),
        (status = 404, description = "signin_not_configured: no [auth.oidc]", body = ErrorBody),
    ),
    security(())
)]
pub async fn logout(State(state): State<AuthState>, request: Request) -> Response {
    let html = wants_html(request.headers());
    let (peer, secure) = peer_of(&state.trusted, &request);
    let Some(signin) = &state.signin else {
        return refusal(&state, html, not_configured());
    };
    if !same_origin(request.headers(), &state.config.allowed_origins, secure) {
        let message = "a logout must come from this server's pages (Origin or Sec-Fetch-Site)";
        let error = ApiError::new(ErrorCode::Csrf, message);
        return refusal(&state, html, error);
    }
    let max_age = state.config.limits.cookie_max_age_secs;
    for person in cookies::read(request.headers(), cookies::SIGNIN).filter_map(|v| signin.person(v))
    {
        signin.end(&person, max_age);
        audit::signed_out(peer, &person.user);
    }
    let home = format!("{}/", state.config.base_path);
    let target = signin.end_session_url().await.unwrap_or(home.clone());
    let mut response = Redirect::to(&target).into_response();
    if let Some(clear) = cookies::set(cookies::SIGNIN, "", &home, 0, secure) {
        response.headers_mut().insert(header::SET_COOKIE, clear);
    }
    response
}

/// The sign-in bar of the session list: who is signed in and a button to
/// sign out, or a link to sign in; none without `[auth.oidc]`.
pub fn bar(state: &AuthState, headers: &HeaderMap) -> Option<String> {
    let signin = state.signin.as_ref()?;
    let person = cookies::read(headers, cookies::SIGNIN).find_map(|v| signin.person(v));
    Some(match person {
        Some(person) => format!(
            "<form id=\"signout\" method=\"post\" action=\"auth/logout\">Signed in as <b id=\"user\">{}</b> <button>Sign out</button></form>",
            escape(&person.user)
        ),
        None => "<p id=\"signin\"><a href=\"auth/login\">Sign in</a></p>".to_owned(),
    })
}

/// The 403 of a person no rule gives a role (the guard's, too).
pub fn no_rule(user: &str) -> ApiError {
    ApiError::new(
        ErrorCode::NoRule,
        format!("you are signed in as '{user}', but no rule of [auth] gives you a role"),
    )
}

fn not_configured() -> ApiError {
    ApiError::new(
        ErrorCode::SigninNotConfigured,
        "this server has no [auth.oidc] sign-in",
    )
}

fn flow_error(error: FlowError) -> ApiError {
    let message = error.to_string();
    match error {
        FlowError::Unavailable(_) => ApiError::new(ErrorCode::ProviderUnavailable, message),
        FlowError::Refused(_) => ApiError::new(ErrorCode::SigninFailed, message),
        FlowError::BadIdToken(_) => ApiError::new(ErrorCode::BadIdToken, message),
    }
}

/// A request from this server's pages: its `Origin` says so, or (a form
/// of a page served with `Referrer-Policy: no-referrer` sends
/// `Origin: null`) the browser's `Sec-Fetch-Site`, which no page sets.
fn same_origin(headers: &HeaderMap, allowed: &[String], secure: bool) -> bool {
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    origin_allowed(headers, allowed, false, secure) || fetch_site == Some("same-origin")
}

/// The path of the `/auth/` routes, which the pending cookie is scoped to.
fn auth_path(state: &AuthState) -> String {
    format!("{}/auth/", state.config.base_path)
}

fn wants_html(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/html"))
}

/// `error` as a page for a browser, as the JSON body otherwise.
fn refusal(state: &AuthState, html: bool, error: ApiError) -> Response {
    if !html {
        return error.into_response();
    }
    let base = &state.config.base_path;
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sign-in refused · panecast</title></head>\
         <body><h1>Sign-in refused</h1><p id=\"message\">{}</p><p>Code: <code id=\"code\">{}</code></p>\
         <p><a href=\"{base}/auth/login\">Sign in</a> · <a href=\"{base}/\">Sessions</a></p></body></html>",
        escape(&error.message),
        error.code
    );
    let mut response = (error.status(), Html(page)).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Text for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_html() {
        assert_eq!(
            escape("<a href='x'>&\""),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"
        );
    }
}

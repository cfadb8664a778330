//! The guard in front of every route: the Host check (421, against DNS
//! rebinding), authentication (401), the CSRF check for cookie-borne
//! writes (403), and the access check of [`policy`](super::policy) on the
//! session the route names (404 outside the caller's scope, 403 beyond its
//! role). Handlers receive the [`Caller`] and, for session routes, the
//! [`SessionHandle`](crate::session::SessionHandle) as request extensions.
//!
//! A credential travels as `Authorization: Bearer T`, as the WebSocket
//! subprotocol `panecast.token.T` (browsers cannot set headers on a
//! WebSocket, and a URL would be logged), or in a cookie.

use crate::api::error::ErrorCode;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::connect_info::ConnectInfo;
use axum::extract::{MatchedPath, OriginalUri, RawPathParams, Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::RequestExt;

use crate::access::{person_name, Action, Denied, Grant, Role, Target};
use crate::session::SessionHandle;

use super::caller::Caller;
use super::caller::Checked;
use super::oidc::web::{self as oidc, SignedIn};
use super::policy;
use super::signin;
use crate::api::audit;
use crate::api::auth::auth_state::AuthState;
use crate::api::error::ApiError;
use crate::api::http::cookies;
use crate::api::http::origin::{check_origin, peer_of};

/// The WebSocket subprotocol every stream speaks.
pub const PROTOCOL: &str = panecast_proto::SUBPROTOCOL;
/// The prefix of the subprotocol that carries a credential.
pub const TOKEN_PROTOCOL: &str = panecast_proto::TOKEN_SUBPROTOCOL;

/// Where a credential came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Header,
    Protocol,
    Cookie,
    /// A trusted proxy's header: sent with every request the browser
    /// makes through the proxy, a cross-site one too, as a cookie is.
    Proxy,
    /// The cookie of a sign-in at the OpenID provider.
    SignIn,
}

impl Source {
    /// Whether the browser sends it by itself, so that a write needs the
    /// same-site checks.
    fn ambient(self) -> bool {
        matches!(self, Source::Cookie | Source::Proxy | Source::SignIn)
    }
}

/// What a trusted proxy's headers say about who signed in.
enum ProxyPerson {
    /// No `[auth.proxy]`, or no user header.
    Absent,
    /// The header came from a peer that is not a trusted proxy: ignored.
    Untrusted(String),
    /// A user name that is not one (empty, too long, control characters).
    Unnamed,
    /// A person no rule gives a role.
    NoRule(String),
    /// A person, and the grant a rule gives them.
    Person(Grant),
}

/// Who signed in, as `[auth.proxy]`'s headers say, believed only from a
/// trusted proxy with its proof (`socket` is the connection's own
/// address).
fn proxy_person(state: &AuthState, headers: &HeaderMap, socket: IpAddr) -> ProxyPerson {
    let Some(proxy) = &state.config.auth.proxy else {
        return ProxyPerson::Absent;
    };
    let Some(value) = headers.get(proxy.user_header.as_str()) else {
        return ProxyPerson::Absent;
    };
    if !state.trusted.vouches(socket, headers) {
        return ProxyPerson::Untrusted(proxy.user_header.clone());
    }
    let Some(user) = value.to_str().ok().and_then(person_name) else {
        return ProxyPerson::Unnamed;
    };
    let groups: Vec<&str> = proxy
        .groups_header
        .as_deref()
        .and_then(|name| headers.get(name))
        .and_then(|value| value.to_str().ok())
        .map(|value| value.split(',').filter_map(person_name).collect())
        .unwrap_or_default();
    match state.access.people().grant(user, &groups) {
        Some(grant) => ProxyPerson::Person(grant),
        None => ProxyPerson::NoRule(user.to_owned()),
    }
}

/// Requests whose `Host` names neither an IP address, `localhost`, a
/// configured public name, nor (through a trusted proxy) anything at all
/// are answered 421: a DNS-rebinding page cannot reach the API.
pub async fn check_host(State(state): State<AuthState>, request: Request, next: Next) -> Response {
    let socket = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let proxied = socket.is_some_and(|ip| state.trusted.vouches(ip, request.headers()));
    if proxied || host_allowed(request.headers(), &state.config.public_names) {
        return next.run(request).await;
    }
    let host = request
        .headers()
        .get(header::HOST)
        .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
        .unwrap_or_default();
    tracing::warn!(%host, fix = "add the name to public_names", "unknown_host");
    ApiError::new(
        ErrorCode::UnknownHost,
        format!(
            "this server does not answer to the host name '{host}'; add it to public_names \
             (or reach it through a proxy listed in trusted_proxies)"
        ),
    )
    .into_response()
}

fn host_allowed(headers: &HeaderMap, public_names: &[String]) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(v6) => {
            return v6
                .split_once(']')
                .is_some_and(|(a, _)| a.parse::<IpAddr>().is_ok())
        }
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name.parse::<IpAddr>().is_ok()
        || name == "localhost"
        || name.ends_with(".localhost")
        || public_names.iter().any(|p| p.eq_ignore_ascii_case(&name))
}

/// Every credential the request carries, in order of preference.
fn presented(headers: &HeaderMap) -> Vec<(Source, &str)> {
    let mut found = Vec::new();
    if let Some(value) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        if let Some((scheme, token)) = value.split_once(' ') {
            if scheme.eq_ignore_ascii_case("bearer") {
                found.push((Source::Header, token.trim()));
            }
        }
    }
    for value in headers.get_all(header::SEC_WEBSOCKET_PROTOCOL) {
        let Ok(value) = value.to_str() else { continue };
        for protocol in value.split(',') {
            if let Some(token) = protocol.trim().strip_prefix(TOKEN_PROTOCOL) {
                found.push((Source::Protocol, token));
            }
        }
    }
    for name in [cookies::TOKEN, cookies::LINK] {
        found.extend(cookies::read(headers, name).map(|t| (Source::Cookie, t)));
    }
    found
}

/// The guard of every `/api` route (see the module's documentation).
pub async fn guard(State(state): State<AuthState>, mut request: Request, next: Next) -> Response {
    let (peer, secure) = peer_of(&state.trusted, &request);
    let method = request.method().clone();
    // The full path (the nested router sees it without `/api`); never the query.
    let path = request
        .extensions()
        .get::<OriginalUri>()
        .map_or_else(|| request.uri().path().to_owned(), |u| u.path().to_owned());
    let signed_in = oidc::signed_in(&state, request.headers());
    let offered =
        !presented(request.headers()).is_empty() || !matches!(signed_in, SignedIn::Absent);
    if offered {
        if let Some(refused) = signin::refusal(&state, peer) {
            return refused;
        }
    }
    let mut grants: Vec<(Source, Checked, Grant)> = presented(request.headers())
        .into_iter()
        .filter_map(|(source, token)| {
            let grant = state.access.authenticate(token)?;
            Some((source, Checked(token.to_owned()), grant))
        })
        .filter(|(_, _, grant)| link_session_lives(&state, grant))
        .collect();
    let socket = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |c| c.0.ip());
    let mut no_rule = None;
    match signed_in {
        SignedIn::Person(grant) => grants.push((Source::SignIn, Checked(String::new()), grant)),
        SignedIn::NoRule(user) => no_rule = Some(user),
        SignedIn::Absent | SignedIn::Invalid => {}
    }
    match proxy_person(&state, request.headers(), socket) {
        ProxyPerson::Absent => {}
        ProxyPerson::Person(grant) => grants.push((Source::Proxy, Checked(String::new()), grant)),
        ProxyPerson::Untrusted(header) => audit::forged_header(peer, &header),
        ProxyPerson::Unnamed => audit::auth_failed(
            peer,
            method.as_str(),
            &path,
            "a proxy's user header names no one",
        ),
        ProxyPerson::NoRule(user) => no_rule = Some(user),
    }
    if let Some(user) = no_rule.filter(|_| grants.is_empty()) {
        audit::no_rule(peer, &user);
        return oidc::no_rule(&user).into_response();
    }
    if grants.is_empty() {
        let reason = if offered {
            signin::failed(&state, peer);
            "unknown, expired or revoked credential"
        } else {
            "no credential"
        };
        audit::auth_failed(peer, method.as_str(), &path, reason);
        state.sessions.metrics().auth_failed();
        return ApiError::unauthorized().into_response();
    }

    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_owned());
    let Some(route) = route else {
        // No route matched: the fallback answers 404, after authentication.
        return next.run(request).await;
    };
    let route = route
        .find("/api/")
        .map_or(route.as_str(), |i| &route[i..])
        .to_owned();
    let action = state.policy.action(&method, &route);

    // The id or name as the client gave it: every 404 echoes it, whether
    // the session is missing or out of scope, so the two look the same.
    let mut asked = String::new();
    let session = if policy::names_a_session(&route) {
        let params = match request.extract_parts::<RawPathParams>().await {
            Ok(params) => params,
            Err(rejection) => {
                return ApiError::new(ErrorCode::BadPath, rejection.body_text()).into_response()
            }
        };
        asked = params
            .iter()
            .find(|(name, _)| *name == "id")
            .map(|(_, value)| value.to_owned())
            .unwrap_or_default();
        match find(&state, &asked).await {
            Ok(session) => Some(session),
            Err(error) => return error.into_response(),
        }
    } else {
        None
    };
    let target = session.as_ref().map(|s| {
        let info = s.info();
        Target {
            id: &info.id,
            name: info.name.as_deref(),
            owner: info.owner.as_ref(),
        }
    });

    // The strongest credential that reaches the session; of equals, one
    // the request carries itself rather than a cookie (the page's fresh
    // link over an older link's cookie, which `/login` then replaces).
    let Some((source, checked, grant)) = grants
        .into_iter()
        .filter(|(_, _, g)| target.is_none_or(|t| g.reaches(t)))
        .max_by_key(|(source, _, g)| (g.role(), !source.ambient()))
    else {
        return ApiError::no_session(&asked).into_response();
    };

    if source.ambient() && !matches!(method, Method::GET | Method::HEAD | Method::OPTIONS) {
        if let Err(error) =
            same_site_write(request.headers(), &state.config.allowed_origins, secure)
        {
            return error.into_response();
        }
    }

    if let Err(error) = allow(&grant, action, target, &asked) {
        return error.into_response();
    }
    let connection = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), |c| c.0);
    request.extensions_mut().insert(Caller {
        grant,
        peer,
        connection,
        secure,
        cookie: source.ambient(),
        checked,
    });
    if let Some(session) = session {
        request.extensions_mut().insert(session);
    }
    next.run(request).await
}

/// The session `asked` (an id or a name) names, on this node or another:
/// 404 `session_not_found` when there is none.
async fn find(state: &AuthState, asked: &str) -> Result<SessionHandle, ApiError> {
    match state.sessions.find(asked).await {
        Ok(Some(session)) => Ok(session),
        Ok(None) => Err(ApiError::no_session(asked)),
        Err(e) => Err(ApiError::cluster_unavailable(&e.to_string())),
    }
}

/// The access check of `action` on `target` (the session `asked` names,
/// if any) for `grant`, as an answer: 404 outside its scope (echoing
/// `asked`), 403 beyond its role.
pub(in crate::api) fn allow(
    grant: &Grant,
    action: Action,
    target: Option<Target<'_>>,
    asked: &str,
) -> Result<(), ApiError> {
    grant.check(action, target).map_err(|denied| match denied {
        Denied::NotFound => ApiError::no_session(asked),
        Denied::Forbidden(message) => ApiError::forbidden(message),
    })
}

/// The session `asked` names, for a caller that names it in a body rather
/// than the path (the MCP tools): found and checked exactly as the guard
/// does for a route that names a session.
pub(in crate::api) async fn reach(
    state: &AuthState,
    grant: &Grant,
    asked: &str,
    action: Action,
) -> Result<SessionHandle, ApiError> {
    let session = find(state, asked).await?;
    allow(grant, action, Some(target(&session)), asked)?;
    Ok(session)
}

/// Links end with their session: a link whose session is gone (deleted,
/// or done lingering after its program exited) is revoked here, on its
/// first use after the end, and refused.
fn link_session_lives(state: &AuthState, grant: &Grant) -> bool {
    let Some(ticket) = grant.link_ticket() else {
        return true;
    };
    if state.sessions.exists(&ticket.session) {
        return true;
    }
    state.access.links().end_session(&ticket.session);
    false
}

/// A write authenticated by a cookie must come from a page of this server
/// (or an allowed origin) and be JSON (or, for a file upload, raw bytes:
/// `application/octet-stream`), which a cross-site form cannot send
/// without a preflight.
fn same_site_write(headers: &HeaderMap, allowed: &[String], secure: bool) -> Result<(), ApiError> {
    let csrf = |message: &str| ApiError::new(ErrorCode::Csrf, message);
    if headers.get(header::ORIGIN).is_none() {
        return Err(csrf(
            "a request authenticated by cookie must come from this server's pages (Origin)",
        ));
    }
    if let Err(refused) = check_origin(headers, allowed, secure) {
        tracing::warn!(reason = %refused, fix = refused.fix(), "csrf");
        return Err(csrf(&format!(
            "a request authenticated by cookie must come from this server's pages: {refused}"
        )));
    }
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::trim)
        .is_some_and(|v| {
            v.eq_ignore_ascii_case("application/json")
                || v.eq_ignore_ascii_case("application/octet-stream")
        });
    if !json {
        return Err(csrf(
            "a request authenticated by cookie must be sent as application/json \
             (or application/octet-stream)",
        ));
    }
    Ok(())
}

/// The role a stream asked for (`?role=`), as the grant allows it: a view
/// credential asking for control is given a view connection, and its
/// `Hello` says so.
pub fn stream_role(grant: &Grant, asked: Role) -> Role {
    asked.min(grant.role()).min(Role::Control)
}

/// A session as the access check sees it.
pub(in crate::api) fn target(session: &SessionHandle) -> crate::access::Target<'_> {
    let info = session.info();
    crate::access::Target {
        id: &info.id,
        name: info.name.as_deref(),
        owner: info.owner.as_ref(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name, HeaderValue::from_str(value).expect("ascii"));
        }
        map
    }

    #[test]
    fn reads_credentials_from_every_place() {
        let h = headers(&[
            (header::AUTHORIZATION, "Bearer abc"),
            (
                header::SEC_WEBSOCKET_PROTOCOL,
                "panecast, panecast.token.def",
            ),
            (header::COOKIE, "panecast_token=ghi; panecast_link=jkl"),
        ]);
        let found: Vec<(Source, &str)> = presented(&h);
        assert_eq!(
            found,
            [
                (Source::Header, "abc"),
                (Source::Protocol, "def"),
                (Source::Cookie, "ghi"),
                (Source::Cookie, "jkl")
            ]
        );
        let h = headers(&[(header::AUTHORIZATION, "Basic abc")]);
        assert!(presented(&h).is_empty());
    }

    #[test]
    fn hosts() {
        let allowed = |host: &str| {
            host_allowed(
                &headers(&[(header::HOST, host)]),
                &["term.example.com".into()],
            )
        };
        assert!(allowed("127.0.0.1:7681"));
        assert!(allowed("[::1]:7681"));
        assert!(allowed("localhost:7681"));
        assert!(allowed("app.localhost"));
        assert!(allowed("Term.Example.com"));
        assert!(!allowed("evil.example"));
        assert!(!allowed("rebind.attacker.test:7681"));
        assert!(!host_allowed(&HeaderMap::new(), &[]));
    }

    #[test]
    fn a_view_credential_gets_a_view_stream() {
        let view = Grant::key("k".into(), Role::View, None, std::sync::Arc::from([]));
        assert_eq!(stream_role(&view, Role::Control), Role::View);
        assert_eq!(stream_role(&Grant::admin(), Role::Control), Role::Control);
        assert_eq!(stream_role(&Grant::admin(), Role::View), Role::View);
    }
}

//! The token check on every `/api` route (and the page at `/`): a bearer
//! header, the `panecast_token` cookie, or `?token=` in the URL, which also
//! sets the cookie so a browser's later requests carry it.

use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::error::ApiError;
use super::AppState;

/// Name of the cookie that carries the token.
pub const COOKIE: &str = "panecast_token";

/// Characters a token may use: URL-unreserved ones, safe unescaped in a
/// header, a cookie and a query string.
pub fn valid_token(token: &str) -> bool {
    (1..=256).contains(&token.len())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~'))
}

/// Lets the request through when it carries the token, answers 401 otherwise.
pub async fn require_token(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let token = state.token.as_bytes();
    let headers = request.headers();
    if bearer(headers).is_some_and(|t| same(t, token))
        || cookie(headers).is_some_and(|t| same(t, token))
    {
        return next.run(request).await;
    }
    if query_token(request.uri()).is_some_and(|t| same(t.as_bytes(), token)) {
        let mut response = next.run(request).await;
        let path = match state.config.base_path.as_str() {
            "" => "/",
            base => base,
        };
        let cookie = format!(
            "{COOKIE}={}; HttpOnly; SameSite=Strict; Path={path}",
            state.token
        );
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
        return response;
    }
    ApiError::unauthorized().into_response()
}

fn bearer(headers: &HeaderMap) -> Option<&[u8]> {
    let value = headers.get(header::AUTHORIZATION)?.as_bytes();
    let (scheme, token) = value.split_at_checked(7)?;
    scheme
        .eq_ignore_ascii_case(b"Bearer ")
        .then(|| token.trim_ascii())
}

fn cookie(headers: &HeaderMap) -> Option<&[u8]> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .flat_map(|value| value.as_bytes().split(|&b| b == b';'))
        .find_map(|pair| {
            let pair = pair.trim_ascii();
            let (name, value) = pair.split_at_checked(COOKIE.len() + 1)?;
            (name == format!("{COOKIE}=").as_bytes()).then_some(value)
        })
}

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

fn query_token(uri: &Uri) -> Option<String> {
    Query::<TokenQuery>::try_from_uri(uri).ok()?.0.token
}

/// Compares in time that depends only on the lengths, never on where the
/// first difference is.
fn same(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    let difference = given
        .iter()
        .zip(expected)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    std::hint::black_box(difference) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name, HeaderValue::from_str(value).expect("ascii"));
        }
        map
    }

    #[test]
    fn reads_the_bearer_header() {
        let h = headers(&[(header::AUTHORIZATION, "Bearer abc")]);
        assert_eq!(bearer(&h), Some(&b"abc"[..]));
        let h = headers(&[(header::AUTHORIZATION, "bearer abc")]);
        assert_eq!(bearer(&h), Some(&b"abc"[..]));
        let h = headers(&[(header::AUTHORIZATION, "Basic abc")]);
        assert_eq!(bearer(&h), None);
        assert_eq!(bearer(&HeaderMap::new()), None);
    }

    #[test]
    fn reads_the_cookie_among_others() {
        let h = headers(&[(header::COOKIE, "a=1; panecast_token=xyz; b=2")]);
        assert_eq!(cookie(&h), Some(&b"xyz"[..]));
        let h = headers(&[
            (header::COOKIE, "a=1"),
            (header::COOKIE, "panecast_token=q"),
        ]);
        assert_eq!(cookie(&h), Some(&b"q"[..]));
        let h = headers(&[(header::COOKIE, "panecast_tokenx=1")]);
        assert_eq!(cookie(&h), None);
    }

    #[test]
    fn reads_the_query_token() {
        let uri: Uri = "/api/sessions?x=1&token=t0k".parse().expect("uri");
        assert_eq!(query_token(&uri).as_deref(), Some("t0k"));
        let uri: Uri = "/api/sessions".parse().expect("uri");
        assert_eq!(query_token(&uri), None);
    }

    #[test]
    fn compares_tokens() {
        assert!(same(b"secret", b"secret"));
        assert!(!same(b"secret", b"secreT"));
        assert!(!same(b"secret", b"secrets"));
        assert!(!same(b"", b"x"));
    }

    #[test]
    fn token_characters() {
        assert!(valid_token("abc-DEF_0.9~"));
        assert!(!valid_token(""));
        assert!(!valid_token("a b"));
        assert!(!valid_token("a;b"));
        assert!(!valid_token(&"x".repeat(257)));
    }
}

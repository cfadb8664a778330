//! Serving every route below a path prefix (`base_path`), for a reverse
//! proxy that forwards `/term/...` unchanged. Requests under the prefix
//! reach the routes with the prefix taken off, so the routes themselves
//! never know it; the bare prefix redirects to the prefix with a slash (the
//! session list, whose relative links need it); anything else is 404.

use crate::api::error::ErrorCode;
use axum::extract::Request;
use axum::http::uri::PathAndQuery;
use axum::http::Uri;
use axum::response::{IntoResponse, Redirect, Response};
use axum::Router;
use tower::ServiceExt;

use crate::api::error::ApiError;

/// `routes` served under `base` (normalized: `/a/b`, no trailing slash).
pub fn mount(base: String, routes: Router) -> Router {
    Router::new().fallback(move |request: Request| {
        let routes = routes.clone();
        let base = base.clone();
        async move { forward(&base, routes, request).await }
    })
}

async fn forward(base: &str, routes: Router, mut request: Request) -> Response {
    let uri = request.uri();
    let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
    let inner = match uri.path().strip_prefix(base) {
        Some("") => return Redirect::permanent(&format!("{base}/{query}")).into_response(),
        Some(rest) if rest.starts_with('/') => format!("{rest}{query}"),
        _ => return not_found(),
    };
    let Ok(path_and_query) = inner.parse::<PathAndQuery>() else {
        return not_found();
    };
    let mut parts = request.uri().clone().into_parts();
    parts.path_and_query = Some(path_and_query);
    let Ok(stripped) = Uri::from_parts(parts) else {
        return not_found();
    };
    *request.uri_mut() = stripped;
    match routes.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

fn not_found() -> Response {
    ApiError::new(ErrorCode::NotFound, "no such route").into_response()
}

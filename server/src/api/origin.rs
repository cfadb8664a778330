//! Where a request comes from: the client's address and scheme (through
//! trusted proxies), and whether its `Origin` is this server's own.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::connect_info::ConnectInfo;
use axum::extract::Request;
use axum::http::{header, HeaderMap};

use super::AppState;
use crate::access::client_address;

/// Marks a request that came over TLS (set by the listener).
#[derive(Debug, Clone, Copy)]
pub struct Tls;

/// The client's address and whether it used https.
pub fn peer_of(state: &AppState, request: &Request) -> (IpAddr, bool) {
    let socket = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |c| c.0.ip());
    let headers = request.headers();
    let peer = client_address(socket, headers, state.trusted());
    let secure = request.extensions().get::<Tls>().is_some()
        || state.trusted().forwarded_https(socket, headers);
    (peer, secure)
}

/// Same origin (the Origin's scheme is the one the client used, https
/// when it came over TLS or a trusted proxy says so, and its host is the
/// Host header), a configured origin, or no Origin at all (not a browser)
/// when `absent_ok`. An http page is not the https server's origin.
pub fn origin_allowed(
    headers: &HeaderMap,
    allowed: &[String],
    absent_ok: bool,
    secure: bool,
) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else {
        return absent_ok;
    };
    if allowed.iter().any(|a| a == origin) {
        return true;
    }
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let scheme = if secure { "https" } else { "http" };
    origin
        .split_once("://")
        .is_some_and(|(origin_scheme, origin_host)| {
            origin_scheme.eq_ignore_ascii_case(scheme) && origin_host.eq_ignore_ascii_case(host)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn origins() {
        let h = |origin: Option<&str>| {
            let mut map = HeaderMap::new();
            map.insert(header::HOST, HeaderValue::from_static("127.0.0.1:7681"));
            if let Some(o) = origin {
                map.insert(header::ORIGIN, HeaderValue::from_str(o).expect("ascii"));
            }
            map
        };
        assert!(origin_allowed(&h(None), &[], true, false));
        assert!(!origin_allowed(&h(None), &[], false, false));
        assert!(origin_allowed(
            &h(Some("http://127.0.0.1:7681")),
            &[],
            false,
            false
        ));
        assert!(!origin_allowed(
            &h(Some("http://127.0.0.1:8080")),
            &[],
            true,
            false
        ));
        assert!(origin_allowed(
            &h(Some("https://dash.example")),
            &["https://dash.example".into()],
            false,
            false
        ));
        assert!(origin_allowed(
            &h(Some("https://127.0.0.1:7681")),
            &[],
            false,
            true
        ));
        assert!(
            !origin_allowed(&h(Some("http://127.0.0.1:7681")), &[], false, true),
            "an http page is not the https server's origin"
        );
        assert!(
            !origin_allowed(&h(Some("https://127.0.0.1:7681")), &[], false, false),
            "nor the other way round"
        );
    }
}

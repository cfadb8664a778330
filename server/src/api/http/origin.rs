//! Where a request comes from: the client's address and scheme (through
//! trusted proxies), and whether its `Origin` is this server's own.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::connect_info::ConnectInfo;
use axum::extract::Request;
use axum::http::{header, HeaderMap};

use crate::access::{client_address, TrustedProxies};
use crate::api::origin_refusal::OriginRefusal;

/// Marks a request that came over TLS (set by the listener).
#[derive(Debug, Clone, Copy)]
pub struct Tls;

/// The client's address and whether it used https, as the `trusted`
/// proxies tell it.
pub fn peer_of(trusted: &TrustedProxies, request: &Request) -> (IpAddr, bool) {
    let socket = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |c| c.0.ip());
    let headers = request.headers();
    let peer = client_address(socket, headers, trusted);
    let secure =
        request.extensions().get::<Tls>().is_some() || trusted.forwarded_https(socket, headers);
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
    if headers.contains_key(header::ORIGIN) {
        check_origin(headers, allowed, secure).is_ok()
    } else {
        absent_ok
    }
}

/// [`origin_allowed`] with no `Origin` allowed, or why it is refused.
pub fn check_origin(
    headers: &HeaderMap,
    allowed: &[String],
    secure: bool,
) -> Result<(), OriginRefusal> {
    let listed = headers
        .get(header::ORIGIN)
        .is_some_and(|origin| allowed.iter().any(|a| a.as_bytes() == origin.as_bytes()));
    match refusal(headers, secure) {
        Some(refused) if !listed => Err(refused),
        _ => Ok(()),
    }
}

/// Why the `Origin` of `headers` is refused, given the scheme the client
/// used (`secure`); `None` when it is this server's own or there is none.
pub fn refusal(headers: &HeaderMap, secure: bool) -> Option<OriginRefusal> {
    let origin = headers
        .get(header::ORIGIN)?
        .to_str()
        .unwrap_or("(not text)");
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let seen = if secure { "https" } else { "http" };
    let (scheme, authority) = origin.split_once("://").unwrap_or(("", origin));
    let (origin_name, origin_port) = name_and_port(authority, scheme);
    let (host_name, host_port) = name_and_port(host, seen);
    let host_names_a_port = split_port(host).1.is_some();
    let same_name = origin_name.eq_ignore_ascii_case(host_name);
    let owned = |s: &str| s.to_owned();
    if same_name && !scheme.eq_ignore_ascii_case(seen) {
        Some(OriginRefusal::SchemeDiffers {
            origin: owned(origin),
            seen,
        })
    } else if same_name && origin_port != host_port && !host_names_a_port {
        Some(OriginRefusal::PortDropped {
            origin: owned(origin),
            host: owned(host),
        })
    } else if same_name && origin_port == host_port {
        None
    } else {
        Some(OriginRefusal::Foreign {
            origin: owned(origin),
            own: format!("{seen}://{host}"),
        })
    }
}

/// A `host[:port]`'s name and port, the scheme's default port when it
/// names none.
fn name_and_port<'a>(authority: &'a str, scheme: &str) -> (&'a str, Option<u16>) {
    let default = match scheme.to_ascii_lowercase().as_str() {
        "https" => Some(443),
        "http" => Some(80),
        _ => None,
    };
    match split_port(authority) {
        (name, Some(port)) => (name, port.parse().ok()),
        (name, None) => (name, default),
    }
}

/// A `host[:port]` split into its name and the port it writes, if any
/// (an IPv6 address keeps its brackets: `[::1]:80` is `[::1]` and `80`).
fn split_port(authority: &str) -> (&str, Option<&str>) {
    match authority.rfind(':') {
        Some(at) if !authority[at..].contains(']') => {
            (&authority[..at], Some(&authority[at + 1..]))
        }
        _ => (authority, None),
    }
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
    fn headers(origin: &str, host: &str) -> HeaderMap {
        let mut map = HeaderMap::new();
        map.insert(header::HOST, HeaderValue::from_str(host).expect("ascii"));
        map.insert(
            header::ORIGIN,
            HeaderValue::from_str(origin).expect("ascii"),
        );
        map
    }

    #[test]
    fn a_refusal_says_why() {
        // nginx's `proxy_set_header Host $host;` behind port 8443.
        let dropped = refusal(&headers("https://term.example:8443", "term.example"), true);
        assert!(
            matches!(&dropped, Some(OriginRefusal::PortDropped { host, .. }) if host == "term.example"),
            "{dropped:?}"
        );
        let dropped = dropped.expect("refused");
        assert!(dropped.to_string().contains("$http_host"), "{dropped}");
        // A TLS proxy that does not say so.
        let scheme = refusal(&headers("https://term.example", "term.example"), false);
        assert!(
            matches!(
                scheme,
                Some(OriginRefusal::SchemeDiffers { seen: "http", .. })
            ),
            "{scheme:?}"
        );
        // Another site.
        let foreign = refusal(&headers("https://evil.example", "term.example"), true);
        assert!(
            matches!(foreign, Some(OriginRefusal::Foreign { .. })),
            "{foreign:?}"
        );
        assert!(foreign
            .as_ref()
            .is_some_and(|f| f.to_string().contains("allowed_origins")));
        // The server's own origin, default ports spelled out or not, and IPv6.
        assert_eq!(
            refusal(&headers("https://term.example:443", "term.example"), true),
            None
        );
        assert_eq!(
            refusal(&headers("http://[::1]:7681", "[::1]:7681"), false),
            None
        );
        assert!(matches!(
            refusal(&headers("http://[::1]:8080", "[::1]"), false),
            Some(OriginRefusal::PortDropped { .. })
        ));
        let every = [dropped, scheme.expect("refused"), foreign.expect("refused")];
        assert!(
            every.iter().all(|r| r.fix().len() <= 123),
            "a close reason holds 123 bytes"
        );
    }
}

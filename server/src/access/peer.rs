//! The address a request came from: the socket's peer, or, when that peer
//! is a trusted proxy, what the proxy says in `X-Forwarded-For`. Also
//! whether a trusted proxy says the client used https.

use std::net::IpAddr;

use axum::http::HeaderMap;
use ipnet::IpNet;

/// The proxies whose `X-Forwarded-*` headers are believed (config
/// `trusted_proxies`: addresses or CIDR ranges).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Parses addresses (`10.0.0.1`) and ranges (`10.0.0.0/8`).
    pub fn parse(entries: &[String]) -> Result<TrustedProxies, String> {
        entries
            .iter()
            .map(|entry| {
                entry
                    .parse::<IpNet>()
                    .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("trusted_proxies: '{entry}' is not an address or range"))
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }

    /// True when `addr` is a trusted proxy.
    pub fn trusts(&self, addr: IpAddr) -> bool {
        let addr = canonical(addr);
        self.0.iter().any(|net| net.contains(&addr))
    }

    /// True when a trusted proxy says the client's scheme was https.
    pub fn forwarded_https(&self, peer: IpAddr, headers: &HeaderMap) -> bool {
        self.trusts(peer)
            && headers
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
    }
}

/// The client's address: the peer itself, unless the peer is a trusted
/// proxy. Then `X-Forwarded-For` is read from the right, one hop at a
/// time: a trusted proxy's address moves on to the entry before it, the
/// first untrusted address is the client. An entry that is not an address
/// (`6.6.6.6, junk`) ends the walk: whatever lies left of it was written by
/// someone unknown, so the address is the last trusted hop reached (the
/// proxy that passed the junk on). Entries further left than the client
/// were written by the client and prove nothing.
pub fn client_address(peer: IpAddr, headers: &HeaderMap, trusted: &TrustedProxies) -> IpAddr {
    let mut hop = canonical(peer);
    if !trusted.trusts(hop) {
        return hop;
    }
    let entries: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .map(|v| v.to_str().unwrap_or_default())
        .flat_map(|v| v.split(','))
        .collect();
    for entry in entries.into_iter().rev() {
        let Some(addr) = parse_hop(entry) else {
            return hop;
        };
        hop = addr;
        if !trusted.trusts(addr) {
            return addr;
        }
    }
    hop
}

/// One `X-Forwarded-For` entry: an address, with or without a port.
fn parse_hop(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    entry
        .parse::<IpAddr>()
        .or_else(|_| entry.parse::<std::net::SocketAddr>().map(|s| s.ip()))
        .ok()
        .map(canonical)
}

/// IPv4-mapped IPv6 addresses as IPv4.
fn canonical(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(addr, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn xff(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            HeaderValue::from_str(value).expect("ascii"),
        );
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let trusted =
            TrustedProxies::parse(&["127.0.0.1".into(), "10.0.0.0/8".into()]).expect("ok");
        let h = xff("6.6.6.6, 203.0.113.9");
        assert_eq!(
            client_address(ip("127.0.0.1"), &h, &trusted),
            ip("203.0.113.9")
        );
        assert_eq!(
            client_address(ip("192.0.2.1"), &h, &trusted),
            ip("192.0.2.1")
        );
        let chain = xff("203.0.113.9, 10.1.2.3");
        assert_eq!(
            client_address(ip("10.0.0.1"), &chain, &trusted),
            ip("203.0.113.9")
        );
        assert_eq!(
            client_address(ip("127.0.0.1"), &HeaderMap::new(), &trusted),
            ip("127.0.0.1")
        );
        assert_eq!(
            client_address(ip("::ffff:127.0.0.1"), &h, &trusted),
            ip("203.0.113.9")
        );
        let none = TrustedProxies::default();
        assert_eq!(client_address(ip("127.0.0.1"), &h, &none), ip("127.0.0.1"));
    }

    #[test]
    fn the_walk_stops_at_an_entry_that_is_not_an_address() {
        let trusted =
            TrustedProxies::parse(&["127.0.0.1".into(), "10.0.0.0/8".into()]).expect("ok");
        assert_eq!(
            client_address(ip("127.0.0.1"), &xff("6.6.6.6, junk"), &trusted),
            ip("127.0.0.1")
        );
        assert_eq!(
            client_address(ip("127.0.0.1"), &xff("6.6.6.6, junk, 10.0.0.2"), &trusted),
            ip("10.0.0.2")
        );
        assert_eq!(
            client_address(ip("127.0.0.1"), &xff("6.6.6.6, , 10.0.0.2"), &trusted),
            ip("10.0.0.2")
        );
        assert_eq!(
            client_address(ip("127.0.0.1"), &xff("junk, 203.0.113.9:4711"), &trusted),
            ip("203.0.113.9")
        );
    }

    #[test]
    fn bad_entries_are_refused() {
        assert!(TrustedProxies::parse(&["nope".into()]).is_err());
        assert!(TrustedProxies::parse(&["::1".into(), "fd00::/8".into()]).is_ok());
    }

    #[test]
    fn https_only_from_a_trusted_proxy() {
        let trusted = TrustedProxies::parse(&["127.0.0.1".into()]).expect("ok");
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-proto", HeaderValue::from_static("https"));
        assert!(trusted.forwarded_https(ip("127.0.0.1"), &h));
        assert!(!trusted.forwarded_https(ip("192.0.2.1"), &h));
    }
}

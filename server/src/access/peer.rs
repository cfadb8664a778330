//! The address a request came from: the socket's peer, or, when the
//! request came through a trusted proxy, what the proxy says in
//! `X-Forwarded-For`. Also whether a trusted proxy says the client used
//! https, and whether its sign-in headers may be believed.
//!
//! An address alone proves little on a host that runs other people's
//! programs: any of them may connect from loopback, or bind 127.0.0.2. So
//! with `proxy_secret_file` a request came through the proxy only when it
//! also carries the secret in [`PROOF_HEADER`] (compared in constant
//! time), which the proxy adds and nothing else on the host can read.

use std::net::IpAddr;

use axum::http::HeaderMap;
use ipnet::IpNet;

use super::secret::{self, SecretHash};
use crate::secret_file::SecretFileError;

/// The header a proxy sends the secret of `proxy_secret_file` in.
pub const PROOF_HEADER: &str = "x-panecast-proxy";

/// The fewest characters a proxy's secret may have (`panecast key` makes
/// 32).
pub const MIN_PROXY_SECRET_LEN: usize = 32;

/// The proxies whose `X-Forwarded-*` and sign-in headers are believed
/// (config `trusted_proxies`: addresses or CIDR ranges), and the proof a
/// request must carry to be taken as theirs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    nets: Vec<IpNet>,
    /// The digest of the secret of `proxy_secret_file`, when set.
    proof: Option<SecretHash>,
}

/// Why the trusted proxies cannot be believed as configured; each says
/// what to fix.
#[derive(Debug, thiserror::Error)]
pub enum ProxiesError {
    /// An entry of `trusted_proxies` that is no address or range.
    #[error("trusted_proxies: '{0}' is not an address or range")]
    NotAnAddress(String),
    /// The secret of `proxy_secret_file` is too short or cannot be a header.
    #[error(
        "proxy_secret_file: the secret must be {MIN_PROXY_SECRET_LEN} to 256 letters, \
         digits, '-', '_', '.' or '~' (`panecast key` prints one)"
    )]
    WeakSecret,
    /// `proxy_secret_file` cannot be read, is not private or is empty.
    #[error(transparent)]
    SecretFile(#[from] SecretFileError),
    /// `[auth.proxy]` without `trusted_proxies`.
    #[error("auth.proxy: its headers are believed only from trusted_proxies, and none is set")]
    NoProxies,
    /// `[auth.proxy]` without `proxy_secret_file`.
    #[error(
        "auth.proxy: a user header is believed only with proof that the request came \
         through the proxy, and any program on its host can send one from its address: \
         set proxy_secret_file to a file only the server may read (chmod 600) holding a \
         secret (`panecast key` prints one), and have the proxy send that secret in \
         X-Panecast-Proxy (deploy/nginx.conf and deploy/Caddyfile show how)"
    )]
    NoProof,
}

impl TrustedProxies {
    /// Parses addresses (`10.0.0.1`) and ranges (`10.0.0.0/8`).
    pub fn parse(entries: &[String]) -> Result<TrustedProxies, ProxiesError> {
        entries
            .iter()
            .map(|entry| {
                entry
                    .parse::<IpNet>()
                    .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| ProxiesError::NotAnAddress(entry.clone()))
            })
            .collect::<Result<_, _>>()
            .map(|nets| TrustedProxies { nets, proof: None })
    }

    /// The same proxies, believed only with `secret` in [`PROOF_HEADER`];
    /// refused when the secret is shorter than [`MIN_PROXY_SECRET_LEN`]
    /// or holds a character a header cannot carry.
    pub fn with_proof(self, secret: &str) -> Result<TrustedProxies, ProxiesError> {
        if secret.len() < MIN_PROXY_SECRET_LEN || !secret::valid_token(secret) {
            return Err(ProxiesError::WeakSecret);
        }
        Ok(TrustedProxies {
            proof: Some(secret::hash(secret.as_bytes())),
            ..self
        })
    }

    /// True when `addr` is in a trusted range. The address alone: what
    /// the listener knows before a request's headers.
    pub fn trusts(&self, addr: IpAddr) -> bool {
        let addr = canonical(addr);
        self.nets.iter().any(|net| net.contains(&addr))
    }

    /// True when the request from `peer` with `headers` came through a
    /// trusted proxy: from a trusted address, with the proof when one is
    /// configured.
    pub fn vouches(&self, peer: IpAddr, headers: &HeaderMap) -> bool {
        self.trusts(peer) && self.proven(headers)
    }

    /// True when no proof is configured, or `headers` carry it.
    fn proven(&self, headers: &HeaderMap) -> bool {
        let Some(expected) = &self.proof else {
            return true;
        };
        let mut given = headers.get_all(PROOF_HEADER).iter();
        match (given.next(), given.next()) {
            (Some(value), None) => secret::same(&secret::hash(value.as_bytes()), expected),
            // None, or two: a proxy sets exactly one.
            _ => false,
        }
    }

    /// True when trusted proxies are configured but believed on their
    /// address alone.
    pub fn without_proof(&self) -> bool {
        !self.nets.is_empty() && self.proof.is_none()
    }

    /// True when a trusted proxy says the client's scheme was https.
    pub fn forwarded_https(&self, peer: IpAddr, headers: &HeaderMap) -> bool {
        self.vouches(peer, headers)
            && headers
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
    }
}

/// The client's address: the peer itself, unless the request came
/// through a trusted proxy (see [`TrustedProxies::vouches`]). Then
/// `X-Forwarded-For` is read from the right, one hop at a
/// time: a trusted proxy's address moves on to the entry before it, the
/// first untrusted address is the client. An entry that is not an address
/// (`6.6.6.6, junk`) ends the walk: whatever lies left of it was written by
/// someone unknown, so the address is the last trusted hop reached (the
/// proxy that passed the junk on). Entries further left than the client
/// were written by the client and prove nothing.
pub fn client_address(peer: IpAddr, headers: &HeaderMap, trusted: &TrustedProxies) -> IpAddr {
    let mut hop = canonical(peer);
    if !trusted.vouches(hop, headers) {
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

    const PROXY_SECRET: &str = "proxy-secret-0123456789abcdef-0123";

    fn proven(value: &str) -> HeaderMap {
        let mut h = xff("203.0.113.9");
        h.insert("x-forwarded-proto", HeaderValue::from_static("https"));
        h.append(PROOF_HEADER, HeaderValue::from_str(value).expect("ascii"));
        h
    }

    #[test]
    fn with_a_secret_an_address_alone_proves_nothing() {
        let trusted = TrustedProxies::parse(&["127.0.0.1".into()])
            .and_then(|t| t.with_proof(PROXY_SECRET))
            .expect("ok");
        let loopback = ip("127.0.0.1");
        // A program on the host: the right address, no secret.
        let mut bare = xff("203.0.113.9");
        bare.insert("x-forwarded-proto", HeaderValue::from_static("https"));
        assert!(trusted.trusts(loopback));
        assert!(!trusted.vouches(loopback, &bare));
        assert_eq!(client_address(loopback, &bare, &trusted), loopback);
        assert!(!trusted.forwarded_https(loopback, &bare));
        // A guess, the secret cut short or longer, or sent twice.
        for wrong in [
            "guess",
            &PROXY_SECRET[..PROXY_SECRET.len() - 1],
            &format!("{PROXY_SECRET}x"),
        ] {
            assert!(!trusted.vouches(loopback, &proven(wrong)), "{wrong}");
        }
        let mut twice = proven(PROXY_SECRET);
        twice.append(PROOF_HEADER, HeaderValue::from_static("guess"));
        assert!(!trusted.vouches(loopback, &twice));
        // The proxy: address and secret.
        let good = proven(PROXY_SECRET);
        assert!(trusted.vouches(loopback, &good));
        assert_eq!(client_address(loopback, &good, &trusted), ip("203.0.113.9"));
        assert!(trusted.forwarded_https(loopback, &good));
        // The secret from an address outside the ranges proves nothing.
        assert!(!trusted.vouches(ip("192.0.2.1"), &good));
        assert!(!trusted.without_proof());
        assert!(TrustedProxies::parse(&["127.0.0.1".into()])
            .expect("ok")
            .without_proof());
    }

    #[test]
    fn a_short_or_unsendable_secret_is_refused() {
        let proxies = TrustedProxies::parse(&["127.0.0.1".into()]).expect("ok");
        assert!(proxies.clone().with_proof("short").is_err());
        let spaced = format!("{PROXY_SECRET} with spaces");
        assert!(proxies.clone().with_proof(&spaced).is_err());
        assert!(proxies.with_proof(PROXY_SECRET).is_ok());
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

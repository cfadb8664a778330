//! Why a page's `Origin` is refused ([`OriginRefusal`]): below the error
//! type, which answers it, and the origin checks, which find it.

/// Why a page's `Origin` is not this server's own, as the request tells
/// it: what the server saw, and what would allow it. Shown to the page,
/// logged, and never a secret (the page knows its origin, the proxy set
/// the `Host`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OriginRefusal {
    /// The page's origin has a port the `Host` header lacks: a reverse
    /// proxy with `proxy_set_header Host $host;` on a non-default port
    /// drops it.
    PortDropped {
        /// The page's origin.
        origin: String,
        /// The `Host` the server saw.
        host: String,
    },
    /// The page's scheme is not the one the server saw: a proxy that
    /// terminates TLS without saying so (`X-Forwarded-Proto`), or that is
    /// not in `trusted_proxies`.
    SchemeDiffers {
        /// The page's origin.
        origin: String,
        /// The scheme the server saw.
        seen: &'static str,
    },
    /// Another site's page.
    Foreign {
        /// The page's origin.
        origin: String,
        /// The server's own origin, as the request names it.
        own: String,
    },
}

impl OriginRefusal {
    /// What would allow it, short enough for a WebSocket close reason.
    pub fn fix(&self) -> &'static str {
        match self {
            OriginRefusal::PortDropped { .. } => {
                "Host lacks the page's port: use proxy_set_header Host $http_host; or allowed_origins"
            }
            OriginRefusal::SchemeDiffers { .. } => {
                "the page's scheme is not the server's: trust the proxy's X-Forwarded-Proto (trusted_proxies)"
            }
            OriginRefusal::Foreign { .. } => "this page's origin is not allowed: add it to allowed_origins",
        }
    }
}

impl std::fmt::Display for OriginRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OriginRefusal::PortDropped { origin, host } => write!(
                f,
                "the page {origin} is not this server's origin: the request's Host is {host}, \
                 without the page's port (a reverse proxy with `proxy_set_header Host $host;` \
                 drops it); forward it with `proxy_set_header Host $http_host;`, or add \
                 {origin} to allowed_origins"
            ),
            OriginRefusal::SchemeDiffers { origin, seen } => write!(
                f,
                "the page {origin} is not this server's origin: the server was reached over \
                 {seen}; a proxy that terminates TLS must send X-Forwarded-Proto and be listed \
                 in trusted_proxies (or add {origin} to allowed_origins)"
            ),
            OriginRefusal::Foreign { origin, own } => write!(
                f,
                "the page {origin} is not this server's origin ({own}); add it to allowed_origins"
            ),
        }
    }
}

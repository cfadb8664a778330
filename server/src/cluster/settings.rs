//! The `[cluster]` section of the configuration file: how a node signs in
//! to NATS and how long its liveness lasts. The server's URL and the
//! node's name come from the command line (`--cluster`, `--node`).

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// The default of `node_ttl_s`: a node that stops refreshing its key
/// leaves the cluster within this time.
pub const DEFAULT_NODE_TTL: Duration = Duration::from_secs(15);

/// Credentials, TLS and timings for the cluster's NATS connection.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClusterConfig {
    /// User name for NATS (with `password`).
    pub user: Option<String>,
    /// Password of `user`.
    pub password: Option<String>,
    /// A NATS credentials file (JWT and nkey seed), instead of a user.
    pub creds_file: Option<PathBuf>,
    /// PEM roots that NATS's certificate must chain to; setting it
    /// requires TLS.
    pub tls_ca: Option<PathBuf>,
    /// A client certificate chain (PEM) for NATS, with `tls_key`.
    pub tls_cert: Option<PathBuf>,
    /// The private key of `tls_cert` (PEM).
    pub tls_key: Option<PathBuf>,
    /// Require TLS even without `tls_ca` (system roots).
    pub require_tls: bool,
    /// Seconds a node's liveness key lasts without a refresh (1 to 300;
    /// default 15). Every node of a cluster must use the same value.
    pub node_ttl_s: Option<u64>,
}

impl std::fmt::Debug for ClusterConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterConfig")
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "(hidden)"))
            .field("creds_file", &self.creds_file)
            .field("tls_ca", &self.tls_ca)
            .field("tls_cert", &self.tls_cert)
            .field("tls_key", &self.tls_key)
            .field("require_tls", &self.require_tls)
            .field("node_ttl_s", &self.node_ttl_s)
            .finish()
    }
}

impl ClusterConfig {
    /// The liveness TTL, the configured one or [`DEFAULT_NODE_TTL`],
    /// clamped to 1-300 s.
    pub fn node_ttl(&self) -> Duration {
        self.node_ttl_s
            .map(|s| Duration::from_secs(s.clamp(1, 300)))
            .unwrap_or(DEFAULT_NODE_TTL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ttl_defaults_and_is_clamped() {
        let ttl = |s| {
            ClusterConfig {
                node_ttl_s: s,
                ..ClusterConfig::default()
            }
            .node_ttl()
        };
        assert_eq!(ttl(None), DEFAULT_NODE_TTL);
        assert_eq!(ttl(Some(0)), Duration::from_secs(1));
        assert_eq!(ttl(Some(7)), Duration::from_secs(7));
        assert_eq!(ttl(Some(10_000)), Duration::from_secs(300));
    }

    #[test]
    fn the_password_stays_out_of_debug_output() {
        let config = ClusterConfig {
            user: Some("panecast".to_owned()),
            password: Some("hunter2-secret".to_owned()),
            ..ClusterConfig::default()
        };
        let shown = format!("{config:?}");
        assert!(
            shown.contains("panecast") && !shown.contains("hunter2"),
            "{shown}"
        );
    }
}

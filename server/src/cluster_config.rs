//! The `[cluster]` section of the configuration file: the key the nodes
//! seal their messages with, how a node signs in to NATS and how long its
//! liveness lasts. The server's URL and the node's name come from the
//! command line (`--cluster`, `--node`).

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use crate::secret_file::SecretFileError;

/// The default of `node_ttl_s`: a node that stops refreshing its key
/// leaves the cluster within this time.
pub const DEFAULT_NODE_TTL: Duration = Duration::from_secs(15);

/// The bus key, credentials, TLS and timings for the cluster's NATS
/// connection.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClusterConfig {
    /// A file only the server may read (chmod 600) holding the key every
    /// node of the cluster seals and opens its messages and records with
    /// (`panecast key` prints one); required to join a cluster.
    pub key_file: Option<PathBuf>,
    /// User name for NATS (with `password` or `password_file`).
    pub user: Option<String>,
    /// Password of `user`, in the configuration itself.
    pub password: Option<String>,
    /// A file only the server may read holding the password of `user`.
    pub password_file: Option<PathBuf>,
    /// A NATS credentials file (JWT and nkey seed), instead of a user.
    pub creds_file: Option<PathBuf>,
    /// A file only the server may read holding a NATS user's nkey seed
    /// (`SU...`; `panecast key --nats` makes one), instead of a user.
    pub nkey_seed_file: Option<PathBuf>,
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
    /// Join a NATS server that asks for no credentials: for tests on a
    /// private NATS only (`serve --cluster-without-auth`; never read from
    /// the file).
    #[serde(skip)]
    pub without_auth: bool,
}

impl std::fmt::Debug for ClusterConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterConfig")
            .field("key_file", &self.key_file)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "(hidden)"))
            .field("password_file", &self.password_file)
            .field("creds_file", &self.creds_file)
            .field("nkey_seed_file", &self.nkey_seed_file)
            .field("tls_ca", &self.tls_ca)
            .field("tls_cert", &self.tls_cert)
            .field("tls_key", &self.tls_key)
            .field("require_tls", &self.require_tls)
            .field("node_ttl_s", &self.node_ttl_s)
            .field("without_auth", &self.without_auth)
            .finish()
    }
}

/// Why `[cluster]` cannot join a cluster safely.
#[derive(Debug, thiserror::Error)]
pub enum ClusterConfigError {
    /// No `key_file`: nothing to seal messages with.
    #[error(
        "cluster.key_file is not set: every node seals its messages with a key only the \
         nodes hold; write one (`panecast key` prints a secret) to a file only the server \
         may read (chmod 600), the same on every node, and name it in [cluster] key_file"
    )]
    NoKeyFile,
    /// Both `password` and `password_file`.
    #[error("cluster: give password or password_file, not both")]
    TwoPasswords,
    /// No credentials for NATS, and not a test.
    #[error(
        "the NATS server at {url} is joined without credentials: anything that reaches \
         it (a session's program too) could read every screen and keystroke on the bus; \
         give NATS a user with panecast's subjects only (deploy/cluster/nats.conf) and set \
         [cluster] nkey_seed_file (`panecast key --nats` makes the key), or user and \
         password_file, or creds_file (--cluster-without-auth is for tests on a private \
         NATS)"
    )]
    NoCredentials {
        /// The NATS URL.
        url: String,
    },
    /// A secret's file cannot be read, is not private or is empty.
    #[error(transparent)]
    SecretFile(#[from] SecretFileError),
    /// `nkey_seed_file` holds no NATS user's seed.
    #[error(
        "cluster.nkey_seed_file {} holds no NATS user seed (SU...; `panecast key --nats` \
         makes one)",
        path.display()
    )]
    NoUserSeed {
        /// The file.
        path: PathBuf,
    },
}

impl ClusterConfig {
    /// Checks what can be checked before connecting: a key file, and
    /// credentials for NATS (a user with a password, a credentials file
    /// or a client certificate; or, in `url`, a user) unless
    /// [`Self::without_auth`] says this is a test.
    pub fn check(&self, url: &str) -> Result<(), ClusterConfigError> {
        if self.key_file.is_none() {
            return Err(ClusterConfigError::NoKeyFile);
        }
        if self.user.is_some() && self.password.is_some() && self.password_file.is_some() {
            return Err(ClusterConfigError::TwoPasswords);
        }
        let url_user = url
            .split_once("://")
            .map_or(url, |(_, rest)| rest)
            .split('/')
            .next()
            .is_some_and(|authority| authority.contains('@'));
        let password = self.password.is_some() || self.password_file.is_some();
        let credentials = (self.user.is_some() && password)
            || self.creds_file.is_some()
            || self.nkey_seed_file.is_some()
            || (self.tls_cert.is_some() && self.tls_key.is_some())
            || url_user;
        if !credentials && !self.without_auth {
            return Err(ClusterConfigError::NoCredentials {
                url: url.to_owned(),
            });
        }
        Ok(())
    }

    /// The password of `user`: from `password_file` (a file sessions may
    /// not read) or `password`.
    pub fn password(&self) -> Result<Option<String>, SecretFileError> {
        match (&self.password_file, &self.password) {
            (Some(path), _) => crate::secret_file::read(path, "cluster.password_file").map(Some),
            (None, password) => Ok(password.clone()),
        }
    }

    /// The nkey seed of `nkey_seed_file`, checked: a NATS user's.
    pub fn nkey_seed(&self) -> Result<Option<String>, ClusterConfigError> {
        let Some(path) = &self.nkey_seed_file else {
            return Ok(None);
        };
        let seed = crate::secret_file::read(path, "cluster.nkey_seed_file")?;
        match nkeys::KeyPair::from_seed(&seed) {
            Ok(pair) if pair.key_pair_type() == nkeys::KeyPairType::User => Ok(Some(seed)),
            _ => Err(ClusterConfigError::NoUserSeed {
                path: path.to_owned(),
            }),
        }
    }

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

    fn keyed() -> ClusterConfig {
        ClusterConfig {
            key_file: Some(PathBuf::from("/etc/panecast/cluster.key")),
            ..ClusterConfig::default()
        }
    }

    #[test]
    fn a_node_needs_a_key_and_credentials_unless_a_test_says_so() {
        let url = "nats://127.0.0.1:4222";
        let err = ClusterConfig::default().check(url).unwrap_err();
        assert!(matches!(err, ClusterConfigError::NoKeyFile), "{err}");
        assert!(
            err.to_string().starts_with("cluster.key_file is not set"),
            "{err}"
        );
        let err = keyed().check(url).unwrap_err().to_string();
        assert!(err.contains("without credentials") && err.contains("--cluster-without-auth"));
        let with_user = ClusterConfig {
            user: Some("panecast".into()),
            password_file: Some(PathBuf::from("/etc/panecast/nats-password")),
            ..keyed()
        };
        assert!(with_user.check(url).is_ok());
        let user_only = ClusterConfig {
            user: Some("panecast".into()),
            ..keyed()
        };
        assert!(user_only.check(url).is_err(), "a user without a password");
        let creds = ClusterConfig {
            creds_file: Some(PathBuf::from("/etc/panecast/nats.creds")),
            ..keyed()
        };
        assert!(creds.check(url).is_ok());
        let nkey = ClusterConfig {
            nkey_seed_file: Some(PathBuf::from("/etc/panecast/nats.nk")),
            ..keyed()
        };
        assert!(nkey.check(url).is_ok());
        assert!(keyed().check("nats://panecast:pw@127.0.0.1:4222").is_ok());
        let test = ClusterConfig {
            without_auth: true,
            ..keyed()
        };
        assert!(test.check(url).is_ok());
        let both = ClusterConfig {
            user: Some("panecast".into()),
            password: Some("a".into()),
            password_file: Some(PathBuf::from("/x")),
            ..keyed()
        };
        assert!(matches!(
            both.check(url),
            Err(ClusterConfigError::TwoPasswords)
        ));
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

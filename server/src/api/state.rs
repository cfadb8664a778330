//! What the server runs with ([`Settings`]) and the state every handler
//! shares ([`AppState`]), built from them once.

use std::sync::Arc;
use std::time::Duration;

use crate::access::{Access, KeyError, ProxiesError, SignInFailures, TrustedProxies};
use axum::extract::FromRef;

use crate::api::auth::auth_state::AuthState;
use crate::api::auth::gate::NodeGate;
use crate::api::auth::oidc::{CookieKey, CookieKeyError, OidcConfigError, SignIn};
use crate::api::auth::policy::Policy;
use crate::cluster::Registry;
use crate::config::Config;
use crate::pty::Isolation;
use crate::record::Recordings;
use crate::session::Sessions;

/// What the server runs with.
#[derive(Clone)]
pub struct Settings {
    /// Profiles and limits.
    pub config: Config,
    /// The admin token: it may do everything.
    pub token: String,
    /// Whether requests may name their own argv and environment.
    pub allow_any_command: bool,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("config", &self.config)
            .field("token", &"<redacted>")
            .field("allow_any_command", &self.allow_any_command)
            .finish()
    }
}

/// Why the server cannot start with its settings; each says what to fix.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// A configured key is malformed.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// `trusted_proxies` or the proxy's secret is malformed.
    #[error(transparent)]
    Proxies(#[from] ProxiesError),
    /// The key of the sign-in cookies cannot be made or read.
    #[error(transparent)]
    CookieKey(#[from] CookieKeyError),
    /// `[auth.oidc]` is wrong, or its client secret cannot be read.
    #[error(transparent)]
    SignIn(#[from] OidcConfigError),
}

/// The state every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub(in crate::api) sessions: Arc<Sessions>,
    pub(in crate::api) config: Arc<Config>,
    pub(in crate::api) access: Arc<Access>,
    pub(in crate::api) trusted: Arc<TrustedProxies>,
    pub(in crate::api) failures: Arc<SignInFailures>,
    /// Sign-in at the OpenID provider, with `[auth.oidc]`.
    pub(in crate::api) signin: Option<Arc<SignIn>>,
    pub(in crate::api) allow_any_command: bool,
    /// The guard's table: each route's access rule.
    pub(in crate::api) policy: Arc<Policy>,
}

impl AppState {
    /// State for `settings`, with an empty session registry, in `cluster`
    /// when it joined one, guarded by `policy`; fails when the
    /// configuration's keys or proxies are malformed, or a secret cannot be
    /// read.
    pub(in crate::api) fn new(
        settings: Settings,
        cluster: Option<&Registry>,
        policy: Policy,
    ) -> Result<AppState, StateError> {
        let limits = &settings.config.limits;
        let access = Access::new(
            &settings.token,
            &settings.config.keys,
            Duration::from_secs(limits.max_link_ttl_secs),
            limits.max_links_per_session,
        )?
        .with_people(&settings.config.auth);
        let trusted = settings.config.proxies()?;
        let failures = SignInFailures::new(limits.auth_failures_per_minute);
        let signin = match &settings.config.auth.oidc {
            Some(oidc) => {
                // Every node of a cluster seals the same cookies.
                let key = match cluster {
                    Some(registry) => CookieKey::derived(&registry.bus_key_for("oidc cookies")),
                    None => CookieKey::load_or_create(&oidc.cookie_key_file)?,
                };
                Some(Arc::new(SignIn::new(oidc, &key)?))
            }
            None => None,
        };
        Ok(AppState {
            sessions: Sessions::new(
                settings.config.limits.clone(),
                settings.config.size_policy,
                Recordings::new(
                    settings.config.recordings_dir.clone(),
                    settings.config.recordings.clone(),
                ),
                Isolation::new(
                    settings.config.session_uids,
                    settings.config.session_homes.clone(),
                ),
            ),
            config: Arc::new(settings.config),
            access: Arc::new(access),
            trusted: Arc::new(trusted),
            failures: Arc::new(failures),
            signin,
            allow_any_command: settings.allow_any_command,
            policy: Arc::new(policy),
        })
    }

    /// The session registry.
    pub fn sessions(&self) -> &Arc<Sessions> {
        &self.sessions
    }

    pub(in crate::api) fn trusted(&self) -> &TrustedProxies {
        &self.trusted
    }

    /// How this node judges other nodes' requests: with the API's own
    /// credentials and configuration.
    pub(in crate::api) fn gate(&self) -> Arc<dyn crate::session::Gate> {
        Arc::new(NodeGate {
            access: Arc::clone(&self.access),
            config: Arc::clone(&self.config),
            allow_any_command: self.allow_any_command,
        })
    }
}

impl FromRef<AppState> for AuthState {
    fn from_ref(state: &AppState) -> AuthState {
        AuthState {
            sessions: Arc::clone(&state.sessions),
            config: Arc::clone(&state.config),
            access: Arc::clone(&state.access),
            trusted: Arc::clone(&state.trusted),
            failures: Arc::clone(&state.failures),
            signin: state.signin.clone(),
            policy: Arc::clone(&state.policy),
        }
    }
}

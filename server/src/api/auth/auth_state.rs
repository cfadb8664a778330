//! The part of the shared state that authentication reads ([`AuthState`]),
//! taken from the whole with axum's `FromRef`, so the guard and the
//! sign-in pages know nothing of the state above them.

use std::sync::Arc;

use crate::access::{Access, SignInFailures, TrustedProxies};
use crate::config::Config;
use crate::session::Sessions;

use super::oidc::SignIn;
use super::policy::Policy;

/// What the guard, the sign-in limit and the OpenID pages read.
#[derive(Clone)]
pub(in crate::api) struct AuthState {
    /// The session registry: the sessions a caller reaches, and the
    /// metrics of failed sign-ins.
    pub(in crate::api) sessions: Arc<Sessions>,
    /// Base path, allowed origins and names, the proxy's sign-in, limits.
    pub(in crate::api) config: Arc<Config>,
    /// The credentials: token, keys, links and people.
    pub(in crate::api) access: Arc<Access>,
    /// The proxies believed for the client's address and scheme.
    pub(in crate::api) trusted: Arc<TrustedProxies>,
    /// The failed sign-ins of each client, and who is blocked.
    pub(in crate::api) failures: Arc<SignInFailures>,
    /// Sign-in at the OpenID provider, with `[auth.oidc]`.
    pub(in crate::api) signin: Option<Arc<SignIn>>,
    /// The guard's table: each route's access rule.
    pub(in crate::api) policy: Arc<Policy>,
}

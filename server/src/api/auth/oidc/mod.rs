//! Sign-in at an OpenID provider (`[auth.oidc]`): the authorization code
//! flow with PKCE, its `state` and `nonce` checked, the ID token's
//! signature, issuer, audience and expiry verified by `openidconnect`.
//!
//! Nothing is kept on the server between the redirect to the provider and
//! the callback: the PKCE verifier, the state and the nonce travel in a
//! short-lived sealed cookie (see [`seal`]), so any node of a cluster
//! (whose nodes share the [`CookieKey`]) finishes a sign-in another began. The person
//! signed in is a sealed cookie too (their user name, the groups a rule
//! names, an id, an expiry); a logout ends that id on the server that
//! received it ([`revoked`]).

mod cookie_key;
mod revoked;
pub mod seal;
pub(in crate::api) mod web;

use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use openidconnect::core::{CoreAuthenticationFlow, CoreClient};
use openidconnect::{
    AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken, IssuerUrl,
    LogoutRequest, Nonce, PkceCodeChallenge, PkceCodeVerifier, PostLogoutRedirectUrl,
    ProviderMetadataWithLogout, RedirectUrl, RequestTokenError, Scope, SignatureVerificationError,
    TokenResponse,
};
use serde::{Deserialize, Serialize};

pub use crate::access::{OidcConfig, OidcConfigError};
pub use cookie_key::{CookieKey, CookieKeyError};
use revoked::Revoked;
use seal::{now, Sealer};

/// How long a sign-in begun may take at the provider.
pub const PENDING_SECS: u64 = 600;
/// How long the provider's discovery document (and its keys) is kept.
const DISCOVERY_TTL: Duration = Duration::from_secs(3600);

/// The longest a request to the provider may take, connecting included.
const PROVIDER_TIMEOUT: Duration = Duration::from_secs(10);

/// Sends a request of the OpenID flow to the provider, TLS trusting the
/// Mozilla roots.
async fn send(
    request: axum::http::Request<Vec<u8>>,
) -> Result<axum::http::Response<Vec<u8>>, crate::http_client::HttpError> {
    crate::http_client::send(request, &crate::tls::CLIENT, PROVIDER_TIMEOUT).await
}

/// A sign-in under way: what the callback checks, sealed in a cookie.
#[derive(Debug, Serialize, Deserialize)]
pub struct Pending {
    state: String,
    nonce: String,
    verifier: String,
    /// The redirect URL sent to the provider, sent again with the code.
    redirect: String,
}

impl Pending {
    /// True when the callback's `state` is this sign-in's.
    pub fn state_is(&self, state: &str) -> bool {
        same_bytes(self.state.as_bytes(), state.as_bytes())
    }
}

/// True when `a` and `b` are the same bytes, in a time that depends only
/// on their lengths (the state is a secret of the browser's).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Someone the provider vouched for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    /// This sign-in's id (ended by a logout).
    pub id: String,
    /// Their user name.
    pub user: String,
    /// Their groups (those the rules name).
    pub groups: Vec<String>,
}

/// Why a sign-in could not finish.
#[derive(Debug, thiserror::Error)]
pub enum FlowError {
    /// The provider could not be reached or answered nonsense.
    #[error("the OpenID provider cannot be reached: {0}")]
    Unavailable(String),
    /// The provider refused to trade the code for tokens.
    #[error("the OpenID provider refused the sign-in: {0}")]
    Refused(String),
    /// The ID token failed its verification, or names no one.
    #[error("the ID token is not valid: {0}")]
    BadIdToken(String),
}

/// Sign-in at the provider of `[auth.oidc]`.
pub struct SignIn {
    config: OidcConfig,
    secret: String,
    login: Sealer,
    session: Sealer,
    revoked: Revoked,
    discovered: tokio::sync::Mutex<Option<(Instant, Arc<ProviderMetadataWithLogout>)>>,
}

impl std::fmt::Debug for SignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignIn")
            .field("issuer", &self.config.issuer)
            .finish_non_exhaustive()
    }
}

impl SignIn {
    /// Sign-in as `config` says, its cookies sealed with `key`; fails
    /// when its secret cannot be read.
    pub fn new(config: &OidcConfig, key: &CookieKey) -> Result<SignIn, OidcConfigError> {
        config.validate()?;
        let secret = config.client_secret()?;
        Ok(SignIn {
            login: Sealer::new(key, "login"),
            session: Sealer::new(key, "session"),
            secret,
            config: config.clone(),
            revoked: Revoked::default(),
            discovered: tokio::sync::Mutex::new(None),
        })
    }

    /// The provider's discovery document: kept for an hour; fetched
    /// again on the next sign-in after a failure.
    async fn metadata(&self) -> Result<Arc<ProviderMetadataWithLogout>, FlowError> {
        self.discover(false).await
    }

    /// The discovery document, read again when `again` or when the kept
    /// one is over [`DISCOVERY_TTL`] old.
    async fn discover(&self, again: bool) -> Result<Arc<ProviderMetadataWithLogout>, FlowError> {
        let mut discovered = self.discovered.lock().await;
        if let Some((at, metadata)) = discovered.as_ref() {
            if !again && at.elapsed() < DISCOVERY_TTL {
                return Ok(Arc::clone(metadata));
            }
        }
        let issuer = IssuerUrl::new(self.config.issuer.clone())
            .map_err(|e| FlowError::Unavailable(e.to_string()))?;
        let metadata = ProviderMetadataWithLogout::discover_async(issuer, &send)
            .await
            .map_err(|e| FlowError::Unavailable(format!("discovery: {}", error_chain(&e))))?;
        let metadata = Arc::new(metadata);
        *discovered = Some((Instant::now(), Arc::clone(&metadata)));
        Ok(metadata)
    }

    fn client(
        &self,
        metadata: &ProviderMetadataWithLogout,
        redirect: &str,
    ) -> Result<
        CoreClient<
            openidconnect::EndpointSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointMaybeSet,
            openidconnect::EndpointMaybeSet,
        >,
        FlowError,
    > {
        let redirect = RedirectUrl::new(redirect.to_owned())
            .map_err(|e| FlowError::Unavailable(e.to_string()))?;
        Ok(CoreClient::from_provider_metadata(
            metadata.clone(),
            ClientId::new(self.config.client_id.clone()),
            Some(ClientSecret::new(self.secret.clone())),
        )
        .set_redirect_uri(redirect))
    }

    /// The configured redirect URL, if any (else one made from the request).
    pub fn redirect_url(&self) -> Option<&str> {
        self.config.redirect_url.as_deref()
    }

    /// Begins a sign-in that comes back to `redirect`: the provider's URL
    /// to send the browser to, and the sealed [`Pending`] for the login
    /// cookie.
    pub async fn start(&self, redirect: &str) -> Result<(String, String), FlowError> {
        let metadata = self.metadata().await?;
        let client = self.client(&metadata, redirect)?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let scopes = self.config.scopes.iter().filter(|s| *s != "openid");
        let (url, state, nonce) = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .add_scopes(scopes.map(|s| Scope::new(s.clone())))
            .set_pkce_challenge(challenge)
            .url();
        let pending = Pending {
            state: state.secret().clone(),
            nonce: nonce.secret().clone(),
            verifier: verifier.secret().clone(),
            redirect: redirect.to_owned(),
        };
        Ok((
            url.to_string(),
            self.login.seal(&pending, now() + PENDING_SECS),
        ))
    }

    /// The sign-in under way a login cookie holds, if it is one of ours
    /// and not too old.
    pub fn pending(&self, cookie: &str) -> Option<Pending> {
        self.login.open(cookie, now())
    }

    /// Finishes a sign-in: trades `code` for tokens, verifies the ID
    /// token (signature, issuer, audience, expiry, the pending nonce) and
    /// reads who it names and their groups.
    pub async fn finish(&self, pending: Pending, code: String) -> Result<Person, FlowError> {
        let metadata = self.metadata().await?;
        let client = self.client(&metadata, &pending.redirect)?;
        let request = client
            .exchange_code(AuthorizationCode::new(code))
            .map_err(|e| FlowError::Unavailable(e.to_string()))?
            .set_pkce_verifier(PkceCodeVerifier::new(pending.verifier));
        let tokens = request.request_async(&send).await.map_err(|e| match e {
            RequestTokenError::ServerResponse(answer) => FlowError::Refused(answer.to_string()),
            other => FlowError::Unavailable(error_chain(&other)),
        })?;
        let id_token = tokens
            .id_token()
            .ok_or_else(|| FlowError::BadIdToken("the provider sent none".into()))?;
        let nonce = Nonce::new(pending.nonce);
        let verified = id_token.claims(&client.id_token_verifier(), &nonce).err();
        if let Some(error) = verified {
            // A key the kept key set does not have: the provider may have
            // rotated its keys; read them again, once.
            let no_key = matches!(
                error,
                ClaimsVerificationError::SignatureVerification(
                    SignatureVerificationError::NoMatchingKey
                )
            );
            if !no_key {
                return Err(FlowError::BadIdToken(error.to_string()));
            }
            let metadata = self.discover(true).await?;
            let client = self.client(&metadata, &pending.redirect)?;
            id_token
                .claims(&client.id_token_verifier(), &nonce)
                .map_err(|e| FlowError::BadIdToken(e.to_string()))?;
        }
        // Verified above: read the claims the standard types do not keep.
        let claims = payload(&id_token.to_string())
            .ok_or_else(|| FlowError::BadIdToken("its claims cannot be read".into()))?;
        let claim = |name: &str| claims.get(name).and_then(|v| v.as_str());
        let user = claim(&self.config.user_claim)
            .or_else(|| claim("sub"))
            .and_then(crate::access::person_name)
            .ok_or_else(|| FlowError::BadIdToken("it names no user".into()))?;
        let groups = match claims.get(&self.config.groups_claim) {
            Some(serde_json::Value::Array(list)) => list
                .iter()
                .filter_map(|g| g.as_str().and_then(crate::access::person_name))
                .map(str::to_owned)
                .collect(),
            Some(serde_json::Value::String(one)) => crate::access::person_name(one)
                .map(str::to_owned)
                .into_iter()
                .collect(),
            _ => Vec::new(),
        };
        let id = crate::random::hex128().map_err(|e| FlowError::Unavailable(e.to_string()))?;
        Ok(Person {
            id,
            user: user.to_owned(),
            groups,
        })
    }

    /// `person`'s session cookie value, good for `max_age` seconds.
    pub fn seal_person(&self, person: &Person, max_age: u64) -> String {
        self.session.seal(person, now() + max_age)
    }

    /// The person a session cookie names, unless it is forged, expired or
    /// ended by a logout here.
    pub fn person(&self, cookie: &str) -> Option<Person> {
        let person: Person = self.session.open(cookie, now())?;
        (!self.revoked.is_ended(&person.id)).then_some(person)
    }

    /// Ends `person`'s sign-in on this server (their cookie lasted at most
    /// `max_age` seconds).
    pub fn end(&self, person: &Person, max_age: u64) {
        let now = now();
        self.revoked.end(&person.id, now + max_age, now);
    }

    /// Where to send the browser to sign out at the provider too, when
    /// its discovery document names an `end_session_endpoint`.
    pub async fn end_session_url(&self) -> Option<String> {
        let metadata = self.metadata().await.ok()?;
        let endpoint = metadata
            .additional_metadata()
            .end_session_endpoint
            .clone()?;
        let mut request = LogoutRequest::from(endpoint)
            .set_client_id(ClientId::new(self.config.client_id.clone()));
        if let Some(url) = &self.config.post_logout_redirect_url {
            let url = PostLogoutRedirectUrl::new(url.clone()).ok()?;
            request = request.set_post_logout_redirect_uri(url);
        }
        Some(request.http_get_url().to_string())
    }
}

/// The claims of a JWT, unverified (call only on a verified token).
fn payload(jwt: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let part = jwt.split('.').nth(1)?;
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).ok()?).ok()
}

/// An error with its causes, for a log line or an answer.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_states_and_reads_claims() {
        assert!(same_bytes(b"abc", b"abc"));
        assert!(!same_bytes(b"abc", b"abd"));
        assert!(!same_bytes(b"abc", b"ab"));
        let claims = URL_SAFE_NO_PAD.encode(r#"{"sub":"1","groups":["dev"]}"#);
        let jwt = format!("e30.{claims}.sig");
        let read = payload(&jwt).expect("claims");
        assert_eq!(read["groups"][0], "dev");
        assert!(payload("no-dots").is_none());
    }
}

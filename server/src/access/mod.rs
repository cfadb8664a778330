//! Who may do what. Three kinds of credential (the admin token, named keys
//! from the config, per-session share links), three roles (view, control,
//! admin), and one check ([`Grant::check`]) that every route goes through.
//!
//! Only SHA-256 digests of keys and links are kept; every comparison with a
//! stored secret takes the same time wherever the first difference is.

mod failures;
mod grant;
mod keys;
mod links;
mod oidc;
mod peer;
mod people;
mod principal;
mod role;
pub mod secret;

use std::sync::Arc;
use std::time::Duration;

pub use failures::SignInFailures;
pub use grant::{Action, Credential, Denied, Grant, NotACredential, Target};
pub use keys::{config_entry, KeyConfig, KeyError};
pub use links::{
    LinkChange, LinkError, LinkInfo, LinkTicket, Links, SavedLink, SavedLinkError, ViewerGuard,
};
pub use oidc::{OidcConfig, OidcConfigError};
pub use peer::{client_address, ProxiesError, TrustedProxies, MIN_PROXY_SECRET_LEN, PROOF_HEADER};
pub use people::{
    person_name, AuthConfig, AuthConfigError, People, ProxyAuth, RuleConfig, MAX_PERSON_NAME,
};
pub use principal::{LinkClaim, Principal};
pub use role::Role;
pub use secret::valid_token;

use secret::SecretHash;

/// A config key, ready to check.
struct Key {
    digest: SecretHash,
    grant: Grant,
}

/// Every credential the server accepts.
pub struct Access {
    admin: SecretHash,
    keys: Vec<Key>,
    links: Links,
    people: People,
}

impl Access {
    /// Credentials from the admin token and the config's keys; share links
    /// live up to `max_link_ttl`, at most `max_links` per session.
    pub fn new(
        admin_token: &str,
        keys: &[KeyConfig],
        max_link_ttl: Duration,
        max_links: usize,
    ) -> Result<Access, KeyError> {
        let keys = keys
            .iter()
            .map(|key| {
                let digest = key.validate()?;
                let sessions = key.sessions.as_ref().map(|s| Arc::from(s.as_slice()));
                let grant = Grant::key(
                    Arc::from(key.name.as_str()),
                    key.role,
                    sessions,
                    Arc::from(key.profiles.as_slice()),
                )
                .with_metrics(key.metrics);
                Ok(Key { digest, grant })
            })
            .collect::<Result<Vec<_>, KeyError>>()?;
        Ok(Access {
            admin: secret::hash(admin_token.as_bytes()),
            keys,
            links: Links::new(max_link_ttl, max_links),
            people: People::default(),
        })
    }

    /// The grant of a presented secret, if it is a credential.
    pub fn authenticate(&self, presented: &str) -> Option<Grant> {
        if !valid_token(presented) {
            return None;
        }
        let digest = secret::hash(presented.as_bytes());
        if secret::same(&digest, &self.admin) {
            return Some(Grant::admin());
        }
        // Every key is compared, whichever matches.
        let mut found = None;
        for key in &self.keys {
            if secret::same(&digest, &key.digest) && found.is_none() {
                found = Some(key.grant.clone());
            }
        }
        found.or_else(|| self.links.find(presented).map(Grant::link))
    }

    /// The share links.
    pub fn links(&self) -> &Links {
        &self.links
    }

    /// The same credentials, with people given roles by `auth`'s rules.
    pub fn with_people(mut self, auth: &AuthConfig) -> Access {
        self.people = People::new(auth);
        self
    }

    /// The rules that give people their roles.
    pub fn people(&self) -> &People {
        &self.people
    }

    /// The grant `principal` has here, from this node's own configuration
    /// and links, when another node names it: the admin token, a key by
    /// name, a person by their name and groups, a link whose claim holds
    /// ([`Links::claim_holds`]). `None` when it is no credential here.
    pub fn regrant(&self, principal: &Principal) -> Option<Grant> {
        match &principal.credential {
            Credential::Admin => Some(Grant::admin()),
            Credential::Key(_) => self
                .keys
                .iter()
                .find(|key| key.grant.credential() == &principal.credential)
                .map(|key| key.grant.clone()),
            Credential::User(name) => {
                let groups: Vec<&str> = principal.groups.iter().map(String::as_str).collect();
                self.people.grant(name, &groups)
            }
            Credential::Link(id) => {
                let claim = principal.link.as_ref()?;
                self.links
                    .claim_holds(id, &claim.session, claim.role, claim.expires_at())
                    .then(|| Grant::claimed_link(id.clone(), claim.session.clone(), claim.role))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access() -> Access {
        let keys = [KeyConfig {
            name: "grafana".into(),
            sha256: secret::hex(&secret::hash(b"view-secret")),
            role: Role::View,
            sessions: Some(vec!["htop".into()]),
            profiles: vec![],
            metrics: false,
        }];
        Access::new("admin-secret", &keys, Duration::from_secs(3600), 8).expect("valid")
    }

    #[test]
    fn authenticates_each_kind_of_credential() {
        let access = access();
        assert_eq!(
            access.authenticate("admin-secret").map(|g| g.role()),
            Some(Role::Admin)
        );
        let key = access.authenticate("view-secret").expect("the key");
        assert_eq!(key.role(), Role::View);
        assert_eq!(key.credential().to_string(), "key:grafana");
        let (_, token) = access
            .links()
            .mint("s1", Role::Control, Duration::from_secs(60), None)
            .expect("minted");
        let link = access.authenticate(&token).expect("the link");
        assert_eq!(link.role(), Role::Control);
        assert!(access.authenticate("nothing").is_none());
        assert!(access.authenticate("").is_none());
        assert!(access.authenticate("admin secret").is_none());
    }

    #[test]
    fn another_nodes_principal_gets_the_grant_this_configuration_gives() {
        let access = access();
        let admin = access.regrant(&Grant::admin().principal()).expect("admin");
        assert_eq!(admin.role(), Role::Admin);
        let key = access.authenticate("view-secret").expect("the key");
        let again = access.regrant(&key.principal()).expect("the key by name");
        assert_eq!(
            (again.role(), again.credential()),
            (Role::View, key.credential())
        );
        // A key this node does not have is no credential here.
        let stranger = Principal {
            credential: Credential::Key(Arc::from("nobody")),
            groups: vec![],
            link: None,
        };
        assert!(access.regrant(&stranger).is_none());
        // A link is claimed with its session and role; without a claim,
        // nothing.
        let (_, token) = access
            .links()
            .mint("s1", Role::View, Duration::from_secs(60), None)
            .expect("minted");
        let link = access.authenticate(&token).expect("the link");
        let regranted = access.regrant(&link.principal()).expect("the claim holds");
        assert_eq!(regranted.role(), Role::View);
        assert!(!regranted.may_read_metrics());
        let mut raised = link.principal();
        if let Some(claim) = raised.link.as_mut() {
            claim.role = Role::Control;
        }
        assert!(
            access.regrant(&raised).is_none(),
            "a role the link does not have"
        );
        let bare = Principal {
            link: None,
            ..link.principal()
        };
        assert!(access.regrant(&bare).is_none());
    }

    #[test]
    fn bad_keys_are_refused() {
        let keys = [KeyConfig {
            name: "x".into(),
            sha256: "123".into(),
            role: Role::View,
            sessions: None,
            profiles: vec![],
            metrics: false,
        }];
        assert!(Access::new("t", &keys, Duration::from_secs(1), 1).is_err());
    }
}

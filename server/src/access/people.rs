//! People: who signed in through the identity provider a trusted proxy
//! fronts (`[auth.proxy]`), and the rules that give them a role and a
//! scope (`[[auth.rules]]`), as `[[keys]]` give keys theirs.
//!
//! A person who matches no rule has no role: the API answers 403
//! `no_rule`. A person with the view or control role reaches the sessions
//! they started and those their rule names; admins reach every session.

use std::sync::Arc;

use serde::Deserialize;

use super::oidc::OidcConfigError;
use super::{Grant, Role};

/// The `[auth]` section of the configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// Who a trusted proxy says signed in.
    #[serde(default)]
    pub proxy: Option<ProxyAuth>,
    /// Which role and scope each person gets: the first rule that names
    /// them (or one of their groups).
    #[serde(default)]
    pub rules: Vec<RuleConfig>,
    /// Sign-in at an OpenID provider (`[auth.oidc]`).
    #[serde(default)]
    pub oidc: Option<super::oidc::OidcConfig>,
}

/// `[auth.proxy]`: the headers a proxy in `trusted_proxies` sets after it
/// authenticated the request. From any other peer they are ignored (and
/// the attempt logged).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProxyAuth {
    /// The header that names the user (`X-Forwarded-User`,
    /// `Tailscale-User-Login`).
    pub user_header: String,
    /// The header that lists the user's groups, separated by commas.
    #[serde(default)]
    pub groups_header: Option<String>,
}

/// One `[[auth.rules]]` entry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleConfig {
    /// User names it gives a role.
    #[serde(default)]
    pub users: Vec<String>,
    /// Groups whose members it gives a role.
    #[serde(default)]
    pub groups: Vec<String>,
    /// The role.
    pub role: Role,
    /// Names of the sessions it reaches besides the person's own; every
    /// session for an admin.
    #[serde(default)]
    pub sessions: Vec<String>,
    /// Profiles the person may start sessions from (control and admin).
    /// For an admin, empty means every profile.
    #[serde(default)]
    pub profiles: Vec<String>,
}

/// The most bytes a user or group name may have.
pub const MAX_PERSON_NAME: usize = 256;

impl AuthConfig {
    /// Checks the section: valid header names, `[auth.oidc]`, and every
    /// rule naming someone, with no profiles for a view role.
    pub fn validate(&self) -> Result<(), AuthConfigError> {
        if let Some(oidc) = &self.oidc {
            oidc.validate()?;
        }
        if let Some(proxy) = &self.proxy {
            let headers = std::iter::once(&proxy.user_header).chain(&proxy.groups_header);
            for name in headers {
                if axum::http::HeaderName::from_bytes(name.as_bytes()).is_err() {
                    return Err(AuthConfigError::NotAHeader(name.clone()));
                }
            }
        }
        for (i, rule) in self.rules.iter().enumerate() {
            if rule.users.is_empty() && rule.groups.is_empty() {
                return Err(AuthConfigError::NobodyNamed(i));
            }
            if rule.role == Role::View && !rule.profiles.is_empty() {
                return Err(AuthConfigError::ViewWithProfiles(i));
            }
        }
        Ok(())
    }
}

/// What is wrong with the `[auth]` section; each message says which
/// setting.
#[derive(Debug, thiserror::Error)]
pub enum AuthConfigError {
    /// `[auth.oidc]` is wrong.
    #[error(transparent)]
    Oidc(#[from] OidcConfigError),
    /// A header `[auth.proxy]` names is no header name.
    #[error("auth.proxy: '{0}' is not a header name")]
    NotAHeader(String),
    /// The rule at this index names neither users nor groups.
    #[error("auth.rules[{0}]: name users or groups")]
    NobodyNamed(usize),
    /// The rule at this index gives a view role profiles to start.
    #[error("auth.rules[{0}]: a view role cannot start sessions; remove its profiles")]
    ViewWithProfiles(usize),
}

/// The rules, ready to match.
#[derive(Debug, Clone, Default)]
pub struct People {
    rules: Vec<RuleConfig>,
}

impl People {
    /// The rules of `config`.
    pub fn new(config: &AuthConfig) -> People {
        People {
            rules: config.rules.clone(),
        }
    }

    /// The grant of `user`, a member of `groups`: the first rule that
    /// names them or one of their groups; `None` when none does.
    pub fn grant(&self, user: &str, groups: &[&str]) -> Option<Grant> {
        let rule = self.rules.iter().find(|rule| {
            rule.users.iter().any(|u| u == user)
                || rule.groups.iter().any(|g| groups.contains(&g.as_str()))
        })?;
        let sessions = (rule.role != Role::Admin).then(|| Arc::from(rule.sessions.as_slice()));
        let named: Vec<String> = groups
            .iter()
            .filter(|g| {
                self.rules
                    .iter()
                    .any(|rule| rule.groups.iter().any(|n| n == *g))
            })
            .map(|g| (*g).to_owned())
            .collect();
        Some(
            Grant::person(
                Arc::from(user),
                rule.role,
                sessions,
                Arc::from(rule.profiles.as_slice()),
            )
            .with_groups(Arc::from(named)),
        )
    }
}

impl People {
    /// Those of `groups` some rule names (the others change no grant).
    pub fn named_groups(&self, groups: &[String]) -> Vec<String> {
        groups
            .iter()
            .filter(|g| self.rules.iter().any(|rule| rule.groups.contains(g)))
            .cloned()
            .collect()
    }
}

/// A user or group name as a header gave it, when it is one: 1 to
/// [`MAX_PERSON_NAME`] bytes of printable text, trimmed.
pub fn person_name(value: &str) -> Option<&str> {
    let value = value.trim();
    let printable = value.chars().all(|c| !c.is_control());
    (!value.is_empty() && value.len() <= MAX_PERSON_NAME && printable).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::{Action, Credential, Target};

    fn people() -> People {
        let config: AuthConfig = toml::from_str(
            r#"
            [proxy]
            user_header = "X-Forwarded-User"
            groups_header = "X-Forwarded-Groups"

            [[rules]]
            users = ["root@example.com"]
            role = "admin"

            [[rules]]
            groups = ["ops"]
            role = "control"
            sessions = ["build"]
            profiles = ["shell"]

            [[rules]]
            users = ["guest"]
            role = "view"
            "#,
        )
        .expect("a valid section");
        config.validate().expect("valid");
        People::new(&config)
    }

    fn target<'a>(id: &'a str, name: Option<&'a str>, owner: Option<&'a Credential>) -> Target<'a> {
        Target { id, name, owner }
    }

    #[test]
    fn the_first_rule_that_names_a_person_or_group_gives_the_grant() {
        let people = people();
        let admin = people.grant("root@example.com", &[]).expect("a rule");
        assert_eq!(admin.role(), Role::Admin);
        assert!(admin.reaches(target("s", None, None)));
        let alice = people.grant("alice", &["dev", "ops"]).expect("by group");
        assert_eq!(alice.role(), Role::Control);
        assert_eq!(alice.credential().to_string(), "user:alice");
        // Her own sessions and the one named in the rule; nobody else's.
        let hers = Credential::User(Arc::from("alice"));
        assert!(alice.reaches(target("s1", None, Some(&hers))));
        assert!(alice.reaches(target("s2", Some("build"), None)));
        let bobs = Credential::User(Arc::from("bob"));
        assert!(!alice.reaches(target("s3", None, Some(&bobs))));
        assert!(alice.may_start(Some("shell")).is_ok());
        assert!(alice.may_start(None).is_err());
        let guest = people.grant("guest", &[]).expect("a rule");
        assert!(guest.check(Action::Control, None).is_err());
        assert!(people.grant("mallory", &["dev"]).is_none());
        let groups = ["dev".to_owned(), "ops".to_owned()];
        assert_eq!(people.named_groups(&groups), ["ops"]);
    }

    #[test]
    fn names_and_sections_are_checked() {
        assert_eq!(person_name(" alice "), Some("alice"));
        assert_eq!(person_name(""), None);
        assert_eq!(person_name("a\nb"), None);
        assert_eq!(person_name(&"x".repeat(MAX_PERSON_NAME + 1)), None);
        let nobody: AuthConfig = toml::from_str("[[rules]]\nrole = \"view\"").expect("parses");
        assert_eq!(
            nobody.validate().unwrap_err().to_string(),
            "auth.rules[0]: name users or groups"
        );
        let bad: AuthConfig = toml::from_str("[proxy]\nuser_header = \"X Bad\"").expect("parses");
        assert!(matches!(
            bad.validate(),
            Err(AuthConfigError::NotAHeader(name)) if name == "X Bad"
        ));
        let view: AuthConfig =
            toml::from_str("[[rules]]\nusers = [\"a\"]\nrole = \"view\"\nprofiles = [\"shell\"]")
                .expect("parses");
        assert!(matches!(
            view.validate(),
            Err(AuthConfigError::ViewWithProfiles(0))
        ));
    }
}

//! What an authenticated request may do: the role table, and the one check
//! every route goes through.

use std::sync::Arc;

use super::links::LinkTicket;
use super::Role;

/// Who a credential is, for logs and `GET /api/sessions/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Credential {
    /// The admin token.
    Admin,
    /// A key from the config, by name.
    Key(Arc<str>),
    /// A share link, by id.
    Link(String),
    /// A person, by the user name their sign-in gave.
    User(Arc<str>),
}

impl std::fmt::Display for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credential::Admin => f.write_str("admin-token"),
            Credential::Key(name) => write!(f, "key:{name}"),
            Credential::Link(id) => write!(f, "link:{id}"),
            Credential::User(name) => write!(f, "user:{name}"),
        }
    }
}

/// A string that is not a credential's [`Display`](std::fmt::Display) form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a credential: {0:?}")]
pub struct NotACredential(pub String);

impl std::str::FromStr for Credential {
    type Err = NotACredential;

    /// The credential shown as `s` (`admin-token`, `key:NAME`, `link:ID`):
    /// how a session's owner crosses between nodes. None of these is a
    /// secret: a key's name and a link's id, never their tokens.
    fn from_str(s: &str) -> Result<Credential, NotACredential> {
        if s == "admin-token" {
            Ok(Credential::Admin)
        } else if let Some(name) = s.strip_prefix("key:") {
            Ok(Credential::Key(Arc::from(name)))
        } else if let Some(id) = s.strip_prefix("link:") {
            Ok(Credential::Link(id.to_owned()))
        } else if let Some(name) = s.strip_prefix("user:") {
            Ok(Credential::User(Arc::from(name)))
        } else {
            Err(NotACredential(s.to_owned()))
        }
    }
}

/// Which sessions a credential reaches.
#[derive(Debug, Clone)]
enum Scope {
    /// Every session.
    All,
    /// Sessions with one of these names, and those the key started.
    Named(Arc<[String]>),
    /// One session, by id (a share link).
    Session(String),
}

/// A session as the check sees it.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its name, if it has one.
    pub name: Option<&'a str>,
    /// The credential that started it, if any.
    pub owner: Option<&'a Credential>,
}

/// What a route does, for the role table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// List sessions (each caller sees those it reaches) and profiles.
    List,
    /// Start a session (the profile is checked with [`Grant::may_start`]).
    Create,
    /// Read a session: its state, screen, scrollback, the stream.
    Read,
    /// Type, paste, mouse, resize.
    Control,
    /// End a session.
    Delete,
    /// Mint, list and revoke a session's share links.
    Share,
    /// A route the policy table does not list: only admins, so nothing
    /// slips through unchecked.
    Unlisted,
}

impl Action {
    /// The least role the action needs (`Create` is finer: see
    /// [`Grant::may_start`]).
    pub fn needs(self) -> Role {
        match self {
            Action::List | Action::Read => Role::View,
            Action::Control | Action::Create => Role::Control,
            Action::Delete | Action::Share | Action::Unlisted => Role::Admin,
        }
    }
}

/// Why a check failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// The session is outside the credential's scope: answered as if it
    /// did not exist, so ids cannot be probed.
    NotFound,
    /// In scope, but the role does not allow it.
    Forbidden(String),
}

/// An authenticated caller: who, with which role, reaching what.
#[derive(Debug, Clone)]
pub struct Grant {
    credential: Credential,
    role: Role,
    scope: Scope,
    /// Profiles it may start (keys); empty with [`Scope::All`] means all.
    profiles: Arc<[String]>,
    /// A person's groups that gave the grant (another node gives the
    /// grant again from them).
    groups: Arc<[String]>,
    link: Option<LinkTicket>,
    /// May read `/metrics` (besides admins).
    metrics: bool,
}

impl Grant {
    /// The admin token: everything.
    pub fn admin() -> Grant {
        Grant {
            credential: Credential::Admin,
            role: Role::Admin,
            scope: Scope::All,
            profiles: Arc::from([]),
            groups: Arc::from([]),
            link: None,
            metrics: false,
        }
    }

    /// A config key.
    pub fn key(
        name: Arc<str>,
        role: Role,
        sessions: Option<Arc<[String]>>,
        profiles: Arc<[String]>,
    ) -> Grant {
        Grant::named(Credential::Key(name), role, sessions, profiles)
    }

    /// A person a rule gave `role`, reaching their own sessions and those
    /// named `sessions` (`None`: every session).
    pub fn person(
        name: Arc<str>,
        role: Role,
        sessions: Option<Arc<[String]>>,
        profiles: Arc<[String]>,
    ) -> Grant {
        Grant::named(Credential::User(name), role, sessions, profiles)
    }

    /// A key's or a person's grant: `role` over the sessions named
    /// `sessions` (`None`: every session), starting `profiles`.
    fn named(
        credential: Credential,
        role: Role,
        sessions: Option<Arc<[String]>>,
        profiles: Arc<[String]>,
    ) -> Grant {
        Grant {
            credential,
            role,
            scope: sessions.map_or(Scope::All, Scope::Named),
            profiles,
            groups: Arc::from([]),
            link: None,
            metrics: false,
        }
    }

    /// The same grant, given for being a member of `groups`.
    pub fn with_groups(mut self, groups: Arc<[String]>) -> Grant {
        self.groups = groups;
        self
    }

    /// A share link.
    pub fn link(ticket: LinkTicket) -> Grant {
        Grant {
            link: Some(ticket.clone()),
            ..Grant::claimed_link(ticket.id, ticket.session, ticket.role)
        }
    }

    /// A share link another node checked: link `id` with `role` on
    /// `session`, without the ticket its token gives.
    pub(super) fn claimed_link(id: String, session: String, role: Role) -> Grant {
        Grant {
            credential: Credential::Link(id),
            role,
            scope: Scope::Session(session),
            profiles: Arc::from([]),
            groups: Arc::from([]),
            link: None,
            metrics: false,
        }
    }

    /// The same grant, allowed (or not) to read `/metrics`.
    pub fn with_metrics(mut self, allowed: bool) -> Grant {
        self.metrics = allowed;
        self
    }

    /// May this caller read `/metrics`? Admins, and keys the config allows
    /// (`metrics = true`); never a share link.
    pub fn may_read_metrics(&self) -> bool {
        !matches!(self.credential, Credential::Link(_))
            && (self.role == Role::Admin || self.metrics)
    }

    /// Who this is.
    pub fn credential(&self) -> &Credential {
        &self.credential
    }

    /// Its role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The share link it came from, if it did.
    pub fn link_ticket(&self) -> Option<&LinkTicket> {
        self.link.as_ref()
    }

    /// A person's groups that gave the grant.
    pub fn groups(&self) -> &[String] {
        &self.groups
    }

    /// The share link's session, role and expiry, when it came from one.
    pub(super) fn link_claim(&self) -> Option<super::LinkClaim> {
        self.link.as_ref().map(|ticket| super::LinkClaim {
            session: ticket.session.clone(),
            role: ticket.role,
            expires_at_ms: ticket
                .expires_at
                .duration_since(std::time::SystemTime::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        })
    }

    /// True when the session is within this credential's scope.
    pub fn reaches(&self, target: Target<'_>) -> bool {
        match &self.scope {
            Scope::All => true,
            Scope::Session(id) => id == target.id,
            Scope::Named(names) => {
                target.owner == Some(&self.credential)
                    || target
                        .name
                        .is_some_and(|n| names.iter().any(|allowed| allowed == n))
            }
        }
    }

    /// The one check: may this caller do `action` (on `target`, for
    /// actions on a session)?
    pub fn check(&self, action: Action, target: Option<Target<'_>>) -> Result<(), Denied> {
        if let Some(target) = target {
            if !self.reaches(target) {
                return Err(Denied::NotFound);
            }
        }
        if self.role < action.needs() {
            return Err(Denied::Forbidden(format!(
                "a {} credential may not {}",
                self.role,
                describe(action)
            )));
        }
        Ok(())
    }

    /// May this caller start a session from `profile` (`None`: a command
    /// given in the request)? Admins with no profile list may start any;
    /// keys with a list may start only those profiles, never a command.
    pub fn may_start(&self, profile: Option<&str>) -> Result<(), Denied> {
        let allowed = match (self.role, profile) {
            (Role::View, _) => false,
            (_, None) => self.role == Role::Admin && self.profiles.is_empty(),
            (Role::Admin, Some(_)) => self.profiles.is_empty() || self.lists(profile),
            (Role::Control, Some(_)) => self.lists(profile),
        };
        if allowed {
            return Ok(());
        }
        Err(Denied::Forbidden(match profile {
            Some(name) => format!("this credential may not start the profile '{name}'"),
            None => "this credential may not start a command".to_owned(),
        }))
    }
}

impl Grant {
    /// May this caller give a new session the name `name`? A credential
    /// scoped to names may use only those (it reaches its unnamed sessions
    /// as their owner); a share link names nothing.
    pub fn may_name(&self, name: &str) -> Result<(), Denied> {
        let allowed = match &self.scope {
            Scope::All => true,
            Scope::Named(names) => names.iter().any(|allowed| allowed == name),
            Scope::Session(_) => false,
        };
        if allowed {
            return Ok(());
        }
        Err(Denied::Forbidden(format!(
            "this credential may not name a session '{name}': the name is outside its scope"
        )))
    }

    fn lists(&self, profile: Option<&str>) -> bool {
        profile.is_some_and(|name| self.profiles.iter().any(|p| p == name))
    }
}

fn describe(action: Action) -> &'static str {
    match action {
        Action::List => "list sessions",
        Action::Create => "start sessions",
        Action::Read => "read this session",
        Action::Control => "type into or resize a session",
        Action::Delete => "end sessions",
        Action::Share => "manage share links",
        Action::Unlisted => "use this route",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target<'a>(id: &'a str, name: Option<&'a str>, owner: Option<&'a Credential>) -> Target<'a> {
        Target { id, name, owner }
    }

    fn key(role: Role, sessions: Option<&[&str]>, profiles: &[&str]) -> Grant {
        Grant::key(
            Arc::from("k"),
            role,
            sessions.map(|s| s.iter().map(|n| n.to_string()).collect()),
            profiles.iter().map(|p| p.to_string()).collect(),
        )
    }

    #[test]
    fn credentials_read_back_from_their_display_form() {
        for credential in [
            Credential::Admin,
            Credential::Key(Arc::from("grafana")),
            Credential::Link("8b90".to_owned()),
        ] {
            assert_eq!(credential.to_string().parse(), Ok(credential));
        }
        assert_eq!(
            "token:x".parse::<Credential>(),
            Err(NotACredential("token:x".to_owned()))
        );
    }

    #[test]
    fn the_role_table() {
        let s = target("1", None, None);
        let view = key(Role::View, None, &[]);
        let control = key(Role::Control, None, &[]);
        let admin = Grant::admin();
        for (grant, allowed) in [
            (&view, [true, true, false, false, false]),
            (&control, [true, true, true, false, false]),
            (&admin, [true, true, true, true, true]),
        ] {
            let actions = [
                Action::List,
                Action::Read,
                Action::Control,
                Action::Delete,
                Action::Share,
            ];
            for (action, ok) in actions.into_iter().zip(allowed) {
                assert_eq!(
                    grant.check(action, Some(s)).is_ok(),
                    ok,
                    "{:?} {action:?}",
                    grant.role()
                );
            }
        }
    }

    #[test]
    fn out_of_scope_sessions_are_not_found_not_forbidden() {
        let scoped = key(Role::View, Some(&["htop"]), &[]);
        assert!(scoped
            .check(Action::Read, Some(target("1", Some("htop"), None)))
            .is_ok());
        assert_eq!(
            scoped.check(Action::Read, Some(target("2", Some("other"), None))),
            Err(Denied::NotFound)
        );
        assert_eq!(
            scoped.check(Action::Delete, Some(target("2", None, None))),
            Err(Denied::NotFound)
        );
        assert!(matches!(
            scoped.check(Action::Delete, Some(target("1", Some("htop"), None))),
            Err(Denied::Forbidden(_))
        ));
    }

    #[test]
    fn a_key_reaches_the_sessions_it_started() {
        let starter = key(Role::Control, Some(&[]), &["shell"]);
        let mine = Credential::Key(Arc::from("k"));
        let theirs = Credential::Key(Arc::from("other"));
        assert!(starter.reaches(target("1", None, Some(&mine))));
        assert!(!starter.reaches(target("2", None, Some(&theirs))));
        assert!(!starter.reaches(target("3", None, None)));
    }

    #[test]
    fn who_may_start_what() {
        assert!(Grant::admin().may_start(Some("anything")).is_ok());
        assert!(Grant::admin().may_start(None).is_ok());
        let control = key(Role::Control, None, &["logs"]);
        assert!(control.may_start(Some("logs")).is_ok());
        assert!(control.may_start(Some("shell")).is_err());
        assert!(control.may_start(None).is_err());
        assert!(key(Role::Control, None, &[])
            .may_start(Some("shell"))
            .is_err());
        assert!(key(Role::View, None, &[]).may_start(Some("shell")).is_err());
        let limited_admin = key(Role::Admin, None, &["logs"]);
        assert!(limited_admin.may_start(Some("logs")).is_ok());
        assert!(limited_admin.may_start(Some("shell")).is_err());
        assert!(limited_admin.may_start(None).is_err());
        assert!(key(Role::Admin, None, &[]).may_start(None).is_ok());
    }

    #[test]
    fn a_scoped_key_names_only_what_it_reaches() {
        let scoped = key(Role::Control, Some(&["mine"]), &["shell"]);
        assert!(scoped.may_name("mine").is_ok());
        assert!(matches!(scoped.may_name("htop"), Err(Denied::Forbidden(_))));
        assert!(key(Role::Control, None, &[]).may_name("htop").is_ok());
        assert!(Grant::admin().may_name("htop").is_ok());
    }
}

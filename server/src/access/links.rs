//! Share links: per-session tokens with a role and a lifetime, minted by an
//! admin. Only a digest of each token is kept; links live in memory and end
//! with their session. Revoking one tells every stream opened with it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use tokio::sync::watch;

use super::secret::{self, SecretHash};
use super::Role;

/// A link as listed: everything but its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkInfo {
    /// Its id: public, used to revoke it.
    pub id: String,
    /// The session it reaches.
    pub session: String,
    /// `View` or `Control`.
    pub role: Role,
    /// When it was minted.
    pub created_at: SystemTime,
    /// When it stops working.
    pub expires_at: SystemTime,
    /// Streams open with it now.
    pub viewers: usize,
}

/// A link as handed over across an upgrade: what the store keeps of it,
/// the token's SHA-256 and never the token.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SavedLink {
    /// The token's SHA-256, as 64 hex digits.
    pub token_hash: String,
    /// Its id.
    pub id: String,
    /// The session it reaches.
    pub session: String,
    /// `View` or `Control`.
    pub role: Role,
    /// When it was minted.
    pub created_at: SystemTime,
    /// When it stops working.
    pub expires_at: SystemTime,
}

/// What a request carrying a link's token gets: the link, a way to learn
/// that it was revoked, and its viewer counter.
#[derive(Debug, Clone)]
pub struct LinkTicket {
    /// The link's id.
    pub id: String,
    /// The session it reaches.
    pub session: String,
    /// Its role.
    pub role: Role,
    /// When it stops working.
    pub expires_at: SystemTime,
    revoked: watch::Receiver<bool>,
    viewers: Arc<AtomicUsize>,
}

impl LinkTicket {
    /// Completes once the link is revoked (or its session ended).
    pub async fn revoked(&self) {
        let mut revoked = self.revoked.clone();
        // An error means the link was dropped: revoked too.
        let _ = revoked.wait_for(|r| *r).await;
    }

    /// Counts a stream open with this link until the guard is dropped.
    pub fn watching(&self) -> ViewerGuard {
        self.viewers.fetch_add(1, Ordering::AcqRel);
        ViewerGuard(Arc::clone(&self.viewers))
    }
}

/// Keeps a stream counted on its link.
pub struct ViewerGuard(Arc<AtomicUsize>);

impl Drop for ViewerGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A link could not be minted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// Links may carry `view` or `control` only.
    #[error("a link's role must be 'view' or 'control'")]
    BadRole,
    /// The lifetime is zero or over the configured maximum.
    #[error("ttl must be 1 to {0} seconds")]
    BadTtl(u64),
    /// The session has as many live links as allowed.
    #[error("this session has {0} live links already; revoke one first")]
    TooMany(usize),
    /// No randomness for the token.
    #[error("cannot generate a token: {0}")]
    Random(String),
}

/// A saved link could not be taken back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SavedLinkError {
    /// Its token hash is not 64 hex digits.
    #[error("saved link {0}: the token hash is not 64 hex digits")]
    BadHash(String),
    /// Its role is not one a link may have.
    #[error("saved link {0}: a link's role must be 'view' or 'control'")]
    BadRole(String),
}

struct Link {
    info: LinkInfo,
    revoked: watch::Sender<bool>,
    viewers: Arc<AtomicUsize>,
}

/// Every live link, by the digest of its token.
pub struct Links {
    links: Mutex<HashMap<SecretHash, Link>>,
    max_ttl: Duration,
    max_per_session: usize,
}

impl Links {
    /// An empty store: lifetimes up to `max_ttl`, `max_per_session` live
    /// links per session.
    pub fn new(max_ttl: Duration, max_per_session: usize) -> Links {
        Links {
            links: Mutex::new(HashMap::new()),
            max_ttl,
            max_per_session,
        }
    }

    /// Mints a link to `session`; returns it and its token (shown once).
    pub fn mint(
        &self,
        session: &str,
        role: Role,
        ttl: Duration,
    ) -> Result<(LinkInfo, String), LinkError> {
        if role == Role::Admin {
            return Err(LinkError::BadRole);
        }
        if ttl.is_zero() || ttl > self.max_ttl {
            return Err(LinkError::BadTtl(self.max_ttl.as_secs()));
        }
        let token = secret::generate().map_err(|e| LinkError::Random(e.to_string()))?;
        let id = secret::generate().map_err(|e| LinkError::Random(e.to_string()))?[..16].to_owned();
        let now = SystemTime::now();
        let mut links = self.lock();
        prune(&mut links, now);
        let live = links.values().filter(|l| l.info.session == session).count();
        if live >= self.max_per_session {
            return Err(LinkError::TooMany(self.max_per_session));
        }
        let info = LinkInfo {
            id,
            session: session.to_owned(),
            role,
            created_at: now,
            expires_at: now + ttl,
            viewers: 0,
        };
        links.insert(
            secret::hash(token.as_bytes()),
            Link {
                info: info.clone(),
                revoked: watch::channel(false).0,
                viewers: Arc::default(),
            },
        );
        Ok((info, token))
    }

    /// The live links of `session`, oldest first.
    pub fn list(&self, session: &str) -> Vec<LinkInfo> {
        let mut links = self.lock();
        prune(&mut links, SystemTime::now());
        let mut out: Vec<LinkInfo> = links
            .values()
            .filter(|l| l.info.session == session)
            .map(|l| LinkInfo {
                viewers: l.viewers.load(Ordering::Acquire),
                ..l.info.clone()
            })
            .collect();
        out.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        out
    }

    /// Revokes a link of `session`; its streams are told at once. False
    /// when there is no such live link.
    pub fn revoke(&self, session: &str, id: &str) -> Option<LinkInfo> {
        let mut links = self.lock();
        let key = links
            .iter()
            .find(|(_, l)| l.info.session == session && l.info.id == id)
            .map(|(key, _)| *key)?;
        let link = links.remove(&key)?;
        link.revoked.send_replace(true);
        Some(link.info)
    }

    /// Revokes every link of a session that ended.
    pub fn end_session(&self, session: &str) {
        self.lock().retain(|_, link| {
            let keep = link.info.session != session;
            if !keep {
                link.revoked.send_replace(true);
            }
            keep
        });
    }

    /// The live link whose token is `token`.
    pub fn find(&self, token: &str) -> Option<LinkTicket> {
        let now = SystemTime::now();
        let links = self.lock();
        let link = links.get(&secret::hash(token.as_bytes()))?;
        if link.info.expires_at <= now {
            return None;
        }
        Some(LinkTicket {
            id: link.info.id.clone(),
            session: link.info.session.clone(),
            role: link.info.role,
            expires_at: link.info.expires_at,
            revoked: link.revoked.subscribe(),
            viewers: Arc::clone(&link.viewers),
        })
    }

    /// The live links of every session as they are kept (the token's hash,
    /// never the token), to be handed over with [`Links::restore`].
    pub fn saved(&self) -> Vec<SavedLink> {
        let mut links = self.lock();
        prune(&mut links, SystemTime::now());
        let mut out: Vec<SavedLink> = links
            .iter()
            .map(|(hash, link)| SavedLink {
                token_hash: secret::hex(hash),
                id: link.info.id.clone(),
                session: link.info.session.clone(),
                role: link.info.role,
                created_at: link.info.created_at,
                expires_at: link.info.expires_at,
            })
            .collect();
        out.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        out
    }

    /// Takes back links [`Links::saved`] gave; their tokens work again until
    /// they expire. Refuses (taking none) a link whose hash is not 64 hex
    /// digits or whose role a link cannot have.
    pub fn restore(&self, saved: Vec<SavedLink>) -> Result<(), SavedLinkError> {
        let mut parsed = Vec::with_capacity(saved.len());
        for link in saved {
            let hash = secret::parse_hex(&link.token_hash)
                .ok_or_else(|| SavedLinkError::BadHash(link.id.clone()))?;
            if link.role == Role::Admin {
                return Err(SavedLinkError::BadRole(link.id));
            }
            parsed.push((hash, link));
        }
        let mut links = self.lock();
        for (hash, link) in parsed {
            let info = LinkInfo {
                id: link.id,
                session: link.session,
                role: link.role,
                created_at: link.created_at,
                expires_at: link.expires_at,
                viewers: 0,
            };
            let link = Link {
                info,
                revoked: watch::channel(false).0,
                viewers: Arc::default(),
            };
            links.insert(hash, link);
        }
        prune(&mut links, SystemTime::now());
        Ok(())
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<SecretHash, Link>> {
        // Every update is a single insert or remove: consistent after a panic.
        self.links.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Drops expired links, telling their streams.
fn prune(links: &mut HashMap<SecretHash, Link>, now: SystemTime) {
    links.retain(|_, link| {
        let live = link.info.expires_at > now;
        if !live {
            link.revoked.send_replace(true);
        }
        live
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: Duration = Duration::from_secs(86_400);

    fn store() -> Links {
        Links::new(7 * DAY, 3)
    }

    #[test]
    fn saved_links_are_taken_back_with_their_expiry_and_no_token() {
        let links = store();
        let (info, token) = links.mint("s1", Role::Control, DAY).expect("minted");
        let saved = links.saved();
        assert_eq!(saved.len(), 1);
        assert_eq!(
            saved[0].token_hash,
            secret::hex(&secret::hash(token.as_bytes()))
        );
        let text = serde_json::to_string(&saved).expect("serializes");
        assert!(!text.contains(&token), "the token itself is never saved");
        let later = store();
        later.restore(saved).expect("taken back");
        let ticket = later.find(&token).expect("the token works again");
        assert_eq!(
            (ticket.id, ticket.role, ticket.expires_at),
            (info.id, Role::Control, info.expires_at)
        );
        assert_eq!(later.list("s1")[0].created_at, info.created_at);
    }

    #[test]
    fn a_saved_link_with_a_bad_hash_or_role_is_refused_whole() {
        let links = store();
        links.mint("s1", Role::View, DAY).expect("minted");
        let mut saved = links.saved();
        let good = saved[0].clone();
        saved.push(SavedLink {
            token_hash: "zz".into(),
            id: "bad".into(),
            ..good.clone()
        });
        let later = store();
        assert_eq!(
            later.restore(saved),
            Err(SavedLinkError::BadHash("bad".into()))
        );
        assert!(later.list("s1").is_empty(), "nothing taken");
        let admin = SavedLink {
            role: Role::Admin,
            ..good
        };
        assert!(matches!(
            later.restore(vec![admin]),
            Err(SavedLinkError::BadRole(_))
        ));
    }

    #[test]
    fn expired_saved_links_are_dropped() {
        let links = store();
        links.mint("s1", Role::View, DAY).expect("minted");
        let mut saved = links.saved();
        saved[0].expires_at = SystemTime::now() - Duration::from_secs(1);
        let later = store();
        later.restore(saved).expect("taken back");
        assert!(later.list("s1").is_empty());
    }

    #[test]
    fn a_minted_link_is_found_by_its_token_only() {
        let links = store();
        let (info, token) = links.mint("s1", Role::View, DAY).expect("minted");
        let ticket = links.find(&token).expect("found");
        assert_eq!(
            (ticket.id.as_str(), ticket.session.as_str()),
            (info.id.as_str(), "s1")
        );
        assert_eq!(ticket.role, Role::View);
        assert!(links.find("not-the-token").is_none());
        assert!(links.find(&token[..31]).is_none());
    }

    #[test]
    fn roles_ttls_and_counts_are_bounded() {
        let links = store();
        assert_eq!(
            links.mint("s", Role::Admin, DAY).unwrap_err(),
            LinkError::BadRole
        );
        assert_eq!(
            links.mint("s", Role::View, Duration::ZERO).unwrap_err(),
            LinkError::BadTtl(7 * 86_400)
        );
        assert_eq!(
            links.mint("s", Role::View, 8 * DAY).unwrap_err(),
            LinkError::BadTtl(7 * 86_400)
        );
        for _ in 0..3 {
            links.mint("s", Role::Control, DAY).expect("under the cap");
        }
        assert_eq!(
            links.mint("s", Role::View, DAY).unwrap_err(),
            LinkError::TooMany(3)
        );
        assert!(links.mint("other", Role::View, DAY).is_ok());
    }

    #[tokio::test]
    async fn revoking_tells_the_ticket_and_stops_the_token() {
        let links = store();
        let (info, token) = links.mint("s", Role::Control, DAY).expect("minted");
        let ticket = links.find(&token).expect("found");
        let guard = ticket.watching();
        assert_eq!(links.list("s")[0].viewers, 1);
        drop(guard);
        assert_eq!(links.list("s")[0].viewers, 0);
        assert!(links.revoke("other", &info.id).is_none());
        assert!(links.revoke("s", &info.id).is_some());
        tokio::time::timeout(Duration::from_secs(1), ticket.revoked())
            .await
            .expect("told at once");
        assert!(links.find(&token).is_none());
        assert!(links.list("s").is_empty());
    }

    #[tokio::test]
    async fn ending_a_session_revokes_its_links() {
        let links = store();
        let (_, a) = links.mint("s", Role::View, DAY).expect("minted");
        let (_, b) = links.mint("t", Role::View, DAY).expect("minted");
        let ticket = links.find(&a).expect("found");
        links.end_session("s");
        tokio::time::timeout(Duration::from_secs(1), ticket.revoked())
            .await
            .expect("told");
        assert!(links.find(&a).is_none());
        assert!(links.find(&b).is_some());
    }

    #[test]
    fn expired_links_are_gone() {
        let links = store();
        let (_, token) = links
            .mint("s", Role::View, Duration::from_millis(20))
            .expect("minted");
        std::thread::sleep(Duration::from_millis(40));
        assert!(links.find(&token).is_none());
        assert!(links.list("s").is_empty());
    }
}

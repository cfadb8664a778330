//! Share links: per-session tokens with a role and a lifetime, minted by an
//! admin. Only a digest of each token is kept; links live in memory and end
//! with their session. Revoking one tells every stream opened with it.
//!
//! In a cluster every node holds every link: the links minted and revoked
//! here are told to the other nodes ([`Links::replicate`]), and theirs are
//! taken in ([`Links::apply`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use tokio::sync::{mpsc, watch};

use super::secret::{self, SecretHash};

/// Longest link label, in bytes: the longest name a room shows.
pub const MAX_LABEL: usize = panecast_proto::limits::MAX_MEMBER_NAME;
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
    /// What the people who open it are called in the room.
    pub label: Option<String>,
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
    /// What the people who open it are called in the room (absent in
    /// what older servers saved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
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
    /// Its label, if it was given one.
    pub label: Option<String>,
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

    /// Completes once the link is revoked (or its session ended) or
    /// expires: what a stream opened with it waits for to close.
    pub async fn ended(&self) {
        let expiry = self
            .expires_at
            .duration_since(SystemTime::now())
            .unwrap_or_default();
        tokio::select! {
            () = self.revoked() => {}
            () = tokio::time::sleep(expiry) => {}
        }
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
    /// The label is too long or holds control characters.
    #[error("a label is 1 to {MAX_LABEL} bytes of text without control characters")]
    BadLabel,
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

/// A change to the links made on this node, for the other nodes of a
/// cluster, or made on another and taken in here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkChange {
    /// A link was minted (or came with an upgrade).
    Minted(SavedLink),
    /// The link whose token has this SHA-256 (64 hex digits) was revoked,
    /// or its session ended.
    Revoked(String),
}

struct Link {
    info: LinkInfo,
    revoked: watch::Sender<bool>,
    viewers: Arc<AtomicUsize>,
}

/// Every live link, by the digest of its token.
pub struct Links {
    links: Mutex<HashMap<SecretHash, Link>>,
    /// Links revoked (here or on another node) before they expired, by
    /// id, until they would have: another node's claim of one is refused.
    revoked: Mutex<HashMap<String, SystemTime>>,
    max_ttl: Duration,
    max_per_session: usize,
    /// Where this node's changes go, in a cluster.
    changes: Mutex<Option<mpsc::UnboundedSender<LinkChange>>>,
}

impl Links {
    /// An empty store: lifetimes up to `max_ttl`, `max_per_session` live
    /// links per session.
    pub fn new(max_ttl: Duration, max_per_session: usize) -> Links {
        Links {
            links: Mutex::new(HashMap::new()),
            revoked: Mutex::new(HashMap::new()),
            max_ttl,
            max_per_session,
            changes: Mutex::new(None),
        }
    }

    /// From now on, every link minted or revoked here is told on the
    /// returned receiver, starting with every live link (taken over in an
    /// upgrade, or minted before).
    pub fn replicate(&self) -> mpsc::UnboundedReceiver<LinkChange> {
        let (sender, receiver) = mpsc::unbounded_channel();
        for link in self.saved() {
            // The receiver is held right here.
            let _ = sender.send(LinkChange::Minted(link));
        }
        *self.changes.lock().unwrap_or_else(PoisonError::into_inner) = Some(sender);
        receiver
    }

    /// Tells `change` to the other nodes, when replicating.
    fn tell(&self, change: LinkChange) {
        if let Some(sender) = &*self.changes.lock().unwrap_or_else(PoisonError::into_inner) {
            // A closed receiver: the cluster is gone; this node goes on.
            let _ = sender.send(change);
        }
    }

    /// Takes in another node's change (told back to no one): a link
    /// minted there works here until it expires; a link revoked there is
    /// revoked here, and its streams told at once. A minted link already
    /// held, or a malformed one, changes nothing.
    pub fn apply(&self, change: LinkChange) {
        match change {
            LinkChange::Minted(link) => {
                let Some(hash) = secret::parse_hex(&link.token_hash) else {
                    return;
                };
                if link.role == Role::Admin {
                    return;
                }
                self.lock().entry(hash).or_insert_with(|| held(link));
            }
            LinkChange::Revoked(hash) => {
                let Some(hash) = secret::parse_hex(&hash) else {
                    return;
                };
                let removed = self.lock().remove(&hash);
                if let Some(link) = removed {
                    link.revoked.send_replace(true);
                    self.remember_revoked(&link.info);
                }
            }
        }
    }

    /// Mints a link to `session`, shown in the room as `label`; returns
    /// it and its token (shown once).
    pub fn mint(
        &self,
        session: &str,
        role: Role,
        ttl: Duration,
        label: Option<String>,
    ) -> Result<(LinkInfo, String), LinkError> {
        if role == Role::Admin {
            return Err(LinkError::BadRole);
        }
        if let Some(label) = &label {
            if label.is_empty() || label.len() > MAX_LABEL || label.chars().any(char::is_control) {
                return Err(LinkError::BadLabel);
            }
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
            label,
            created_at: now,
            expires_at: now + ttl,
            viewers: 0,
        };
        let hash = secret::hash(token.as_bytes());
        links.insert(
            hash,
            Link {
                info: info.clone(),
                revoked: watch::channel(false).0,
                viewers: Arc::default(),
            },
        );
        drop(links);
        self.tell(LinkChange::Minted(saved(&hash, &info)));
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
        drop(links);
        self.remember_revoked(&link.info);
        self.tell(LinkChange::Revoked(secret::hex(&key)));
        Some(link.info)
    }

    /// Revokes every link of a session that ended.
    pub fn end_session(&self, session: &str) {
        let mut ended = Vec::new();
        self.lock().retain(|hash, link| {
            let keep = link.info.session != session;
            if !keep {
                link.revoked.send_replace(true);
                ended.push((secret::hex(hash), link.info.clone()));
            }
            keep
        });
        for (hash, info) in ended {
            self.remember_revoked(&info);
            self.tell(LinkChange::Revoked(hash));
        }
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
            label: link.info.label.clone(),
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
            .map(|(hash, link)| saved(hash, &link.info))
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
            links.insert(hash, held(link));
        }
        prune(&mut links, SystemTime::now());
        Ok(())
    }

    /// Whether another node's claim of link `id` holds here: a link this
    /// node holds must be the one claimed (same session and role), a link
    /// it knows revoked does not hold, and none holds once expired. A link
    /// this node has not heard of yet (minted a moment ago elsewhere)
    /// holds as claimed: the claim comes sealed by a node.
    pub fn claim_holds(&self, id: &str, session: &str, role: Role, expires_at: SystemTime) -> bool {
        let now = SystemTime::now();
        if expires_at <= now || role == Role::Admin {
            return false;
        }
        let known = self
            .lock()
            .values()
            .find(|link| link.info.id == id)
            .map(|link| (link.info.session.clone(), link.info.role));
        match known {
            Some((known_session, known_role)) => known_session == session && known_role == role,
            None => self.revoked().get(id).is_none_or(|until| *until <= now),
        }
    }

    /// Remembers that `info`'s link was revoked, until it would expire.
    fn remember_revoked(&self, info: &LinkInfo) {
        let now = SystemTime::now();
        let mut revoked = self.revoked();
        revoked.retain(|_, until| *until > now);
        revoked.insert(info.id.clone(), info.expires_at);
    }

    fn revoked(&self) -> MutexGuard<'_, HashMap<String, SystemTime>> {
        // Single inserts and retains: consistent after a panic.
        self.revoked.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<SecretHash, Link>> {
        // Every update is a single insert or remove: consistent after a panic.
        self.links.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A saved link, held again: no stream open with it yet.
fn held(link: SavedLink) -> Link {
    Link {
        info: LinkInfo {
            id: link.id,
            session: link.session,
            role: link.role,
            label: link.label,
            created_at: link.created_at,
            expires_at: link.expires_at,
            viewers: 0,
        },
        revoked: watch::channel(false).0,
        viewers: Arc::default(),
    }
}

/// A link as saved: its token's hash, never the token.
fn saved(hash: &SecretHash, info: &LinkInfo) -> SavedLink {
    SavedLink {
        token_hash: secret::hex(hash),
        id: info.id.clone(),
        session: info.session.clone(),
        role: info.role,
        label: info.label.clone(),
        created_at: info.created_at,
        expires_at: info.expires_at,
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
    fn another_nodes_claim_holds_only_as_this_node_knows_the_link() {
        let links = store();
        let (info, _) = links.mint("s1", Role::View, DAY, None).expect("minted");
        let later = SystemTime::now() + Duration::from_secs(60);
        assert!(links.claim_holds(&info.id, "s1", Role::View, later));
        // Known here otherwise: another session, or a higher role.
        assert!(!links.claim_holds(&info.id, "s2", Role::View, later));
        assert!(!links.claim_holds(&info.id, "s1", Role::Control, later));
        // Not heard of yet: as claimed, unless expired or admin.
        assert!(links.claim_holds("fresh", "s1", Role::Control, later));
        assert!(!links.claim_holds("fresh", "s1", Role::Control, SystemTime::now()));
        assert!(!links.claim_holds("fresh", "s1", Role::Admin, later));
        // Revoked here, or told revoked by another node: refused.
        links.revoke("s1", &info.id).expect("revoked");
        assert!(!links.claim_holds(&info.id, "s1", Role::View, later));
        let other = store();
        let (told, _) = other.mint("s3", Role::View, DAY, None).expect("minted");
        let receiver = store();
        receiver.apply(LinkChange::Minted(other.saved().remove(0)));
        let hash = other.saved().remove(0).token_hash;
        receiver.apply(LinkChange::Revoked(hash));
        assert!(!receiver.claim_holds(&told.id, "s3", Role::View, later));
    }

    #[test]
    fn saved_links_are_taken_back_with_their_expiry_and_no_token() {
        let links = store();
        let (info, token) = links.mint("s1", Role::Control, DAY, None).expect("minted");
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
        links.mint("s1", Role::View, DAY, None).expect("minted");
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
            label: None,
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
        links.mint("s1", Role::View, DAY, None).expect("minted");
        let mut saved = links.saved();
        saved[0].expires_at = SystemTime::now() - Duration::from_secs(1);
        let later = store();
        later.restore(saved).expect("taken back");
        assert!(later.list("s1").is_empty());
    }

    #[test]
    fn a_minted_link_is_found_by_its_token_only() {
        let links = store();
        let (info, token) = links.mint("s1", Role::View, DAY, None).expect("minted");
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
            links.mint("s", Role::Admin, DAY, None).unwrap_err(),
            LinkError::BadRole
        );
        assert_eq!(
            links
                .mint("s", Role::View, Duration::ZERO, None)
                .unwrap_err(),
            LinkError::BadTtl(7 * 86_400)
        );
        assert_eq!(
            links.mint("s", Role::View, 8 * DAY, None).unwrap_err(),
            LinkError::BadTtl(7 * 86_400)
        );
        for _ in 0..3 {
            links
                .mint("s", Role::Control, DAY, None)
                .expect("under the cap");
        }
        assert_eq!(
            links.mint("s", Role::View, DAY, None).unwrap_err(),
            LinkError::TooMany(3)
        );
        assert!(links.mint("other", Role::View, DAY, None).is_ok());
        for bad in ["", "a\nb", "\u{1b}[31m", &"x".repeat(MAX_LABEL + 1)] {
            assert_eq!(
                links
                    .mint("label", Role::View, DAY, Some(bad.to_owned()))
                    .unwrap_err(),
                LinkError::BadLabel,
                "{bad:?}"
            );
        }
        let (info, token) = links
            .mint("label", Role::View, DAY, Some("Demo für alle".to_owned()))
            .expect("a label of text");
        assert_eq!(info.label.as_deref(), Some("Demo für alle"));
        assert_eq!(links.find(&token).expect("live").label, info.label);
        assert_eq!(
            links
                .saved()
                .iter()
                .find(|l| l.id == info.id)
                .expect("saved")
                .label,
            info.label
        );
    }

    #[tokio::test]
    async fn revoking_tells_the_ticket_and_stops_the_token() {
        let links = store();
        let (info, token) = links.mint("s", Role::Control, DAY, None).expect("minted");
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
        let (_, a) = links.mint("s", Role::View, DAY, None).expect("minted");
        let (_, b) = links.mint("t", Role::View, DAY, None).expect("minted");
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
            .mint("s", Role::View, Duration::from_millis(20), None)
            .expect("minted");
        std::thread::sleep(Duration::from_millis(40));
        assert!(links.find(&token).is_none());
        assert!(links.list("s").is_empty());
    }

    #[tokio::test]
    async fn changes_on_one_node_reach_another() {
        let (here, there) = (store(), store());
        let (_, before) = here.mint("s", Role::View, DAY, None).expect("minted");
        let mut told = here.replicate();
        let (info, token) = here.mint("s", Role::Control, DAY, None).expect("minted");
        let mut changes = Vec::new();
        while let Ok(change) = told.try_recv() {
            changes.push(change);
        }
        assert_eq!(changes.len(), 2, "the live link, then the new one");
        for change in changes {
            // Taken in twice (a node's own change comes back): once.
            there.apply(change.clone());
            there.apply(change);
        }
        assert!(there.find(&before).is_some());
        let ticket = there.find(&token).expect("works on the other node");
        assert_eq!((ticket.role, ticket.session.as_str()), (Role::Control, "s"));
        assert_eq!(there.list("s").len(), 2);

        here.revoke("s", &info.id).expect("revoked");
        let Ok(LinkChange::Revoked(hash)) = told.try_recv() else {
            panic!("the revocation is told");
        };
        assert_eq!(hash, secret::hex(&secret::hash(token.as_bytes())));
        there.apply(LinkChange::Revoked(hash));
        tokio::time::timeout(Duration::from_secs(1), ticket.revoked())
            .await
            .expect("its streams are told");
        assert!(there.find(&token).is_none());

        here.end_session("s");
        there.apply(told.try_recv().expect("the session's link is told"));
        assert!(there.find(&before).is_none());
        // Changes taken in are not told again.
        there.apply(LinkChange::Revoked("00".repeat(32)));
        let mut quiet = there.replicate();
        assert!(quiet.try_recv().is_err());
        // Malformed changes change nothing.
        there.apply(LinkChange::Revoked("not hex".into()));
        let admin = SavedLink {
            label: None,
            token_hash: "ab".repeat(32),
            id: "x".into(),
            session: "s".into(),
            role: Role::Admin,
            created_at: SystemTime::now(),
            expires_at: SystemTime::now() + DAY,
        };
        there.apply(LinkChange::Minted(admin));
        assert!(there.list("s").is_empty());
    }
}

//! Who a request acts for, as one node names them to another: the
//! credential (a name or an id, never a secret) and what the receiving
//! node needs to give it its grant again from its own configuration. The
//! node that runs a session checks every request from the cluster bus as
//! if it came from outside: [`super::Access::regrant`] rebuilds the grant,
//! and the same [`Grant::check`](super::Grant::check) as the API's decides.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::{Credential, Grant, Role};

/// Who a request acts for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Principal {
    /// The credential.
    pub credential: Credential,
    /// A person's groups that a rule names: their grant depends on them.
    pub groups: Vec<String>,
    /// A share link as the sending node found it live.
    pub link: Option<LinkClaim>,
}

/// A share link's session, role and expiry, as the node that checked its
/// token found them. Links are replicated; the receiving node may not
/// hold one minted a moment ago, but it refuses one it knows revoked, or
/// knows otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkClaim {
    /// The session it reaches.
    pub session: String,
    /// Its role.
    pub role: Role,
    /// When it expires, in milliseconds since the Unix epoch.
    pub expires_at_ms: u64,
}

impl LinkClaim {
    /// When it expires.
    pub fn expires_at(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(self.expires_at_ms)
    }
}

impl Grant {
    /// Who this grant acts for, to name to another node.
    pub fn principal(&self) -> Principal {
        Principal {
            credential: self.credential().clone(),
            groups: self.groups().to_vec(),
            link: self.link_claim(),
        }
    }
}

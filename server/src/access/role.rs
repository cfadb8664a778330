//! The three roles, ordered by what they may do.

use serde::{Deserialize, Serialize};

/// What a credential may do. Each role may do everything the one before it
/// may: `View < Control < Admin`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Read a session: its screen, scrollback, and the live stream.
    View,
    /// Also type, paste, send mouse events and resize.
    Control,
    /// Everything: create, delete and list sessions, mint share links.
    Admin,
}

impl Role {
    /// The lowercase name used in the API, the config and the logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::View => "view",
            Role::Control => "control",
            Role::Admin => "admin",
        }
    }

    /// The role a stream connection gets on the wire: an admin controls.
    pub fn wire(self) -> panecast_proto::Role {
        match self {
            Role::View => panecast_proto::Role::View,
            Role::Control | Role::Admin => panecast_proto::Role::Control,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_ordered() {
        assert!(Role::View < Role::Control && Role::Control < Role::Admin);
        assert_eq!(Role::Admin.wire(), panecast_proto::Role::Control);
        assert_eq!(Role::View.wire(), panecast_proto::Role::View);
    }
}

//! A session's room: who is connected, by name, and whose window sets the
//! size under the node's size policy.
//!
//! The room is pure bookkeeping: it says which size to apply when someone
//! joins, leaves, reports their window or takes control, and the handle
//! applies it through the same resize as every transport.

use std::sync::Arc;

use panecast_proto::limits::{MAX_MEMBER_NAME, MAX_ROOM_ENTRIES};
use panecast_proto::{MemberKind, Role, RoomEntry, SizePolicy};

/// Who a connection is, as others may see it: a kind and a name, never a
/// secret (a link shows its label, or nothing).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Badge {
    kind: MemberKind,
    name: Arc<str>,
}

impl Badge {
    /// A badge of `kind` named `name`, cut to [`MAX_MEMBER_NAME`] bytes on
    /// a character boundary.
    pub fn new(kind: MemberKind, name: &str) -> Badge {
        let mut end = name.len().min(MAX_MEMBER_NAME);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        Badge {
            kind,
            name: Arc::from(&name[..end]),
        }
    }

    /// How they signed in.
    pub fn kind(&self) -> MemberKind {
        self.kind
    }

    /// Their name (empty for a link without a label).
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A connection's place in the room.
pub type MemberId = u64;

/// How many stream connections a session has, by role.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Presence {
    /// Connections that watch.
    pub view: usize,
    /// Connections that may type.
    pub control: usize,
}

#[derive(Debug, Clone)]
struct Member {
    id: MemberId,
    badge: Badge,
    role: Role,
    /// The window size it last reported (control connections only).
    size: Option<(u16, u16)>,
}

/// The connections to one session on this node, in the order they joined,
/// and the one that drives the size.
#[derive(Debug, Clone, Default)]
pub struct Room {
    policy: SizePolicy,
    members: Vec<Member>,
    driver: Option<MemberId>,
    next_id: MemberId,
}

impl Room {
    /// An empty room under `policy`.
    pub fn new(policy: SizePolicy) -> Room {
        Room {
            policy,
            ..Room::default()
        }
    }

    /// The size policy.
    pub fn policy(&self) -> SizePolicy {
        self.policy
    }

    /// Counts by role.
    pub fn presence(&self) -> Presence {
        let control = self
            .members
            .iter()
            .filter(|m| m.role == Role::Control)
            .count();
        Presence {
            view: self.members.len() - control,
            control,
        }
    }

    /// True when nobody is connected.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The connection that drives the size, if any.
    pub fn driver(&self) -> Option<MemberId> {
        self.driver
    }

    /// The badge of the connection that drives the size.
    pub fn driver_badge(&self) -> Option<&Badge> {
        let driver = self.driver?;
        self.members
            .iter()
            .find(|m| m.id == driver)
            .map(|m| &m.badge)
    }

    /// Adds a connection. The first control connection of an empty seat
    /// drives.
    pub fn join(&mut self, badge: Badge, role: Role) -> MemberId {
        self.next_id += 1;
        let id = self.next_id;
        self.members.push(Member {
            id,
            badge,
            role,
            size: None,
        });
        if role == Role::Control && self.driver.is_none() {
            self.driver = Some(id);
        }
        id
    }

    /// Removes a connection; returns the size to apply now, if the policy
    /// calls for one (the next driver's window, or a new smallest).
    pub fn leave(&mut self, id: MemberId) -> Option<(u16, u16)> {
        self.members.retain(|m| m.id != id);
        if self.driver == Some(id) {
            // The longest-connected control connection drives next.
            self.driver = self
                .members
                .iter()
                .find(|m| m.role == Role::Control)
                .map(|m| m.id);
        }
        self.size_to_apply()
    }

    /// Records a control connection's window; returns the size to apply
    /// now, if the policy lets this window count.
    pub fn report_size(&mut self, id: MemberId, cols: u16, rows: u16) -> Option<(u16, u16)> {
        let member = self.members.iter_mut().find(|m| m.id == id)?;
        if member.role != Role::Control {
            return None;
        }
        member.size = Some((cols, rows));
        match self.policy {
            SizePolicy::Driver if self.driver == Some(id) => Some((cols, rows)),
            SizePolicy::Smallest => self.size_to_apply(),
            SizePolicy::Driver | SizePolicy::Fixed => None,
        }
    }

    /// A control connection takes the driver's seat; returns its window's
    /// size to apply now under the `driver` policy. False (and nothing)
    /// for a connection without control.
    pub fn take_control(&mut self, id: MemberId) -> (bool, Option<(u16, u16)>) {
        let Some(member) = self.members.iter().find(|m| m.id == id) else {
            return (false, None);
        };
        if member.role != Role::Control {
            return (false, None);
        }
        self.driver = Some(id);
        (true, self.size_to_apply())
    }

    /// The size the policy asks for now, from the windows reported.
    fn size_to_apply(&self) -> Option<(u16, u16)> {
        match self.policy {
            SizePolicy::Driver => {
                let driver = self.driver?;
                self.members.iter().find(|m| m.id == driver)?.size
            }
            SizePolicy::Smallest => self
                .members
                .iter()
                .filter_map(|m| m.size)
                .reduce(|(c, r), (c2, r2)| (c.min(c2), r.min(r2))),
            SizePolicy::Fixed => None,
        }
    }

    /// Every connection: its place, badge and role, in the order they joined.
    pub fn members(&self) -> Vec<(MemberId, Badge, Role)> {
        self.members
            .iter()
            .map(|m| (m.id, m.badge.clone(), m.role))
            .collect()
    }

    /// The room as the `Room` message lists it for connection `you`:
    /// connections grouped by name, kind and role (the driver on its own),
    /// control first, then in the order they joined; at most
    /// [`MAX_ROOM_ENTRIES`] entries, the rest counted as unlisted.
    pub fn listing(&self, you: Option<MemberId>) -> panecast_proto::Room {
        let mut entries: Vec<RoomEntry> = Vec::new();
        let mut unlisted = 0u32;
        let ordered = self
            .members
            .iter()
            .filter(|m| m.role == Role::Control)
            .chain(self.members.iter().filter(|m| m.role == Role::View));
        for member in ordered {
            let drives = self.driver == Some(member.id);
            let same = |e: &&mut RoomEntry| {
                !e.drives
                    && !drives
                    && e.role == member.role
                    && e.kind == member.badge.kind
                    && *e.name == *member.badge.name
            };
            if let Some(entry) = entries.iter_mut().find(same) {
                entry.connections = entry.connections.saturating_add(1);
            } else if entries.len() < MAX_ROOM_ENTRIES {
                entries.push(RoomEntry {
                    name: member.badge.name.to_string(),
                    kind: member.badge.kind,
                    role: member.role,
                    drives,
                    connections: 1,
                });
            } else {
                unlisted = unlisted.saturating_add(1);
            }
        }
        panecast_proto::Room {
            policy: self.policy,
            you_drive: you.is_some() && self.driver == you,
            entries,
            unlisted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(name: &str) -> Badge {
        Badge::new(MemberKind::Person, name)
    }

    #[test]
    fn the_first_control_connection_drives_and_only_its_window_counts() {
        let mut room = Room::new(SizePolicy::Driver);
        let viewer = room.join(person("bob"), Role::View);
        assert_eq!(room.driver(), None);
        let alice = room.join(person("alice"), Role::Control);
        let phone = room.join(person("carol"), Role::Control);
        assert_eq!(room.driver(), Some(alice));
        assert_eq!(room.report_size(phone, 40, 20), None);
        assert_eq!(room.report_size(viewer, 10, 5), None);
        assert_eq!(room.report_size(alice, 120, 40), Some((120, 40)));
        assert_eq!(room.driver_badge(), Some(&person("alice")));
    }

    #[test]
    fn taking_control_applies_the_taker_s_window() {
        let mut room = Room::new(SizePolicy::Driver);
        let alice = room.join(person("alice"), Role::Control);
        let carol = room.join(person("carol"), Role::Control);
        let bob = room.join(person("bob"), Role::View);
        room.report_size(alice, 120, 40);
        room.report_size(carol, 40, 20);
        assert_eq!(room.take_control(bob), (false, None));
        assert_eq!(room.driver(), Some(alice));
        assert_eq!(room.take_control(carol), (true, Some((40, 20))));
        assert_eq!(room.report_size(alice, 100, 30), None);
        assert!(room.listing(Some(carol)).you_drive);
        assert!(!room.listing(Some(alice)).you_drive);
    }

    #[test]
    fn when_the_driver_leaves_the_longest_connected_controller_drives() {
        let mut room = Room::new(SizePolicy::Driver);
        let alice = room.join(person("alice"), Role::Control);
        room.join(person("bob"), Role::View);
        let carol = room.join(person("carol"), Role::Control);
        let dave = room.join(person("dave"), Role::Control);
        room.report_size(carol, 80, 24);
        room.report_size(dave, 60, 20);
        assert_eq!(room.leave(alice), Some((80, 24)));
        assert_eq!(room.driver(), Some(carol));
        assert_eq!(room.leave(dave), Some((80, 24)));
        assert_eq!(room.leave(carol), None);
        assert_eq!(room.driver(), None);
    }

    #[test]
    fn the_smallest_policy_takes_the_smallest_of_each_dimension() {
        let mut room = Room::new(SizePolicy::Smallest);
        let a = room.join(person("a"), Role::Control);
        let b = room.join(person("b"), Role::Control);
        let v = room.join(person("v"), Role::View);
        assert_eq!(room.report_size(a, 120, 30), Some((120, 30)));
        assert_eq!(room.report_size(b, 80, 50), Some((80, 30)));
        assert_eq!(room.report_size(v, 10, 10), None);
        assert_eq!(room.leave(b), Some((120, 30)));
    }

    #[test]
    fn the_fixed_policy_never_resizes() {
        let mut room = Room::new(SizePolicy::Fixed);
        let a = room.join(person("a"), Role::Control);
        assert_eq!(room.report_size(a, 120, 30), None);
        assert_eq!(room.take_control(a), (true, None));
        assert_eq!(room.leave(a), None);
    }

    #[test]
    fn the_listing_groups_connections_and_caps_its_entries() {
        let mut room = Room::new(SizePolicy::Driver);
        room.join(Badge::new(MemberKind::Link, "demo"), Role::View);
        let alice = room.join(person("alice"), Role::Control);
        room.join(person("alice"), Role::Control);
        room.join(Badge::new(MemberKind::Link, "demo"), Role::View);
        let listing = room.listing(None);
        let shown: Vec<_> = listing
            .entries
            .iter()
            .map(|e| (e.name.as_str(), e.role, e.drives, e.connections))
            .collect();
        assert_eq!(
            shown,
            [
                ("alice", Role::Control, true, 1),
                ("alice", Role::Control, false, 1),
                ("demo", Role::View, false, 2),
            ]
        );
        assert_eq!(
            room.presence(),
            Presence {
                view: 2,
                control: 2
            }
        );
        room.leave(alice);
        for n in 0..100 {
            room.join(person(&format!("p{n}")), Role::View);
        }
        let listing = room.listing(None);
        assert_eq!(listing.entries.len(), MAX_ROOM_ENTRIES);
        let listed: u32 = listing.entries.iter().map(|e| e.connections).sum();
        assert_eq!(listed + listing.unlisted, 103);
    }

    #[test]
    fn a_badge_is_cut_on_a_character_boundary() {
        let long = "é".repeat(40);
        let badge = Badge::new(MemberKind::Key, &long);
        assert_eq!(badge.name().len(), MAX_MEMBER_NAME);
        assert_eq!(badge.kind(), MemberKind::Key);
    }
}

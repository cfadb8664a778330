//! Who is in a session's room (`Room`, 0x0C) and the request to drive its
//! size (`TakeControl`, 0x8F).

use crate::limits::{MAX_MEMBER_NAME, MAX_ROOM_ENTRIES};
use crate::reader::Reader;
use crate::{writer, DecodeError, Role};

/// The server message type byte of [`Room`].
pub(crate) const ROOM: u8 = 0x0c;

/// Whose window sets a session's size (the server's `size_policy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SizePolicy {
    /// 0: the driver's window: the first control connection, then whoever
    /// takes control.
    #[default]
    Driver,
    /// 1: the smallest window of the control connections (tmux's rule).
    Smallest,
    /// 2: only the HTTP API resizes; windows never do.
    Fixed,
}

impl SizePolicy {
    /// Every policy, in wire order.
    pub const ALL: [SizePolicy; 3] = [SizePolicy::Driver, SizePolicy::Smallest, SizePolicy::Fixed];

    /// Its name, as configured and documented: `driver`, `smallest` or
    /// `fixed`.
    pub fn name(self) -> &'static str {
        match self {
            SizePolicy::Driver => "driver",
            SizePolicy::Smallest => "smallest",
            SizePolicy::Fixed => "fixed",
        }
    }

    /// The policy named `name`.
    pub fn from_name(name: &str) -> Option<SizePolicy> {
        SizePolicy::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// How a member of a room signed in; never the credential itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemberKind {
    /// 0: the admin token.
    Admin,
    /// 1: a key from the server's config, by its name.
    Key,
    /// 2: a person signed in (by a trusted proxy or the identity provider).
    Person,
    /// 3: a share link, by its label.
    Link,
}

impl MemberKind {
    /// Every kind, in wire order.
    pub const ALL: [MemberKind; 4] = [
        MemberKind::Admin,
        MemberKind::Key,
        MemberKind::Person,
        MemberKind::Link,
    ];

    /// Its name, as the API and the golden vectors show it: `admin`,
    /// `key`, `person` or `link`.
    pub fn name(self) -> &'static str {
        match self {
            MemberKind::Admin => "admin",
            MemberKind::Key => "key",
            MemberKind::Person => "person",
            MemberKind::Link => "link",
        }
    }
}

/// The connections of one name, kind and role in a room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomEntry {
    /// The user name, key name or link label (at most
    /// [`MAX_MEMBER_NAME`] bytes; a link without a label has none).
    pub name: String,
    /// How they signed in.
    pub kind: MemberKind,
    /// What their connections may do.
    pub role: Role,
    /// True for the entry of the one connection that drives the size.
    pub drives: bool,
    /// How many connections this entry stands for (at least 1).
    pub connections: u32,
}

/// Who is connected to a session now, sent after the first frame and
/// whenever someone joins, leaves or takes control.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Room {
    /// The server's size policy.
    pub policy: SizePolicy,
    /// True when this connection drives the size.
    pub you_drive: bool,
    /// The people, control first, then by when they joined; at most
    /// [`MAX_ROOM_ENTRIES`].
    pub entries: Vec<RoomEntry>,
    /// Connections not listed (beyond the entries' cap).
    pub unlisted: u32,
}

pub(crate) const YOU_DRIVE: u8 = 1;
pub(crate) const CONTROL: u8 = 1;
pub(crate) const DRIVES: u8 = 2;

impl Room {
    /// Appends this message (type byte included).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.push(ROOM);
        out.push(if self.you_drive { YOU_DRIVE } else { 0 });
        out.push(self.policy as u8);
        writer::len(out, self.entries.len());
        for entry in &self.entries {
            let control = if entry.role == Role::Control {
                CONTROL
            } else {
                0
            };
            out.push(control | if entry.drives { DRIVES } else { 0 });
            out.push(entry.kind as u8);
            writer::uint(out, entry.connections);
            writer::str(out, &entry.name);
        }
        writer::uint(out, self.unlisted);
    }

    pub(crate) fn decode_body(r: &mut Reader<'_>) -> Result<Room, DecodeError> {
        let you_drive = r.flags(YOU_DRIVE, "room flags")? != 0;
        let policy = *SizePolicy::ALL
            .get(usize::from(r.u8()?))
            .ok_or(DecodeError::OutOfRange {
                field: "size policy",
            })?;
        let n = r.count(MAX_ROOM_ENTRIES, "room entries")?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let flags = r.flags(CONTROL | DRIVES, "room entry flags")?;
            let kind =
                *MemberKind::ALL
                    .get(usize::from(r.u8()?))
                    .ok_or(DecodeError::OutOfRange {
                        field: "member kind",
                    })?;
            let connections = r.u32()?;
            if connections == 0 {
                return Err(DecodeError::OutOfRange {
                    field: "connections",
                });
            }
            entries.push(RoomEntry {
                role: if flags & CONTROL != 0 {
                    Role::Control
                } else {
                    Role::View
                },
                drives: flags & DRIVES != 0,
                kind,
                connections,
                name: r.str(MAX_MEMBER_NAME, "member name")?.to_owned(),
            });
        }
        Ok(Room {
            policy,
            you_drive,
            entries,
            unlisted: r.u32()?,
        })
    }
}

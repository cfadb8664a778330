//! The JSON a session is shown as.

use serde::Serialize;

use crate::access::{Grant, Role};
use crate::cluster::SessionRecord;
use crate::config::Config;
use crate::session::{Room, SessionHandle, Status};
use crate::time::rfc3339;

/// Who watches and controls a session on this node: counts, and the
/// people by name (never a secret).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Viewers {
    /// Connections that watch only.
    pub view: usize,
    /// Connections that may type.
    pub control: usize,
    /// The people connected, control first, then in the order they
    /// joined (at most 64 entries; connections of one name, kind and role
    /// are one entry).
    pub people: Vec<Person>,
}

/// The connections of one person, key or link in a session's room.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Person {
    /// The user name, key name or link label (empty for a link without
    /// one).
    pub name: String,
    /// How they signed in: `admin`, `key`, `person` or `link`.
    pub kind: &'static str,
    /// `view` or `control`.
    pub role: &'static str,
    /// True for the one connection whose window sets the size.
    pub drives: bool,
    /// How many connections this entry stands for.
    pub connections: u32,
}

impl Viewers {
    /// The viewers of `room`.
    fn of(room: &Room) -> Viewers {
        let presence = room.presence();
        let listing = room.listing(None);
        Viewers {
            view: presence.view,
            control: presence.control,
            people: listing
                .entries
                .into_iter()
                .map(|e| Person {
                    name: e.name,
                    kind: e.kind.name(),
                    role: match e.role {
                        panecast_proto::Role::View => "view",
                        panecast_proto::Role::Control => "control",
                    },
                    drives: e.drives,
                    connections: e.connections,
                })
                .collect(),
        }
    }
}

/// A session as `GET /api/sessions/{id}` shows it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SessionView {
    /// The id.
    pub id: String,
    /// The node that runs it (`serve --cluster` only; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The name, if it has one.
    pub name: Option<String>,
    /// Who started it: `user:NAME` (a person), `key:NAME`, `link:ID` or
    /// `admin-token`; null for a session the server started at boot.
    /// Never a secret.
    pub owner: Option<String>,
    /// The profile, or null for a command given in the request.
    pub profile: Option<String>,
    /// The argv.
    pub command: Vec<String>,
    /// The child's process id (also its process group).
    pub pid: u32,
    /// Current width.
    pub cols: u16,
    /// Current height.
    pub rows: u16,
    /// The window title the program set.
    pub title: String,
    /// True while the child runs.
    pub running: bool,
    /// The exit code, once exited (null if it could not be observed).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<u32>, nullable)]
    pub exit_code: Option<Option<u32>>,
    /// The signal that ended the child, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_signal: Option<String>,
    /// When the session started, RFC 3339 UTC.
    pub created_at: String,
    /// When the child exited, RFC 3339 UTC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exited_at: Option<String>,
    /// The name of the session's recording, when it is recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recording: Option<String>,
    /// Stream connections, by role.
    pub viewers: Viewers,
    /// What the caller may do with it: `view`, `control` or `admin`.
    pub access: Role,
    /// Whether files move in and out of it (its profile has
    /// `files = true`): uploads, downloads and in-band offers, for the
    /// control role.
    pub files: bool,
}

impl SessionView {
    /// The view of a session now, for `grant`; `node` is this node's name
    /// in a cluster (another node's session, seen through its mirror,
    /// shows its owner; its viewers are this node's).
    pub fn of(session: &SessionHandle, grant: &Grant, node: Option<&str>) -> SessionView {
        let info = session.info();
        let screen = session.screen();
        let (exit_code, exit_signal, exited_at) = match session.status() {
            Status::Running => (None, None, None),
            Status::Exited { status, at } => (Some(status.code), status.signal, Some(rfc3339(at))),
        };
        SessionView {
            id: info.id.clone(),
            node: session.remote_node().or(node).map(str::to_owned),
            name: info.name.clone(),
            owner: info.owner.as_ref().map(ToString::to_string),
            profile: info.profile.clone(),
            command: info.command.clone(),
            pid: info.pid,
            cols: screen.cols,
            rows: screen.rows,
            title: screen.title.to_string(),
            running: exited_at.is_none(),
            exit_code,
            exit_signal,
            created_at: rfc3339(info.created_at),
            exited_at,
            recording: info.recording.clone(),
            viewers: Viewers::of(&session.room()),
            access: grant.role(),
            files: false,
        }
    }
}

impl SessionView {
    /// This view, saying whether its profile (in `config`) moves files.
    pub fn with_files(mut self, config: &Config) -> SessionView {
        self.files = self
            .profile
            .as_deref()
            .and_then(|name| config.profiles.get(name))
            .is_some_and(|profile| profile.files);
        self
    }

    /// The view of another node's session from its registry record, for
    /// `grant`: its title as of the record's last write, and no viewers
    /// counted (the owner counts them).
    pub fn remote(record: &SessionRecord, grant: &Grant) -> SessionView {
        let running = record.state == "running";
        SessionView {
            id: record.id.clone(),
            node: Some(record.node.clone()),
            name: record.name.clone(),
            owner: record.owner.clone(),
            profile: record.profile.clone(),
            command: record.command.clone(),
            pid: record.pid,
            cols: record.cols,
            rows: record.rows,
            title: record.title.clone(),
            running,
            exit_code: (!running).then_some(record.exit_code),
            exit_signal: record.exit_signal.clone(),
            created_at: record.created_at.clone(),
            exited_at: record.exited_at.clone(),
            recording: record.recording.clone(),
            viewers: Viewers::of(&Room::default()),
            access: grant.role(),
            files: false,
        }
    }
}

//! A session's record in the cluster registry.

use serde::{Deserialize, Serialize};

/// The bucket of sessions and their names.
pub const SESSIONS_BUCKET: &str = "panecast_sessions";

/// What a record in bucket `bucket` under `key` is sealed for.
pub(super) fn record_context(bucket: &str, key: &str) -> String {
    format!("{bucket}/{key}")
}

/// A session as every node sees it: what its owner's session object shows
/// but for what changes all the time (the viewers; the title as of the
/// record's last write). Written at start, resize and exit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The session's id.
    pub id: String,
    /// The node that runs its program.
    pub node: String,
    /// Its unique name, if any.
    pub name: Option<String>,
    /// The profile it was started from, if any.
    pub profile: Option<String>,
    /// Width in columns.
    pub cols: u16,
    /// Height in rows.
    pub rows: u16,
    /// `"running"` or `"exited"`.
    pub state: String,
    /// The credential that started it, in its display form (`key:NAME`,
    /// `link:ID`, `admin-token`: never a secret), for the access check.
    #[serde(default)]
    pub owner: Option<String>,
    /// The argv.
    #[serde(default)]
    pub command: Vec<String>,
    /// The program's process id on its node.
    #[serde(default)]
    pub pid: u32,
    /// The window title when the record was written.
    #[serde(default)]
    pub title: String,
    /// When it started, RFC 3339 UTC.
    #[serde(default)]
    pub created_at: String,
    /// Once exited: the exit status, if it could be observed.
    #[serde(default)]
    pub exit_code: Option<u32>,
    /// Once exited by a signal: its name.
    #[serde(default)]
    pub exit_signal: Option<String>,
    /// Once exited: when, RFC 3339 UTC.
    #[serde(default)]
    pub exited_at: Option<String>,
    /// The name of its recording, when it is recorded.
    #[serde(default)]
    pub recording: Option<String>,
}

//! The JSON a session is shown as.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::access::{Grant, Role};
use crate::session::{SessionHandle, Status};

/// How many stream connections watch and control a session.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Viewers {
    /// Connections that watch only.
    pub view: usize,
    /// Connections that may type.
    pub control: usize,
}

/// A session as `GET /api/sessions/{id}` shows it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SessionView {
    /// The id.
    pub id: String,
    /// The name, if it has one.
    pub name: Option<String>,
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
    /// Stream connections, by role.
    pub viewers: Viewers,
    /// What the caller may do with it: `view`, `control` or `admin`.
    pub access: Role,
}

impl SessionView {
    /// The view of a session now, for `grant`.
    pub fn of(session: &SessionHandle, grant: &Grant) -> SessionView {
        let info = session.info();
        let screen = session.screen();
        let (exit_code, exit_signal, exited_at) = match session.status() {
            Status::Running => (None, None, None),
            Status::Exited { status, at } => (Some(status.code), status.signal, Some(rfc3339(at))),
        };
        let presence = session.presence();
        SessionView {
            id: info.id.clone(),
            name: info.name.clone(),
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
            viewers: Viewers {
                view: presence.view,
                control: presence.control,
            },
            access: grant.role(),
        }
    }
}

/// Formats a time as RFC 3339 in UTC with millisecond precision.
pub fn rfc3339(time: SystemTime) -> String {
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since_epoch.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        since_epoch.subsec_millis()
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn formats_rfc3339() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(951_782_400_123);
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00.123Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_735_689_599);
        assert_eq!(rfc3339(t), "2024-12-31T23:59:59.000Z");
    }
}

//! What a session is asked to be: the body of `POST /api/sessions` (and of
//! another node's create), and turning it into a
//! [`SessionSpec`] within the configuration's profiles and limits.

use crate::api::error::ErrorCode;
use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::access::{Denied, Grant};
use crate::config::{
    valid_env_name, valid_session_name, Config, Limits, RecordPolicy, DEFAULT_PROFILE,
};
use crate::pty::{child_env, SpawnSpec};
use crate::record::RecordOptions;
use crate::session::SessionSpec;

use crate::api::error::ApiError;

/// The body of `POST /api/sessions`. Every field is optional. Written
/// back as JSON (absent fields left out) when another node of a cluster
/// is asked to start it, and resolved again there.
#[derive(Debug, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateRequest {
    /// A name, unique among running sessions, usable wherever an id is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A configured profile (default `shell`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// An argv to run instead of a profile (needs `--allow-any-command`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// Width.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cols: Option<u64>,
    /// Height.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Extra environment variables (needs `--allow-any-command`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Working directory (an existing directory; needs `--allow-any-command`).
    #[schema(value_type = Option<String>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// Scrollback lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrollback: Option<u64>,
    /// Record the session (it is recorded anyway when its profile or the
    /// configuration says so).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<bool>,
    /// In a cluster, the node to start it on; default: the live node with
    /// the most room. Without a cluster, no node may be named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

impl CreateRequest {
    /// Checks the request against the configuration and what `grant` may
    /// start, and builds the spec.
    pub fn resolve(
        self,
        config: &Config,
        allow_any_command: bool,
        grant: &Grant,
    ) -> Result<SessionSpec, ApiError> {
        let limits = &config.limits;
        if let Some(name) = self.name.as_deref().filter(|n| !valid_session_name(n)) {
            return Err(ApiError::new(ErrorCode::BadName, format!("'{name}' is not a session name: 1 to 64 letters, digits, '.', '_' or '-', not 32 hex digits"),
            ));
        }
        if let Some(name) = self.name.as_deref() {
            grant.may_name(name).map_err(|denied| match denied {
                Denied::Forbidden(message) => ApiError::forbidden(message),
                Denied::NotFound => ApiError::no_session(name),
            })?;
        }
        let requested_profile = match (&self.profile, &self.command) {
            (_, Some(_)) => None,
            (Some(p), None) => Some(p.as_str()),
            (None, None) => Some(DEFAULT_PROFILE),
        };
        grant.may_start(requested_profile).map_err(|_| {
            ApiError::forbidden(match requested_profile {
                Some(p) => format!("this credential may not start the profile '{p}'"),
                None => "this credential may not start a command".to_owned(),
            })
        })?;
        let (cols, rows) = size(
            self.cols.unwrap_or(limits.default_cols.into()),
            self.rows.unwrap_or(limits.default_rows.into()),
            limits,
        )?;
        let scrollback = scrollback(self.scrollback, cols, limits)?;
        if self.env.is_some() && !allow_any_command {
            return Err(forbidden("env", "env"));
        }
        if self.cwd.is_some() && !allow_any_command {
            return Err(forbidden("cwd", "a working directory"));
        }
        let request_env = self.env.unwrap_or_default();
        if let Some(name) = request_env.keys().find(|name| !valid_env_name(name)) {
            return Err(ApiError::new(
                ErrorCode::BadEnv,
                format!("bad environment variable name '{name}'"),
            ));
        }

        let mut profile_record = (false, false);
        let mut user = None;
        let mut files = 0;
        let (profile, argv, profile_env, profile_cwd) = match (self.profile, self.command) {
            (Some(_), Some(_)) => {
                return Err(ApiError::new(
                    ErrorCode::BadRequest,
                    "give either 'profile' or 'command', not both",
                ))
            }
            (_, Some(_)) if !allow_any_command => return Err(forbidden("command", "a command")),
            (_, Some(argv)) => {
                if argv.first().is_none_or(|program| program.is_empty()) {
                    return Err(ApiError::new(
                        ErrorCode::BadCommand,
                        "'command' needs at least a program name",
                    ));
                }
                (None, argv, BTreeMap::new(), None)
            }
            (name, None) => {
                let name = name.unwrap_or_else(|| DEFAULT_PROFILE.to_owned());
                let Some(profile) = config.profiles.get(&name) else {
                    let known: Vec<&str> = config.profiles.keys().map(String::as_str).collect();
                    return Err(ApiError::new(
                        ErrorCode::UnknownProfile,
                        format!("no profile named '{name}' (known: {})", known.join(", ")),
                    ));
                };
                profile_record = (profile.record, profile.record_input);
                user = profile.user.clone();
                if profile.files {
                    files = config
                        .limits
                        .upload_bytes
                        .min(panecast_proto::limits::MAX_FILE_OFFER as u64);
                }
                (
                    Some(name),
                    profile.argv(),
                    profile.env.clone(),
                    profile.cwd.clone(),
                )
            }
        };
        if argv.iter().any(|arg| arg.contains('\0')) {
            return Err(ApiError::new(
                ErrorCode::BadCommand,
                "the command contains a NUL byte",
            ));
        }
        if request_env.values().any(|v| v.contains('\0')) {
            return Err(ApiError::new(
                ErrorCode::BadEnv,
                "an environment value contains a NUL byte",
            ));
        }

        let env = child_env(
            profile_env
                .iter()
                .chain(&request_env)
                .map(|(k, v)| (k.as_str(), v.as_str())),
        );
        // Absent: the session's HOME, known once its sandbox is made.
        let cwd = self.cwd.or(profile_cwd);
        if let Some(cwd) = cwd.as_ref().filter(|cwd| !cwd.is_dir()) {
            return Err(ApiError::new(
                ErrorCode::BadCwd,
                format!("working directory {} is not a directory", cwd.display()),
            ));
        }
        let recorded =
            config.record == RecordPolicy::All || profile_record.0 || self.record == Some(true);
        Ok(SessionSpec {
            record: recorded.then_some(RecordOptions {
                input: profile_record.1,
            }),
            name: self.name,
            owner: Some(grant.credential().clone()),
            profile,
            user,
            spawn: SpawnSpec {
                argv,
                env,
                cwd,
                cols,
                rows,
                identity: None,
                cgroup_procs: None,
            },
            scrollback,
            files,
        })
    }
}

/// Refuses a name that a `[[sessions]]` entry declares: that name belongs
/// to its declaration, which alone starts (and restarts) it, so no API
/// caller, admin included, can start another program under it or evict
/// the declared one when it has exited.
pub fn not_declared(config: &Config, name: Option<&str>) -> Result<(), ApiError> {
    match name {
        Some(name) if config.sessions.iter().any(|s| s.name == name) => Err(ApiError::new(
            ErrorCode::NameReserved,
            format!("the name '{name}' belongs to a session declared in the config"),
        )),
        _ => Ok(()),
    }
}

/// The scrollback lines of a session `cols` wide: the requested number
/// within `max_scrollback` and the cell budget, or the default cut to fit.
fn scrollback(requested: Option<u64>, cols: u16, limits: &Limits) -> Result<usize, ApiError> {
    let fits = limits.max_scrollback_cells / usize::from(cols.max(1));
    let Some(n) = requested else {
        return Ok(limits.scrollback.min(fits));
    };
    if n > limits.max_scrollback as u64 {
        return Err(ApiError::new(
            ErrorCode::BadScrollback,
            format!(
                "scrollback {n} is over limits.max_scrollback ({})",
                limits.max_scrollback
            ),
        ));
    }
    if n > fits as u64 {
        return Err(ApiError::new(
            ErrorCode::BadScrollback,
            format!(
                "scrollback {n} lines x {cols} columns is over limits.max_scrollback_cells ({}): \
                 use at most {fits} lines at this width",
                limits.max_scrollback_cells
            ),
        ));
    }
    Ok(n as usize)
}

/// Checks a requested size against the limits.
pub fn size(cols: u64, rows: u64, limits: &Limits) -> Result<(u16, u16), ApiError> {
    let check = |name: &str, value: u64, max: u16| {
        u16::try_from(value)
            .ok()
            .filter(|v| (1..=max).contains(v))
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::BadSize,
                    format!("{name} {value} is out of range: use 1 to {max}"),
                )
            })
    };
    Ok((
        check("cols", cols, limits.max_cols)?,
        check("rows", rows, limits.max_rows)?,
    ))
}

fn forbidden(field: &str, what: &str) -> ApiError {
    ApiError::new(
        ErrorCode::Forbidden,
        format!(
            "'{field}': {what} may be given only when the server runs with --allow-any-command"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    fn request(json: &str) -> CreateRequest {
        serde_json::from_str(json).expect("valid request JSON")
    }

    fn shell_config() -> Config {
        Config::default()
    }

    fn config() -> Config {
        Config::parse("[profiles.top]\ncommand = \"top\"\nenv = { A = \"1\" }\ncwd = \"/tmp\"\n")
            .expect("valid config")
    }

    #[test]
    fn an_empty_request_runs_the_shell_profile_at_the_default_size() {
        let spec = request("{}")
            .resolve(&shell_config(), false, &Grant::admin())
            .expect("allowed");
        assert_eq!(spec.profile.as_deref(), Some("shell"));
        assert_eq!(spec.spawn.argv.last().map(String::as_str), Some("-l"));
        assert_eq!((spec.spawn.cols, spec.spawn.rows), (80, 24));
        assert_eq!(spec.scrollback, 10_000);
    }

    #[test]
    fn a_profile_brings_its_env_and_cwd() {
        let spec = request(r#"{"profile": "top", "cols": 100, "rows": 30}"#)
            .resolve(&config(), false, &Grant::admin())
            .expect("allowed");
        assert_eq!(spec.spawn.argv, ["top"]);
        assert!(spec.spawn.env.contains(&("A".to_owned(), "1".to_owned())));
        assert_eq!(spec.spawn.cwd, Some(PathBuf::from("/tmp")));
        assert_eq!((spec.spawn.cols, spec.spawn.rows), (100, 30));
    }

    #[test]
    fn commands_and_env_need_the_flag() {
        let err = request(r#"{"command": ["ls"]}"#)
            .resolve(&config(), false, &Grant::admin())
            .expect_err("forbidden");
        assert_eq!(err.status(), StatusCode::FORBIDDEN);
        let err = request(r#"{"env": {"X": "1"}}"#)
            .resolve(&config(), false, &Grant::admin())
            .expect_err("forbidden");
        assert_eq!(err.status(), StatusCode::FORBIDDEN);
        let spec = request(r#"{"command": ["ls", "-l"], "env": {"X": "1"}}"#)
            .resolve(&config(), true, &Grant::admin())
            .expect("allowed");
        assert_eq!(spec.profile, None);
        assert_eq!(spec.spawn.argv, ["ls", "-l"]);
        assert!(spec.spawn.env.contains(&("X".to_owned(), "1".to_owned())));
    }

    #[test]
    fn recording_is_on_when_the_request_the_profile_or_the_config_asks() {
        let mut config = Config::parse(
            "[profiles.shell]\n[profiles.audit]\ncommand = \"sh\"\nrecord = true\nrecord_input = true\n",
        )
        .expect("valid config");
        let resolve = |json: &str, config: &Config| {
            request(json)
                .resolve(config, true, &Grant::admin())
                .expect("allowed")
                .record
        };
        assert_eq!(resolve("{}", &config), None);
        assert_eq!(resolve(r#"{"record": false}"#, &config), None);
        assert_eq!(
            resolve(r#"{"record": true}"#, &config),
            Some(RecordOptions { input: false })
        );
        assert_eq!(
            resolve(r#"{"profile": "audit", "record": false}"#, &config),
            Some(RecordOptions { input: true })
        );
        config.record = RecordPolicy::All;
        assert_eq!(
            resolve(r#"{"command": ["ls"]}"#, &config),
            Some(RecordOptions { input: false })
        );
    }

    #[test]
    fn scrollback_lines_times_columns_stay_within_the_cell_budget() {
        let config = shell_config();
        let budget = config.limits.max_scrollback_cells;
        let err = request(r#"{"cols": 500, "scrollback": 10000}"#)
            .resolve(&config, false, &Grant::admin())
            .expect_err("5,000,000 cells are over the budget");
        assert_eq!(err.status(), StatusCode::BAD_REQUEST);
        assert_eq!(err.code, ErrorCode::BadScrollback);
        assert!(
            err.message.contains("max_scrollback_cells"),
            "{}",
            err.message
        );
        let lines = budget / 500;
        let spec = request(&format!(r#"{{"cols": 500, "scrollback": {lines}}}"#))
            .resolve(&config, false, &Grant::admin())
            .expect("exactly the budget");
        assert_eq!(spec.scrollback, lines);
        let spec = request(r#"{"cols": 1000}"#)
            .resolve(&config, false, &Grant::admin())
            .expect("the default is cut to fit");
        assert_eq!(spec.scrollback, budget / 1000);
    }

    #[test]
    fn bad_values_are_400_with_a_code() {
        let cases = [
            (r#"{"cols": 0}"#, "bad_size"),
            (r#"{"rows": 1001}"#, "bad_size"),
            (r#"{"cols": 70000}"#, "bad_size"),
            (r#"{"scrollback": 100000000}"#, "bad_scrollback"),
            (r#"{"profile": "nope"}"#, "unknown_profile"),
            (r#"{"name": "a b"}"#, "bad_name"),
            (r#"{"profile": "top", "command": ["ls"]}"#, "bad_request"),
            (r#"{"command": []}"#, "bad_command"),
            (r#"{"command": [""]}"#, "bad_command"),
            (r#"{"env": {"A=B": "1"}}"#, "bad_env"),
            (
                r#"{"profile": "top", "cwd": "/nonexistent/dir"}"#,
                "bad_cwd",
            ),
        ];
        for (json, code) in cases {
            let err = request(json)
                .resolve(&config(), true, &Grant::admin())
                .expect_err(json);
            assert_eq!(
                (err.status(), err.code.as_str()),
                (StatusCode::BAD_REQUEST, code),
                "{json}"
            );
        }
    }
}

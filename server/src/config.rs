//! The service's configuration: profiles and limits, read from TOML, with
//! every value defaulted so `panecast serve` runs without a file.
//!
//! Every key is documented in `deploy/panecast.example.toml`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use panecast_proto::SizePolicy;
use serde::Deserialize;

use crate::access::{
    AuthConfig, AuthConfigError, KeyConfig, KeyError, ProxiesError, TrustedProxies,
};
use crate::secret_file::SecretFileError;
use panecast_term::{DEFAULT_SCROLLBACK, MAX_DIMENSION};

/// Name of the profile created when none is configured, and used when a
/// request names neither a profile nor a command.
pub const DEFAULT_PROFILE: &str = "shell";

/// The default cell budget of a session's scrollback: 24 MiB of cells. With
/// both screens at the largest size (16 MiB), the published copy of the
/// visible rows (8 MiB) and a full style table, a session stays under 64 MiB.
pub const DEFAULT_SCROLLBACK_CELLS: usize = 3_000_000;

/// The whole configuration file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Limits on sessions and their sizes, and the timings of their lifecycle.
    pub limits: Limits,
    /// Programs a request may start, by name.
    pub profiles: BTreeMap<String, Profile>,
    /// Web pages on other origins allowed to open the WebSocket stream
    /// with the cookie (e.g. `"https://dash.example.com"`).
    pub allowed_origins: Vec<String>,
    /// Path prefix every route lives under (e.g. `"/term"`), for a reverse
    /// proxy that serves panecast below a path; empty serves from `/`.
    pub base_path: String,
    /// Which sessions are recorded: those that ask (`"requested"`) or `"all"`.
    pub record: RecordPolicy,
    /// The directory recordings are written to (created when missing).
    pub recordings_dir: PathBuf,
    /// The size, age and playback limits of recordings.
    pub recordings: RecordingLimits,
    /// Named credentials with a role and a scope (`[[keys]]`).
    pub keys: Vec<KeyConfig>,
    /// People: who a trusted proxy says signed in, and their roles
    /// (`[auth]`).
    pub auth: AuthConfig,
    /// Named sessions started at boot (`[[sessions]]`).
    pub sessions: Vec<BootSession>,
    /// Origins that may show `/embed/{id}` in a frame; none by default.
    pub embed_ancestors: Vec<String>,
    /// Proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
    pub trusted_proxies: Vec<String>,
    /// A private file holding the secret a trusted proxy sends in
    /// `X-Panecast-Proxy`: with it, a request is taken as the proxy's only
    /// when it carries the secret, not for its address alone. Required by
    /// `[auth.proxy]`.
    pub proxy_secret_file: Option<PathBuf>,
    /// Host names the server answers to besides IP addresses and
    /// `localhost` (others get 421, against DNS rebinding).
    pub public_names: Vec<String>,
    /// Who may read `/metrics`.
    pub metrics: MetricsAccess,
    /// Whether programs may set the clipboard of viewers (OSC 52).
    pub clipboard: ClipboardAccess,
    /// Whose window sets a session's size: `driver` (the first control
    /// viewer, then whoever takes control), `smallest` (the smallest
    /// control viewer's window, tmux's rule) or `fixed` (only the API
    /// resizes).
    #[serde(deserialize_with = "size_policy")]
    pub size_policy: SizePolicy,
    /// The uids (`[FIRST, LAST]`) sessions get one of each, as their uid
    /// and gid, when the server may change uids.
    pub session_uids: [u32; 2],
    /// The directory the private `HOME` of each session with a uid of its
    /// own is made in (created 0711 when missing).
    pub session_homes: PathBuf,
    /// NATS credentials, TLS and timings for `serve --cluster`.
    pub cluster: crate::cluster_config::ClusterConfig,
}

/// The default of `session_uids`: 500 uids between systemd-homed's range
/// (60001-60513) and DynamicUser's (61184-65519), below 65536 so that a
/// container's user namespace maps them.
pub const DEFAULT_SESSION_UIDS: [u32; 2] = [60600, 61099];

/// The default of `limits.upload_bytes`: 64 MiB.
pub const DEFAULT_UPLOAD_BYTES: u64 = 64 << 20;

/// Whose clipboard a program may set with OSC 52.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClipboardAccess {
    /// Nobody's: OSC 52 writes are dropped.
    #[default]
    Off,
    /// Control viewers' (view-only viewers never get it).
    Control,
}

/// Reads a size policy by its name.
fn size_policy<'de, D: serde::Deserializer<'de>>(d: D) -> Result<SizePolicy, D::Error> {
    let name = String::deserialize(d)?;
    SizePolicy::from_name(&name).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "size_policy must be \"driver\", \"smallest\" or \"fixed\", not {name:?}"
        ))
    })
}

/// Who may read `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MetricsAccess {
    /// Anyone who can reach the port.
    Open,
    /// The admin token, admin keys and keys with `metrics = true`, as a
    /// bearer header.
    #[default]
    Token,
}

/// A named session started when the server starts.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BootSession {
    /// Its name (letters, digits, `.`, `_`, `-`).
    pub name: String,
    /// The profile it runs.
    pub profile: String,
    /// Whether it is started again when its program exits.
    #[serde(default)]
    pub restart: Restart,
}

/// When a boot session is started again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Restart {
    /// Whenever its program exits (after a short pause).
    Always,
    /// Never: it ends like any other session.
    #[default]
    Never,
}

/// Which sessions are recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordPolicy {
    /// Sessions whose profile sets `record = true` or whose request asks.
    #[default]
    Requested,
    /// Every session.
    All,
}

/// Limits of recordings.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecordingLimits {
    /// Largest recording, in bytes; then a marker says so and recording stops.
    pub max_bytes: u64,
    /// Most bytes all recordings may take together; the oldest go first.
    pub max_total_bytes: u64,
    /// Recordings older than this many days are deleted (0 keeps them).
    pub max_age_days: u64,
    /// Players shorten pauses longer than this (written into each
    /// recording's header as `idle_time_limit`; 0 writes none). Replays
    /// of files with no `idle_time_limit` use it too.
    pub idle_time_limit_ms: u64,
    /// Largest file a replay (`/r/{name}`) opens: a replay holds the
    /// recording's events in memory.
    pub max_replay_bytes: u64,
}

impl Default for RecordingLimits {
    fn default() -> Self {
        RecordingLimits {
            max_bytes: 1 << 30,
            max_total_bytes: 10 << 30,
            max_age_days: 90,
            idle_time_limit_ms: 2000,
            max_replay_bytes: 256 << 20,
        }
    }
}

impl RecordingLimits {
    /// [`RecordingLimits::max_age_days`] as a duration, `None` for no limit.
    pub fn max_age(&self) -> Option<Duration> {
        (self.max_age_days > 0).then(|| Duration::from_secs(self.max_age_days * 86_400))
    }

    /// [`RecordingLimits::idle_time_limit_ms`] as a duration, `None` for no limit.
    pub fn idle_time_limit(&self) -> Option<Duration> {
        (self.idle_time_limit_ms > 0).then(|| Duration::from_millis(self.idle_time_limit_ms))
    }
}

/// Limits and timings.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Sessions open at once, running or lingering after exit.
    pub max_sessions: usize,
    /// Replays open at once (each holds its recording's events and up to
    /// 32 MiB of keyframes).
    pub max_replays: usize,
    /// Replays one credential plays at once.
    pub max_replays_per_credential: usize,
    /// Widest session, in columns (at most 1000).
    pub max_cols: u16,
    /// Tallest session, in rows (at most 1000).
    pub max_rows: u16,
    /// Width of a session whose request gives none.
    pub default_cols: u16,
    /// Height of a session whose request gives none.
    pub default_rows: u16,
    /// Scrollback lines of a session whose request gives none.
    pub scrollback: usize,
    /// Most scrollback lines a request may ask for.
    pub max_scrollback: usize,
    /// A session's memory budget: scrollback lines x columns it may hold
    /// (a cell takes 8 bytes). A wider resize keeps fewer lines.
    pub max_scrollback_cells: usize,
    /// Shortest time between two published screens while output streams in.
    pub frame_interval_ms: u64,
    /// Longest time synchronized output (mode 2026) may hold the screen back.
    pub sync_timeout_ms: u64,
    /// How long an exited session keeps its final screen and exit code.
    pub linger_secs: u64,
    /// Time between the hangup and the kill when a session is ended.
    pub grace_ms: u64,
    /// Largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Stream connections (WebSocket, ALiS) to one session at once.
    pub max_viewers: usize,
    /// Of those, slots view streams leave free for control streams and
    /// the admin token.
    pub viewer_reserve: usize,
    /// Streams one credential (other than the admin token) holds on one
    /// session.
    pub max_viewers_per_credential: usize,
    /// Streams one credential (other than the admin token) holds over all
    /// sessions.
    pub max_streams_per_credential: usize,
    /// Time between two pings on an idle WebSocket stream; keep it below
    /// the read timeout of any proxy in front. A stream that answers nothing
    /// for three intervals is closed.
    pub ping_interval_ms: u64,
    /// Default lifetime of a share link.
    pub link_ttl_secs: u64,
    /// Longest lifetime a share link may ask for.
    pub max_link_ttl_secs: u64,
    /// Live share links per session.
    pub max_links_per_session: usize,
    /// Wrong credentials one client address may present in a minute;
    /// past it the address is answered 429 until the minute is over.
    pub auth_failures_per_minute: u32,
    /// Input bytes a session takes per second, from every transport.
    pub input_rate: u32,
    /// Input bytes a session takes in one burst.
    pub input_burst: u32,
    /// The share of a session's actor time, in percent, one credential's
    /// searches and scrollback reads may take, from every transport (one
    /// connection may take half of it).
    pub read_share_percent: u8,
    /// Actor time one credential's reads may take in one burst (one
    /// connection's, half of it).
    pub read_burst_ms: u64,
    /// Open HTTP connections; past it the longest idle one (of the
    /// address holding most) is closed.
    pub max_connections: usize,
    /// Open HTTP connections from one address (an IPv6 address counts by
    /// its /64); past it that address's longest idle one is closed.
    /// Trusted proxies are exempt.
    pub max_connections_per_address: usize,
    /// Time a connection has to send a request's headers, and the longest
    /// a connection may sit idle between requests.
    pub header_timeout_secs: u64,
    /// Lifetime of the cookies the server sets.
    pub cookie_max_age_secs: u64,
    /// Largest file moved in or out of a session (`files = true`
    /// profiles): an upload, an API download or an in-band offer.
    pub upload_bytes: u64,
    /// Decoded inline-image memory one session may hold (sixel, kitty,
    /// iTerm2); the oldest images go first past it.
    pub image_bytes: u64,
    /// Most pixels one inline image may have (at most 10,000 on a side).
    pub image_pixels: u64,
    /// Longest `timeout_ms` a wait may ask for (`POST .../wait`).
    pub max_wait_ms: u64,
    /// Waits open on one session at once, from every credential.
    pub max_waits_per_session: usize,
    /// Waits one credential (other than the admin token) holds open on
    /// one session at once.
    pub max_waits_per_credential: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_sessions: 64,
            max_replays: 8,
            max_replays_per_credential: 2,
            max_cols: MAX_DIMENSION,
            max_rows: MAX_DIMENSION,
            default_cols: 80,
            default_rows: 24,
            scrollback: DEFAULT_SCROLLBACK,
            max_scrollback: 100_000,
            max_scrollback_cells: DEFAULT_SCROLLBACK_CELLS,
            frame_interval_ms: 16,
            sync_timeout_ms: 1000,
            linger_secs: 300,
            grace_ms: 2000,
            max_body_bytes: 1 << 20,
            max_viewers: 256,
            viewer_reserve: 16,
            max_viewers_per_credential: 32,
            max_streams_per_credential: 128,
            ping_interval_ms: 15_000,
            link_ttl_secs: 86_400,
            max_link_ttl_secs: 7 * 86_400,
            max_links_per_session: 32,
            auth_failures_per_minute: 30,
            input_rate: 1 << 20,
            input_burst: 4 << 20,
            read_share_percent: 10,
            read_burst_ms: 500,
            max_connections: 1024,
            max_connections_per_address: 128,
            header_timeout_secs: 10,
            cookie_max_age_secs: 86_400,
            upload_bytes: DEFAULT_UPLOAD_BYTES,
            image_bytes: panecast_term::image::DEFAULT_IMAGE_BYTES as u64,
            image_pixels: panecast_term::image::DEFAULT_IMAGE_PIXELS,
            max_wait_ms: 300_000,
            max_waits_per_session: 1000,
            max_waits_per_credential: 64,
        }
    }
}

impl Limits {
    /// [`Limits::frame_interval_ms`] as a duration.
    pub fn frame_interval(&self) -> Duration {
        Duration::from_millis(self.frame_interval_ms)
    }

    /// [`Limits::sync_timeout_ms`] as a duration.
    pub fn sync_timeout(&self) -> Duration {
        Duration::from_millis(self.sync_timeout_ms)
    }

    /// [`Limits::linger_secs`] as a duration.
    pub fn linger(&self) -> Duration {
        Duration::from_secs(self.linger_secs)
    }

    /// [`Limits::grace_ms`] as a duration.
    pub fn grace(&self) -> Duration {
        Duration::from_millis(self.grace_ms)
    }

    /// [`Limits::ping_interval_ms`] as a duration.
    pub fn ping_interval(&self) -> Duration {
        Duration::from_millis(self.ping_interval_ms)
    }

    /// [`Limits::header_timeout_secs`] as a duration.
    pub fn header_timeout(&self) -> Duration {
        Duration::from_secs(self.header_timeout_secs)
    }
}

/// A program sessions may run.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Profile {
    /// The program, found through `PATH` when not absolute; absent means
    /// the server user's `$SHELL` (or `/bin/bash`).
    pub command: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to the child's environment.
    pub env: BTreeMap<String, String>,
    /// Working directory; absent means `$HOME`.
    pub cwd: Option<PathBuf>,
    /// The Unix user to run as (with its uid, groups and home), when the
    /// server may change uids; absent: a uid of the session's own.
    pub user: Option<String>,
    /// Record every session of this profile.
    pub record: bool,
    /// Also record what is typed (`i` events). Off by default: input
    /// carries passwords.
    pub record_input: bool,
    /// Files in and out of its sessions (upload, download, in-band
    /// offers), as the session's user. Off by default: a profile that runs
    /// one program must not gain a file system API through it.
    pub files: bool,
    /// Clients may show what is typed before the program echoes it
    /// (predictive echo, PROTOCOL.md "Sync"). On by default; `false` for a
    /// program whose echo must only ever come from itself.
    pub predict: bool,
}

impl Default for Profile {
    fn default() -> Profile {
        Profile {
            command: None,
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
            user: None,
            record: false,
            record_input: false,
            files: false,
            predict: true,
        }
    }
}

impl Profile {
    /// The embedded `shell` profile: the user's login shell.
    pub fn login_shell() -> Profile {
        Profile {
            args: vec!["-l".to_owned()],
            ..Profile::default()
        }
    }

    /// The argv this profile runs.
    pub fn argv(&self) -> Vec<String> {
        let program = match &self.command {
            Some(command) => command.clone(),
            None => std::env::var("SHELL")
                .ok()
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "/bin/bash".to_owned()),
        };
        std::iter::once(program)
            .chain(self.args.iter().cloned())
            .collect()
    }
}

impl Default for Config {
    fn default() -> Self {
        let profiles = BTreeMap::from([(DEFAULT_PROFILE.to_owned(), Profile::login_shell())]);
        Config {
            limits: Limits::default(),
            profiles,
            allowed_origins: Vec::new(),
            base_path: String::new(),
            record: RecordPolicy::default(),
            recordings_dir: PathBuf::from("./recordings"),
            recordings: RecordingLimits::default(),
            keys: Vec::new(),
            auth: AuthConfig::default(),
            sessions: Vec::new(),
            embed_ancestors: Vec::new(),
            trusted_proxies: Vec::new(),
            proxy_secret_file: None,
            public_names: Vec::new(),
            metrics: MetricsAccess::Token,
            clipboard: ClipboardAccess::Off,
            size_policy: SizePolicy::Driver,
            session_uids: DEFAULT_SESSION_UIDS,
            session_homes: PathBuf::from("/var/lib/panecast/homes"),
            cluster: crate::cluster_config::ClusterConfig::default(),
        }
    }
}

/// A configuration that could not be read or makes no sense.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The TOML is malformed or has unknown keys.
    #[error("invalid configuration: {0}")]
    Parse(#[from] toml::de::Error),
    /// A value is out of range.
    #[error("invalid configuration: {0}")]
    Invalid(String),
    /// The file holds `[cluster] password` and others may read it.
    #[error("invalid configuration: {0} (or keep the password in password_file)")]
    SharedPassword(#[source] SecretFileError),
    /// A `[[keys]]` entry is wrong.
    #[error("invalid configuration: {0}")]
    Key(#[from] KeyError),
    /// The `[auth]` section is wrong.
    #[error("invalid configuration: {0}")]
    Auth(#[from] AuthConfigError),
    /// `trusted_proxies` or `proxy_secret_file` is wrong.
    #[error("invalid configuration: {0}")]
    Proxies(#[from] ProxiesError),
}

impl Config {
    /// Reads and checks a TOML file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let config = Config::parse(&text)?;
        if config.cluster.password.is_some() {
            crate::secret_file::check_private(
                path,
                "the configuration, which holds [cluster] password,",
            )
            .map_err(ConfigError::SharedPassword)?;
        }
        Ok(config)
    }

    /// Parses and checks TOML text. The profiles it names are the whole
    /// list: the built-in `shell` profile exists only when it names none.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        let mut config: Config = toml::from_str(text)?;
        if config.profiles.is_empty() {
            config
                .profiles
                .insert(DEFAULT_PROFILE.to_owned(), Profile::login_shell());
        }
        config.base_path = normalize_base_path(&config.base_path)?;
        config.validate()?;
        Ok(config)
    }

    /// Checks every value's range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let l = &self.limits;
        let invalid = |message: String| Err(ConfigError::Invalid(message));
        for (name, value) in [("max_cols", l.max_cols), ("max_rows", l.max_rows)] {
            if value == 0 || value > MAX_DIMENSION {
                return invalid(format!("limits.{name} = {value}: use 1 to {MAX_DIMENSION}"));
            }
        }
        if l.default_cols == 0 || l.default_cols > l.max_cols {
            return invalid(format!(
                "limits.default_cols = {}: use 1 to max_cols ({})",
                l.default_cols, l.max_cols
            ));
        }
        if l.default_rows == 0 || l.default_rows > l.max_rows {
            return invalid(format!(
                "limits.default_rows = {}: use 1 to max_rows ({})",
                l.default_rows, l.max_rows
            ));
        }
        if l.scrollback > l.max_scrollback {
            return invalid(format!(
                "limits.scrollback = {} exceeds limits.max_scrollback ({})",
                l.scrollback, l.max_scrollback
            ));
        }
        if !(1..=100).contains(&l.read_share_percent) {
            return invalid(format!(
                "limits.read_share_percent = {}: use 1 to 100",
                l.read_share_percent
            ));
        }
        if l.viewer_reserve >= l.max_viewers {
            return invalid(format!(
                "limits.viewer_reserve = {} must be below limits.max_viewers ({})",
                l.viewer_reserve, l.max_viewers
            ));
        }
        if l.link_ttl_secs > l.max_link_ttl_secs {
            return invalid(format!(
                "limits.link_ttl_secs = {} exceeds limits.max_link_ttl_secs ({})",
                l.link_ttl_secs, l.max_link_ttl_secs
            ));
        }
        for (name, value) in [
            ("max_sessions", l.max_sessions as u64),
            ("max_replays", l.max_replays as u64),
            ("frame_interval_ms", l.frame_interval_ms),
            ("max_body_bytes", l.max_body_bytes as u64),
            ("max_viewers", l.max_viewers as u64),
            (
                "max_viewers_per_credential",
                l.max_viewers_per_credential as u64,
            ),
            (
                "max_streams_per_credential",
                l.max_streams_per_credential as u64,
            ),
            (
                "max_replays_per_credential",
                l.max_replays_per_credential as u64,
            ),
            ("ping_interval_ms", l.ping_interval_ms),
            ("link_ttl_secs", l.link_ttl_secs),
            ("max_links_per_session", l.max_links_per_session as u64),
            ("read_burst_ms", l.read_burst_ms),
            (
                "auth_failures_per_minute",
                u64::from(l.auth_failures_per_minute),
            ),
            ("input_rate", u64::from(l.input_rate)),
            ("input_burst", u64::from(l.input_burst)),
            ("max_connections", l.max_connections as u64),
            (
                "max_connections_per_address",
                l.max_connections_per_address as u64,
            ),
            ("header_timeout_secs", l.header_timeout_secs),
            ("cookie_max_age_secs", l.cookie_max_age_secs),
            ("upload_bytes", l.upload_bytes),
            ("image_bytes", l.image_bytes),
            ("image_pixels", l.image_pixels),
            ("max_waits_per_session", l.max_waits_per_session as u64),
            (
                "max_waits_per_credential",
                l.max_waits_per_credential as u64,
            ),
        ] {
            if value == 0 {
                return invalid(format!("limits.{name} must be at least 1"));
            }
        }
        if normalize_base_path(&self.base_path)? != self.base_path {
            return invalid(format!(
                "base_path = '{}': write it as '/prefix', without a trailing '/'",
                self.base_path
            ));
        }
        if self.recordings.max_bytes == 0 {
            return invalid("recordings.max_bytes must be at least 1".to_owned());
        }
        let [first, last] = self.session_uids;
        if first == 0 || first > last {
            return invalid(format!(
                "session_uids = [{first}, {last}]: give [FIRST, LAST] with 0 < FIRST <= LAST"
            ));
        }
        if !self.session_homes.is_absolute() {
            return invalid(format!(
                "session_homes = '{}': give an absolute path",
                self.session_homes.display()
            ));
        }
        if self.recordings_dir.as_os_str().is_empty() {
            return invalid("recordings_dir is empty".to_owned());
        }
        for (name, profile) in &self.profiles {
            if name.is_empty() {
                return invalid("a profile needs a name".to_owned());
            }
            if profile.command.as_deref() == Some("") {
                return invalid(format!("profiles.{name}.command is empty"));
            }
            if let Some(user) = &profile.user {
                crate::pty::User::lookup(user)
                    .map_err(|e| ConfigError::Invalid(format!("profiles.{name}.user: {e}")))?;
            }
            for key in profile.env.keys() {
                if !valid_env_name(key) {
                    return invalid(format!("profiles.{name}.env: bad variable name '{key}'"));
                }
            }
        }
        let mut names = std::collections::BTreeSet::new();
        for key in &self.keys {
            key.validate()?;
            if !names.insert(key.name.as_str()) {
                return invalid(format!("keys: two keys are named '{}'", key.name));
            }
        }
        let mut names = std::collections::BTreeSet::new();
        for session in &self.sessions {
            if !valid_session_name(&session.name) {
                return invalid(format!(
                    "sessions: '{}' is not a session name (1 to 64 letters, digits, '.', '_', '-', not 32 hex digits)",
                    session.name
                ));
            }
            if !names.insert(session.name.as_str()) {
                return invalid(format!(
                    "sessions: two sessions are named '{}'",
                    session.name
                ));
            }
            if !self.profiles.contains_key(&session.profile) {
                return invalid(format!(
                    "sessions.{}: no profile named '{}'",
                    session.name, session.profile
                ));
            }
        }
        self.auth.validate()?;
        self.proxies()?;
        Ok(())
    }

    /// The trusted proxies, with the proof their requests must carry when
    /// `proxy_secret_file` is set (the file read and checked here). A
    /// proxy's sign-in (`[auth.proxy]`) needs both: an address proves
    /// nothing on a host where other programs run.
    pub fn proxies(&self) -> Result<TrustedProxies, ProxiesError> {
        let proxies = TrustedProxies::parse(&self.trusted_proxies)?;
        let proxies = match &self.proxy_secret_file {
            Some(path) => {
                proxies.with_proof(&crate::secret_file::read(path, "proxy_secret_file")?)?
            }
            None => proxies,
        };
        if self.auth.proxy.is_some() {
            if self.trusted_proxies.is_empty() {
                return Err(ProxiesError::NoProxies);
            }
            if self.proxy_secret_file.is_none() {
                return Err(ProxiesError::NoProof);
            }
        }
        Ok(proxies)
    }
}

/// Checks a path prefix and writes it the one way routes use it: `""` for
/// the root (from `""` or `"/"`), else `"/a/b"`, without a trailing slash.
/// Segments may use letters, digits and `-._~`; nothing that a URL would
/// escape, and no `.` or `..` segment.
pub fn normalize_base_path(path: &str) -> Result<String, ConfigError> {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return Ok(String::new());
    }
    let bad = || {
        ConfigError::Invalid(format!(
            "base_path '{path}': use '/' and segments of letters, digits, '-', '.', '_' or '~', e.g. '/term'"
        ))
    };
    let rest = trimmed.strip_prefix('/').ok_or_else(bad)?;
    for segment in rest.split('/') {
        let allowed = segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
        if segment.is_empty() || segment == "." || segment == ".." || !allowed {
            return Err(bad());
        }
    }
    Ok(trimmed.to_owned())
}

/// True for a usable session name: 1 to 64 letters, digits, `.`, `_` or
/// `-`, starting with a letter or digit (so never `.` or `..`), and not 32
/// hex digits (which would read as an id).
pub fn valid_session_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.as_bytes()[0].is_ascii_alphanumeric()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !(name.len() == 32 && name.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// True for a usable environment variable name: not empty, no `=`, no NUL.
pub fn valid_env_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['=', '\0'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn empty_text_gives_the_defaults() {
        let config = Config::parse("").expect("empty config");
        assert_eq!(config, Config::default());
        assert_eq!(config.limits.max_sessions, 64);
        assert_eq!(config.limits.frame_interval(), Duration::from_millis(16));
        assert_eq!(config.limits.linger(), Duration::from_secs(300));
        assert_eq!(config.limits.grace(), Duration::from_secs(2));
        assert_eq!(config.profiles[DEFAULT_PROFILE].args, ["-l"]);
    }

    #[test]
    fn profiles_and_limits_are_read() {
        let config = Config::parse(
            r#"
            [limits]
            max_sessions = 3
            linger_secs = 1

            [profiles.top]
            command = "top"
            args = ["-d", "1"]
            env = { LINES = "40" }
            cwd = "/tmp"
            "#,
        )
        .expect("valid config");
        assert_eq!(config.limits.max_sessions, 3);
        assert_eq!(config.limits.linger_secs, 1);
        assert_eq!(config.limits.max_cols, 1000);
        let top = &config.profiles["top"];
        assert_eq!(top.argv(), ["top", "-d", "1"]);
        assert_eq!(top.env["LINES"], "40");
        assert_eq!(top.cwd.as_deref(), Some(Path::new("/tmp")));
        assert!(!config.profiles.contains_key(DEFAULT_PROFILE));
    }

    #[test]
    fn the_shell_profile_exists_only_when_no_profile_is_configured() {
        let config = Config::parse("[profiles.logs]\ncommand = \"tail\"\n").expect("valid");
        assert_eq!(config.profiles.keys().collect::<Vec<_>>(), ["logs"]);
        let config = Config::parse("").expect("valid");
        assert_eq!(
            config.profiles.keys().collect::<Vec<_>>(),
            [DEFAULT_PROFILE]
        );
    }

    #[test]
    fn keys_and_boot_sessions_are_read_and_checked() {
        let digest = "a".repeat(64);
        let config = Config::parse(&format!(
            "[profiles.top]\ncommand = \"top\"\n\n[[keys]]\nname = \"grafana\"\nsha256 = \"{digest}\"\nrole = \"view\"\nsessions = [\"htop\"]\n\n[[sessions]]\nname = \"htop\"\nprofile = \"top\"\nrestart = \"always\"\n"
        ))
        .expect("valid");
        assert_eq!(config.keys[0].name, "grafana");
        assert_eq!(config.sessions[0].restart, Restart::Always);
        for bad in [
            "[[sessions]]\nname = \"x\"\nprofile = \"nope\"",
            "[[sessions]]\nname = \"a b\"\nprofile = \"shell\"",
            "[[sessions]]\nname = \"0123456789abcdef0123456789abcdef\"\nprofile = \"shell\"",
            "[limits]\nlink_ttl_secs = 10\nmax_link_ttl_secs = 5",
        ] {
            assert!(
                matches!(Config::parse(bad), Err(ConfigError::Invalid(_))),
                "{bad}"
            );
        }
        let bad_digest = "[[keys]]\nname = \"k\"\nsha256 = \"12\"\nrole = \"view\"";
        assert!(matches!(
            Config::parse(bad_digest),
            Err(ConfigError::Key(KeyError::BadDigest(_)))
        ));
        let err = Config::parse("trusted_proxies = [\"not-an-ip\"]").unwrap_err();
        assert!(
            matches!(err, ConfigError::Proxies(ProxiesError::NotAnAddress(_))),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            "invalid configuration: trusted_proxies: 'not-an-ip' is not an address or range"
        );
        assert!(Config::parse("[[keys]]\nname = \"k\"\nsha256 = \"aa\"\nrole = \"root\"").is_err());
    }

    #[test]
    fn a_configured_shell_profile_replaces_the_default() {
        let config = Config::parse("[profiles.shell]\ncommand = \"/bin/sh\"\n").expect("valid");
        assert_eq!(config.profiles[DEFAULT_PROFILE].argv(), ["/bin/sh"]);
    }

    #[test]
    fn the_default_shell_profile_runs_a_login_shell() {
        let argv = Profile::login_shell().argv();
        assert_eq!(argv.len(), 2);
        assert!(!argv[0].is_empty());
        assert_eq!(argv[1], "-l");
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let err = Config::parse("[limits]\nmax_session = 3\n").expect_err("typo");
        assert!(err.to_string().contains("max_session"), "{err}");
        assert!(Config::parse("colour = true\n").is_err());
    }

    #[test]
    fn out_of_range_values_are_rejected() {
        for text in [
            "[limits]\nmax_cols = 0",
            "[limits]\nmax_rows = 1001",
            "[limits]\ndefault_cols = 200\nmax_cols = 100",
            "[limits]\nmax_sessions = 0",
            "[limits]\nframe_interval_ms = 0",
            "[limits]\nscrollback = 10\nmax_scrollback = 5",
            "[profiles.x]\ncommand = \"\"",
            "[profiles.x]\nenv = { \"A=B\" = \"c\" }",
            "[limits]\nping_interval_ms = 0",
            "base_path = \"term\"",
            "base_path = \"/a//b\"",
            "base_path = \"/a/../b\"",
            "base_path = \"/a b\"",
        ] {
            let err = Config::parse(text).expect_err(text);
            assert!(matches!(err, ConfigError::Invalid(_)), "{text}: {err}");
        }
    }

    #[test]
    fn files_are_off_unless_a_profile_says_so_and_the_cap_is_positive() {
        let config = Config::parse("[profiles.a]\n[profiles.b]\nfiles = true\n").expect("parses");
        assert!(!config.profiles["a"].files);
        assert!(config.profiles["b"].files);
        assert_eq!(config.limits.upload_bytes, 64 << 20);
        let config = Config::parse("[limits]\nupload_bytes = 10\n").expect("parses");
        assert_eq!(config.limits.upload_bytes, 10);
        assert!(Config::parse("[limits]\nupload_bytes = 0\n").is_err());
    }

    #[test]
    fn the_documented_example_holds_the_defaults() {
        let example = include_str!("../../deploy/panecast.example.toml");
        let config = Config::parse(example).expect("the example parses");
        assert_eq!(config, Config::default());
    }

    #[test]
    fn a_proxys_sign_in_needs_trusted_proxies_and_their_proof() {
        let section = "[auth.proxy]\nuser_header = \"X-Forwarded-User\"\n\n\
                       [[auth.rules]]\ngroups = [\"ops\"]\nrole = \"control\"\n";
        let err = Config::parse(section).unwrap_err();
        assert!(err.to_string().contains("trusted_proxies"), "{err}");
        let proxied = format!("trusted_proxies = [\"127.0.0.1\"]\n{section}");
        let err = Config::parse(&proxied).unwrap_err().to_string();
        assert!(
            err.contains("set proxy_secret_file") && err.contains("X-Panecast-Proxy"),
            "{err}"
        );
        let dir = std::env::temp_dir().join(format!(
            "panecast-proxy-secret-{}",
            crate::random::hex128().expect("random")
        ));
        std::fs::create_dir(&dir).expect("mkdir");
        let file = dir.join("proxy-secret");
        std::fs::write(&file, "proxy-secret-0123456789abcdef-0123\n").expect("write");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let proven = format!("proxy_secret_file = \"{}\"\n{proxied}", file.display());
        let config = Config::parse(&proven).expect("with a trusted proxy and its proof");
        assert_eq!(config.auth.rules[0].groups, ["ops"]);
        assert!(!config.proxies().expect("the proxies").without_proof());
        std::fs::write(&file, "short\n").expect("write");
        let err = Config::parse(&proven).unwrap_err().to_string();
        assert!(err.contains("32 to 256"), "{err}");
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn size_policies_are_read_by_name() {
        for policy in SizePolicy::ALL {
            let text = format!("size_policy = \"{}\"", policy.name());
            let config = Config::parse(&text).expect("a policy's name");
            assert_eq!(config.size_policy, policy);
        }
        let err = Config::parse("size_policy = \"largest\"").unwrap_err();
        assert!(
            err.to_string()
                .contains("\"driver\", \"smallest\" or \"fixed\""),
            "{err}"
        );
    }

    #[test]
    fn base_paths_are_written_one_way() {
        for (given, expected) in [
            ("", ""),
            ("/", ""),
            ("/term", "/term"),
            ("/term/", "/term"),
            ("/a/b-c/", "/a/b-c"),
        ] {
            let config = Config::parse(&format!("base_path = \"{given}\"")).expect(given);
            assert_eq!(config.base_path, expected, "{given}");
        }
        assert!(normalize_base_path("term").is_err());
        assert!(normalize_base_path("/te%20rm").is_err());
    }

    #[test]
    fn recording_keys_are_read() {
        let config = Config::parse(
            r#"
            record = "all"
            recordings_dir = "/var/lib/panecast/recordings"
            [recordings]
            max_bytes = 1000
            max_age_days = 0
            idle_time_limit_ms = 0
            [profiles.audit]
            command = "bash"
            record = true
            record_input = true
            "#,
        )
        .expect("valid config");
        assert_eq!(config.record, RecordPolicy::All);
        assert_eq!(
            config.recordings_dir,
            Path::new("/var/lib/panecast/recordings")
        );
        assert_eq!(config.recordings.max_bytes, 1000);
        assert_eq!(config.recordings.max_age(), None);
        assert_eq!(config.recordings.idle_time_limit(), None);
        assert!(config.profiles["audit"].record && config.profiles["audit"].record_input);
        assert!(!Profile::login_shell().record && !Profile::login_shell().record_input);
        assert!(Config::parse("record = \"sometimes\"").is_err());
        assert!(Config::parse("[recordings]\nmax_bytes = 0").is_err());
    }

    #[test]
    fn wrong_types_are_parse_errors() {
        let err = Config::parse("[limits]\nmax_sessions = \"many\"").expect_err("type");
        assert!(matches!(err, ConfigError::Parse(_)));
    }
}

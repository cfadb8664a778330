//! The recordings directory: starting a recording, listing, opening and
//! deleting files by name, and knowing which are still being written.
//!
//! A name is the file's stem: letters, digits, `-` and `_` only, so no name
//! can climb out of the directory, and files are opened without following
//! symbolic links.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::config::RecordingLimits;
use crate::time::rfc3339;

use super::retention::{self, Candidate};
use super::writer::{Header, LiveRecording, Recorder, CUT_PREFIX};

/// The extension of recording files.
const EXTENSION: &str = "cast";
/// The longest name.
const MAX_NAME: usize = 128;
/// How much of a file's start is read for its header, and of its end for
/// its last event.
const PEEK: u64 = 64 * 1024;

/// A recording could not be found, read or written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The name has characters other than letters, digits, `-` and `_`.
    #[error("'{0}' is not a recording name: use letters, digits, '-' and '_'")]
    BadName(String),
    /// No recording has this name.
    #[error("no recording named '{0}'")]
    NotFound(String),
    /// The recording is still being written.
    #[error("recording '{0}' is still being written; end its session first")]
    Live(String),
    /// The file system failed.
    #[error("recordings: {0}")]
    Io(#[from] std::io::Error),
}

/// What to record of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct RecordOptions {
    /// Record input (`i` events) too.
    pub input: bool,
}

/// The session a recording starts for.
#[derive(Debug, Clone, Copy)]
pub struct SessionToRecord<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its name, if it has one.
    pub name: Option<&'a str>,
    /// Its profile, if it came from one.
    pub profile: Option<&'a str>,
    /// The argv it runs.
    pub argv: &'a [String],
    /// The `TERM` it is given.
    pub term: &'a str,
    /// Its size at the start.
    pub size: (u16, u16),
    /// What to record.
    pub options: RecordOptions,
}

/// A recording as `GET /api/recordings` lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct RecordingInfo {
    /// The name (the file's stem).
    pub name: String,
    /// The session recorded, when panecast wrote the file.
    pub session: Option<String>,
    /// That session's name, if it had one.
    pub session_name: Option<String>,
    /// That session's profile.
    pub profile: Option<String>,
    /// When it started, RFC 3339 UTC.
    pub started_at: String,
    /// Seconds from the start to the last event (to now while live).
    pub duration: f64,
    /// The file's size.
    pub bytes: u64,
    /// True while it is being written.
    pub live: bool,
    /// The title in its header.
    pub title: Option<String>,
    /// Why the recording was cut short (`disk full`, the byte cap was
    /// reached, or another write error); null for a whole recording.
    pub cut: Option<String>,
    /// The node whose disk holds it (`serve --cluster` only; absent
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

/// The recordings directory and its live recordings.
pub struct Recordings {
    dir: PathBuf,
    limits: RecordingLimits,
    /// Live recordings by name: their session and when they started.
    live: Mutex<HashMap<String, (String, Instant)>>,
    /// Why recordings were cut short, by name, since the server started
    /// (the file's last marker says it too, when there was room for it).
    cut: Mutex<HashMap<String, String>>,
}

/// A live recording's place in the registry, released when dropped.
struct LiveEntry {
    name: String,
    recordings: Arc<Recordings>,
}

impl LiveRecording for LiveEntry {
    fn name(&self) -> &str {
        &self.name
    }

    /// Notes that the recording was cut short, and why: it is no longer
    /// live from then on. The live state ends before the reason is kept,
    /// and [`Recordings::info`] reads the reason first, so no listing shows
    /// a recording both cut and live.
    fn cut(&self, reason: String) {
        self.recordings.lock().remove(&self.name);
        lock(&self.recordings.cut).insert(self.name.clone(), reason);
    }
}

impl Drop for LiveEntry {
    fn drop(&mut self) {
        self.recordings.lock().remove(&self.name);
    }
}

impl Recordings {
    /// The recordings in `dir` (created on the first recording), kept within `limits`.
    pub fn new(dir: PathBuf, limits: RecordingLimits) -> Arc<Recordings> {
        Arc::new(Recordings {
            dir,
            limits,
            live: Mutex::new(HashMap::new()),
            cut: Mutex::new(HashMap::new()),
        })
    }

    /// The limits recordings are kept within.
    pub fn limits(&self) -> &RecordingLimits {
        &self.limits
    }

    /// Starts recording a session: creates its file (0600) and writes the
    /// header; creates the directory (0700) when missing, and closes it to
    /// others when it is open to them: only the server's user reads
    /// recordings, whose text may hold secrets.
    pub fn start(self: &Arc<Self>, session: &SessionToRecord<'_>) -> Result<Recorder, RecordError> {
        private_dir(&self.dir)?;
        let now = SystemTime::now();
        let name = format!("{}-{}", compact_utc(now), session.id);
        let argv = session.argv;
        let header = Header {
            width: session.size.0,
            height: session.size.1,
            timestamp: now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs(),
            title: session
                .name
                .or(session.profile)
                .map_or_else(|| argv.join(" "), str::to_owned),
            command: argv.join(" "),
            idle_time_limit: self.limits.idle_time_limit().map(|t| t.as_secs_f64()),
            term: session.term.to_owned(),
            session: session.id.to_owned(),
            name: session.name.map(str::to_owned),
            profile: session.profile.map(str::to_owned),
        };
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.path(&name))?;
        let line = header.line();
        file.write_all(&line)?;
        self.lock()
            .insert(name.clone(), (session.id.to_owned(), Instant::now()));
        let live = LiveEntry {
            name,
            recordings: Arc::clone(self),
        };
        Ok(Recorder::new(
            file,
            line.len() as u64,
            self.limits.max_bytes,
            session.options.input,
            Box::new(live),
            std::time::Duration::ZERO,
        )?)
    }

    /// Goes on recording `name` for session `id` after an upgrade (or an
    /// upgrade that did not happen): the file is cut back to `offset`, the
    /// bytes the recorder had written, and appended to from there, its
    /// clock at `elapsed`.
    pub fn resume(
        self: &Arc<Self>,
        name: &str,
        id: &str,
        offset: u64,
        elapsed: std::time::Duration,
        input: bool,
    ) -> Result<Recorder, RecordError> {
        let mut file = OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.path(name))?;
        file.set_len(offset)?;
        file.seek(std::io::SeekFrom::End(0))?;
        self.lock()
            .insert(name.to_owned(), (id.to_owned(), Instant::now()));
        let live = LiveEntry {
            name: name.to_owned(),
            recordings: Arc::clone(self),
        };
        Ok(Recorder::new(
            file,
            offset,
            self.limits.max_bytes,
            input,
            Box::new(live),
            elapsed,
        )?)
    }

    /// Every recording in the directory, oldest first.
    pub fn list(&self) -> Result<Vec<RecordingInfo>, RecordError> {
        let mut recordings: Vec<RecordingInfo> = self
            .names()?
            .iter()
            .filter_map(|name| self.info(name).ok())
            .collect();
        recordings.sort_by(|a, b| (&a.started_at, &a.name).cmp(&(&b.started_at, &b.name)));
        Ok(recordings)
    }

    /// One recording's details.
    pub fn info(&self, name: &str) -> Result<RecordingInfo, RecordError> {
        let mut file = self.open(name)?;
        let bytes = file.metadata()?.len();
        let header = read_header(&mut file).unwrap_or(serde_json::Value::Null);
        let started = header["timestamp"]
            .as_u64()
            .map(|secs| UNIX_EPOCH + Duration::from_secs(secs));
        // The reason before the live state: see [`LiveEntry::cut`].
        let cut_now = lock(&self.cut).get(name).cloned();
        let live = self.lock().get(name).map(|(_, since)| since.elapsed());
        let last = match live {
            Some(_) => None,
            None => last_event(&mut file, bytes),
        };
        let duration = match live {
            Some(elapsed) => elapsed.as_secs_f64(),
            None => last.as_ref().map_or(0.0, |(time, _)| *time),
        };
        let cut = cut_now.or_else(|| last.and_then(|(_, cut)| cut));
        let started = match started {
            Some(started) => started,
            None => file.metadata()?.modified()?,
        };
        let text = |value: &serde_json::Value| value.as_str().map(str::to_owned);
        Ok(RecordingInfo {
            name: name.to_owned(),
            session: text(&header["panecast"]["session"]),
            session_name: text(&header["panecast"]["name"]),
            profile: text(&header["panecast"]["profile"]),
            started_at: rfc3339(started),
            duration: (duration * 1000.0).round() / 1000.0,
            bytes,
            live: live.is_some(),
            title: text(&header["title"]),
            cut,
            node: None,
        })
    }

    /// Opens a recording for reading (also while it is being written).
    pub fn open(&self, name: &str) -> Result<File, RecordError> {
        check_name(name)?;
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.path(name))
            .map_err(|e| not_found_or_io(e, name))
            .and_then(|file| {
                if file.metadata()?.is_file() {
                    Ok(file)
                } else {
                    Err(RecordError::NotFound(name.to_owned()))
                }
            })
    }

    /// Deletes a finished recording.
    pub fn delete(&self, name: &str) -> Result<(), RecordError> {
        check_name(name)?;
        if self.lock().contains_key(name) {
            return Err(RecordError::Live(name.to_owned()));
        }
        let path = self.path(name);
        let meta = std::fs::symlink_metadata(&path).map_err(|e| not_found_or_io(e, name))?;
        if !meta.is_file() {
            return Err(RecordError::NotFound(name.to_owned()));
        }
        std::fs::remove_file(&path).map_err(|e| not_found_or_io(e, name))?;
        lock(&self.cut).remove(name);
        Ok(())
    }

    /// Whether a recording is being written.
    pub fn is_live(&self, name: &str) -> bool {
        self.lock().contains_key(name)
    }

    /// Deletes finished recordings older than the age limit, then the
    /// oldest ones until all fit the total size. Returns the names deleted.
    pub fn enforce_retention(&self) -> Result<Vec<String>, RecordError> {
        let mut candidates = Vec::new();
        for name in self.names()? {
            let Ok(meta) = std::fs::symlink_metadata(self.path(&name)) else {
                continue;
            };
            candidates.push(Candidate {
                live: self.is_live(&name),
                modified: meta.modified()?,
                bytes: meta.len(),
                name,
            });
        }
        let doomed = retention::plan(candidates, SystemTime::now(), &self.limits);
        let mut deleted = Vec::new();
        for name in doomed {
            match self.delete(&name) {
                Ok(()) => deleted.push(name),
                Err(error) => tracing::warn!(recording = %name, %error, "retention: cannot delete"),
            }
        }
        if !deleted.is_empty() {
            tracing::info!(deleted = ?deleted, "retention: recordings deleted");
        }
        Ok(deleted)
    }

    /// Runs [`Recordings::enforce_retention`] now and then every `period`.
    pub fn spawn_retention(self: &Arc<Self>, period: Duration) -> tokio::task::JoinHandle<()> {
        let recordings = Arc::clone(self);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            loop {
                ticks.tick().await;
                let recordings = Arc::clone(&recordings);
                let result =
                    tokio::task::spawn_blocking(move || recordings.enforce_retention()).await;
                if let Ok(Err(error)) = result {
                    tracing::warn!(%error, "retention failed");
                }
            }
        })
    }

    /// The names of the `.cast` files in the directory (none if it is missing).
    fn names(&self) -> Result<Vec<String>, RecordError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        Ok(entries
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let path = PathBuf::from(entry.file_name());
                let stem = path.file_stem()?.to_str()?;
                (path.extension()? == EXTENSION && valid_name(stem)).then(|| stem.to_owned())
            })
            .collect())
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.{EXTENSION}"))
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, (String, Instant)>> {
        lock(&self.live)
    }
}

fn lock<T>(map: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update is one insert or remove: the map stays consistent.
    map.lock().unwrap_or_else(PoisonError::into_inner)
}

/// True for a usable recording name: 1 to 128 letters, digits, `-` or `_`.
pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn check_name(name: &str) -> Result<(), RecordError> {
    if valid_name(name) {
        Ok(())
    } else {
        Err(RecordError::BadName(name.chars().take(MAX_NAME).collect()))
    }
}

fn not_found_or_io(error: std::io::Error, name: &str) -> RecordError {
    // ELOOP: the name is a symbolic link, which is never followed.
    if error.kind() == std::io::ErrorKind::NotFound || error.raw_os_error() == Some(libc::ELOOP) {
        RecordError::NotFound(name.to_owned())
    } else {
        RecordError::Io(error)
    }
}

/// `YYYYMMDDTHHMMSSZ`, for names that sort by time.
fn compact_utc(time: SystemTime) -> String {
    let full = rfc3339(time);
    let seconds = full.split('.').next().unwrap_or(&full);
    let mut compact: String = seconds
        .chars()
        .filter(|c| !matches!(c, '-' | ':'))
        .collect();
    compact.push('Z');
    compact
}

/// The header object of a file (its first line).
fn read_header(file: &mut File) -> Option<serde_json::Value> {
    let mut start = Vec::new();
    Read::by_ref(file).take(PEEK).read_to_end(&mut start).ok()?;
    let line = start.split(|&b| b == b'\n').next()?;
    serde_json::from_slice(line).ok()
}

/// The time of the last complete event line of a file and, when that
/// event is the marker that ends a recording cut short, its reason.
fn last_event(file: &mut File, len: u64) -> Option<(f64, Option<String>)> {
    let from = len.saturating_sub(PEEK);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    let (time, code, data) = tail
        .split(|&b| b == b'\n')
        .rev()
        .filter_map(|line| serde_json::from_slice::<(f64, String, serde_json::Value)>(line).ok())
        .next()?;
    let cut = (code == "m")
        .then(|| data.as_str()?.strip_prefix(CUT_PREFIX).map(str::to_owned))
        .flatten();
    Some((time, cut))
}

/// Makes `dir` (0700) when missing; takes group and other access away
/// when it has any.
fn private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let mode = std::fs::metadata(dir)?.permissions().mode();
    if mode & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & 0o700))?;
    }
    Ok(())
}

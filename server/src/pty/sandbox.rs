//! What walls a session off and ends it: the server's isolation mode,
//! found once at start, and each session's sandbox (its uid, its private
//! `HOME`, its cgroup), which ends every process the session started.
//!
//! - `uid`: the server may change uids. A session runs as a profile's
//!   `user`, or as a uid and gid of its own from `session_uids`, with a
//!   private `HOME` made for it and removed after it. A session with a uid
//!   of its own is ended by uid: every process of that uid.
//! - `cgroup`: the server cannot change uids but can make cgroups:
//!   sessions are not walled off, but each is ended by its cgroup.
//! - `none`: sessions run as the server's user, and are ended by the best
//!   effort of [`kill_leftovers`](super::kill_leftovers).
//!
//! Sessions that run as a named `user` are ended by cgroup where one can
//! be made, else by that same best effort: that user's other processes are
//! not theirs to end.

use std::ffi::{CStr, CString};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::cgroup::{Cgroup, CgroupRoot};
use super::spawn::Identity;
use super::uids::{self, UidPool};

/// The capabilities the `uid` mode needs, as `(bit, name)`.
const NEEDED: [(u32, &str); 6] = [
    (0, "CHOWN"),
    (1, "DAC_OVERRIDE"),
    (3, "FOWNER"),
    (5, "KILL"),
    (6, "SETGID"),
    (7, "SETUID"),
];

/// The world-writable directories whose entries a session's uid leaves
/// are removed with it, so that the next session given that uid cannot
/// read them.
const SHARED_TMP: [&str; 3] = ["/tmp", "/var/tmp", "/dev/shm"];

/// How sessions are walled off and ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Each session has a uid: walled off, ended by uid.
    Uid,
    /// Not walled off; each session ended by its cgroup.
    Cgroup,
    /// Not walled off; ended by tracking, best effort.
    None,
}

impl Mode {
    /// The name `/healthz` reports.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Uid => "uid",
            Mode::Cgroup => "cgroup",
            Mode::None => "none",
        }
    }
}

/// A session's sandbox could not be made.
#[derive(Debug, thiserror::Error)]
pub enum EnterError {
    /// Every uid of `session_uids` is held by a session or a live process.
    #[error("every session uid ({0} to {1}) is in use; end a session, or widen session_uids")]
    NoUid(u32, u32),
    /// Anything else (an unknown user, a home or cgroup not made).
    #[error("{0}")]
    Other(String),
}

/// A Unix user from the password database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// Its name.
    pub name: String,
    /// Its uid.
    pub uid: u32,
    /// Its primary gid.
    pub gid: u32,
    /// Its home directory.
    pub home: PathBuf,
    /// Its groups, the primary one included.
    pub groups: Vec<u32>,
}

impl User {
    /// Looks `name` up (getpwnam, getgrouplist).
    pub fn lookup(name: &str) -> Result<User, String> {
        let c_name = CString::new(name).map_err(|_| format!("'{name}' holds a NUL byte"))?;
        let mut entry = std::mem::MaybeUninit::<libc::passwd>::uninit();
        let mut buf = vec![0 as libc::c_char; 16 * 1024];
        let mut found = std::ptr::null_mut();
        // SAFETY: getpwnam_r writes the entry and its strings into `entry`
        // and `buf`, which outlive every use of them below.
        let r = unsafe {
            libc::getpwnam_r(
                c_name.as_ptr(),
                entry.as_mut_ptr(),
                buf.as_mut_ptr(),
                buf.len(),
                &mut found,
            )
        };
        if r != 0 || found.is_null() {
            return Err(format!("no user named '{name}'"));
        }
        // SAFETY: getpwnam_r succeeded: the entry is filled in.
        let entry = unsafe { entry.assume_init() };
        // SAFETY: pw_dir points into `buf`, NUL-terminated.
        let home = unsafe { CStr::from_ptr(entry.pw_dir) };
        let home = PathBuf::from(std::ffi::OsStr::new(
            std::str::from_utf8(home.to_bytes()).map_err(|_| "its home is not UTF-8")?,
        ));
        let mut groups = vec![0 as libc::gid_t; 256];
        let mut count = groups.len() as libc::c_int;
        // SAFETY: getgrouplist writes at most `count` gids into `groups`.
        let r = unsafe {
            libc::getgrouplist(
                c_name.as_ptr(),
                entry.pw_gid,
                groups.as_mut_ptr(),
                &mut count,
            )
        };
        if r < 0 {
            return Err(format!("'{name}' is in more than {} groups", groups.len()));
        }
        groups.truncate(count.max(0) as usize);
        Ok(User {
            name: name.to_owned(),
            uid: entry.pw_uid,
            gid: entry.pw_gid,
            home,
            groups,
        })
    }
}

/// The server's isolation: its mode, the uid pool, the homes' directory
/// and the cgroup sessions are made in.
pub struct Isolation {
    mode: Mode,
    pool: UidPool,
    homes: PathBuf,
    cgroups: Option<CgroupRoot>,
}

impl Isolation {
    /// Finds what the server may do, logs it (a warning when sessions
    /// cannot be walled off), and makes the homes' directory.
    pub fn new(session_uids: [u32; 2], homes: PathBuf) -> Isolation {
        let missing = missing_capabilities();
        let cgroups = CgroupRoot::create();
        let mode = if missing.is_empty() {
            Mode::Uid
        } else if cgroups.is_some() {
            Mode::Cgroup
        } else {
            Mode::None
        };
        let [first, last] = session_uids;
        if mode == Mode::Uid {
            match make_homes(&homes) {
                Ok(()) => remove_stale_homes(&homes),
                Err(error) => {
                    tracing::error!(homes = %homes.display(), %error, "cannot make the sessions' homes directory: sessions cannot start")
                }
            }
            tracing::info!(
                first,
                last,
                "isolation: uid (each session runs as a uid of its own)"
            );
        } else {
            tracing::warn!(
                isolation = mode.name(),
                missing = %missing.join(","),
                "sessions cannot be walled off: the server cannot change uids (it needs root or these \
                 capabilities), so every program runs as the server's user, and a credential to a \
                 shell reaches every session and the admin token"
            );
        }
        Isolation {
            mode,
            pool: UidPool::new(first, last),
            homes,
            cgroups,
        }
    }

    /// True when the server may change uids, so that sessions get uids of
    /// their own.
    pub fn possible() -> bool {
        missing_capabilities().is_empty()
    }

    /// The mode found at start.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Makes the sandbox of session `id`, running as `user` (a profile's)
    /// or, with `None`, as a uid of its own where the server may.
    pub fn enter(&self, id: &str, user: Option<&str>) -> Result<Sandbox, EnterError> {
        let cgroup = || -> Result<Option<Cgroup>, EnterError> {
            self.cgroups
                .as_ref()
                .map(|root| root.session(id))
                .transpose()
                .map_err(|e| EnterError::Other(format!("cannot make the session's cgroup: {e}")))
        };
        if let Some(name) = user {
            let user = User::lookup(name).map_err(EnterError::Other)?;
            // SAFETY: geteuid cannot fail.
            if self.mode != Mode::Uid && user.uid != unsafe { libc::geteuid() } {
                return Err(EnterError::Other(format!(
                    "the profile runs as '{name}', which needs the server to run as root \
                     (or with CAP_SETUID and CAP_SETGID)"
                )));
            }
            return Ok(Sandbox {
                identity: Some(Identity {
                    uid: user.uid,
                    gid: user.gid,
                    groups: user.groups,
                    no_new_privs: false,
                }),
                own_uid: None,
                uid_lock: None,
                home: Some(user.home),
                private_home: false,
                cgroup: cgroup()?,
            });
        }
        if self.mode != Mode::Uid {
            return Ok(Sandbox {
                identity: None,
                own_uid: None,
                uid_lock: None,
                home: None,
                private_home: false,
                cgroup: cgroup()?,
            });
        }
        let (uid, lock) = self
            .pool
            .take(&self.homes)
            .ok_or_else(|| EnterError::NoUid(self.pool.first(), self.pool.last()))?;
        let mut sandbox = Sandbox {
            identity: Some(Identity {
                uid,
                gid: uid,
                groups: Vec::new(),
                no_new_privs: true,
            }),
            own_uid: Some(uid),
            uid_lock: Some(lock),
            home: None,
            private_home: true,
            cgroup: None,
        };
        let home = make_home(&self.homes, id, uid).map_err(|e| {
            EnterError::Other(format!(
                "cannot make the session's home in {}: {e}",
                self.homes.display()
            ))
        })?;
        sandbox.home = Some(home);
        Ok(sandbox)
    }
}

/// A sandbox as it is handed over across an upgrade. The uid's lock
/// travels as a descriptor left open across the exec, so no other server
/// can take the uid meanwhile.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SavedSandbox {
    /// Who the session runs as.
    pub identity: Option<Identity>,
    /// Its uid of its own.
    pub own_uid: Option<u32>,
    /// The descriptor of that uid's lock file.
    pub uid_lock_fd: Option<i32>,
    /// Its `HOME`.
    pub home: Option<PathBuf>,
    /// Whether the home was made for it.
    pub private_home: bool,
    /// Its cgroup's directory.
    pub cgroup: Option<PathBuf>,
}

impl Isolation {
    /// Takes back a sandbox an earlier process image handed over: its uid
    /// is held again (by the inherited lock descriptor, else by taking the
    /// lock anew). Fails when the uid's lock is held by another server.
    pub fn adopt(&self, saved: SavedSandbox) -> Result<Sandbox, String> {
        let uid_lock = match (saved.own_uid, saved.uid_lock_fd) {
            (Some(uid), fd) => {
                let inherited = fd.and_then(inherited_file);
                let lock = inherited
                    .or_else(|| uids::lock(&self.homes, uid))
                    .ok_or_else(|| format!("the lock of uid {uid} is held by another server"))?;
                uids::claim(uid);
                Some(lock)
            }
            (None, _) => None,
        };
        Ok(Sandbox {
            identity: saved.identity,
            own_uid: saved.own_uid,
            uid_lock,
            home: saved.home,
            private_home: saved.private_home,
            cgroup: saved.cgroup.map(Cgroup::adopt),
        })
    }
}

/// The file behind an inherited descriptor, if it is open; made
/// close-on-exec again.
fn inherited_file(fd: i32) -> Option<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: F_GETFD and F_SETFD only read and set the descriptor's flags.
    let open = unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) } == 0;
    // SAFETY: the descriptor is open, was left to this process image by the
    // one before it for this use alone, and nothing else here owns it.
    open.then(|| unsafe { std::fs::File::from_raw_fd(fd) })
}

/// One session's walls: who it runs as, its `HOME`, and how it is ended.
#[derive(Debug)]
pub struct Sandbox {
    identity: Option<Identity>,
    /// The uid of its own, given back once nothing of it is left.
    own_uid: Option<u32>,
    /// The uid's lock file, held while the uid is the session's.
    uid_lock: Option<std::fs::File>,
    home: Option<PathBuf>,
    /// The home was made for the session and goes with it.
    private_home: bool,
    cgroup: Option<Cgroup>,
}

impl Sandbox {
    /// What an upgrade hands over of it.
    pub fn save(&self) -> SavedSandbox {
        use std::os::fd::AsRawFd;
        SavedSandbox {
            identity: self.identity.clone(),
            own_uid: self.own_uid,
            uid_lock_fd: self.uid_lock.as_ref().map(AsRawFd::as_raw_fd),
            home: self.home.clone(),
            private_home: self.private_home,
            cgroup: self.cgroup.as_ref().map(|c| c.dir().to_owned()),
        }
    }

    /// Who the session runs as; `None`: the server's user.
    pub fn identity(&self) -> Option<&Identity> {
        self.identity.as_ref()
    }

    /// Its `HOME`; `None`: the server's.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// The `cgroup.procs` file its program joins, if it has a cgroup.
    pub fn cgroup_procs(&self) -> Option<PathBuf> {
        self.cgroup.as_ref().map(Cgroup::procs)
    }

    /// Ends every process of the session whose program was `program` and
    /// whose id is `id`: by uid, by cgroup, or by tracking. Returns whether
    /// it is sure nothing is left. Blocking.
    pub fn end(&mut self, program: &super::ChildState, id: &str) -> bool {
        if let Some(uid) = self.own_uid {
            let clean = match uids::sweep(uid) {
                Ok(clean) => clean,
                Err(error) => {
                    tracing::error!(uid, %error, "cannot end the session's processes");
                    false
                }
            };
            if clean {
                // Gone with its home and its files in the shared temporary
                // directories, and then free for another session.
                self.remove_home();
                for dir in SHARED_TMP {
                    remove_owned(Path::new(dir), uid);
                }
                self.own_uid = None;
                uids::give_back(uid);
                self.uid_lock = None;
            } else {
                tracing::error!(
                    uid,
                    "processes of the session's uid are left: the uid stays out of use"
                );
            }
            return clean;
        }
        if let Some(cgroup) = &self.cgroup {
            return match cgroup.kill() {
                Ok(clean) => clean,
                Err(error) => {
                    tracing::error!(%error, "cannot kill the session's cgroup");
                    false
                }
            };
        }
        let killed = super::kill_leftovers(program, id);
        if killed > 0 {
            tracing::info!(
                id,
                processes = killed,
                "killed the session's leftover processes"
            );
        }
        false
    }

    fn remove_home(&mut self) {
        if let Some(home) = self.home.take().filter(|_| self.private_home) {
            if let Err(error) = std::fs::remove_dir_all(&home) {
                tracing::warn!(home = %home.display(), %error, "cannot remove the session's home");
            }
        }
    }
}

impl Drop for Sandbox {
    /// A session that never ran (its spawn failed) gives its uid back
    /// here, once no process of it is alive.
    fn drop(&mut self) {
        if let Some(uid) = self.own_uid.take() {
            if !uids::in_use(uid) {
                self.remove_home();
                uids::give_back(uid);
                self.uid_lock = None;
            } else {
                // Out of use for as long as this process lives.
                std::mem::forget(self.uid_lock.take());
            }
        }
    }
}

/// Removes the entries of `dir` that belong to `uid` (without following
/// symbolic links).
fn remove_owned(dir: &Path, uid: u32) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.uid() != uid {
            continue;
        }
        let removed = if meta.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        if let Err(error) = removed {
            tracing::warn!(path = %path.display(), %error, "cannot remove a file the session left");
        }
    }
}

/// Makes `homes` (0711, owned by the server) if missing.
fn make_homes(homes: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o711)
        .create(homes)?;
    let meta = std::fs::symlink_metadata(homes)?;
    // SAFETY: geteuid cannot fail.
    if !meta.is_dir() || meta.uid() != unsafe { libc::geteuid() } {
        return Err(io::Error::other(
            "it is not a directory owned by the server's user",
        ));
    }
    if meta.mode() & 0o022 != 0 {
        std::fs::set_permissions(homes, std::fs::Permissions::from_mode(0o711))?;
    }
    Ok(())
}

/// Removes the homes a server that died left behind: those whose uid no
/// server holds (its lock is free, and held while removing) and no live
/// process has.
fn remove_stale_homes(homes: &Path) {
    let Ok(entries) = std::fs::read_dir(homes) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir()
            || path
                .file_name()
                .is_some_and(|n| n.as_encoded_bytes().starts_with(b"."))
        {
            continue;
        }
        let Some(_held) = uids::lock(homes, meta.uid()) else {
            continue;
        };
        if !uids::in_use(meta.uid()) {
            if let Err(error) = std::fs::remove_dir_all(&path) {
                tracing::warn!(home = %path.display(), %error, "cannot remove a stale session home");
            }
        }
    }
}

/// Makes `homes/id`, 0700, owned by `uid`.
fn make_home(homes: &Path, id: &str, uid: u32) -> io::Result<PathBuf> {
    let home = homes.join(id);
    std::fs::DirBuilder::new().mode(0o700).create(&home)?;
    std::os::unix::fs::chown(&home, Some(uid), Some(uid))?;
    Ok(home)
}

/// The names of the capabilities the `uid` mode needs that this process
/// lacks (all of them when its status cannot be read).
fn missing_capabilities() -> Vec<&'static str> {
    let effective = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let hex = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
            u64::from_str_radix(hex.trim(), 16).ok()
        })
        .unwrap_or(0);
    NEEDED
        .iter()
        .filter(|(bit, _)| effective & (1 << bit) == 0)
        .map(|&(_, name)| name)
        .collect()
}

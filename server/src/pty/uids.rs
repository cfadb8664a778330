//! Uids of their own for sessions: a pool over a configured range that
//! never hands out a uid while a process of it is alive, and the sweep that
//! ends every process of a uid without naming any pid.
//!
//! Servers in one process share a set of the uids they hold; servers in
//! different processes share a lock file per uid in their homes' directory
//! (`.uid-N.lock`, held with `flock` for the session's life and released
//! by the kernel if the server dies).

use std::collections::BTreeSet;
use std::fs::File;
use std::io;
use std::ops::RangeInclusive;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// How many times a sweep kills and looks again before giving up.
const SWEEP_ROUNDS: u32 = 50;
/// The pause between two rounds of a sweep.
const SWEEP_PAUSE: Duration = Duration::from_millis(10);

/// Uids handed out by every pool of this process, so that two servers in
/// one process (as in tests) never share one.
static TAKEN: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

/// The uids of one server's sessions.
pub struct UidPool {
    range: RangeInclusive<u32>,
    /// Where the next search starts, so a freed uid is the last reused.
    next: Mutex<u32>,
}

impl UidPool {
    /// A pool over `first..=last`.
    pub fn new(first: u32, last: u32) -> UidPool {
        UidPool {
            range: first..=last,
            next: Mutex::new(first),
        }
    }

    /// A uid no session holds and no live process has (as its real,
    /// effective or saved uid), with its lock file in `locks`, held until
    /// dropped; `None` when every one is busy.
    pub fn take(&self, locks: &Path) -> Option<(u32, File)> {
        let busy = uids_in_use();
        // Each lock guards plain values: consistent after a panic.
        let mut taken = TAKEN.lock().unwrap_or_else(PoisonError::into_inner);
        let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
        let (first, last) = (*self.range.start(), *self.range.end());
        let start = (*next).clamp(first, last);
        let (found, lock) = (start..=last)
            .chain(first..start)
            .filter(|uid| !taken.contains(uid) && !busy.contains(uid))
            .find_map(|uid| Some((uid, lock(locks, uid)?)))?;
        taken.insert(found);
        *next = found.checked_add(1).unwrap_or(first);
        Some((found, lock))
    }

    /// The first uid of the range.
    pub fn first(&self) -> u32 {
        *self.range.start()
    }

    /// The last uid of the range.
    pub fn last(&self) -> u32 {
        *self.range.end()
    }
}

/// Marks `uid` as held by this process, for a session handed over by an
/// earlier process image.
pub fn claim(uid: u32) {
    TAKEN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(uid);
}

/// Gives `uid` back: call only once [`sweep`] found nothing left of it.
pub fn give_back(uid: u32) {
    TAKEN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&uid);
}

/// The lock of `uid` in `locks`, if no other holder has it.
pub fn lock(locks: &Path, uid: u32) -> Option<File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
        .open(locks.join(format!(".uid-{uid}.lock")))
        .ok()?;
    // SAFETY: flock on a descriptor we own.
    (unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0).then_some(file)
}

/// The uids of every live (not zombie) process: real, effective and saved.
fn uids_in_use() -> BTreeSet<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return BTreeSet::new();
    };
    dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(process_uids)
        .flatten()
        .collect()
}

/// Real, effective and saved uid of a live process; `None` for a zombie
/// or a process that is gone.
fn process_uids(pid: u32) -> Option<[u32; 3]> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let mut uids = None;
    for line in status.lines() {
        if let Some(state) = line.strip_prefix("State:") {
            if state.trim_start().starts_with('Z') {
                return None;
            }
        } else if let Some(values) = line.strip_prefix("Uid:") {
            let mut values = values.split_whitespace().map(|v| v.parse().ok());
            uids = Some([values.next()??, values.next()??, values.next()??]);
        }
    }
    uids
}

/// True while a live process has `uid` as its real, effective or saved uid.
pub fn in_use(uid: u32) -> bool {
    uids_in_use().contains(&uid)
}

/// Ends every process of `uid`: a helper process drops to `uid` and sends
/// SIGKILL to every process it may signal (`kill(-1)`: exactly those whose
/// real or saved uid is `uid`), again until none is left or the rounds run
/// out. No pid is ever named, so none can have been reused. Returns true
/// when nothing of `uid` is left. Blocking.
pub fn sweep(uid: u32) -> io::Result<bool> {
    for round in 0..SWEEP_ROUNDS {
        if !in_use(uid) {
            return Ok(true);
        }
        if round > 0 {
            std::thread::sleep(SWEEP_PAUSE);
        }
        kill_all_as(uid)?;
    }
    Ok(!in_use(uid))
}

/// Forks a helper that becomes `uid` and kills every process of it.
fn kill_all_as(uid: u32) -> io::Result<()> {
    // SAFETY: the child makes only async-signal-safe system calls, then
    // `_exit`s; the parent reaps it.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: raw system calls in the forked child; `kill(-1)` never
        // signals the caller itself.
        unsafe {
            if libc::syscall(libc::SYS_setresuid, uid, uid, uid) != 0 {
                libc::_exit(1);
            }
            libc::kill(-1, libc::SIGKILL);
            libc::_exit(0);
        }
    }
    let mut status = 0;
    loop {
        // SAFETY: waitpid on the helper we just forked.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break;
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::ECHILD) {
            // The orphan reaper took its status: the next look at /proc
            // tells whether it did its work.
            return Ok(());
        }
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "cannot become uid {uid} to end its processes"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_uid_is_in_use() {
        // SAFETY: getuid cannot fail.
        assert!(in_use(unsafe { libc::getuid() }));
    }

    #[test]
    fn the_pool_skips_uids_in_use_taken_or_locked_and_wraps() {
        // SAFETY: getuid cannot fail.
        let me = unsafe { libc::getuid() };
        let locks = std::env::temp_dir().join(format!("panecast-uids-{}", std::process::id()));
        std::fs::create_dir_all(&locks).expect("a lock directory");
        let uid = |taken: Option<(u32, File)>| taken.map(|(uid, _)| uid);
        let pool = UidPool::new(me, me);
        assert_eq!(
            uid(pool.take(&locks)),
            None,
            "a uid with a live process is never handed out"
        );
        let free = 3_999_000_000;
        let pool = UidPool::new(free, free + 1);
        assert_eq!(uid(pool.take(&locks)), Some(free));
        let held = pool.take(&locks).expect("the second uid");
        assert_eq!(held.0, free + 1);
        assert_eq!(uid(pool.take(&locks)), None, "every uid is taken");
        give_back(free);
        assert_eq!(uid(pool.take(&locks)), Some(free));
        give_back(free);
        // Taken by no server of this process, but its lock is held (as
        // another process's server would hold it).
        give_back(free + 1);
        assert_eq!(uid(pool.take(&locks)), Some(free));
        assert_eq!(uid(pool.take(&locks)), None, "a locked uid is skipped");
        give_back(free);
        drop(held);
        let _ = std::fs::remove_dir_all(&locks);
    }
}

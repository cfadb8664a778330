//! A cgroup v2 per session, where the server may create one: the child
//! joins it before exec, its descendants cannot leave it (short of the
//! rights to move processes between cgroups), and `cgroup.kill` ends all of
//! them at once, by the kernel, without naming a pid.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Numbers the roots made by this process (several servers run in one
/// process in tests), so that each has its own directory.
static ROOTS_MADE: AtomicU32 = AtomicU32::new(0);

/// How long ending a cgroup waits for it to empty.
const EMPTY_WITHIN: Duration = Duration::from_secs(2);

/// The directory the sessions' cgroups are made in: `panecast-PID-N` under
/// the server's own cgroup of the v2 hierarchy.
#[derive(Debug, Clone)]
pub struct CgroupRoot {
    dir: PathBuf,
}

impl CgroupRoot {
    /// Finds the cgroup v2 mount and the server's cgroup in it, and makes
    /// the directory for sessions; `None` where that is not possible, or
    /// the kernel has no `cgroup.kill` (before Linux 5.14).
    pub fn create() -> Option<CgroupRoot> {
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
        let mount = v2_mount(&mountinfo)?;
        let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let own = cgroups
            .lines()
            .find_map(|line| line.strip_prefix("0::"))?
            .trim_start_matches('/');
        let parent = Path::new(&mount).join(own);
        remove_stale_roots(&parent);
        let dir = parent.join(format!(
            "panecast-{}-{}",
            std::process::id(),
            ROOTS_MADE.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            // Named by this pid and owned by this user: this process made
            // it before an upgrade. One of another user is a dead server's
            // that had this pid, which this process may not write in.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && owned_by_me(&dir) => {}
            Err(_) => return None,
        }
        let root = CgroupRoot { dir };
        // Sessions' cgroups must be makeable in it, not only the root: some
        // kernels and sandboxes let the one be made and refuse the other.
        // The probe's cgroup is removed when it drops, at the statement's end.
        let usable = root.dir.join("cgroup.kill").exists() && root.session(PROBE).is_ok();
        if !usable {
            tracing::warn!(dir = %root.dir.display(), "cannot make sessions' cgroups: sessions run without one");
            return None;
        }
        Some(root)
    }

    /// A new cgroup for the session `id`.
    pub fn session(&self, id: &str) -> io::Result<Cgroup> {
        let dir = self.dir.join(id);
        std::fs::create_dir(&dir)?;
        Ok(Cgroup { dir })
    }
}

impl Drop for CgroupRoot {
    fn drop(&mut self) {
        // Fails while a session's cgroup is left: it stays for the next look.
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// The name of the cgroup made and removed at start to learn whether
/// sessions' cgroups can be made.
const PROBE: &str = "probe";

/// True when `dir` belongs to the user this process runs as.
fn owned_by_me(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    std::fs::metadata(dir).is_ok_and(|meta| meta.uid() == me)
}

/// Removes the roots, and their sessions' cgroups, that servers no longer
/// running left in `parent` (a server killed, or ended without unwinding,
/// leaves its root). The kernel refuses to remove a cgroup that still holds
/// a process, so a session's program that outlived its server keeps its
/// cgroup, and its root.
fn remove_stale_roots(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(root_pid) else {
            continue;
        };
        if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let root = entry.path();
        if let Ok(sessions) = std::fs::read_dir(&root) {
            for session in sessions.flatten().filter(|s| s.path().is_dir()) {
                let _ = std::fs::remove_dir(session.path());
            }
        }
        let _ = std::fs::remove_dir(&root);
    }
}

/// The pid in a root's name, `panecast-PID-N`.
fn root_pid(name: &str) -> Option<u32> {
    let (pid, made) = name.strip_prefix("panecast-")?.split_once('-')?;
    made.parse::<u32>().ok()?;
    pid.parse().ok()
}

/// The mount point of the cgroup v2 hierarchy in `mountinfo`.
fn v2_mount(mountinfo: &str) -> Option<String> {
    mountinfo.lines().find_map(|line| {
        let (mount, after) = line.split_once(" - ")?;
        (after.split(' ').next()? == "cgroup2").then_some(())?;
        // ID PARENT MAJOR:MINOR ROOT MOUNT_POINT ...; octal escapes for spaces.
        let point = mount.split(' ').nth(4)?;
        (!point.contains('\\')).then(|| point.to_owned())
    })
}

/// One session's cgroup.
#[derive(Debug)]
pub struct Cgroup {
    dir: PathBuf,
}

impl Cgroup {
    /// The cgroup at `dir`, made before an upgrade.
    pub fn adopt(dir: PathBuf) -> Cgroup {
        Cgroup { dir }
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file a process writes `0` to in order to join.
    pub fn procs(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// True while a live process is in the cgroup.
    pub fn populated(&self) -> bool {
        std::fs::read_to_string(self.dir.join("cgroup.events"))
            .map(|events| events.lines().any(|line| line == "populated 1"))
            .unwrap_or(false)
    }

    /// Kills every process in the cgroup and waits (bounded) until it is
    /// empty; true when it is. Blocking.
    pub fn kill(&self) -> io::Result<bool> {
        std::fs::write(self.dir.join("cgroup.kill"), "1")?;
        let deadline = std::time::Instant::now() + EMPTY_WITHIN;
        while self.populated() {
            if std::time::Instant::now() > deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(true)
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // Fails only while processes are left in it, which `kill` reported.
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_v2_mount() {
        let info = "30 25 0:26 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n\
                    31 25 0:27 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
        assert_eq!(v2_mount(info).as_deref(), Some("/sys/fs/cgroup/unified"));
        assert_eq!(v2_mount("31 25 0:27 / /x rw - cgroup cgroup rw\n"), None);
    }

    #[test]
    fn reads_the_pid_of_a_root_name() {
        assert_eq!(root_pid("panecast-4242-0"), Some(4242));
        assert_eq!(root_pid("panecast-4242-17"), Some(4242));
        assert_eq!(root_pid("panecast-4242"), None);
        assert_eq!(root_pid("panecast-x-0"), None);
        assert_eq!(root_pid("system.slice"), None);
    }
}

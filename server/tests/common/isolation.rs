//! What the isolation tests share (`tests/security/isolation.rs` and
//! `tests/isolation_processes.rs`): whether they can run here, and where.
//! Each check prints why a test skips when it cannot.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// True when this test runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// True when this test runs as root, which isolation needs; otherwise
/// prints that the test skips, and under `CI=true` (where the test
/// command runs as root) fails instead of passing in silence.
pub fn runs_as_root() -> bool {
    let root = is_root();
    if !root {
        let why = "sessions get uids of their own only from a server running as root";
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "this test cannot run here (CI=true): {why}"
        );
        eprintln!("skipped: {why}");
    }
    root
}

/// A directory of its own for one test.
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("panecast-isolation-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a test directory");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

/// The cgroup v2 directory this test process is in, where a server it
/// starts makes its root; `None` (and a line saying the test skips) where
/// there is none, or its kernel has no `cgroup.kill` (the server then makes
/// no cgroups).
pub fn cgroup_dir() -> Option<PathBuf> {
    let dir = own_cgroup_dir();
    if dir.is_none() {
        eprintln!("skipped: no cgroup v2 hierarchy with cgroup.kill that root may write to");
    }
    dir
}

fn own_cgroup_dir() -> Option<PathBuf> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mountinfo.lines().find_map(|line| {
        let (fields, after) = line.split_once(" - ")?;
        after
            .starts_with("cgroup2 ")
            .then(|| fields.split(' ').nth(4).map(PathBuf::from))?
    })?;
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = cgroups.lines().find_map(|line| line.strip_prefix("0::"))?;
    let dir = mount.join(own.trim_start_matches('/'));
    let probe = dir.join(format!("panecast-probe-{}", std::process::id()));
    std::fs::create_dir(&probe).ok()?;
    let kill = probe.join("cgroup.kill").exists();
    let _ = std::fs::remove_dir(&probe);
    kill.then_some(dir)
}

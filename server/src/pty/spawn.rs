//! Starting a child in a new pty, as a given user: `posix_openpt`, the
//! slave handed to the child's uid with mode 0600, and a `std::process`
//! command whose `pre_exec` joins the session's cgroup, makes the child a
//! session leader with the slave as its controlling terminal, drops to the
//! session's uid and gid, enters the working directory and resets signals.
//! No threads and no waiting: the caller reaps the child.

use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// Who the child runs as.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Identity {
    /// Its uid.
    pub uid: u32,
    /// Its primary gid.
    pub gid: u32,
    /// Its supplementary groups (none for a session's own uid).
    pub groups: Vec<u32>,
    /// Set `no_new_privs`, so no set-user-ID program can take it out of
    /// its uid (for a session's own uid, which is swept by uid).
    pub no_new_privs: bool,
}

/// What to start.
pub struct Child<'a> {
    /// Program and arguments; the program is looked up in the `PATH` of `env`.
    pub argv: &'a [String],
    /// The whole environment.
    pub env: &'a [(String, String)],
    /// Working directory, entered as the child's user.
    pub cwd: &'a Path,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    /// The user to run as; `None`: the server's.
    pub identity: Option<&'a Identity>,
    /// The `cgroup.procs` file of the cgroup the child joins, if any.
    pub cgroup_procs: Option<&'a Path>,
}

/// Starts `child` in a new pty; returns the master (close-on-exec) and the
/// child's pid, which is also its process group and session id.
pub fn spawn(child: &Child<'_>) -> io::Result<(OwnedFd, libc::pid_t)> {
    let (program, args) = child
        .argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the command is empty"))?;
    let (master, slave) = open_pty(child.size)?;
    if let Some(identity) = child.identity {
        // SAFETY: fchown and fchmod act on a descriptor we own.
        if unsafe { libc::fchown(slave.as_raw_fd(), identity.uid, identity.gid) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    // SAFETY: as above.
    if unsafe { libc::fchmod(slave.as_raw_fd(), 0o600) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let cwd = c_path(child.cwd.as_os_str())?;
    let cgroup = child
        .cgroup_procs
        .map(|p| c_path(p.as_os_str()))
        .transpose()?;
    let identity = child.identity.cloned();

    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(child.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::from(slave.try_clone()?))
        .stdout(Stdio::from(slave.try_clone()?))
        .stderr(Stdio::from(slave));
    // SAFETY: the closure makes only async-signal-safe system calls on
    // memory prepared before the fork, as `pre_exec` requires.
    unsafe {
        command.pre_exec(move || in_child(cgroup.as_deref(), identity.as_ref(), &cwd));
    }
    let spawned = command.spawn()?;
    let pid = libc::pid_t::try_from(spawned.id())
        .map_err(|_| io::Error::other("the child's pid is out of range"))?;
    Ok((master, pid))
}

/// A new pty pair, both ends close-on-exec, the slave not this process's
/// controlling terminal, at `size`.
fn open_pty((cols, rows): (u16, u16)) -> io::Result<(OwnedFd, OwnedFd)> {
    let flags = libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC;
    // SAFETY: posix_openpt returns a new descriptor or -1.
    let raw = unsafe { libc::posix_openpt(flags) };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a fresh descriptor that nothing else owns.
    let master = unsafe { OwnedFd::from_raw_fd(raw) };
    let mut name = [0 as libc::c_char; 64];
    // SAFETY: grantpt and unlockpt act on our master; ptsname_r writes at
    // most `name.len()` bytes, NUL included.
    unsafe {
        if libc::grantpt(raw) != 0
            || libc::unlockpt(raw) != 0
            || libc::ptsname_r(raw, name.as_mut_ptr(), name.len()) != 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    // SAFETY: ptsname_r succeeded, so `name` holds a NUL-terminated path.
    let slave = unsafe { libc::open(name.as_ptr(), flags) };
    if slave < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `slave` is a fresh descriptor that nothing else owns.
    let slave = unsafe { OwnedFd::from_raw_fd(slave) };
    set_size(&master, cols, rows)?;
    Ok((master, slave))
}

/// Sets the terminal size of the pty behind `master`.
pub fn set_size(master: &impl AsRawFd, cols: u16, rows: u16) -> io::Result<()> {
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCSWINSZ reads one winsize from the pointer given.
    if unsafe { libc::ioctl(master.as_raw_fd(), libc::TIOCSWINSZ, &size) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn c_path(path: &OsStr) -> io::Result<CString> {
    CString::new(path.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path contains a NUL byte"))
}

/// Runs in the child between fork and exec: only async-signal-safe calls.
fn in_child(
    cgroup: Option<&std::ffi::CStr>,
    identity: Option<&Identity>,
    cwd: &CString,
) -> io::Result<()> {
    let check = |result: libc::c_int| {
        if result < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    };
    // SAFETY: each call below is async-signal-safe and uses memory that was
    // prepared before the fork and stays valid until exec.
    unsafe {
        if let Some(procs) = cgroup {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            check(fd)?;
            let written = libc::write(fd, b"0".as_ptr().cast(), 1);
            libc::close(fd);
            if written != 1 {
                return Err(io::Error::last_os_error());
            }
        }
        check(libc::setsid())?;
        check(libc::ioctl(0, libc::TIOCSCTTY, 0))?;
        if let Some(identity) = identity {
            check(libc::setgroups(
                identity.groups.len(),
                identity.groups.as_ptr(),
            ))?;
            check(libc::setresgid(identity.gid, identity.gid, identity.gid))?;
            check(libc::setresuid(identity.uid, identity.uid, identity.uid))?;
            if identity.no_new_privs {
                check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
            }
        }
        check(libc::chdir(cwd.as_ptr()))?;
        let mut all = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut all);
        check(libc::sigprocmask(
            libc::SIG_SETMASK,
            &all,
            std::ptr::null_mut(),
        ))?;
        // The classic signals: the real-time ones start at 32.
        for signal in 1..32 {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                libc::signal(signal, libc::SIG_DFL);
            }
        }
    }
    Ok(())
}

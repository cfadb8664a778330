//! Starting a child in a new pty, as a given user: `posix_openpt`, the
//! slave handed to the child's uid with mode 0600, and a child cloned with
//! the server's memory (as `posix_spawn` does) that joins the session's
//! cgroup, becomes a session leader with the slave as its controlling
//! terminal, drops to the session's uid and gid, enters the working
//! directory, resets signals and executes the program. No threads and no
//! waiting: the caller reaps the child.

use std::ffi::{CString, OsStr};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};

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

impl Identity {
    /// Takes on this identity in a child between fork and exec: its
    /// groups, then its gid, then its uid, then `no_new_privs` if set. By
    /// direct system calls, with no allocation (the C library's wrappers
    /// would signal the server's threads); the errno of the first failure.
    pub fn assume(&self) -> Result<(), i32> {
        let check = |result: libc::c_long| {
            if result < 0 {
                Err(io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EPERM))
            } else {
                Ok(())
            }
        };
        // SAFETY: system calls on this identity's memory, prepared before
        // the fork and valid for the call.
        unsafe {
            check(libc::syscall(
                libc::SYS_setgroups,
                self.groups.len(),
                self.groups.as_ptr(),
            ))?;
            check(libc::syscall(
                libc::SYS_setresgid,
                self.gid,
                self.gid,
                self.gid,
            ))?;
            check(libc::syscall(
                libc::SYS_setresuid,
                self.uid,
                self.uid,
                self.uid,
            ))?;
            if self.no_new_privs {
                check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0).into())?;
            }
        }
        Ok(())
    }
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
    let (program, _) = child
        .argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the command is empty"))?;
    let (master, slave) = open_pty(child.size)?;
    // The child's standard streams are made from the slave by dup2: it must
    // not be one of them already (with the server's closed), or it would
    // keep its close-on-exec flag. A clone is numbered 3 or above.
    let slave = if slave.as_raw_fd() <= 2 {
        slave.try_clone()?
    } else {
        slave
    };
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
    let prepared = Prepared {
        path: c_path(find_program(program, child.env).as_os_str())?,
        argv: CStrings::new(child.argv.iter().map(|a| a.as_bytes().to_vec()))?,
        envp: CStrings::new(
            child
                .env
                .iter()
                .map(|(k, v)| format!("{k}={v}").into_bytes()),
        )?,
        slave,
        cwd: c_path(child.cwd.as_os_str())?,
        cgroup: child
            .cgroup_procs
            .map(|p| c_path(p.as_os_str()))
            .transpose()?,
        identity: child.identity.cloned(),
        failed: AtomicI32::new(0),
    };
    let pid = clone_and_exec(&prepared)?;
    Ok((master, pid))
}

/// Everything the child needs, prepared before it exists: it shares the
/// server's memory until it executes the program, so it may not allocate.
struct Prepared {
    /// The program's path (looked up in `PATH` by the server).
    path: CString,
    argv: CStrings,
    envp: CStrings,
    /// The pty's slave: the child's standard input, output and error.
    slave: OwnedFd,
    cwd: CString,
    cgroup: Option<CString>,
    identity: Option<Identity>,
    /// The error number of the step that failed in the child (0: none).
    failed: AtomicI32,
}

/// A NULL-terminated array of C strings, as `execve` takes them.
struct CStrings {
    _owned: Vec<CString>,
    pointers: Vec<*const libc::c_char>,
}

impl CStrings {
    fn new(items: impl Iterator<Item = Vec<u8>>) -> io::Result<CStrings> {
        let owned = items
            .map(|item| {
                CString::new(item).map_err(|_| {
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "an argument or variable contains a NUL byte",
                    )
                })
            })
            .collect::<io::Result<Vec<_>>>()?;
        let mut pointers: Vec<*const libc::c_char> = owned.iter().map(|c| c.as_ptr()).collect();
        pointers.push(std::ptr::null());
        Ok(CStrings {
            _owned: owned,
            pointers,
        })
    }
}

/// The child's stack while it shares the server's memory.
const CHILD_STACK: usize = 256 * 1024;

/// Starts the child with `clone(CLONE_VM | CLONE_VFORK)`, as `posix_spawn`
/// does: it shares the server's memory until it executes the program, so
/// starting it costs the same whatever the server's size (a `fork` copies
/// the page tables: 31 ms with 660 MiB mapped, against 0.6 ms). This
/// thread waits meanwhile; the others go on. Returns its pid once it runs
/// the program, or the error of the step that failed.
fn clone_and_exec(prepared: &Prepared) -> io::Result<libc::pid_t> {
    let stack = ChildStack::new()?;
    // Signals are blocked across the clone, so no handler of the server's
    // runs in the child on the server's memory; the child resets them all
    // before unblocking.
    let mut all = MaybeUninit::<libc::sigset_t>::uninit();
    let mut before = MaybeUninit::<libc::sigset_t>::uninit();
    // SAFETY: sigfillset initialises `all`; pthread_sigmask writes the old
    // mask into `before`.
    unsafe {
        libc::sigfillset(all.as_mut_ptr());
        libc::pthread_sigmask(libc::SIG_SETMASK, all.as_ptr(), before.as_mut_ptr());
    }
    // SAFETY: the child runs `child_main` on its own stack with a pointer
    // to `prepared`, which outlives it: with CLONE_VFORK this call returns
    // only once the child has executed the program or exited, and both
    // `prepared` and the stack live until after.
    let pid = unsafe {
        libc::clone(
            child_main,
            stack.top(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::from_ref(prepared).cast_mut().cast(),
        )
    };
    let cloned = io::Error::last_os_error();
    // SAFETY: `before` was written by the first pthread_sigmask.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, before.as_ptr(), std::ptr::null_mut());
    }
    if pid < 0 {
        return Err(cloned);
    }
    let failed = prepared.failed.load(Ordering::Acquire);
    if failed != 0 {
        // The child has exited: reap it here, before anyone else may.
        let mut status = 0;
        // SAFETY: waitpid on our own exited child, writing one int.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        return Err(io::Error::from_raw_os_error(failed));
    }
    Ok(pid)
}

/// An anonymous mapping for the child's stack, with a guard page below it.
struct ChildStack(*mut libc::c_void);

impl ChildStack {
    fn new() -> io::Result<ChildStack> {
        // SAFETY: a fresh private anonymous mapping; nothing else uses it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                CHILD_STACK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let stack = ChildStack(base);
        // SAFETY: the lowest page of our own mapping.
        if unsafe { libc::mprotect(base, page_size(), libc::PROT_NONE) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(stack)
    }

    /// The stack's top (it grows down), 16-byte aligned.
    fn top(&self) -> *mut libc::c_void {
        // SAFETY: one past the end of our mapping, whose size is a multiple
        // of the page size, so aligned.
        unsafe { self.0.cast::<u8>().add(CHILD_STACK).cast() }
    }
}

impl Drop for ChildStack {
    fn drop(&mut self) {
        // SAFETY: our own mapping, which the child no longer uses.
        unsafe { libc::munmap(self.0, CHILD_STACK) };
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}

/// The program's path: as given if it holds a slash, otherwise the first
/// executable file of that name in `PATH` (from `env`, or the default
/// search path), as `execvp` would look it up; the name itself if none
/// is found (the child then fails with "No such file or directory").
fn find_program(program: &str, env: &[(String, String)]) -> PathBuf {
    if program.contains('/') {
        return PathBuf::from(program);
    }
    let path = env
        .iter()
        .find(|(name, _)| name == "PATH")
        .map_or("/usr/local/bin:/usr/bin:/bin", |(_, path)| path.as_str());
    path.split(':')
        .map(|dir| Path::new(if dir.is_empty() { "." } else { dir }).join(program))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .unwrap_or_else(|| PathBuf::from(program))
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

/// The child, on its own stack and the server's memory: only direct
/// system calls on memory prepared before the clone, no allocation and no
/// lock. On failure it records the error number and exits.
extern "C" fn child_main(prepared: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `clone_and_exec` passes a pointer to its `Prepared`, alive
    // until the child has executed the program or exited.
    let prepared = unsafe { &*prepared.cast::<Prepared>() };
    if let Err(e) = in_child(prepared) {
        prepared
            .failed
            .store(e.raw_os_error().unwrap_or(libc::EINVAL), Ordering::Release);
    }
    // SAFETY: leaves the child at once, running nothing of the server's.
    unsafe { libc::_exit(127) }
}

/// The child's steps: joins the cgroup, takes the pty as its standard
/// streams and controlling terminal in a new session, drops to its user,
/// enters its directory, resets every signal, executes the program.
/// Returns only on failure. Credentials are changed by direct system
/// calls: the C library's wrappers would signal the server's threads.
fn in_child(prepared: &Prepared) -> io::Result<()> {
    let check = |result: libc::c_long| {
        if result < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    };
    let slave = prepared.slave.as_raw_fd();
    // SAFETY: each call below is a system call on memory that was prepared
    // before the clone and stays valid until exec.
    unsafe {
        if let Some(procs) = &prepared.cgroup {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            check(fd.into())?;
            let written = libc::write(fd, b"0".as_ptr().cast(), 1);
            libc::close(fd);
            if written != 1 {
                return Err(io::Error::last_os_error());
            }
        }
        for stream in 0..3 {
            check(libc::dup2(slave, stream).into())?;
        }
        check(libc::setsid().into())?;
        check(libc::ioctl(0, libc::TIOCSCTTY, 0).into())?;
        if let Some(identity) = &prepared.identity {
            identity.assume().map_err(io::Error::from_raw_os_error)?;
        }
        check(libc::chdir(prepared.cwd.as_ptr()).into())?;
        // The classic signals to their defaults, then none blocked: the
        // real-time ones start at 32.
        for signal in 1..32 {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                libc::signal(signal, libc::SIG_DFL);
            }
        }
        let mut none = MaybeUninit::<libc::sigset_t>::uninit();
        libc::sigemptyset(none.as_mut_ptr());
        check(libc::sigprocmask(libc::SIG_SETMASK, none.as_ptr(), std::ptr::null_mut()).into())?;
        libc::execve(
            prepared.path.as_ptr(),
            prepared.argv.pointers.as_ptr(),
            prepared.envp.pointers.as_ptr(),
        );
    }
    Err(io::Error::last_os_error())
}

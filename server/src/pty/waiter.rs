//! The waiter thread: blocks until the child exits, so the child is always
//! reaped, and reports how it ended. It waits without reaping first, then
//! reaps under the [`ChildState`] lock: while a signal is sent under that
//! lock the child is at worst a zombie, whose pid (and so process group)
//! no other process can have.

use std::collections::HashSet;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::oneshot;

/// How a child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitStatus {
    /// The exit code (1 when a signal ended it); `None` if waiting failed.
    pub code: Option<u32>,
    /// The signal that ended it, as `strsignal` names it ("Hangup", "Killed").
    pub signal: Option<String>,
}

/// A child and when it was reaped (in the clock ticks of `/proc` start
/// times), if it was.
pub struct ChildState {
    pid: libc::pid_t,
    reaped: Mutex<Option<u64>>,
}

impl ChildState {
    /// The child's pid.
    pub fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// Sends `signal` to the child's process group, only while the child is
    /// not reaped (so its pid cannot have been reused); true if sent.
    pub fn signal_group(&self, signal: libc::c_int) -> bool {
        self.while_reaped_at(|reaped| {
            // SAFETY: killpg only sends a signal; the group is the unreaped child's.
            reaped.is_none() && unsafe { libc::killpg(self.pid, signal) } == 0
        })
    }

    /// Holds the child as it is: while the guard lives, an unreaped child
    /// stays unreaped (its waiter reaps under the same lock). An upgrade
    /// holds every program so, checks none was reaped, and re-executes.
    pub fn hold(&self) -> MutexGuard<'_, Option<u64>> {
        self.reaped.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The state of a program reaped by an earlier process image (before an
    /// upgrade): nothing is ever signalled through it.
    pub fn reaped_before(pid: libc::pid_t) -> Arc<ChildState> {
        Arc::new(ChildState {
            pid,
            reaped: Mutex::new(Some(now_ticks())),
        })
    }

    /// Runs `f` with the time the child was reaped (`None`: not yet),
    /// holding the lock: an unreaped child stays unreaped until `f` returns.
    pub fn while_reaped_at<R>(&self, f: impl FnOnce(Option<u64>) -> R) -> R {
        // A plain value: consistent after a panic.
        let reaped = self.reaped.lock().unwrap_or_else(PoisonError::into_inner);
        f(*reaped)
    }
}

/// Pids of session programs: each is reaped by its own waiter thread, so
/// the orphan reaper leaves them alone.
static PROGRAMS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

/// Locks the set of session programs' pids.
pub(super) fn programs() -> MutexGuard<'static, Option<HashSet<i32>>> {
    // Each update is a single insert or remove: consistent after a panic.
    PROGRAMS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Claims `pids`, children of this process, as session programs before
/// their waiters start (an upgraded server, at start): the orphan reaper
/// leaves them alone.
pub fn claim_programs(pids: impl IntoIterator<Item = libc::pid_t>) {
    programs().get_or_insert_with(Default::default).extend(pids);
}

/// Now, in the clock ticks of `/proc/PID/stat` start times.
pub(super) fn now_ticks() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec; sysconf reads a constant.
    let (ok, hz) = unsafe {
        (
            libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut now) == 0,
            libc::sysconf(libc::_SC_CLK_TCK),
        )
    };
    let hz = u64::try_from(hz).unwrap_or(100);
    if !ok {
        return u64::MAX;
    }
    now.tv_sec as u64 * hz + now.tv_nsec as u64 * hz / 1_000_000_000
}

/// A started waiter thread, waiting to be given the child.
pub struct Waiter {
    child: std::sync::mpsc::SyncSender<Arc<ChildState>>,
}

/// Starts the waiter thread before the child exists, so handing the child
/// over cannot fail for lack of a thread.
pub fn start() -> io::Result<(Waiter, oneshot::Receiver<ExitStatus>)> {
    let (child_tx, child_rx) = std::sync::mpsc::sync_channel::<Arc<ChildState>>(1);
    let (exit_tx, exit_rx) = oneshot::channel();
    std::thread::Builder::new()
        .name("pty-waiter".to_owned())
        .spawn(move || {
            // No child arrives when spawning failed: nothing to wait for.
            let Ok(child) = child_rx.recv() else {
                return;
            };
            let status = wait(&child);
            // The session may already be gone; the child is reaped either way.
            if let Some(set) = programs().as_mut() {
                set.remove(&child.pid);
            }
            let _ = exit_tx.send(status);
        })?;
    Ok((Waiter { child: child_tx }, exit_rx))
}

impl Waiter {
    /// Hands the child to the thread, which waits for it; returns the state
    /// the session signals through.
    pub fn watch(self, pid: libc::pid_t) -> Arc<ChildState> {
        let child = Arc::new(ChildState {
            pid,
            reaped: Mutex::new(None),
        });
        if self.child.send(Arc::clone(&child)).is_err() {
            // The thread is gone (it cannot be, short of a panic): reap here.
            child.signal_group(libc::SIGKILL);
            wait(&child);
        }
        child
    }
}

/// Kills the process group of `pid`, a child of this process no waiter
/// watches, and reaps it.
pub(super) fn kill_and_reap(pid: libc::pid_t) {
    // SAFETY: killpg and waitpid on our own unreaped child, whose pid
    // cannot have been reused.
    unsafe {
        libc::killpg(pid, libc::SIGKILL);
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0
            && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
        {}
    }
    if let Some(set) = programs().as_mut() {
        set.remove(&pid);
    }
}

/// Waits for the child to exit, then reaps it under its lock.
fn wait(child: &ChildState) -> ExitStatus {
    loop {
        // SAFETY: waitid writes one siginfo_t; WNOWAIT leaves the child unreaped.
        let mut info = unsafe { std::mem::zeroed::<libc::siginfo_t>() };
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                child.pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            break;
        }
    }
    let mut reaped = child.reaped.lock().unwrap_or_else(PoisonError::into_inner);
    // Taken before the pid is freed: whatever reuses it starts later.
    let reaping = now_ticks();
    let mut status = 0;
    let r = loop {
        // SAFETY: waitpid on our own child, writing one int.
        let r = unsafe { libc::waitpid(child.pid, &mut status, 0) };
        if r >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            break r;
        }
    };
    *reaped = Some(reaping);
    drop(reaped);
    if r != child.pid {
        return ExitStatus {
            code: None,
            signal: None,
        };
    }
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // SAFETY: strsignal returns a NUL-terminated string, copied at once.
        let name = unsafe { std::ffi::CStr::from_ptr(libc::strsignal(signal)) };
        ExitStatus {
            code: Some(1),
            signal: Some(name.to_string_lossy().into_owned()),
        }
    } else {
        ExitStatus {
            code: Some(libc::WEXITSTATUS(status) as u32),
            signal: None,
        }
    }
}

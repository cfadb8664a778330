//! The one reaper of session programs: a task that wakes on `SIGCHLD`
//! (and when a program is registered), reaps every registered program
//! that has exited and hands its exit status to its session. No thread
//! and no descriptor per program.
//!
//! A program is reaped under its [`ChildState`] lock: while a signal is
//! sent under that lock the program is at worst a zombie, whose pid (and
//! so process group) no other process can have. The set of registered
//! programs is also what the orphan reaper ([`reap_orphans`]) leaves
//! alone; a program is in it from its fork (the set is locked across the
//! fork) until it is reaped.
//!
//! [`reap_orphans`]: super::reap_orphans

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{oneshot, Notify};

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
    /// stays unreaped (the reaper reaps under the same lock). An upgrade
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

/// A registered program: its state, and where its exit status goes.
pub(super) struct Program {
    child: Arc<ChildState>,
    exit: oneshot::Sender<ExitStatus>,
}

/// The registered programs, by pid.
pub(super) type Programs = HashMap<libc::pid_t, Program>;

/// Session programs not yet reaped: the reaper reaps them, the orphan
/// reaper leaves them alone.
static PROGRAMS: Mutex<Option<Programs>> = Mutex::new(None);

/// Wakes the reaper to look at the programs without a `SIGCHLD` (a program
/// adopted after it exited, whose `SIGCHLD` came before it was registered).
static LOOK: Notify = Notify::const_new();

/// A registered program: its state and the receiver of its exit status.
pub(super) type Registered = (Arc<ChildState>, oneshot::Receiver<ExitStatus>);

/// Programs claimed at start by an upgraded image, registered before their
/// sessions take them ([`claimed`]).
static CLAIMED: Mutex<Option<HashMap<libc::pid_t, Registered>>> = Mutex::new(None);

/// Set once the reaper task runs.
static STARTED: Mutex<bool> = Mutex::new(false);

/// Locks the set of session programs.
pub(super) fn programs() -> MutexGuard<'static, Option<Programs>> {
    // Each update is a single insert or remove: consistent after a panic.
    PROGRAMS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Registers `pid`, a child of this process, in the locked set: from now
/// on the reaper reaps it and sends its status on the receiver returned.
pub(super) fn register(programs: &mut Option<Programs>, pid: libc::pid_t) -> Registered {
    let child = Arc::new(ChildState {
        pid,
        reaped: Mutex::new(None),
    });
    let (exit, exit_rx) = oneshot::channel();
    let program = Program {
        child: Arc::clone(&child),
        exit,
    };
    programs
        .get_or_insert_with(Default::default)
        .insert(pid, program);
    // The program may have exited before it was registered.
    LOOK.notify_one();
    (child, exit_rx)
}

/// Claims `pids`, children of this process started by an earlier process
/// image, as session programs (an upgraded server, at start, before
/// anything reaps orphans): they are registered with the reaper at once,
/// so one that ended during the exec still has its status kept, and the
/// orphan reaper leaves them alone. [`adopt`](super::adopt) takes each.
pub fn claim_programs(pids: impl IntoIterator<Item = libc::pid_t>) {
    let mut set = programs();
    let mut claimed = CLAIMED.lock().unwrap_or_else(PoisonError::into_inner);
    let claimed = claimed.get_or_insert_with(Default::default);
    for pid in pids {
        claimed.insert(pid, register(&mut set, pid));
    }
}

/// The registration of `pid` if it was claimed (and is not yet taken).
pub(super) fn claimed(pid: libc::pid_t) -> Option<Registered> {
    // Each update is a single insert or remove: consistent after a panic.
    CLAIMED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_mut()?
        .remove(&pid)
}

/// Starts the reaper on the current runtime, once per process: call it
/// before starting a program, so its `SIGCHLD` cannot be missed.
pub(super) fn start() -> io::Result<()> {
    let mut started = STARTED.lock().unwrap_or_else(PoisonError::into_inner);
    if *started {
        return Ok(());
    }
    let mut sigchld = signal(SignalKind::child())?;
    tokio::spawn(async move {
        loop {
            // A pass that fails to run (no blocking thread) is retried on
            // the next wake-up; the programs stay registered until reaped.
            let _ = tokio::task::spawn_blocking(reap_exited).await;
            tokio::select! {
                _ = sigchld.recv() => {}
                () = LOOK.notified() => {}
            }
        }
    });
    *started = true;
    Ok(())
}

/// Reaps every registered program that has exited, then the orphans if
/// an exited child of another kind was seen.
fn reap_exited() {
    let mut others = false;
    // Most often the exited child is a program: reap those found by
    // `waitid` one by one, and scan them all only when another child
    // (an orphan, a helper) stands in front of them.
    while let Some(pid) = exited_child() {
        let found = programs()
            .as_ref()
            .and_then(|set| set.get(&pid))
            .map(|p| Arc::clone(&p.child));
        match found {
            Some(child) if reap(&child) => {}
            _ => {
                others = true;
                scan();
                break;
            }
        }
    }
    if others {
        super::reap_orphans();
    }
}

/// Some exited child of this process, left unreaped; `None` if none.
fn exited_child() -> Option<libc::pid_t> {
    // SAFETY: waitid writes one siginfo_t; WNOWAIT leaves the child
    // unreaped, WNOHANG returns at once.
    let mut info = unsafe { std::mem::zeroed::<libc::siginfo_t>() };
    let r = unsafe {
        libc::waitid(
            libc::P_ALL,
            0,
            &mut info,
            libc::WEXITED | libc::WNOWAIT | libc::WNOHANG,
        )
    };
    // SAFETY: waitid filled `info` (or left it zeroed: pid 0).
    let pid = unsafe { info.si_pid() };
    (r == 0 && pid > 0).then_some(pid)
}

/// Looks at every registered program.
fn scan() {
    let children: Vec<Arc<ChildState>> = programs()
        .as_ref()
        .map(|set| set.values().map(|p| Arc::clone(&p.child)).collect())
        .unwrap_or_default();
    for child in children {
        reap(&child);
    }
}

/// Reaps `child` under its lock if it has exited, and sends its status;
/// true if it was reaped.
fn reap(child: &ChildState) -> bool {
    let mut reaped = child.reaped.lock().unwrap_or_else(PoisonError::into_inner);
    if reaped.is_some() {
        return false;
    }
    // Taken before the pid is freed: whatever reuses it starts later.
    let reaping = now_ticks();
    let mut status = 0;
    let r = loop {
        // SAFETY: waitpid on our own child, writing one int, not blocking.
        let r = unsafe { libc::waitpid(child.pid, &mut status, libc::WNOHANG) };
        if r >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            break r;
        }
    };
    if r == 0 {
        return false;
    }
    // Reaped now, or by someone else before (ECHILD): gone either way.
    *reaped = Some(reaping);
    drop(reaped);
    let status = if r == child.pid {
        exit_status(status)
    } else {
        ExitStatus {
            code: None,
            signal: None,
        }
    };
    let program = programs().as_mut().and_then(|set| set.remove(&child.pid));
    if let Some(program) = program {
        // The session may already be gone.
        let _ = program.exit.send(status);
    }
    true
}

/// The status `waitpid` gave, as the session reports it.
fn exit_status(status: libc::c_int) -> ExitStatus {
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

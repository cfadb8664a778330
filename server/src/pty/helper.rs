//! Short-lived helper processes of the server itself: the new binary's
//! check of a hand-over, run to their end within a time limit, and forked
//! workers ([`fork_worker`], the file worker of [`crate::files`]). Each is
//! registered with the one reaper like a program, in a process group of
//! its own, so the reaper (not the orphan reaper) reaps it and reports its
//! status, and the kill at the time limit goes through its unreaped state.

use std::io::{self, Read};
use std::mem::MaybeUninit;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;

use super::reaper::{self, ChildState, ExitStatus};

/// How a helper ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelperEnd {
    /// It exited with this status (`None`: a signal ended it), and wrote
    /// this to its standard error.
    Exited(Option<i32>, String),
    /// It ran past the limit and was killed.
    TimedOut,
}

/// Runs `command` (standard input and output closed, standard error read)
/// for at most `limit`.
pub async fn run_helper(command: &mut Command, limit: Duration) -> io::Result<HelperEnd> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0);
    super::start_reaper()?;
    // Registered before the reaper can see it exit (the set is locked
    // across the fork).
    let (mut child, (state, mut exit)) = {
        let mut programs = reaper::programs();
        let child = command.spawn()?;
        // The pid of a child just started, unreaped: valid.
        let registered = reaper::register(&mut programs, child.id() as libc::pid_t);
        (child, registered)
    };
    let stderr = child.stderr.take();
    let errors = tokio::task::spawn_blocking(move || {
        let mut errors = String::new();
        if let Some(mut stderr) = stderr {
            let _ = stderr.read_to_string(&mut errors);
        }
        errors
    });
    let status = match tokio::time::timeout(limit, &mut exit).await {
        Ok(status) => status,
        Err(_elapsed) => {
            state.signal_group(libc::SIGKILL);
            let _ = exit.await;
            return Ok(HelperEnd::TimedOut);
        }
    };
    let status = status.map_err(|_| io::Error::other("the reaper stopped"))?;
    let errors = errors.await.unwrap_or_default();
    let code = match status.signal {
        Some(_) => None,
        None => status.code.and_then(|c| i32::try_from(c).ok()),
    };
    Ok(HelperEnd::Exited(code, errors))
}

/// Forks a worker that runs `work` and exits with the code it returns,
/// registered with the reaper (which reaps it and sends its status on the
/// receiver returned). The worker is a copy of a threaded process: `work`
/// may make system calls on memory prepared before the fork, and nothing
/// else (no allocation, no lock, no printing). Every signal is blocked in
/// it. Blocks while the server's page tables are copied: call it from a
/// blocking context.
pub fn fork_worker(
    work: &dyn Fn() -> i32,
) -> io::Result<(Arc<ChildState>, oneshot::Receiver<ExitStatus>)> {
    super::start_reaper()?;
    let mut all = MaybeUninit::<libc::sigset_t>::uninit();
    let mut before = MaybeUninit::<libc::sigset_t>::uninit();
    // SAFETY: sigfillset initialises `all`; pthread_sigmask writes the old
    // mask into `before`.
    unsafe {
        libc::sigfillset(all.as_mut_ptr());
        libc::pthread_sigmask(libc::SIG_SETMASK, all.as_ptr(), before.as_mut_ptr());
    }
    // Registered before the reaper can see it exit (the set is locked
    // across the fork).
    let mut programs = reaper::programs();
    // SAFETY: the child runs only `work`, which makes system calls on
    // memory prepared before the fork, then leaves with _exit.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let code = work();
        // SAFETY: leaves the worker at once, running nothing of the server's.
        unsafe { libc::_exit(code) }
    }
    let forked = io::Error::last_os_error();
    let registered = (pid > 0).then(|| reaper::register(&mut programs, pid));
    drop(programs);
    // SAFETY: `before` was written by the first pthread_sigmask.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, before.as_ptr(), std::ptr::null_mut());
    }
    registered.ok_or(forked)
}

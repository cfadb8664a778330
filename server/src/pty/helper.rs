//! Short-lived helper processes of the server itself (the new binary's
//! check of a hand-over), run to their end within a time limit. Each is
//! registered with the one reaper like a program, in a process group of
//! its own, so the reaper (not the orphan reaper) reaps it and reports its
//! status, and the kill at the time limit goes through its unreaped state.

use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::reaper;

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

//! Short-lived helper processes of the server itself (the new binary's
//! check of a hand-over), run to their end within a time limit. Their pids
//! sit among the programs' while they run, so the orphan reaper leaves
//! them to their own wait.

use std::io::{self, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::waiter::programs;

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
/// for at most `limit`. Blocking.
pub fn run_helper(command: &mut Command, limit: Duration) -> io::Result<HelperEnd> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut set = programs();
    let mut child = command.spawn()?;
    // The child's pid is valid as a set entry: it is ours and unreaped.
    let pid = child.id() as i32;
    set.get_or_insert_with(Default::default).insert(pid);
    drop(set);
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    if let Some(set) = programs().as_mut() {
        set.remove(&pid);
    }
    let Some(status) = status else {
        return Ok(HelperEnd::TimedOut);
    };
    let mut errors = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = stderr.read_to_string(&mut errors);
    }
    Ok(HelperEnd::Exited(status.code(), errors))
}

//! What a session leaves behind: background jobs that outlive its program
//! (`nohup cmd &`, `setsid cmd &`, a subshell that ignores SIGHUP). The
//! server is a child subreaper, so such orphans become its children instead
//! of init's; [`kill_leftovers`] ends every process of a session when it is
//! deleted, and [`reap_orphans`] reaps the orphans that exit on their own.
//!
//! A process belongs to a session when it is in the session's terminal
//! session (same session id), descends from its program, or carries the
//! session's marker variable ([`MARKER`]) in its environment, which
//! `setsid` does not change.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The variable every child gets, set to its session's id.
pub const MARKER: &str = "PANECAST_SESSION";

/// Pids of session programs: each is reaped by its own waiter thread, so
/// the orphan reaper leaves them alone.
static PROGRAMS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

/// Locks the set of session programs' pids.
pub(super) fn programs() -> MutexGuard<'static, Option<HashSet<i32>>> {
    // Each update is a single insert or remove: consistent after a panic.
    PROGRAMS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Makes this process the reaper of its orphaned descendants. Linux only;
/// elsewhere a no-op that returns false.
pub fn become_subreaper() -> bool {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
}

/// One line of `/proc/PID/stat`: the fields the search needs.
struct Process {
    pid: i32,
    parent: i32,
    session: i32,
    zombie: bool,
}

/// Every process visible in `/proc`.
fn processes() -> Vec<Process> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| {
        let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name is in parentheses and may hold spaces.
        let rest = &stat[stat.rfind(')')? + 2..];
        let mut fields = rest.split(' ');
        let state = fields.next()?;
        let parent = fields.next()?.parse().ok()?;
        let _group: i32 = fields.next()?.parse().ok()?;
        let session = fields.next()?.parse().ok()?;
        Some(Process {
            pid,
            parent,
            session,
            zombie: state == "Z",
        })
    })
    .collect()
}

fn carries_marker(pid: i32, marker: &[u8]) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|environ| environ.split(|&b| b == 0).any(|var| var == marker))
}

/// Sends SIGKILL to every process of the session whose program is
/// `program` and whose id is `session_id`; returns how many were sent.
pub fn kill_leftovers(program: u32, session_id: &str) -> usize {
    let Ok(program) = i32::try_from(program) else {
        return 0;
    };
    let marker = format!("{MARKER}={session_id}").into_bytes();
    let me = std::process::id() as i32;
    let all = processes();
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for p in &all {
        children.entry(p.parent).or_default().push(p.pid);
    }
    let mut doomed: HashSet<i32> = all
        .iter()
        .filter(|p| p.pid != me && !p.zombie)
        .filter(|p| p.session == program || carries_marker(p.pid, &marker))
        .map(|p| p.pid)
        .collect();
    // And every descendant of those and of the program.
    let mut stack: Vec<i32> = doomed.iter().copied().chain([program]).collect();
    while let Some(pid) = stack.pop() {
        for &child in children.get(&pid).into_iter().flatten() {
            if child != me && doomed.insert(child) {
                stack.push(child);
            }
        }
    }
    doomed.remove(&program);
    for &pid in &doomed {
        // SAFETY: kill only sends a signal; a pid that is gone gives ESRCH.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    doomed.len()
}

/// Reaps exited orphans (children of this process that are not session
/// programs); returns how many.
pub fn reap_orphans() -> usize {
    let me = std::process::id() as i32;
    let programs = programs();
    let mut reaped = 0;
    for p in processes() {
        let ours = programs.as_ref().is_some_and(|set| set.contains(&p.pid));
        if p.parent == me && p.zombie && !ours {
            let mut status = 0;
            // SAFETY: waitpid on one specific child of ours, not blocking.
            if unsafe { libc::waitpid(p.pid, &mut status, libc::WNOHANG) } == p.pid {
                reaped += 1;
            }
        }
    }
    reaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_process_from_proc() {
        let me = std::process::id() as i32;
        let all = processes();
        let found = all.iter().find(|p| p.pid == me).expect("this process");
        assert!(!found.zombie);
        assert_eq!(found.parent, unsafe { libc::getppid() });
    }

    #[test]
    fn kills_nothing_for_a_session_that_left_nothing() {
        assert_eq!(kill_leftovers(u32::MAX, "no-such-session"), 0);
    }
}

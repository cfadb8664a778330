//! What a session leaves behind: background jobs that outlive its program
//! (`nohup cmd &`, `setsid cmd &`, a subshell that ignores SIGHUP). The
//! server is a child subreaper, so such orphans become its children instead
//! of init's; [`kill_leftovers`] ends every process of a session when it is
//! deleted, and [`reap_orphans`] reaps the orphans that exit on their own.
//!
//! A process belongs to a session when it is in the session's terminal
//! session (same session id), descends from its program, or carries the
//! session's marker variable ([`MARKER`]) in its environment, which
//! `setsid` does not change. This is the best effort used where a session
//! has neither a uid nor a cgroup of its own: a process that leaves the
//! session, its parent and the variable (`setsid -f env -u ...`) escapes.
//!
//! No pid that may have been reused is signalled: once the program is
//! reaped, its pid counts neither as a session id nor as a parent for
//! processes started after the reaping; and each process found is opened
//! as a pidfd, checked again (same start time, so the same process), and
//! signalled through the pidfd.

use std::collections::{HashMap, HashSet};
use std::os::fd::{FromRawFd, OwnedFd};

use super::reaper::{programs, ChildState};

/// The variable every child gets, set to its session's id.
pub const MARKER: &str = "PANECAST_SESSION";

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
    /// Start time, in clock ticks since boot.
    start: u64,
}

/// Every process visible in `/proc`.
fn processes() -> Vec<Process> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| process(entry.ok()?.file_name().to_str()?.parse().ok()?))
        .collect()
}

/// One process from `/proc/PID/stat`.
fn process(pid: i32) -> Option<Process> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // Fields from the state (3rd in proc(5)) on: ppid 4th, session 6th,
    // starttime 22nd.
    Some(Process {
        pid,
        parent: fields.get(1)?.parse().ok()?,
        session: fields.get(3)?.parse().ok()?,
        zombie: *fields.first()? == "Z",
        start: fields.get(19)?.parse().ok()?,
    })
}

/// Sends SIGKILL to `target` through a pidfd, after checking that the pid
/// still names the process found (same start time); true if sent.
fn kill_checked(target: &Process) -> bool {
    // SAFETY: pidfd_open returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, target.pid, 0) };
    let Ok(fd) = libc::c_int::try_from(fd) else {
        return false;
    };
    if fd < 0 {
        return false;
    }
    // SAFETY: `fd` is a fresh descriptor that nothing else owns.
    let pidfd = unsafe { OwnedFd::from_raw_fd(fd) };
    // The pidfd names whichever process had the pid when it was opened: if
    // that one still has the start time found, it is the process found.
    if process(target.pid).is_none_or(|now| now.start != target.start) {
        return false;
    }
    use std::os::fd::AsRawFd;
    // SAFETY: pidfd_send_signal on our pidfd, no siginfo, no flags.
    unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            libc::SIGKILL,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        ) == 0
    }
}

fn carries_marker(pid: i32, marker: &[u8]) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|environ| environ.split(|&b| b == 0).any(|var| var == marker))
}

/// Sends SIGKILL to every process of the session whose program is
/// `program` and whose id is `session_id`; returns how many were sent.
/// While the program is unreaped, its state's lock is held, so it stays so.
pub fn kill_leftovers(program: &ChildState, session_id: &str) -> usize {
    program.while_reaped_at(|reaped_at| kill_found(program.pid(), reaped_at, session_id))
}

/// [`kill_leftovers`], for a program reaped at `reaped_at` (clock ticks
/// since boot) or not reaped (`None`).
fn kill_found(program: i32, reaped_at: Option<u64>, session_id: &str) -> usize {
    let marker = format!("{MARKER}={session_id}").into_bytes();
    let me = std::process::id() as i32;
    let all: HashMap<i32, Process> = processes().into_iter().map(|p| (p.pid, p)).collect();
    // A process started after the program was reaped may have its pid as
    // a session id or parent only by reuse.
    let before_reaping = |p: &Process| reaped_at.is_none_or(|reaped| p.start < reaped);
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for p in all.values() {
        children.entry(p.parent).or_default().push(p.pid);
    }
    let mut doomed: HashSet<i32> = all
        .values()
        .filter(|p| p.pid != me && !p.zombie)
        .filter(|p| (p.session == program && before_reaping(p)) || carries_marker(p.pid, &marker))
        .map(|p| p.pid)
        .collect();
    // And every descendant of those and of the program.
    let mut stack: Vec<i32> = doomed.iter().copied().collect();
    if reaped_at.is_none() {
        stack.push(program);
    }
    while let Some(pid) = stack.pop() {
        for &child in children.get(&pid).into_iter().flatten() {
            if child != me && doomed.insert(child) {
                stack.push(child);
            }
        }
    }
    doomed.remove(&program);
    doomed
        .iter()
        .filter_map(|pid| all.get(pid))
        .filter(|p| kill_checked(p))
        .count()
}

/// Reaps exited orphans (children of this process that are not session
/// programs); returns how many.
pub fn reap_orphans() -> usize {
    let me = std::process::id() as i32;
    let programs = programs();
    let mut reaped = 0;
    for p in processes() {
        let ours = programs
            .as_ref()
            .is_some_and(|set| set.contains_key(&p.pid));
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
    use crate::pty::reaper::now_ticks;

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
        assert_eq!(kill_found(i32::MAX, None, "no-such-session"), 0);
    }

    /// A child of this test, killed and reaped when dropped.
    struct Decoy(std::process::Child);

    impl Drop for Decoy {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    #[test]
    fn a_reaped_programs_pid_reused_as_a_session_id_is_not_signalled() {
        use std::os::unix::process::CommandExt;
        let reaped_at = now_ticks();
        // Wait for the clock to tick past the reaping.
        while now_ticks() <= reaped_at {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        // A session led by a process started after the "reaping", as one
        // that reused the program's pid and called setsid would be, with a
        // member.
        let mut command = std::process::Command::new("sh");
        command.args(["-c", "sleep 1000 & wait"]);
        // SAFETY: setsid is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        let decoy = Decoy(command.spawn().expect("sh"));
        let leader = decoy.0.id() as i32;
        let member = || {
            processes()
                .into_iter()
                .find(|p| p.session == leader && p.pid != leader && !p.zombie)
        };
        assert!(
            wait_for(|| member().is_some()),
            "the decoy's session has a member"
        );
        assert_eq!(
            kill_found(leader, Some(reaped_at), "x"),
            0,
            "nothing started after the reaping is signalled"
        );
        assert!(member().is_some(), "the member lives");
        assert_eq!(
            kill_found(leader, None, "x"),
            1,
            "while the program is unreaped, its session's members are its own"
        );
    }

    /// Polls `check` for up to 5 s.
    fn wait_for(check: impl Fn() -> bool) -> bool {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !check() {
            if std::time::Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        true
    }
}

//! Where a session's files go and as whom: the working directory of the
//! session's foreground process (the foreground process group of its
//! terminal, read from `/proc`; the session's first process when that
//! cannot be read), and the user, groups and primary group of the
//! session's first process.

use std::ffi::CString;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::PathBuf;

use crate::pty::Identity;

/// The directory a session's files go into, opened, and who acts in it.
#[derive(Debug)]
pub struct Place {
    /// The directory, opened `O_PATH`: names are resolved beneath it.
    pub dir: OwnedFd,
    /// Its path, as the kernel names it (for answers and logs).
    pub path: PathBuf,
    /// The user to act as: `None` when the server does not change uids
    /// (it is not root), so it acts as itself, as the session does.
    pub identity: Option<Identity>,
}

/// The place could not be found.
#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    /// The session's process is gone.
    #[error("the session's program has exited")]
    Gone,
    /// `/proc` could not be read.
    #[error("cannot find the working directory: {0}")]
    Io(#[from] io::Error),
}

impl Place {
    /// The place of the session whose first process is `leader`.
    pub fn of(leader: u32) -> Result<Place, PlaceError> {
        let stat = std::fs::read_to_string(format!("/proc/{leader}/stat")).map_err(gone)?;
        let process = foreground(leader, &stat).unwrap_or(leader);
        let (dir, path) = open_cwd(process).or_else(|_| open_cwd(leader).map_err(gone))?;
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let identity = if root {
            let status = std::fs::read_to_string(format!("/proc/{leader}/status")).map_err(gone)?;
            Some(credentials(&status).ok_or_else(|| {
                PlaceError::Io(io::Error::other("unreadable credentials in /proc"))
            })?)
        } else {
            None
        };
        Ok(Place {
            dir,
            path,
            identity,
        })
    }
}

fn gone(e: io::Error) -> PlaceError {
    if e.kind() == io::ErrorKind::NotFound {
        PlaceError::Gone
    } else {
        PlaceError::Io(e)
    }
}

/// The fields of a `/proc/PID/stat` line after the command name.
fn stat_fields(stat: &str) -> Vec<&str> {
    stat.rsplit_once(')')
        .map_or_else(Vec::new, |(_, rest)| rest.split_whitespace().collect())
}

/// The leader of the terminal's foreground process group, when it is a
/// process of the session `leader` leads.
fn foreground(leader: u32, leader_stat: &str) -> Option<u32> {
    // state ppid pgrp session tty_nr tpgid
    let tpgid: u32 = stat_fields(leader_stat).get(5)?.parse().ok()?;
    if tpgid == 0 || tpgid == leader {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{tpgid}/stat")).ok()?;
    let session: u32 = stat_fields(&stat).get(3)?.parse().ok()?;
    (session == leader).then_some(tpgid)
}

/// Opens the working directory of `pid` (`O_PATH`) and names it.
fn open_cwd(pid: u32) -> io::Result<(OwnedFd, PathBuf)> {
    let link = format!("/proc/{pid}/cwd");
    let path = std::fs::read_link(&link)?;
    Ok((open_dir(&link)?, path))
}

/// Opens the directory `path` with `O_PATH`.
pub(super) fn open_dir(path: &str) -> io::Result<OwnedFd> {
    let c = CString::new(path).map_err(io::Error::other)?;
    // SAFETY: open with a NUL-terminated path; the result is checked.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The real uid and gid and the groups of a `/proc/PID/status`.
fn credentials(status: &str) -> Option<Identity> {
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .map(str::trim)
    };
    let first =
        |name: &str| -> Option<u32> { field(name)?.split_whitespace().next()?.parse().ok() };
    let groups = field("Groups:")?
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<Vec<u32>, _>>()
        .ok()?;
    Some(Identity {
        uid: first("Uid:")?,
        gid: first("Gid:")?,
        groups,
        no_new_privs: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_credentials_from_a_status_file() {
        let status = "Name:\tbash\nUid:\t60601\t60601\t60601\t60601\n\
                      Gid:\t60601\t60602\t60601\t60601\nGroups:\t4 27 \nNSpid:\t1\n";
        let id = credentials(status).expect("parsed");
        assert_eq!((id.uid, id.gid, id.groups), (60601, 60601, vec![4, 27]));
        let none = credentials("Uid:\t1\t1\t1\t1\nGid:\t2\t2\t2\t2\nGroups:\t\n").expect("parsed");
        assert!(none.groups.is_empty());
        assert!(credentials("Uid:\tx\n").is_none());
    }

    #[test]
    fn the_place_of_this_process_is_its_working_directory() {
        let place = Place::of(std::process::id()).expect("place");
        assert_eq!(place.path, std::env::current_dir().expect("cwd"));
    }

    #[test]
    fn stat_fields_skip_a_command_name_with_spaces_and_parens() {
        let fields = stat_fields("12 (a) b) S 1 12 12 34816 40 4194560");
        assert_eq!(fields[0], "S");
        assert_eq!(fields[5], "40");
    }
}

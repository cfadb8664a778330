//! Descriptor helpers: a close-on-exec pipe, non-blocking mode, and waiting
//! for a descriptor or a stop pipe with `poll`.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// A pipe `(read end, write end)`, both close-on-exec.
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both descriptors are open and ours alone.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Puts the open file description behind `fd` (shared by its duplicates) in
/// non-blocking mode.
pub fn set_nonblocking(fd: &impl AsRawFd) -> io::Result<()> {
    let fd = fd.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own only reads and sets status flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// What [`wait`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woken {
    /// The descriptor is ready (or has hung up or failed: the next call says which).
    Ready,
    /// Nothing yet (only when not blocking).
    NotYet,
    /// The stop pipe's write end was closed: the thread must end.
    Stop,
}

/// Waits until `fd` is ready for `events` (`POLLIN` or `POLLOUT`) or the
/// other end of `stop` is closed; with `block` false, only looks.
pub fn wait(
    fd: &impl AsRawFd,
    events: libc::c_short,
    stop: &OwnedFd,
    block: bool,
) -> io::Result<Woken> {
    let mut fds = [
        libc::pollfd {
            fd: stop.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: fd.as_raw_fd(),
            events,
            revents: 0,
        },
    ];
    let timeout = if block { -1 } else { 0 };
    loop {
        // SAFETY: `fds` is a valid array of two pollfd for the whole call.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout) };
        if n >= 0 {
            break;
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
    Ok(if fds[0].revents != 0 {
        Woken::Stop
    } else if fds[1].revents != 0 {
        Woken::Ready
    } else {
        Woken::NotYet
    })
}

//! The reader thread: reads the pty master with a 64 KiB buffer and sends
//! the output in chunks on a bounded channel, blocking while it is full.
//!
//! Reads that find more data ready are gathered into one chunk (a pty hands
//! out a few KiB per read), so the session wakes once per burst, not once
//! per read. The thread ends at end of file, when the session drops the
//! channel's receiver, or when the stop pipe's other end is closed.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, OwnedFd};

use tokio::sync::mpsc;

/// Size of the read buffer, and so the largest chunk.
pub const READ_BUFFER: usize = 64 * 1024;
/// A chunk is sent once less than this much room is left in the buffer.
const MIN_ROOM: usize = 4096;

/// Starts the thread.
pub fn start(master: OwnedFd, stop: OwnedFd, output: mpsc::Sender<Vec<u8>>) -> io::Result<()> {
    std::thread::Builder::new()
        .name("pty-reader".to_owned())
        .spawn(move || read_loop(File::from(master), &stop, &output))?;
    Ok(())
}

fn read_loop(mut master: File, stop: &OwnedFd, output: &mpsc::Sender<Vec<u8>>) {
    let mut buf = vec![0u8; READ_BUFFER];
    let mut filled = 0;
    loop {
        // Wait for data when the buffer is empty; otherwise only look.
        let block = filled == 0;
        match wait(&master, stop, block) {
            Ok(Ready::Data) => {}
            Ok(Ready::Nothing) => {
                if output.blocking_send(buf[..filled].to_vec()).is_err() {
                    return;
                }
                filled = 0;
                continue;
            }
            Ok(Ready::Stop) | Err(_) => return,
        }
        match master.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // EIO: every slave descriptor is closed, the pty's end of file.
            Err(_) => break,
        }
        if READ_BUFFER - filled < MIN_ROOM {
            if output.blocking_send(buf[..filled].to_vec()).is_err() {
                return;
            }
            filled = 0;
        }
    }
    if filled > 0 {
        // The session may be gone; the data has nowhere else to go.
        let _ = output.blocking_send(buf[..filled].to_vec());
    }
}

enum Ready {
    /// The master can be read (data, or end of file).
    Data,
    /// Nothing to read right now (only when not blocking).
    Nothing,
    /// The stop pipe was closed.
    Stop,
}

fn wait(master: &File, stop: &OwnedFd, block: bool) -> io::Result<Ready> {
    let mut fds = [
        libc::pollfd {
            fd: stop.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: master.as_raw_fd(),
            events: libc::POLLIN,
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
        Ready::Stop
    } else if fds[1].revents != 0 {
        Ready::Data
    } else {
        Ready::Nothing
    })
}

//! The reader thread: reads the pty master with a 64 KiB buffer and sends
//! the output in chunks on a bounded channel, blocking while it is full.
//!
//! Reads that find more data ready are gathered into one chunk (a pty hands
//! out a few KiB per read), so the session wakes once per burst, not once
//! per read. The thread ends at end of file, when the session drops the
//! channel's receiver, or when the stop pipe's write end is closed; then it
//! reads no more, and sends what it had read (output still in the kernel's
//! buffer stays there, for whoever reads the master next).

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::OwnedFd;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc;

use super::fd::{wait, Woken};

/// Size of the read buffer, and so the largest chunk.
pub const READ_BUFFER: usize = 64 * 1024;
/// A chunk is sent once less than this much room is left in the buffer.
const MIN_ROOM: usize = 4096;

/// Starts the thread on a non-blocking duplicate of the master.
/// `waits` counts the times the session was behind and the reader (so the
/// program) had to wait for room in the channel.
pub fn start(
    master: OwnedFd,
    stop: OwnedFd,
    output: mpsc::Sender<Vec<u8>>,
    waits: Arc<AtomicU64>,
) -> io::Result<()> {
    let output = Output { output, waits };
    std::thread::Builder::new()
        .name("pty-reader".to_owned())
        .spawn(move || read_loop(File::from(master), &stop, &output))?;
    Ok(())
}

/// The channel to the session, counting the waits for room in it.
struct Output {
    output: mpsc::Sender<Vec<u8>>,
    waits: Arc<AtomicU64>,
}

impl Output {
    /// Sends a chunk, waiting while the channel is full; an error means
    /// the session is gone.
    fn blocking_send(&self, chunk: Vec<u8>) -> Result<(), ()> {
        match self.output.try_send(chunk) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(chunk)) => {
                self.waits.fetch_add(1, Ordering::Relaxed);
                self.output.blocking_send(chunk).map_err(|_| ())
            }
            Err(mpsc::error::TrySendError::Closed(_)) => Err(()),
        }
    }
}

fn read_loop(mut master: File, stop: &OwnedFd, output: &Output) {
    let mut buf = vec![0u8; READ_BUFFER];
    let mut filled = 0;
    loop {
        // Wait for data when the buffer is empty; otherwise only look.
        match wait(&master, libc::POLLIN, stop, filled == 0) {
            Ok(Woken::Ready) => {}
            Ok(Woken::NotYet) => {
                if output.blocking_send(buf[..filled].to_vec()).is_err() {
                    return;
                }
                filled = 0;
                continue;
            }
            Ok(Woken::Stop) | Err(_) => break,
        }
        match master.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                ) => {}
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

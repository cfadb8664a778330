//! The writer thread: writes queued input to the pty master, so a child
//! that does not read its input holds up this thread, never the session.
//! Waiting for room goes through `poll` with the stop pipe, so the thread
//! ends with the session even if some process keeps the terminal open
//! without reading it.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::OwnedFd;

use tokio::sync::mpsc;

use super::fd::{wait, Woken};

/// Starts the thread on a non-blocking duplicate of the master. It ends
/// when the queue's sender is dropped, the stop pipe's write end is closed,
/// or the terminal is gone.
pub fn start(master: OwnedFd, stop: OwnedFd, mut input: mpsc::Receiver<Vec<u8>>) -> io::Result<()> {
    let mut master = File::from(master);
    std::thread::Builder::new()
        .name("pty-writer".to_owned())
        .spawn(move || {
            while let Some(bytes) = input.blocking_recv() {
                if write_all(&mut master, &bytes, &stop).is_err() {
                    break;
                }
            }
        })?;
    Ok(())
}

fn write_all(master: &mut File, mut bytes: &[u8], stop: &OwnedFd) -> io::Result<()> {
    while !bytes.is_empty() {
        match wait(master, libc::POLLOUT, stop, true)? {
            Woken::Ready => {}
            Woken::NotYet => continue,
            Woken::Stop => return Err(io::ErrorKind::BrokenPipe.into()),
        }
        match master.write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                ) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

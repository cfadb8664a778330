//! The writer thread: writes queued input to the pty master, so a child
//! that does not read its input holds up this thread, never the session.
//! Waiting for room goes through `poll` with the stop pipe, so the thread
//! ends with the session even if some process keeps the terminal open
//! without reading it. Stopped, it hands back what it had not written.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::thread::JoinHandle;

use tokio::sync::mpsc;

use super::fd::{wait, Woken};

/// Starts the thread on a non-blocking duplicate of the master. It ends
/// when the queue's sender is dropped, the stop pipe's write end is closed,
/// or the terminal is gone. Its result is the input it was given and did
/// not write because it was stopped (empty when it ended otherwise).
pub fn start(
    master: OwnedFd,
    stop: OwnedFd,
    mut input: mpsc::Receiver<Vec<u8>>,
) -> io::Result<JoinHandle<Vec<u8>>> {
    let mut master = File::from(master);
    std::thread::Builder::new()
        .name("pty-writer".to_owned())
        .spawn(move || {
            while let Some(bytes) = input.blocking_recv() {
                match write_all(&mut master, &bytes, &stop) {
                    Ok(()) => {}
                    Err(Failed::Stopped(written)) => {
                        let mut rest = bytes[written..].to_vec();
                        while let Ok(more) = input.try_recv() {
                            rest.extend_from_slice(&more);
                        }
                        return rest;
                    }
                    Err(Failed::Io) => break,
                }
            }
            Vec::new()
        })
}

/// Why a write did not finish.
enum Failed {
    /// The stop pipe was closed after this many bytes were written.
    Stopped(usize),
    /// The terminal is gone.
    Io,
}

fn write_all(master: &mut File, bytes: &[u8], stop: &OwnedFd) -> Result<(), Failed> {
    let mut written = 0;
    while written < bytes.len() {
        match wait(master, libc::POLLOUT, stop, true) {
            Ok(Woken::Ready) => {}
            Ok(Woken::NotYet) => continue,
            Ok(Woken::Stop) => return Err(Failed::Stopped(written)),
            Err(_) => return Err(Failed::Io),
        }
        match master.write(&bytes[written..]) {
            Ok(0) => return Err(Failed::Io),
            Ok(n) => written += n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                ) => {}
            Err(_) => return Err(Failed::Io),
        }
    }
    Ok(())
}

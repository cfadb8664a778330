//! The writer thread: writes queued input to the pty master, so a child
//! that does not read its input blocks this thread, never the session.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::OwnedFd;

use tokio::sync::mpsc;

/// Starts the thread. It ends when the queue's sender is dropped or the
/// terminal is gone, closing its descriptor.
pub fn start(master: OwnedFd, mut input: mpsc::Receiver<Vec<u8>>) -> io::Result<()> {
    let mut master = File::from(master);
    std::thread::Builder::new()
        .name("pty-writer".to_owned())
        .spawn(move || {
            while let Some(bytes) = input.blocking_recv() {
                if master.write_all(&bytes).is_err() {
                    break;
                }
            }
        })?;
    Ok(())
}

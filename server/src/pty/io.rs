//! The pty master's input and output, as two tasks on the one pty event
//! loop ([`crate::pool::io_handle`]), over one non-blocking master
//! registered with it (`AsyncFd`): no thread, no duplicate descriptor.
//!
//! The output task reads with a 64 KiB buffer, taken only while the master
//! has something to read (an idle session holds none), and gathers reads
//! that find more data ready into one chunk, so the session wakes once per
//! burst, not once per read. It sends the chunks on a bounded channel and
//! waits while the channel is full without reading: the child blocks on
//! write and memory stays flat. It ends at end of file or when the session
//! drops the channel's receiver.
//!
//! The input task writes queued input whenever the master is writable, so
//! a child that does not read its input holds up that task, never the
//! session. Both tasks are aborted when the [`Pty`](super::Pty) goes, so
//! they end with the session even if some process keeps the terminal open.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::io::unix::AsyncFd;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// Size of the read buffer, and so the largest chunk.
pub const READ_BUFFER: usize = 64 * 1024;
/// A chunk is sent once less than this much room is left in the buffer.
const MIN_ROOM: usize = 4096;

/// The master, registered with the current runtime's event loop.
pub type Master = Arc<AsyncFd<OwnedFd>>;

/// Puts `master` in non-blocking mode and registers it with the current
/// runtime. Must be called inside a runtime.
pub fn register(master: OwnedFd) -> io::Result<Master> {
    set_nonblocking(&master)?;
    // SAFETY: an `OwnedFd` always names the descriptor it owns, which stays
    // open until it is dropped with the `AsyncFd`.
    let registered = unsafe { AsyncFd::register(master) };
    Ok(Arc::new(registered.map_err(io::Error::from)?))
}

/// The two tasks of a master, aborted when dropped.
pub struct Tasks {
    reader: AbortHandle,
    writer: AbortHandle,
}

impl Drop for Tasks {
    fn drop(&mut self) {
        self.reader.abort();
        self.writer.abort();
    }
}

/// Starts the output and input tasks on the current runtime. `waits`
/// counts the times the session was behind and the output task (so the
/// program) had to wait for room in the channel.
pub fn start(
    master: &Master,
    output: mpsc::Sender<Vec<u8>>,
    input: mpsc::Receiver<Vec<u8>>,
    waits: Arc<AtomicU64>,
) -> Tasks {
    let reader = tokio::spawn(read_loop(Arc::clone(master), output, waits)).abort_handle();
    let writer = tokio::spawn(write_loop(Arc::clone(master), input)).abort_handle();
    Tasks { reader, writer }
}

/// What one read gave.
enum Read {
    /// Some bytes.
    Data,
    /// Nothing ready now.
    NotYet,
    /// End of file (or the terminal is gone: EIO once every slave closed).
    End,
}

async fn read_loop(master: Master, output: mpsc::Sender<Vec<u8>>, waits: Arc<AtomicU64>) {
    loop {
        let readable = tokio::select! {
            readable = master.readable() => readable,
            () = output.closed() => return,
        };
        let Ok(mut guard) = readable else { return };
        // Taken now that there is something to read; given back with the chunk.
        let mut buf = Vec::with_capacity(READ_BUFFER);
        let mut end = false;
        while READ_BUFFER - buf.len() >= MIN_ROOM {
            match read_into(master.get_ref(), &mut buf) {
                Read::Data => {}
                Read::NotYet => {
                    guard.clear_ready();
                    break;
                }
                Read::End => {
                    end = true;
                    break;
                }
            }
        }
        drop(guard);
        if !buf.is_empty() {
            if buf.len() < READ_BUFFER / 2 {
                buf.shrink_to_fit();
            }
            if send(&output, buf, &waits).await.is_err() {
                return;
            }
        }
        if end {
            return;
        }
    }
}

/// Sends a chunk, waiting while the channel is full; an error means the
/// session is gone.
async fn send(output: &mpsc::Sender<Vec<u8>>, chunk: Vec<u8>, waits: &AtomicU64) -> Result<(), ()> {
    match output.try_send(chunk) {
        Ok(()) => Ok(()),
        Err(mpsc::error::TrySendError::Full(chunk)) => {
            waits.fetch_add(1, Ordering::Relaxed);
            output.send(chunk).await.map_err(|_| ())
        }
        Err(mpsc::error::TrySendError::Closed(_)) => Err(()),
    }
}

/// Reads what is ready into the spare room of `buf`.
fn read_into(master: &OwnedFd, buf: &mut Vec<u8>) -> Read {
    let room = buf.spare_capacity_mut();
    loop {
        // SAFETY: read writes at most `room.len()` bytes into the spare
        // capacity, which `buf` owns.
        let n = unsafe { libc::read(master.as_raw_fd(), room.as_mut_ptr().cast(), room.len()) };
        if let Ok(n) = usize::try_from(n) {
            if n == 0 {
                return Read::End;
            }
            // SAFETY: read initialised the first `n` bytes of the spare room.
            unsafe { buf.set_len(buf.len() + n) };
            return Read::Data;
        }
        match io::Error::last_os_error().kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => return Read::NotYet,
            // EIO: every slave descriptor is closed, the pty's end of file.
            _ => return Read::End,
        }
    }
}

async fn write_loop(master: Master, mut input: mpsc::Receiver<Vec<u8>>) {
    while let Some(bytes) = input.recv().await {
        if write_all(&master, &bytes).await.is_err() {
            // Dropping the receiver tells the session the terminal is gone.
            return;
        }
    }
}

async fn write_all(master: &Master, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        let mut guard = master.writable().await?;
        let written = guard.try_io(|fd| {
            // SAFETY: write reads at most `bytes.len()` bytes from `bytes`.
            let n = unsafe { libc::write(fd.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
            usize::try_from(n).map_err(|_| io::Error::last_os_error())
        });
        match written {
            Ok(Ok(0)) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(Ok(n)) => bytes = &bytes[n..],
            Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Ok(Err(e)) => return Err(e),
            // Not writable after all: wait again.
            Err(_would_block) => {}
        }
    }
    Ok(())
}

/// Puts the open file description behind `fd` in non-blocking mode.
fn set_nonblocking(fd: &impl AsRawFd) -> io::Result<()> {
    let fd = fd.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own only reads and sets status flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

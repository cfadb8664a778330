//! The pty master's input and output, as two tasks on the one pty event
//! loop ([`crate::pool::io_handle`]), over one non-blocking master
//! registered with it (`AsyncFd`): no thread, no duplicate descriptor.
//!
//! The output task reads with a 64 KiB buffer, taken only while the master
//! has something to read (an idle session holds none), and gathers reads
//! that find more data ready into one chunk, so the session wakes once per
//! burst, not once per read; after [`READ_SLICE`] of reading it lets the
//! loop's other tasks go first, then goes on filling the chunk. It sends the chunks on a bounded channel and
//! waits while the channel is full without reading: the child blocks on
//! write and memory stays flat. It ends at end of file or when the session
//! drops the channel's receiver.
//!
//! The input task writes queued input whenever the master is writable, so
//! a child that does not read its input holds up that task, never the
//! session. Both tasks are aborted when the [`Pty`](super::Pty) goes, so
//! they end with the session even if some process keeps the terminal open.
//!
//! Stopped ([`Tasks::stop`], for an upgrade), the output task reads no
//! more and sends what it had read (output still in the kernel's buffer
//! stays there, for whoever reads the master next), and the input task
//! hands back what it had not written.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::unix::AsyncFd;
use tokio::sync::{mpsc, watch};
use tokio::task::{AbortHandle, JoinHandle};

/// Size of the read buffer, and so the largest chunk.
pub const READ_BUFFER: usize = 64 * 1024;
/// A chunk is sent once less than this much room is left in the buffer.
const MIN_ROOM: usize = 4096;
/// Time the output task reads for before the other tasks of the event
/// loop get their turn: a program that writes as fast as it is read (the
/// kernel hands a pty's output over in pieces of up to 4 KiB) would
/// otherwise hold the loop for a whole chunk, a millisecond or more, in
/// front of every other session's keystrokes and echo.
const READ_SLICE: Duration = Duration::from_micros(100);

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
    /// The output task; `None` once stopped, when it ends by itself.
    reader: Option<AbortHandle>,
    /// The input task, whose result is the input it did not write.
    writer: JoinHandle<Vec<u8>>,
    /// True asks both tasks to stop.
    stop: watch::Sender<bool>,
}

impl Tasks {
    /// Stops both tasks without losing a byte: the output task sends what
    /// it had read, then ends (its channel closes once drained); returns
    /// the input the input task had not written, in order.
    pub async fn stop(mut self) -> Vec<u8> {
        self.stop.send_replace(true);
        // Not aborted: it may be sending its last chunk.
        self.reader = None;
        // A failed input task (panic) wrote what it could: nothing is left.
        (&mut self.writer).await.unwrap_or_default()
    }
}

impl Drop for Tasks {
    fn drop(&mut self) {
        if let Some(reader) = &self.reader {
            reader.abort();
        }
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
    let (stop, stopped) = watch::channel(false);
    let reader = tokio::spawn(read_loop(
        Arc::clone(master),
        output,
        waits,
        stopped.clone(),
    ))
    .abort_handle();
    let writer = tokio::spawn(write_loop(Arc::clone(master), input, stopped));
    Tasks {
        reader: Some(reader),
        writer,
        stop,
    }
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

async fn read_loop(
    master: Master,
    output: mpsc::Sender<Vec<u8>>,
    waits: Arc<AtomicU64>,
    mut stop: watch::Receiver<bool>,
) {
    // Taken once there is something to read; given back with the chunk.
    let mut gathered = Vec::new();
    loop {
        let readable = tokio::select! {
            // First, so that a master that never runs dry cannot delay it.
            biased;
            _ = stop.wait_for(|stop| *stop) => None,
            readable = master.readable() => Some(readable),
            () = output.closed() => return,
        };
        let Some(Ok(mut guard)) = readable else {
            // Stopped: what was read goes first.
            if !gathered.is_empty() {
                let _ = send(&output, gathered, &waits).await;
            }
            return;
        };
        if gathered.capacity() == 0 {
            gathered.reserve_exact(READ_BUFFER);
        }
        let started = Instant::now();
        let mut outcome = Gathered::Full;
        while READ_BUFFER - gathered.len() >= MIN_ROOM {
            match read_into(master.get_ref(), &mut gathered) {
                Read::Data if started.elapsed() >= READ_SLICE => {
                    outcome = Gathered::Slice;
                    break;
                }
                Read::Data => {}
                Read::NotYet => {
                    guard.clear_ready();
                    outcome = Gathered::Dry;
                    break;
                }
                Read::End => {
                    outcome = Gathered::End;
                    break;
                }
            }
        }
        drop(guard);
        if outcome == Gathered::Slice && READ_BUFFER - gathered.len() >= MIN_ROOM {
            // The program writes as fast as it is read: the other ptys'
            // tasks go first, then the chunk goes on filling.
            tokio::task::yield_now().await;
            continue;
        }
        if !gathered.is_empty() {
            let mut chunk = std::mem::take(&mut gathered);
            if chunk.len() < READ_BUFFER / 2 {
                chunk.shrink_to_fit();
            }
            if send(&output, chunk, &waits).await.is_err() {
                return;
            }
        }
        if outcome == Gathered::End {
            return;
        }
    }
}

/// Why the reads into a chunk stopped.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Gathered {
    /// The chunk is full.
    Full,
    /// They took [`READ_SLICE`]: more may be ready.
    Slice,
    /// Nothing more is ready.
    Dry,
    /// End of file.
    End,
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

/// Writes the queued input; its result is the input it was given and did
/// not write because it was stopped (empty when it ended otherwise).
async fn write_loop(
    master: Master,
    mut input: mpsc::Receiver<Vec<u8>>,
    mut stop: watch::Receiver<bool>,
) -> Vec<u8> {
    loop {
        let bytes = tokio::select! {
            biased;
            _ = stop.wait_for(|stop| *stop) => break,
            bytes = input.recv() => bytes,
        };
        // The queue closes only with the pty.
        let Some(bytes) = bytes else {
            return Vec::new();
        };
        let mut written = 0;
        let wrote = tokio::select! {
            biased;
            _ = stop.wait_for(|stop| *stop) => None,
            wrote = write_all(&master, &bytes, &mut written) => Some(wrote),
        };
        match wrote {
            Some(Ok(())) => {}
            // Dropping the receiver tells the session the terminal is gone.
            Some(Err(_)) => return Vec::new(),
            None => {
                let mut rest = bytes[written..].to_vec();
                rest.extend(queued(&mut input));
                return rest;
            }
        }
    }
    queued(&mut input)
}

/// The input still queued, in order.
fn queued(input: &mut mpsc::Receiver<Vec<u8>>) -> Vec<u8> {
    let mut rest = Vec::new();
    while let Ok(more) = input.try_recv() {
        rest.extend_from_slice(&more);
    }
    rest
}

/// Writes `bytes`, counting in `written` what went out (so that a write
/// cut short leaves the rest known).
async fn write_all(master: &Master, bytes: &[u8], written: &mut usize) -> io::Result<()> {
    while *written < bytes.len() {
        let rest = &bytes[*written..];
        let mut guard = master.writable().await?;
        let hung_up = guard.ready().is_write_closed();
        let wrote = guard.try_io(|fd| {
            // SAFETY: write reads at most `rest.len()` bytes from `rest`.
            let n = unsafe { libc::write(fd.as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
            usize::try_from(n).map_err(|_| io::Error::last_os_error())
        });
        match wrote {
            Ok(Ok(0)) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(Ok(n)) => *written += n,
            Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Ok(Err(e)) => return Err(e),
            // Hung up (no slave is open: the program is gone). The closed
            // state never clears, so waiting again would find the master
            // "writable" at once, forever, without yielding the event loop.
            Err(_would_block) if hung_up => {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
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

//! One direction of one connection: read from one socket, hold what was
//! read, and deliver it to the other socket when the link lets it go.
//!
//! The reader stamps each chunk with its release time and queues it; the
//! writer waits for that time, for any blackhole to end, and for the
//! direction's bucket, one slice at a time. At most [`HOLD_BYTES`] are held:
//! when that many wait, the reader stops reading, and TCP's own flow control
//! pushes back on the sender. Nothing read is ever dropped, and a half-close
//! is passed on after the bytes before it.

use std::io;
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, Semaphore};
use tokio::time::sleep_until;

use crate::delay::DelayLine;
use crate::link::{clear_of_blackhole, Direction, Link};

/// Most bytes held for one direction of one connection.
pub const HOLD_BYTES: usize = 1 << 20;

/// Most bytes one read takes, so one chunk.
const READ_BYTES: usize = 64 * 1024;

/// What the reader got.
enum Payload {
    /// Bytes, never empty.
    Data(Vec<u8>),
    /// The sender closed its side.
    End,
}

/// A read, stamped with when it may be delivered.
struct Chunk {
    release_at: Instant,
    payload: Payload,
}

/// Carries `from` to `to` in `direction` until `from` ends (then shuts `to`
/// down for writing) or either fails.
pub async fn pump<R, W>(
    link: &Link,
    direction: Direction,
    delays: DelayLine,
    from: R,
    to: W,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let held = Semaphore::new(HOLD_BYTES);
    let (chunks, queue) = mpsc::unbounded_channel();
    tokio::try_join!(
        read_side(link, delays, &held, from, chunks),
        write_side(link, direction, &held, queue, to),
    )?;
    Ok(())
}

/// Reads while there is room to hold what it reads, and queues each read.
async fn read_side<R: AsyncRead + Unpin>(
    link: &Link,
    mut delays: DelayLine,
    held: &Semaphore,
    mut from: R,
    chunks: mpsc::UnboundedSender<Chunk>,
) -> io::Result<()> {
    let mut buffer = vec![0; READ_BYTES];
    loop {
        // Room for a whole read first; the writer gives it back as it
        // delivers. The semaphore is never closed, so this only waits.
        held.acquire_many(READ_BYTES as u32)
            .await
            .map_err(io::Error::other)?
            .forget();
        let read = from.read(&mut buffer).await?;
        held.add_permits(READ_BYTES - read);
        let settings = link.settings();
        let release_at = delays.release_at(Instant::now(), settings.rtt(), settings.jitter());
        let payload = match read {
            0 => Payload::End,
            _ => Payload::Data(buffer[..read].to_vec()),
        };
        let chunk = Chunk {
            release_at,
            payload,
        };
        if chunks.send(chunk).is_err() || read == 0 {
            // Ended, or the writer is gone and nothing more can be carried.
            return Ok(());
        }
    }
}

/// Delivers queued chunks in order, each when its time has come, no
/// blackhole is on and the bucket allows.
async fn write_side<W: AsyncWrite + Unpin>(
    link: &Link,
    direction: Direction,
    held: &Semaphore,
    mut queue: mpsc::UnboundedReceiver<Chunk>,
    mut to: W,
) -> io::Result<()> {
    let mut blackhole = link.blackhole_watch();
    while let Some(chunk) = queue.recv().await {
        wait_until(chunk.release_at).await;
        let bytes = match chunk.payload {
            Payload::Data(bytes) => bytes,
            Payload::End => {
                clear_of_blackhole(&mut blackhole).await;
                return to.shutdown().await;
            }
        };
        let mut rest = &bytes[..];
        while !rest.is_empty() {
            clear_of_blackhole(&mut blackhole).await;
            let grant = link.grant(direction, rest.len());
            wait_until(grant.at).await;
            // A blackhole may have begun while waiting for the bucket.
            clear_of_blackhole(&mut blackhole).await;
            let (slice, after) = rest.split_at(grant.len);
            to.write_all(slice).await?;
            link.delivered(direction, slice.len());
            held.add_permits(slice.len());
            rest = after;
        }
    }
    Ok(())
}

/// Waits until `at`, without touching the timer when it has passed.
async fn wait_until(at: Instant) {
    if at > Instant::now() {
        sleep_until(at.into()).await;
    }
}

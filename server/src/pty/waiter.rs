//! The waiter thread: blocks in `wait` until the child exits, so the child
//! is always reaped, and reports how it ended.

use std::io;
use std::sync::mpsc as std_mpsc;

use portable_pty::Child;
use tokio::sync::oneshot;

/// How a child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitStatus {
    /// The exit code (1 when a signal ended it); `None` if waiting failed.
    pub code: Option<u32>,
    /// The signal that ended it, as `strsignal` names it ("Hangup", "Killed").
    pub signal: Option<String>,
}

type BoxedChild = Box<dyn Child + Send + Sync>;

/// A started waiter thread, waiting to be given the child.
pub struct Waiter {
    child: std_mpsc::SyncSender<BoxedChild>,
}

/// Starts the waiter thread before the child exists, so handing the child
/// over cannot fail for lack of a thread.
pub fn start() -> io::Result<(Waiter, oneshot::Receiver<ExitStatus>)> {
    let (child_tx, child_rx) = std_mpsc::sync_channel::<BoxedChild>(1);
    let (exit_tx, exit_rx) = oneshot::channel();
    std::thread::Builder::new()
        .name("pty-waiter".to_owned())
        .spawn(move || {
            // No child arrives when spawning failed: nothing to wait for.
            let Ok(mut child) = child_rx.recv() else {
                return;
            };
            let pid = child.process_id().and_then(|pid| i32::try_from(pid).ok());
            let status = match child.wait() {
                Ok(status) => ExitStatus {
                    code: Some(status.exit_code()),
                    signal: status.signal().map(str::to_owned),
                },
                Err(_) => ExitStatus {
                    code: None,
                    signal: None,
                },
            };
            // The session may already be gone; the child is reaped either way.
            if let (Some(pid), Some(set)) = (pid, super::leftovers::programs().as_mut()) {
                set.remove(&pid);
            }
            let _ = exit_tx.send(status);
        })?;
    Ok((Waiter { child: child_tx }, exit_rx))
}

impl Waiter {
    /// Hands the child to the thread, which waits for it.
    pub fn watch(self, child: BoxedChild) {
        if let Err(std_mpsc::SendError(mut child)) = self.child.send(child) {
            // The thread is gone (it cannot be, short of a panic): reap here.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

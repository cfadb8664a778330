//! stdout and stderr, written by a thread of their own: a reader slow to
//! read them (or gone) never stalls the proxy, and lines never interleave.

use std::io::{self, Write};
use std::sync::mpsc;
use std::thread;

/// A line for one of the two streams.
enum Line {
    Out(String),
    Err(String),
}

/// Where the proxy's lines go. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Console {
    lines: mpsc::Sender<Line>,
}

impl Console {
    /// Starts the writing thread.
    pub fn start() -> io::Result<Console> {
        let (lines, queue) = mpsc::channel();
        thread::Builder::new()
            .name("netsim-console".into())
            .spawn(move || write_all(queue))?;
        Ok(Console { lines })
    }

    /// Writes one line to stdout, flushed.
    pub fn out(&self, line: String) {
        self.send(Line::Out(line));
    }

    /// Writes one line to stderr.
    pub fn err(&self, line: String) {
        self.send(Line::Err(line));
    }

    fn send(&self, line: Line) {
        // The thread ends only when every Console is dropped, so a send
        // cannot fail while `self` exists; there would be no one to tell.
        let _ = self.lines.send(line);
    }
}

/// The thread's work: each line to its stream, until every sender is gone.
fn write_all(queue: mpsc::Receiver<Line>) {
    for line in queue {
        // A reader that closed its end must not stop the proxy: failed
        // writes are dropped.
        let _ = match line {
            Line::Out(text) => {
                let mut stdout = io::stdout().lock();
                writeln!(stdout, "{text}").and_then(|()| stdout.flush())
            }
            Line::Err(text) => writeln!(io::stderr().lock(), "{text}"),
        };
    }
}

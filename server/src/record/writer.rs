//! The asciicast v2 writer a session's actor feeds: a header line, then one
//! JSON array per event (`o` output, `i` input, `r` resize, `m` marker).
//! The actor stamps and queues each chunk; the recording's writer thread
//! encodes it and writes out whenever the queue runs dry or its buffer
//! grows large, so a crash loses at most the chunks in flight. The queue is
//! bounded: a slow disk slows the program, as a slow emulator would, and no
//! output is dropped.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};
use std::thread::JoinHandle;
use std::time::Instant;

use serde::Serialize;

use super::json;
use super::utf8::Utf8Stream;

/// Buffered bytes that are written out at once, without waiting for a publish.
const WRITE_AT: usize = 64 * 1024;

/// How the marker that ends a recording cut short begins; its reason follows.
pub const CUT_PREFIX: &str = "recording stopped: ";

/// What a recording's header says.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Width at the start.
    pub width: u16,
    /// Height at the start.
    pub height: u16,
    /// Start time, seconds since the Unix epoch.
    pub timestamp: u64,
    /// The title players show.
    pub title: String,
    /// The command line, as one string.
    pub command: String,
    /// Pauses longer than this many seconds are shortened by players.
    pub idle_time_limit: Option<f64>,
    /// The `TERM` the program was given.
    pub term: String,
    /// The session recorded.
    pub session: String,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// Its profile, if it came from one.
    pub profile: Option<String>,
}

impl Header {
    /// The header line, newline included, `version` first as asciinema writes it.
    pub fn line(&self) -> Vec<u8> {
        #[derive(Serialize)]
        struct Line<'a> {
            version: u8,
            width: u16,
            height: u16,
            timestamp: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            idle_time_limit: Option<f64>,
            title: &'a str,
            command: &'a str,
            env: Env<'a>,
            panecast: Origin<'a>,
        }
        #[derive(Serialize)]
        struct Env<'a> {
            #[serde(rename = "TERM")]
            term: &'a str,
        }
        #[derive(Serialize)]
        struct Origin<'a> {
            session: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            name: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            profile: Option<&'a str>,
        }
        let line = Line {
            version: 2,
            width: self.width,
            height: self.height,
            timestamp: self.timestamp,
            idle_time_limit: self.idle_time_limit,
            title: &self.title,
            command: &self.command,
            env: Env { term: &self.term },
            panecast: Origin {
                session: &self.session,
                name: self.name.as_deref(),
                profile: self.profile.as_deref(),
            },
        };
        // Serializing plain strings and numbers into a Vec cannot fail.
        let mut bytes = serde_json::to_vec(&line).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}

/// Chunks queued between the actor and the writer thread before the actor
/// waits (and with it the program): backpressure, never loss.
const QUEUE: usize = 8;

/// What the actor hands the writer thread, stamped with its time.
enum Job {
    Output(f64, Vec<u8>),
    Input(f64, Vec<u8>),
    Resize(f64, u16, u16),
    Marker(f64, String),
}

/// Records one session into one file. The actor only stamps and queues
/// events; a writer thread of the recording encodes and writes them, so
/// the encoding runs beside the parser rather than after it. A full queue
/// makes the actor wait, and with it the program: nothing is dropped.
pub struct Recorder {
    jobs: Option<SyncSender<Job>>,
    /// The writer thread; its result is the file's size, `None` once the
    /// recording stopped.
    writer: Option<JoinHandle<Option<u64>>>,
    name: String,
    started: Instant,
    record_input: bool,
}

/// The recordings' hold on a live recording, released when dropped (the
/// store's entry): the writer names the recording by it and says when it
/// is cut short.
pub(super) trait LiveRecording: Send {
    /// The recording's name.
    fn name(&self) -> &str;
    /// The recording was cut short, and why: it is no longer live.
    fn cut(&self, reason: String);
}

impl Recorder {
    /// A recorder writing to `file`, which already holds `header_bytes`,
    /// its clock at `elapsed` (zero for a new recording).
    pub(super) fn new(
        file: File,
        header_bytes: u64,
        max_bytes: u64,
        record_input: bool,
        live: Box<dyn LiveRecording>,
        elapsed: std::time::Duration,
    ) -> std::io::Result<Recorder> {
        let name = live.name().to_owned();
        let (jobs, queue) = sync_channel(QUEUE);
        let writer = CastWriter {
            file,
            buffer: Vec::with_capacity(WRITE_AT * 2),
            size: header_bytes,
            whole: header_bytes,
            max_bytes,
            last: elapsed.as_secs_f64(),
            output: Utf8Stream::default(),
            input: Utf8Stream::default(),
            stopped: false,
            live,
        };
        let writer = std::thread::Builder::new()
            .name("recorder".to_owned())
            .spawn(move || writer.run(&queue))?;
        Ok(Recorder {
            jobs: Some(jobs),
            writer: Some(writer),
            name,
            started: Instant::now()
                .checked_sub(elapsed)
                .unwrap_or_else(Instant::now),
            record_input,
        })
    }

    /// Time since the recording started, as its events are stamped.
    pub fn elapsed(&self) -> std::time::Duration {
        self.started.elapsed()
    }

    /// Whether input is recorded too.
    pub fn records_input(&self) -> bool {
        self.record_input
    }

    /// Ends the recording's writing: waits until everything queued is in
    /// the file, and returns the file's size, or `None` when the recording
    /// had stopped (its byte cap, or a failed write).
    pub fn close(mut self) -> Option<u64> {
        self.jobs = None;
        self.writer.take().and_then(|w| w.join().ok().flatten())
    }

    /// The recording's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Records bytes the program wrote.
    pub fn output(&mut self, bytes: Vec<u8>) {
        self.queue(Job::Output(self.now(), bytes));
    }

    /// Records bytes written to the program, when the profile asks for input.
    pub fn input(&mut self, bytes: &[u8]) {
        if self.record_input {
            self.queue(Job::Input(self.now(), bytes.to_vec()));
        }
    }

    /// Records a new terminal size.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.queue(Job::Resize(self.now(), cols, rows));
    }

    /// Records a marker; false when the recording has stopped (its byte
    /// cap was reached, or a write failed).
    pub fn marker(&mut self, label: &str) -> bool {
        self.queue(Job::Marker(self.now(), label.to_owned()));
        self.jobs.is_some()
    }

    /// Seconds since the recording started.
    fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    fn queue(&mut self, job: Job) {
        // A send fails only once the writer stopped (cap reached, disk
        // error): there is nothing more to record then.
        if let Some(jobs) = &self.jobs {
            if jobs.send(job).is_err() {
                self.jobs = None;
            }
        }
    }
}

impl Drop for Recorder {
    /// Waits for the writer to write out the rest, so the file is whole
    /// when the session's end is published.
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// The writer thread's state.
struct CastWriter {
    file: File,
    buffer: Vec<u8>,
    /// Bytes written to the file or waiting in the buffer.
    size: u64,
    /// Bytes in the file, all of them whole lines: where a failed write is
    /// cut back to.
    whole: u64,
    max_bytes: u64,
    /// The last event's time.
    last: f64,
    output: Utf8Stream,
    input: Utf8Stream,
    /// Set once the byte cap was reached or a write failed.
    stopped: bool,
    /// Ends the recording's live state when the thread is done.
    live: Box<dyn LiveRecording>,
}

impl CastWriter {
    /// Encodes jobs until the recorder goes, writing out whenever the queue
    /// runs dry (so the file is current whenever the program pauses) or
    /// the buffer grows large.
    /// Returns the file's size once the recorder is gone, or `None` once
    /// the recording stopped.
    fn run(mut self, queue: &Receiver<Job>) -> Option<u64> {
        let mut next = queue.recv().ok();
        while let Some(job) = next {
            self.encode(job);
            if self.stopped {
                return None;
            }
            next = match queue.try_recv() {
                Ok(job) => {
                    if self.buffer.len() >= WRITE_AT {
                        self.flush();
                    }
                    Some(job)
                }
                Err(TryRecvError::Empty) => {
                    self.flush();
                    queue.recv().ok()
                }
                Err(TryRecvError::Disconnected) => None,
            };
        }
        let rest = self.output.finish();
        if !rest.is_empty() {
            self.event(self.last, "o", &rest);
        }
        self.flush();
        (!self.stopped).then_some(self.whole)
    }

    fn encode(&mut self, job: Job) {
        match job {
            Job::Output(time, bytes) => {
                let text = self.output.decode(&bytes);
                if !text.is_empty() {
                    self.event(time, "o", &text);
                }
            }
            Job::Input(time, bytes) => {
                let text = self.input.decode(&bytes);
                if !text.is_empty() {
                    self.event(time, "i", &text);
                }
            }
            Job::Resize(time, cols, rows) => self.event(time, "r", &format!("{cols}x{rows}")),
            Job::Marker(time, label) => self.event(time, "m", &label),
        }
    }

    /// Writes what is buffered to the file.
    fn flush(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        let mut done = 0;
        while done < self.buffer.len() {
            match self.file.write(&self.buffer[done..]) {
                Ok(0) => {
                    let error = std::io::Error::from(std::io::ErrorKind::WriteZero);
                    return self.cut_short(done, &error);
                }
                Ok(n) => done += n,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => return self.cut_short(done, &error),
            }
        }
        self.whole += done as u64;
        self.buffer.clear();
    }

    /// A write failed after `done` bytes of the buffer: the file is cut
    /// back to its last whole line (so it stays a valid asciicast), a
    /// marker saying why is appended if it still fits, and the recording
    /// stops, its reason kept for the listing.
    fn cut_short(&mut self, done: usize, error: &std::io::Error) {
        let kept = self.buffer[..done]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |at| at + 1);
        let whole = self.whole + kept as u64;
        let reason = match error.raw_os_error() {
            Some(libc::ENOSPC | libc::EDQUOT) => "disk full".to_owned(),
            _ => format!("cannot write: {error}"),
        };
        tracing::error!(recording = %self.live.name(), %error, %reason, "recording stopped");
        let mut marker = Vec::new();
        push_event(
            &mut marker,
            self.last,
            "m",
            &format!("{CUT_PREFIX}{reason}"),
        );
        let marked = self.file.set_len(whole).is_ok()
            && self.file.seek(SeekFrom::Start(whole)).is_ok()
            && self.file.write_all(&marker).is_ok();
        if !marked {
            // No room even for the marker: the listing still says why.
            let _ = self.file.set_len(whole);
        }
        self.live.cut(reason);
        self.buffer.clear();
        self.stopped = true;
    }

    fn event(&mut self, time: f64, code: &str, data: &str) {
        let now = time.max(self.last);
        self.last = now;
        let mark = self.buffer.len();
        push_event(&mut self.buffer, now, code, data);
        let added = (self.buffer.len() - mark) as u64;
        if self.size + added > self.max_bytes {
            // Keep what fits of the text, then say why the rest is missing.
            self.buffer.truncate(mark);
            let mut empty = Vec::new();
            push_event(&mut empty, now, code, "");
            let budget = self
                .max_bytes
                .saturating_sub(self.size + empty.len() as u64);
            let part = fitting_prefix(data, budget);
            if !part.is_empty() {
                push_event(&mut self.buffer, now, code, part);
            }
            let reason = format!("the byte cap of {} bytes was reached", self.max_bytes);
            push_event(&mut self.buffer, now, "m", &format!("{CUT_PREFIX}{reason}"));
            tracing::warn!(recording = %self.live.name(), max_bytes = self.max_bytes, "recording reached its byte cap");
            self.flush();
            if !self.stopped {
                self.live.cut(reason);
            }
            self.stopped = true;
            return;
        }
        self.size += added;
    }
}

/// Appends one event line: `[time, code, data]` and a newline.
fn push_event(buffer: &mut Vec<u8>, time: f64, code: &str, data: &str) {
    // Writing into a Vec cannot fail.
    let _ = write!(buffer, "[{time:.6}, \"{code}\", ");
    json::push_string(buffer, data);
    buffer.extend_from_slice(b"]\n");
}

/// The longest start of `text` whose JSON string body takes at most `budget` bytes.
fn fitting_prefix(text: &str, budget: u64) -> &str {
    let mut used = 0u64;
    for (at, c) in text.char_indices() {
        let size = match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf8() as u64,
        };
        if used + size > budget {
            return &text[..at];
        }
        used += size;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_json_arrays_with_escaped_text() {
        let mut buffer = Vec::new();
        push_event(&mut buffer, 1.5, "o", "a\x1b[1m\"b\"\r\n");
        let line = String::from_utf8(buffer).expect("text");
        assert_eq!(line, "[1.500000, \"o\", \"a\\u001b[1m\\\"b\\\"\\r\\n\"]\n");
        let parsed: (f64, String, String) = serde_json::from_str(&line).expect("JSON");
        assert_eq!(
            parsed,
            (1.5, "o".to_owned(), "a\x1b[1m\"b\"\r\n".to_owned())
        );
    }

    #[test]
    fn the_fitting_prefix_counts_escapes() {
        let text = "ab\x1b\"é";
        for budget in 0..=12 {
            let part = fitting_prefix(text, budget);
            let encoded = serde_json::to_string(part).expect("JSON").len() as u64 - 2;
            assert!(encoded <= budget, "{budget}: {part:?}");
            if part.len() < text.len() {
                let longer = &text
                    [..part.len() + text[part.len()..].chars().next().map_or(0, char::len_utf8)];
                let longer = serde_json::to_string(longer).expect("JSON").len() as u64 - 2;
                assert!(longer > budget, "{budget}: {part:?} could take one more");
            }
        }
        assert_eq!(fitting_prefix(text, 100), text);
    }

    #[test]
    fn the_header_holds_the_asciicast_fields() {
        let header = Header {
            width: 80,
            height: 24,
            timestamp: 1_700_000_000,
            title: "shell".to_owned(),
            command: "bash -l".to_owned(),
            idle_time_limit: Some(2.5),
            term: "xterm-256color".to_owned(),
            session: "abc".to_owned(),
            name: None,
            profile: None,
        };
        let line = header.line();
        assert_eq!(line.last(), Some(&b'\n'));
        assert!(line.starts_with(b"{\"version\":2,\"width\":80,"));
        let value: serde_json::Value = serde_json::from_slice(&line).expect("JSON");
        assert_eq!(value["version"], 2);
        assert_eq!(
            (value["width"].as_u64(), value["height"].as_u64()),
            (Some(80), Some(24))
        );
        assert_eq!(value["env"]["TERM"], "xterm-256color");
        assert_eq!(value["command"], "bash -l");
        assert_eq!(value["idle_time_limit"], 2.5);
        assert_eq!(value["panecast"]["session"], "abc");
        assert!(value["panecast"].get("profile").is_none());
    }
}

//! A reader of Server-Sent Events streams (`GET .../events`) off a raw
//! socket, with the chunked transfer decoded by hand.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

use super::Server;

/// An open event stream.
pub struct EventStream {
    reader: BufReader<TcpStream>,
    /// Decoded text not yet cut into events.
    pending: String,
    /// The answer's status.
    pub status: u16,
}

/// One event: its name, id and data.
#[derive(Debug, Clone)]
pub struct Received {
    pub name: String,
    pub id: Option<String>,
    pub data: Value,
}

impl EventStream {
    /// Opens `path` with `headers`; the status is read, the body is not.
    pub fn open(server: &Server, path: &str, headers: &[(&str, &str)]) -> EventStream {
        let stream = TcpStream::connect(server.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut request = format!("GET {path} HTTP/1.1\r\nHost: {}\r\n", server.addr);
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        (&stream).write_all(request.as_bytes()).expect("send");
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).expect("status line");
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        loop {
            line.clear();
            reader.read_line(&mut line).expect("a header");
            if line.trim_end().is_empty() {
                break;
            }
        }
        EventStream {
            reader,
            pending: String::new(),
            status,
        }
    }

    /// Reads the next chunk; false when the body ended.
    fn chunk(&mut self) -> bool {
        let mut size = String::new();
        if self.reader.read_line(&mut size).unwrap_or(0) == 0 {
            return false;
        }
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            return false;
        }
        let mut bytes = vec![0; size + 2];
        self.reader.read_exact(&mut bytes).expect("a chunk");
        self.pending
            .push_str(&String::from_utf8_lossy(&bytes[..size]));
        true
    }

    /// The next event (comments skipped); `None` once the stream ended.
    pub fn next(&mut self) -> Option<Received> {
        loop {
            while let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                let (mut name, mut id, mut data) = (None, None, String::new());
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event: ") {
                        name = Some(v.to_owned());
                    } else if let Some(v) = line.strip_prefix("id: ") {
                        id = Some(v.to_owned());
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        data.push_str(v);
                    }
                }
                if let Some(name) = name {
                    let data = serde_json::from_str(&data).expect("JSON data");
                    return Some(Received { name, id, data });
                }
            }
            if !self.chunk() {
                return None;
            }
        }
    }

    /// Reads events until one named `name` whose data passes `check`.
    pub fn until(&mut self, name: &str, check: impl Fn(&Value) -> bool) -> Received {
        loop {
            let event = self
                .next()
                .unwrap_or_else(|| panic!("the stream ended before a {name} event"));
            if event.name == name && check(&event.data) {
                return event;
            }
        }
    }
}

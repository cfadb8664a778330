//! The panecast side of the flood benchmark (`bench/flood.sh`): creates a
//! session running a command through the API, polls it until the child has
//! exited, reads the screen once, and prints the elapsed seconds. Then
//! deletes the session, outside the timing.
//!
//! Usage: `flood_client ADDR TOKEN COLS ROWS COMMAND [ARGS...]`

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("flood_client: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [addr, token, cols, rows, command @ ..] = args.as_slice() else {
        return Err("usage: flood_client ADDR TOKEN COLS ROWS COMMAND [ARGS...]".to_owned());
    };
    let cols: u16 = cols.parse().map_err(|_| format!("bad width '{cols}'"))?;
    let rows: u16 = rows.parse().map_err(|_| format!("bad height '{rows}'"))?;
    let client = Client { addr, token };

    let start = Instant::now();
    let body = json!({ "command": command, "cols": cols, "rows": rows }).to_string();
    let (status, created) = client.call("POST", "/api/sessions", &body)?;
    if status != 201 {
        return Err(format!("create answered {status}: {created}"));
    }
    let created: Value = serde_json::from_str(&created).map_err(|e| e.to_string())?;
    let id = created["id"]
        .as_str()
        .ok_or("no id in the answer")?
        .to_owned();
    let path = format!("/api/sessions/{id}");
    loop {
        let (_, session) = client.call("GET", &path, "")?;
        let session: Value = serde_json::from_str(&session).map_err(|e| e.to_string())?;
        if session["running"] == false {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let (_, screen) = client.call("GET", &format!("{path}/screen"), "")?;
    let elapsed = start.elapsed();
    client.call("DELETE", &path, "")?;

    println!("{:.3}", elapsed.as_secs_f64());
    let last = screen.lines().rfind(|l| !l.is_empty()).unwrap_or("");
    eprintln!("flood_client: last line on the screen: {last}");
    Ok(())
}

struct Client<'a> {
    addr: &'a str,
    token: &'a str,
}

impl Client<'_> {
    /// One request on a fresh connection; returns the status and the body.
    fn call(&self, method: &str, path: &str, body: &str) -> Result<(u16, String), String> {
        let mut stream = TcpStream::connect(self.addr).map_err(|e| format!("connect: {e}"))?;
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
             Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            self.token,
            body.len()
        );
        stream
            .write_all(request.as_bytes())
            .map_err(|e| format!("send: {e}"))?;
        let mut raw = String::new();
        stream
            .read_to_string(&mut raw)
            .map_err(|e| format!("receive: {e}"))?;
        let (head, body) = raw.split_once("\r\n\r\n").ok_or("no end of headers")?;
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or("no status")?;
        Ok((status, body.to_owned()))
    }
}

//! The panecast side of the flood benchmark (`bench/flood.sh`): creates a
//! session running a command through the API, polls it until the child has
//! exited, reads the screen once, and prints the elapsed seconds. Then
//! deletes the session, outside the timing.
//!
//! Usage: `flood_client ADDR TOKEN COLS ROWS COMMAND [ARGS...]`; with
//! `FLOOD_RECORD=1` in the environment the session is recorded.

#[path = "../tests/common/http.rs"]
#[allow(dead_code)] // The tests use more of the client than this does.
mod http;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::json;

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
    let addr: SocketAddr = addr.parse().map_err(|_| format!("bad address '{addr}'"))?;
    let cols: u16 = cols.parse().map_err(|_| format!("bad width '{cols}'"))?;
    let rows: u16 = rows.parse().map_err(|_| format!("bad height '{rows}'"))?;
    let auth = format!("Bearer {token}");
    let call = |method: &str, path: &str, body: Option<&str>| {
        http::http(
            addr,
            method,
            path,
            &[("Authorization", &auth)],
            body.map(str::as_bytes),
        )
    };

    let start = Instant::now();
    let record = std::env::var("FLOOD_RECORD").is_ok_and(|v| v == "1");
    let body =
        json!({ "command": command, "cols": cols, "rows": rows, "record": record }).to_string();
    let created = call("POST", "/api/sessions", Some(&body));
    if created.status != 201 {
        return Err(format!(
            "create answered {}: {}",
            created.status, created.body
        ));
    }
    let id = created.json()["id"]
        .as_str()
        .ok_or("no id in the answer")?
        .to_owned();
    let path = format!("/api/sessions/{id}");
    while call("GET", &path, None).json()["running"] != false {
        std::thread::sleep(Duration::from_millis(5));
    }
    let screen = call("GET", &format!("{path}/screen"), None).body;
    let elapsed = start.elapsed();
    call("DELETE", &path, None);

    println!("{:.3}", elapsed.as_secs_f64());
    let last = screen.lines().rfind(|l| !l.is_empty()).unwrap_or("");
    eprintln!("flood_client: last line on the screen: {last}");
    Ok(())
}

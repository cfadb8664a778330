//! The floor of the flood benchmark (`bench/flood.sh`): runs a command in a
//! pty and reads its output with a 64 KiB buffer, discarding it, until end
//! of file. Prints the elapsed seconds.
//!
//! Usage: `pty_drain COLS ROWS COMMAND [ARGS...]`

use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

use portable_pty::{native_pty_system, CommandBuilder, PtySize};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("pty_drain: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [cols, rows, command @ ..] = args.as_slice() else {
        return Err("usage: pty_drain COLS ROWS COMMAND [ARGS...]".to_owned());
    };
    let cols: u16 = cols.parse().map_err(|_| format!("bad width '{cols}'"))?;
    let rows: u16 = rows.parse().map_err(|_| format!("bad height '{rows}'"))?;
    if command.is_empty() {
        return Err("no command given".to_owned());
    }
    let start = Instant::now();
    let pair = native_pty_system()
        .openpty(PtySize {
            rows,
            cols,
            pixel_width: 0,
            pixel_height: 0,
        })
        .map_err(|e| format!("openpty: {e:#}"))?;
    let mut builder = CommandBuilder::from_argv(command.iter().map(Into::into).collect());
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    builder.cwd(cwd);
    let mut child = pair
        .slave
        .spawn_command(builder)
        .map_err(|e| format!("spawn: {e:#}"))?;
    drop(pair.slave);
    let mut reader = pair
        .master
        .try_clone_reader()
        .map_err(|e| format!("reader: {e:#}"))?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0usize;
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("read: {e}")),
        }
    }
    child.wait().map_err(|e| format!("wait: {e}"))?;
    println!("{:.3}", start.elapsed().as_secs_f64());
    eprintln!("pty_drain: {total} bytes");
    Ok(())
}

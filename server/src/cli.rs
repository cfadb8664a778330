//! The command line: `panecast render` (and, later, `panecast serve`).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::render::{self, Format};
use crate::term::{Term, DEFAULT_SCROLLBACK, MAX_DIMENSION};

/// panecast: a headless terminal-rendering service.
#[derive(Parser, Debug)]
#[command(name = "panecast", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Feed a byte stream to the emulator and print the final screen.
    Render(RenderArgs),
}

/// Options of `panecast render`.
#[derive(clap::Args, Debug)]
struct RenderArgs {
    /// Width in columns (1-1000).
    #[arg(long, default_value_t = 80, env = "PANECAST_COLS", value_parser = dimension)]
    cols: u16,
    /// Height in rows (1-1000).
    #[arg(long, default_value_t = 24, env = "PANECAST_ROWS", value_parser = dimension)]
    rows: u16,
    /// Output format: text, json, ansi, html or svg.
    #[arg(long, default_value = "text", env = "PANECAST_FORMAT")]
    format: Format,
    /// The byte stream to read; `-` or nothing reads standard input.
    file: Option<PathBuf>,
}

fn dimension(s: &str) -> Result<u16, String> {
    let n: u16 = s
        .parse()
        .map_err(|_| format!("'{s}' is not a number from 1 to {MAX_DIMENSION}"))?;
    if n == 0 || n > MAX_DIMENSION {
        return Err(format!("{n} is out of range: use 1 to {MAX_DIMENSION}"));
    }
    Ok(n)
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Render(args) => run_render(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("panecast: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run_render(args: RenderArgs) -> Result<(), String> {
    let input = read_input(args.file.as_deref())?;
    let mut term = Term::new(args.cols, args.rows, DEFAULT_SCROLLBACK);
    term.advance(&input);
    let out = render::render(&term.snapshot(), args.format);
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(|e| format!("cannot write output: {e}"))
}

fn read_input(file: Option<&std::path::Path>) -> Result<Vec<u8>, String> {
    match file {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
        }
        _ => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            Ok(buf)
        }
    }
}

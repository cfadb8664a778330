//! The `panecast` binary.

use std::process::ExitCode;

fn main() -> ExitCode {
    panecast::cli::main()
}

//! `netsim`: a TCP proxy that emulates a slow network. See README.md.

use std::process::ExitCode;

use clap::Parser;

#[tokio::main]
async fn main() -> ExitCode {
    match panecast_netsim::run(panecast_netsim::Args::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("netsim: {error}");
            ExitCode::FAILURE
        }
    }
}

//! netsim: a TCP proxy that emulates a slow network (delay, jitter, rate
//! limits, blackholes, resets) between a client and a panecast server.
//! See README.md for the profiles, the commands and how tests use it.

mod bucket;
mod cli;
mod console;
mod control;
mod delay;
mod link;
mod profile;
mod proxy;
mod pump;
mod rng;

use std::io;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::signal::unix::{signal, SignalKind};

pub use cli::Args;
pub use profile::{
    default_burst, find, Profile, Rate, Settings, MIN_BURST_BYTES, PROFILES, SEGMENT_BYTES,
};
pub use pump::HOLD_BYTES;

use console::Console;
use link::Link;

/// Runs the proxy until SIGTERM or SIGINT: binds, prints the `netsim
/// listening on ADDR (...)` line, then carries connections and answers
/// commands on stdin.
pub async fn run(args: Args) -> io::Result<()> {
    let settings = args.settings();
    let listener = TcpListener::bind(&args.listen).await?;
    let address = listener.local_addr()?;
    let mut terminate = signal(SignalKind::terminate())?;
    let console = Console::start()?;
    console.out(format!("netsim listening on {address} ({settings})"));

    let link = Arc::new(Link::new(settings, args.seed));
    tokio::spawn(control::run(
        link.clone(),
        console.clone(),
        control::read_stdin()?,
    ));
    tokio::select! {
        () = proxy::serve(listener, args.upstream.into(), link, console) => Ok(()),
        _ = terminate.recv() => Ok(()),
        interrupted = tokio::signal::ctrl_c() => interrupted,
    }
}

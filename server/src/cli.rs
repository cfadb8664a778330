//! The command line: `panecast serve` runs the service, `panecast render`
//! renders a byte stream, `panecast health` probes a running server,
//! `panecast attach` shows a session in this terminal. Every option also
//! reads from the environment.

mod render_input;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::builder::BoolishValueParser;
use clap::{ArgAction, Parser, Subcommand};

use crate::access::secret::check_admin_token;
use crate::api::{self, Settings};
use crate::config::{normalize_base_path, Config};
use crate::render::{self, Format};
use crate::tls::{self, Certificates};
use crate::{health, random};
use panecast_term::MAX_DIMENSION;

/// panecast: a headless terminal-rendering service.
#[derive(Parser, Debug)]
#[command(name = "panecast", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
#[command(defer = true)]
enum Command {
    /// Run the service: programs in ptys, their screens over HTTP.
    Serve(ServeArgs),
    /// Feed a byte stream to the emulator and print the final screen.
    Render(RenderArgs),
    /// Print a fresh random secret and the `[[keys]]` entry for the config
    /// (or, with --nats, a NATS user key for the nodes of a cluster).
    Key(KeyArgs),
    /// Exit 0 when a server's /healthz answers 200 within 5 s, else 1 (for a
    /// container's HEALTHCHECK: the image has no curl).
    Health(HealthArgs),
    /// Show a session in this terminal and type into it (as `tmux attach`);
    /// Ctrl-\ detaches.
    Attach(crate::attach::AttachArgs),
    /// Check a hand-over state file (written by a server upgrading in place
    /// on SIGUSR2): exit 0 when this binary can take it back, else 1 with
    /// the reason.
    CheckHandover {
        /// The state file.
        file: PathBuf,
    },
}

/// How `serve` writes its log lines (to standard error).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum LogFormat {
    /// One line of text per event.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Options of `panecast serve`.
#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// Address and port to listen on.
    #[arg(long, default_value = "127.0.0.1:7681", env = "PANECAST_LISTEN")]
    listen: String,
    /// TOML file with profiles and limits (see deploy/panecast.example.toml);
    /// without it, embedded defaults apply.
    #[arg(long, env = "PANECAST_CONFIG")]
    config: Option<PathBuf>,
    /// The admin token (16 to 256 letters, digits, '-', '_', '.', '~'); a random one
    /// is generated and printed when none is given. Prefer --token-file or
    /// the environment: a command line is visible to other processes.
    #[arg(
        long,
        env = "PANECAST_TOKEN",
        hide_env_values = true,
        conflicts_with = "token_file"
    )]
    token: Option<String>,
    /// A file holding the admin token (surrounding whitespace is ignored).
    #[arg(long, env = "PANECAST_TOKEN_FILE")]
    token_file: Option<PathBuf>,
    /// Let requests run any command and set environment variables, not only
    /// configured profiles.
    #[arg(
        long,
        env = "PANECAST_ALLOW_ANY_COMMAND",
        action = ArgAction::SetTrue,
        value_parser = BoolishValueParser::new()
    )]
    allow_any_command: bool,
    /// Serve every page, API route, WebSocket and cookie under this path
    /// (e.g. /term) for a reverse proxy; overrides the config's base_path.
    #[arg(long, env = "PANECAST_BASE_PATH")]
    base_path: Option<String>,
    /// Log lines as text or as JSON objects, one per line.
    #[arg(long, value_enum, default_value = "text", env = "PANECAST_LOG_FORMAT")]
    log_format: LogFormat,
    /// Serve HTTPS with this certificate chain (PEM, leaf first); both
    /// files are read again on SIGHUP.
    #[arg(long, env = "PANECAST_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, env = "PANECAST_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Join a cluster through this NATS server (with JetStream), e.g.
    /// nats://127.0.0.1:4222; the bus key, credentials and TLS come from
    /// the config's [cluster] section. Without it, no NATS code runs.
    #[arg(long, env = "PANECAST_CLUSTER")]
    cluster: Option<String>,
    /// This node's name in the cluster; default: the host name.
    #[arg(long, env = "PANECAST_NODE", requires = "cluster")]
    node: Option<String>,
    /// Join a NATS server that asks for no credentials. For tests on a
    /// private NATS only: anything that reaches such a server (a session's
    /// program too) reads every screen and keystroke of the cluster.
    #[arg(long, env = "PANECAST_CLUSTER_WITHOUT_AUTH", requires = "cluster")]
    cluster_without_auth: bool,
}

/// Options of `panecast key`.
#[derive(clap::Args, Debug)]
struct KeyArgs {
    /// Print a NATS user key instead: its seed, for the nodes' [cluster]
    /// nkey_seed_file, and its public key, for NATS's configuration.
    #[arg(long)]
    nats: bool,
}

/// Options of `panecast health`.
#[derive(clap::Args, Debug)]
struct HealthArgs {
    /// The URL to ask; by default /healthz of the server that `serve` with
    /// the same PANECAST_LISTEN and PANECAST_BASE_PATH would run.
    url: Option<String>,
    /// Address `serve` listens on, when no URL is given.
    #[arg(long, default_value = "127.0.0.1:7681", env = "PANECAST_LISTEN")]
    listen: String,
    /// Path prefix `serve` runs under, when no URL is given.
    #[arg(long, default_value = "", env = "PANECAST_BASE_PATH")]
    base_path: String,
    /// The certificate (PEM) `serve` serves, as `serve` takes it: the
    /// default URL is then https, and the server must present exactly
    /// this certificate (a self-signed one too, whatever name it names).
    #[arg(long, env = "PANECAST_TLS_CERT")]
    tls_cert: Option<PathBuf>,
}

/// Options of `panecast render`.
#[derive(clap::Args, Debug)]
struct RenderArgs {
    /// Width in columns (1-1000); default 80, or a recording's width.
    #[arg(long, env = "PANECAST_COLS", value_parser = dimension)]
    cols: Option<u16>,
    /// Height in rows (1-1000); default 24, or a recording's height.
    #[arg(long, env = "PANECAST_ROWS", value_parser = dimension)]
    rows: Option<u16>,
    /// Output format: text, json, ansi, html or svg.
    #[arg(long, default_value = "text", env = "PANECAST_FORMAT")]
    format: Format,
    /// For an asciicast recording: the screen this many seconds into it
    /// (default: its end).
    #[arg(long, env = "PANECAST_AT", value_parser = seconds)]
    at: Option<f64>,
    /// The byte stream or asciicast v2 recording (detected by its header)
    /// to read; `-` or nothing reads standard input.
    file: Option<PathBuf>,
}

fn seconds(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|t| t.is_finite() && *t >= 0.0)
        .ok_or_else(|| format!("'{s}' is not a number of seconds (0 or more)"))
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
        Command::Serve(args) => run_serve(args),
        Command::Render(args) => run_render(args),
        Command::Key(args) => run_key(&args),
        Command::Health(args) => run_health(args),
        // Its own exit codes (see `panecast attach --help`).
        Command::Attach(args) => return crate::attach::run(args),
        Command::CheckHandover { file } => crate::upgrade::check::check(&file).map(|summary| {
            println!("{summary}");
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("panecast: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run_serve(args: ServeArgs) -> Result<(), String> {
    // Before the token is wiped from the command line: an upgrade runs the
    // binary again with these very arguments.
    let original_args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let binary = std::env::current_exe()
        .map_err(|e| format!("cannot find the binary this server runs: {e}"))?;
    let resumed = crate::upgrade::resume::take_from_env()
        .map_err(|e| format!("cannot resume after an upgrade: {e}"))?;
    init_logging(args.log_format);
    let mut config = match &args.config {
        Some(path) => Config::load(path).map_err(|e| e.to_string())?,
        None => Config::default(),
    };
    if let Some(base_path) = &args.base_path {
        config.base_path = normalize_base_path(base_path).map_err(|e| e.to_string())?;
    }
    let from_command_line = args.token.is_some()
        && std::env::var("PANECAST_TOKEN").ok().as_deref() != args.token.as_deref();
    let given = match (&args.token, &args.token_file) {
        // The token the server ran with, whatever the (wiped) arguments say.
        _ if resumed.is_some() => resumed.as_ref().map(|r| r.token().to_owned()),
        (_, Some(path)) => {
            Some(crate::secret_file::read(path, "the token file").map_err(|e| e.to_string())?)
        }
        (token, None) => token.clone(),
    };
    let (token, generated) = match given {
        Some(token) => {
            check_admin_token(&token).map_err(|e| e.to_string())?;
            (token, false)
        }
        None => (
            random::hex128().map_err(|e| format!("cannot generate a token: {e}"))?,
            true,
        ),
    };
    // Before any thread starts: children running as root could read these.
    crate::scrub::scrub(&token);
    harden_process();
    if from_command_line {
        tracing::warn!(
            "the token was given on the command line, where other users' processes can read it; use --token-file or PANECAST_TOKEN"
        );
    }
    let certificates = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(Certificates::load(cert, key).map_err(|e| e.to_string())?),
        _ => None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .max_blocking_threads(crate::pool::API_BLOCKING_THREADS)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let result = runtime.block_on(async {
        let shutdown = shutdown_signal()?;
        let upgrade_signals =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::user_defined2())
                .map_err(|e| format!("cannot handle SIGUSR2 for upgrades: {e}"))?;
        // Blocked across an upgrade's exec until handled again.
        crate::upgrade::exec::block_upgrade_signal(false);
        let tls = match &certificates {
            Some(certificates) => {
                reload_on_hangup(Arc::clone(certificates))?;
                Some(certificates.acceptor().map_err(|e| e.to_string())?)
            }
            None => None,
        };
        config.cluster.without_auth = args.cluster_without_auth;
        let registry = match &args.cluster {
            Some(url) => {
                let node = args.node.clone().unwrap_or_else(host_name);
                let registry = crate::cluster::Registry::connect(url, &node, &config.cluster)
                    .await
                    .map_err(|e| e.to_string())?;
                tracing::info!(%url, %node, "joined the cluster");
                let registry = Arc::new(registry);
                Some((Arc::clone(&registry).spawn_heartbeat(), registry))
            }
            None => None,
        };
        let scheme = if tls.is_some() { "https" } else { "http" };
        let listener = match &resumed {
            Some(resumed) => tokio::net::TcpListener::from_std(resumed.listener()?)
                .map_err(|e| format!("cannot listen on the handed-over socket: {e}"))?,
            None => tokio::net::TcpListener::bind(&args.listen)
                .await
                .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?,
        };
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the listening address: {e}"))?;
        let base = &config.base_path;
        if resumed.is_some() {
            // The first image said it; whoever read that line may be gone.
            tracing::info!(%addr, "upgraded in place: listening on the same socket");
        } else if generated {
            println!(
                "panecast listening: open {scheme}://{addr}{base}/?token={token} (a fresh token)"
            );
        } else {
            println!("panecast listening: open {scheme}://{addr}{base}/?token=YOUR_TOKEN");
        }
        let in_place = api::InPlace {
            origin: crate::upgrade::Origin {
                binary,
                args: original_args,
                listener: std::os::fd::AsRawFd::as_raw_fd(&listener),
                token: token.clone(),
            },
            signals: upgrade_signals,
            resumed,
            cluster: registry.as_ref().map(|(_, registry)| Arc::clone(registry)),
        };
        let settings = Settings {
            config,
            token,
            allow_any_command: args.allow_any_command,
        };
        let served = api::serve_in_place(settings, listener, tls, shutdown, in_place).await;
        if let Some((heartbeat, registry)) = registry {
            heartbeat.abort();
            // Until the task is gone: a refresh it was in the middle of
            // could otherwise write the node's key again after it left.
            let _ = heartbeat.await;
            if let Err(e) = registry.leave().await {
                tracing::warn!(error = %e, "cannot leave the cluster; the node's key expires instead");
            }
        }
        served.map_err(|e| format!("server error: {e}"))
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    result
}

/// The host name, the default node name in a cluster.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "panecast".to_owned())
}

/// Closes what a session's programs could use against the server, which
/// is their parent and, when sessions cannot have uids of their own, runs
/// as the same user: no core dumps and no
/// `/proc/PID/environ`, `cmdline` or ptrace for them (non-dumpable); the
/// server becomes the reaper of their orphaned background jobs, so
/// deleting a session can end them (the reaper of session programs reaps
/// them as they exit). The open-files limit is raised to its maximum for
/// many sessions and connections.
fn harden_process() {
    // SAFETY: PR_SET_DUMPABLE takes one integer argument.
    if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } != 0 {
        tracing::warn!("cannot make the process non-dumpable: children may read its /proc entries");
    }
    if !crate::pty::become_subreaper() {
        tracing::warn!(
            "cannot become a child subreaper: background jobs may outlive their sessions"
        );
    }
    raise_open_files_limit();
}

/// Raises the soft limit on open files to the hard one, and logs both:
/// each session holds one descriptor (its pty master).
fn raise_open_files_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        tracing::warn!("cannot read the open-files limit");
        return;
    }
    let before = limit.rlim_cur;
    limit.rlim_cur = limit.rlim_max;
    // SAFETY: setrlimit reads the struct given.
    if before < limit.rlim_max && unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
        tracing::warn!(
            soft = before,
            hard = limit.rlim_max,
            "cannot raise the open-files limit"
        );
        return;
    }
    tracing::info!(
        from = before,
        to = limit.rlim_max,
        "open-files limit (soft) set to the hard limit"
    );
}

/// `panecast key`: a fresh secret, and the config entry holding its digest.
fn run_key(args: &KeyArgs) -> Result<(), String> {
    if args.nats {
        let pair = nkeys::KeyPair::new_user();
        let seed = pair
            .seed()
            .map_err(|e| format!("cannot make a NATS key: {e}"))?;
        println!("seed: {seed}");
        println!("public key: {}", pair.public_key());
        println!(
            "(the seed to a file only the server may read, named by [cluster] nkey_seed_file on \
             every node; the public key to NATS: deploy/cluster/nats.conf reads it from \
             PANECAST_NATS_NKEY)"
        );
        return Ok(());
    }
    let secret =
        crate::access::secret::generate().map_err(|e| format!("cannot generate a secret: {e}"))?;
    println!("secret: {secret}");
    println!(
        "(give the secret to the client; paste this into the config, it holds only the digest)"
    );
    println!();
    print!("{}", crate::access::config_entry(&secret));
    Ok(())
}

/// Logs to standard error in `format`, filtered by `RUST_LOG` (default
/// `info`).
fn init_logging(format: LogFormat) {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => builder.json().with_ansi(false).init(),
    }
}

fn run_health(args: HealthArgs) -> Result<(), String> {
    let url = match args.url {
        Some(url) => url,
        None => {
            let base = normalize_base_path(&args.base_path).map_err(|e| e.to_string())?;
            health::default_url(&args.listen, &base, args.tls_cert.is_some())
        }
    };
    let client = match &args.tls_cert {
        Some(path) => {
            let chain = tls::read_certificates(path).map_err(|e| e.to_string())?;
            // read_certificates answers at least one certificate: the leaf first.
            let leaf = chain.into_iter().next().ok_or("no certificate")?;
            tls::client_pinning(leaf)
        }
        None => tls::CLIENT.clone(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime
        .block_on(health::check(&url, &client))
        .map_err(|e| e.to_string())
}

/// Reads the certificate and key again on every SIGHUP; a pair that fails
/// to load is logged and the one in use stays.
fn reload_on_hangup(certificates: Arc<Certificates>) -> Result<(), String> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut hangups = signal(SignalKind::hangup())
        .map_err(|e| format!("cannot handle SIGHUP for certificate reloads: {e}"))?;
    tokio::spawn(async move {
        while hangups.recv().await.is_some() {
            match certificates.reload() {
                Ok(()) => tracing::info!("SIGHUP: the TLS certificate was read again"),
                Err(error) => {
                    tracing::warn!(%error, "SIGHUP: the TLS certificate could not be read; the old one stays")
                }
            }
        }
    });
    Ok(())
}

/// Completes on the first of SIGINT (Ctrl-C) or SIGTERM. Both handlers are
/// installed before this returns, so a signal that arrives while the server
/// starts is not lost (nor does it kill the process unannounced).
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>, String> {
    use tokio::signal::unix::{signal, SignalKind};
    let install =
        |kind: SignalKind| signal(kind).map_err(|e| format!("cannot handle the stop signals: {e}"));
    let mut interrupt = install(SignalKind::interrupt())?;
    let mut terminate = install(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}

fn run_render(args: RenderArgs) -> Result<(), String> {
    let mut term = render_input::read_term(&args).map_err(|e| e.to_string())?;
    let out = render::render(&term.snapshot(), args.format);
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(|e| format!("cannot write output: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve_args(args: &[&str]) -> ServeArgs {
        let argv = ["panecast", "serve"].iter().chain(args);
        match Cli::try_parse_from(argv)
            .expect("valid command line")
            .command
        {
            Command::Serve(args) => args,
            _ => unreachable!("parsed as serve"),
        }
    }

    #[test]
    fn serve_takes_every_option() {
        let args = serve_args(&[
            "--listen",
            "127.0.0.1:0",
            "--config",
            "/etc/panecast.toml",
            "--token",
            "abc",
            "--allow-any-command",
            "--base-path",
            "/term",
            "--log-format",
            "json",
        ]);
        assert_eq!(args.listen, "127.0.0.1:0");
        assert_eq!(args.config, Some(PathBuf::from("/etc/panecast.toml")));
        assert_eq!(args.token.as_deref(), Some("abc"));
        assert!(args.allow_any_command);
        assert_eq!(args.base_path.as_deref(), Some("/term"));
        assert_eq!(args.log_format, LogFormat::Json);
    }

    #[test]
    fn health_takes_a_url_or_the_listening_address() {
        let cli = Cli::try_parse_from(["panecast", "health", "http://127.0.0.1:9/healthz"])
            .expect("valid command line");
        match cli.command {
            Command::Health(args) => {
                assert_eq!(args.url.as_deref(), Some("http://127.0.0.1:9/healthz"))
            }
            _ => unreachable!("parsed as health"),
        }
        assert!(Cli::try_parse_from(["panecast", "serve", "--log-format", "xml"]).is_err());
    }

    #[test]
    fn serve_defaults_to_loopback_without_commands() {
        if std::env::vars().any(|(name, _)| name.starts_with("PANECAST_")) {
            return; // The environment would override the defaults under test.
        }
        let args = serve_args(&[]);
        assert_eq!(args.listen, "127.0.0.1:7681");
        assert_eq!(args.token, None);
        assert!(!args.allow_any_command);
        assert_eq!(args.base_path, None);
        assert_eq!(args.log_format, LogFormat::Text);
    }
}

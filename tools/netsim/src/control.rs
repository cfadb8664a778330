//! The control channel: one command a line on stdin, one answer a line on
//! stdout, `ok ...` or `error: ...`.

use std::io::{self, BufRead};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::mpsc;
use tokio::time::sleep_until;

use crate::console::Console;
use crate::link::Link;
use crate::profile::{self, Overrides, Profile, Settings};

/// The longest blackhole a command may ask for: a day.
const MAX_BLACKHOLE_SECS: f64 = 86_400.0;

/// A control command.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Command {
    /// `blackhole SECONDS`: deliver nothing, either way, for that long.
    Blackhole(Duration),
    /// `reset`: close every connection with RST.
    Reset,
    /// `profile NAME`: switch to that profile's values.
    Profile(&'static Profile),
    /// `stats`: report the counters.
    Stats,
}

/// Reads a command from a line (surrounding blanks ignored).
pub fn parse(line: &str) -> Result<Command, String> {
    let mut words = line.split_whitespace();
    let name = words.next().unwrap_or_default();
    let argument = words.next();
    if words.next().is_some() {
        return Err(format!("too many words in {:?}", line.trim()));
    }
    match (name, argument) {
        ("blackhole", Some(seconds)) => parse_seconds(seconds).map(Command::Blackhole),
        ("profile", Some(name)) => profile::find(name)
            .map(Command::Profile)
            .ok_or_else(|| format!("no profile {name:?} (profiles: {})", profile::names())),
        ("reset", None) => Ok(Command::Reset),
        ("stats", None) => Ok(Command::Stats),
        ("blackhole", None) => Err("blackhole needs SECONDS".into()),
        ("profile", None) => Err("profile needs a NAME".into()),
        ("reset" | "stats", Some(_)) => Err(format!("{name} takes no argument")),
        _ => Err(format!(
            "unknown command {name:?} (commands: blackhole SECONDS, reset, profile NAME, stats)"
        )),
    }
}

/// A blackhole's length: seconds, fractions allowed, from 0 to a day.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let refuse = || format!("{text:?} is not a number of seconds from 0 to {MAX_BLACKHOLE_SECS}");
    let seconds: f64 = text.parse().map_err(|_| refuse())?;
    if !(0.0..=MAX_BLACKHOLE_SECS).contains(&seconds) {
        return Err(refuse());
    }
    Duration::try_from_secs_f64(seconds).map_err(|_| refuse())
}

/// Reads stdin's lines on a thread of its own (a blocking read there never
/// holds up the runtime, nor its shutdown). The receiver ends at EOF.
pub fn read_stdin() -> io::Result<mpsc::UnboundedReceiver<String>> {
    let (lines, receiver) = mpsc::unbounded_channel();
    thread::Builder::new()
        .name("netsim-stdin".into())
        .spawn(move || {
            let mut stdin = io::stdin().lock();
            let mut line = Vec::new();
            // Ends at EOF, on a read error, or when nobody listens.
            while matches!(stdin.read_until(b'\n', &mut line), Ok(1..)) {
                if lines
                    .send(String::from_utf8_lossy(&line).into_owned())
                    .is_err()
                {
                    break;
                }
                line.clear();
            }
        })?;
    Ok(receiver)
}

/// Answers each command line until the lines end; blank lines are skipped.
pub async fn run(link: Arc<Link>, console: Console, mut lines: mpsc::UnboundedReceiver<String>) {
    let (ends, ends_queue) = mpsc::unbounded_channel();
    tokio::spawn(announce_ends(ends_queue, console.clone()));
    while let Some(line) = lines.recv().await {
        if line.trim().is_empty() {
            continue;
        }
        match parse(&line) {
            Err(error) => console.out(format!("error: {error}")),
            Ok(Command::Blackhole(length)) => {
                let until = link.blackhole(length);
                console.out(format!(
                    "ok blackhole until unix {:.3} ({:.3} s from now)",
                    unix_seconds(length),
                    length.as_secs_f64()
                ));
                // After the answer, so `blackhole over` always follows it.
                // The announcer lives as long as this sender.
                let _ = ends.send(until);
            }
            Ok(Command::Reset) => {
                let count = link.reset().await;
                let noun = if count == 1 {
                    "connection"
                } else {
                    "connections"
                };
                console.out(format!("ok reset {count} {noun}"));
            }
            Ok(Command::Profile(profile)) => {
                let settings = Settings::resolve(profile, &Overrides::default());
                link.set_settings(settings);
                console.out(format!("ok {settings}"));
            }
            Ok(Command::Stats) => console.out(format!("ok {}", link.stats())),
        }
    }
}

/// Seconds since the Unix epoch, `ahead` from now.
fn unix_seconds(ahead: Duration) -> f64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    (now + ahead).as_secs_f64()
}

/// Prints `blackhole over` when the latest blackhole ends: once for a
/// blackhole, once for several that replaced each other. Keeps going after
/// stdin ends, for the blackhole already on.
async fn announce_ends(mut ends: mpsc::UnboundedReceiver<Instant>, console: Console) {
    let mut pending: Option<Instant> = None;
    loop {
        tokio::select! {
            end = ends.recv() => match end {
                Some(end) => pending = Some(end),
                None => break,
            },
            () = sleep_until(pending.unwrap_or_else(Instant::now).into()), if pending.is_some() => {
                console.out("blackhole over".into());
                pending = None;
            }
        }
    }
    if let Some(end) = pending {
        sleep_until(end.into()).await;
        console.out("blackhole over".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse() {
        assert_eq!(
            parse("blackhole 1.5"),
            Ok(Command::Blackhole(Duration::from_millis(1_500)))
        );
        assert_eq!(
            parse("  blackhole 0\n"),
            Ok(Command::Blackhole(Duration::ZERO))
        );
        assert_eq!(parse("reset"), Ok(Command::Reset));
        assert_eq!(parse("stats\r\n"), Ok(Command::Stats));
        assert_eq!(
            parse("profile satellite"),
            Ok(Command::Profile(
                profile::find("satellite").expect("a profile")
            ))
        );
    }

    #[test]
    fn mistakes_are_refused_with_a_reason() {
        for (line, reason) in [
            ("jump", "unknown command"),
            ("blackhole", "needs SECONDS"),
            ("blackhole -1", "not a number of seconds"),
            ("blackhole NaN", "not a number of seconds"),
            ("blackhole inf", "not a number of seconds"),
            ("blackhole 90000", "not a number of seconds"),
            ("blackhole 1 2", "too many words"),
            ("profile dialup", "no profile"),
            ("profile", "needs a NAME"),
            ("reset now", "takes no argument"),
            ("RESET", "unknown command"),
        ] {
            let error = parse(line).expect_err(line);
            assert!(error.contains(reason), "{line:?}: {error}");
        }
    }
}

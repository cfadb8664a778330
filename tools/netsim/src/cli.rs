//! The command line.

use clap::Parser;

use crate::profile::{self, Overrides, Profile, Rate, Settings, MAX_DELAY_MS};

/// A TCP proxy that emulates a slow network between a client and a server:
/// delay, jitter, rate limits, blackholes and resets. Commands on stdin:
/// blackhole SECONDS, reset, profile NAME, stats.
#[derive(Clone, Debug, Parser)]
#[command(name = "netsim", version)]
pub struct Args {
    /// Address to accept clients on; port 0 picks a free one, printed at
    /// start.
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: String,

    /// Address (host:port) of the server each client is carried to.
    #[arg(long)]
    pub upstream: String,

    /// Link profile: lan, broadband, mobile or satellite. The flags below
    /// override its values.
    #[arg(long, default_value = "lan", value_parser = parse_profile)]
    pub profile: &'static Profile,

    /// Round trip added by the link, in ms (half each way).
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=MAX_DELAY_MS))]
    pub rtt_ms: Option<u64>,

    /// Jitter width in ms: each one-way delay varies by up to half of it
    /// either way.
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=MAX_DELAY_MS))]
    pub jitter_ms: Option<u64>,

    /// Rate from upstream to client, kbit/s, or "unlimited".
    #[arg(long)]
    pub down_kbit: Option<Rate>,

    /// Rate from client to upstream, kbit/s, or "unlimited".
    #[arg(long)]
    pub up_kbit: Option<Rate>,

    /// Token bucket size of each limited direction, in bytes [default: 100
    /// ms of the faster limited direction, at least 4 segments (5840)].
    #[arg(long)]
    pub burst_bytes: Option<u64>,

    /// Seed of the jitter: the same seed, the same delays for the same
    /// reads.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl Args {
    /// The link's settings: the profile with the flags given applied.
    pub fn settings(&self) -> Settings {
        Settings::resolve(
            self.profile,
            &Overrides {
                rtt_ms: self.rtt_ms,
                jitter_ms: self.jitter_ms,
                down: self.down_kbit,
                up: self.up_kbit,
                burst_bytes: self.burst_bytes,
            },
        )
    }
}

/// A profile by name, for `--profile`.
fn parse_profile(name: &str) -> Result<&'static Profile, String> {
    profile::find(name)
        .ok_or_else(|| format!("no profile {name:?} (profiles: {})", profile::names()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_override_the_profile() {
        let args = Args::try_parse_from([
            "netsim",
            "--upstream",
            "127.0.0.1:1",
            "--profile",
            "mobile",
            "--rtt-ms",
            "200",
            "--down-kbit",
            "unlimited",
        ])
        .expect("valid flags");
        let settings = args.settings();
        assert_eq!(settings.profile, "mobile");
        assert_eq!(settings.rtt_ms, 200);
        assert_eq!(settings.jitter_ms, 30);
        assert_eq!(settings.down, Rate::Unlimited);
        assert_eq!(settings.up, Rate::Kbit(750));
        assert_eq!(settings.burst_bytes, 9_375);
    }

    #[test]
    fn bad_flags_are_refused() {
        for flags in [
            &["--profile", "dialup"][..],
            &["--rtt-ms", "-1"],
            &["--rtt-ms", "3600001"],
            &["--up-kbit", "0"],
        ] {
            let mut line = vec!["netsim", "--upstream", "127.0.0.1:1"];
            line.extend_from_slice(flags);
            assert!(Args::try_parse_from(line).is_err(), "{flags:?}");
        }
    }
}

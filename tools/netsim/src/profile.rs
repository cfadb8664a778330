//! Named link profiles, and the settings a profile and the command line's
//! overrides make together.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The largest slice a rate-limited direction sends at once: one TCP
/// segment's payload on an Ethernet-sized path.
pub const SEGMENT_BYTES: usize = 1460;

/// The smallest default burst: a few segments, so even a slow link can send
/// a small write without waiting on the bucket.
pub const MIN_BURST_BYTES: u64 = 4 * SEGMENT_BYTES as u64;

/// The largest rate a flag accepts, in kbit/s (100 Gbit/s).
const MAX_KBIT: u64 = 100_000_000;

/// The largest round trip or jitter a flag accepts, in ms (one hour).
pub const MAX_DELAY_MS: u64 = 3_600_000;

/// A link's rate in one direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    /// No limit: no token bucket at all.
    Unlimited,
    /// Kilobits (1000 bits) per second, more than zero.
    Kbit(u64),
}

impl Rate {
    /// The rate in bytes per second, or `None` when unlimited.
    pub fn bytes_per_sec(self) -> Option<u64> {
        match self {
            Rate::Unlimited => None,
            Rate::Kbit(kbit) => Some(kbit * 1000 / 8),
        }
    }
}

impl FromStr for Rate {
    type Err = String;

    /// `unlimited`, or a whole number of kbit/s from 1 to 100,000,000.
    fn from_str(text: &str) -> Result<Rate, String> {
        if text == "unlimited" {
            return Ok(Rate::Unlimited);
        }
        match text.parse::<u64>() {
            Ok(kbit) if (1..=MAX_KBIT).contains(&kbit) => Ok(Rate::Kbit(kbit)),
            _ => Err(format!(
                "{text:?} is not a rate: give kbit/s from 1 to {MAX_KBIT}, or \"unlimited\""
            )),
        }
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rate::Unlimited => f.write_str("unlimited"),
            Rate::Kbit(kbit) => write!(f, "{kbit} kbit/s"),
        }
    }
}

/// A named profile: the link conditions the rest of the project refers to
/// by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    /// The name `--profile` and the `profile` command take.
    pub name: &'static str,
    /// Round trip added by the link, in ms (half each way).
    pub rtt_ms: u64,
    /// Width of the jitter, in ms: each one-way delay varies uniformly
    /// within ± half of it.
    pub jitter_ms: u64,
    /// Rate from upstream to client.
    pub down: Rate,
    /// Rate from client to upstream.
    pub up: Rate,
}

/// Every named profile.
pub const PROFILES: [Profile; 4] = [
    Profile {
        name: "lan",
        rtt_ms: 1,
        jitter_ms: 0,
        down: Rate::Unlimited,
        up: Rate::Unlimited,
    },
    Profile {
        name: "broadband",
        rtt_ms: 40,
        jitter_ms: 5,
        down: Rate::Kbit(20_000),
        up: Rate::Kbit(5_000),
    },
    Profile {
        name: "mobile",
        rtt_ms: 150,
        jitter_ms: 30,
        down: Rate::Kbit(1_600),
        up: Rate::Kbit(750),
    },
    Profile {
        name: "satellite",
        rtt_ms: 600,
        jitter_ms: 50,
        down: Rate::Kbit(5_000),
        up: Rate::Kbit(1_000),
    },
];

/// The profile of that name, if there is one.
pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|profile| profile.name == name)
}

/// The names of every profile, for messages.
pub fn names() -> String {
    PROFILES
        .iter()
        .map(|profile| profile.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The default burst of a link: 100 ms of its faster limited direction, at
/// least [`MIN_BURST_BYTES`]. Both directions' buckets hold that many bytes.
pub fn default_burst(down: Rate, up: Rate) -> u64 {
    let fastest = [down, up]
        .iter()
        .filter_map(|rate| rate.bytes_per_sec())
        .max()
        .unwrap_or(0);
    (fastest / 10).max(MIN_BURST_BYTES)
}

/// Values given on the command line that replace a profile's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// Round trip in ms.
    pub rtt_ms: Option<u64>,
    /// Jitter width in ms.
    pub jitter_ms: Option<u64>,
    /// Rate from upstream to client.
    pub down: Option<Rate>,
    /// Rate from client to upstream.
    pub up: Option<Rate>,
    /// Token bucket size in bytes, for both directions.
    pub burst_bytes: Option<u64>,
}

/// What the link does to data: a profile with any overrides applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The profile these settings started from.
    pub profile: &'static str,
    /// Round trip in ms.
    pub rtt_ms: u64,
    /// Jitter width in ms.
    pub jitter_ms: u64,
    /// Rate from upstream to client.
    pub down: Rate,
    /// Rate from client to upstream.
    pub up: Rate,
    /// Token bucket size in bytes, for each limited direction.
    pub burst_bytes: u64,
}

impl Settings {
    /// The profile's values, each override in place of its own. The burst,
    /// unless given, is [`default_burst`] of the resulting rates.
    pub fn resolve(profile: &Profile, overrides: &Overrides) -> Settings {
        let down = overrides.down.unwrap_or(profile.down);
        let up = overrides.up.unwrap_or(profile.up);
        Settings {
            profile: profile.name,
            rtt_ms: overrides.rtt_ms.unwrap_or(profile.rtt_ms),
            jitter_ms: overrides.jitter_ms.unwrap_or(profile.jitter_ms),
            down,
            up,
            burst_bytes: overrides
                .burst_bytes
                .unwrap_or_else(|| default_burst(down, up)),
        }
    }

    /// The round trip.
    pub fn rtt(&self) -> Duration {
        Duration::from_millis(self.rtt_ms)
    }

    /// The jitter width.
    pub fn jitter(&self) -> Duration {
        Duration::from_millis(self.jitter_ms)
    }
}

impl fmt::Display for Settings {
    /// `profile mobile: rtt 150 ms, jitter 30 ms, down 1600 kbit/s, up 750
    /// kbit/s, burst 20000 bytes`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "profile {}: rtt {} ms, jitter {} ms, down {}, up {}, burst {} bytes",
            self.profile, self.rtt_ms, self.jitter_ms, self.down, self.up, self.burst_bytes
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mobile_reads_as_the_table_says() {
        let mobile = find("mobile").expect("mobile is a profile");
        let settings = Settings::resolve(mobile, &Overrides::default());
        assert_eq!(
            settings.to_string(),
            "profile mobile: rtt 150 ms, jitter 30 ms, down 1600 kbit/s, up 750 kbit/s, burst 20000 bytes"
        );
    }

    #[test]
    fn overrides_replace_and_the_burst_follows_the_rates() {
        let mobile = find("mobile").expect("mobile is a profile");
        let overrides = Overrides {
            rtt_ms: Some(10),
            down: Some(Rate::Kbit(400)),
            up: Some(Rate::Unlimited),
            ..Overrides::default()
        };
        let settings = Settings::resolve(mobile, &overrides);
        assert_eq!(settings.rtt_ms, 10);
        assert_eq!(settings.jitter_ms, 30);
        assert_eq!(settings.down, Rate::Kbit(400));
        assert_eq!(settings.up, Rate::Unlimited);
        // 100 ms of 400 kbit/s is 5000 bytes: under the floor.
        assert_eq!(settings.burst_bytes, MIN_BURST_BYTES);

        let given = Overrides {
            burst_bytes: Some(3),
            ..overrides
        };
        assert_eq!(Settings::resolve(mobile, &given).burst_bytes, 3);
    }

    #[test]
    fn default_burst_is_a_tenth_of_a_second_of_the_faster_direction() {
        assert_eq!(
            default_burst(Rate::Kbit(20_000), Rate::Kbit(5_000)),
            250_000
        );
        assert_eq!(
            default_burst(Rate::Unlimited, Rate::Unlimited),
            MIN_BURST_BYTES
        );
    }

    #[test]
    fn rates_parse_and_refuse() {
        assert_eq!("unlimited".parse(), Ok(Rate::Unlimited));
        assert_eq!("800".parse(), Ok(Rate::Kbit(800)));
        assert_eq!(Rate::Kbit(800).bytes_per_sec(), Some(100_000));
        assert!("0".parse::<Rate>().is_err());
        assert!("-5".parse::<Rate>().is_err());
        assert!("fast".parse::<Rate>().is_err());
        assert!("100000001".parse::<Rate>().is_err());
    }

    #[test]
    fn every_name_is_found_once() {
        for profile in &PROFILES {
            assert_eq!(find(profile.name), Some(profile));
        }
        assert_eq!(find("dialup"), None);
    }
}

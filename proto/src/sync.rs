//! Where a connection stands (`Sync`, 0x10): the screen revision the frames
//! sent so far bring the client to (what it resumes from after a
//! reconnect), the last of its inputs whose echo the screen shows by now
//! (what confirms or refutes a predicted echo), and how the program's
//! terminal echoes (whether anything may be predicted at all).

use crate::limits::{MAX_COLS, MAX_ROWS};
use crate::reader::Reader;
use crate::{writer, DecodeError};

/// The server message type byte of [`Sync`].
pub(crate) const SYNC: u8 = 0x10;

/// A screen as a client holds it once it has applied every frame before
/// a `Sync`: opaque to the client, which sends it back to resume (the
/// stream's `resume` query parameter, written by [`Revision::to_query`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Revision {
    /// The screen's row generation.
    pub generation: u64,
    /// Its scroll count.
    pub scroll_count: u64,
    /// Rows pushed into its scrollback.
    pub pushes: u64,
    /// Its style table's epoch.
    pub style_epoch: u32,
    /// Its width.
    pub cols: u16,
    /// Its height.
    pub rows: u16,
}

impl Revision {
    /// As the `resume` query parameter carries it: its six numbers joined
    /// by dots.
    pub fn to_query(&self) -> String {
        format!(
            "{}.{}.{}.{}.{}.{}",
            self.generation, self.scroll_count, self.pushes, self.style_epoch, self.cols, self.rows
        )
    }

    /// A revision from its query form; `None` when it is not one.
    pub fn from_query(text: &str) -> Option<Revision> {
        let mut parts = text.split('.');
        let mut next = || parts.next()?.parse::<u64>().ok();
        let revision = Revision {
            generation: next()?,
            scroll_count: next()?,
            pushes: next()?,
            style_epoch: u32::try_from(next()?).ok()?,
            cols: u16::try_from(next()?)
                .ok()
                .filter(|c| (1..=MAX_COLS).contains(c))?,
            rows: u16::try_from(next()?)
                .ok()
                .filter(|r| (1..=MAX_ROWS).contains(r))?,
        };
        parts.next().is_none().then_some(revision)
    }
}

/// How the program's terminal echoes what is typed (its line discipline's
/// `ECHO` and `ICANON` flags), when the server can tell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Echo {
    /// The server read the terminal's flags (false: nothing is known, as
    /// for a replay).
    pub known: bool,
    /// The terminal echoes what is typed (`ECHO`).
    pub echo: bool,
    /// The terminal edits a line before the program reads it (`ICANON`):
    /// with `echo` off, a password prompt.
    pub canonical: bool,
    /// The session's profile turns prediction off (`predict = false`):
    /// nothing typed is predicted, whatever the terminal does.
    pub barred: bool,
}

/// The echo byte's flags: the state is known, the terminal echoes, it is
/// canonical, prediction is barred.
pub(crate) const KNOWN: u8 = 1;
pub(crate) const ECHOES: u8 = 2;
pub(crate) const CANONICAL: u8 = 4;
pub(crate) const BARRED: u8 = 8;

impl Echo {
    /// Whether typed keys may be predicted at all: never at a password
    /// prompt (a canonical terminal that does not echo: nothing typed is
    /// shown, for certain). A raw terminal (`canonical` off: readline, vim,
    /// ssh) echoes for itself, or does not: predicted, but shown only once
    /// the program has echoed the first key (the client's epochs). And
    /// never where the session's profile bars it.
    pub fn may_predict(&self) -> bool {
        let password_prompt = self.known && self.canonical && !self.echo;
        !(self.barred || password_prompt)
    }

    fn bits(self) -> u8 {
        (if self.known { KNOWN } else { 0 })
            | (if self.echo { ECHOES } else { 0 })
            | (if self.canonical { CANONICAL } else { 0 })
            | (if self.barred { BARRED } else { 0 })
    }

    fn from_bits(bits: u8) -> Echo {
        Echo {
            known: bits & KNOWN != 0,
            echo: bits & ECHOES != 0,
            canonical: bits & CANONICAL != 0,
            barred: bits & BARRED != 0,
        }
    }
}

/// Where the connection stands, sent after the frames it describes and
/// whenever an input's echo time has passed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sync {
    /// The screen the frames sent so far bring the client to.
    pub revision: Revision,
    /// The client's last input (numbered from the stream's `input` query
    /// parameter, one per input message) that the program has had time to
    /// echo: the screen as of this message shows its echo, if it has one.
    /// 0: none yet.
    pub input: u64,
    /// How the terminal echoes.
    pub echo: Echo,
}

impl Sync {
    /// Appends this message (type byte included).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.push(SYNC);
        let r = &self.revision;
        writer::uint(out, r.generation);
        writer::uint(out, r.scroll_count);
        writer::uint(out, r.pushes);
        writer::uint(out, r.style_epoch);
        writer::uint(out, r.cols);
        writer::uint(out, r.rows);
        writer::uint(out, self.input);
        out.push(self.echo.bits());
    }

    pub(crate) fn decode_body(r: &mut Reader<'_>) -> Result<Sync, DecodeError> {
        let revision = Revision {
            generation: r.u64()?,
            scroll_count: r.u64()?,
            pushes: r.u64()?,
            style_epoch: r.u32()?,
            cols: r.u16_in(1, MAX_COLS, "cols")?,
            rows: r.u16_in(1, MAX_ROWS, "rows")?,
        };
        let input = r.u64()?;
        let echo = Echo::from_bits(r.flags(KNOWN | ECHOES | CANONICAL | BARRED, "echo flags")?);
        Ok(Sync {
            revision,
            input,
            echo,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServerMessage;

    fn sample() -> Sync {
        Sync {
            revision: Revision {
                generation: 300,
                scroll_count: 2,
                pushes: 70000,
                style_epoch: 0,
                cols: 80,
                rows: 24,
            },
            input: 17,
            echo: Echo {
                known: true,
                echo: false,
                canonical: true,
                barred: false,
            },
        }
    }

    #[test]
    fn round_trips_and_refuses_what_is_not_one() {
        let sync = sample();
        let bytes = ServerMessage::Sync(sync).encode();
        assert_eq!(
            bytes,
            [0x10, 0xac, 0x02, 0x02, 0xf0, 0xa2, 0x04, 0x00, 0x50, 0x18, 0x11, 0x05]
        );
        assert_eq!(ServerMessage::decode(&bytes), Ok(ServerMessage::Sync(sync)));
        let mut bad_flags = bytes.clone();
        *bad_flags.last_mut().expect("a flags byte") = 0x10;
        assert!(ServerMessage::decode(&bad_flags).is_err());
        let mut zero_cols = bytes.clone();
        zero_cols[8] = 0;
        assert!(ServerMessage::decode(&zero_cols).is_err());
        assert!(ServerMessage::decode(&bytes[..bytes.len() - 1]).is_err());
    }

    #[test]
    fn a_revision_travels_in_a_query_and_back() {
        let revision = sample().revision;
        assert_eq!(revision.to_query(), "300.2.70000.0.80.24");
        assert_eq!(Revision::from_query("300.2.70000.0.80.24"), Some(revision));
        for bad in [
            "",
            "1.2.3",
            "1.2.3.4.5.6.7",
            "1.2.3.4.0.24",
            "1.2.3.4.80.x",
            "-1.2.3.4.80.24",
        ] {
            assert_eq!(Revision::from_query(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_password_prompt_is_never_predicted() {
        let echo = |echo, canonical| Echo {
            known: true,
            echo,
            canonical,
            barred: false,
        };
        assert!(!echo(false, true).may_predict(), "read -s, sudo, passwd");
        assert!(echo(true, true).may_predict(), "cat, a line-mode program");
        assert!(
            echo(false, false).may_predict(),
            "readline, vim: they echo themselves"
        );
        assert!(
            Echo::default().may_predict(),
            "unknown: predicted, confirmed first"
        );
        let barred = Echo {
            barred: true,
            ..echo(true, true)
        };
        assert!(!barred.may_predict(), "the profile says predict = false");
    }
}

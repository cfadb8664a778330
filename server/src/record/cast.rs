//! Reading asciicast v2 files, ours or any other program's (`asciinema
//! rec`): the header, then the events in time order. A last line cut off
//! by a crash is ignored, so a recording is readable up to its last whole
//! event.

use panecast_term::{Term, DEFAULT_SCROLLBACK, MAX_DIMENSION};

/// How much of the start [`looks_like_cast`] reads to tell a recording
/// from raw bytes.
pub const SNIFF: usize = 64 * 1024;

/// A file that is not a readable recording.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CastError {
    /// The first line is not an asciicast v2 header.
    #[error("not an asciicast v2 recording: {0}")]
    BadHeader(String),
    /// An event line (1-based) is malformed.
    #[error("line {line}: {message}")]
    BadEvent {
        /// The line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// The header fields a player uses.
#[derive(Debug, Clone, PartialEq)]
pub struct CastHeader {
    /// Width at the start.
    pub width: u16,
    /// Height at the start.
    pub height: u16,
    /// The title, if any.
    pub title: Option<String>,
    /// The idle time limit the recording suggests, in seconds.
    pub idle_time_limit: Option<f64>,
}

/// What happened at a moment of a recording.
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// The program wrote this.
    Output(String),
    /// This was typed.
    Input(String),
    /// The terminal took this size (columns, rows).
    Resize(u16, u16),
    /// A marker with a label.
    Marker(String),
}

/// One event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Seconds since the start; never less than the event before.
    pub time: f64,
    /// What happened.
    pub kind: EventKind,
}

/// A whole recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Cast {
    /// Its header.
    pub header: CastHeader,
    /// Its events, in time order.
    pub events: Vec<Event>,
}

/// True when `bytes` start with an asciicast v2 header line.
pub fn looks_like_cast(bytes: &[u8]) -> bool {
    let start = &bytes[..bytes.len().min(SNIFF)];
    start.first() == Some(&b'{')
        && start
            .split(|&b| b == b'\n')
            .next()
            .is_some_and(|line| parse_header(line).is_ok())
}

impl Cast {
    /// Parses a recording.
    pub fn parse(bytes: &[u8]) -> Result<Cast, CastError> {
        let mut lines = bytes.split(|&b| b == b'\n');
        let header = parse_header(lines.next().unwrap_or_default())?;
        let lines: Vec<&[u8]> = lines.collect();
        let end = lines
            .iter()
            .rposition(|line| !blank(line))
            .map_or(0, |i| i + 1);
        let mut events = Vec::new();
        let mut last = 0.0_f64;
        for (index, line) in lines[..end].iter().enumerate() {
            if blank(line) {
                continue;
            }
            match parse_event(line) {
                Ok(Some(mut event)) => {
                    event.time = event.time.max(last);
                    last = event.time;
                    events.push(event);
                }
                Ok(None) => {}
                // A crash can cut the last line short: keep what precedes it.
                Err(_) if index + 1 == end => break,
                Err(message) => {
                    return Err(CastError::BadEvent {
                        line: index + 2,
                        message,
                    })
                }
            }
        }
        Ok(Cast { header, events })
    }

    /// Seconds from the start to the last event.
    pub fn duration(&self) -> f64 {
        self.events.last().map_or(0.0, |e| e.time)
    }

    /// Shortens every pause longer than `limit` seconds to `limit`.
    pub fn limit_idle(&mut self, limit: f64) {
        let mut shift = 0.0;
        let mut previous = 0.0;
        for event in &mut self.events {
            let gap = event.time - previous;
            previous = event.time;
            if gap > limit {
                shift += gap - limit;
            }
            event.time -= shift;
        }
    }

    /// A terminal of the recording's size that has played every event up
    /// to and including `at` seconds.
    pub fn term_at(&self, at: f64) -> Term {
        let mut term = Term::new(self.header.width, self.header.height, DEFAULT_SCROLLBACK);
        for event in self.events.iter().take_while(|e| e.time <= at) {
            apply(&mut term, &event.kind);
        }
        term
    }
}

/// Plays one event on a terminal: output is fed, a resize resizes.
pub fn apply(term: &mut Term, kind: &EventKind) {
    match kind {
        EventKind::Output(text) => term.advance(text.as_bytes()),
        EventKind::Resize(cols, rows) => term.resize(*cols, *rows),
        EventKind::Input(_) | EventKind::Marker(_) => {}
    }
}

fn blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

fn parse_header(line: &[u8]) -> Result<CastHeader, CastError> {
    let value: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| CastError::BadHeader(e.to_string()))?;
    if value["version"].as_u64() != Some(2) {
        return Err(CastError::BadHeader("the header's version is not 2".into()));
    }
    let dimension = |key: &str| {
        value[key]
            .as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .filter(|n| (1..=MAX_DIMENSION).contains(n))
            .ok_or_else(|| CastError::BadHeader(format!("'{key}' is not 1 to {MAX_DIMENSION}")))
    };
    Ok(CastHeader {
        width: dimension("width")?,
        height: dimension("height")?,
        title: value["title"].as_str().map(str::to_owned),
        idle_time_limit: value["idle_time_limit"].as_f64().filter(|t| *t > 0.0),
    })
}

/// One event line; `None` for an event of a kind players ignore.
fn parse_event(line: &[u8]) -> Result<Option<Event>, String> {
    let (time, code, data): (f64, String, String) =
        serde_json::from_slice(line).map_err(|e| e.to_string())?;
    if !time.is_finite() || time < 0.0 {
        return Err(format!("bad time {time}"));
    }
    let kind = match code.as_str() {
        "o" => EventKind::Output(data),
        "i" => EventKind::Input(data),
        "m" => EventKind::Marker(data),
        "r" => {
            let size = data
                .split_once('x')
                .and_then(|(c, r)| Some((c.parse::<u16>().ok()?, r.parse::<u16>().ok()?)))
                .filter(|&(c, r)| {
                    (1..=MAX_DIMENSION).contains(&c) && (1..=MAX_DIMENSION).contains(&r)
                });
            let (cols, rows) = size.ok_or_else(|| format!("bad size '{data}'"))?;
            EventKind::Resize(cols, rows)
        }
        _ => return Ok(None),
    };
    Ok(Some(Event { time, kind }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAST: &str = concat!(
        "{\"version\": 2, \"width\": 10, \"height\": 3, \"title\": \"t\"}\n",
        "[0.5, \"o\", \"hello\"]\n",
        "[1.0, \"m\", \"here\"]\n",
        "[4.0, \"r\", \"20x4\"]\n",
        "[4.5, \"o\", \"\\r\\nworld\"]\n",
        "[5.0, \"x\", \"unknown kinds are skipped\"]\n",
    );

    fn text(term: &mut Term) -> Vec<String> {
        let snapshot = term.snapshot();
        crate::render::render(&snapshot, crate::render::Format::Text)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn parses_header_and_events() {
        let cast = Cast::parse(CAST.as_bytes()).expect("valid");
        assert_eq!((cast.header.width, cast.header.height), (10, 3));
        assert_eq!(cast.header.title.as_deref(), Some("t"));
        assert_eq!(cast.events.len(), 4);
        assert_eq!(cast.events[2].kind, EventKind::Resize(20, 4));
        assert_eq!(cast.duration(), 4.5);
        assert!(looks_like_cast(CAST.as_bytes()));
        assert!(!looks_like_cast(b"{ not json\n"));
        assert!(!looks_like_cast(b"plain text"));
    }

    #[test]
    fn the_screen_at_a_moment_has_the_events_up_to_it() {
        let cast = Cast::parse(CAST.as_bytes()).expect("valid");
        let mut early = cast.term_at(0.7);
        assert_eq!(text(&mut early)[0], "hello");
        assert_eq!(early.cols(), 10);
        let mut late = cast.term_at(10.0);
        assert_eq!(late.cols(), 20);
        assert_eq!(text(&mut late)[1], "world");
        assert_eq!(text(&mut cast.term_at(0.1))[0], "");
    }

    #[test]
    fn a_cut_last_line_is_ignored_but_a_bad_middle_line_is_an_error() {
        let cut = format!("{}[5.5, \"o\", \"unfini", CAST);
        assert_eq!(Cast::parse(cut.as_bytes()).expect("cut").events.len(), 4);
        let bad = CAST.replace("[1.0, \"m\", \"here\"]", "[1.0, oops]");
        let err = Cast::parse(bad.as_bytes()).expect_err("bad line");
        assert!(matches!(err, CastError::BadEvent { line: 3, .. }), "{err}");
        assert!(matches!(
            Cast::parse(b"{\"version\": 1}\n"),
            Err(CastError::BadHeader(_))
        ));
    }

    #[test]
    fn long_pauses_are_shortened() {
        let mut cast = Cast::parse(CAST.as_bytes()).expect("valid");
        cast.limit_idle(1.0);
        let times: Vec<f64> = cast.events.iter().map(|e| e.time).collect();
        assert_eq!(times, [0.5, 1.0, 2.0, 2.5]);
    }
}

//! Waiting for a session: until a text or a regex is on its screen, until
//! no output came for a while, or until its program ends, by a time-out.
//!
//! A wait holds one receiver of the published screens and one of the
//! status, as an idle viewer does, and runs on the caller's task: it wakes
//! when the actor publishes (at most at the pacer's rate), never polls,
//! and matches only the logical lines that changed since the screen it
//! looked at last, so a thousand waits on one session cost what a thousand
//! idle viewers do, and none of them runs on the actor.
//!
//! A screen's *revision* is its generation: every row carries the revision
//! of its last change, and a change made after a screen was published gets
//! a higher one. With `after: R`, a wait matches only rows changed after
//! revision `R`: text already on the screen at `R` does not answer it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use utoipa::ToSchema;

use super::search::{self, Pattern, SearchError};
use super::shares::{Share, Shares};
use crate::access::Credential;
use panecast_term::{Row, Snapshot};

/// How long a wait lasts when it names no `timeout_ms`, unless
/// `limits.max_wait_ms` is shorter.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What to wait for: any of `text`, `regex`, `idle_ms`, `exit`; the first
/// that holds answers.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitRequest {
    /// A text to find on the screen, case-sensitive (within a line; rows
    /// joined by a soft wrap are one line).
    pub text: Option<String>,
    /// A regular expression (`regex` crate syntax, at most 1024 bytes) to
    /// find on the screen, case-sensitive unless it says `(?i)`.
    pub regex: Option<String>,
    /// Answers once no screen was published for this long (counted from
    /// the wait's start, and again from every screen published).
    pub idle_ms: Option<u64>,
    /// `true`: answers once the program has ended.
    pub exit: Option<bool>,
    /// Answers 408 `wait_timeout` after this long; default 30000 (or
    /// `limits.max_wait_ms` if lower), at most `limits.max_wait_ms`.
    pub timeout_ms: Option<u64>,
    /// A revision (as the input route and the screen JSON give it): `text`
    /// and `regex` then match only rows changed after it.
    pub after: Option<u64>,
}

/// Which condition answered a wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Matched {
    /// The text is on the screen.
    Text,
    /// The regex matches on the screen.
    Regex,
    /// No output came for `idle_ms`.
    Idle,
    /// The program has ended.
    Exit,
}

/// Where a text or regex matched, as the search reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct At {
    /// The screen row (0 at the top) the match starts on.
    pub row: u64,
    /// Its first column on that row.
    pub start: usize,
    /// The column after it, counted from that row's first column (past
    /// the width when the match continues on the next rows).
    pub end: usize,
}

/// What answered a wait, and the screen at that moment.
#[derive(Debug, Clone)]
pub struct Waited {
    /// The condition that held.
    pub matched: Matched,
    /// Where, for `text` and `regex`.
    pub at: Option<At>,
    /// The screen it held on; its revision is `screen.generation`.
    pub screen: Arc<Snapshot>,
}

/// Why a wait gave no match.
#[derive(Debug, Clone, thiserror::Error)]
pub enum WaitError {
    /// None of `text`, `regex`, `idle_ms`, `exit: true` was given.
    #[error("give at least one of 'text', 'regex', 'idle_ms' or 'exit': true")]
    NoCondition,
    /// The text or regex cannot be searched for.
    #[error("{0}")]
    BadPattern(#[from] SearchError),
    /// `timeout_ms` is over `limits.max_wait_ms`.
    #[error("timeout_ms {asked} is over the limit of {max} ms")]
    TimeoutTooLong {
        /// What was asked.
        asked: u64,
        /// `limits.max_wait_ms`.
        max: u64,
    },
    /// `limits.max_waits_per_session` waits are open on the session.
    #[error("{0} waits are open on this session, the limit; try again later")]
    TooMany(usize),
    /// The credential holds `limits.max_waits_per_credential` waits on the
    /// session.
    #[error("this credential holds {0} waits on this session, its limit")]
    TooManyForCredential(usize),
    /// Nothing held before the time-out; the screen as it was then.
    #[error("nothing matched within the time-out")]
    TimedOut(Arc<Snapshot>),
    /// The program ended, and the wait was not for its end.
    #[error("the program ended before anything matched")]
    Exited(Arc<Snapshot>),
}

/// A wait's conditions, checked.
pub(super) struct Conditions {
    text: Option<Pattern>,
    regex: Option<Pattern>,
    idle: Option<Duration>,
    exit: bool,
    /// When it answers `TimedOut`.
    pub deadline: Instant,
    after: Option<u64>,
}

impl Conditions {
    /// `request` checked against `max_wait`, timed from now.
    pub fn new(request: &WaitRequest, max_wait: Duration) -> Result<Conditions, WaitError> {
        let text = request
            .text
            .as_deref()
            .map(|t| Pattern::new(t, false, true))
            .transpose()?;
        let regex = request
            .regex
            .as_deref()
            .map(|r| Pattern::new(r, true, true))
            .transpose()?;
        let idle = request.idle_ms.map(Duration::from_millis);
        let exit = request.exit == Some(true);
        if text.is_none() && regex.is_none() && idle.is_none() && !exit {
            return Err(WaitError::NoCondition);
        }
        let max = max_wait.as_millis() as u64;
        let timeout = match request.timeout_ms {
            Some(asked) if asked > max => return Err(WaitError::TimeoutTooLong { asked, max }),
            Some(asked) => Duration::from_millis(asked),
            None => DEFAULT_TIMEOUT.min(max_wait),
        };
        Ok(Conditions {
            text,
            regex,
            idle,
            exit,
            deadline: Instant::now() + timeout,
            after: request.after,
        })
    }

    /// When it answers `Idle` if no screen is published before.
    pub fn idle_from(&self, now: Instant) -> Option<Instant> {
        self.idle.map(|idle| now + idle)
    }

    /// True when it waits for the program's end.
    pub fn exit(&self) -> bool {
        self.exit
    }
}

/// Matches a wait's text and regex against the screens it sees, each
/// only on the lines changed since the one before.
pub(super) struct Matcher {
    /// Rows with a revision above this changed since the last screen
    /// looked at (or since `after`); `None`: every row counts.
    since: Option<u64>,
}

impl Matcher {
    /// A matcher for `conditions`.
    pub fn new(conditions: &Conditions) -> Matcher {
        Matcher {
            since: conditions.after,
        }
    }

    /// What of `conditions`' text and regex `screen` shows.
    pub fn check(&mut self, conditions: &Conditions, screen: &Snapshot) -> Option<(Matched, At)> {
        // A revision that went back (a replay sought back) changed every row.
        let since = self.since.filter(|&since| since <= screen.generation);
        self.since = Some(screen.generation);
        let changed = |row: &Row| since.is_none_or(|since| row.generation() > since);
        [
            (Matched::Text, &conditions.text),
            (Matched::Regex, &conditions.regex),
        ]
        .into_iter()
        .find_map(|(matched, pattern)| {
            let found =
                search::find_on_screen(pattern.as_ref()?, &screen.lines, screen.cols, changed)?;
            Some((
                matched,
                At {
                    row: found.line,
                    start: found.start,
                    end: found.end,
                },
            ))
        })
    }
}

/// The waits open on one session: their count, and each credential's.
#[derive(Default)]
pub(super) struct Waits {
    open: Arc<AtomicUsize>,
    by: Arc<Shares>,
}

/// One open wait's place, given back when dropped.
pub(super) struct WaitSlot {
    open: Arc<AtomicUsize>,
    _share: Option<Share>,
}

impl Drop for WaitSlot {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Waits {
    /// A place for one more wait of `who`: at most `per_session` open at
    /// once, `per_credential` of them `who`'s (the admin token has no
    /// share of its own).
    pub fn take(
        &self,
        who: &Credential,
        per_session: usize,
        per_credential: usize,
    ) -> Result<WaitSlot, WaitError> {
        let share = match who {
            Credential::Admin => None,
            _ => Some(
                self.by
                    .take(who, per_credential)
                    .ok_or(WaitError::TooManyForCredential(per_credential))?,
            ),
        };
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < per_session).then_some(n + 1)
            })
            .map_err(|_| WaitError::TooMany(per_session))?;
        Ok(WaitSlot {
            open: Arc::clone(&self.open),
            _share: share,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use panecast_term::Term;

    fn conditions(request: WaitRequest) -> Conditions {
        Conditions::new(&request, Duration::from_secs(1)).expect("valid")
    }

    #[test]
    fn after_a_revision_only_changed_lines_match_and_each_line_once() {
        let mut term = Term::new(10, 4, 100);
        term.advance(b"42\r\n");
        let before = term.snapshot();
        let waiting = conditions(WaitRequest {
            text: Some("42".into()),
            after: Some(before.generation),
            ..WaitRequest::default()
        });
        let mut matcher = Matcher::new(&waiting);
        assert_eq!(matcher.check(&waiting, &before), None, "the old 42");
        term.advance(b"x");
        assert_eq!(matcher.check(&waiting, &term.snapshot()), None);
        term.advance(b" 6*7=42");
        let (matched, at) = matcher
            .check(&waiting, &term.snapshot())
            .expect("the new 42");
        assert_eq!(
            (matched, at),
            (
                Matched::Text,
                At {
                    row: 1,
                    start: 6,
                    end: 8
                }
            )
        );
        // Without `after`, the first screen counts whole.
        let anywhere = conditions(WaitRequest {
            regex: Some(r"^\d+$".into()),
            ..WaitRequest::default()
        });
        let found = Matcher::new(&anywhere).check(&anywhere, &before);
        assert_eq!(found.map(|(m, at)| (m, at.row)), Some((Matched::Regex, 0)));
    }

    #[test]
    fn requests_are_checked() {
        let max = Duration::from_millis(100);
        let check =
            |request: WaitRequest| Conditions::new(&request, max).err().map(|e| e.to_string());
        assert!(check(WaitRequest::default()).is_some_and(|e| e.contains("at least one")));
        let long = WaitRequest {
            exit: Some(true),
            timeout_ms: Some(101),
            ..WaitRequest::default()
        };
        assert!(matches!(
            Conditions::new(&long, max),
            Err(WaitError::TimeoutTooLong {
                asked: 101,
                max: 100
            })
        ));
        let bad = WaitRequest {
            regex: Some("(".into()),
            ..WaitRequest::default()
        };
        assert!(matches!(
            Conditions::new(&bad, max),
            Err(WaitError::BadPattern(_))
        ));
    }

    #[test]
    fn waits_are_counted_per_session_and_per_credential() {
        let waits = Waits::default();
        let key = Credential::Link("a".into());
        let first = waits.take(&key, 3, 1).expect("first");
        assert!(matches!(
            waits.take(&key, 3, 1),
            Err(WaitError::TooManyForCredential(1))
        ));
        let _admin = waits
            .take(&Credential::Admin, 3, 1)
            .expect("the admin has no share");
        let _other = waits.take(&Credential::Link("b".into()), 3, 1).expect("b");
        assert!(matches!(
            waits.take(&Credential::Admin, 3, 1),
            Err(WaitError::TooMany(3))
        ));
        drop(first);
        assert!(waits.take(&key, 3, 1).is_ok(), "a's place came back");
    }
}

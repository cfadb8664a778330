//! Searching a session's scrollback and screen for a pattern.
//!
//! Rows joined by a soft wrap are searched as one logical line, so a match
//! may cross the wrap. A match is reported as the absolute number of the row
//! it starts on (see [`Found::screen_top`]), its start column there, and its
//! end column counted from that row's first column: past the width when the
//! match continues on the next rows.
//!
//! Patterns are compiled with the `regex` crate (linear-time matching, no
//! backreferences) under size limits. A search is a [`Job`] the session's
//! actor runs in slices of at most [`SEARCH_SLICE`], serving output and
//! commands between them, and it stops at a deadline counted from the
//! moment its pattern started compiling: no pattern and no scrollback can
//! hold the actor for long, nor a search run on past its deadline.

use std::time::{Duration, Instant};

use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};

use panecast_term::{Row, Term};

/// Longest pattern accepted, in bytes.
pub const MAX_PATTERN: usize = 1024;
/// Most matches one search returns.
pub const MAX_MATCHES: usize = 1000;
/// Heap a compiled pattern may take (program and lazy DFA each).
const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// How long one search may take, from the start of its pattern's
/// compilation to its answer, before it returns what it found so far.
pub const SEARCH_DEADLINE: Duration = Duration::from_millis(100);
/// Longest stretch of the actor's time one slice of a search takes.
pub const SEARCH_SLICE: Duration = Duration::from_millis(5);
/// Rows laid out between two looks at the clock.
const CLOCK_EVERY: usize = 32;
/// Bytes of text matched at once, at first; the length adapts to how long
/// a piece takes, between [`MIN_PIECE`] and [`MAX_PIECE`].
const FIRST_PIECE: usize = 16 * 1024;
/// Shortest piece of text matched at once (a slow pattern's).
const MIN_PIECE: usize = 256;
/// Longest piece of text matched at once.
const MAX_PIECE: usize = 256 * 1024;

/// Why a pattern cannot be searched for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// The pattern is empty.
    #[error("the search pattern is empty")]
    Empty,
    /// The pattern is longer than [`MAX_PATTERN`].
    #[error("the search pattern is longer than {MAX_PATTERN} bytes")]
    TooLong,
    /// The regex does not parse, or compiles to more than the size limit.
    #[error("invalid regex: {0}")]
    Invalid(String),
}

/// A compiled search pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    regex: Regex,
    /// What it was made from, to ask another node with.
    source: PatternSource,
    /// When its compilation started: the search's deadline counts from here.
    started: Instant,
}

impl Pattern {
    /// `text` as a regex when `regex`, otherwise literally; case-sensitive
    /// only when `case`.
    pub fn new(text: &str, regex: bool, case: bool) -> Result<Pattern, SearchError> {
        let started = Instant::now();
        let regex_mode = regex;
        if text.is_empty() {
            return Err(SearchError::Empty);
        }
        if text.len() > MAX_PATTERN {
            return Err(SearchError::TooLong);
        }
        let source = if regex {
            text.to_string()
        } else {
            regex::escape(text)
        };
        let regex = RegexBuilder::new(&source)
            .case_insensitive(!case)
            .multi_line(true)
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| SearchError::Invalid(e.to_string()))?;
        Ok(Pattern {
            regex,
            source: PatternSource {
                text: text.to_owned(),
                regex: regex_mode,
                case,
            },
            started,
        })
    }

    /// What the pattern was made from.
    pub fn source(&self) -> &PatternSource {
        &self.source
    }

    /// When a search for this pattern must answer: [`SEARCH_DEADLINE`]
    /// after its compilation started.
    pub fn deadline(&self) -> Instant {
        self.started + SEARCH_DEADLINE
    }
}

/// What a [`Pattern`] is made from: [`Pattern::new`]'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatternSource {
    /// The text.
    pub text: String,
    /// A regex (true) or literal text.
    pub regex: bool,
    /// Case-sensitive.
    pub case: bool,
}

/// One match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Match {
    /// Absolute number of the row the match starts on.
    pub line: u64,
    /// First column of the match on that row.
    pub start: usize,
    /// Column after the match, counted from that row's first column (more
    /// than the width when the match continues on the following rows).
    pub end: usize,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Found {
    /// The matches, oldest first.
    pub matches: Vec<Match>,
    /// True when the search stopped early: at the match limit or the deadline.
    pub truncated: bool,
    /// Absolute number of the screen's top row: scrollback line `i` (1 just
    /// above the screen) is `screen_top - i`, screen row `r` is `screen_top + r`.
    pub screen_top: u64,
    /// Absolute number of the oldest scrollback line still held.
    pub first_line: u64,
    /// The width the rows were searched at.
    pub cols: u16,
}

/// Searches `term`'s scrollback and screen, oldest first, for at most
/// `limit` matches, stopping at `deadline`: a [`Job`] run to its end at once.
pub fn search_term(term: &mut Term, pattern: &Pattern, limit: usize, deadline: Instant) -> Found {
    let mut job = Job::new(term, pattern.clone(), limit);
    job.deadline = deadline;
    while !job.step(term, deadline) {}
    job.found()
}

/// The first match of `pattern` on a screen of `cols` columns, among the
/// logical lines (rows joined by soft wraps) of which at least one row
/// holds for `changed`; its `line` is the screen row it starts on. It runs
/// on the caller's task, never the actor's: a screen is bounded by the
/// size limits and the pattern by its compiled size.
pub fn find_on_screen(
    pattern: &Pattern,
    rows: &[std::sync::Arc<Row>],
    cols: u16,
    changed: impl Fn(&Row) -> bool,
) -> Option<Match> {
    let mut text = Text::default();
    let mut start = 0;
    while start < rows.len() {
        let end = rows[start..]
            .iter()
            .position(|row| !row.is_wrapped())
            .map_or(rows.len(), |i| start + i + 1);
        let line = &rows[start..end];
        if line.iter().any(|row| changed(row)) {
            for (i, row) in line.iter().enumerate() {
                text.push(row, (start + i) as u64, usize::from(cols));
            }
        }
        start = end;
    }
    let all = 0..text.text.len();
    text.find(pattern, usize::from(cols), 1, all)
        .0
        .into_iter()
        .next()
}

/// A search under way. Each [`Job::step`] lays out the next rows of the
/// terminal as it is then (rows are numbered absolutely, so scrolling
/// between steps shifts nothing), and once every row is laid out matches
/// the text a piece at a time.
#[derive(Debug)]
pub struct Job {
    pattern: Pattern,
    limit: usize,
    deadline: Instant,
    cols: u16,
    text: Text,
    /// Absolute number of the next row to lay out, until all are.
    next: Option<u64>,
    /// Where matching resumes in the text.
    at: usize,
    /// Bytes to match in the next piece.
    piece: usize,
    matches: Vec<Match>,
    truncated: bool,
    screen_top: u64,
    first_line: u64,
    /// Time taken by the steps so far.
    spent: Duration,
}

impl Job {
    /// A search of `term` for at most `limit` matches of `pattern`, by the
    /// pattern's deadline.
    pub fn new(term: &Term, pattern: Pattern, limit: usize) -> Job {
        let screen_top = term.scrolled_since(0);
        let first_line = screen_top.saturating_sub(term.scrollback_len() as u64);
        Job {
            deadline: pattern.deadline(),
            pattern,
            limit,
            cols: term.cols(),
            text: Text::default(),
            next: Some(first_line),
            at: 0,
            piece: FIRST_PIECE,
            matches: Vec::new(),
            truncated: false,
            screen_top,
            first_line,
            spent: Duration::ZERO,
        }
    }

    /// Works on the search until `until` (or its deadline, if sooner);
    /// true once it is done and [`Job::found`] has the answer.
    pub fn step(&mut self, term: &mut Term, until: Instant) -> bool {
        let started = Instant::now();
        let until = until.min(self.deadline);
        if self.next.is_some() {
            self.lay_out(term, until);
        }
        if self.next.is_none() {
            self.find(until);
        }
        let now = Instant::now();
        self.spent += now.saturating_duration_since(started);
        if now >= self.deadline && !self.done() {
            // Out of time: what was laid out and matched is the answer.
            self.truncated = true;
            self.next = None;
            self.at = self.text.text.len();
        }
        self.done()
    }

    /// Time the steps took so far.
    pub fn spent(&self) -> Duration {
        self.spent
    }

    /// The answer: every match found, and whether the search stopped early.
    pub fn found(self) -> Found {
        Found {
            matches: self.matches,
            truncated: self.truncated,
            screen_top: self.screen_top,
            first_line: self.first_line,
            cols: self.cols,
        }
    }

    fn done(&self) -> bool {
        self.next.is_none() && self.at >= self.text.text.len()
    }

    /// Lays out rows from `next` on until the screen's last, or `until`.
    fn lay_out(&mut self, term: &mut Term, until: Instant) {
        let Some(mut next) = self.next else { return };
        if term.cols() != self.cols {
            // Resized since the search began: the rows laid out are all it searches.
            self.truncated = true;
            self.next = None;
            return;
        }
        let held = term.scrollback_len() as u64;
        let screen_top = term.scrolled_since(0);
        let first_line = screen_top.saturating_sub(held);
        // Lines dropped from the scrollback before they were reached are gone.
        next = next.max(first_line);
        let end = screen_top + u64::from(term.rows());
        let cols = usize::from(self.cols);
        let mut laid = 0;
        while next < end {
            if laid % CLOCK_EVERY == 0 && Instant::now() >= until {
                self.next = Some(next);
                return;
            }
            let row = if next < screen_top {
                term.scrollback_row((next - first_line) as usize)
            } else {
                term.row((next - screen_top) as usize).cloned()
            };
            if let Some(row) = row {
                self.text.push(&row, next, cols);
            }
            next += 1;
            laid += 1;
        }
        self.screen_top = screen_top;
        self.next = None;
    }

    /// Matches the text a piece at a time until it ends, the limit is
    /// reached, or `until`; each piece ends at a line's end where one is
    /// near, and pieces shrink while they take long.
    fn find(&mut self, until: Instant) {
        let text = &self.text.text;
        while self.at < text.len() {
            let now = Instant::now();
            if now >= until {
                return;
            }
            let end = piece_end(text, self.at, self.piece);
            let wanted = self.limit - self.matches.len();
            let (found, full) =
                self.text
                    .find(&self.pattern, usize::from(self.cols), wanted, self.at..end);
            self.matches.extend(found);
            let took = now.elapsed();
            self.piece = if took > SEARCH_SLICE / 4 {
                (self.piece / 2).max(MIN_PIECE)
            } else if took < SEARCH_SLICE / 16 {
                (self.piece * 2).min(MAX_PIECE)
            } else {
                self.piece
            };
            self.at = end;
            if full {
                self.truncated = true;
                self.at = text.len();
            }
        }
    }
}

/// Where the piece of `text` starting at `at` about `len` long ends: just
/// after the first line break at or past `at + len`, if one comes before
/// [`MAX_PIECE`] more bytes, otherwise at a character boundary there.
fn piece_end(text: &str, at: usize, len: usize) -> usize {
    let from = (at + len).min(text.len());
    let limit = (from + MAX_PIECE).min(text.len());
    match text.as_bytes()[from..limit]
        .iter()
        .position(|&b| b == b'\n')
    {
        Some(i) => from + i + 1,
        None if limit == text.len() => limit,
        None => (limit..text.len())
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(text.len()),
    }
}

/// Logical lines as one text, with what maps a byte back to a cell.
#[derive(Debug, Default)]
struct Text {
    text: String,
    lines: Vec<Logical>,
    /// (byte in `text`, column counted from the logical line's first row,
    /// width) of every character of the lines that need it.
    map: Vec<(usize, usize, usize)>,
    /// The last row pushed was soft-wrapped: the next one continues its line.
    open: bool,
}

/// One logical line of a [`Text`].
#[derive(Debug)]
struct Logical {
    /// Where it starts in the text.
    byte: usize,
    /// Absolute number of its first row.
    first: u64,
    /// Rows joined so far.
    rows: usize,
    /// Where its entries start in `map`, once a character was not one byte
    /// in one cell; until then a byte's column is its offset in the line.
    mapped: Option<usize>,
}

impl Text {
    fn push(&mut self, row: &Row, number: u64, cols: usize) {
        if !self.open {
            if !self.lines.is_empty() {
                self.text.push('\n');
            }
            self.lines.push(Logical {
                byte: self.text.len(),
                first: number,
                rows: 0,
                mapped: None,
            });
        }
        self.open = row.is_wrapped();
        let Some(line) = self.lines.last_mut() else {
            return;
        };
        let base = line.rows * cols;
        line.rows += 1;
        let cells = row.cells();
        let end = if row.is_wrapped() {
            cells.len()
        } else {
            row.trimmed_len()
        };
        for (col, cell) in cells[..end.min(cells.len())].iter().enumerate() {
            let skip = cell.width() == 0 || (row.is_wrapped() && cell.is_wide_pad());
            let simple = !skip && cell.width() == 1 && !cell.has_cluster() && cell.ch().is_ascii();
            if !simple && line.mapped.is_none() {
                // Every character so far was one byte in one cell.
                line.mapped = Some(self.map.len());
                let done = self.text.len() - line.byte;
                self.map.extend((0..done).map(|k| (line.byte + k, k, 1)));
            }
            if skip {
                continue;
            }
            if line.mapped.is_some() {
                self.map
                    .push((self.text.len(), base + col, usize::from(cell.width())));
            }
            match row.cluster(col) {
                Some(cluster) => self.text.push_str(cluster),
                None if cell.ch() == '\0' => self.text.push(' '),
                None => self.text.push(cell.ch()),
            }
        }
    }

    /// The first `limit` matches in `range` of the text (which starts at a
    /// line's start); true when there were more.
    fn find(
        &self,
        pattern: &Pattern,
        cols: usize,
        limit: usize,
        range: std::ops::Range<usize>,
    ) -> (Vec<Match>, bool) {
        let mut out = Vec::new();
        let base = range.start;
        for m in pattern.regex.find_iter(&self.text[range]) {
            if m.is_empty() {
                continue;
            }
            let (start, end) = (base + m.start(), base + m.end());
            let i = self.lines.partition_point(|l| l.byte <= start) - 1;
            let line = &self.lines[i];
            let next = self.lines.get(i + 1);
            if next.is_some_and(|n| end >= n.byte) {
                continue; // across a line break (`\s`, `[^x]`): not a match on screen
            }
            if out.len() >= limit {
                return (out, true);
            }
            let (start, end) = match line.mapped {
                None => (start - line.byte, end - line.byte),
                Some(from) => {
                    let to = next.and_then(|n| n.mapped).unwrap_or(self.map.len());
                    let entries = &self.map[from..to];
                    let at = |byte: usize| entries[entries.partition_point(|e| e.0 <= byte) - 1];
                    let (_, start, _) = at(start);
                    let (_, last, width) = at(end - 1);
                    (start, last + width)
                }
            };
            let row = start / cols;
            out.push(Match {
                line: line.first + row as u64,
                start: start - row * cols,
                end: end - row * cols,
            });
        }
        (out, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(input: &str, cols: u16, pattern: Pattern) -> Found {
        let mut term = Term::new(cols, 3, 100);
        term.advance(input.as_bytes());
        search_term(
            &mut term,
            &pattern,
            100,
            Instant::now() + Duration::from_secs(5),
        )
    }

    fn at(f: &Found) -> Vec<(u64, usize, usize)> {
        f.matches.iter().map(|m| (m.line, m.start, m.end)).collect()
    }

    #[test]
    fn finds_literals_in_scrollback_and_screen_with_absolute_lines() {
        let f = found(
            "one\r\ntwo\r\nthree one\r\nfour\r\nfive\r\nsix one",
            10,
            Pattern::new("one", false, false).unwrap(),
        );
        assert_eq!(f.screen_top, 3);
        assert_eq!(f.first_line, 0);
        assert_eq!(at(&f), vec![(0, 0, 3), (2, 6, 9), (5, 4, 7)]);
        assert!(!f.truncated);
    }

    #[test]
    fn case_and_regex_options() {
        let text = "Error: a\r\nerror: b\r\nERROR c";
        let f = found(text, 20, Pattern::new("error", false, true).unwrap());
        assert_eq!(at(&f), vec![(1, 0, 5)]);
        let f = found(text, 20, Pattern::new("error", false, false).unwrap());
        assert_eq!(f.matches.len(), 3);
        let f = found(
            text,
            20,
            Pattern::new(r"[a-z]:? [bc]$", true, false).unwrap(),
        );
        assert_eq!(at(&f), vec![(1, 4, 8), (2, 4, 7)]);
        // `^`/`$` match at line ends; nothing matches across a line break.
        let f = found(
            "one\r\ntwo",
            20,
            Pattern::new(r"one\stwo", true, false).unwrap(),
        );
        assert!(f.matches.is_empty());
        let f = found(
            "one\r\ntwo",
            20,
            Pattern::new(r"^two$", true, false).unwrap(),
        );
        assert_eq!(at(&f), vec![(1, 0, 3)]);
        // Literal mode escapes regex syntax.
        let f = found("a.c abc", 20, Pattern::new("a.c", false, true).unwrap());
        assert_eq!(at(&f), vec![(0, 0, 3)]);
    }

    #[test]
    fn matches_cross_soft_wraps_and_count_wide_cells() {
        // "hello world" wrapped at 8 columns: "hello wo" + "rld".
        let f = found(
            "hello world",
            8,
            Pattern::new("world", false, false).unwrap(),
        );
        assert_eq!(at(&f), vec![(0, 6, 11)]);
        // Wide characters take two columns each.
        let f = found("中文abc", 10, Pattern::new("abc", false, false).unwrap());
        assert_eq!(at(&f), vec![(0, 4, 7)]);
        let f = found("x中文", 10, Pattern::new("中文", false, false).unwrap());
        assert_eq!(at(&f), vec![(0, 1, 5)]);
    }

    #[test]
    fn a_job_resumes_after_output_by_absolute_line() {
        let mut term = Term::new(10, 3, 100);
        term.advance(b"one\r\ntwo\r\nthree");
        let pattern = Pattern::new("o", false, false).unwrap();
        let mut job = Job::new(&term, pattern, 100);
        assert!(!job.step(&mut term, Instant::now()), "no time: not done");
        // Output scrolls the screen between two steps.
        term.advance(b"\r\nfour\r\nfive one");
        while !job.step(&mut term, Instant::now() + Duration::from_secs(5)) {}
        let f = job.found();
        assert_eq!(at(&f), vec![(0, 0, 1), (1, 2, 3), (3, 1, 2), (4, 5, 6)]);
        assert_eq!(f.screen_top, 2);
        assert!(!f.truncated);
    }

    #[test]
    fn limits_and_bad_patterns() {
        let f = {
            let mut term = Term::new(10, 3, 100);
            term.advance(b"aaaaa");
            search_term(
                &mut term,
                &Pattern::new("a", false, false).unwrap(),
                2,
                Instant::now() + Duration::from_secs(5),
            )
        };
        assert_eq!(f.matches.len(), 2);
        assert!(f.truncated);
        let mut term = Term::new(10, 3, 100);
        term.advance(b"abc");
        let past = search_term(
            &mut term,
            &Pattern::new("a", false, false).unwrap(),
            10,
            Instant::now(),
        );
        assert!(past.truncated, "a passed deadline stops the search");
        assert_eq!(
            Pattern::new("", false, false).unwrap_err(),
            SearchError::Empty
        );
        assert_eq!(
            Pattern::new(&"a".repeat(MAX_PATTERN + 1), false, false).unwrap_err(),
            SearchError::TooLong
        );
        assert!(matches!(
            Pattern::new("(", true, false),
            Err(SearchError::Invalid(_))
        ));
        assert!(
            matches!(
                Pattern::new(r"\w{1000}{1000}", true, false),
                Err(SearchError::Invalid(_))
            ),
            "over the size limit"
        );
        // Empty matches are skipped.
        let f = found("abc", 10, Pattern::new("x*", true, false).unwrap());
        assert!(f.matches.is_empty());
    }
}

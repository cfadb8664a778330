//! Searching a session's scrollback and screen for a pattern.
//!
//! Rows joined by a soft wrap are searched as one logical line, so a match
//! may cross the wrap. A match is reported as the absolute number of the row
//! it starts on (see [`Found::screen_top`]), its start column there, and its
//! end column counted from that row's first column: past the width when the
//! match continues on the next rows.
//!
//! Patterns are compiled with the `regex` crate (linear-time matching, no
//! backreferences) under size limits, and a search stops at a deadline, so
//! no pattern and no scrollback can hold the session's actor for long.

use std::time::{Duration, Instant};

use regex::{Regex, RegexBuilder};
use serde::Serialize;

use crate::term::{Row, Term};

/// Longest pattern accepted, in bytes.
pub const MAX_PATTERN: usize = 1024;
/// Most matches one search returns.
pub const MAX_MATCHES: usize = 1000;
/// Heap a compiled pattern may take (program and lazy DFA each).
const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// How long one search may run before it returns what it found so far.
pub const SEARCH_DEADLINE: Duration = Duration::from_millis(100);
/// Rows between two looks at the clock.
const CLOCK_EVERY: usize = 256;

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
}

impl Pattern {
    /// `text` as a regex when `regex`, otherwise literally; case-sensitive
    /// only when `case`.
    pub fn new(text: &str, regex: bool, case: bool) -> Result<Pattern, SearchError> {
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
        Ok(Pattern { regex })
    }
}

/// One match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
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
/// `limit` matches, stopping at `deadline`.
pub fn search_term(term: &mut Term, pattern: &Pattern, limit: usize, deadline: Instant) -> Found {
    let held = term.scrollback_len();
    let screen_top = term.scrolled_since(0);
    let first_line = screen_top.saturating_sub(held as u64);
    let screen: Vec<Row> = (0..usize::from(term.rows()))
        .filter_map(|r| term.row(r).cloned())
        .collect();
    // Scrollback rows are built one at a time, as the search reaches them.
    let rows = (0..held)
        .map_while(|i| term.scrollback_row(i))
        .chain(screen);
    let (matches, truncated) = search_rows(rows, first_line, term.cols(), pattern, limit, deadline);
    Found {
        matches,
        truncated,
        screen_top,
        first_line,
        cols: term.cols(),
    }
}

/// Searches `rows` (the first one numbered `first_line`, all `cols` wide) for
/// at most `limit` matches; true when it stopped early.
///
/// The rows are joined into one text, a logical line (rows joined by soft
/// wraps) per text line, and the pattern runs over it once: one scan instead
/// of one per line, with the regex crate's literal prefilters.
pub fn search_rows(
    rows: impl IntoIterator<Item = Row>,
    first_line: u64,
    cols: u16,
    pattern: &Pattern,
    limit: usize,
    deadline: Instant,
) -> (Vec<Match>, bool) {
    let mut text = Text::default();
    let mut late = false;
    for (index, row) in rows.into_iter().enumerate() {
        if index % CLOCK_EVERY == 0 && Instant::now() >= deadline {
            late = true;
            break;
        }
        text.push(&row, first_line + index as u64, usize::from(cols));
    }
    let (matches, full) = text.find(pattern, usize::from(cols), limit);
    (matches, late || full)
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

    /// The first `limit` matches; true when there were more.
    fn find(&self, pattern: &Pattern, cols: usize, limit: usize) -> (Vec<Match>, bool) {
        let mut out = Vec::new();
        for m in pattern.regex.find_iter(&self.text) {
            if m.is_empty() {
                continue;
            }
            let i = self.lines.partition_point(|l| l.byte <= m.start()) - 1;
            let line = &self.lines[i];
            let next = self.lines.get(i + 1);
            if next.is_some_and(|n| m.end() >= n.byte) {
                continue; // across a line break (`\s`, `[^x]`): not a match on screen
            }
            if out.len() >= limit {
                return (out, true);
            }
            let (start, end) = match line.mapped {
                None => (m.start() - line.byte, m.end() - line.byte),
                Some(from) => {
                    let to = next.and_then(|n| n.mapped).unwrap_or(self.map.len());
                    let entries = &self.map[from..to];
                    let at = |byte: usize| entries[entries.partition_point(|e| e.0 <= byte) - 1];
                    let (_, start, _) = at(m.start());
                    let (_, last, width) = at(m.end() - 1);
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

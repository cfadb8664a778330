//! Predictive local echo, as the web client's `predict.js` (its notes:
//! web/README.md, "Prediction"): what a key will do to the line the cursor
//! is on, shown before the program echoes it, and judged against the
//! screen once the server says the program has had time to echo it
//! (`Sync`'s input number, PROTOCOL.md).
//!
//! As mosh does: predictions belong to epochs, and an epoch's predictions
//! show only once the program has echoed one of them (the first of each
//! epoch waits for its echo). A new epoch begins at a key whose effect
//! cannot be foreseen (Enter, control keys), and when a prediction proves
//! wrong; so a password typed at a prompt that does not echo is never
//! shown, even where the terminal's modes cannot tell (a remote one,
//! through ssh). Where they can (a canonical terminal without ECHO), or
//! where the session's profile bars it, nothing is predicted. Pure logic:
//! the caller says what was sent and what the screen shows.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use panecast_proto::Echo;

use super::keys::Effect;
use super::screen::Screen;

/// Predictions show once the smoothed round trip exceeds this (ms)...
pub const SHOW_ABOVE_MS: f64 = 30.0;
/// ...and stop once it falls below this (ms).
pub const HIDE_BELOW_MS: f64 = 20.0;
/// Cells predicted at once, at most: more are not predicted.
const MAX_CELLS: usize = 1024;
/// Effects remembered until judged, at most (to predict again from a new
/// base); more in flight are not predicted.
const MAX_EFFECTS: usize = 512;

/// When predictions show (`--predict`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// When the measured round trip is long enough to matter (over 30 ms).
    #[default]
    Auto,
    /// Whatever the round trip.
    Always,
    /// Never.
    Never,
}

/// A cell as predicted.
#[derive(Clone, Debug)]
struct Predicted {
    /// What it shows.
    text: String,
    /// The style of the cell it sits on (or of the one left of it).
    style: u32,
    /// The input that made it.
    seq: u64,
    epoch: u64,
    /// What the screen showed there before any prediction.
    original: String,
}

/// The cursor as predicted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cursor {
    row: u16,
    col: u16,
    seq: u64,
    epoch: u64,
}

/// One row of the screen, column by column: each column's text (empty for
/// the right half of a wide cell), width and style.
struct Row<'a> {
    text: Vec<&'a str>,
    width: Vec<u8>,
    style: Vec<u32>,
}

impl<'a> Row<'a> {
    /// Row `row` of `screen`, if it has one.
    fn of(screen: &'a Screen, row: u16) -> Option<Row<'a>> {
        let line = screen.lines.get(usize::from(row))?;
        let cols = usize::from(screen.cols);
        let mut out = Row {
            text: vec![" "; cols],
            width: vec![1; cols],
            style: vec![line.fill(); cols],
        };
        for cell in line.cells() {
            let col = usize::from(cell.col);
            if col >= cols {
                break;
            }
            out.text[col] = cell.text;
            out.width[col] = cell.width;
            out.style[col] = cell.style;
            if cell.width == 2 && col + 1 < cols {
                out.text[col + 1] = "";
                out.width[col + 1] = 0;
                out.style[col + 1] = cell.style;
            }
        }
        Some(out)
    }
}

/// A prediction shown: where, what, and the style of the cell under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// Its row.
    pub row: u16,
    /// Its column.
    pub col: u16,
    /// Its text.
    pub text: String,
    /// The screen's style id there.
    pub style: u32,
}

/// The predictions of one attach.
#[derive(Debug)]
pub struct Predictor {
    mode: Mode,
    epoch: u64,
    /// The latest epoch one of whose predictions was echoed.
    confirmed: u64,
    /// By (row, col).
    cells: BTreeMap<(u16, u16), Predicted>,
    cursor: Option<Cursor>,
    /// Where typing on the cursor's line began (Backspace and Left stop there).
    floor: Option<(u16, u16)>,
    /// The effects of the inputs sent and not yet judged, oldest first.
    effects: VecDeque<(u64, Effect)>,
    /// An input whose effect was not foreseen: the next predictions start
    /// from the screen once it is judged.
    wait: u64,
    /// The last input judged.
    judged: u64,
    echo: Echo,
    /// The smoothed round trip (ms), once measured.
    srtt: Option<f64>,
    /// The round trip is long enough for predictions to show.
    slow: bool,
    /// Rows whose shown predictions changed.
    touched: BTreeSet<u16>,
}

impl Predictor {
    /// A predictor in `mode`.
    pub fn new(mode: Mode) -> Predictor {
        Predictor {
            mode,
            epoch: 1,
            confirmed: 0,
            cells: BTreeMap::new(),
            cursor: None,
            floor: None,
            effects: VecDeque::new(),
            wait: 0,
            judged: 0,
            echo: Echo::default(),
            srtt: None,
            slow: false,
            touched: BTreeSet::new(),
        }
    }

    /// Whether typed keys may be predicted at all (the setting, a password
    /// prompt, the profile).
    fn allowed(&self) -> bool {
        self.mode != Mode::Never && self.echo.may_predict()
    }

    /// Whether predictions show at this round trip.
    fn showing(&self) -> bool {
        match self.mode {
            Mode::Auto => self.slow,
            Mode::Always => true,
            Mode::Never => false,
        }
    }

    /// The smoothed round trip (ms), once measured.
    pub fn srtt(&self) -> Option<f64> {
        self.srtt
    }

    /// A round-trip sample (ms): predictions show above
    /// [`SHOW_ABOVE_MS`], not below [`HIDE_BELOW_MS`].
    pub fn rtt(&mut self, ms: f64) {
        let srtt = self.srtt.map_or(ms, |s| s + (ms - s) / 8.0);
        self.srtt = Some(srtt);
        let was = self.showing();
        if srtt > SHOW_ABOVE_MS {
            self.slow = true;
        } else if srtt < HIDE_BELOW_MS {
            self.slow = false;
        }
        if was != self.showing() {
            self.touch_all();
        }
    }

    /// The echo state a `Sync` brought; a prompt that will not echo drops
    /// every prediction.
    pub fn set_echo(&mut self, echo: Echo) {
        self.echo = echo;
        if !self.allowed() {
            self.drop_all();
        }
    }

    /// Input `seq` was sent (or held), with `effects`, on `screen`.
    pub fn input(&mut self, seq: u64, effects: &[Effect], screen: &Screen) {
        let effects: Vec<&Effect> = effects.iter().filter(|e| **e != Effect::Neutral).collect();
        if effects.is_empty() {
            return;
        }
        self.effects
            .extend(effects.iter().map(|&e| (seq, e.clone())));
        if self.effects.len() > MAX_EFFECTS {
            // Too many in flight to predict from: start again once this
            // one is judged.
            self.effects.clear();
            self.unforeseen(seq);
            return;
        }
        // Until the last unforeseen input is judged the base is not known:
        // these are predicted then, from the screen (rebase).
        if self.judged < self.wait {
            return;
        }
        for effect in effects {
            if !self.predict(seq, effect, screen) {
                return;
            }
        }
    }

    /// Predicts one effect; false (and a new epoch) when it cannot be
    /// foreseen.
    fn predict(&mut self, seq: u64, effect: &Effect, screen: &Screen) -> bool {
        if !self.allowed() || self.cells.len() >= MAX_CELLS {
            return self.unforeseen(seq);
        }
        let (row, col) = match self.cursor {
            Some(c) => (c.row, c.col),
            None if screen.cursor.visible => (screen.cursor.row, screen.cursor.col),
            None => return self.unforeseen(seq),
        };
        let Some(line) = Row::of(screen, row) else {
            return self.unforeseen(seq);
        };
        if line.width.iter().any(|&w| w != 1) {
            // Wide characters: not foreseen.
            return self.unforeseen(seq);
        }
        let cols = i32::from(screen.cols);
        let mut col = i32::from(col);
        if col >= cols {
            return self.unforeseen(seq);
        }
        let shown: Vec<String> = (0..screen.cols)
            .map(|c| self.cell_text(row, c, &line).to_owned())
            .collect();
        let at = |c: i32| shown[c as usize].as_str();
        // The last column that is not blank, -1 if none.
        let end = (0..cols).rev().find(|&c| at(c) != " ").unwrap_or(-1);
        let floor = self.floor.filter(|f| f.0 == row).map(|f| i32::from(f.1));
        let mut sets: Vec<(i32, String)> = Vec::new();
        match effect {
            Effect::Char(ch) => {
                if col >= cols - 1 {
                    // The line would wrap.
                    return self.unforeseen(seq);
                }
                if floor.is_none() {
                    self.floor = Some((row, col as u16));
                }
                // The program inserts: what is right of the cursor moves right.
                let mut c = (end + 1).min(cols - 1);
                while c > col {
                    sets.push((c, at(c - 1).to_owned()));
                    c -= 1;
                }
                sets.push((col, ch.to_string()));
                col += 1;
            }
            Effect::Backspace => {
                if floor.is_none_or(|f| col <= f) {
                    return self.unforeseen(seq);
                }
                col -= 1;
                for c in col..=end.max(col) {
                    let next = if c + 1 < cols { at(c + 1) } else { " " };
                    sets.push((c, next.to_owned()));
                }
            }
            Effect::Left => {
                if floor.is_none_or(|f| col <= f) {
                    return self.unforeseen(seq);
                }
                col -= 1;
            }
            Effect::Right => {
                if col > end || col + 1 >= cols {
                    return self.unforeseen(seq);
                }
                col += 1;
            }
            Effect::Neutral | Effect::Other => return self.unforeseen(seq),
        }
        for (c, text) in sets {
            self.set(row, c as u16, text, &line, seq);
        }
        self.cursor = Some(Cursor {
            row,
            col: col as u16,
            seq,
            epoch: self.epoch,
        });
        self.touched.insert(row);
        true
    }

    /// Predicts `text` at (`row`, `col`), made by input `seq`.
    fn set(&mut self, row: u16, col: u16, text: String, line: &Row<'_>, seq: u64) {
        let c = usize::from(col);
        let style = [line.style[c], line.style[c.saturating_sub(1)]]
            .into_iter()
            .find(|&s| s != 0)
            .unwrap_or(0);
        let original = match self.cells.get(&(row, col)) {
            Some(old) => old.original.clone(),
            None => line.text[c].to_owned(),
        };
        self.cells.insert(
            (row, col),
            Predicted {
                text,
                style,
                seq,
                epoch: self.epoch,
                original,
            },
        );
    }

    /// A key whose effect is not foreseen: a new epoch, and no prediction
    /// until it is judged.
    fn unforeseen(&mut self, seq: u64) -> bool {
        self.epoch += 1;
        self.wait = self.wait.max(seq);
        self.cursor = None;
        self.floor = None;
        false
    }

    /// A `Sync` says inputs up to `input` have had time to echo on
    /// `screen`: judges what they predicted.
    pub fn judge(&mut self, input: u64, screen: &Screen) {
        if input <= self.judged {
            return;
        }
        let blocked = self.judged < self.wait;
        self.judged = input;
        while self.effects.front().is_some_and(|(seq, _)| *seq <= input) {
            self.effects.pop_front();
        }
        // The inputs whose predictions were wrong.
        let mut wrong = BTreeSet::new();
        let judged: Vec<(u16, u16)> = self
            .cells
            .iter()
            .filter(|(_, p)| p.seq <= input)
            .map(|(&at, _)| at)
            .collect();
        let mut rows = BTreeMap::new();
        let confirmed = self.confirmed;
        for (row, col) in judged {
            let Some(p) = self.cells.remove(&(row, col)) else {
                continue;
            };
            self.touched.insert(row);
            let line = rows.entry(row).or_insert_with(|| Row::of(screen, row));
            let actual = line.as_ref().and_then(|l| l.text.get(usize::from(col)));
            if actual.is_some_and(|a| *a == p.text) {
                // A cell that already showed what was predicted proves nothing.
                if p.original != p.text {
                    self.confirmed = self.confirmed.max(p.epoch);
                }
            } else {
                wrong.insert(p.seq);
            }
        }
        // The cursor is the last input's: once judged, the screen's is right.
        if let Some(c) = self.cursor.filter(|c| c.seq <= input) {
            if (screen.cursor.row, screen.cursor.col) != (c.row, c.col) {
                wrong.insert(c.seq);
            }
            self.cursor = None;
        }
        if self.confirmed != confirmed {
            // Predictions of that epoch not yet judged show from now.
            self.touch_all();
        }
        if !wrong.is_empty() {
            // Wrong: all go, and the next must be echoed before any shows.
            self.epoch += 1;
            self.rebase(screen);
        } else if blocked && self.judged >= self.wait {
            self.rebase(screen);
        }
    }

    /// Predicts again, from `screen`, what the inputs not yet judged will do.
    fn rebase(&mut self, screen: &Screen) {
        self.drop_all();
        let effects = self.effects.clone();
        for (seq, effect) in &effects {
            if !self.predict(*seq, effect, screen) {
                return;
            }
        }
    }

    /// Every prediction goes.
    fn drop_all(&mut self) {
        self.touch_all();
        self.cells.clear();
        self.cursor = None;
    }

    /// The screen moved under the predictions (scrolled, resized,
    /// replaced): they go, and are made again from it, in a new epoch.
    pub fn reset(&mut self, screen: &Screen) {
        self.epoch += 1;
        self.floor = None;
        self.rebase(screen);
    }

    /// Whether predictions of `epoch` show now.
    fn shows(&self, epoch: u64) -> bool {
        self.showing() && self.allowed() && epoch <= self.confirmed
    }

    /// The text shown at (`row`, `col`): a prediction, or the screen's.
    fn cell_text<'a>(&'a self, row: u16, col: u16, line: &Row<'a>) -> &'a str {
        match self.cells.get(&(row, col)) {
            Some(p) => &p.text,
            None => line.text[usize::from(col)],
        }
    }

    /// The predictions shown now, by row and column.
    pub fn shown(&self) -> Vec<Shown> {
        self.cells
            .iter()
            .filter(|(_, p)| self.shows(p.epoch))
            .map(|(&(row, col), p)| Shown {
                row,
                col,
                text: p.text.clone(),
                style: p.style,
            })
            .collect()
    }

    /// The cursor as predicted, when it shows: (row, column).
    pub fn shown_cursor(&self) -> Option<(u16, u16)> {
        self.cursor
            .filter(|c| self.shows(c.epoch))
            .map(|c| (c.row, c.col))
    }

    fn touch_all(&mut self) {
        self.touched.extend(self.cells.keys().map(|&(row, _)| row));
        if let Some(c) = self.cursor {
            self.touched.insert(c.row);
        }
    }

    /// Rows whose shown predictions changed since the last call.
    pub fn take_touched(&mut self) -> BTreeSet<u16> {
        std::mem::take(&mut self.touched)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use panecast_proto as proto;

    /// A 10x2 screen showing `rows`, the cursor at (`row`, `col`).
    fn screen(rows: [&str; 2], cursor: (u16, u16)) -> Screen {
        let mut screen = Screen::default();
        let line = |text: &str| {
            proto::Line::from_cells(
                10,
                false,
                text.split("").filter(|s| !s.is_empty()).map(|c| (c, 1, 0)),
            )
            .expect("a line")
        };
        screen.frame(proto::Frame {
            cols: 10,
            rows: 2,
            full: true,
            cursor: proto::Cursor {
                row: cursor.0,
                col: cursor.1,
                visible: true,
                ..proto::Cursor::default()
            },
            lines: rows
                .iter()
                .enumerate()
                .map(|(r, text)| proto::FrameLine {
                    row: r as u16,
                    line: line(text),
                })
                .collect(),
            ..proto::Frame::default()
        });
        screen
    }

    fn echo(echo: bool, canonical: bool) -> Echo {
        Echo {
            known: true,
            echo,
            canonical,
            barred: false,
        }
    }

    fn texts(p: &Predictor) -> Vec<(u16, u16, String)> {
        p.shown()
            .into_iter()
            .map(|s| (s.row, s.col, s.text))
            .collect()
    }

    /// A predictor on a slow link at a raw prompt.
    fn slow() -> Predictor {
        let mut p = Predictor::new(Mode::Auto);
        p.rtt(150.0);
        p.set_echo(echo(false, false));
        p
    }

    #[test]
    fn the_first_key_of_an_epoch_waits_for_its_echo_and_the_next_show_at_once() {
        let mut p = slow();
        let s = screen(["$ ", ""], (0, 2));
        p.input(1, &[Effect::Char('a')], &s);
        assert!(texts(&p).is_empty(), "not confirmed yet");
        assert_eq!(p.shown_cursor(), None);
        let echoed = screen(["$ a", ""], (0, 3));
        p.judge(1, &echoed);
        p.input(2, &[Effect::Char('b')], &echoed);
        assert_eq!(texts(&p), [(0, 3, "b".to_owned())]);
        assert_eq!(p.shown_cursor(), Some((0, 4)));
        assert!(p.take_touched().contains(&0));
        // Backspace and Left stop where typing began; inserting shifts.
        p.input(3, &[Effect::Left, Effect::Char('x')], &echoed);
        assert_eq!(texts(&p), [(0, 3, "x".to_owned()), (0, 4, "b".to_owned())]);
        p.input(4, &[Effect::Backspace], &echoed);
        assert_eq!(texts(&p), [(0, 3, "b".to_owned()), (0, 4, " ".to_owned())]);
        assert_eq!(p.shown_cursor(), Some((0, 3)));
    }

    #[test]
    fn a_wrong_prediction_is_erased_and_starts_an_epoch() {
        let mut p = slow();
        let s = screen(["$ ", ""], (0, 2));
        p.input(1, &[Effect::Char('a')], &s);
        let echoed = screen(["$ a", ""], (0, 3));
        p.judge(1, &echoed);
        p.input(2, &[Effect::Char('b')], &echoed);
        assert_eq!(texts(&p).len(), 1);
        // The program did something else (a completion, a bell).
        let other = screen(["$ a", ""], (0, 3));
        p.judge(2, &other);
        assert!(texts(&p).is_empty(), "erased");
        p.input(3, &[Effect::Char('c')], &other);
        assert!(texts(&p).is_empty(), "a new epoch waits for its echo");
    }

    #[test]
    fn enter_starts_an_epoch_and_keys_after_it_wait_for_its_judgement() {
        let mut p = slow();
        let s = screen(["$ ab", ""], (0, 4));
        p.input(1, &[Effect::Char('c')], &s);
        p.judge(1, &screen(["$ abc", ""], (0, 5)));
        p.input(2, &[Effect::Other], &s);
        p.input(3, &[Effect::Char('s')], &s);
        assert!(texts(&p).is_empty());
        // A password prompt on the next line that does not echo.
        let prompt = screen(["$ abc", "pw: "], (1, 4));
        p.judge(2, &prompt);
        assert!(
            texts(&p).is_empty(),
            "predicted from the new screen, unshown"
        );
        p.input(4, &[Effect::Char('e')], &prompt);
        p.judge(4, &prompt);
        p.input(5, &[Effect::Char('t')], &prompt);
        assert!(texts(&p).is_empty(), "never echoed: never shown");
    }

    #[test]
    fn nothing_is_predicted_at_a_password_prompt_or_when_barred_or_off() {
        let s = screen(["$ ", ""], (0, 2));
        let echoed = screen(["$ a", ""], (0, 3));
        let barred = Echo {
            barred: true,
            ..echo(true, true)
        };
        for (mode, echo) in [
            (Mode::Auto, echo(false, true)),
            (Mode::Always, barred),
            (Mode::Never, echo(true, true)),
        ] {
            let mut p = Predictor::new(mode);
            p.rtt(150.0);
            p.set_echo(echo);
            p.input(1, &[Effect::Char('a')], &s);
            p.judge(1, &echoed);
            p.input(2, &[Effect::Char('b')], &echoed);
            assert!(texts(&p).is_empty(), "{mode:?} {echo:?}");
        }
    }

    #[test]
    fn predictions_show_only_on_a_slow_link_unless_always() {
        let s = screen(["$ ", ""], (0, 2));
        let echoed = screen(["$ a", ""], (0, 3));
        for (mode, rtt, shows) in [
            (Mode::Auto, 5.0, false),
            (Mode::Auto, 40.0, true),
            (Mode::Always, 1.0, true),
        ] {
            let mut p = Predictor::new(mode);
            p.rtt(rtt);
            p.input(1, &[Effect::Char('a')], &s);
            p.judge(1, &echoed);
            p.input(2, &[Effect::Char('b')], &echoed);
            assert_eq!(!texts(&p).is_empty(), shows, "{mode:?} at {rtt} ms");
        }
        let mut p = slow();
        p.input(1, &[Effect::Char('a')], &s);
        p.judge(1, &echoed);
        p.input(2, &[Effect::Char('b')], &echoed);
        for _ in 0..40 {
            p.rtt(1.0);
        }
        assert!(texts(&p).is_empty(), "the link became fast");
    }

    #[test]
    fn a_screen_that_moves_drops_the_predictions_and_makes_them_again() {
        let mut p = slow();
        let s = screen(["$ ", ""], (0, 2));
        p.input(1, &[Effect::Char('a')], &s);
        p.judge(1, &screen(["$ a", ""], (0, 3)));
        p.input(2, &[Effect::Char('b')], &screen(["$ a", ""], (0, 3)));
        // Scrolled: the prompt is on row 1 now.
        let scrolled = screen(["x", "$ a"], (1, 3));
        p.reset(&scrolled);
        assert!(texts(&p).is_empty(), "a new epoch");
        p.judge(2, &screen(["x", "$ ab"], (1, 4)));
        p.input(3, &[Effect::Char('c')], &screen(["x", "$ ab"], (1, 4)));
        assert_eq!(texts(&p), [(1, 4, "c".to_owned())]);
    }
}

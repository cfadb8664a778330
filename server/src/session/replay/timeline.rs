//! A recording prepared for seeking: its events (long pauses shortened),
//! its markers, and keyframes, copies of the terminal taken every few
//! seconds of recording time (or every MiB of output) as the file is played
//! once. A seek copies the nearest keyframe before the target and plays
//! only the events between.
//!
//! Memory is bounded: keyframes together take at most
//! [`KEYFRAME_BUDGET`] bytes (estimated from each copy's screen and
//! scrollback). When a recording needs more, every other keyframe is
//! dropped and the spacing doubles, so a longer file gets fewer, sparser
//! keyframes and a seek plays a little more.

use std::mem::size_of;

use crate::record::{apply, Cast, Event, EventKind};
use panecast_term::{Cell, Term};

/// Scrollback lines a replay keeps (each keyframe copies them).
pub const REPLAY_SCROLLBACK: usize = 1000;
/// Recording time between keyframes, at first.
const KEYFRAME_SECONDS: f64 = 5.0;
/// Output between keyframes, at first, in bytes.
const KEYFRAME_OUTPUT: usize = 1 << 20;
/// Most bytes all keyframes may take together.
pub const KEYFRAME_BUDGET: usize = 32 << 20;

/// A copy of the terminal after the first `next` events.
struct Keyframe {
    time: f64,
    next: usize,
    bytes: usize,
    term: Term,
}

/// A marker of the recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// Seconds from the start (pauses shortened).
    pub time: f64,
    /// Its label.
    pub label: String,
}

/// A recording ready to be played from any moment.
pub struct Timeline {
    events: Vec<Event>,
    keyframes: Vec<Keyframe>,
    markers: Vec<Marker>,
    duration: f64,
    size: (u16, u16),
}

impl Timeline {
    /// Plays `cast` once to take its keyframes, with pauses longer than
    /// `idle_limit` seconds shortened to it.
    pub fn new(cast: Cast, idle_limit: Option<f64>) -> Timeline {
        // Never cancelled, so always prepared.
        Timeline::prepare(cast, idle_limit, || false).expect("not cancelled")
    }

    /// As [`Timeline::new`], but gives up (`None`) as soon as `cancelled`
    /// says so; it is asked before each event is played, so a viewer that
    /// leaves stops the work at once.
    pub fn prepare(
        cast: Cast,
        idle_limit: Option<f64>,
        cancelled: impl Fn() -> bool,
    ) -> Option<Timeline> {
        Timeline::with_budget(cast, idle_limit, KEYFRAME_BUDGET, cancelled)
    }

    fn with_budget(
        mut cast: Cast,
        idle_limit: Option<f64>,
        budget: usize,
        cancelled: impl Fn() -> bool,
    ) -> Option<Timeline> {
        if let Some(limit) = idle_limit.filter(|l| *l > 0.0) {
            cast.limit_idle(limit);
        }
        let markers = cast
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Marker(label) => Some(Marker {
                    time: e.time,
                    label: label.clone(),
                }),
                _ => None,
            })
            .collect();
        let size = (cast.header.width, cast.header.height);
        let mut timeline = Timeline {
            duration: cast.duration(),
            events: cast.events,
            keyframes: Vec::new(),
            markers,
            size,
        };
        timeline.take_keyframes(budget, cancelled)?;
        Some(timeline)
    }

    /// Plays the events once, keeping keyframes; `None` once cancelled.
    fn take_keyframes(&mut self, budget: usize, cancelled: impl Fn() -> bool) -> Option<()> {
        let mut term = self.blank();
        let mut spacing = 1.0;
        let (mut last_time, mut output) = (0.0, 0);
        let mut keyframes = vec![Keyframe::of(&term, 0.0, 0)];
        for (index, event) in self.events.iter().enumerate() {
            if cancelled() {
                return None;
            }
            play(&mut term, &event.kind);
            if let EventKind::Output(text) = &event.kind {
                output += text.len();
            }
            let due = event.time - last_time >= KEYFRAME_SECONDS * spacing
                || output as f64 >= KEYFRAME_OUTPUT as f64 * spacing;
            if due {
                keyframes.push(Keyframe::of(&term, event.time, index + 1));
                (last_time, output) = (event.time, 0);
                if total_bytes(&keyframes) > budget {
                    thin(&mut keyframes);
                    spacing *= 2.0;
                }
            }
        }
        self.keyframes = keyframes;
        Some(())
    }

    /// A terminal at the recording's first size.
    fn blank(&self) -> Term {
        Term::new(self.size.0, self.size.1, REPLAY_SCROLLBACK)
    }

    /// The terminal at `at` seconds (clamped to the recording), and the
    /// index of the first event after it.
    pub fn seek(&self, at: f64) -> (Term, usize) {
        let at = at.clamp(0.0, self.duration);
        let nearest = self
            .keyframes
            .partition_point(|k| k.time <= at)
            .saturating_sub(1);
        let (mut term, mut next) = match self.keyframes.get(nearest) {
            Some(keyframe) => (keyframe.term.clone(), keyframe.next),
            None => (self.blank(), 0),
        };
        next = self.play_until(&mut term, next, at);
        (term, next)
    }

    /// Plays the events from `next` up to and including `at` seconds;
    /// returns the index of the first event not played.
    pub fn play_until(&self, term: &mut Term, mut next: usize, at: f64) -> usize {
        while let Some(event) = self.events.get(next).filter(|e| e.time <= at) {
            play(term, &event.kind);
            next += 1;
        }
        next
    }

    /// The time of event `index`, if there is one.
    pub fn time_of(&self, index: usize) -> Option<f64> {
        self.events.get(index).map(|e| e.time)
    }

    /// Seconds from the start to the last event.
    pub fn duration(&self) -> f64 {
        self.duration
    }

    /// The markers, in time order.
    pub fn markers(&self) -> &[Marker] {
        &self.markers
    }

    /// How many keyframes are kept.
    pub fn keyframe_count(&self) -> usize {
        self.keyframes.len()
    }

    /// The estimated bytes the keyframes take.
    pub fn keyframe_bytes(&self) -> usize {
        total_bytes(&self.keyframes)
    }
}

fn total_bytes(keyframes: &[Keyframe]) -> usize {
    keyframes.iter().map(|k| k.bytes).sum()
}

/// Drops every other keyframe (never the first, at the start).
fn thin(keyframes: &mut Vec<Keyframe>) {
    let mut index = 0;
    keyframes.retain(|_| {
        index += 1;
        index % 2 == 1
    });
}

impl Keyframe {
    fn of(term: &Term, time: f64, next: usize) -> Keyframe {
        let screen = usize::from(term.cols()) * usize::from(term.rows()) * size_of::<Cell>();
        Keyframe {
            time,
            next,
            // Both screens (main and alternate) and the scrollback.
            bytes: 2 * screen + term.scrollback_heap_bytes(),
            term: term.clone(),
        }
    }
}

/// Plays one event; the answers a program would have been sent are dropped.
fn play(term: &mut Term, kind: &EventKind) {
    apply(term, kind);
    drop(term.take_replies());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The screen as text to compare: each cell's character and style,
    /// and the cursor.
    fn text_of(term: &mut Term) -> String {
        let mut text = String::new();
        for r in 0..usize::from(term.rows()) {
            let cells = term.row(r).map(|row| row.cells().to_vec());
            for cell in cells.unwrap_or_default() {
                let style = term.style_now(cell.style()).1;
                text.push_str(&format!("{}{style:?}", cell.ch()));
            }
            text.push('\n');
        }
        text + &format!("{:?}", term.snapshot().cursor)
    }

    /// Numbered coloured lines, one event per line, 0.1 s apart, with an
    /// escape sequence cut across events now and then.
    fn numbered(lines: usize) -> Cast {
        let mut text = String::from("{\"version\": 2, \"width\": 40, \"height\": 5}\n");
        for i in 0..lines {
            let t = i as f64 / 10.0;
            if i % 7 == 3 {
                text.push_str(&format!("[{t}, \"o\", \"\\u001b[3\"]\n"));
                text.push_str(&format!("[{t}, \"o\", \"2mline {i}\\r\\n\"]\n"));
            } else {
                text.push_str(&format!("[{t}, \"o\", \"\\u001b[33mline {i}\\r\\n\"]\n"));
            }
            if i % 50 == 0 {
                text.push_str(&format!("[{t}, \"m\", \"at {i}\"]\n"));
            }
        }
        Cast::parse(text.as_bytes()).expect("valid cast")
    }

    #[test]
    fn preparing_stops_as_soon_as_it_is_cancelled() {
        let asked = std::cell::Cell::new(0);
        let cancelled = || {
            asked.set(asked.get() + 1);
            asked.get() > 10
        };
        assert!(Timeline::prepare(numbered(400), None, cancelled).is_none());
        assert_eq!(asked.get(), 11, "it stopped at the first answer yes");
        assert!(Timeline::prepare(numbered(40), None, || false).is_some());
    }

    #[test]
    fn a_seek_shows_what_playing_from_the_start_shows() {
        let cast = numbered(400);
        let timeline = Timeline::new(cast.clone(), None);
        assert!(
            timeline.keyframe_count() > 5,
            "{}",
            timeline.keyframe_count()
        );
        for at in [0.0, 0.35, 5.0, 5.05, 12.3, 20.0, 33.3, 39.9, 100.0] {
            let (mut sought, _) = timeline.seek(at);
            assert_eq!(
                text_of(&mut sought),
                text_of(&mut cast.term_at(at)),
                "at {at}"
            );
        }
    }

    #[test]
    fn a_keyframe_taken_inside_a_sequence_or_a_character_is_exact() {
        let stream: &[u8] = b"plain \x1b[31mred\x1b]0;a title\x07 \xe4\xb8\xad \x1bP$qm\x1b\\ done";
        for cut in 0..stream.len() {
            let mut whole = Term::new(20, 3, 10);
            whole.advance(&stream[..cut]);
            let mut keyframe = whole.clone();
            whole.advance(&stream[cut..]);
            keyframe.advance(&stream[cut..]);
            assert_eq!(text_of(&mut keyframe), text_of(&mut whole), "cut at {cut}");
            assert_eq!(keyframe.title(), whole.title(), "cut at {cut}");
            assert_eq!(
                keyframe.take_replies(),
                whole.take_replies(),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn markers_and_duration_follow_the_shortened_pauses() {
        let text = concat!(
            "{\"version\": 2, \"width\": 10, \"height\": 2}\n",
            "[1.0, \"o\", \"a\"]\n",
            "[9.0, \"m\", \"late\"]\n",
        );
        let timeline = Timeline::new(Cast::parse(text.as_bytes()).expect("cast"), Some(2.0));
        assert_eq!(timeline.duration(), 3.0);
        assert_eq!(
            timeline.markers(),
            [Marker {
                time: 3.0,
                label: "late".into()
            }]
        );
    }

    #[test]
    fn keyframes_stay_within_the_budget_and_seeks_stay_exact() {
        // 4 MB of output in 1 KiB events: a keyframe per MiB, each about
        // 100 KB (a 200x50 screen twice and up to 1000 scrollback lines).
        let line = format!("\u{1b}[3{}m{}\r\n", 1, "x".repeat(1000));
        let mut text = String::from("{\"version\": 2, \"width\": 200, \"height\": 50}\n");
        for i in 0..4000 {
            let event = (i as f64 / 1000.0, "o", format!("{i} {line}"));
            text.push_str(&serde_json::to_string(&event).expect("json"));
            text.push('\n');
        }
        let cast = Cast::parse(text.as_bytes()).expect("cast");
        let roomy = Timeline::new(cast.clone(), None);
        assert_eq!(roomy.keyframe_count(), 4, "the start and one per MiB");
        let tight = Timeline::with_budget(cast.clone(), None, roomy.keyframe_bytes() / 2, || false)
            .expect("not cancelled");
        assert!(tight.keyframe_count() < roomy.keyframe_count());
        assert!(tight.keyframe_bytes() <= roomy.keyframe_bytes() / 2);
        for at in [1.5, 3.999] {
            let (mut sought, _) = tight.seek(at);
            assert_eq!(
                text_of(&mut sought),
                text_of(&mut cast.term_at(at)),
                "at {at}"
            );
        }
    }
}

//! Scrollback answers, indexed from the screen the viewer was last sent,
//! and as bytes for another node of a cluster.

use std::sync::Arc;

use panecast_proto::limits::{MAX_SCROLLBACK_ANSWER_CELLS, MAX_SCROLLBACK_LINES};
use panecast_proto::{DecodeError, Scrollback, ServerMessage, Style, StyleDef, Styles};

use super::images::placed_images;
use super::lines::{encode_row, wire_style_linked};
use panecast_term::image::Image;
use panecast_term::{StyleId, Term};

/// Scrollback lines and the screen they were counted from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScrollbackLines {
    /// The lines, indexed from the terminal's screen when they were read.
    pub answer: Scrollback,
    /// That screen's scroll count ([`Snapshot::scroll_count`]), to re-index
    /// the answer for a viewer that was sent another screen.
    ///
    /// [`Snapshot::scroll_count`]: panecast_term::Snapshot::scroll_count
    pub scroll_count: u64,
    /// The styles the lines use, as the terminal defined them when they
    /// were read: (id, stamp, style). A viewer is sent those it lacks first.
    pub styles: StampedStyles,
    /// The pictures the lines place that the session still holds (on a
    /// cluster's mirror, those the mirror holds). A viewer is sent those
    /// it lacks first.
    pub images: Vec<Arc<Image>>,
}

/// Scrollback lines `start .. start + count` of `term`, counted up from
/// the screen (1 is the line just above it), laid out at the current width;
/// no more than [`MAX_SCROLLBACK_ANSWER_CELLS`] cells of them, so that one
/// answer holds the session up briefly (the client asks again for the rest).
pub fn answer(term: &Term, start: u64, count: u16) -> ScrollbackLines {
    let total = term.scrollback_len() as u64;
    let cols = term.cols();
    let start = start.max(1);
    let per_answer = (MAX_SCROLLBACK_ANSWER_CELLS / usize::from(cols.max(1))).max(1);
    let count = u64::from(count.min(MAX_SCROLLBACK_LINES)).min(per_answer as u64);
    let rows: Vec<_> = (start..start.saturating_add(count))
        .take_while(|&i| i <= total)
        .filter_map(|i| term.scrollback_row((total - i) as usize))
        .collect();
    let lines: Vec<_> = rows.iter().map(|row| encode_row(row, cols)).collect();
    let images = placed_images(&lines, &term.images());
    let mut ids: Vec<u16> = lines
        .iter()
        .flat_map(|line| {
            let runs = line.runs().iter().map(|run| run.style as u16);
            runs.chain([line.fill() as u16])
        })
        .filter(|&id| id != 0)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let styles = ids
        .into_iter()
        .map(|id| {
            let (stamp, style, link) = term.style_now(StyleId(id));
            (id, stamp, wire_style_linked(&style, link))
        })
        .collect();
    ScrollbackLines {
        styles,
        images,
        answer: Scrollback {
            total,
            start,
            cols,
            lines,
        },
        scroll_count: term.scrolled_since(0),
    }
}

/// A scrollback answer's lines and the styles they use, as the protocol's
/// `Scrollback` and `Styles` messages (so that decoding another node's
/// answer checks every line as a client's decoder would), with each
/// style's stamp.
pub fn encode_answer(answer: &Scrollback, styles: &[(u16, u32, Style)]) -> (Vec<u8>, Vec<u8>) {
    let lines = ServerMessage::Scrollback(answer.clone()).encode();
    let defs = Styles {
        reset: false,
        epoch: 0,
        defs: styles
            .iter()
            .map(|(id, _, style)| StyleDef {
                id: u32::from(*id),
                style: style.clone(),
            })
            .collect(),
    };
    (lines, ServerMessage::Styles(defs).encode())
}

/// Styles with their stamps, as a scrollback answer carries them: (id,
/// stamp, style).
pub type StampedStyles = Vec<(u16, u32, Style)>;

/// Bytes that are not an [`encode_answer`] answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// A message does not decode.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The messages decode but are not an answer.
    #[error("not a scrollback answer: {0}")]
    Shape(&'static str),
}

/// The answer [`encode_answer`] encoded, its styles given back their
/// `stamps` (in the same order); an error for bytes that are not one.
pub fn decode_answer(
    lines: &[u8],
    styles: &[u8],
    stamps: &[u32],
) -> Result<(Scrollback, StampedStyles), AnswerError> {
    let ServerMessage::Scrollback(answer) = ServerMessage::decode(lines)? else {
        return Err(AnswerError::Shape("not a scrollback answer"));
    };
    let ServerMessage::Styles(defs) = ServerMessage::decode(styles)? else {
        return Err(AnswerError::Shape("not style definitions"));
    };
    if defs.defs.len() != stamps.len() {
        return Err(AnswerError::Shape("a stamp for each style"));
    }
    let styles = defs
        .defs
        .into_iter()
        .zip(stamps)
        .map(|(def, stamp)| {
            u16::try_from(def.id)
                .map(|id| (id, *stamp, def.style))
                .map_err(|_| AnswerError::Shape("a style id over 16 bits"))
        })
        .collect::<Result<_, _>>()?;
    Ok((answer, styles))
}

/// Re-indexes `answer`, read when the terminal's scroll count was `read_at`,
/// for a viewer whose last frame showed the screen at scroll count `shown`
/// (PROTOCOL.md: indices count from the screen of the last frame sent).
///
/// If the screen scrolled `d` more lines before the viewer's frame, line
/// `i` of the answer is line `i + d` for the viewer. If the viewer's frame
/// is older by `d` lines, those lines are still on its screen: the answer
/// loses the ones that would get an index below 1.
pub fn rebase_scrollback(mut answer: Scrollback, read_at: u64, shown: u64) -> Scrollback {
    if shown >= read_at {
        let d = shown - read_at;
        answer.start = answer.start.saturating_add(d);
        answer.total = answer.total.saturating_add(d);
        return answer;
    }
    let d = read_at - shown;
    // Line k has index start + k - d for the viewer: keep those >= 1.
    let on_screen = (d + 1)
        .saturating_sub(answer.start)
        .min(answer.lines.len() as u64);
    answer.lines.drain(..on_screen as usize);
    answer.start = (answer.start + on_screen).saturating_sub(d).max(1);
    answer.total = answer.total.saturating_sub(d);
    answer
}

#[cfg(test)]
mod tests {
    /// A terminal `cols` wide with `lines` lines of scrollback.
    fn with_scrollback(cols: u16, lines: usize) -> Term {
        let mut term = Term::new(cols, 10, 10_000);
        for i in 0..lines + 10 {
            term.advance(format!("line {i}\r\n").as_bytes());
        }
        term
    }

    #[test]
    fn one_scrollback_answer_holds_at_most_its_cells() {
        let wide = super::answer(&with_scrollback(1000, 500), 1, 1000);
        assert_eq!(wide.answer.lines.len(), 65, "65 lines of 1000 cells");
        let narrow = super::answer(&with_scrollback(80, 500), 1, 1000);
        assert!(narrow.answer.total >= 500);
        assert_eq!(
            narrow.answer.lines.len() as u64,
            narrow.answer.total,
            "all of them at 80 columns"
        );
    }

    use super::*;
    use panecast_proto::Line;

    fn answer(start: u64, lines: &[&str]) -> Scrollback {
        Scrollback {
            total: 100,
            start,
            cols: 10,
            lines: lines
                .iter()
                .map(|t| Line::from_cells(10, false, [(*t, 1, 0)]).expect("a line"))
                .collect(),
        }
    }

    #[test]
    fn answers_cross_nodes_whole() {
        let red = Style {
            fg: panecast_proto::Color::Indexed(1),
            ..Style::default()
        };
        let styles = vec![(3, 77, red)];
        let sent = answer(2, &["x", "yz"]);
        let (lines, defs) = encode_answer(&sent, &styles);
        assert_eq!(decode_answer(&lines, &defs, &[77]), Ok((sent, styles)));
        assert!(decode_answer(&defs, &lines, &[77]).is_err());
        assert!(decode_answer(&lines, &defs, &[]).is_err());
        assert!(decode_answer(&lines[..lines.len() - 1], &defs, &[77]).is_err());
    }

    #[test]
    fn the_same_screen_changes_nothing() {
        assert_eq!(
            rebase_scrollback(answer(3, &["a", "b"]), 7, 7),
            answer(3, &["a", "b"])
        );
    }

    #[test]
    fn a_newer_frame_shifts_the_indices_up() {
        let rebased = rebase_scrollback(answer(3, &["a", "b"]), 7, 10);
        assert_eq!(
            (rebased.start, rebased.total, rebased.lines.len()),
            (6, 103, 2)
        );
    }

    #[test]
    fn an_older_frame_drops_the_lines_still_on_its_screen() {
        // Read 2 lines later than the viewer's screen: the answer's lines 1
        // and 2 are rows of that screen; 3 and 4 are its scrollback 1 and 2.
        let rebased = rebase_scrollback(answer(1, &["a", "b", "c", "d"]), 9, 7);
        assert_eq!(
            (rebased.start, rebased.total, rebased.lines.len()),
            (1, 98, 2)
        );
        assert_eq!(rebased.lines, answer(3, &["c", "d"]).lines);
        let none = rebase_scrollback(answer(1, &["a"]), 9, 7);
        assert_eq!((none.start, none.lines.len()), (1, 0));
        let later = rebase_scrollback(answer(5, &["e"]), 9, 7);
        assert_eq!((later.start, later.lines.len()), (3, 1));
    }
}

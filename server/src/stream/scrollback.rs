//! Scrollback answers, indexed from the screen the viewer was last sent.

use panecast_proto::Scrollback;

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

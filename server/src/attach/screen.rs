//! The client's copy of the session's screen, built only from what the
//! server sent, as PROTOCOL.md "Applying a frame" says: the rows as wire
//! lines, the style definitions, the cursor, the modes and the title.

use std::collections::HashMap;

use panecast_proto::{self as proto, Frame};

/// The session's screen as this client knows it.
#[derive(Debug, Default)]
pub struct Screen {
    /// Width of the last frame.
    pub cols: u16,
    /// Height of the last frame.
    pub rows: u16,
    /// The rows, top to bottom; a blank row is the empty line.
    pub lines: Vec<proto::Line>,
    /// Style definitions received (id 0, the default, is never defined).
    pub styles: HashMap<u32, proto::Style>,
    /// The cursor of the last frame.
    pub cursor: proto::Cursor,
    /// The modes of the last frame.
    pub modes: proto::Modes,
    /// The title.
    pub title: String,
}

/// What a frame changed, for the painter.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Every row must be drawn again (a full frame, a new size).
    pub full: bool,
    /// Rows the screen scrolled up before the sent rows were applied.
    pub scroll: u16,
    /// Lines went into the session's scrollback.
    pub pushed: bool,
    /// The rows sent, in order.
    pub rows: Vec<u16>,
    /// The title changed.
    pub title: bool,
}

impl Screen {
    /// Takes `Styles`.
    pub fn styles(&mut self, styles: proto::Styles) {
        if styles.reset {
            self.styles.clear();
        }
        for def in styles.defs {
            self.styles.insert(def.id, def.style);
        }
    }

    /// Applies a frame and says what it changed.
    pub fn frame(&mut self, frame: Frame) -> Changes {
        let rows = usize::from(frame.rows);
        let mut changes = Changes::default();
        if frame.full || frame.cols != self.cols || frame.rows != self.rows {
            self.cols = frame.cols;
            self.rows = frame.rows;
            self.lines = vec![proto::Line::default(); rows];
            changes.full = true;
        } else if frame.scroll > 0 {
            let n = (frame.scroll as usize).min(rows);
            self.lines.drain(..n);
            self.lines.resize(rows, proto::Line::default());
            changes.scroll = n as u16;
        }
        changes.pushed = !changes.full && frame.pushed > 0;
        for sent in frame.lines {
            if let Some(slot) = self.lines.get_mut(usize::from(sent.row)) {
                *slot = sent.line;
                changes.rows.push(sent.row);
            }
        }
        self.cursor = frame.cursor;
        self.modes = frame.modes;
        if let Some(title) = frame.title {
            changes.title = title != self.title;
            self.title = title;
        }
        changes
    }

    /// The style with id `id`; `None` for 0 (the default) or an unknown id.
    pub fn style(&self, id: u32) -> Option<&proto::Style> {
        self.styles.get(&id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> proto::Line {
        proto::Line::from_cells(
            10,
            false,
            text.split("").filter(|s| !s.is_empty()).map(|c| (c, 1, 0)),
        )
        .expect("a line")
    }

    fn frame(full: bool, scroll: u32, lines: &[(u16, &str)]) -> Frame {
        Frame {
            cols: 10,
            rows: 3,
            full,
            scroll,
            lines: lines
                .iter()
                .map(|&(row, text)| proto::FrameLine {
                    row,
                    line: line(text),
                })
                .collect(),
            ..Frame::default()
        }
    }

    #[test]
    fn frames_replace_sent_rows_and_scroll_the_others() {
        let mut screen = Screen::default();
        let changes = screen.frame(frame(true, 0, &[(0, "a"), (1, "b"), (2, "c")]));
        assert!(changes.full);
        let changes = screen.frame(frame(false, 1, &[(2, "d")]));
        assert_eq!(
            (changes.full, changes.scroll, changes.rows),
            (false, 1, vec![2])
        );
        assert!(!changes.pushed, "the frame says of none");
        let texts: Vec<&str> = screen.lines.iter().map(|l| l.text()).collect();
        assert_eq!(texts, ["b", "c", "d"]);
    }
}

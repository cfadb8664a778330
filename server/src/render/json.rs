//! The screen JSON described in the corpus README: size, cursor, alternate
//! flag, title, the lines as text and the non-default style runs.

use serde::{Deserialize, Serialize};

use panecast_term::{Snapshot, StyleId};

/// The cursor position in the screen JSON.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct CursorJson {
    /// Zero-based row.
    pub row: u16,
    /// Zero-based column.
    pub col: u16,
}

/// The screen JSON.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct ScreenJson {
    /// Width.
    pub cols: u16,
    /// Height.
    pub rows: u16,
    /// Cursor position.
    pub cursor: CursorJson,
    /// True while the alternate screen is shown.
    pub alternate: bool,
    /// Window title.
    pub title: String,
    /// Each row's text.
    pub lines: Vec<String>,
    /// Each row's runs of non-default style: `[start, end_exclusive, style]`.
    pub styles: Vec<Vec<(usize, usize, String)>>,
    /// The image placements visible, bottom first (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageJson>,
}

/// An image placement in the screen JSON.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct ImageJson {
    /// The placement's id, unique in the session.
    pub placement: u32,
    /// The image's content hash (32 hex digits).
    pub image: String,
    /// The placement's top row (negative when it starts above the screen)
    /// and left column.
    pub row: i32,
    /// Left column.
    pub col: u16,
    /// The visible rows that show it, first and last.
    pub first_row: u16,
    /// Last visible row showing it.
    pub last_row: u16,
    /// Its size on the terminal in pixels (cells of 8 x 17).
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The part of the image shown: `[x, y, width, height]` in its pixels.
    pub src: [u32; 4],
    /// Its z-index: below 0 under the text.
    pub z: i32,
}

impl ScreenJson {
    /// Builds the JSON value of a snapshot.
    pub fn from_snapshot(snapshot: &Snapshot) -> ScreenJson {
        let styles = snapshot
            .lines
            .iter()
            .map(|line| {
                let mut runs: Vec<(usize, usize, String)> = Vec::new();
                for (start, end, id) in line.style_runs() {
                    if id == StyleId::DEFAULT {
                        continue;
                    }
                    let name = snapshot.style(id).describe();
                    if name.is_empty() {
                        continue;
                    }
                    match runs.last_mut() {
                        Some(last) if last.1 == start && last.2 == name => last.1 = end,
                        _ => runs.push((start, end, name)),
                    }
                }
                runs
            })
            .collect();
        ScreenJson {
            cols: snapshot.cols,
            rows: snapshot.rows,
            cursor: CursorJson {
                row: snapshot.cursor.row,
                col: snapshot.cursor.col,
            },
            alternate: snapshot.alternate,
            title: snapshot.title.to_string(),
            lines: snapshot.lines.iter().map(|l| l.text()).collect(),
            styles,
            images: snapshot
                .placements()
                .iter()
                .map(|p| {
                    let src = p.slice.src();
                    let (width, height) = p.slice.size();
                    ImageJson {
                        placement: p.id,
                        image: p.image.to_string(),
                        row: p.top,
                        col: p.slice.col(),
                        first_row: p.first_row,
                        last_row: p.last_row,
                        width,
                        height,
                        src: [src.x, src.y, src.w, src.h],
                        z: p.slice.z(),
                    }
                })
                .collect(),
        }
    }
}

/// The screen JSON as one line.
pub fn render(snapshot: &Snapshot) -> String {
    // Serializing plain structs of strings and numbers cannot fail.
    serde_json::to_string(&ScreenJson::from_snapshot(snapshot)).expect("screen JSON serializes")
}

/// The screen JSON with its revision, as the API answers it.
#[derive(Serialize, Debug, Clone)]
pub struct RevisedScreen {
    /// The screen's revision (see `session::wait`).
    pub revision: u64,
    /// The screen.
    #[serde(flatten)]
    pub screen: ScreenJson,
}

impl RevisedScreen {
    /// The screen JSON of `snapshot` with its revision.
    pub fn of(snapshot: &Snapshot) -> RevisedScreen {
        RevisedScreen {
            revision: snapshot.generation,
            screen: ScreenJson::from_snapshot(snapshot),
        }
    }

    /// As one line of JSON.
    pub fn render(&self) -> String {
        // Serializing plain structs of strings and numbers cannot fail.
        serde_json::to_string(self).expect("screen JSON serializes")
    }
}

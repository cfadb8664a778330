//! Plain text: one line per row, trailing blanks trimmed. A cell an image
//! covers and no text fills reads U+FFFC (OBJECT REPLACEMENT CHARACTER), so
//! a program sees where images are.

use super::images::MARKER;
use super::markup::cell_text;
use panecast_term::{Row, Snapshot};

/// The visible rows as text, each ending in a newline.
pub fn render(snapshot: &Snapshot) -> String {
    let mut out = String::new();
    for line in &snapshot.lines {
        if line.has_images() {
            out.push_str(&with_markers(line));
        } else {
            out.push_str(&line.text());
        }
        out.push('\n');
    }
    out
}

/// A row's text with [`MARKER`] in the blank cells its images cover.
fn with_markers(row: &Row) -> String {
    let mut covered = vec![false; row.cells().len()];
    for slice in row.images() {
        let (a, b) = slice.visible();
        for c in covered.iter_mut().take(b as usize).skip(a as usize) {
            *c = true;
        }
    }
    let mut out = String::new();
    let mut buf = [0; 4];
    for (col, &image) in covered.iter().enumerate() {
        match cell_text(row, col, &mut buf) {
            " " if image => out.push(MARKER),
            text => out.push_str(text),
        }
    }
    out.truncate(out.trim_end_matches(' ').len());
    out
}

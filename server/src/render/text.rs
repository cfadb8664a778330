//! Plain text: one line per row, trailing blanks trimmed.

use crate::term::Snapshot;

/// The visible rows as text, each ending in a newline.
pub fn render(snapshot: &Snapshot) -> String {
    let mut out = String::new();
    for line in &snapshot.lines {
        out.push_str(&line.text());
        out.push('\n');
    }
    out
}

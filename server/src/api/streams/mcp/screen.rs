//! The screen as `read_screen` answers it in text: one line per row, with
//! [`CURSOR`] inserted where the cursor is.

use unicode_width::UnicodeWidthChar;

use panecast_term::Snapshot;

/// The cursor's mark: inserted before the character under the cursor, so
/// the rest of that row shifts right by one column.
pub const CURSOR: char = '█';

/// The visible rows as text (trailing blanks trimmed, as
/// `GET .../screen?format=text`), the cursor's row marked with [`CURSOR`].
pub fn marked(snapshot: &Snapshot) -> String {
    let lines: Vec<String> = snapshot.lines.iter().map(|line| line.text()).collect();
    mark(
        lines,
        snapshot.cursor.row.into(),
        snapshot.cursor.col.into(),
    )
}

/// `lines` joined, each ending in a newline, with the mark at cell
/// column `col` of row `row` (padded with spaces when the row's text ends
/// before it).
fn mark(mut lines: Vec<String>, row: usize, col: usize) -> String {
    if let Some(line) = lines.get_mut(row) {
        let mut width = 0;
        let mut at = line.len();
        for (offset, c) in line.char_indices() {
            if width >= col {
                at = offset;
                break;
            }
            width += c.width().unwrap_or(0);
        }
        if at == line.len() && width < col {
            line.extend(std::iter::repeat_n(' ', col - width));
            at = line.len();
        }
        line.insert(at, CURSOR);
    }
    let mut out = String::new();
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(rows: &[&str]) -> Vec<String> {
        rows.iter().map(|r| (*r).to_owned()).collect()
    }

    #[test]
    fn marks_the_cursor_in_text_and_past_its_end() {
        assert_eq!(mark(lines(&[">>> 42", ">>> "]), 1, 4), ">>> 42\n>>> █\n");
        assert_eq!(mark(lines(&["ab", ""]), 0, 1), "a█b\n\n");
        assert_eq!(mark(lines(&["ab"]), 0, 5), "ab   █\n");
        assert_eq!(mark(lines(&[""]), 0, 0), "█\n");
    }

    #[test]
    fn counts_columns_not_characters() {
        // A wide character takes two columns: column 2 is after it.
        assert_eq!(mark(lines(&["日x"]), 0, 2), "日█x\n");
    }

    #[test]
    fn a_cursor_below_the_rows_marks_nothing() {
        assert_eq!(mark(lines(&["a"]), 3, 0), "a\n");
    }
}

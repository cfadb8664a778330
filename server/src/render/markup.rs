//! Helpers shared by the HTML and SVG renderers: escaping, the text of a
//! cell and how much of a row is worth painting.

use panecast_term::{Row, Snapshot, Style};

/// Appends `c` escaped for XML and HTML text and attribute values. Characters
/// XML 1.0 forbids (C0 controls other than tab, LF and CR, U+FFFE, U+FFFF)
/// become U+FFFD so the output always parses.
pub fn escape_char(out: &mut String, c: char) {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        '\'' => out.push_str("&#39;"),
        '\t' | '\n' | '\r' => out.push(c),
        '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
        _ => out.push(c),
    }
}

/// Appends `text` escaped (see [`escape_char`]).
pub fn escape(out: &mut String, text: &str) {
    text.chars().for_each(|c| escape_char(out, c));
}

/// The text the cell at `col` shows, unescaped: its cluster, its character, a
/// space for an empty cell, or nothing for the right half of a wide character.
pub fn cell_text<'a>(row: &'a Row, col: usize, buf: &'a mut [u8; 4]) -> &'a str {
    let Some(cell) = row.cells().get(col) else {
        return "";
    };
    if cell.width() == 0 {
        return "";
    }
    if let Some(cluster) = row.cluster(col) {
        return cluster;
    }
    match cell.ch() {
        '\0' => " ",
        c => c.encode_utf8(buf),
    }
}

/// Columns of `row` worth painting: up to the last cell that shows text or
/// has a non-default style (a coloured background, say).
pub fn visible_len(snapshot: &Snapshot, row: &Row) -> usize {
    row.cells()
        .iter()
        .rposition(|c| !c.is_empty() || snapshot.style(c.style()) != Style::default())
        .map_or(0, |i| i + 1)
}

/// The schemes a link may have to be followed: the one policy of the html and
/// svg renderers and the web client (`LINK_SCHEMES` in `web/terminal.js`; a
/// test keeps the two equal).
pub const LINK_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// True when `uri`'s scheme is one of [`LINK_SCHEMES`]. Anything else
/// (`javascript:`, `data:`, `file:`, no scheme) is refused.
pub fn is_safe_link(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else {
        return false;
    };
    LINK_SCHEMES.iter().any(|s| s.eq_ignore_ascii_case(scheme))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_forbidden_characters() {
        let mut out = String::new();
        escape(&mut out, "<a href=\"x\">&'\u{1}\u{ffff}é</a>");
        assert_eq!(
            out,
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\u{fffd}\u{fffd}é&lt;/a&gt;"
        );
    }

    #[test]
    fn only_known_schemes_are_links() {
        assert!(is_safe_link("https://example.com/?a=1&b=2"));
        assert!(is_safe_link("HTTP://example.com"));
        assert!(is_safe_link("mailto:a@example.com"));
        assert!(!is_safe_link("file:///etc/hosts"));
        assert!(!is_safe_link("ftp://example.com"));
        assert!(!is_safe_link("javascript:alert(1)"));
        assert!(!is_safe_link(" javascript:alert(1)"));
        assert!(!is_safe_link("java\tscript:alert(1)"));
        assert!(!is_safe_link("data:text/html,x"));
        assert!(!is_safe_link("example.com"));
    }

    #[test]
    fn cell_text_covers_every_kind_of_cell() {
        let mut term = panecast_term::Term::new(10, 1, 0);
        term.advance("a中e\u{301}\x1b[C".as_bytes());
        term.advance(b"b");
        let snapshot = term.snapshot();
        let row = &snapshot.lines[0];
        let mut buf = [0; 4];
        let texts: Vec<String> = (0..7)
            .map(|c| cell_text(row, c, &mut buf).to_string())
            .collect();
        assert_eq!(texts, ["a", "中", "", "e\u{301}", " ", "b", " "]);
        assert_eq!(visible_len(&snapshot, row), 6);
    }
}

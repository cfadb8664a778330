//! Grapheme clustering against Unicode's own emoji test data: every
//! fully-qualified emoji and component of `emoji-test.txt` (Emoji 15.0), every
//! unqualified one and a quarter of the minimally-qualified ones, printed with
//! mode 2027 set (whole, and one code point per write, as a program's output
//! may arrive) and without it. The expected columns are in
//! `tests/emoji/emoji-widths.txt`, made by `tests/emoji/generate.py` from the
//! Unicode data files (see there for the rule they follow).

use std::path::Path;

use panecast_term::Term;

/// One case: the emoji, its status, and the columns it takes with mode 2027
/// and without it.
struct Case {
    text: String,
    status: String,
    clustered: u16,
    plain: u16,
}

fn cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emoji/emoji-widths.txt");
    let data = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    data.lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split(';').collect();
            assert_eq!(fields.len(), 4, "bad case line {line:?}");
            let text = fields[0]
                .split(' ')
                .map(|hex| {
                    let cp = u32::from_str_radix(hex, 16).expect("hex code point");
                    char::from_u32(cp).expect("a scalar value")
                })
                .collect();
            Case {
                text,
                status: fields[1].to_string(),
                clustered: fields[2].parse().expect("a width"),
                plain: fields[3].parse().expect("a width"),
            }
        })
        .collect()
}

/// The cursor column and row 0's text after `writes`, one `advance` each.
fn print<'a>(writes: impl IntoIterator<Item = &'a [u8]>) -> (u16, u16, String) {
    let mut term = Term::new(80, 3, 0);
    for bytes in writes {
        term.advance(bytes);
    }
    let snapshot = term.snapshot();
    (
        snapshot.cursor.row,
        snapshot.cursor.col,
        snapshot.lines[0].text(),
    )
}

#[test]
fn emoji_land_where_the_reference_terminals_put_the_cursor() {
    let cases = cases();
    let qualified = cases
        .iter()
        .filter(|c| c.status == "fully-qualified")
        .count();
    assert!(
        qualified > 3600,
        "only {qualified} fully-qualified emoji read"
    );
    let mut failures = Vec::new();
    for case in &cases {
        let name = format!("{:?} ({})", case.text, case.status);
        let mut whole = b"\x1b[?2027h".to_vec();
        whole.extend_from_slice(case.text.as_bytes());
        let (row, col, text) = print([whole.as_slice()]);
        if (row, col) != (0, case.clustered) || text != case.text {
            failures.push(format!(
                "{name} with 2027: cursor (0, {}) expected, got ({row}, {col}), text {text:?}",
                case.clustered
            ));
        }
        let mut split: Vec<Vec<u8>> = vec![b"\x1b[?2027h".to_vec()];
        split.extend(case.text.chars().map(|c| c.to_string().into_bytes()));
        let (_, split_col, _) = print(split.iter().map(Vec::as_slice));
        if split_col != case.clustered {
            failures.push(format!(
                "{name} with 2027, one code point per write: column {} expected, got {split_col}",
                case.clustered
            ));
        }
        let (_, plain, _) = print([case.text.as_bytes()]);
        if plain != case.plain {
            failures.push(format!(
                "{name} without 2027: column {} expected, got {plain}",
                case.plain
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures[..failures.len().min(40)].join("\n")
    );
}

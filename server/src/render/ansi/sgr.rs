//! The SGR and OSC 8 sequences that set a pen.

use std::fmt::Write;

use panecast_term::{Attrs, Color, Hyperlink, Style, Underline};

/// The SGR sequence that sets exactly `style`'s attributes and colours
/// (its hyperlink aside): a reset, then every attribute that is on.
pub fn sgr_sequence(style: &Style) -> String {
    let mut seq = String::from("\x1b[0");
    let flags = [
        (Attrs::BOLD, 1),
        (Attrs::DIM, 2),
        (Attrs::ITALIC, 3),
        (Attrs::BLINK, 5),
        (Attrs::INVERSE, 7),
        (Attrs::INVISIBLE, 8),
        (Attrs::STRIKE, 9),
    ];
    for (attr, code) in flags {
        if style.attrs.contains(attr) {
            let _ = write!(seq, ";{code}");
        }
    }
    match style.underline {
        Underline::None => {}
        Underline::Single => seq.push_str(";4"),
        kind => {
            let _ = write!(seq, ";4:{}", kind as u8);
        }
    }
    push_color(&mut seq, style.fg, Some((30, 90)), 38);
    push_color(&mut seq, style.bg, Some((40, 100)), 48);
    push_color(&mut seq, style.underline_color, None, 58);
    seq.push('m');
    seq
}

/// Appends `;` and the parameters of a colour: the 16 colours by their own
/// codes when `short` gives the bases of the normal and bright ones, other
/// colours after the `extended` introducer (38, 48, 58).
fn push_color(seq: &mut String, color: Color, short: Option<(u16, u16)>, extended: u16) {
    let _ = match (color, short) {
        (Color::Default, _) => Ok(()),
        (Color::Indexed(i @ 0..=7), Some((normal, _))) => write!(seq, ";{}", normal + i as u16),
        (Color::Indexed(i @ 8..=15), Some((_, bright))) => {
            write!(seq, ";{}", bright + i as u16 - 8)
        }
        (Color::Indexed(i), _) => write!(seq, ";{extended};5;{i}"),
        (Color::Rgb(r, g, b), _) => write!(seq, ";{extended};2;{r};{g};{b}"),
    };
}

/// The OSC 8 sequence that opens `link`, or closes the open link for `None`.
pub fn link_sequence(link: Option<&Hyperlink>) -> String {
    match link {
        Some(Hyperlink { id: Some(id), uri }) => format!("\x1b]8;id={id};{uri}\x1b\\"),
        Some(Hyperlink { id: None, uri }) => format!("\x1b]8;;{uri}\x1b\\"),
        None => "\x1b]8;;\x1b\\".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_colours_use_their_short_codes() {
        let style = Style {
            fg: Color::Indexed(1),
            bg: Color::Indexed(12),
            underline_color: Color::Indexed(2),
            underline: Underline::Curly,
            ..Style::default()
        };
        assert_eq!(sgr_sequence(&style), "\x1b[0;4:3;31;104;58;5;2m");
    }

    #[test]
    fn other_colours_use_the_extended_forms() {
        let mut style = Style {
            fg: Color::Indexed(208),
            bg: Color::Rgb(1, 2, 3),
            underline_color: Color::Rgb(4, 5, 6),
            underline: Underline::Single,
            ..Style::default()
        };
        style.attrs.set(Attrs::BOLD, true);
        style.attrs.set(Attrs::STRIKE, true);
        assert_eq!(
            sgr_sequence(&style),
            "\x1b[0;1;9;4;38;5;208;48;2;1;2;3;58;2;4;5;6m"
        );
        assert_eq!(sgr_sequence(&Style::default()), "\x1b[0m");
    }

    #[test]
    fn links_open_with_their_id_and_close() {
        let link = Hyperlink {
            id: Some("a".into()),
            uri: "https://e.com/;x".into(),
        };
        assert_eq!(
            link_sequence(Some(&link)),
            "\x1b]8;id=a;https://e.com/;x\x1b\\"
        );
        assert_eq!(link_sequence(None), "\x1b]8;;\x1b\\");
    }
}

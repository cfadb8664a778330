//! OSC strings as actions: the string is read whole, its number first, and
//! each kind takes the rest as it means it (a title or a URI may contain
//! `;`, a colour list is `;`-separated).

use super::Action;
use crate::titles::Which;

/// The `;`-separated fields after an OSC's number: none when the string
/// is the number alone, one empty field when it ends with the `;`.
#[derive(Clone, Copy)]
pub(crate) struct Fields<'a>(Option<&'a [u8]>);

impl<'a> Fields<'a> {
    /// The fields, in order.
    pub fn iter(self) -> impl Iterator<Item = &'a [u8]> {
        self.0
            .into_iter()
            .flat_map(|rest| rest.split(|&b| b == b';'))
    }
}

/// An OSC's number, for the ranges read as numbers (10-19, 110-119); the
/// others are matched as text.
fn number(bytes: &[u8]) -> Option<u16> {
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

impl<'a> Action<'a> {
    /// The action of a complete OSC string, if it has one.
    pub fn from_osc(data: &'a [u8]) -> Option<Action<'a>> {
        let (first, rest) = match data.iter().position(|&b| b == b';') {
            Some(i) => (&data[..i], Some(&data[i + 1..])),
            None => (data, None),
        };
        let fields = Fields(rest);
        let split = |rest: Option<&'a [u8]>| {
            let rest = rest?;
            let i = rest.iter().position(|&b| b == b';')?;
            Some((&rest[..i], &rest[i + 1..]))
        };
        Some(match first {
            b"0" | b"1" | b"2" => Action::Title {
                which: match first {
                    b"0" => Which::Both,
                    b"1" => Which::Icon,
                    _ => Which::Window,
                },
                text: rest.unwrap_or_default(),
            },
            b"8" => {
                let (params, uri) = split(rest)?;
                Action::Hyperlink { params, uri }
            }
            b"52" => match split(rest)? {
                (_, data) if !data.contains(&b';') => Action::Clipboard(data),
                _ => return None,
            },
            b"4" | b"5" => Action::PaletteColors {
                osc: if first == b"4" { 4 } else { 5 },
                pairs: fields,
            },
            b"104" | b"105" => Action::ResetPaletteColors {
                osc: if first == b"104" { 104 } else { 105 },
                indices: fields,
            },
            _ => match number(first)? {
                first @ 10..=19 => Action::DynamicColors {
                    first,
                    specs: fields,
                },
                n @ 110..=119 => Action::ResetDynamicColor(n),
                _ => return None,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_keeps_its_semicolons() {
        let Some(Action::Title { which, text }) = Action::from_osc(b"2;a;b;c") else {
            panic!("not a title");
        };
        assert_eq!((which, text), (Which::Window, &b"a;b;c"[..]));
    }

    #[test]
    fn a_hyperlink_needs_its_parameters_and_keeps_the_uri_whole() {
        let Some(Action::Hyperlink { params, uri }) = Action::from_osc(b"8;id=x;http://a/?q=1;2")
        else {
            panic!("not a hyperlink");
        };
        assert_eq!((params, uri), (&b"id=x"[..], &b"http://a/?q=1;2"[..]));
        assert!(Action::from_osc(b"8;http").is_none());
    }

    #[test]
    fn a_clipboard_string_has_a_selection_and_one_datum() {
        assert!(matches!(
            Action::from_osc(b"52;c;aGk="),
            Some(Action::Clipboard(b"aGk="))
        ));
        assert!(Action::from_osc(b"52;c;a;b").is_none());
        assert!(Action::from_osc(b"52;aGk=").is_none());
    }

    #[test]
    fn colour_lists_are_split_at_every_semicolon() {
        let pairs = "4;".to_owned() + &vec!["1;red"; 20].join(";");
        let Some(Action::PaletteColors { osc: 4, pairs }) = Action::from_osc(pairs.as_bytes())
        else {
            panic!("not a palette string");
        };
        assert_eq!(pairs.iter().count(), 40);
        let Some(Action::ResetPaletteColors { indices, .. }) = Action::from_osc(b"104") else {
            panic!("not a palette reset");
        };
        assert_eq!(indices.iter().count(), 0);
    }

    #[test]
    fn dynamic_colours_are_numbers_and_others_are_text() {
        assert!(matches!(
            Action::from_osc(b"11;?"),
            Some(Action::DynamicColors { first: 11, .. })
        ));
        assert!(matches!(
            Action::from_osc(b"112"),
            Some(Action::ResetDynamicColor(112))
        ));
        assert!(Action::from_osc(b"04;1;red").is_none());
        assert!(Action::from_osc(b"9;note").is_none());
    }
}

//! CSI sequences as actions.

use super::{Action, ModeList, RectArgs, TabClear};
use crate::modes::ModeKind;
use crate::parser::Params;

/// The first eight parameters of a CSI sequence (each parameter's first
/// value), read once: no sequence but SGR, DECCARA and the modes (which
/// keep the parameters themselves) uses more.
struct Args {
    values: [u16; 8],
}

impl Args {
    /// Parameter `i`, or `default` when absent or zero.
    #[inline]
    fn or(&self, i: usize, default: u16) -> usize {
        match self.values[i] {
            0 => default as usize,
            n => n as usize,
        }
    }

    /// Parameter `i` as given (absent reads as 0).
    #[inline]
    fn raw(&self, i: usize) -> u16 {
        self.values[i]
    }

    /// Parameters `i..i + 4` as a rectangle's corners.
    #[inline]
    fn rect(&self, i: usize) -> RectArgs {
        RectArgs {
            top: self.raw(i),
            left: self.raw(i + 1),
            bottom: self.raw(i + 2),
            right: self.raw(i + 3),
        }
    }
}

impl<'a> Action<'a> {
    /// The action of a complete CSI sequence, if it has one.
    #[inline]
    pub fn from_csi(params: &'a Params, intermediates: &[u8], action: char) -> Option<Action<'a>> {
        // SGR is by far the most frequent sequence; it reads its own parameters.
        if intermediates.is_empty() && action == 'm' {
            return Some(Action::Sgr(params));
        }
        let a = Args {
            values: params.firsts(),
        };
        let modes = |kind| ModeList { kind, params };
        Some(match (intermediates, action) {
            ([], '@') => Action::InsertChars(a.or(0, 1)),
            ([], 'A') => Action::CursorUp(a.or(0, 1)),
            ([], 'B') => Action::CursorDown(a.or(0, 1)),
            ([], 'e') => Action::CursorDownUnbounded(a.or(0, 1)),
            ([], 'C') | ([], 'a') => Action::CursorForward(a.or(0, 1)),
            ([], 'D') => Action::CursorBack(a.or(0, 1)),
            ([], 'E') => Action::CursorNextLine(a.or(0, 1)),
            ([], 'F') => Action::CursorPrecedingLine(a.or(0, 1)),
            ([], 'G') | ([], '`') => Action::CursorColumn(a.or(0, 1) - 1),
            ([], 'H') | ([], 'f') => Action::CursorPosition {
                row: a.or(0, 1) - 1,
                col: a.or(1, 1) - 1,
            },
            ([], 'I') => Action::TabForward(a.or(0, 1)),
            ([], 'J') | ([b'?'], 'J') => Action::EraseInDisplay {
                mode: a.raw(0),
                selective: !intermediates.is_empty(),
            },
            ([], 'K') | ([b'?'], 'K') => Action::EraseInLine {
                mode: a.raw(0),
                selective: !intermediates.is_empty(),
            },
            ([b'"'], 'q') => Action::CharProtection(a.raw(0) == 1),
            ([], 'L') => Action::InsertLines(a.or(0, 1)),
            ([], 'M') => Action::DeleteLines(a.or(0, 1)),
            ([], 'P') => Action::DeleteChars(a.or(0, 1)),
            ([], 'S') => Action::ScrollUp(a.or(0, 1)),
            ([], 'T') => Action::ScrollDown(a.or(0, 1)),
            ([], 'X') => Action::EraseChars(a.or(0, 1)),
            ([], 'Z') => Action::TabBackward(a.or(0, 1)),
            ([], 'b') => Action::Repeat(a.or(0, 1)),
            ([], 'c') if a.raw(0) == 0 => Action::PrimaryAttributes,
            ([b'?'], 'S') => Action::GraphicsAttributes {
                item: a.raw(0),
                action: a.raw(1),
            },
            ([b'>'], 'c') if a.raw(0) == 0 => Action::SecondaryAttributes,
            ([b'='], 'c') if a.raw(0) == 0 => Action::TertiaryAttributes,
            ([b'$'], 'x') => Action::FillRect {
                ch: a.raw(0),
                rect: a.rect(1),
            },
            ([b'$'], 'z') | ([b'$'], '{') => Action::EraseRect {
                rect: a.rect(0),
                selective: action == '{',
            },
            ([b'$'], 'v') => Action::CopyRect {
                rect: a.rect(0),
                top: a.raw(5),
                left: a.raw(6),
            },
            ([b'$'], 'r') | ([b'$'], 't') => Action::ChangeRectAttrs {
                rect: a.rect(0),
                params,
                reverse: action == 't',
            },
            ([b'*'], 'x') => Action::AttrChangeExtent(a.raw(0)),
            ([b'*'], 'y') => Action::RectChecksum {
                id: a.raw(0),
                rect: a.rect(2),
            },
            ([], 'd') => Action::CursorRow(a.or(0, 1) - 1),
            ([], 'g') => match a.raw(0) {
                0 => Action::TabClear(TabClear::AtCursor),
                3 => Action::TabClear(TabClear::All),
                _ => return None,
            },
            ([], 'h') | ([], 'l') => Action::SetModes {
                modes: modes(ModeKind::Ansi),
                on: action == 'h',
            },
            ([b'?'], 'h') | ([b'?'], 'l') => Action::SetModes {
                modes: modes(ModeKind::Dec),
                on: action == 'h',
            },
            ([b'?'], 's') => Action::SaveModes(modes(ModeKind::Dec)),
            ([b'?'], 'r') => Action::RestoreModes(modes(ModeKind::Dec)),
            ([], 'n') | ([b'?'], 'n') => Action::DeviceStatus {
                kind: a.raw(0),
                dec: !intermediates.is_empty(),
                arg: a.raw(1),
            },
            ([], 'r') => Action::ScrollRegion {
                top: a.raw(0) as usize,
                bottom: a.raw(1) as usize,
            },
            ([], 's') => Action::SideMarginsOrSaveCursor {
                left: a.raw(0),
                right: a.raw(1),
            },
            ([], 'u') => Action::RestoreCursor,
            ([b'>'], 'u') => Action::PushKeyboardFlags(a.raw(0)),
            ([b'<'], 'u') => Action::PopKeyboardFlags(a.or(0, 1)),
            ([b'='], 'u') => Action::SetKeyboardFlags {
                flags: a.raw(0),
                mode: a.or(1, 1) as u16,
            },
            ([b'?'], 'u') => Action::ReportKeyboardFlags,
            // The parser reads an absent parameter as 0.
            ([b'>'], 'm') if a.raw(0) == 0 => Action::ResetKeyModifierOptions,
            ([b'>'], 'm') => Action::SetKeyModifierOption {
                resource: a.raw(0),
                value: a.raw(1),
            },
            ([b'>'], 'n') => Action::DisableKeyModifierOption(a.raw(0)),
            ([b'?'], 'm') => Action::ReportKeyModifierOption(a.raw(0)),
            ([], 't') => Action::WindowOp {
                op: a.raw(0),
                arg: a.raw(1),
            },
            ([b' '], 'q') => Action::CursorStyle(a.raw(0)),
            ([b' '], '@') => Action::ScrollColumns(-(a.or(0, 1) as isize)),
            ([b' '], 'A') => Action::ScrollColumns(a.or(0, 1) as isize),
            ([b'\''], '}') => Action::EditColumns(a.or(0, 1) as isize),
            ([b'\''], '~') => Action::EditColumns(-(a.or(0, 1) as isize)),
            ([b'!'], 'p') => Action::SoftReset,
            ([b'"'], 'p') => Action::ConformanceLevel(a.raw(0)),
            ([b'$'], 'p') => Action::ReportMode {
                number: a.raw(0),
                kind: ModeKind::Ansi,
            },
            ([b'?', b'$'], 'p') => Action::ReportMode {
                number: a.raw(0),
                kind: ModeKind::Dec,
            },
            ([b'>'], 'q') => Action::ReportVersion,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::{Actions, Parser};

    /// The action of the first CSI sequence in `bytes`, as a debug string.
    fn csi(bytes: &[u8]) -> String {
        struct First(Option<String>);
        impl Actions for First {
            fn print_ascii(&mut self, _: &[u8]) {}
            fn print_text(&mut self, _: &[char]) {}
            fn print(&mut self, _: char) {}
            fn execute(&mut self, _: u8) {}
            fn csi_dispatch(&mut self, params: &Params, inter: &[u8], _: bool, action: char) {
                self.0 = Some(match Action::from_csi(params, inter, action) {
                    Some(Action::CursorPosition { row, col }) => format!("cup {row} {col}"),
                    Some(Action::EraseInLine { mode, selective }) => {
                        format!("el {mode} {selective}")
                    }
                    Some(Action::CopyRect { rect, top, left }) => {
                        format!(
                            "deccra {} {} {} {} {top} {left}",
                            rect.top, rect.left, rect.bottom, rect.right
                        )
                    }
                    Some(Action::SetModes { modes, on }) => {
                        format!("modes {} {on}", modes.iter().count())
                    }
                    Some(Action::ScrollColumns(n)) => format!("scroll {n}"),
                    Some(_) => "other".into(),
                    None => "none".into(),
                });
            }
            fn esc_dispatch(&mut self, _: &[u8], _: bool, _: u8) {}
            fn hook(&mut self, _: &Params, _: &[u8], _: bool, _: char) {}
            fn put(&mut self, _: u8) {}
            fn unhook(&mut self) {}
        }
        let mut first = First(None);
        Parser::new().advance(&mut first, bytes);
        first.0.unwrap_or_default()
    }

    #[test]
    fn positions_are_zero_based_and_default_to_one() {
        assert_eq!(csi(b"\x1b[H"), "cup 0 0");
        assert_eq!(csi(b"\x1b[5;0f"), "cup 4 0");
    }

    #[test]
    fn private_forms_are_told_apart() {
        assert_eq!(csi(b"\x1b[2K"), "el 2 false");
        assert_eq!(csi(b"\x1b[?1K"), "el 1 true");
        assert_eq!(csi(b"\x1b[?1;9999;25h"), "modes 2 true");
        assert_eq!(csi(b"\x1b[4l"), "modes 1 false");
        assert_eq!(csi(b"\x1b[3 @"), "scroll -3");
        assert_eq!(csi(b"\x1b[2g"), "none");
    }

    #[test]
    fn a_rectangle_copy_reads_its_destination() {
        assert_eq!(csi(b"\x1b[1;2;3;4;1;7;8;1$v"), "deccra 1 2 3 4 7 8");
    }
}

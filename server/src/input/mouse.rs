//! Mouse events to the bytes a program expects, following its tracking mode
//! (9, 1000, 1002, 1003) and encoding (X10, UTF-8 1005, SGR 1006, urxvt 1015).

use panecast_proto::{Modifiers, MouseButton, MouseEvent, MouseKind};

use panecast_term::{Modes, MouseEncoding, MouseTracking};

/// The bytes reporting `event`, or `None` when the program did not ask for
/// this kind of event (or the position cannot be encoded). `held` is true
/// while any button is down, for drag tracking. Coordinates are clamped to
/// a `cols` x `rows` screen.
pub fn encode_mouse(event: &MouseEvent, modes: &Modes, cols: u16, rows: u16) -> Option<Vec<u8>> {
    let tracking = modes.mouse_tracking();
    let wanted = match (tracking, event.kind) {
        (MouseTracking::Off, _) => false,
        (MouseTracking::Press, kind) => kind == MouseKind::Press,
        (_, MouseKind::Move) => match tracking {
            MouseTracking::Motion => true,
            MouseTracking::Drag => event.button != MouseButton::None,
            _ => false,
        },
        _ => true,
    };
    if !wanted {
        return None;
    }
    let x10_only = tracking == MouseTracking::Press;
    let base = match event.kind {
        MouseKind::WheelUp => 64,
        MouseKind::WheelDown => 65,
        MouseKind::WheelLeft => 66,
        MouseKind::WheelRight => 67,
        _ => match event.button {
            MouseButton::Left => 0,
            MouseButton::Middle => 1,
            MouseButton::Right => 2,
            MouseButton::None => 3,
        },
    };
    let motion = if event.kind == MouseKind::Move { 32 } else { 0 };
    let mods = if x10_only {
        0
    } else {
        modifier_bits(event.mods)
    };
    let col = u32::from(event.col.min(cols.saturating_sub(1))) + 1;
    let row = u32::from(event.row.min(rows.saturating_sub(1))) + 1;
    let release = event.kind == MouseKind::Release;
    let encoding = modes.mouse_encoding();
    if encoding == MouseEncoding::Sgr {
        let code = base + motion + mods;
        let end = if release { 'm' } else { 'M' };
        return Some(format!("\x1b[<{code};{col};{row}{end}").into_bytes());
    }
    // The older encodings cannot say which button was released.
    let code = if release { 3 } else { base } + motion + mods;
    match encoding {
        MouseEncoding::Urxvt => Some(format!("\x1b[{};{col};{row}M", code + 32).into_bytes()),
        MouseEncoding::Utf8 => {
            let mut out = b"\x1b[M".to_vec();
            for value in [code + 32, col + 32, row + 32] {
                let c = char::from_u32(value).filter(|_| value < 2048)?;
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Some(out)
        }
        _ => {
            if col > 223 || row > 223 {
                return None;
            }
            Some(vec![
                0x1b,
                b'[',
                b'M',
                (code + 32) as u8,
                (col + 32) as u8,
                (row + 32) as u8,
            ])
        }
    }
}

fn modifier_bits(mods: Modifiers) -> u32 {
    let mut bits = 0;
    if mods.contains(Modifiers::SHIFT) {
        bits |= 4;
    }
    if mods.contains(Modifiers::ALT) || mods.contains(Modifiers::META) {
        bits |= 8;
    }
    if mods.contains(Modifiers::CTRL) {
        bits |= 16;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use panecast_term::Term;

    fn modes(setup: &[u8]) -> Modes {
        let mut term = Term::new(300, 50, 0);
        term.advance(setup);
        term.modes()
    }

    fn event(kind: MouseKind, button: MouseButton, row: u16, col: u16) -> MouseEvent {
        MouseEvent {
            kind,
            button,
            row,
            col,
            mods: Modifiers::NONE,
        }
    }

    #[test]
    fn nothing_is_reported_unless_asked() {
        let m = modes(b"");
        assert_eq!(
            encode_mouse(
                &event(MouseKind::Press, MouseButton::Left, 0, 0),
                &m,
                80,
                24
            ),
            None
        );
    }

    #[test]
    fn sgr_reports_press_release_and_wheel() {
        let m = modes(b"\x1b[?1000h\x1b[?1006h");
        let press = event(MouseKind::Press, MouseButton::Left, 4, 199);
        assert_eq!(
            encode_mouse(&press, &m, 300, 50).unwrap(),
            b"\x1b[<0;200;5M"
        );
        let release = event(MouseKind::Release, MouseButton::Right, 0, 0);
        assert_eq!(
            encode_mouse(&release, &m, 300, 50).unwrap(),
            b"\x1b[<2;1;1m"
        );
        let wheel = MouseEvent {
            mods: Modifiers::CTRL,
            ..event(MouseKind::WheelDown, MouseButton::None, 1, 1)
        };
        assert_eq!(encode_mouse(&wheel, &m, 300, 50).unwrap(), b"\x1b[<81;2;2M");
        let moved = event(MouseKind::Move, MouseButton::Left, 1, 1);
        assert_eq!(
            encode_mouse(&moved, &m, 300, 50),
            None,
            "1000 reports no motion"
        );
    }

    #[test]
    fn drag_and_motion_tracking() {
        let drag = modes(b"\x1b[?1002h\x1b[?1006h");
        let held = event(MouseKind::Move, MouseButton::Left, 2, 3);
        assert_eq!(
            encode_mouse(&held, &drag, 80, 24).unwrap(),
            b"\x1b[<32;4;3M"
        );
        let free = event(MouseKind::Move, MouseButton::None, 2, 3);
        assert_eq!(encode_mouse(&free, &drag, 80, 24), None);
        let motion = modes(b"\x1b[?1003h\x1b[?1006h");
        assert_eq!(
            encode_mouse(&free, &motion, 80, 24).unwrap(),
            b"\x1b[<35;4;3M"
        );
    }

    #[test]
    fn x10_encoding_and_its_limits() {
        let m = modes(b"\x1b[?1000h");
        let press = event(MouseKind::Press, MouseButton::Middle, 0, 9);
        assert_eq!(
            encode_mouse(&press, &m, 300, 50).unwrap(),
            [0x1b, b'[', b'M', 33, 42, 33]
        );
        let release = event(MouseKind::Release, MouseButton::Middle, 0, 9);
        assert_eq!(
            encode_mouse(&release, &m, 300, 50).unwrap(),
            [0x1b, b'[', b'M', 35, 42, 33]
        );
        let far = event(MouseKind::Press, MouseButton::Left, 0, 250);
        assert_eq!(
            encode_mouse(&far, &m, 300, 50),
            None,
            "X10 cannot encode column 251"
        );
        let utf8 = modes(b"\x1b[?1000h\x1b[?1005h");
        assert_eq!(
            encode_mouse(&far, &utf8, 300, 50).unwrap(),
            "\x1b[M \u{11b}!".as_bytes()
        );
        let urxvt = modes(b"\x1b[?1000h\x1b[?1015h");
        assert_eq!(
            encode_mouse(&far, &urxvt, 300, 50).unwrap(),
            b"\x1b[32;251;1M"
        );
    }

    #[test]
    fn x10_mode_reports_presses_only_without_modifiers() {
        let m = modes(b"\x1b[?9h");
        let press = MouseEvent {
            mods: Modifiers::SHIFT,
            ..event(MouseKind::Press, MouseButton::Left, 0, 0)
        };
        assert_eq!(
            encode_mouse(&press, &m, 80, 24).unwrap(),
            [0x1b, b'[', b'M', 32, 33, 33]
        );
        let release = event(MouseKind::Release, MouseButton::Left, 0, 0);
        assert_eq!(encode_mouse(&release, &m, 80, 24), None);
    }

    #[test]
    fn coordinates_are_clamped_to_the_screen() {
        let m = modes(b"\x1b[?1000h\x1b[?1006h");
        let outside = event(MouseKind::Press, MouseButton::Left, 999, 999);
        assert_eq!(
            encode_mouse(&outside, &m, 80, 24).unwrap(),
            b"\x1b[<0;80;24M"
        );
    }
}

//! Pasted text to pty bytes: line breaks become CR, escape and other control
//! characters that could end a bracketed paste or inject a sequence are
//! removed, and the text is bracketed when the program asked for it (2004).

use panecast_term::{Mode, Modes};

/// The bytes to write for pasting `text` under `modes`.
pub fn encode_paste(text: &str, modes: &Modes) -> Vec<u8> {
    let bracketed = modes.get(Mode::BracketedPaste);
    let mut out = Vec::with_capacity(text.len() + 12);
    if bracketed {
        out.extend_from_slice(b"\x1b[200~");
    }
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(b'\r');
            }
            '\n' => out.push(b'\r'),
            '\t' => out.push(b'\t'),
            // ESC, the other C0 controls, DEL and the C1 controls (CSI is
            // U+009B) could start or end a sequence: drop them.
            c if c.is_control() => {}
            c => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    if bracketed {
        out.extend_from_slice(b"\x1b[201~");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use panecast_term::Term;

    fn modes(setup: &[u8]) -> Modes {
        let mut term = Term::new(10, 2, 0);
        term.advance(setup);
        term.modes()
    }

    #[test]
    fn plain_paste_normalises_line_breaks() {
        assert_eq!(
            encode_paste("a\r\nb\nc\rd\te", &modes(b"")),
            b"a\rb\rc\rd\te"
        );
    }

    #[test]
    fn bracketed_paste_cannot_be_escaped() {
        let out = encode_paste("x\x1b[201~rm -rf /\u{9b}201~\x07y", &modes(b"\x1b[?2004h"));
        assert_eq!(out, b"\x1b[200~x[201~rm -rf /201~y\x1b[201~");
        let inner = &out[6..out.len() - 6];
        assert!(!inner.contains(&0x1b));
    }

    #[test]
    fn unicode_passes_through() {
        assert_eq!(encode_paste("中文 é", &modes(b"")), "中文 é".as_bytes());
    }
}

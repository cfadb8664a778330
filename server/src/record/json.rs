//! JSON string encoding for event text, the recorder's hot path: a
//! recording of a flood is mostly text that needs no escape, so it is
//! scanned eight bytes at a time and copied in runs. The output is what
//! `serde_json` writes for the same string (a test checks).

/// Eight copies of byte `b`.
const fn splat(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

/// True when one of the eight bytes of `w` needs an escape: a control
/// character (below 0x20), `"` or `\`. (The classic tests "a byte below n"
/// and "a zero byte", which are exact as yes-or-no answers.)
#[inline(always)]
fn needs_escape(w: u64) -> bool {
    let below_space = w.wrapping_sub(splat(0x20)) & !w;
    let zero = |x: u64| x.wrapping_sub(splat(0x01)) & !x;
    (below_space | zero(w ^ splat(b'"')) | zero(w ^ splat(b'\\'))) & splat(0x80) != 0
}

/// Appends `text` as a JSON string, quotes included.
pub fn push_string(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(word) = bytes.get(i..i + 8) {
            let mut eight = [0; 8];
            eight.copy_from_slice(word);
            if !needs_escape(u64::from_ne_bytes(eight)) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => &[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ],
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[run..i]);
        out.extend_from_slice(escape);
        i += 1;
        run = i;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

const HEX: &[u8; 16] = b"0123456789abcdef";

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(text: &str) -> String {
        let mut out = Vec::new();
        push_string(&mut out, text);
        String::from_utf8(out).expect("JSON text is UTF-8")
    }

    #[test]
    fn agrees_with_serde_json() {
        let mut cases: Vec<String> = (0u32..0x100)
            .filter_map(char::from_u32)
            .map(|c| c.to_string())
            .collect();
        // Every byte value at every offset of a word, among plain text.
        for c in (0u8..0x80).map(char::from) {
            for at in 0..17 {
                let mut s: String = "abcdefghijklmnopq".into();
                s.insert(at, c);
                cases.push(s);
            }
        }
        cases.push("中文 😀 \u{7f}\u{80}\u{9f} ü \"q\" \\ \x1b[1m\r\n".repeat(5));
        cases.push(String::new());
        for case in cases {
            assert_eq!(
                encode(&case),
                serde_json::to_string(&case).unwrap(),
                "{case:?}"
            );
        }
    }
}

//! Bounds OSC strings before they reach `vte`, whose parser (with `std`)
//! buffers an OSC string without limit. Bytes past the limit are dropped
//! until the string's terminator, so an endless OSC cannot grow memory.

/// Longest OSC string passed on, in bytes.
pub const MAX_OSC_BYTES: usize = 8 * 1024;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Ground,
    Escape,
    Osc(usize),
}

/// Tracks just enough of the byte stream to know when an OSC string runs long.
#[derive(Clone, Debug)]
pub struct OscGuard {
    state: State,
    osc_start: memchr::memmem::Finder<'static>,
}

impl Default for OscGuard {
    fn default() -> Self {
        OscGuard {
            state: State::Ground,
            osc_start: memchr::memmem::Finder::new(b"\x1b]"),
        }
    }
}

impl OscGuard {
    /// Splits `bytes` into the runs the parser should see, calling `sink` for each.
    #[inline]
    pub fn feed(&mut self, bytes: &[u8], mut sink: impl FnMut(&[u8])) {
        let mut i = 0;
        let mut start = 0;
        while i < bytes.len() {
            match self.state {
                // Only `ESC ]` matters: one fast search per chunk, with an ESC
                // at the very end carried over to the next chunk.
                State::Ground => match self.osc_start.find(&bytes[i..]) {
                    Some(p) => {
                        i += p + 2;
                        self.state = State::Osc(0);
                    }
                    None => {
                        if bytes.last() == Some(&0x1b) {
                            self.state = State::Escape;
                        }
                        break;
                    }
                },
                State::Escape => {
                    self.state = match bytes[i] {
                        b']' => State::Osc(0),
                        0x1b => State::Escape,
                        _ => State::Ground,
                    };
                    i += 1;
                }
                State::Osc(len) => {
                    let b = bytes[i];
                    if matches!(b, 0x07 | 0x18 | 0x1a | 0x1b) {
                        self.state = if b == 0x1b {
                            State::Escape
                        } else {
                            State::Ground
                        };
                        i += 1;
                        continue;
                    }
                    if len < MAX_OSC_BYTES {
                        self.state = State::Osc(len + 1);
                        i += 1;
                        continue;
                    }
                    // Over the limit: drop bytes up to the terminator.
                    if start < i {
                        sink(&bytes[start..i]);
                    }
                    let skip = bytes[i..]
                        .iter()
                        .position(|b| matches!(b, 0x07 | 0x18 | 0x1a | 0x1b))
                        .unwrap_or(bytes.len() - i);
                    i += skip;
                    start = i;
                }
            }
        }
        if start < bytes.len() {
            sink(&bytes[start..]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(guard: &mut OscGuard, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        guard.feed(bytes, |s| out.extend_from_slice(s));
        out
    }

    #[test]
    fn short_strings_pass_untouched() {
        let mut guard = OscGuard::default();
        let input = b"a\x1b]0;title\x07b\x1b[1mc";
        assert_eq!(run(&mut guard, input), input.to_vec());
    }

    #[test]
    fn endless_osc_is_cut_across_chunks() {
        let mut guard = OscGuard::default();
        let mut passed = run(&mut guard, b"\x1b]0;");
        for _ in 0..100 {
            passed.extend(run(&mut guard, &[b'x'; 4096]));
        }
        passed.extend(run(&mut guard, b"\x07after"));
        assert!(passed.len() < MAX_OSC_BYTES + 64, "{}", passed.len());
        assert!(passed.ends_with(b"\x07after"));
    }

    #[test]
    fn an_osc_start_split_across_chunks_is_seen() {
        let mut guard = OscGuard::default();
        let mut passed = run(&mut guard, b"abc\x1b");
        passed.extend(run(&mut guard, b"]0;"));
        passed.extend(run(&mut guard, &[b'x'; MAX_OSC_BYTES + 100]));
        passed.extend(run(&mut guard, b"\x07"));
        assert!(passed.len() < MAX_OSC_BYTES + 16, "{}", passed.len());
    }
}

//! The kitty graphics protocol's commands: `APC G keys ; payload ST`, the
//! keys parsed, the chunks of one transmission gathered (bounded).

/// What a command asks for (`a=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// `t`: store the image.
    Transmit,
    /// `T`: store and place it.
    TransmitAndPlace,
    /// `p`: place a stored image.
    Place,
    /// `d`: delete placements (and images).
    Delete,
    /// `q`: check that the image would be accepted, store nothing.
    Query,
    /// Anything else (animation, composition): refused.
    Other,
}

/// A command's keys; absent numbers are 0, as the protocol says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Command {
    pub action: Action,
    /// `f`: 24, 32 or 100 (PNG).
    pub format: u32,
    /// `t`: the transmission medium, `d` (direct) by default.
    pub medium: u8,
    /// `o=z`: the payload is zlib-compressed.
    pub compressed: bool,
    /// `m=1`: more chunks follow.
    pub more: bool,
    /// `i`, `I`, `p`: image id, image number, placement id.
    pub id: u32,
    pub number: u32,
    pub placement: u32,
    /// `s`, `v`: the pixel size of raw data.
    pub width: u32,
    pub height: u32,
    /// `x`, `y`, `w`, `h`: the source rectangle (0 for w or h: the rest).
    pub src: [u32; 4],
    /// `c`, `r`: the size in cells (0: from the pixel size).
    pub cols: u32,
    pub rows: u32,
    /// `z`.
    pub z: i32,
    /// `C=1`: the cursor does not move.
    pub stay: bool,
    /// `q`: 1 hides OK replies, 2 errors too.
    pub quiet: u32,
    /// `d`: what a delete removes.
    pub delete: u8,
}

impl Command {
    /// Parses the control data (`key=value,...`, after the `G`); unknown
    /// keys and bad values are ignored.
    pub fn parse(keys: &[u8]) -> Command {
        let mut c = Command {
            action: Action::Transmit,
            format: 32,
            medium: b'd',
            compressed: false,
            more: false,
            id: 0,
            number: 0,
            placement: 0,
            width: 0,
            height: 0,
            src: [0; 4],
            cols: 0,
            rows: 0,
            z: 0,
            stay: false,
            quiet: 0,
            delete: b'a',
        };
        for pair in keys.split(|&b| b == b',') {
            let [key, b'=', value @ ..] = pair else {
                continue;
            };
            let number = || -> u32 {
                std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0)
            };
            let first = value.first().copied().unwrap_or(0);
            match key {
                b'a' => {
                    c.action = match first {
                        b't' => Action::Transmit,
                        b'T' => Action::TransmitAndPlace,
                        b'p' => Action::Place,
                        b'd' => Action::Delete,
                        b'q' => Action::Query,
                        _ => Action::Other,
                    }
                }
                b'f' => c.format = number(),
                b't' => c.medium = first,
                b'o' => c.compressed = first == b'z',
                b'm' => c.more = number() == 1,
                b'i' => c.id = number(),
                b'I' => c.number = number(),
                b'p' => c.placement = number(),
                b's' => c.width = number(),
                b'v' => c.height = number(),
                b'x' => c.src[0] = number(),
                b'y' => c.src[1] = number(),
                b'w' => c.src[2] = number(),
                b'h' => c.src[3] = number(),
                b'c' => c.cols = number(),
                b'r' => c.rows = number(),
                b'z' => {
                    c.z = std::str::from_utf8(value)
                        .ok()
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(0)
                }
                b'C' => c.stay = number() == 1,
                b'q' => c.quiet = number(),
                b'd' => c.delete = first,
                _ => {}
            }
        }
        c
    }

    /// The reply to this command, `None` when it must stay silent: kitty
    /// answers only commands with an id or number, and `q` silences them.
    pub fn reply(&self, result: Result<(), &str>) -> Option<Vec<u8>> {
        if self.id == 0 && self.number == 0 {
            return None;
        }
        let message = match result {
            Ok(()) if self.quiet == 0 => "OK",
            Err(error) if self.quiet < 2 => error,
            _ => return None,
        };
        let mut out = format!("\x1b_Gi={}", self.id);
        if self.number != 0 {
            out.push_str(&format!(",I={}", self.number));
        }
        if self.placement != 0 {
            out.push_str(&format!(",p={}", self.placement));
        }
        out.push_str(&format!(";{message}\x1b\\"));
        Some(out.into_bytes())
    }
}

/// Splits an APC G string (after the `G`) into its keys and payload.
pub(crate) fn split(body: &[u8]) -> (&[u8], &[u8]) {
    match body.iter().position(|&b| b == b';') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, &[]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_parsed_and_defaults_kept() {
        let c = Command::parse(b"a=T,f=100,i=7,p=3,c=4,r=2,z=-5,C=1,q=1,m=1");
        assert_eq!(c.action, Action::TransmitAndPlace);
        assert_eq!(
            (c.format, c.id, c.placement, c.cols, c.rows),
            (100, 7, 3, 4, 2)
        );
        assert_eq!(c.z, -5);
        assert!(c.stay && c.more);
        assert_eq!(c.medium, b'd');
        assert_eq!(Command::parse(b"").format, 32);
    }

    #[test]
    fn replies_follow_quiet() {
        let c = Command::parse(b"i=3");
        assert_eq!(c.reply(Ok(())).unwrap(), b"\x1b_Gi=3;OK\x1b\\");
        let c = Command::parse(b"i=3,q=1");
        assert!(c.reply(Ok(())).is_none());
        assert_eq!(
            c.reply(Err("ENOENT:x")).unwrap(),
            b"\x1b_Gi=3;ENOENT:x\x1b\\"
        );
        assert!(Command::parse(b"i=3,q=2").reply(Err("E")).is_none());
        assert!(Command::parse(b"a=t").reply(Ok(())).is_none());
    }
}

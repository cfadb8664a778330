//! iTerm2's inline-image arguments (`OSC 1337 ; File=...;inline=1`):
//! the size asked for in cells, pixels, percent or `auto`.

/// One side's requested size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Size {
    /// From the picture.
    Auto,
    /// In cells.
    Cells(u32),
    /// In pixels.
    Pixels(u32),
    /// In percent of the screen's side.
    Percent(u32),
}

impl Size {
    fn parse(value: &[u8]) -> Size {
        let text = std::str::from_utf8(value).unwrap_or("auto");
        let number = |s: &str| s.parse::<u32>().ok();
        if let Some(px) = text.strip_suffix("px").and_then(number) {
            Size::Pixels(px)
        } else if let Some(pc) = text.strip_suffix('%').and_then(number) {
            Size::Percent(pc.min(100))
        } else if let Some(cells) = number(text) {
            Size::Cells(cells)
        } else {
            Size::Auto
        }
    }

    /// The size in pixels, given the picture's (`natural`), the screen's in
    /// cells and the cell's in pixels; `None` for auto.
    pub fn pixels(self, screen_cells: u32, cell: u32) -> Option<u32> {
        match self {
            Size::Auto => None,
            Size::Cells(n) => Some(n.saturating_mul(cell)),
            Size::Pixels(n) => Some(n),
            Size::Percent(p) => Some(screen_cells * cell * p / 100),
        }
    }
}

/// The arguments of an inline image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InlineArgs {
    pub width: Size,
    pub height: Size,
    /// `preserveAspectRatio`, on unless 0.
    pub preserve_aspect: bool,
}

impl InlineArgs {
    /// The arguments of `key=value;...` when `inline=1` is among them.
    pub fn parse(args: &[u8]) -> Option<InlineArgs> {
        let mut inline = false;
        let mut out = InlineArgs {
            width: Size::Auto,
            height: Size::Auto,
            preserve_aspect: true,
        };
        for arg in args.split(|&b| b == b';') {
            let Some(eq) = arg.iter().position(|&b| b == b'=') else {
                continue;
            };
            let (key, value) = (&arg[..eq], &arg[eq + 1..]);
            match key {
                b"inline" => inline = value == b"1",
                b"width" => out.width = Size::parse(value),
                b"height" => out.height = Size::parse(value),
                b"preserveAspectRatio" => out.preserve_aspect = value != b"0",
                _ => {}
            }
        }
        inline.then_some(out)
    }

    /// The size to show a `natural` picture at, in pixels, on a screen of
    /// `screen` cells with cells of `cell` pixels.
    pub fn fit(&self, natural: (u32, u32), screen: (u32, u32), cell: (u32, u32)) -> (u32, u32) {
        let w = self.width.pixels(screen.0, cell.0);
        let h = self.height.pixels(screen.1, cell.1);
        let (nw, nh) = (natural.0.max(1) as u64, natural.1.max(1) as u64);
        let (w, h) = match (w, h) {
            (None, None) => (nw, nh),
            (Some(w), None) => (w as u64, w as u64 * nh / nw),
            (None, Some(h)) => (h as u64 * nw / nh, h as u64),
            (Some(w), Some(h)) if self.preserve_aspect => {
                // The largest size with the picture's ratio inside the box.
                let by_width = (w as u64, w as u64 * nh / nw);
                if by_width.1 <= h as u64 {
                    by_width
                } else {
                    (h as u64 * nw / nh, h as u64)
                }
            }
            (Some(w), Some(h)) => (w as u64, h as u64),
        };
        let cap = 100_000;
        (w.clamp(1, cap) as u32, h.clamp(1, cap) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_cells_pixels_percent_and_auto() {
        let a = InlineArgs::parse(b"inline=1;width=4;height=50%").unwrap();
        assert_eq!(a.width, Size::Cells(4));
        assert_eq!(a.height, Size::Percent(50));
        let a = InlineArgs::parse(b"inline=1;width=30px;height=auto").unwrap();
        assert_eq!(a.width, Size::Pixels(30));
        assert_eq!(a.height, Size::Auto);
        assert!(InlineArgs::parse(b"name=eA==;inline=0").is_none());
    }

    #[test]
    fn fitting_keeps_the_ratio_unless_told_not_to() {
        let a = InlineArgs::parse(b"inline=1;width=10;height=10").unwrap();
        assert_eq!(a.fit((100, 50), (80, 24), (8, 17)), (80, 40));
        let a = InlineArgs::parse(b"inline=1;width=10;height=1;preserveAspectRatio=0").unwrap();
        assert_eq!(a.fit((100, 50), (80, 24), (8, 17)), (80, 17));
        let a = InlineArgs::parse(b"inline=1").unwrap();
        assert_eq!(a.fit((100, 50), (80, 24), (8, 17)), (100, 50));
    }
}

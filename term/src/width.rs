//! How many columns a character takes, for the print path: a lookup in a
//! table of the Basic Multilingual Plane made at build time from
//! unicode-width (`build/width_table.rs`), and unicode-width itself beyond
//! it. The answers are unicode-width's; the table only makes them cheaper
//! (a shift and a mask instead of a walk through its tries).

use unicode_width::UnicodeWidthChar;

include!(concat!(env!("OUT_DIR"), "/bmp_widths.rs"));

/// The columns `c` takes, or `None` for a control: what
/// `UnicodeWidthChar::width` gives.
#[inline(always)]
pub fn width(c: char) -> Option<usize> {
    let code = c as u32;
    if code < 0x1_0000 {
        // Class 3 marks the characters the table leaves to unicode-width.
        let class = (BMP_WIDTHS[(code >> 2) as usize] >> ((code & 3) * 2)) & 3;
        if class != 3 {
            return Some(class as usize);
        }
    }
    c.width()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_has_the_width_unicode_width_gives_it() {
        for c in (0..=0x10_ffff).filter_map(char::from_u32) {
            assert_eq!(width(c), c.width(), "U+{:04X}", c as u32);
        }
    }
}

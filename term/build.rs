//! The width of every character of the Basic Multilingual Plane, as
//! unicode-width gives it, packed four characters a byte, for the print
//! path's table lookup (`src/width.rs`): two bits a character, 0, 1
//! or 2 columns, or 3 for the rest, which the lookup leaves to
//! unicode-width (controls, which have no width, U+17D8, which has 3, and
//! the surrogates, which are not characters).

use std::fmt::Write;
use std::path::Path;

use unicode_width::UnicodeWidthChar;

/// Characters in the plane.
const PLANE: u32 = 0x1_0000;

/// Writes `bmp_widths.rs`, a `static BMP_WIDTHS: [u8; 16384]`, to `OUT_DIR`.
fn main() {
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let out_dir = Path::new(&out_dir);
    println!("cargo:rerun-if-changed=build.rs");
    let mut table = vec![0u8; PLANE as usize / 4];
    for code in 0..PLANE {
        let class = match char::from_u32(code).and_then(|c| c.width()) {
            Some(width @ 0..=2) => width as u8,
            _ => 3,
        };
        table[code as usize / 4] |= class << (code % 4 * 2);
    }
    let mut source = format!("static BMP_WIDTHS: [u8; {}] = [", table.len());
    for (i, byte) in table.iter().enumerate() {
        if i % 32 == 0 {
            source.push_str("\n   ");
        }
        write!(source, " {byte},").expect("writing to a String cannot fail");
    }
    source.push_str("\n];\n");
    std::fs::write(out_dir.join("bmp_widths.rs"), source).expect("OUT_DIR is writable");
}

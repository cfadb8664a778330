//! Inline images from real programs: `chafa` (sixel, kitty and iTerm2
//! output) and `img2sixel` (libsixel) draw a picture with a red left half
//! and a blue right half; the emulator must decode one image whose left and
//! right quarters have those colours (within a tolerance: the programs
//! scale and quantise). tests/run.sh installs both programs.

use std::path::PathBuf;
use std::process::Command;

use panecast_term::image::Image;
use panecast_term::Term;

const RED: [u8; 3] = [220, 30, 30];
const BLUE: [u8; 3] = [30, 30, 220];
/// Largest difference allowed per channel of a region's mean colour.
const TOLERANCE: i32 = 48;

/// A 64 x 32 PNG, red on the left half and blue on the right, on disk.
fn picture() -> PathBuf {
    let rgba: Vec<u8> = (0..32)
        .flat_map(|_| {
            (0..64).flat_map(|x| if x < 32 { RED } else { BLUE }.into_iter().chain([255]))
        })
        .collect();
    let image = Image::new(64, 32, rgba).expect("a picture");
    let path = std::env::temp_dir().join(format!("panecast-images-{}.png", std::process::id()));
    std::fs::write(&path, &*image.png()).expect("write the picture");
    path
}

/// What `program args... picture` prints.
fn run(program: &str, args: &[&str], picture: &PathBuf) -> Vec<u8> {
    let output = Command::new(program)
        .args(args)
        .arg(picture)
        .output()
        .unwrap_or_else(|e| panic!("{program} must be installed (tests/run.sh does): {e}"));
    assert!(output.status.success(), "{program} failed: {output:?}");
    output.stdout
}

/// The mean colour of columns `x0..x1` of the image, every row.
fn mean(image: &Image, x0: u32, x1: u32) -> [i32; 3] {
    let mut sum = [0i64; 3];
    let mut n = 0i64;
    for y in 0..image.height() {
        for x in x0..x1 {
            let px = image.pixel(x, y).expect("inside");
            if px[3] == 0 {
                continue;
            }
            for c in 0..3 {
                sum[c] += i64::from(px[c]);
            }
            n += 1;
        }
    }
    assert!(n > 0, "no opaque pixels in {x0}..{x1}");
    sum.map(|s| (s / n) as i32)
}

fn assert_near(what: &str, got: [i32; 3], want: [u8; 3]) {
    let close = got
        .iter()
        .zip(want)
        .all(|(g, w)| (g - i32::from(w)).abs() <= TOLERANCE);
    assert!(close, "{what}: mean {got:?}, expected about {want:?}");
}

/// Feeds a program's output to a terminal; checks the one placed image.
fn check(what: &str, output: &[u8]) {
    let mut term = Term::new(40, 12, 100);
    term.advance(output);
    let snapshot = term.snapshot();
    let placements = snapshot.placements();
    assert_eq!(
        placements.len(),
        1,
        "{what}: {placements:?} after {:?}",
        String::from_utf8_lossy(&output[..output.len().min(300)])
    );
    let image = snapshot.image(placements[0].image).expect("kept");
    let (w, h) = (image.width(), image.height());
    assert!(w >= 8 && h >= 4, "{what}: {w}x{h}");
    assert_near(&format!("{what} left"), mean(image, w / 16, w / 4), RED);
    assert_near(
        &format!("{what} right"),
        mean(image, w * 3 / 4, w * 15 / 16),
        BLUE,
    );
    // The text after the image lands on the screen as usual.
    term.advance(b"\r\nafter");
    let text: Vec<String> = term.snapshot().lines.iter().map(|l| l.text()).collect();
    assert!(
        text.iter().any(|l| l.ends_with("after")),
        "{what}: {text:?}"
    );
}

#[test]
fn chafa_and_img2sixel_images_decode_to_the_source_colours() {
    let picture = picture();
    for (format, what) in [
        ("sixel", "chafa sixel"),
        ("kitty", "chafa kitty"),
        ("iterm", "chafa iterm"),
    ] {
        let output = run(
            "chafa",
            &["-f", format, "-s", "8x4", "--animate", "off"],
            &picture,
        );
        check(what, &output);
    }
    check("img2sixel", &run("img2sixel", &[], &picture));
    let _ = std::fs::remove_file(picture);
}

//! X11's device-independent colour specs (`rgbi:`, `CIEXYZ:`, `CIEuvY:`,
//! `CIExyY:`, `CIELab:`, `CIELuv:`, `TekHVC:`), turned into device RGB as
//! libX11's Xcms does for a screen that publishes no colour
//! characterisation of its own, which is what xterm reports for them on an
//! ordinary X server: the spec becomes CIE XYZ (relative to the default
//! screen's white), XYZ becomes linear RGB intensities through the default
//! screen's matrix, a colour outside the gamut loses TekHVC chroma until it
//! is inside, and each intensity becomes the nearest 8-bit level on the
//! default screen's measured curve.
//!
//! The arithmetic is Xcms's own, scales and quirks included, since xterm's
//! replies show them: a unit of its a\* and b\* (L\*a\*b\*, from
//! lightness 8 up) and of its u\* and v\* (L\*u\*v\*) is a hundred of
//! CIE's, it divides an L\*a\*b\* lightness under 8 by 9.03292 where CIE
//! says 903.292, and it computes with its own trigonometry and roots.

mod gamut;
mod math;
mod screen;
mod spaces;

use crate::palette::Rgb;

use spaces::{in_range, Hvc};

/// Converts `prefix:a/b/c` in one of the device-independent spaces, the
/// prefix in any case; `None` if the prefix is not one of them, the numbers
/// do not parse or are out of the space's range, or the colour cannot be
/// brought into the screen's gamut.
pub(super) fn parse(spec: &str) -> Option<Rgb> {
    let (prefix, numbers) = spec.split_once(':')?;
    let mut parts = numbers.split('/').map(|n| n.parse::<f64>().ok());
    let abc = [parts.next()??, parts.next()??, parts.next()??];
    if parts.next().is_some() || abc.iter().any(|n| !n.is_finite()) {
        return None;
    }
    let [a, b, c] = abc;
    let xyz = match prefix.to_ascii_lowercase().as_str() {
        "rgbi" => return Some(screen::levels(abc)),
        "ciexyz" if in_range(b, 0.0, 1.0) => abc,
        "cieuvy" if in_range(c, 0.0, 1.0) => spaces::uvy_to_xyz(a, b, c),
        "ciexyy" if abc.iter().all(|&n| in_range(n, 0.0, 1.0)) => spaces::xyy_to_xyz(a, b, c),
        "cielab" if in_range(a, 0.0, 100.0) => spaces::lab_to_xyz(a, b, c),
        "cieluv" if in_range(a, 0.0, 100.0) => spaces::luv_to_xyz(a, b, c),
        "tekhvc" => spaces::hvc_to_xyz(Hvc {
            hue: a,
            value: b,
            chroma: c,
        })?,
        _ => return None,
    };
    // Numbers far out of scale (a chroma of 1e300) overflow on the way.
    if !xyz.iter().all(|n| n.is_finite()) {
        return None;
    }
    let mut rgb = screen::intensities(xyz);
    if !screen::in_gamut(rgb) {
        rgb = screen::intensities(gamut::clip_chroma(xyz)?);
    }
    screen::in_gamut(rgb).then(|| screen::levels(rgb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rgbi_follows_each_channels_measured_curve() {
        assert_eq!(parse("rgbi:0/0/0"), Some((0, 0, 0)));
        assert_eq!(parse("rgbi:1/1/1"), Some((0xff, 0xff, 0xff)));
        // Half the light is not half the level, and the channels differ.
        assert_eq!(parse("rgbi:0.25/0.5/0.75"), Some((0x93, 0xbb, 0xdf)));
        // A curve point gives its own level.
        assert_eq!(
            parse("rgbi:0.581199/0.622324/0.617925"),
            Some((0xcd, 0xcd, 0xcd))
        );
        // At the foot of red's curve (0x00 and 0x09 both give no light) the
        // bisection interpolates from 0x09: the nearest level is 0x0a.
        assert_eq!(parse("RGBi:0.0005/0/0"), Some((0x0a, 0, 0)));
        // Intensities are clamped to 0 to 1.
        assert_eq!(parse("rgbi:2/-1/1"), Some((0xff, 0, 0xff)));
    }

    #[test]
    fn cie_spaces_go_through_xyz_and_the_screen_matrix() {
        assert_eq!(parse("CIEXYZ:0.25/0.25/0.25"), Some((0xa8, 0x89, 0x7a)));
        assert_eq!(
            parse("ciexyz:0.25/0.25/0.25"),
            parse("CIEXYZ:0.25/0.25/0.25")
        );
        assert_eq!(parse("CIEuvY:0.2/0.45/0.3"), Some((0xab, 0x94, 0x95)));
        assert_eq!(parse("CIExyY:0.3/0.3/0.2"), Some((0x92, 0x7e, 0x7f)));
        assert_eq!(parse("CIELab:50/0.1/-0.1"), Some((0x89, 0x78, 0x8d)));
        // Dark: libX11's divisor makes L* 5 far lighter than CIE's would.
        assert_eq!(parse("CIELab:5/0.1/-0.1"), Some((0xc9, 0xc3, 0xc4)));
        assert_eq!(parse("CIELuv:50/0.1/-0.1"), Some((0x90, 0x77, 0x86)));
        assert_eq!(parse("CIELuv:3/0.01/0.01"), Some((0x1d, 0x1c, 0x15)));
    }

    #[test]
    fn tekhvc_turns_from_best_red_around_the_white() {
        assert_eq!(parse("TekHVC:200/40/3"), Some((0x64, 0x69, 0x6a)));
        assert_eq!(parse("TekHVC:30/5/1"), Some((0x24, 0x21, 0x1d)));
        // Hue wraps around, from however far (Xcms would loop for ever).
        assert_eq!(parse("TekHVC:-160/40/3"), parse("TekHVC:200/40/3"));
        assert_eq!(parse("TekHVC:3800/40/3"), parse("TekHVC:200/40/3"));
        assert!(parse("TekHVC:1e300/40/3").is_some());
        assert_eq!(parse("TekHVC:0/100/0"), Some((0xff, 0xff, 0xff)));
        assert_eq!(parse("TekHVC:0/0/0"), Some((0, 0, 0)));
    }

    #[test]
    fn colours_outside_the_gamut_lose_chroma_down_to_its_edge() {
        // Redder than the screen's red: its red intensity is above 1.
        assert_eq!(parse("CIEXYZ:0.6/0.4/0.2"), Some((0xff, 0x8c, 0x88)));
        assert_eq!(parse("TekHVC:0/50/90"), Some((0xec, 0x13, 0x68)));
        // However far out: the search ends on the edge.
        assert!(parse("TekHVC:0/50/1e308").is_some());
        assert_eq!(parse("CIELab:50/10/-10"), Some((0x00, 0x78, 0xd0)));
    }

    #[test]
    fn bad_specs_are_refused() {
        assert_eq!(parse("CIEXYZ:0/2/0"), None);
        assert_eq!(parse("CIELab:101/0/0"), None);
        assert_eq!(parse("TekHVC:0/50/-1"), None);
        assert_eq!(parse("CIExyY:0.3/1.5/0.2"), None);
        assert_eq!(parse("CIEXYZ:0.1/0.1"), None);
        assert_eq!(parse("CIEXYZ:0.1/0.1/0.1/0.1"), None);
        assert_eq!(parse("CIEXYZ:0.1/x/0.1"), None);
        assert_eq!(parse("rgbi:nan/0/0"), None);
        assert_eq!(parse("rgbi:inf/0/0"), None);
        assert_eq!(parse("hsv:0.1/0.1/0.1"), None);
        assert_eq!(parse("rgbi"), None);
        // Overflowing on the way: refused, without a panic or a long search.
        assert_eq!(parse("CIELab:50/1e300/0"), None);
        assert_eq!(parse("CIELuv:1e-300/1e300/1e300"), None);
    }

    #[test]
    fn extreme_numbers_in_every_space_end_without_a_panic() {
        let numbers = [
            "0",
            "-0",
            "1e-300",
            "-1e-300",
            "0.5",
            "1",
            "7.99953624",
            "8",
            "100",
            "-100",
            "360",
            "1e300",
            "-1e300",
        ];
        for prefix in [
            "rgbi", "CIEXYZ", "CIEuvY", "CIExyY", "CIELab", "CIELuv", "TekHVC",
        ] {
            for a in numbers {
                for b in numbers {
                    for c in numbers {
                        parse(&format!("{prefix}:{a}/{b}/{c}"));
                    }
                }
            }
        }
    }
}

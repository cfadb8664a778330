//! Xcms's default gamut compression (its TekHVC chroma clipping): a colour
//! the screen cannot show keeps its TekHVC hue and value and loses chroma,
//! down to the most the screen has at that hue and value.

use super::screen;
use super::screen::Xyz;
use super::spaces::{hvc_to_xyz, xyz_to_hvc, Hvc};

/// How near a value found by bisection must come to the one sought.
const VALUE_SLACK: f64 = 0.001;

/// Bisection steps before the nearest value found is taken.
const BISECTION_STEPS: usize = 100;

/// Xcms's tolerance at the bounds of value and chroma.
const BOUND_SLACK: f64 = f64::EPSILON;

/// `xyz` with its chroma reduced to the screen's most at its hue and value;
/// `None` when there is no such colour.
pub(super) fn clip_chroma(xyz: Xyz) -> Option<Xyz> {
    let hvc = xyz_to_hvc(xyz)?;
    hvc_to_xyz(max_chroma(hvc.hue, hvc.value)?)
}

/// The colour of most chroma the screen shows at `hue` and `value`. Under
/// the value of the hue's peak chroma, the edge is the line from black to
/// the peak; above it, the line from the peak to white, searched for the
/// value by bisection.
fn max_chroma(hue: f64, value: f64) -> Option<Hvc> {
    let mut found = settled(Hvc {
        hue,
        value,
        chroma: 100.0,
    });
    let (peak, peak_rgb) = peak(hue)?;
    if value <= peak.value {
        found.chroma = value * peak.chroma / peak.value;
        return Some(settled(found));
    }
    let mut sought = value;
    let (mut last_value, mut last_chroma) = (-1.0, -1.0);
    let span = 100.0 - peak.value;
    let mut relaxation = 1.0;
    let near = |a: f64, b: f64| (b - VALUE_SLACK..=b + VALUE_SLACK).contains(&a);
    for _ in 0..BISECTION_STEPS {
        let before_last = last_value;
        (last_value, last_chroma) = (found.value, found.chroma);
        let toward_white = (sought - peak.value) / span * relaxation;
        let rgb = peak_rgb.map(|i| i * (1.0 - toward_white) + toward_white);
        found = xyz_to_hvc(screen::xyz(rgb))?;
        if near(found.value, value) {
            found.hue = hue;
            return Some(settled(found));
        }
        sought += value - found.value;
        if sought < peak.value {
            sought = peak.value;
            relaxation *= 0.5;
        } else if sought > 100.0 {
            found.hue = hue;
            if (last_value - value).abs() < (found.value - value).abs() {
                (found.value, found.chroma) = (last_value, last_chroma);
            }
            return Some(settled(found));
        } else if near(found.value, before_last) {
            relaxation *= 0.5;
        }
    }
    if (last_value - value).abs() < (found.value - value).abs() {
        (found.value, found.chroma) = (last_value, last_chroma);
    }
    found.hue = hue;
    Some(found)
}

/// The colour of most chroma at `hue` (its value and chroma) and its
/// linear RGB intensities: the hue's direction pushed until one intensity
/// is 0 and another 1.
fn peak(hue: f64) -> Option<(Hvc, [f64; 3])> {
    let beyond = hvc_to_xyz(Hvc {
        hue,
        value: 40.0,
        chroma: 120.0,
    })?;
    let mut rgb = screen::intensities(beyond);
    if screen::in_gamut(rgb) {
        rgb = rgb.map(|i| i.clamp(0.0, 1.0));
    }
    let least = rgb[0].min(rgb[1]).min(rgb[2]);
    let rgb = rgb.map(|i| i - least);
    let most = rgb[0].max(rgb[1]).max(rgb[2]);
    let rgb = rgb.map(|i| i / most);
    let peak = xyz_to_hvc(screen::xyz(rgb))?;
    Some((Hvc { hue, ..peak }, rgb))
}

/// `hvc` as Xcms settles a result: value and chroma just inside their
/// bounds, hue within 0 to 360 in whole turns at once.
fn settled(mut hvc: Hvc) -> Hvc {
    if hvc.value < 0.0 {
        hvc.value = BOUND_SLACK;
    } else if hvc.value > 100.0 {
        hvc.value = 100.0 - BOUND_SLACK;
    }
    if hvc.chroma < 0.0 {
        hvc.chroma = -BOUND_SLACK;
    }
    if hvc.hue < 0.0 {
        let turns = (-hvc.hue / 360.0).trunc();
        hvc.hue += (turns + 1.0) * 360.0;
        if hvc.hue >= 360.0 {
            hvc.hue -= 360.0;
        }
    } else if hvc.hue >= 360.0 {
        hvc.hue -= (hvc.hue / 360.0).trunc() * 360.0;
    }
    hvc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clipped_colour_is_on_the_gamuts_edge_at_its_hue_and_value() {
        // Saturated red, far past what the screen shows.
        let vivid = Hvc {
            hue: 0.0,
            value: 50.0,
            chroma: 90.0,
        };
        let xyz = hvc_to_xyz(vivid).unwrap();
        assert!(!screen::in_gamut(screen::intensities(xyz)));
        let clipped = clip_chroma(xyz).unwrap();
        let rgb = screen::intensities(clipped);
        assert!(screen::in_gamut(rgb), "{rgb:?}");
        // On the edge: one intensity at a bound.
        assert!(rgb.iter().any(|i| i.abs() < 1e-9 || (i - 1.0).abs() < 1e-9));
        let hvc = xyz_to_hvc(clipped).unwrap();
        assert!((hvc.hue - vivid.hue).abs() < 1e-3 || (hvc.hue - 360.0).abs() < 1e-3);
        assert!((hvc.value - vivid.value).abs() < 1e-3);
        assert!(hvc.chroma < vivid.chroma);
    }

    #[test]
    fn hues_settle_within_a_turn() {
        let hvc = |hue| Hvc {
            hue,
            value: 50.0,
            chroma: 1.0,
        };
        assert_eq!(settled(hvc(-30.0)).hue, 330.0);
        assert_eq!(settled(hvc(750.0)).hue, 30.0);
        assert_eq!(settled(hvc(-720.0)).hue, 0.0);
    }
}

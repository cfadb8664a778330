//! Xcms's device-independent colour spaces and their conversions to and
//! from CIE XYZ, relative to the screen's white, with Xcms's formulas and
//! in its order of operations.

use std::f64::consts::PI;

use super::math;
use super::screen::{white, Xyz};

/// Xcms's tolerance on the ranges of a spec's numbers.
const RANGE_SLACK: f64 = f64::EPSILON;

/// The hue of TekHVC's 0 degrees: the chromaticity (u', v') of its "best
/// red".
const BEST_RED: (f64, f64) = (0.7127, 0.4931);

/// TekHVC chroma per unit of u'v' distance, per unit of value.
const CHROMA_SCALE: f64 = 7.50725;

/// Below this CIE lightness (L\*, or TekHVC value) luminance is linear in
/// it.
const LINEAR_LIGHTNESS: f64 = 7.99953624;

/// Below this luminance lightness is linear in it.
const LINEAR_LUMINANCE: f64 = 0.008856;

/// How far a TekHVC hue may fall below 0 or beyond 360 degrees before a
/// conversion into it wraps it.
const HUE_SLACK: f64 = 0.001;

/// Beyond this many degrees a hue is wrapped in one step.
const FAR_DEGREES: f64 = 3600.0;

/// A colour in TekHVC: hue in degrees, value (lightness, 0 to 100) and
/// chroma.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Hvc {
    /// Degrees from TekHVC's red.
    pub(super) hue: f64,
    /// 0 (black) to 100 (white).
    pub(super) value: f64,
    /// 0 (grey) up.
    pub(super) chroma: f64,
}

/// Whether `n` is within `low..=high`, give or take Xcms's tolerance.
pub(super) fn in_range(n: f64, low: f64, high: f64) -> bool {
    (low - RANGE_SLACK..=high + RANGE_SLACK).contains(&n)
}

/// The screen's white as CIE u'v' chromaticity.
fn white_uv() -> (f64, f64) {
    let [x, y, z] = white();
    let div = x + 15.0 * y + 3.0 * z;
    (4.0 * x / div, 9.0 * y / div)
}

/// CIE u'v'Y to XYZ; a degenerate chromaticity takes the white's.
pub(super) fn uvy_to_xyz(u: f64, v: f64, luminance: f64) -> Xyz {
    let (mut u, mut v) = (u, v);
    if 6.0 * u - 16.0 * v + 12.0 == 0.0 {
        (u, v) = white_uv();
    }
    let div = 6.0 * u - 16.0 * v + 12.0;
    let (x, y) = (9.0 * u / div, 4.0 * v / div);
    let z = 1.0 - x - y;
    if y == 0.0 {
        [x, luminance, z]
    } else {
        [x * luminance / y, luminance, z * luminance / y]
    }
}

/// CIE xyY to XYZ, by way of u'v'.
pub(super) fn xyy_to_xyz(x: f64, y: f64, luminance: f64) -> Xyz {
    let div = -2.0 * x + 12.0 * y + 3.0;
    if div == 0.0 {
        return [0.0; 3];
    }
    uvy_to_xyz(4.0 * x / div, 9.0 * y / div, luminance)
}

/// CIE L\*a\*b\* to XYZ, as Xcms reads it.
pub(super) fn lab_to_xyz(l: f64, a: f64, b: f64) -> Xyz {
    let [white_x, _, white_z] = white();
    let f = (l + 16.0) / 116.0;
    if f * f * f < LINEAR_LUMINANCE {
        let y = l / 9.03292;
        [white_x * (a / 3893.5 + y), y, white_z * (y - b / 1557.4)]
    } else {
        let (fx, fz) = (f + a / 5.0, f - b / 2.0);
        [white_x * fx * fx * fx, f * f * f, white_z * fz * fz * fz]
    }
}

/// CIE L\*u\*v\* to XYZ, as Xcms reads it.
pub(super) fn luv_to_xyz(l: f64, u: f64, v: f64) -> Xyz {
    let (white_u, white_v) = white_uv();
    if l == 0.0 {
        return uvy_to_xyz(white_u, white_v, 0.0);
    }
    let scale = 13.0 * (l / 100.0);
    uvy_to_xyz(u / scale + white_u, v / scale + white_v, luminance(l))
}

/// CIE luminance of a lightness L\* (or a TekHVC value).
fn luminance(lightness: f64) -> f64 {
    if lightness < LINEAR_LIGHTNESS {
        lightness / 903.29
    } else {
        let f = (lightness + 16.0) / 116.0;
        f * f * f
    }
}

/// CIE lightness L\* (TekHVC's value) of a luminance.
fn lightness(luminance: f64) -> f64 {
    if luminance < LINEAR_LUMINANCE {
        luminance * 903.29
    } else {
        math::cbrt(luminance) * 116.0 - 16.0
    }
}

/// Degrees between the u' axis and the line from the white to TekHVC's
/// red.
fn hue_offset() -> f64 {
    let (white_u, white_v) = white_uv();
    let slope = (BEST_RED.1 - white_v) / (BEST_RED.0 - white_u);
    math::atan(slope) * 180.0 / PI
}

/// TekHVC to XYZ; `None` for a value outside 0 to 100 or a negative
/// chroma.
pub(super) fn hvc_to_xyz(hvc: Hvc) -> Option<Xyz> {
    let Hvc {
        mut hue,
        mut value,
        mut chroma,
    } = hvc;
    if !in_range(value, 0.0, 100.0) || chroma < -RANGE_SLACK {
        return None;
    }
    // As Xcms does: a value just past a bound moves just inside it, a
    // chroma just under 0 to minus the tolerance.
    if value < 0.0 {
        value = RANGE_SLACK;
    } else if value > 100.0 {
        value = 100.0 - RANGE_SLACK;
    }
    if chroma < 0.0 {
        chroma = -RANGE_SLACK;
    }
    hue = wrap_degrees(hue);
    let (white_u, white_v) = white_uv();
    if value == 0.0 || value == 100.0 {
        return Some(uvy_to_xyz(white_u, white_v, value / 100.0));
    }
    hue = wrap_degrees(hue + hue_offset());
    let angle = hue * PI / 180.0;
    let u = math::cos(angle) * chroma / (value * CHROMA_SCALE);
    let v = math::sin(angle) * chroma / (value * CHROMA_SCALE);
    Some(uvy_to_xyz(u + white_u, v + white_v, luminance(value)))
}

/// `degrees` brought into 0 to 360 by whole turns, one at a time as Xcms
/// does, but at once from far out (where Xcms would loop for ever).
fn wrap_degrees(mut degrees: f64) -> f64 {
    if degrees.abs() > FAR_DEGREES {
        degrees = degrees.rem_euclid(360.0);
    }
    while degrees < 0.0 {
        degrees += 360.0;
    }
    while degrees >= 360.0 {
        degrees -= 360.0;
    }
    degrees
}

/// XYZ to TekHVC; `None` for a luminance outside 0 to 1.
pub(super) fn xyz_to_hvc([x, y, z]: Xyz) -> Option<Hvc> {
    if !in_range(y, 0.0, 1.0) {
        return None;
    }
    let (white_u, white_v) = white_uv();
    let div = x + 15.0 * y + 3.0 * z;
    let (u, v) = if div == 0.0 {
        (0.0, 0.0)
    } else {
        (4.0 * x / div - white_u, 9.0 * y / div - white_v)
    };
    let mut theta = if u == 0.0 {
        0.0
    } else {
        math::atan(v / u) * 180.0 / PI
    };
    let (low, high) = match (u > 0.0, u < 0.0, v > 0.0, v < 0.0) {
        (true, _, true, _) => (0.0, 90.0),
        (_, true, true, _) => (90.0, 180.0),
        (_, true, _, true) => (180.0, 270.0),
        (true, _, _, true) => (270.0, 360.0),
        _ => (0.0, 360.0),
    };
    while theta < low {
        theta += 90.0;
    }
    while theta >= high {
        theta -= 90.0;
    }
    let value = lightness(y);
    let mut hue = theta - hue_offset();
    while hue < -HUE_SLACK {
        hue += 360.0;
    }
    while hue >= 360.0 + HUE_SLACK {
        hue -= 360.0;
    }
    Some(Hvc {
        hue,
        value,
        chroma: value * CHROMA_SCALE * math::sqrt(u * u + v * v),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hvc_and_xyz_convert_back_and_forth() {
        for hvc in [
            Hvc {
                hue: 10.0,
                value: 50.0,
                chroma: 20.0,
            },
            Hvc {
                hue: 200.0,
                value: 5.0,
                chroma: 3.0,
            },
            Hvc {
                hue: 300.0,
                value: 90.0,
                chroma: 0.5,
            },
        ] {
            let back = xyz_to_hvc(hvc_to_xyz(hvc).unwrap()).unwrap();
            assert!((back.hue - hvc.hue).abs() < 1e-4, "{hvc:?} {back:?}");
            assert!((back.value - hvc.value).abs() < 1e-9, "{hvc:?} {back:?}");
            assert!((back.chroma - hvc.chroma).abs() < 1e-6, "{hvc:?} {back:?}");
        }
    }

    #[test]
    fn the_white_has_no_chroma_and_full_value() {
        let hvc = xyz_to_hvc(white()).unwrap();
        assert_eq!(hvc.value, 100.0);
        assert!(hvc.chroma.abs() < 1e-12);
        let xyz = hvc_to_xyz(Hvc {
            hue: 0.0,
            value: 100.0,
            chroma: 0.0,
        })
        .unwrap();
        assert!(xyz.iter().zip(white()).all(|(a, b)| (a - b).abs() < 1e-12));
    }

    #[test]
    fn out_of_range_colours_do_not_convert() {
        let dark = Hvc {
            hue: 0.0,
            value: -1.0,
            chroma: 0.0,
        };
        assert_eq!(hvc_to_xyz(dark), None);
        assert_eq!(
            hvc_to_xyz(Hvc {
                chroma: -1.0,
                ..dark
            }),
            None
        );
        assert_eq!(xyz_to_hvc([0.5, 1.5, 0.5]), None);
    }
}

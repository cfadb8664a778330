//! The default screen Xcms characterises when the X server publishes no
//! characterisation of its own: the matrices between CIE XYZ and linear RGB
//! intensities, and each channel's measured curve from intensity to level.

use crate::palette::Rgb;

/// A colour in CIE XYZ.
pub(super) type Xyz = [f64; 3];

/// A point of a channel's intensity curve: the 8-bit level (the device
/// value is the level repeated, as `0x0a0a`) and the light it gives, 0 to 1.
type Point = (u8, f64);

// The curves are Xcms's default characterisation, measured on a Tektronix
// 19" CRT (libX11 src/xcms/LRGB.c, which carries this notice):
//   Code and supporting documentation (c) Copyright 1990 1991 Tektronix,
//   Inc. All Rights Reserved. Permission is hereby granted to use, copy,
//   modify, sell, and otherwise distribute this software and its
//   documentation for any purpose and without fee, provided that this
//   copyright, permission, and disclaimer notice is reproduced in all
//   copies of this software and in supporting documentation. TekColor is a
//   trademark of Tektronix, Inc. Tektronix makes no representation about
//   the suitability of this software for any purpose. It is provided "as
//   is" and with all faults. TEKTRONIX DISCLAIMS ALL WARRANTIES APPLICABLE
//   TO THIS SOFTWARE, INCLUDING THE IMPLIED WARRANTIES OF MERCHANTABILITY
//   AND FITNESS FOR A PARTICULAR PURPOSE. IN NO EVENT SHALL TEKTRONIX BE
//   LIABLE FOR ANY SPECIAL, INDIRECT OR CONSEQUENTIAL DAMAGES OR ANY
//   DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA, OR PROFITS,
//   WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE, OR OTHER TORTIOUS ACTION,
//   ARISING OUT OF OR IN CONNECTION WITH THE USE OR THE PERFORMANCE OF THIS
//   SOFTWARE.

/// Red's intensity curve.
#[rustfmt::skip]
const RED: [Point; 52] = [
    (0x00, 0.000000), (0x09, 0.000000), (0x0a, 0.000936), (0x0f, 0.001481),
    (0x14, 0.002329), (0x19, 0.003529), (0x1e, 0.005127), (0x23, 0.007169),
    (0x28, 0.009699), (0x2d, 0.012759), (0x32, 0.016392), (0x37, 0.020637),
    (0x3c, 0.025533), (0x41, 0.031119), (0x46, 0.037431), (0x4b, 0.044504),
    (0x50, 0.052373), (0x55, 0.061069), (0x5a, 0.070624), (0x5f, 0.081070),
    (0x64, 0.092433), (0x69, 0.104744), (0x6e, 0.118026), (0x73, 0.132307),
    (0x78, 0.147610), (0x7d, 0.163958), (0x82, 0.181371), (0x87, 0.199871),
    (0x8c, 0.219475), (0x91, 0.240202), (0x96, 0.262069), (0x9b, 0.285089),
    (0xa0, 0.309278), (0xa5, 0.334647), (0xaa, 0.361208), (0xaf, 0.388971),
    (0xb4, 0.417945), (0xb9, 0.448138), (0xbe, 0.479555), (0xc3, 0.512202),
    (0xc8, 0.546082), (0xcd, 0.581199), (0xd2, 0.617552), (0xd7, 0.655144),
    (0xdc, 0.693971), (0xe1, 0.734031), (0xe6, 0.775322), (0xeb, 0.817837),
    (0xf0, 0.861571), (0xf5, 0.906515), (0xfa, 0.952662), (0xff, 1.000000),
];

/// Green's intensity curve.
#[rustfmt::skip]
const GREEN: [Point; 50] = [
    (0x00, 0.000000), (0x13, 0.000000), (0x14, 0.000832), (0x19, 0.001998),
    (0x1e, 0.003612), (0x23, 0.005736), (0x28, 0.008428), (0x2d, 0.011745),
    (0x32, 0.015740), (0x37, 0.020463), (0x3c, 0.025960), (0x41, 0.032275),
    (0x46, 0.039449), (0x4b, 0.047519), (0x50, 0.056520), (0x55, 0.066484),
    (0x5a, 0.077439), (0x5f, 0.089409), (0x64, 0.102418), (0x69, 0.116485),
    (0x6e, 0.131625), (0x73, 0.147853), (0x78, 0.165176), (0x7d, 0.183604),
    (0x82, 0.203140), (0x87, 0.223783), (0x8c, 0.245533), (0x91, 0.268384),
    (0x96, 0.292327), (0x9b, 0.317351), (0xa0, 0.343441), (0xa5, 0.370580),
    (0xaa, 0.398747), (0xaf, 0.427919), (0xb4, 0.458068), (0xb9, 0.489165),
    (0xbe, 0.521176), (0xc3, 0.554067), (0xc8, 0.587797), (0xcd, 0.622324),
    (0xd2, 0.657604), (0xd7, 0.693588), (0xdc, 0.730225), (0xe1, 0.767459),
    (0xe6, 0.805235), (0xeb, 0.843491), (0xf0, 0.882164), (0xf5, 0.921187),
    (0xfa, 0.960490), (0xff, 1.000000),
];

/// Blue's intensity curve.
#[rustfmt::skip]
const BLUE: [Point; 51] = [
    (0x00, 0.000000), (0x0e, 0.000000), (0x0f, 0.001341), (0x14, 0.002080),
    (0x19, 0.003188), (0x1e, 0.004729), (0x23, 0.006766), (0x28, 0.009357),
    (0x2d, 0.012559), (0x32, 0.016424), (0x37, 0.021004), (0x3c, 0.026344),
    (0x41, 0.032489), (0x46, 0.039481), (0x4b, 0.047357), (0x50, 0.056154),
    (0x55, 0.065903), (0x5a, 0.076634), (0x5f, 0.088373), (0x64, 0.101145),
    (0x69, 0.114968), (0x6e, 0.129862), (0x73, 0.145841), (0x78, 0.162915),
    (0x7d, 0.181095), (0x82, 0.200386), (0x87, 0.220791), (0x8c, 0.242309),
    (0x91, 0.264937), (0x96, 0.288670), (0x9b, 0.313499), (0xa0, 0.339410),
    (0xa5, 0.366390), (0xaa, 0.394421), (0xaf, 0.423481), (0xb4, 0.453547),
    (0xb9, 0.484592), (0xbe, 0.516587), (0xc3, 0.549498), (0xc8, 0.583291),
    (0xcd, 0.617925), (0xd2, 0.653361), (0xd7, 0.689553), (0xdc, 0.726454),
    (0xe1, 0.764013), (0xe6, 0.802178), (0xeb, 0.840891), (0xf0, 0.880093),
    (0xf5, 0.919723), (0xfa, 0.959715), (0xff, 1.000000),
];

/// The default screen's CIE XYZ to linear RGB matrix.
const XYZ_TO_RGB: [[f64; 3]; 3] = [
    [3.48340481253539, -1.521763749272852, -0.5592313335404978],
    [-1.071527513061936, 1.965937952043724, 0.03673691339553462],
    [0.06351179790497788, -0.2002050100049648, 0.8107094203164822],
];

/// The default screen's linear RGB to CIE XYZ matrix; its rows' sums are
/// the screen's white.
const RGB_TO_XYZ: [[f64; 3]; 3] = [
    [0.3810614910871479, 0.3202571236535211, 0.248345785259331],
    [0.2072974511514085, 0.6805463877637324, 0.1121561610848592],
    [0.02133944350088028, 0.1429719302024648, 1.241728926296655],
];

/// How far outside 0 to 1 an intensity may be and still count as in
/// gamut.
const GAMUT_SLACK: f64 = 0.001;

/// The screen's white in CIE XYZ (Y is 1): the sums of [`RGB_TO_XYZ`]'s rows.
pub(super) fn white() -> Xyz {
    let [x, _, z] = RGB_TO_XYZ.map(|row| row.iter().sum::<f64>());
    [x, 1.0, z]
}

/// Linear RGB intensities (0 to 1 in gamut) of a colour, unclamped.
pub(super) fn intensities(xyz: Xyz) -> [f64; 3] {
    product(&XYZ_TO_RGB, xyz)
}

/// Whether intensities are within the screen's gamut, give or take its
/// slack.
pub(super) fn in_gamut(rgb: [f64; 3]) -> bool {
    rgb.iter()
        .all(|i| (-GAMUT_SLACK..=1.0 + GAMUT_SLACK).contains(i))
}

/// The colour linear RGB intensities make.
pub(super) fn xyz(rgb: [f64; 3]) -> Xyz {
    product(&RGB_TO_XYZ, rgb)
}

/// `matrix` times `vector`.
fn product(matrix: &[[f64; 3]; 3], vector: [f64; 3]) -> [f64; 3] {
    matrix.map(|row| row.iter().zip(vector).map(|(m, v)| m * v).sum::<f64>())
}

/// The 8-bit colour linear RGB intensities give, each clamped to 0 to 1.
pub(super) fn levels(rgb: [f64; 3]) -> Rgb {
    let [r, g, b] = rgb.map(|i| i.clamp(0.0, 1.0));
    (level(&RED, r), level(&GREEN, g), level(&BLUE, b))
}

/// The 8-bit level a channel shows `intensity` (0 to 1) with: between the
/// two curve points around it, the level nearest the linear interpolation
/// (a tie goes down).
fn level(curve: &[Point], intensity: f64) -> u8 {
    if intensity <= curve[0].1 {
        return curve[0].0;
    }
    // libX11's bisection, as it is: where the curve's foot has equal
    // intensities, the pair it stops between decides the level.
    let (mut lo, mut hi) = (0, curve.len() - 1);
    let (mut mid, mut last) = (lo, hi);
    while mid != last {
        last = mid;
        mid = lo + (hi - lo) / 2;
        if intensity == curve[mid].1 {
            return curve[mid].0;
        }
        if intensity < curve[mid].1 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let ((lo_level, lo_light), (hi_level, hi_light)) = (curve[lo], curve[hi]);
    let (lo_value, hi_value) = (i64::from(lo_level) * 0x101, i64::from(hi_level) * 0x101);
    let ratio = (intensity - lo_light) / (hi_light - lo_light);
    // Truncated as libX11 does (a `long` scaled by a double).
    let target = lo_value + ((hi_value - lo_value) as f64 * ratio) as i64;
    let (down, up) = nearest_levels(target);
    let chosen = if up * 0x101 - target < target - down * 0x101 {
        up
    } else {
        down
    };
    chosen as u8
}

/// The two 8-bit levels libX11 weighs for a 16-bit `target`: the level of
/// its high byte and its neighbour on the far side of `target`.
fn nearest_levels(target: i64) -> (i64, i64) {
    let high = target >> 8;
    if high * 0x101 < target {
        (high, (high + 1).min(0xff))
    } else {
        ((high - 1).max(0), high)
    }
}

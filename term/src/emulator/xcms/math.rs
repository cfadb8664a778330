//! The elementary functions libX11's Xcms computes with instead of libm's,
//! to the same bits: whether a colour on the edge of the gamut has a blue
//! intensity of 0 or of 1e-19 (and so which level it shows) depends on
//! their rounding.

use std::f64::consts::PI;

/// A cap on the Newton iterations of [`sqrt`] and [`cbrt`], which libX11
/// runs until they settle: from its first guess a root of any finite
/// double settles within some 1100 steps (one per halving of the exponent,
/// then a few).
const NEWTON_STEPS: usize = 1100;

/// The arithmetic-geometric mean steps [`atan`] may take, as libX11's.
const AGM_STEPS: usize = 10_000;

/// Below this magnitude sine is its argument and cosine `sqrt(1 - x²)`.
const TINY: f64 = 4.209340e-52;

/// Numerator coefficients of cosine's rational approximation on
/// [-pi/4, pi/4], in powers of (x/(pi/4))².
const COS_P: [f64; 4] = [
    1290539.4659037373,
    -374567.03915723204,
    13432.300986539085,
    -112.31450823340933,
];
/// Denominator coefficients of cosine's approximation.
const COS_Q: [f64; 4] = [
    1290539.4659037373,
    23467.773107245834,
    209.69518196726307,
    1.0,
];
/// Numerator coefficients of sine's approximation (times x/(pi/4)).
const SIN_P: [f64; 4] = [
    2066434.3336995859,
    -181603.98797407333,
    3599.930694963619,
    -20.107483294588615,
];
/// Denominator coefficients of sine's approximation.
const SIN_Q: [f64; 4] = [2631065.91026477, 39270.242774649, 278.11919481083845, 1.0];

/// Square root by Newton's method from `a / 4` (or `4a`); 0 for negatives.
pub(super) fn sqrt(a: f64) -> f64 {
    if a <= 0.0 {
        return 0.0;
    }
    let mut guess = if a > 1.0 { a / 4.0 } else { a * 4.0 };
    for _ in 0..NEWTON_STEPS {
        let delta = (guess - a / guess) / 2.0;
        guess -= delta;
        if delta.abs() < guess * f64::EPSILON || delta.is_nan() {
            break;
        }
    }
    guess
}

/// Cube root by Newton's method from `|a| / 8` (or `8|a|`).
pub(super) fn cbrt(a: f64) -> f64 {
    if a == 0.0 {
        return 0.0;
    }
    let magnitude = a.abs();
    let mut guess = if magnitude > 1.0 {
        magnitude / 8.0
    } else {
        magnitude * 8.0
    };
    for _ in 0..NEWTON_STEPS {
        let delta = (guess - magnitude / (guess * guess)) / 3.0;
        guess -= delta;
        if delta.abs() < guess * f64::EPSILON || delta.is_nan() {
            break;
        }
    }
    guess.copysign(a)
}

/// Arc tangent through the arithmetic-geometric mean.
pub(super) fn atan(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    // Relative for small arguments; negative ones never meet it, and run
    // until the means agree.
    let max_error = if x < 1.0 { x * 1e-6 } else { 1e-6 };
    let (mut a, mut b) = (sqrt(1.0 / (1.0 + x * x)), 1.0);
    let (mut next_a, mut next_b) = (0.0, 0.0);
    for _ in 0..AGM_STEPS {
        next_a = (a + b) / 2.0;
        next_b = sqrt(next_a * b);
        if next_a == next_b || (next_a - next_b).abs() < max_error {
            break;
        }
        (a, b) = (next_a, next_b);
    }
    x / (sqrt(1.0 + x * x) * next_a.min(next_b))
}

/// Cosine by a rational approximation on [-pi/4, pi/4] and symmetries.
pub(super) fn cos(x: f64) -> f64 {
    let x = within_pi(x);
    if x > PI / 2.0 {
        -cos(x - PI)
    } else if x < -PI / 2.0 {
        -cos(x + PI)
    } else if x > PI / 4.0 {
        sin(PI / 2.0 - x)
    } else if x < -PI / 4.0 {
        sin(PI / 2.0 + x)
    } else if x.abs() < TINY {
        sqrt(1.0 - x * x)
    } else {
        let y = x / (PI / 4.0);
        polynomial(&COS_P, y * y) / polynomial(&COS_Q, y * y)
    }
}

/// Sine by a rational approximation on [-pi/4, pi/4] and symmetries.
pub(super) fn sin(x: f64) -> f64 {
    let x = within_pi(x);
    if x > PI / 2.0 {
        -sin(x - PI)
    } else if x < -PI / 2.0 {
        -sin(x + PI)
    } else if x > PI / 4.0 {
        cos(PI / 2.0 - x)
    } else if x < -PI / 4.0 {
        -cos(PI / 2.0 + x)
    } else if x.abs() < TINY {
        x
    } else {
        let y = x / (PI / 4.0);
        y * (polynomial(&SIN_P, y * y) / polynomial(&SIN_Q, y * y))
    }
}

/// `x` brought into [-pi, pi] by whole turns, as libX11 does it (which
/// goes wrong for negative angles past a half turn: Xcms passes none).
fn within_pi(x: f64) -> f64 {
    if (-PI..=PI).contains(&x) {
        return x;
    }
    let turns = x / (2.0 * PI);
    let x = (turns - whole_part(turns)) * (2.0 * PI);
    if x > PI {
        x - 2.0 * PI
    } else if x < -PI {
        x + 2.0 * PI
    } else {
        x
    }
}

/// The whole part of `value`'s magnitude, found by adding and taking away
/// 2^53 (libX11's way; `value.abs().trunc()` where that is exact).
fn whole_part(value: f64) -> f64 {
    // 0x7fff_ffff * 2^22, as libX11 spells it: just under 2^53.
    const BIG: f64 = 2_147_483_647.0 * 4_194_304.0;
    let magnitude = value.abs();
    if magnitude >= BIG {
        return value;
    }
    let mut whole = magnitude + BIG - BIG;
    if whole > magnitude {
        whole -= 1.0;
    }
    whole.abs()
}

/// `coefficients[0] + x * (coefficients[1] + x * (...))`.
fn polynomial(coefficients: &[f64; 4], x: f64) -> f64 {
    coefficients
        .iter()
        .rev()
        .skip(1)
        .fold(coefficients[3], |sum, &c| c + x * sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_functions_agree_with_libm_to_their_precision() {
        // Angles from minus a half turn to a whole turn: Xcms's.
        for i in -8..=17 {
            let x = f64::from(i) * 0.37;
            assert!((sin(x) - x.sin()).abs() < 1e-15, "sin {x}");
            assert!((cos(x) - x.cos()).abs() < 1e-15, "cos {x}");
            // The mean stops at a relative error of 1e-6.
            assert!((atan(x) - x.atan()).abs() < 1e-6, "atan {x}");
            assert!((cbrt(x) - x.cbrt()).abs() < 1e-15, "cbrt {x}");
            let square = x * x;
            assert!((sqrt(square) - x.abs()).abs() < 1e-14, "sqrt {square}");
        }
        assert_eq!(sqrt(-1.0), 0.0);
        assert!((sqrt(f64::MAX) / f64::MAX.sqrt() - 1.0).abs() < 1e-15);
        assert!(sqrt(f64::INFINITY).is_nan());
    }

    #[test]
    fn angles_beyond_a_half_turn_wrap() {
        assert!((sin(7.0 * PI / 2.0) + 1.0).abs() < 1e-15);
        assert!((cos(3.0 * PI) + 1.0).abs() < 1e-15);
        assert_eq!(whole_part(-2.75), 2.0);
        assert_eq!(whole_part(1e300), 1e300);
    }
}

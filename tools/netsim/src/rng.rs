//! A small seeded pseudo-random generator (SplitMix64) for jitter: fast,
//! repeatable from a seed, and not for anything secret.

/// SplitMix64: a 64-bit state stepped by a constant and mixed on the way out.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

/// The golden-ratio step of SplitMix64.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function: a bijection that scatters every bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SplitMix64 {
    /// A generator for stream `stream` of `seed`: different streams of one
    /// seed give unrelated sequences, the same pair always the same one.
    pub fn new(seed: u64, stream: u64) -> SplitMix64 {
        SplitMix64 {
            state: mix(seed ^ mix(stream.wrapping_add(GAMMA))),
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix(self.state)
    }

    /// A number uniform in [0, 1).
    pub fn next_unit(&mut self) -> f64 {
        // The top 53 bits fill an f64's mantissa exactly.
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_stream_repeat_and_others_differ() {
        let run = |seed, stream| {
            let mut rng = SplitMix64::new(seed, stream);
            (0..8).map(|_| rng.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(run(7, 1), run(7, 1));
        assert_ne!(run(7, 1), run(7, 2));
        assert_ne!(run(7, 1), run(8, 1));
    }

    #[test]
    fn units_stay_in_range_and_spread() {
        let mut rng = SplitMix64::new(1, 0);
        let samples: Vec<f64> = (0..10_000).map(|_| rng.next_unit()).collect();
        assert!(samples.iter().all(|x| (0.0..1.0).contains(x)));
        let low = samples.iter().filter(|x| **x < 0.5).count();
        assert!((4_500..5_500).contains(&low), "{low} of 10000 below 0.5");
    }
}

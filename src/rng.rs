//! A small seeded generator (SplitMix64) for `arbiter analyze`: the same
//! seed gives the same samples on every machine.

#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The stream of sample `j` of the analysis seeded with `seed`: its
    /// own, whatever the samples drawn before it (so that any range of
    /// samples can be drawn apart, `arbiter analyze --shard`). Its state
    /// starts at a scrambled mix of both, far from every other sample's.
    pub fn for_sample(seed: u64, j: u64) -> Self {
        SplitMix64(mix(seed ^ mix(j.wrapping_add(0x632B_E59B_D9B4_E019))))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }

    /// Shuffles in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// SplitMix64's output function: a bijection of 64-bit words whose every
/// output bit depends on every input bit.
fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_draw_streams_of_their_own() {
        // The same sample, the same stream; neighbouring samples and seeds,
        // streams that share no early output.
        let first = |seed, j| SplitMix64::for_sample(seed, j).next_u64();
        assert_eq!(first(7, 3), first(7, 3));
        let mut seen = std::collections::HashSet::new();
        for seed in 0..20 {
            for j in 0..500 {
                let mut r = SplitMix64::for_sample(seed, j);
                for _ in 0..8 {
                    assert!(seen.insert(r.next_u64()), "seed {seed}, sample {j}: a repeated output");
                }
            }
        }
    }
}

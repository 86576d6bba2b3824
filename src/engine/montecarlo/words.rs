//! The bit-parallel kernel of the Monte Carlo: 64 trials per `u64`, bit `i`
//! being trial `i`. A chance drawn as a word of independent Bernoulli bits,
//! and a required edge (all of, any of, at least `k` of its targets)
//! evaluated on words with bitwise operations.

use rand::Rng as _;
use rand_chacha::ChaCha8Rng;

/// A probability as a 64-bit threshold: a trial's bit is 1 when its uniform
/// 64-bit fraction is below the threshold (a resolution of 2^-64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Chance {
    Never,
    Always,
    Below(u64),
}

impl Chance {
    pub(super) fn of(p: f64) -> Self {
        if p.is_nan() || p <= 0.0 {
            return Self::Never;
        }
        if p >= 1.0 {
            return Self::Always;
        }
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "p is in (0, 1), so p × 2^64 is below 2^64; the cast floors it"
        )]
        let threshold = (p * 18_446_744_073_709_551_616.0) as u64;
        if threshold == 0 {
            Self::Never
        } else {
            Self::Below(threshold)
        }
    }

    /// 64 independent trials of this chance, one per bit.
    pub(super) fn draw(self, rng: &mut ChaCha8Rng) -> u64 {
        match self {
            Self::Never => 0,
            Self::Always => !0,
            Self::Below(threshold) => bernoulli(rng, threshold),
        }
    }
}

/// 64 bits, each 1 with probability `threshold / 2^64`: each trial's uniform
/// fraction is read one bit per random word from the top and compared with
/// the threshold's bits; a trial is decided at the first bit where they
/// differ, so half of the undecided trials are settled per word and a word
/// of trials costs about log2(64) + 1 random words.
fn bernoulli(rng: &mut ChaCha8Rng, threshold: u64) -> u64 {
    let mut below = 0u64;
    let mut undecided = !0u64;
    for bit in (0..64).rev() {
        let u = rng.next_u64();
        if threshold >> bit & 1 == 1 {
            // A 0 where the threshold has a 1: below it.
            below |= undecided & !u;
            undecided &= u;
        } else {
            // A 1 where the threshold has a 0: above it.
            undecided &= !u;
        }
        if undecided == 0 {
            break;
        }
    }
    below
}

/// A required edge: at least `k` of the targets up.
#[derive(Debug, Clone)]
pub(super) struct Gate {
    pub(super) targets: Vec<usize>,
    pub(super) k: usize,
}

impl Gate {
    /// The trials in which the gate holds.
    pub(super) fn holds(&self, up: &[u64], planes: &mut Vec<u64>) -> u64 {
        let n = self.targets.len();
        let k = self.k;
        if k == 0 {
            return !0;
        }
        if k > n {
            return 0;
        }
        if k == n {
            return self.targets.iter().fold(!0, |w, &t| w & up[t]);
        }
        if k == 1 {
            return self.targets.iter().fold(0, |w, &t| w | up[t]);
        }
        count_at_least(self.targets.iter().map(|&t| up[t]), n, k, planes)
    }
}

/// The trials (bits) in which at least `k` of the `n` words have a 1: a
/// bit-sliced counter (plane `i` holds bit `i` of each trial's count), then
/// the count compared with `k` from the top bit down.
fn count_at_least(
    words: impl Iterator<Item = u64>,
    n: usize,
    k: usize,
    planes: &mut Vec<u64>,
) -> u64 {
    let width = (usize::BITS - n.leading_zeros()) as usize;
    planes.clear();
    planes.resize(width, 0);
    for word in words {
        let mut carry = word;
        for plane in planes.iter_mut() {
            if carry == 0 {
                break;
            }
            let sum = *plane ^ carry;
            carry &= *plane;
            *plane = sum;
        }
    }
    let (mut greater, mut equal) = (0u64, !0u64);
    for (bit, &plane) in planes.iter().enumerate().rev() {
        if k >> bit & 1 == 1 {
            equal &= plane;
        } else {
            greater |= equal & plane;
            equal &= !plane;
        }
    }
    greater | equal
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng as _;

    #[test]
    fn a_word_of_bernoulli_bits_has_the_asked_frequency() {
        // 10,000 words = 640,000 trials at p = 0.3: standard deviation
        // √(0.3 × 0.7 / 640,000) = 5.7e-4, so 3e-3 is five of them.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let chance = Chance::of(0.3);
        let ones: u32 = (0..10_000)
            .map(|_| chance.draw(&mut rng).count_ones())
            .sum();
        let share = f64::from(ones) / 640_000.0;
        assert!((share - 0.3).abs() < 3e-3, "{share}");
        assert_eq!(Chance::of(0.0), Chance::Never);
        assert_eq!(Chance::of(1.0), Chance::Always);
        // 2^-64 is the resolution: half of it rounds to never.
        assert_eq!(Chance::of(2f64.powi(-65)), Chance::Never);
        assert_eq!(Chance::of(0.5), Chance::Below(1 << 63));
    }

    #[test]
    fn the_bit_sliced_counter_counts_every_combination() {
        // Word j has bit i set when bit j of i is: the 64 lanes are the 64
        // subsets of six targets, so lane i has popcount(i) targets up.
        let words: Vec<u64> = (0..6)
            .map(|j| {
                (0..64u64)
                    .filter(|i| i >> j & 1 == 1)
                    .fold(0, |w, i| w | 1 << i)
            })
            .collect();
        let mut planes = Vec::new();
        for n in 1..=6 {
            for k in 0..=n + 1 {
                let gate = Gate {
                    targets: (0..n).collect(),
                    k,
                };
                let got = gate.holds(&words, &mut planes);
                for lane in 0..64u64 {
                    let up = (lane & ((1 << n) - 1)).count_ones() as usize;
                    assert_eq!(got >> lane & 1 == 1, up >= k, "n {n} k {k} lane {lane}");
                }
            }
        }
    }
}

//! The 95% Clopper–Pearson interval of a simulated availability, in
//! bounded work whatever the trial count.
//!
//! The bounds are quantiles of beta distributions. `statrs`'s inverse
//! (`Beta::inverse_cdf`, AS 109) did not return for some of them: 31
//! failures in 10^7 trials spun for more than ten minutes (its Newton
//! iteration starts no lower than 1e-4 while the answer is 2e-6, and its
//! incomplete beta stops after 140 continued-fraction terms, unconverged
//! when both parameters are large). Here the incomplete beta runs its
//! continued fraction to convergence (`engine::beta`, about √n terms are
//! needed), and the quantile is a Newton iteration kept
//! inside a shrinking bracket (at most [`MAX_STEPS`] evaluations).

use statrs::function::gamma::ln_gamma;

use crate::engine::beta::beta_reg;

/// Most evaluations of one quantile: bisection alone would need 64 steps to
/// reach 2^-64 of the bracket, safeguarded Newton a handful.
pub(super) const MAX_STEPS: u32 = 200;

/// A 95% Clopper–Pearson interval for the availability, given `down` of
/// `trials`: exact for the binomial, and sensible with zero failures.
#[must_use]
pub fn interval(down: u64, trials: u64) -> (f64, f64) {
    let (x, n) = (down as f64, trials as f64);
    let alpha = 0.05;
    // Interval for the failure probability, then flipped.
    let low = if down == 0 {
        0.0
    } else {
        beta_quantile(x, n - x + 1.0, alpha / 2.0).0
    };
    let high = if down >= trials {
        1.0
    } else {
        beta_quantile(x + 1.0, n - x, 1.0 - alpha / 2.0).0
    };
    (1.0 - high, 1.0 - low)
}

/// The `p` at which the regularized incomplete beta `I_p(a, b)` reaches
/// `target` (the `target` quantile of `Beta(a, b)`), and the evaluations it
/// took. Newton steps from the mean; a step that leaves the bracket known
/// to hold the answer is replaced by its midpoint.
pub(super) fn beta_quantile(a: f64, b: f64, target: f64) -> (f64, u32) {
    let ln_beta = ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b);
    let (mut low, mut high) = (0.0f64, 1.0f64);
    let mut p = a / (a + b);
    for step in 1..=MAX_STEPS {
        let f = beta_reg(a, b, p, ln_beta) - target;
        if f == 0.0 {
            return (p, step);
        }
        if f < 0.0 {
            low = p;
        } else {
            high = p;
        }
        let density = ((a - 1.0) * p.ln() + (b - 1.0) * (-p).ln_1p() - ln_beta).exp();
        let newton = p - f / density;
        let next = if newton > low && newton < high && newton.is_finite() {
            newton
        } else {
            low + (high - low) / 2.0
        };
        if (next - p).abs() <= 1e-14 * p || high - low <= 1e-15 * high {
            return (next, step);
        }
        p = next;
    }
    (p, MAX_STEPS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative difference.
    fn close(got: f64, want: f64, tolerance: f64) -> bool {
        (got - want).abs() <= tolerance * want.abs().max(f64::MIN_POSITIVE)
    }

    #[test]
    fn clopper_pearson_matches_known_values() {
        // Reference values from binomial sums in 50-digit arithmetic
        // (mpmath, bisection on P(X >= x) = 0.025 and P(X <= x) = 0.025).
        // 0 failures in 100 trials: the upper bound on failure is
        // 1 − 0.025^(1/100) = 0.036217.
        let (low, high) = interval(0, 100);
        assert!(close(1.0 - low, 0.036_216_692_645_176_4, 1e-9), "{low}");
        assert!((high - 1.0).abs() < 1e-12);
        // 10 of 100: the classic [0.0490, 0.1762] for the failure rate.
        let (low, high) = interval(10, 100);
        assert!(close(1.0 - high, 0.049_004_689_221_486, 1e-9), "{high}");
        assert!(close(1.0 - low, 0.176_222_597_740_023, 1e-9), "{low}");
    }

    #[test]
    fn large_trial_counts_take_a_bounded_number_of_steps() {
        // 30 of 10^7, about what url-shortener shows at --trials 10000000
        // (31 down), where statrs's inverse beta spun for more than ten
        // minutes. Failure rate in [2.024088e-6, 4.282684e-6] (binomial
        // sums, mpmath; the Poisson interval for 30 events, [20.2409,
        // 42.8269] per 10^7, agrees to 5 digits).
        let (low, high) = interval(30, 10_000_000);
        assert!(close(1.0 - high, 2.024_088_288_604_87e-6, 1e-8), "{high}");
        assert!(close(1.0 - low, 4.282_683_792_807_8e-6, 1e-8), "{low}");
        // 0 of 10^8: 1 − 0.025^(1e-8) = 3.688879e-8.
        let (low, _) = interval(0, 100_000_000);
        assert!(close(1.0 - low, 3.688_879_386_074_78e-8, 1e-8), "{low}");
        // 123 of 10^8: [1.022250e-6, 1.467564e-6].
        let (low, high) = interval(123, 100_000_000);
        assert!(close(1.0 - high, 1.022_250_355_982_24e-6, 1e-8), "{high}");
        assert!(close(1.0 - low, 1.467_564_023_811e-6, 1e-8), "{low}");
        // Half of 10^8 down: the normal approximation is exact to ~1e-8
        // here, 0.5 ± 1.959964 × √(0.25 / 10^8) = 0.5 ± 9.79982e-5.
        let (low, high) = interval(50_000_000, 100_000_000);
        assert!((0.5 - low - 9.799_82e-5).abs() < 1e-8, "{low}");
        assert!((high - 0.5 - 9.799_82e-5).abs() < 1e-8, "{high}");
        // And every quantile of these shapes in few evaluations.
        for (down, trials) in [
            (1u64, 100_000_000u64),
            (30, 10_000_000),
            (50_000_000, 100_000_000),
            (99_999_999, 100_000_000),
            (5, 7),
        ] {
            let (x, n) = (down as f64, trials as f64);
            for (a, b, target) in [(x, n - x + 1.0, 0.025), (x + 1.0, n - x, 0.975)] {
                let (_, steps) = beta_quantile(a, b, target);
                assert!(steps <= 60, "{down} of {trials}: {steps} steps");
            }
        }
    }
}

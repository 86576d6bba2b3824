//! Monte Carlo over the same events as the exact figure: a separate check,
//! never the main figure. Each trial draws every domain, group and instance
//! failure independently, then asks [`super::scenario`] which entrypoints
//! are up.
//!
//! Trials run in chunks of [`CHUNK`]; chunk `i` draws from a `ChaCha8` stream
//! seeded with the run's seed and stream number `i`, so the counts, and the
//! interval, are the same whatever the number of threads.

use rand::RngExt as _;
use rand::SeedableRng as _;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use statrs::distribution::{Beta, ContinuousCDF};

use super::scenario;
use crate::model::{ComponentId, Model};

/// Trials per chunk (the unit of parallel work and of progress).
pub const CHUNK: u64 = 10_000;

/// The most trials one run may ask for: 10^8 trials of a small model take
/// about a minute and a half on one loaded core of the reference machine
/// (10^7 of `models/web-shop.yaml`: 10.5 s); beyond that, the analytic
/// figure is the check.
pub const MAX_TRIALS: u64 = 100_000_000;

/// Most component-trials (trials × [`size`]) one run performs: a few
/// seconds of one core at the scalar rate (about 7 ns each).
pub const MAX_WORK: u64 = 500_000_000;

/// What one trial costs: components plus required dependency links.
#[must_use]
pub fn size(model: &Model) -> u64 {
    let links: usize = model
        .components
        .iter()
        .flat_map(|c| &c.depends_on)
        .map(|e| e.targets.len())
        .sum();
    (model.components.len() + links) as u64
}

/// The trials a run of `requested` trials performs on `model`: all of
/// them up to [`MAX_WORK`] component-trials, else as many whole chunks as
/// fit (at least one).
#[must_use]
pub fn affordable_trials(model: &Model, requested: u64) -> u64 {
    let fit = (MAX_WORK / size(model).max(1)) / CHUNK * CHUNK;
    requested.min(fit.max(CHUNK))
}

/// Failures an entrypoint must show before its interval means anything.
pub const MIN_FAILURES: u64 = 10;

/// Down counts per entrypoint over a number of trials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simulation {
    /// Trials run.
    pub trials: u64,
    /// For each entrypoint (model order), the trials in which it was down.
    pub down: Vec<(ComponentId, u64)>,
}

/// Runs `trials` trials (rounded up to whole chunks) from `seed`; `progress`
/// is called with the trials done after each chunk.
pub fn simulate(
    model: &Model,
    trials: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Simulation {
    let chunks = trials.div_ceil(CHUNK).max(1);
    let counts = (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            let counts = run_chunk(model, seed, chunk);
            progress(CHUNK);
            counts
        })
        .reduce(
            || vec![0u64; model.entrypoints.len()],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        );
    Simulation {
        trials: chunks * CHUNK,
        down: model.entrypoints.iter().copied().zip(counts).collect(),
    }
}

fn run_chunk(model: &Model, seed: u64, chunk: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(chunk);
    let mut counts = vec![0u64; model.entrypoints.len()];
    let callers = scenario::callers(model);
    // A component placed nowhere has the same chance every trial.
    let constant: Vec<Option<f64>> = model
        .components
        .iter()
        .map(|c| {
            c.placement.is_empty().then(|| {
                super::events::at_least(
                    u64::from(c.instances),
                    u64::from(c.min_healthy),
                    c.availability.unwrap_or(1.0),
                )
            })
        })
        .collect();
    let mut domain_down = vec![false; model.domains.len()];
    let mut group_down = vec![false; model.groups.len()];
    for _ in 0..CHUNK {
        for (down, domain) in domain_down.iter_mut().zip(&model.domains) {
            *down = domain
                .availability
                .is_some_and(|a| rng.random::<f64>() >= a);
        }
        for (down, group) in group_down.iter_mut().zip(&model.groups) {
            *down = group.availability.is_some_and(|a| rng.random::<f64>() >= a);
        }
        let local: Vec<bool> = model
            .components
            .iter()
            .zip(&constant)
            .map(|(c, constant)| {
                if c.shares.iter().any(|g| group_down[g.0]) {
                    return false;
                }
                if let Some(healthy) = *constant {
                    return healthy >= 1.0 || (healthy > 0.0 && rng.random::<f64>() < healthy);
                }
                // Instances whose domains are up; whether enough of them are
                // up on their own is one draw against the binomial tail, the
                // same distribution as drawing every instance.
                let reachable: u64 = if c.placement.is_empty() {
                    u64::from(c.instances)
                } else {
                    c.placement
                        .iter()
                        .filter(|(d, _)| {
                            !domain_down[d.0]
                                && !model.domain(*d).ancestors.iter().any(|a| domain_down[a.0])
                        })
                        .map(|&(_, count)| u64::from(count))
                        .sum()
                };
                let healthy = super::events::at_least(
                    reachable,
                    u64::from(c.min_healthy),
                    c.availability.unwrap_or(1.0),
                );
                healthy >= 1.0 || (healthy > 0.0 && rng.random::<f64>() < healthy)
            })
            .collect();
        let up = scenario::up_given_with(model, &callers, local);
        for (count, e) in counts.iter_mut().zip(&model.entrypoints) {
            if !up[e.0] {
                *count += 1;
            }
        }
    }
    counts
}

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
        Beta::new(x, n - x + 1.0).map_or(0.0, |b| b.inverse_cdf(alpha / 2.0))
    };
    let high = if down == trials {
        1.0
    } else {
        Beta::new(x + 1.0, n - x).map_or(1.0, |b| b.inverse_cdf(1.0 - alpha / 2.0))
    };
    (1.0 - high, 1.0 - low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_contains_the_truth_and_is_reproducible() {
        // Two 90% instances of a, min_healthy 2: A = 0.81.
        let model = crate::model::parse(
            r"system: s
components:
  a: {instances: 2, min_healthy: 2, availability: 90%}
",
        )
        .unwrap();
        let first = simulate(&model, 100_000, 7, &|_| {});
        let again = simulate(&model, 100_000, 7, &|_| {});
        assert_eq!(first, again);
        let (low, high) = interval(first.down[0].1, first.trials);
        assert!(low <= 0.81 && 0.81 <= high, "[{low}, {high}]");
        assert!(high - low < 0.01);
    }

    #[test]
    fn clopper_pearson_matches_known_values() {
        // 0 failures in 100 trials: the upper bound on failure is 1 − 0.025^(1/100) = 0.0362.
        let (low, high) = interval(0, 100);
        assert!((low - (1.0 - 0.036_217)).abs() < 1e-5, "{low}");
        assert!((high - 1.0).abs() < 1e-12);
        // 10 of 100: the classic interval [0.0490, 0.1762] for the failure rate.
        let (low, high) = interval(10, 100);
        assert!(
            (1.0 - high - 0.049_0).abs() < 1e-3 && (1.0 - low - 0.176_2).abs() < 1e-3,
            "[{low}, {high}]"
        );
    }
}

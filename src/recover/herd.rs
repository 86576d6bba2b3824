//! The clients outside the entrypoints and their retries: each retry
//! generation waits its backoff and arrives again, as one pulse (fixed or
//! exponential backoff: a cohort that failed together retries together) or
//! spread evenly over the interval (jittered). Ring buffers with a
//! difference array make a spread arrival O(1) per step.

use crate::model::Backoff;

/// The longest client retry chain simulated.
pub const MAX_CLIENT_RETRIES: u32 = 10;

/// The retry cohorts of one entrypoint's clients.
#[derive(Debug, Clone)]
pub(crate) struct Herd {
    backoff: Backoff,
    /// Wait before retry g (index g − 1), in steps.
    delays: Vec<usize>,
    /// Per generation: arrivals landing in one step.
    pulse: Vec<Vec<f64>>,
    /// Per generation: change of the spread arrival rate at a step.
    slope: Vec<Vec<f64>>,
    level: Vec<f64>,
}

impl Herd {
    /// Clients retrying `retries` times, first after `timeout_steps`.
    pub fn new(retries: u32, timeout_steps: usize, backoff: Backoff, horizon: usize) -> Self {
        let retries = retries.min(MAX_CLIENT_RETRIES) as usize;
        let delays: Vec<usize> = (0..retries)
            .map(|g| {
                let base = timeout_steps.max(1);
                let delay = if backoff == Backoff::None {
                    base
                } else {
                    base.saturating_mul(1 << g)
                };
                delay.min(horizon.max(1))
            })
            .collect();
        let len = delays.iter().max().map_or(1, |d| d + 2);
        Self {
            backoff,
            pulse: vec![vec![0.0; len]; retries],
            slope: vec![vec![0.0; len + 1]; retries],
            level: vec![0.0; retries],
            delays,
        }
    }

    /// Whether no retry is on its way (nothing will arrive again).
    pub fn is_empty(&self) -> bool {
        self.level.iter().all(|&l| l <= 0.0)
            && self.pulse.iter().flatten().all(|&p| p == 0.0)
            && self.slope.iter().flatten().all(|&d| d == 0.0)
    }

    fn len(&self) -> usize {
        self.pulse.first().map_or(1, Vec::len)
    }

    /// Puts `amount` (relative load × seconds) of generation `g` (1-based)
    /// on its way at step `now`: due `delay` steps later.
    fn schedule(&mut self, g: usize, now: usize, amount: f64) {
        if amount <= 0.0 {
            return;
        }
        let delay = self.delays[g - 1];
        let len = self.len();
        if self.backoff == Backoff::Jittered {
            let rate = amount / delay as f64;
            self.slope[g - 1][(now + 1) % len] += rate;
            self.slope[g - 1][(now + 1 + delay) % len] -= rate;
        } else {
            self.pulse[g - 1][(now + delay) % len] += amount;
        }
    }

    /// The clients that were failing for `outage_s` before step `now`:
    /// each generation holds the requests of the last `min(outage, delay)`
    /// seconds, and they arrive as if scheduled one delay before.
    pub fn after_outage(&mut self, now: usize, outage_s: f64) {
        for g in 1..=self.delays.len() {
            let delay = self.delays[g - 1];
            let amount = outage_s.min(delay as f64);
            let len = self.len();
            if self.backoff == Backoff::Jittered {
                let rate = amount / delay as f64;
                self.slope[g - 1][now % len] += rate;
                self.slope[g - 1][(now + delay) % len] -= rate;
            } else {
                self.pulse[g - 1][now % len] += amount;
            }
        }
    }

    /// Retries arriving at step `now`, per generation (index g − 1); clears
    /// the slot.
    pub fn arrivals(&mut self, now: usize, into: &mut Vec<f64>) {
        into.clear();
        let len = self.len();
        for g in 0..self.delays.len() {
            self.level[g] += self.slope[g][now % len];
            self.slope[g][now % len] = 0.0;
            let pulse = std::mem::take(&mut self.pulse[g][now % len]);
            into.push(pulse + self.level[g].max(0.0));
        }
    }

    /// Sends the failed share of this step's arrivals (new ones first,
    /// then each retry generation) on to their next retry.
    pub fn failed(&mut self, now: usize, new: f64, retries: &[f64], failed_share: f64) {
        if self.delays.is_empty() || failed_share <= 0.0 {
            return;
        }
        self.schedule(1, now, new * failed_share);
        for (g, &amount) in retries.iter().enumerate() {
            if g + 2 <= self.delays.len() {
                self.schedule(g + 2, now, amount * failed_share);
            }
        }
    }
}

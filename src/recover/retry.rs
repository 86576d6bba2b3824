//! When a caller's retries arrive at the target of one edge: each retry
//! generation waits the edge's backoff after the failed attempt before it
//! (`none`: the next step; `exponential`: `timeout × 2^i` for the i-th
//! retry, i from 0; `jittered`: spread evenly over the steps up to that
//! delay, full jitter as a spread, not a sample). A generation's failures
//! go on to the next one; the last one's give up. Ring buffers with a
//! difference array make a spread arrival O(1) per step, as in the clients'
//! herd (`herd.rs`).

use crate::model::Backoff;

/// The retries on their way along one edge.
#[derive(Debug, Clone)]
pub(crate) struct RetryLine {
    jittered: bool,
    /// Wait before retry g (index g − 1), in steps.
    delays: Vec<usize>,
    len: usize,
    /// Per generation, `len` slots: arrivals landing in one step.
    pulse: Vec<f64>,
    /// Per generation, `len` slots: change of the spread arrival rate.
    slope: Vec<f64>,
    level: Vec<f64>,
    /// This step's first attempts and retries per generation (after the
    /// budget), which this step's failure sends on.
    first: f64,
    arrived: Vec<f64>,
    /// What the last step sent on per generation, and for how many steps
    /// in a row it has not changed.
    sent: Vec<f64>,
    steady_for: usize,
}

impl RetryLine {
    /// `retries` retries spaced by `backoff` after a timeout of
    /// `timeout_steps`, no delay beyond `horizon` steps.
    pub fn new(retries: u32, backoff: Backoff, timeout_steps: u32, horizon: usize) -> Self {
        let retries = retries.min(64) as usize;
        let base = (timeout_steps as usize).max(1);
        let delays: Vec<usize> = (0..retries)
            .map(|i| {
                let delay = match backoff {
                    Backoff::None => 1,
                    Backoff::Exponential | Backoff::Jittered => {
                        base.saturating_mul(1usize.checked_shl(i as u32).unwrap_or(usize::MAX))
                    }
                };
                delay.clamp(1, horizon.max(1))
            })
            .collect();
        let len = delays.iter().max().map_or(1, |d| d + 1);
        Self {
            jittered: backoff == Backoff::Jittered,
            pulse: vec![0.0; retries * len],
            slope: vec![0.0; retries * len],
            level: vec![0.0; retries],
            first: 0.0,
            arrived: vec![0.0; retries],
            sent: vec![0.0; retries],
            steady_for: 0,
            delays,
            len,
        }
    }

    /// The retries of callers that have seen every attempt fail for longer
    /// than the longest delay, with `amount` first attempts a step: every
    /// generation arrives at `amount` a step from `now` on, and what was
    /// sent before `now` stops arriving one delay later.
    pub fn prefill(&mut self, now: usize, amount: f64) {
        for (g, &delay) in self.delays.iter().enumerate() {
            let row = g * self.len;
            if self.jittered {
                self.level[g] += amount;
                let rate = amount / delay as f64;
                for j in 1..=delay {
                    self.slope[row + (now + j) % self.len] -= rate;
                }
            } else {
                for k in 0..delay {
                    self.pulse[row + (now + k) % self.len] += amount;
                }
            }
            self.sent[g] = amount;
        }
    }

    /// The retries arriving at step `now` alongside `first` first attempts,
    /// at most `budget × first`; `carried` false drops them (the call is
    /// switched off: the caller works without it).
    pub fn take(&mut self, now: usize, first: f64, budget: f64, carried: bool) -> f64 {
        let slot = now % self.len;
        let mut total = 0.0;
        for g in 0..self.delays.len() {
            let i = g * self.len + slot;
            self.level[g] += self.slope[i];
            self.slope[i] = 0.0;
            let a = std::mem::take(&mut self.pulse[i]) + self.level[g].max(0.0);
            self.arrived[g] = a;
            total += a;
        }
        if !carried {
            self.first = 0.0;
            self.arrived.iter_mut().for_each(|a| *a = 0.0);
            return 0.0;
        }
        self.first = first;
        let cap = budget * first;
        if total > cap {
            let scale = if total > 0.0 { cap / total } else { 0.0 };
            self.arrived.iter_mut().for_each(|a| *a *= scale);
            total = cap;
        }
        total
    }

    /// Sends the failed share `failure` of this step's attempts (first ones,
    /// then each retry generation but the last) on to their next retry.
    pub fn fail(&mut self, now: usize, failure: f64) {
        let mut same = true;
        for g in 0..self.delays.len() {
            let from = if g == 0 {
                self.first
            } else {
                self.arrived[g - 1]
            };
            let amount = from * failure;
            same &= amount.to_bits() == self.sent[g].to_bits();
            self.sent[g] = amount;
            if amount <= 0.0 {
                continue;
            }
            let delay = self.delays[g];
            let row = g * self.len;
            if self.jittered {
                let rate = amount / delay as f64;
                self.slope[row + (now + 1) % self.len] += rate;
                self.slope[row + (now + 1 + delay) % self.len] -= rate;
            } else {
                self.pulse[row + (now + delay) % self.len] += amount;
            }
        }
        self.steady_for = if same { self.steady_for + 1 } else { 0 };
    }

    /// Adds what arrives in each step after `now` (index j − 1 for step
    /// now + j) to `into`, growing it as needed.
    pub fn add_in_flight(&self, now: usize, into: &mut Vec<f64>) {
        if into.len() < self.len {
            into.resize(self.len, 0.0);
        }
        for g in 0..self.delays.len() {
            let row = g * self.len;
            let mut level = self.level[g];
            for (j, slot) in into.iter_mut().enumerate().take(self.len) {
                let i = row + (now + j + 1) % self.len;
                level += self.slope[i];
                *slot += self.pulse[i] + level.max(0.0);
            }
        }
    }

    /// Whether what arrives is what arrived the step before, and will stay
    /// so: the same amounts sent for longer than the longest delay.
    pub fn settled(&self) -> bool {
        self.steady_for >= self.len
    }

    /// Whether nothing is on its way (settled with nothing sent).
    pub fn idle(&self) -> bool {
        self.settled() && self.sent.iter().all(|&s| s <= 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponential_retries_arrive_after_one_two_and_four_timeouts() {
        let mut line = RetryLine::new(3, Backoff::Exponential, 1, 3600);
        let mut arrivals = Vec::new();
        for step in 0..9 {
            let first = if step == 0 { 1.0 } else { 0.0 };
            arrivals.push(line.take(step, first, f64::INFINITY, true));
            line.fail(step, 1.0);
        }
        // The first attempt at 0 fails; its retries at 1, 1 + 2 = 3, 3 + 4 = 7.
        assert_eq!(arrivals, [0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    fn jittered_retries_spread_over_their_delay() {
        let mut line = RetryLine::new(1, Backoff::Jittered, 4, 3600);
        let mut arrivals = Vec::new();
        for step in 0..6 {
            let first = if step == 0 { 1.0 } else { 0.0 };
            arrivals.push(line.take(step, first, f64::INFINITY, true));
            line.fail(step, 1.0);
        }
        assert_eq!(arrivals, [0.0, 0.25, 0.25, 0.25, 0.25, 0.0]);
    }

    #[test]
    fn a_prefilled_line_delivers_every_generation_then_stops() {
        let mut line = RetryLine::new(2, Backoff::Exponential, 1, 3600);
        line.prefill(0, 1.0);
        let got: Vec<f64> = (0..4)
            .map(|s| {
                let a = line.take(s, 1.0, f64::INFINITY, true);
                line.fail(s, 0.0);
                a
            })
            .collect();
        // Gen 1 (delay 1) arrives at 0; gen 2 (delay 2) at 0 and 1.
        assert_eq!(got, [2.0, 1.0, 0.0, 0.0]);
    }
}

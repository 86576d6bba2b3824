//! The start waves of the restarted components and their admission gates.
//!
//! A wave starts one `ramp_interval` after the wave before it is verified
//! (every member started, none collapsed, its gate open or not yet
//! reached by traffic). Under the ramp each wave that callers from other
//! waves reach has a gate at the edge into it: the calls from those
//! callers into each member are admitted up to the gate's share of the
//! member's steady intake (a relative load), the rest is refused at once
//! (cheap, as by load shedding, and counted as failed attempts, which the
//! callers retry within their budgets). The share follows the TCP-like
//! ramp on the wave's own members (docs/recovery.md, "Admission per
//! wave").

use super::Settings;

/// One restarted wave.
#[derive(Debug, Clone)]
pub(crate) struct Wave {
    /// Members (component indices).
    pub members: Vec<usize>,
    /// The step it is due to start, once the wave before is verified.
    pub due: Option<usize>,
    /// The step it was verified.
    pub verified: Option<usize>,
    /// Whether callers in other waves reach it (it has a gate).
    pub gated: bool,
    /// The admitted share of the gate (`None`: open).
    pub share: Option<f64>,
    /// The step the gate's ramp started (traffic reached the wave).
    pub ticking: Option<usize>,
    /// A member went over `max_utilization` of its capacity, or collapsed,
    /// since the last tick.
    pub breach: bool,
    /// The gate's changes: (second, share; `None` = open).
    pub schedule: Vec<(f64, Option<f64>)>,
}

/// The waves of one run and which wave each component is in.
#[derive(Debug, Clone)]
pub(crate) struct Waves {
    pub list: Vec<Wave>,
    /// Restarted wave of each component (`None`: it stayed up).
    pub of: Vec<Option<usize>>,
}

impl Waves {
    /// The restarted components by start wave (`wave[c]`), in order; a
    /// gate on every wave reached from another (`callers`) with a member
    /// whose capacity is limited (`limited`), when `start` is given (the
    /// ramp).
    pub fn new(
        wave: &[usize],
        restarted: &[bool],
        callers: impl Fn(usize) -> Vec<usize>,
        limited: impl Fn(usize) -> bool,
        start: Option<f64>,
    ) -> Self {
        let n = wave.len();
        let mut ranks: Vec<usize> = (0..n).filter(|&c| restarted[c]).map(|c| wave[c]).collect();
        ranks.sort_unstable();
        ranks.dedup();
        let mut of = vec![None; n];
        let mut list: Vec<Wave> = ranks
            .iter()
            .map(|_| Wave {
                members: Vec::new(),
                due: None,
                verified: None,
                gated: false,
                share: None,
                ticking: None,
                breach: false,
                schedule: Vec::new(),
            })
            .collect();
        for c in (0..n).filter(|&c| restarted[c]) {
            let w = ranks.binary_search(&wave[c]).unwrap_or(0);
            of[c] = Some(w);
            list[w].members.push(c);
        }
        for (w, wave) in list.iter_mut().enumerate() {
            // A wave with nothing to protect (no member has a capacity)
            // is not gated: a gate there would only refuse calls.
            wave.gated = wave.members.iter().any(|&c| limited(c))
                && wave
                    .members
                    .iter()
                    .any(|&c| callers(c).into_iter().any(|a| of[a] != Some(w)));
            if wave.gated
                && let Some(share) = start
            {
                wave.share = Some(share);
                wave.schedule.push((0.0, Some(share)));
            }
        }
        if let Some(first) = list.first_mut() {
            first.due = Some(0);
        }
        Self { list, of }
    }

    /// The gate's share for calls into `c` from outside its wave.
    pub fn share(&self, c: usize) -> Option<f64> {
        self.of[c].and_then(|w| self.list[w].share)
    }

    /// How many times the gates have moved so far.
    pub fn changes(&self) -> usize {
        self.list.iter().map(|w| w.schedule.len()).sum()
    }

    /// Whether every gate is open.
    pub fn open(&self) -> bool {
        self.list.iter().all(|w| w.share.is_none())
    }
}

/// The gate's next share after a tick: `None` when it stays.
/// `breach`: a member over `max_utilization` or collapsed in the interval;
/// `healthy`: no member collapsed now; `fits(share)`: every member's load
/// with the calls from outside capped at `share` (`None`: uncapped) stays
/// within `max_utilization` of its current capacity.
#[allow(
    clippy::option_option,
    reason = "`None`: the gate stays; `Some(None)`: it opens; `Some(Some(a))`: its new share"
)]
pub(crate) fn next_share(
    current: Option<f64>,
    breach: bool,
    healthy: bool,
    settings: &Settings,
    fits: impl Fn(Option<f64>) -> bool,
) -> Option<Option<f64>> {
    let share = current.unwrap_or(1.0);
    if breach {
        return Some(Some((share * settings.ramp_decrease).max(1e-6)));
    }
    let current = current?;
    if !healthy {
        return None;
    }
    if current >= 1.0 - 1e-12 {
        // At the full steady intake: opened once the whole demand fits.
        return fits(None).then_some(None);
    }
    let raised = if current < 0.5 {
        current * settings.ramp_increase
    } else {
        current + settings.ramp_step
    }
    .min(1.0);
    if raised <= current {
        return None;
    }
    if fits(Some(raised)) {
        return Some(Some(raised));
    }
    // A step that would cross the ceiling may still go straight to the
    // target when the steady state fits `max_utilization`: the ceiling is
    // a margin on the way, not a cap on the steady state.
    (raised < 1.0 && fits(Some(1.0))).then_some(Some(1.0))
}

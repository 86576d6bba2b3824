//! The recovery plan: the start waves, the simulation with everything
//! admitted at once, the largest share admitted without a ramp that still
//! converges (bisection over the simulation), an optional `--admit` share,
//! and the admission ramp with its schedule. Figures are in the model's
//! units (a relative load times the component's steady `load`).

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use super::network::Network;
use super::{Admission, Run, Scenario, Settings, simulate};
use crate::model::Model;

/// The plot series of one component: load and capacity over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// The component.
    pub component: String,
    /// Its steady load (the unit of the relative figures).
    pub steady_load: f64,
    /// Seconds between points.
    pub step_s: f64,
    /// Highest offered load in each window, in the model's unit.
    pub load: Vec<f64>,
    /// Capacity at the end of each window (0 before it starts).
    pub capacity: Vec<f64>,
}

/// What one admission policy gives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// `open` (everything at once), `admit` (a fixed share until warm) or `ramp`.
    pub admission: &'static str,
    /// The share held, for `admit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
    /// Whether full service is reached and kept until the horizon.
    pub converges: bool,
    /// Seconds from the restart to full service.
    pub time_to_full_service_s: Option<f64>,
    /// The first component over `max_utilization` of its capacity.
    pub first_breach: Option<String>,
    /// When, seconds.
    pub first_breach_s: Option<f64>,
    /// Components still collapsed at the horizon.
    pub stuck: Vec<String>,
    /// Peak load over capacity per component with a capacity, worst first.
    pub peaks: Vec<Peak>,
    /// Admission changes: second and share (`null`: unlimited).
    pub schedule: Vec<(f64, Option<f64>)>,
    /// Load against capacity over time, for the components that matter.
    pub series: Vec<Series>,
}

/// The peak of one component.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Peak {
    /// The component.
    pub component: String,
    /// Highest offered load over capacity.
    pub utilization: f64,
    /// When, seconds.
    pub at_s: f64,
}

/// One start wave, as the ramp brings it back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wave {
    /// When it starts, seconds after the restart (`null`: not within the
    /// horizon, the wave before was never verified).
    pub start_s: Option<f64>,
    /// When it was verified serving: started, nothing collapsed, its gate
    /// open (or not yet reached by traffic).
    pub verified_s: Option<f64>,
    /// Its members, sorted.
    pub members: Vec<String>,
    /// Where its traffic is admitted: `callers` (a gate at the edge into
    /// the wave), `entrypoints` (the clients' admission) or `none`.
    pub admitted_at: &'static str,
    /// The admitted share over time: `[second, share]`, `null` = open.
    pub schedule: Vec<(f64, Option<f64>)>,
}

/// The whole plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// The system.
    pub system: String,
    /// What went down.
    pub scenario: String,
    /// Simulated time, seconds.
    pub horizon_s: f64,
    /// Defaults used for figures the model does not give.
    pub defaults: Vec<String>,
    /// Restarted components in start order.
    pub waves: Vec<Wave>,
    /// Everything admitted at once.
    pub without_ramp: RunSummary,
    /// The largest share admitted at once (then opened when warm) that
    /// converges; 1 when everything at once converges; `None` when not
    /// even the smallest share does.
    pub largest_safe_share: Option<f64>,
    /// The `--admit` share, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admitted: Option<RunSummary>,
    /// The share of capacity a raise of the ramp below the target may load a
    /// component to (`min(max_utilization, policy.ramp_ceiling)`).
    pub ramp_ceiling: f64,
    /// The admission ramp.
    pub ramp: RunSummary,
    /// The durable backlogs the outage leaves, in model order.
    pub backlogs: Vec<super::Backlog>,
}

/// The shares of the unconstrained ramp from `start` to 1: ×`increase`
/// below one half, +`step` from one half, capped at 1.
#[must_use]
pub fn ramp_steps(settings: &Settings) -> Vec<f64> {
    let mut shares = vec![settings.ramp_start];
    let mut share = settings.ramp_start;
    while share < 1.0 && shares.len() < 10_000 {
        let next = if share < 0.5 {
            share * settings.ramp_increase
        } else {
            share + settings.ramp_step
        }
        .min(1.0);
        if next <= share {
            break;
        }
        share = next;
        shares.push(share);
    }
    shares
}

/// How many components the plot shows.
const PLOTTED: usize = 4;

fn summarize(net: &Network, run: &Run, admission: Admission) -> RunSummary {
    let mut peaks: Vec<Peak> = run
        .peak
        .iter()
        .enumerate()
        .filter_map(|(c, p)| {
            p.map(|(utilization, at_s)| Peak {
                component: net.names[c].clone(),
                utilization,
                at_s,
            })
        })
        .collect();
    peaks.sort_by(|a, b| {
        b.utilization
            .total_cmp(&a.utilization)
            .then_with(|| a.component.cmp(&b.component))
    });
    let series = peaks
        .iter()
        .take(PLOTTED)
        .filter_map(|p| {
            let c = net.names.iter().position(|n| *n == p.component)?;
            let unit = net.load[c].unwrap_or(1.0);
            Some(Series {
                component: p.component.clone(),
                steady_load: unit,
                step_s: run.sample_s,
                load: run.samples[c].iter().map(|&(l, _)| l * unit).collect(),
                capacity: run.samples[c].iter().map(|&(_, k)| k * unit).collect(),
            })
        })
        .collect();
    let (name, share) = match admission {
        Admission::Open => ("open", None),
        Admission::Hold(s) => ("admit", Some(s)),
        Admission::Ramp => ("ramp", None),
    };
    RunSummary {
        admission: name,
        share,
        converges: run.converged,
        time_to_full_service_s: run.full_service_s,
        first_breach: run.first_breach.map(|(c, _)| net.names[c].clone()),
        first_breach_s: run.first_breach.map(|(_, t)| t),
        stuck: run.stuck.iter().map(|&c| net.names[c].clone()).collect(),
        peaks,
        schedule: rounded(&run.schedule),
        series,
    }
}

/// Shares to a millionth: 0.15, not 0.15000000000000002.
fn rounded(schedule: &[(f64, Option<f64>)]) -> Vec<(f64, Option<f64>)> {
    schedule
        .iter()
        .map(|&(t, share)| (t, share.map(|s| (s * 1e6).round() / 1e6)))
        .collect()
}

/// The denominator of the shares the bisection tries.
const SHARE_STEPS: u32 = 1024;

/// The largest share held at the entrypoints until warm that converges,
/// to 1/1024; `None` when no share on the grid below converges, or when
/// `cancelled` is set before the search ends (the caller then has no use
/// for the answer).
///
/// The shares that converge are an interval, not a prefix: too large a
/// share collapses a component, too small a one refills the caches so
/// slowly (they fill by the misses answered, and a held share answers few)
/// that they are not full within the horizon, and the hold never opens.
/// So the search first simulates the doubling grid 1/1024, 2/1024, …,
/// 512/1024 side by side, takes the largest that converges, and bisects
/// between it and the next grid point (or 1024/1024, which is everything
/// at once and did not converge). The bisection is the sequential one
/// (the midpoint of the bracket, kept when it converges), but each round
/// simulates the next `depth` levels of midpoints the search could visit
/// at once, in parallel, then follows the path the sequential search
/// takes through them: the same shares decide, so the answer is the same
/// for any number of threads. With `threads` threads a round simulates
/// `2^depth - 1` shares, `depth` the most that fits (1 on two threads: one
/// share a round).
fn largest_safe_share(
    net: &Network,
    scenario: &Scenario,
    settings: &Settings,
    cancelled: &AtomicBool,
) -> Option<f64> {
    let threads = rayon::current_num_threads().max(1);
    // The deepest tree of midpoints whose 2^depth - 1 shares fit the threads.
    let depth = (usize::BITS - 1 - (threads + 1).leading_zeros()).max(1);
    let converges = |shares: &[u32]| -> Option<Vec<(u32, bool)>> {
        if cancelled.load(Ordering::Relaxed) {
            return None;
        }
        Some(
            shares
                .par_iter()
                .map(|&k| {
                    let share = f64::from(k) / f64::from(SHARE_STEPS);
                    let run = simulate(net, scenario, settings, Admission::Hold(share));
                    (k, run.converged)
                })
                .collect(),
        )
    };
    // Round one: the doubling grid.
    let grid: Vec<u32> =
        std::iter::successors(Some(1u32), |&k| (k * 2 < SHARE_STEPS).then_some(k * 2)).collect();
    let known = converges(&grid)?;
    let lo = grid.iter().rev().copied().find(|&k| decided(&known, k))?;
    let (mut lo, mut hi) = (lo, (lo * 2).min(SHARE_STEPS));
    let mut known: Vec<(u32, bool)> = Vec::new();
    loop {
        // Follow the sequential search through the shares simulated.
        while hi - lo > 1 {
            let mid = u32::midpoint(lo, hi);
            let Some(&(_, ok)) = known.iter().find(|&&(k, _)| k == mid) else {
                break;
            };
            if ok {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        if hi - lo <= 1 {
            return Some(f64::from(lo) / f64::from(SHARE_STEPS));
        }
        let mut shares = Vec::new();
        midpoints(lo, hi, depth, &mut shares);
        known = converges(&shares)?;
    }
}

/// Whether `share` converged, among the simulated.
fn decided(known: &[(u32, bool)], share: u32) -> bool {
    known.iter().any(|&(k, ok)| k == share && ok)
}

/// The midpoints the bisection of (`lo`, `hi`) visits in its next `depth`
/// steps, whichever way each goes: `2^depth - 1` at most.
fn midpoints(lo: u32, hi: u32, depth: u32, out: &mut Vec<u32>) {
    if depth == 0 || hi - lo <= 1 {
        return;
    }
    let mid = u32::midpoint(lo, hi);
    out.push(mid);
    midpoints(lo, mid, depth - 1, out);
    midpoints(mid, hi, depth - 1, out);
}

/// Simulates the recovery from `scenario` every way and returns the plan.
#[must_use]
pub fn plan(model: &Model, scenario: &Scenario, settings: &Settings, admit: Option<f64>) -> Plan {
    let order = crate::engine::start_order::waves(model);
    let net = Network::new(model, &order);
    // The runs are independent: everything at once, the ramp, the
    // `--admit` share and the bisection run side by side. The bisection
    // only matters when everything at once does not converge, so it starts
    // at once and stops as soon as that run converges.
    let open_converged = AtomicBool::new(false);
    let ((open, (ramp, admitted)), search) = rayon::join(
        || {
            rayon::join(
                || {
                    let open = simulate(&net, scenario, settings, Admission::Open);
                    open_converged.store(open.converged, Ordering::Relaxed);
                    open
                },
                || {
                    rayon::join(
                        || simulate(&net, scenario, settings, Admission::Ramp),
                        || {
                            admit.map(|share| {
                                let run =
                                    simulate(&net, scenario, settings, Admission::Hold(share));
                                summarize(&net, &run, Admission::Hold(share))
                            })
                        },
                    )
                },
            )
        },
        || largest_safe_share(&net, scenario, settings, &open_converged),
    );
    let largest = if open.converged { Some(1.0) } else { search };
    let waves = ramp
        .waves
        .iter()
        .map(|w| {
            let mut members: Vec<String> =
                w.members.iter().map(|&c| net.names[c].clone()).collect();
            members.sort();
            let (admitted_at, schedule) = if w.gated {
                ("callers", w.schedule.clone())
            } else if w.members.iter().any(|&c| net.entry[c]) {
                ("entrypoints", ramp.schedule.clone())
            } else {
                ("none", Vec::new())
            };
            Wave {
                start_s: w.start_s,
                verified_s: w.verified_s,
                members,
                admitted_at,
                schedule: rounded(&schedule),
            }
        })
        .collect();
    Plan {
        system: model.system.clone(),
        scenario: scenario.label.clone(),
        horizon_s: settings.horizon_s,
        defaults: settings.defaults.clone(),
        waves,
        without_ramp: summarize(&net, &open, Admission::Open),
        largest_safe_share: largest,
        admitted,
        ramp_ceiling: settings.raise_limit(Some(0.0)),
        ramp: summarize(&net, &ramp, Admission::Ramp),
        backlogs: super::backlogs(model, scenario),
    }
}

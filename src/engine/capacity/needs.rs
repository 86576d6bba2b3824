//! What a component needs: the instance counts that carry its load as the
//! movers change, and the sets of movers under which each suffices.

use super::{Need, Table};
use crate::engine::state::Flow;
use crate::model::{Capacity, Component, ComponentId, Model};

/// Instances a component needs to serve `load` whole (`None`: more than
/// it has, or over its rate limit).
pub(super) fn needed(c: &Component, load: f64) -> Option<u32> {
    if c.rate_limit
        .is_some_and(|limit| load > limit * (1.0 + 1e-12))
    {
        return None;
    }
    let Some(Capacity { per_instance, .. }) = c.capacity else {
        return Some(c.min_healthy);
    };
    if load <= 0.0 {
        return Some(c.min_healthy);
    }
    if per_instance <= 0.0 {
        return None;
    }
    // The smallest count whose capacity carries the load, with the same
    // 1e-12 of room as `State::verdict_of`.
    let exact = load / per_instance;
    let mut k = exact.ceil();
    if (k - 1.0) * per_instance * (1.0 + 1e-12) >= load {
        k -= 1.0;
    }
    if !k.is_finite() || k > f64::from(c.instances) {
        return None;
    }
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "at most instances"
    )]
    let k = k.max(0.0) as u32;
    Some(k.max(c.min_healthy))
}

/// What `id` needs, from its table; `true` when the table had to be made
/// monotone (a load that falls when a mover is lost, which the figure does
/// not count on).
pub(super) fn need_of(model: &Model, id: ComponentId, table: &Table) -> (Need, bool) {
    let c = model.component(id);
    if c.capacity.is_none() && c.rate_limit.is_none() {
        return (Need::Structural, false);
    }
    if c.depends_on.iter().any(|e| e.pull) {
        // A consumer below its input lags; it does not fail.
        return (Need::Structural, false);
    }
    // Levels over the movers other than itself, itself counted ok.
    let others: Vec<ComponentId> = table.vars.iter().copied().filter(|&v| v != id).collect();
    let size = 1usize << others.len();
    // `u32::MAX` stands for "never enough".
    // The table's entry for `bits` over the others: a set bit for itself
    // put in at its place among the movers.
    let own = table.vars.binary_search(&id).ok();
    let entry = |bits: usize| match own {
        Some(p) => (bits & ((1 << p) - 1)) | (1 << p) | ((bits >> p) << (p + 1)),
        None => bits,
    };
    let mut level: Vec<u32> = (0..size)
        .map(|bits| {
            table.offered[entry(bits)]
                .map_or(c.min_healthy, |load| needed(c, load).unwrap_or(u32::MAX))
        })
        .collect();
    // More movers ok never needs more instances; where a table says so (a
    // mover whose loss takes load off this one), take the larger need of
    // the states above (no relief counted).
    let mut relief = false;
    for bits in (0..size).rev() {
        for j in 0..others.len() {
            let above = bits | (1 << j);
            if above != bits && level[above] > level[bits] {
                level[bits] = level[above];
                relief = true;
            }
        }
    }
    let mut distinct: Vec<u32> = level.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct == [c.min_healthy] {
        return (Need::Structural, relief);
    }
    if distinct == [u32::MAX] {
        return (Need::Never, relief);
    }
    if distinct.len() == 1 {
        return (Need::Static(distinct[0]), relief);
    }
    let levels = distinct
        .iter()
        .filter(|&&k| k != u32::MAX)
        .map(|&k| {
            // Minimal combinations under which k instances suffice.
            let fits: Vec<bool> = level.iter().map(|&l| l <= k).collect();
            let minimal: Vec<Vec<ComponentId>> = (0..size)
                .filter(|&bits| {
                    fits[bits]
                        && (0..others.len())
                            .all(|j| bits & (1 << j) == 0 || !fits[bits & !(1 << j)])
                })
                .map(|bits| {
                    (0..others.len())
                        .filter(|j| bits & (1 << j) != 0)
                        .map(|j| others[j])
                        .collect()
                })
                .collect();
            (k, minimal)
        })
        .collect();
    (Need::Levels(levels), relief)
}

/// The need of a component whose movers are too many to table: its intact
/// need when every mover is ok, and its worst-case need otherwise (one
/// level, conditioned on all its movers when they differ).
pub(super) fn truncated_need(
    model: &Model,
    flow: &Flow,
    id: ComponentId,
    worst: &Table,
    movers: Option<&[ComponentId]>,
) -> (Need, bool) {
    let c = model.component(id);
    if c.capacity.is_none() && c.rate_limit.is_none() || c.depends_on.iter().any(|e| e.pull) {
        return (Need::Structural, false);
    }
    let intact = flow.intact_loads()[id.0].map_or(Some(c.min_healthy), |l| needed(c, l));
    let high = worst.offered[0].map_or(Some(c.min_healthy), |l| needed(c, l));
    let others: Option<Vec<ComponentId>> =
        movers.map(|m| m.iter().copied().filter(|&v| v != id).collect());
    let need = match (intact, high, others) {
        (None, ..) | (Some(_), None, None) => Need::Never,
        (Some(k), Some(h), _) if k == h => {
            if k == c.min_healthy {
                Need::Structural
            } else {
                Need::Static(k)
            }
        }
        (Some(_), Some(h), None) => Need::Static(h),
        (Some(k), Some(h), Some(others)) => {
            Need::Levels(vec![(k, vec![others]), (h, vec![Vec::new()])])
        }
        (Some(k), None, Some(others)) => Need::Levels(vec![(k, vec![others])]),
    };
    (need, true)
}

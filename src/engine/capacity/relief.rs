//! Relief the figure does not count on: a failure that takes load off a
//! component an entrypoint needs without taking the entrypoint down, the
//! largest count of a reliever at which it changes a need, and the
//! probability that bounds what the figure leaves out.

use std::collections::BTreeSet;

use super::needs::needed;
use super::served::Served;
use super::tables::{tables, tables_of};
use super::{Compiled, Need, Table};
use crate::engine::state::Flow;
use crate::model::{ComponentId, Model, intact};

/// The memo behind [`Compiled::critical`]: the cold tables, once, and
/// each (component, upstream component) pair's largest relieving count.
#[derive(Debug)]
pub(super) struct Relieving {
    cold: bool,
    cold_tables: std::sync::OnceLock<Vec<Table>>,
    memo: std::sync::Mutex<std::collections::HashMap<(ComponentId, ComponentId), Option<u32>>>,
}

impl Relieving {
    /// Nothing worked out yet, for a compilation with every cache cold
    /// when `cold`.
    pub(super) fn new(cold: bool) -> Self {
        Self {
            cold,
            cold_tables: std::sync::OnceLock::new(),
            memo: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }
}

impl Clone for Relieving {
    fn clone(&self) -> Self {
        Self {
            cold: self.cold,
            cold_tables: self.cold_tables.clone(),
            memo: std::sync::Mutex::new(self.memo.lock().map(|m| m.clone()).unwrap_or_default()),
        }
    }
}

/// Most components for which what can relieve each need is worked out
/// (a load table of the whole model per upstream component and count).
pub(super) const MAX_RELIEF_MODEL: usize = 200;

impl Compiled {
    /// The largest count of `reliever`'s instances at which what it passes
    /// on changes the need of `id` (see `critical_count`), worked out once;
    /// `None` when no count does. A model past [`MAX_RELIEF_MODEL`] is not
    /// worked out: every count counts (`Some(instances)`).
    #[must_use]
    pub fn critical(&self, model: &Model, id: ComponentId, reliever: ComponentId) -> Option<u32> {
        let Some(relief) = &self.relief else {
            return Some(model.component(reliever).instances);
        };
        if let Ok(memo) = relief.memo.lock()
            && let Some(known) = memo.get(&(id, reliever))
        {
            return *known;
        }
        let cold_tables = relief.cold_tables.get_or_init(|| tables_of(model, true));
        let warm: &[Table] = if relief.cold {
            cold_tables
        } else {
            &self.tables
        };
        let found = critical_count(model, &[warm, cold_tables], id, reliever);
        if let Ok(mut memo) = relief.memo.lock() {
            memo.insert((id, reliever), found);
        }
        found
    }
}

impl Compiled {
    /// Whether `relievers` passing nothing at once changes the need of
    /// `id` (warm or cold); past [`MAX_RELIEF_MODEL`] components this is
    /// not worked out: they do.
    pub(super) fn jointly(
        &self,
        model: &Model,
        id: ComponentId,
        relievers: &[ComponentId],
    ) -> bool {
        self.jointly_as(model, id, relievers, &[], false)
    }

    /// Whether `stopped` passing nothing and `shedding` running at their
    /// `min_healthy` instances, all at once, changes the need of `id`
    /// (warm or cold), or any load offered to it when `any_load` (a
    /// partial server, whose share moves with its load); past
    /// [`MAX_RELIEF_MODEL`] components this is not worked out: they do.
    pub(super) fn jointly_as(
        &self,
        model: &Model,
        id: ComponentId,
        stopped: &[ComponentId],
        shedding: &[ComponentId],
        any_load: bool,
    ) -> bool {
        let Some(relief) = &self.relief else {
            return true;
        };
        let cold_tables = relief.cold_tables.get_or_init(|| tables_of(model, true));
        let warm: &[Table] = if relief.cold {
            cold_tables
        } else {
            &self.tables
        };
        // Moving the written loads twice would take the drop off twice.
        let at_least: Vec<(ComponentId, u32)> = shedding
            .iter()
            .map(|&r| (r, model.component(r).min_healthy))
            .collect();
        let quiet = passing_less(model, stopped, &at_least);
        changes(model, &[warm, cold_tables], id, &quiet, any_load)
    }
}

/// Every component with a call path into `id` (its callers, theirs …).
pub(super) fn callers_upstream(model: &Model, id: ComponentId) -> Vec<ComponentId> {
    let mut callers: Vec<Vec<ComponentId>> = vec![Vec::new(); model.components.len()];
    for c in model.component_ids() {
        let component = model.component(c);
        for edge in &component.depends_on {
            for t in &edge.targets {
                callers[t.0].push(c);
            }
        }
        // What fails over hands its load on: its callers load the target.
        if let Some(to) = component.failover_to {
            callers[to.0].push(c);
        }
    }
    let mut seen = BTreeSet::from([id]);
    let mut stack = vec![id];
    let mut found = Vec::new();
    while let Some(c) = stack.pop() {
        for &caller in &callers[c.0] {
            if seen.insert(caller) {
                found.push(caller);
                stack.push(caller);
            }
        }
    }
    found
}

/// Where a failure could lower the need of a component an entrypoint
/// needs, which the figure does not count on.
#[derive(Debug, Clone, PartialEq)]
pub struct Relief {
    /// The first component whose need it could lower.
    pub component: ComponentId,
    /// An upper bound on the probability of the states in which it can:
    /// `Σ P(reliever has at most n instances up)` over the relievers and
    /// the largest count `n` at which what they pass changes a need
    /// (1 when it cannot be bounded).
    pub probability: f64,
}

/// The relief for `entrypoint`: the figure counts none (a caller that is
/// lost still counts its load, a shedding one passes its full strength),
/// which is exact unless something whose loss does not take the
/// entrypoint down can take enough load off a component it needs to
/// change how many instances that component needs. The truth is then at
/// most the figure plus [`Relief::probability`]: outside those states the
/// two agree.
#[must_use]
pub fn relief_in(
    compiled: &Compiled,
    model: &Model,
    _flow: &Flow,
    entrypoint: ComponentId,
) -> Option<Relief> {
    let series: BTreeSet<ComponentId> = crate::engine::structure::series_members(model, entrypoint)
        .into_iter()
        .collect();
    let mut seen = BTreeSet::from([entrypoint]);
    let mut stack = vec![entrypoint];
    let mut first = None;
    let mut counts: std::collections::BTreeMap<ComponentId, u32> =
        std::collections::BTreeMap::new();
    let mut failing_over = vec![Vec::new(); compiled.model.components.len()];
    for id in compiled.model.component_ids() {
        if let Some(to) = compiled.model.component(id).failover_to {
            failing_over[to.0].push(id);
        }
    }
    while let Some(c) = stack.pop() {
        let original = compiled.origin[c.0];
        if original.0 < model.components.len() && compiled.needs[original.0] != Need::Structural {
            let relievers = relievers(model, original, &series);
            // Each of them passing nothing at once is the most they can
            // relieve: when even that changes no need, nothing does.
            if !relievers.is_empty() && compiled.jointly(model, original, &relievers) {
                first.get_or_insert(original);
                // Several may relieve it only together, so each counts
                // while it passes less than its whole load (up to the
                // count below which it stops, collapses or sheds), or up
                // to the largest count at which it changes a need alone.
                // A lone shedding reliever relieves alone, and its own
                // largest count is the bound when every count was tried
                // (what it needs lies in the series part). One that does
                // not shed also stops passing anything when overloaded,
                // below its need: its collapse count bounds it.
                let lone = relievers.len() == 1 && {
                    let r = model.component(relievers[0]);
                    r.load_shedding
                        && r.capacity.is_some()
                        && r.instances.saturating_sub(r.min_healthy) <= TRIED_COUNTS
                };
                for &r in &relievers {
                    let alone = compiled.critical(model, original, r).unwrap_or(0);
                    let n = if lone {
                        alone
                    } else {
                        collapse_count(model, compiled, r).max(alone)
                    };
                    let at = counts.entry(r).or_insert(n);
                    *at = (*at).max(n);
                }
            }
        }
        // What it needs, and what moves load onto that: the caches in
        // front of its calls and what fails over to it (their own needs
        // decide whether the load moves).
        for edge in compiled
            .model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
        {
            for &t in edge.targets.iter().chain(&edge.cached_by) {
                if seen.insert(t) {
                    stack.push(t);
                }
            }
        }
        for &source in &failing_over[c.0] {
            if seen.insert(source) {
                stack.push(source);
            }
        }
    }
    let component = first?;
    let probability = counts
        .iter()
        .map(|(&r, &n)| at_most_up(model, r, n))
        .sum::<f64>()
        .min(1.0);
    Some(Relief {
        component,
        probability,
    })
}

/// What can take load off `id` without taking the entrypoint down (whose
/// series part is `series`): everything with a call path into it (a
/// failover hands its load on) and what those need, outside the series
/// part.
fn relievers(model: &Model, id: ComponentId, series: &BTreeSet<ComponentId>) -> Vec<ComponentId> {
    relievers_of(model, id, series, &callers_upstream(model, id))
}

/// [`relievers`], with the components upstream of `id` already walked.
fn relievers_of(
    model: &Model,
    id: ComponentId,
    series: &BTreeSet<ComponentId>,
    upstream: &[ComponentId],
) -> Vec<ComponentId> {
    let mut found: BTreeSet<ComponentId> = upstream
        .iter()
        .copied()
        .filter(|r| *r != id && !series.contains(r))
        .collect();
    // A reliever stops when what it needs does.
    let mut stack: Vec<ComponentId> = found.iter().copied().collect();
    while let Some(r) = stack.pop() {
        for edge in model
            .component(r)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
        {
            for &t in &edge.targets {
                if t != id && !series.contains(&t) && found.insert(t) {
                    stack.push(t);
                }
            }
        }
    }
    found.into_iter().collect()
}

/// The largest count of `id`'s instances at which it does not pass its
/// whole load on: below its `min_healthy`, or below what its largest load
/// needs (it collapses or sheds); all of them when no count carries it.
fn collapse_count(model: &Model, compiled: &Compiled, id: ComponentId) -> u32 {
    let c = model.component(id);
    let need = match &compiled.needs[id.0] {
        Need::Structural => c.min_healthy,
        Need::Static(k) => *k,
        Need::Levels(levels) => levels.last().map_or(c.instances, |(k, _)| *k),
        Need::Never => return c.instances,
    };
    need.max(c.min_healthy).saturating_sub(1)
}

/// How many of a shedding reliever's counts are tried, from the top.
const TRIED_COUNTS: u32 = 16;

/// The largest count of `reliever`'s instances at which what it passes on
/// (nothing below `min_healthy`, its running capacity if it sheds) changes
/// the need of `id` in some combination of the movers, warm or cold;
/// `None` when no count does.
pub(super) fn critical_count(
    model: &Model,
    baseline: &[&[Table]; 2],
    id: ComponentId,
    reliever: ComponentId,
) -> Option<u32> {
    let r = model.component(reliever);
    // Passing nothing is the most it can relieve: when even that changes
    // no need, no count does.
    if !changes_need(model, baseline, id, &quieted(model, &[reliever])) {
        return None;
    }
    // A shedding one passes less with each instance lost: the largest
    // count that changes a need, from the top.
    if r.load_shedding && r.capacity.is_some() {
        for n in (r.min_healthy..r.instances)
            .rev()
            .take(TRIED_COUNTS as usize)
        {
            if changes_need(
                model,
                baseline,
                id,
                &passing_less(model, &[], &[(reliever, n)]),
            ) {
                return Some(n);
            }
        }
    }
    Some(r.min_healthy.saturating_sub(1))
}

/// Whether the need of `id` in `quiet` differs from its need in
/// `baseline` (warm and cold) in some combination of the movers.
fn changes_need(model: &Model, baseline: &[&[Table]; 2], id: ComponentId, quiet: &Quiet) -> bool {
    changes(model, baseline, id, quiet, false)
}

/// Whether `id` in `quiet` differs from `baseline` (warm and cold) in
/// some combination of the movers: in what it needs, or in the load
/// offered to it at all when `any_load`.
fn changes(
    model: &Model,
    baseline: &[&[Table]; 2],
    id: ComponentId,
    quiet: &Quiet,
    any_load: bool,
) -> bool {
    // A written load held at 0 no longer moves as the load flow moves it
    // (from what was written): the tables cannot tell, so it may change.
    if quiet.past_zero {
        return true;
    }
    let quiet = &quiet.model;
    let c = model.component(id);
    [false, true].into_iter().enumerate().any(|(i, cold)| {
        let before = baseline[i];
        let (after, ..) = tables(quiet, &Flow::new(quiet), cold);
        let (b, a) = (&before[id.0], &after[id.0]);
        b.vars != a.vars
            || b.offered.iter().zip(&a.offered).any(|(x, y)| match (x, y) {
                (Some(x), Some(y)) if any_load => (x - y).abs() > 1e-9 * x.abs().max(1.0),
                (Some(x), Some(y)) => needed(c, *x) != needed(c, *y),
                // Nothing said to reach it needs what no load needs: a
                // failover that stops handing its load on relieves.
                (None, Some(y)) => any_load || needed(c, 0.0) != needed(c, *y),
                (Some(x), None) => any_load || needed(c, *x) != needed(c, 0.0),
                (None, None) => false,
            })
    })
}

/// `model` with `relievers` passing nothing on.
fn quieted(model: &Model, relievers: &[ComponentId]) -> Quiet {
    passing_less(model, relievers, &[])
}

/// `model` with `stopped` passing nothing on and each `(shedding, n)`
/// running at `n` of its instances' capacity, its written loads moved
/// once by what then stops reaching them ([`with_loads_moved`]).
fn passing_less(model: &Model, stopped: &[ComponentId], shedding: &[(ComponentId, u32)]) -> Quiet {
    let mut quiet = model.clone();
    for r in stopped {
        for edge in &mut quiet.components[r.0].depends_on {
            edge.calls = 0.0;
        }
    }
    for &(r, n) in shedding {
        let c = model.component(r);
        if let (Some(q), Some(cap)) = (&mut quiet.components[r.0].capacity, c.capacity) {
            q.per_instance = cap.per_instance * f64::from(n) / f64::from(c.instances.max(1));
        }
    }
    with_loads_moved(model, quiet)
}

/// `changed` (a copy of `model` that passes less somewhere) with each
/// written load moved ([`intact::with_loads_moved`]).
fn with_loads_moved(model: &Model, changed: Model) -> Quiet {
    let (model, past_zero) = intact::with_loads_moved(model, changed);
    Quiet { model, past_zero }
}

/// A copy of the model that passes less somewhere, its written loads
/// moved ([`with_loads_moved`]).
struct Quiet {
    model: Model,
    /// Whether a written load would have moved below 0 and was held there.
    past_zero: bool,
}

/// `P(at most n of the component's instances are up)`, conditioning on
/// the domains and groups it depends on (1 past 12 of them: no bound).
pub(super) fn at_most_up(model: &Model, id: ComponentId, n: u32) -> f64 {
    let events = crate::engine::events::collect(model, &[id]);
    let count = events.events.len();
    if count > 12 || !events.folded.is_empty() {
        return 1.0;
    }
    let mut leaf = events.leaves[0].clone();
    leaf.min_healthy = n + 1;
    leaf.pseudo = None;
    let mut total = 0.0;
    for mask in 0u32..1 << count {
        let p: f64 = events
            .events
            .iter()
            .enumerate()
            .map(|(i, e)| {
                if mask & (1 << i) != 0 {
                    1.0 - e.up
                } else {
                    e.up
                }
            })
            .product();
        if p > 0.0 {
            total += p * leaf.failing(|e| mask & (1 << e) != 0, &[]);
        }
    }
    total.clamp(0.0, 1.0)
}

/// Whether the load into a component with capacity figures reached by
/// `entrypoint` can fall: something upstream can fail without taking the
/// entrypoint down, or a shedding component upstream passes less with
/// fewer instances. The served figure counts neither, so it is then a
/// lower bound. The relievers are tried together (several may relieve it
/// only jointly), and a partial server's share moves with any change of
/// its load, not only a change of how many instances it needs.
#[must_use]
pub fn share_relief(
    model: &Model,
    compiled: &Compiled,
    served: &Served,
    entrypoint: ComponentId,
    reached: &[ComponentId],
) -> bool {
    let series: BTreeSet<ComponentId> = crate::engine::structure::series_members(model, entrypoint)
        .into_iter()
        .collect();
    reached.iter().any(|c| {
        let original = compiled.origin[c.0];
        if original.0 >= model.components.len() || served_need(served, model, original) {
            return false;
        }
        // Outside the series part any relief counts (it stops); inside
        // it, only a shedding one's partial relief (down to `min_healthy`
        // instances' worth: its loss takes the entrypoint down anyway).
        let upstream = callers_upstream(model, original);
        let outside = relievers_of(model, original, &series, &upstream);
        let shedding: Vec<ComponentId> = upstream
            .into_iter()
            .filter(|r| {
                let c = model.component(*r);
                series.contains(r) && c.load_shedding && c.capacity.is_some()
            })
            .collect();
        if outside.is_empty() && shedding.is_empty() {
            return false;
        }
        let partial = served.partial.binary_search(&original).is_ok();
        compiled.jointly_as(model, original, &outside, &shedding, partial)
    })
}

/// Whether a component's capacity never matters to the served figure: no
/// capacity need of its own and no share to serve.
pub(super) fn served_need(served: &Served, model: &Model, id: ComponentId) -> bool {
    served.partial.binary_search(&id).is_err() && {
        let c = model.component(id);
        c.capacity.is_none() && c.rate_limit.is_none()
    }
}

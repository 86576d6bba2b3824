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
use crate::model::{ComponentId, Model};

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

/// Every component with a call path into `id` (its callers, theirs …).
pub(super) fn callers_upstream(model: &Model, id: ComponentId) -> Vec<ComponentId> {
    let mut callers: Vec<Vec<ComponentId>> = vec![Vec::new(); model.components.len()];
    for c in model.component_ids() {
        for edge in &model.component(c).depends_on {
            for t in &edge.targets {
                callers[t.0].push(c);
            }
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
    let mut critical: std::collections::BTreeMap<ComponentId, u32> =
        std::collections::BTreeMap::new();
    while let Some(c) = stack.pop() {
        let original = compiled.origin[c.0];
        if original.0 < model.components.len() && compiled.needs[original.0] != Need::Structural {
            for reliever in callers_upstream(model, original) {
                if series.contains(&reliever) {
                    continue;
                }
                let Some(n) = compiled.critical(model, original, reliever) else {
                    continue;
                };
                first.get_or_insert(original);
                let at = critical.entry(reliever).or_insert(n);
                *at = (*at).max(n);
            }
        }
        for edge in compiled
            .model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
        {
            for &t in &edge.targets {
                if seen.insert(t) {
                    stack.push(t);
                }
            }
        }
    }
    let component = first?;
    let probability = critical
        .iter()
        .map(|(&r, &n)| at_most_up(model, r, n))
        .sum::<f64>()
        .min(1.0);
    Some(Relief {
        component,
        probability,
    })
}

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
    let c = model.component(id);
    let changes = |quiet: &Model| {
        [false, true].into_iter().enumerate().any(|(i, cold)| {
            let before = baseline[i];
            let (after, ..) = tables(quiet, &Flow::new(quiet), cold);
            let (b, a) = (&before[id.0], &after[id.0]);
            b.vars != a.vars
                || b.offered.iter().zip(&a.offered).any(|(x, y)| match (x, y) {
                    (Some(x), Some(y)) => needed(c, *x) != needed(c, *y),
                    _ => false,
                })
        })
    };
    // Passing nothing is the most it can relieve: when even that changes
    // no need, no count does.
    let mut quiet = model.clone();
    for edge in &mut quiet.components[reliever.0].depends_on {
        edge.calls = 0.0;
    }
    if !changes(&quiet) {
        return None;
    }
    // A shedding one passes less with each instance lost: the largest
    // count that changes a need, from the top.
    if r.load_shedding
        && let Some(cap) = r.capacity
    {
        for n in (r.min_healthy..r.instances).rev().take(16) {
            let mut quiet = model.clone();
            if let Some(q) = &mut quiet.components[reliever.0].capacity {
                q.per_instance = cap.per_instance * f64::from(n) / f64::from(r.instances);
            }
            if changes(&quiet) {
                return Some(n);
            }
        }
    }
    Some(r.min_healthy.saturating_sub(1))
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
/// lower bound.
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
        callers_upstream(model, original).into_iter().any(|r| {
            // Outside the series part any relief counts; inside it, only a
            // shedding one's partial relief (its loss takes the entrypoint
            // down anyway).
            let outside = !series.contains(&r);
            let shedding = {
                let c = model.component(r);
                c.load_shedding && c.capacity.is_some()
            };
            (outside || shedding)
                && compiled
                    .critical(model, original, r)
                    .is_some_and(|n| outside || n >= model.component(r).min_healthy)
        })
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

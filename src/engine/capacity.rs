//! Capacity-aware availability, compiled into a structural model.
//!
//! A component is up for an entrypoint only when it is up structurally and
//! its running instances carry the load the load flow sends it in that
//! state: `load ≤ running × capacity` (and `≤ rate_limit`), so it needs at
//! least `k(load) = max(min_healthy, ⌈load / capacity⌉)` instances up. The
//! load reaching a component changes only through a few *movers*: caches
//! (`cached_by`), the alternatives of `any_of`/`at_least` edges (routing
//! follows who is ok, standbys in order), and `failover_to` sources and
//! targets. Given which movers are ok, every component's load is fixed
//! ([`Table`]), hence its `k`.
//!
//! **The compilation.** A component whose `k` never changes gets
//! `min_healthy = k` (a static threshold; never up when `k` exceeds its
//! instances). One whose `k` takes the levels `k_1 < … < k_m` as the movers
//! change is ok exactly when `∨_i (n ≥ k_i ∧ G_i)`, `G_i` the (monotone)
//! set of mover states under which `k_i` instances carry its load. With
//! the count split into bands (`Pseudo::Band`: "at least `k_i`, given fewer
//! than `k_{i+1}`", independent given the correlated events, so that
//! `n ≥ k_j` is "some band from `j` up holds"), that is
//! `∨_i (band_i ∧ G_i)`, and `G_i` is an `any_of` of the minimal sets of
//! movers that must be ok, each a required edge to the movers' own nodes.
//! Cycles (two alternatives each carrying the other's share when it is
//! out) take the greatest fixed point, as the structure does, which is the
//! settled state of [`super::state::State::settle`]. The compiled model is
//! then evaluated by the structural engine unchanged: exact, joint
//! diagram, bounds, improvement.
//!
//! **What it assumes.** Components that are not movers count at their full
//! strength: a lost caller's load is not taken off what it calls ("no
//! relief"), nor a shedding component's lost instances off what it passes
//! on. Where that could matter, and where a component's movers are too
//! many to table ([`MAX_VARS`]: its load is then bounded by the worst case
//! of every mover, [`worst_loads`]), the figure is a lower bound and the
//! entrypoint's figure says so.

use std::collections::BTreeSet;

use super::state::Flow;
use crate::model::intact::{carried, intact_share, passed};
use crate::model::{Capacity, Component, ComponentId, Edge, EdgeKind, Model, Pseudo};

/// Most movers one component's load is tabled over (`2^MAX_VARS` entries).
pub const MAX_VARS: usize = 10;

/// Most movers collected for one component (past [`MAX_VARS`] its load
/// is not tabled: the movers are kept for the bound that requires them).
pub const MAX_MOVERS: usize = 512;

/// Most components whose need changes with the movers that are compiled
/// exactly; past it the figure is bracketed by static thresholds (each
/// component at its largest need, and at its intact one), which the
/// structural engine evaluates at its usual cost.
pub const MAX_DYNAMIC: usize = 32;

/// A component's offered load as a function of which of a few movers are
/// ok: entry `i` has `vars[j]` ok when bit `j` of `i` is set.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The movers, ascending.
    pub vars: Vec<ComponentId>,
    /// The offered load for each combination (`None`: nothing says).
    pub offered: Vec<Option<f64>>,
}

impl Table {
    fn constant(load: Option<f64>) -> Self {
        Self {
            vars: Vec::new(),
            offered: vec![load],
        }
    }

    /// The load under `ok`.
    fn get(&self, ok: &impl Fn(ComponentId) -> bool) -> Option<f64> {
        let mut index = 0;
        for (j, &v) in self.vars.iter().enumerate() {
            if ok(v) {
                index |= 1 << j;
            }
        }
        self.offered[index]
    }
}

/// How a component's capacity enters the figure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need {
    /// No capacity figures, or they never need more than `min_healthy`.
    Structural,
    /// Always `k` instances (`k` above `min_healthy`).
    Static(u32),
    /// More than it has in every state: never serves its whole load.
    Never,
    /// Levels that depend on the movers: `(k_i, minimal sets of movers
    /// that must be ok for k_i to suffice)`, ascending in `k_i`; an empty
    /// set means "always".
    Levels(Vec<(u32, Vec<Vec<ComponentId>>)>),
}

/// The compilation of one model.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The structural model whose figures are the capacity-aware ones (a
    /// lower bound when `upper` is given).
    pub model: Model,
    /// Whether the needs that change were too many to compile exactly:
    /// `model` then has every component at its largest need, and its
    /// figures are lower bounds (the structural figures the upper ends).
    pub bracketed: bool,
    /// For every component of `model`, the component of the original it
    /// stands for.
    pub origin: Vec<ComponentId>,
    /// What each original component needs.
    pub needs: Vec<Need>,
    /// Original components whose threshold is a bound (movers too many to
    /// table, or a table that was not monotone): figures that reach them
    /// are lower bounds.
    pub approximate: Vec<ComponentId>,
    /// The load tables, per original component.
    pub tables: Vec<Table>,
    /// What can relieve each need, worked out when first asked
    /// ([`Compiled::critical`]).
    relief: Option<Relieving>,
}

/// The memo behind [`Compiled::critical`]: the cold tables, once, and
/// each (component, upstream component) pair's largest relieving count.
#[derive(Debug)]
struct Relieving {
    cold: bool,
    cold_tables: std::sync::OnceLock<Vec<Table>>,
    memo: std::sync::Mutex<std::collections::HashMap<(ComponentId, ComponentId), Option<u32>>>,
}

impl Clone for Relieving {
    fn clone(&self) -> Self {
        Self {
            cold: self.cold,
            cold_tables: self.cold_tables.clone(),
            memo: std::sync::Mutex::new(
                self.memo.lock().map(|m| m.clone()).unwrap_or_default(),
            ),
        }
    }
}

impl Compiled {
    /// Whether capacity changes nothing: the compiled model is the model.
    #[must_use]
    pub fn is_structural(&self) -> bool {
        self.needs.iter().all(|n| *n == Need::Structural)
    }
}

/// Whether `id` is a mover: a cache, an alternative of an edge with more
/// than one target, or on a `failover_to` chain.
fn movers(model: &Model) -> Vec<bool> {
    let mut mover = vec![false; model.components.len()];
    for c in &model.components {
        if let Some(to) = c.failover_to {
            mover[to.0] = true;
        }
        for edge in &c.depends_on {
            if let Some(cache) = edge.cached_by {
                mover[cache.0] = true;
            }
            if edge.kind != EdgeKind::Target && edge.targets.len() > 1 {
                for t in &edge.targets {
                    mover[t.0] = true;
                }
            }
        }
    }
    for (id, c) in model.components.iter().enumerate() {
        if c.failover_to.is_some() {
            mover[id] = true;
        }
    }
    mover
}

/// The components whose `failover_to` chain passes `target` before
/// reaching an end, with the chain members between them and it.
fn failover_sources(model: &Model) -> Vec<Vec<(ComponentId, Vec<ComponentId>)>> {
    let n = model.components.len();
    let mut sources: Vec<Vec<(ComponentId, Vec<ComponentId>)>> = vec![Vec::new(); n];
    for id in model.component_ids() {
        let mut between = Vec::new();
        let mut next = model.component(id).failover_to;
        while let Some(to) = next {
            if to == id || between.len() > n {
                break;
            }
            sources[to.0].push((id, between.clone()));
            between.push(to);
            next = model.component(to).failover_to;
        }
    }
    sources
}

/// The movers each component's load depends on: those of its callers, the
/// callers themselves when they are movers, the alternatives of its
/// in-edges, their caches, and its failover sources with theirs; itself
/// when it is a mover. `None` past [`MAX_MOVERS`].
fn var_sets(
    model: &Model,
    flow: &Flow,
    mover: &[bool],
    sources: &[Vec<(ComponentId, Vec<ComponentId>)>],
) -> Vec<Option<BTreeSet<ComponentId>>> {
    let n = model.components.len();
    let mut vars: Vec<Option<BTreeSet<ComponentId>>> = vec![Some(BTreeSet::new()); n];
    let order = flow.order();
    for _round in 0..=n {
        let mut changed = false;
        for &id in &order.order {
            let Some(current) = vars[id.0].clone() else {
                continue;
            };
            let mut set = current.clone();
            let mut overflow = false;
            if mover[id.0] {
                set.insert(id);
            }
            for &(caller, e) in &order.inbound[id.0] {
                if order.is_cut(caller, id) {
                    continue;
                }
                let edge = &model.component(caller).depends_on[e];
                match &vars[caller.0] {
                    Some(v) => set.extend(v.iter().copied()),
                    None => overflow = true,
                }
                if mover[caller.0] {
                    set.insert(caller);
                }
                if edge.kind != EdgeKind::Target && edge.targets.len() > 1 {
                    set.extend(edge.targets.iter().copied());
                }
                if let Some(cache) = edge.cached_by {
                    set.insert(cache);
                }
            }
            for (source, between) in &sources[id.0] {
                set.insert(*source);
                set.extend(between.iter().copied());
                match &vars[source.0] {
                    Some(v) => set.extend(v.iter().copied()),
                    None => overflow = true,
                }
            }
            if overflow || set.len() > MAX_MOVERS {
                vars[id.0] = None;
                changed = true;
            } else if set != current {
                vars[id.0] = Some(set);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    vars
}

/// Who is ok in one combination of a table: a mover as the combination
/// says, everything else yes.
struct Assignment<'a> {
    vars: &'a [ComponentId],
    bits: usize,
}

impl Assignment<'_> {
    fn ok(&self, id: ComponentId) -> bool {
        match self.vars.binary_search(&id) {
            Ok(j) => self.bits & (1 << j) != 0,
            Err(_) => true,
        }
    }
}

/// The load tables of every component, in rounds until they settle (a
/// failover source may come after its target in the dependency order).
/// A component whose movers are too many gets its worst-case load.
#[allow(
    clippy::type_complexity,
    reason = "three per-component lists, named where they are read"
)]
fn tables(
    model: &Model,
    flow: &Flow,
    cold: bool,
) -> (Vec<Table>, Vec<bool>, Vec<Option<Vec<ComponentId>>>) {
    let n = model.components.len();
    let mover = movers(model);
    let sources = failover_sources(model);
    let vars = var_sets(model, flow, &mover, &sources);
    let worst = worst_loads(model, flow, &sources, cold);
    let truncated: Vec<bool> = vars
        .iter()
        .map(|v| v.as_ref().is_none_or(|v| v.len() > MAX_VARS))
        .collect();
    let mut tables: Vec<Table> = (0..n)
        .map(|i| match &vars[i] {
            Some(v) if v.len() <= MAX_VARS => Table {
                vars: v.iter().copied().collect(),
                offered: vec![None; 1 << v.len()],
            },
            _ => Table::constant(worst[i]),
        })
        .collect();
    // Edge-only loads (without what fails over into it) per combination,
    // for the failover moves.
    let mut edge_only: Vec<Vec<Option<f64>>> = tables.iter().map(|t| t.offered.clone()).collect();
    for _round in 0..=n {
        let mut changed = false;
        for &id in &flow.order().order {
            if truncated[id.0] {
                continue;
            }
            let size = tables[id.0].offered.len();
            let mut offered = Vec::with_capacity(size);
            let mut edges = Vec::with_capacity(size);
            for bits in 0..size {
                let a = Assignment {
                    vars: &tables[id.0].vars,
                    bits,
                };
                let own = edge_load(model, flow, &tables, &a, id, cold);
                let moved = moved_in(&tables, &edge_only, &sources[id.0], &a, model, id);
                // As the state sums them: (intact + Δ in-flows + moved in),
                // never below 0; what moves on is the edge part.
                let clamp = |sum: f64| {
                    if sum.is_nan() {
                        f64::INFINITY
                    } else {
                        sum.max(0.0)
                    }
                };
                edges.push(own.map(clamp));
                offered.push(match (own, moved) {
                    (Some(l), m) => Some(clamp(l + m)),
                    (None, m) if m > 0.0 => Some(m),
                    (None, _) => None,
                });
            }
            if offered != tables[id.0].offered || edges != edge_only[id.0] {
                tables[id.0].offered = offered;
                edge_only[id.0] = edges;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let movers: Vec<Option<Vec<ComponentId>>> = vars
        .into_iter()
        .map(|v| v.map(|v| v.into_iter().collect()))
        .collect();
    (tables, truncated, movers)
}

/// The load of `id` from its in-edges under `a` (its failover moves not
/// counted): its intact load plus the change of each in-flow, as
/// [`super::state::State`] computes it (not yet clamped at 0).
fn edge_load(
    model: &Model,
    flow: &Flow,
    tables: &[Table],
    a: &Assignment,
    id: ComponentId,
    cold: bool,
) -> Option<f64> {
    let base = flow.intact_loads()[id.0]?;
    let order = flow.order();
    let mut delta = 0.0;
    for &(caller, e) in &order.inbound[id.0] {
        if order.is_cut(caller, id) {
            continue;
        }
        let from = model.component(caller);
        let Some(intact_caller) = flow.intact_loads()[caller.0] else {
            continue;
        };
        let edge = &from.depends_on[e];
        let before = carried(
            passed(from, from.instances, intact_caller),
            edge,
            edge.hit_rate,
        ) * intact_share(model, edge, id);
        let after = sent(model, tables, a, caller, edge, id, cold);
        let change = after - before;
        if !change.is_nan() {
            delta += change;
        }
    }
    Some(base + delta)
}

/// What `caller` sends `target` over `edge` under `a`.
fn sent(
    model: &Model,
    tables: &[Table],
    a: &Assignment,
    caller: ComponentId,
    edge: &Edge,
    target: ComponentId,
    cold: bool,
) -> f64 {
    let from = model.component(caller);
    // A caller that is not ok hands its load on when its chain has an ok
    // component: it then passes nothing.
    if !a.ok(caller) && chain_target(model, caller, &|c| a.ok(c)).is_some() {
        return 0.0;
    }
    let Some(load) = tables[caller.0].get(&|c| a.ok(c)) else {
        return 0.0;
    };
    let load = passed(from, from.instances, load);
    let share = share(model, edge, target, &|c| a.ok(c));
    if share == 0.0 {
        return 0.0;
    }
    let cache_lost = cold || edge.cached_by.is_some_and(|cache| !a.ok(cache));
    let hit_rate = if cache_lost { None } else { edge.hit_rate };
    carried(load, edge, hit_rate) * share
}

/// The share of `edge` that reaches `target` when `ok` says who is ok
/// (the routing of [`super::state::State::routed`], with "not ok" taken as
/// "not up" and everything running).
fn share(
    model: &Model,
    edge: &Edge,
    target: ComponentId,
    ok: &impl Fn(ComponentId) -> bool,
) -> f64 {
    if edge.kind == EdgeKind::Target {
        return 1.0;
    }
    let k = (edge.at_least as usize).max(1);
    let fails_over = |t: ComponentId| model.component(t).failover_to.is_some();
    let mut routed: Vec<ComponentId> = edge
        .targets
        .iter()
        .copied()
        .filter(|&t| ok(t) || fails_over(t))
        .collect();
    if routed.len() < k {
        routed.clone_from(&edge.targets);
    }
    if model.switchover(edge).is_some() {
        routed.truncate(k);
    }
    if !routed.contains(&target) {
        return 0.0;
    }
    #[allow(clippy::cast_precision_loss, reason = "a handful of targets")]
    let share = 1.0 / routed.len() as f64;
    share
}

/// The first ok component along `id`'s `failover_to` chain.
fn chain_target(
    model: &Model,
    id: ComponentId,
    ok: &impl Fn(ComponentId) -> bool,
) -> Option<ComponentId> {
    let mut next = model.component(id).failover_to;
    let mut hops = 0;
    while let Some(to) = next {
        if to == id || hops > model.components.len() {
            return None;
        }
        if ok(to) {
            return Some(to);
        }
        next = model.component(to).failover_to;
        hops += 1;
    }
    None
}

/// What fails over into `id` under `a` (it counts as ok): the edge loads
/// of the sources that are not ok and whose chain's first ok component it
/// is.
fn moved_in(
    tables: &[Table],
    edge_only: &[Vec<Option<f64>>],
    sources: &[(ComponentId, Vec<ComponentId>)],
    a: &Assignment,
    model: &Model,
    id: ComponentId,
) -> f64 {
    let mut moved = 0.0;
    for (source, _) in sources {
        if a.ok(*source) {
            continue;
        }
        let ok = |c: ComponentId| c == id || a.ok(c);
        if chain_target(model, *source, &ok) != Some(id) {
            continue;
        }
        let t = &tables[source.0];
        let mut index = 0;
        for (j, &v) in t.vars.iter().enumerate() {
            if a.ok(v) {
                index |= 1 << j;
            }
        }
        if let Some(load) = edge_only[source.0].get(index).copied().flatten() {
            moved += load;
        }
    }
    moved
}

/// An upper bound on every component's load in any state: every edge at
/// its largest share (`1 / at_least` of an `any_of`/`at_least`), every
/// cache lost, every failover source's load moved in. Used where a load
/// depends on too many movers to table.
#[must_use]
fn worst_loads(
    model: &Model,
    flow: &Flow,
    sources: &[Vec<(ComponentId, Vec<ComponentId>)>],
    cold: bool,
) -> Vec<Option<f64>> {
    let n = model.components.len();
    let order = flow.order();
    let mut edge_worst: Vec<Option<f64>> = flow.intact_loads().to_vec();
    let mut worst: Vec<Option<f64>> = flow.intact_loads().to_vec();
    for _round in 0..=n {
        let mut changed = false;
        for &id in &order.order {
            let Some(base) = flow.intact_loads()[id.0] else {
                continue;
            };
            let mut delta = 0.0;
            for &(caller, e) in &order.inbound[id.0] {
                if order.is_cut(caller, id) {
                    continue;
                }
                let from = model.component(caller);
                let (Some(intact_caller), Some(w)) =
                    (flow.intact_loads()[caller.0], worst[caller.0])
                else {
                    continue;
                };
                let edge = &from.depends_on[e];
                let before = carried(
                    passed(from, from.instances, intact_caller),
                    edge,
                    edge.hit_rate,
                ) * intact_share(model, edge, id);
                let hit = if cold || edge.cached_by.is_some() {
                    None
                } else {
                    edge.hit_rate
                };
                #[allow(clippy::cast_precision_loss, reason = "a handful of targets")]
                let share = match edge.kind {
                    EdgeKind::Target => 1.0,
                    _ => 1.0 / f64::from(edge.at_least.max(1)),
                };
                let after = carried(passed(from, from.instances, w), edge, hit) * share;
                delta += (after - before).max(0.0);
            }
            let edges = base + delta;
            let moved: f64 = sources[id.0]
                .iter()
                .filter_map(|(s, _)| edge_worst[s.0])
                .sum();
            let total = if (edges + moved).is_nan() {
                f64::INFINITY
            } else {
                edges + moved
            };
            if edge_worst[id.0] != Some(edges) || worst[id.0] != Some(total) {
                edge_worst[id.0] = Some(edges);
                worst[id.0] = Some(total);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    worst
}

/// Instances a component needs to serve `load` whole (`None`: more than
/// it has, or over its rate limit).
fn needed(c: &Component, load: f64) -> Option<u32> {
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
fn need_of(model: &Model, id: ComponentId, table: &Table) -> (Need, bool) {
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
    let mut level: Vec<u32> = (0..size)
        .map(|bits| {
            let ok = |v: ComponentId| {
                v == id
                    || others
                        .iter()
                        .position(|&o| o == v)
                        .is_some_and(|j| bits & (1 << j) != 0)
            };
            table
                .get(&ok)
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
fn truncated_need(
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

/// Compiles `model` (with every cache cold when `cold`).
#[must_use]
pub fn compile(model: &Model, cold: bool) -> Compiled {
    compile_with(model, cold, true)
}

/// [`compile`], working out what can relieve each need only when
/// `relief` (a figure that only needs the compiled model skips it).
#[must_use]
pub fn compile_with(model: &Model, cold: bool, relief: bool) -> Compiled {
    let flow = Flow::new(model);
    let (tables, truncated, all_movers) = tables(model, &flow, cold);
    let mut needs = Vec::with_capacity(model.components.len());
    let mut approximate = Vec::new();
    for id in model.component_ids() {
        let (need, relief) = if truncated[id.0] {
            truncated_need(model, &flow, id, &tables[id.0], all_movers[id.0].as_deref())
        } else {
            need_of(model, id, &tables[id.0])
        };
        if need != Need::Structural && (relief || truncated[id.0]) {
            approximate.push(id);
        }
        needs.push(need);
    }
    let mut compiled = model.clone();
    let mut origin: Vec<ComponentId> = model.component_ids().collect();
    let dynamic = needs
        .iter()
        .filter(|n| matches!(n, Need::Levels(_)))
        .count();
    if dynamic > MAX_DYNAMIC {
        // Each component at its largest need: every mover that can shift
        // load onto it out at once (never up when that is more than it
        // has). A lower bound at the structural engine's usual cost; the
        // structural figure is the upper end.
        for id in model.component_ids() {
            let worst = match &needs[id.0] {
                Need::Structural => continue,
                Need::Static(k) => Some(*k),
                Need::Never => None,
                Need::Levels(levels) => levels
                    .last()
                    .filter(|(_, sets)| sets.iter().any(Vec::is_empty))
                    .map(|(k, _)| *k),
            };
            match worst {
                Some(k) => compiled.components[id.0].min_healthy = k,
                None => never(&mut compiled.components[id.0]),
            }
            if matches!(needs[id.0], Need::Levels(_)) && !approximate.contains(&id) {
                approximate.push(id);
            }
        }
        approximate.sort_unstable();
        return Compiled {
            model: compiled,
            bracketed: true,
            origin,
            needs,
            approximate,
            tables,
            relief: None,
        };
    }
    for id in model.component_ids() {
        match &needs[id.0] {
            Need::Structural => {}
            Need::Static(k) => compiled.components[id.0].min_healthy = *k,
            Need::Never => never(&mut compiled.components[id.0]),
            Need::Levels(levels) => {
                add_levels(&mut compiled, &mut origin, id, levels);
            }
        }
    }
    let relief = (relief && model.components.len() <= MAX_RELIEF_MODEL).then(|| Relieving {
        cold,
        cold_tables: std::sync::OnceLock::new(),
        memo: std::sync::Mutex::new(std::collections::HashMap::new()),
    });
    Compiled {
        model: compiled,
        bracketed: false,
        origin,
        needs,
        approximate,
        tables,
        relief,
    }
}

/// Most components for which what can relieve each need is worked out
/// (a load table of the whole model per upstream component and count).
const MAX_RELIEF_MODEL: usize = 200;

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
        let warm: &[Table] = if relief.cold { cold_tables } else { &self.tables };
        let found = critical_count(model, &[warm, cold_tables], id, reliever);
        if let Ok(mut memo) = relief.memo.lock() {
            memo.insert((id, reliever), found);
        }
        found
    }
}

/// The load tables of `model`.
fn tables_of(model: &Model, cold: bool) -> Vec<Table> {
    tables(model, &Flow::new(model), cold).0
}

/// A component that can never carry its load: it needs more instances
/// than it has (so even perfect instances do not make it up).
fn never(c: &mut Component) {
    c.min_healthy = c.instances.saturating_add(1);
    if c.availability.is_none() {
        // Known to fail, not unquantified.
        c.availability = Some(1.0);
    }
}

/// A component with no failures of its own and no domains or groups: it
/// stands for a condition over others (its required edges).
fn neutral(of: &Component, name: String, depends_on: Vec<Edge>) -> Component {
    Component {
        name,
        instances: 1,
        placement: Vec::new(),
        min_healthy: 1,
        availability: Some(1.0),
        mttr: None,
        capacity: None,
        load_shedding: false,
        rate_limit: None,
        shares: Vec::new(),
        failover_to: None,
        depends_on,
        recovery: None,
        objective: None,
        pseudo: None,
        ..of.clone()
    }
}

/// A required edge to `targets`, all of them (`Target`) or any one.
fn required(kind: EdgeKind, targets: Vec<ComponentId>, like: &Edge) -> Edge {
    Edge {
        kind,
        targets,
        at_least: 1,
        retries: 0,
        retry_budget: None,
        timeout: None,
        hit_rate: None,
        cached_by: None,
        calls: 1.0,
        degradable: false,
        pull: false,
        switchover: None,
        ..like.clone()
    }
}

/// Replaces `id`'s own health by `∨_i (band_i ∧ G_i)`: `id` keeps its
/// edges and needs a new `id#own`, an `any_of` of one component per level,
/// each the band of its count with required edges to the movers of `G_i`
/// (an `any_of` of one component per minimal set when there are several).
fn add_levels(
    compiled: &mut Model,
    origin: &mut Vec<ComponentId>,
    id: ComponentId,
    levels: &[(u32, Vec<Vec<ComponentId>>)],
) {
    let original = compiled.components[id.0].clone();
    let template = Edge {
        kind: EdgeKind::Target,
        targets: Vec::new(),
        at_least: 1,
        retries: 0,
        backoff: crate::model::Backoff::None,
        retry_budget: None,
        timeout: None,
        hit_rate: None,
        cached_by: None,
        calls: 1.0,
        degradable: false,
        pull: false,
        switchover: None,
        span: original.span,
        fields: crate::model::Fields::default(),
    };
    let push = |compiled: &mut Model, origin: &mut Vec<ComponentId>, c: Component| {
        let at = ComponentId(compiled.components.len());
        compiled.components.push(c);
        origin.push(id);
        at
    };
    let mut bands = Vec::new();
    for (i, (k, minimal)) in levels.iter().enumerate() {
        let below = levels.get(i + 1).map(|(next, _)| *next);
        let condition: Vec<Edge> = if minimal.iter().any(Vec::is_empty) {
            Vec::new()
        } else if minimal.len() == 1 {
            vec![required(EdgeKind::Target, minimal[0].clone(), &template)]
        } else {
            let terms: Vec<ComponentId> = minimal
                .iter()
                .enumerate()
                .map(|(t, set)| {
                    let term = neutral(
                        &original,
                        format!("{} (≥{k} up, case {})", original.name, t + 1),
                        vec![required(EdgeKind::Target, set.clone(), &template)],
                    );
                    push(compiled, origin, term)
                })
                .collect();
            vec![required(EdgeKind::AnyOf, terms, &template)]
        };
        let band = Component {
            name: format!("{} (≥{k} up)", original.name),
            min_healthy: *k,
            pseudo: below.map(|below| Pseudo::Band { below }),
            depends_on: condition,
            failover_to: None,
            recovery: None,
            objective: None,
            ..original.clone()
        };
        bands.push(push(compiled, origin, band));
    }
    let own_edges = if bands.len() == 1 {
        vec![required(EdgeKind::Target, bands.clone(), &template)]
    } else {
        vec![required(EdgeKind::AnyOf, bands.clone(), &template)]
    };
    let own = neutral(&original, format!("{} (own)", original.name), own_edges);
    let own = push(compiled, origin, own);
    let mut edges = original.depends_on.clone();
    edges.push(required(EdgeKind::Target, vec![own], &template));
    let neutralised = neutral(&original, original.name.clone(), edges);
    compiled.components[id.0] = Component {
        failover_to: original.failover_to,
        recovery: original.recovery.clone(),
        objective: original.objective,
        ..neutralised
    };
}

/// The model whose figures are the served shares: the compiled model with
/// every component that can serve a share (shedding past its capacity, or
/// past its `rate_limit`) standing for its expected share instead of
/// "ok" ([`Pseudo::Share`]). Evaluating a structure with such leaves gives
/// the expectation of its multilinear extension, which is the expected
/// served share where the partial servers are in series.
#[derive(Debug, Clone)]
pub struct Served {
    /// The model.
    pub model: Model,
    /// The partial servers (original ids), sorted.
    pub partial: Vec<ComponentId>,
    /// Partial servers whose share is a bound (a load that changes with
    /// the movers, taken at its largest; or a mover itself), sorted.
    pub inexact: Vec<ComponentId>,
}

impl Compiled {
    /// The served model of `original`, or `None` when nothing can serve a
    /// share (the served figure is then the availability).
    #[must_use]
    pub fn served(&self, original: &Model) -> Option<Served> {
        let mover = movers(original);
        let mut model = self.model.clone();
        let mut partial = Vec::new();
        let mut inexact = Vec::new();
        for id in original.component_ids() {
            let c = original.component(id);
            let sheds = c.load_shedding && c.capacity.is_some() || c.rate_limit.is_some();
            if !sheds || self.needs[id.0] == Need::Structural || c.depends_on.iter().any(|e| e.pull)
            {
                continue;
            }
            let table = &self.tables[id.0];
            let loads = table.offered.iter().flatten().copied();
            let (load, exact) = match self.needs[id.0] {
                Need::Levels(_) => (loads.fold(0.0, f64::max), false),
                _ => (table.offered[table.offered.len() - 1].unwrap_or(0.0), true),
            };
            let limit = c.rate_limit.unwrap_or(f64::INFINITY);
            model.components[id.0] = Component {
                pseudo: Some(Pseudo::Share {
                    load,
                    limit,
                    sheds: c.load_shedding,
                }),
                availability: c.availability.or(Some(1.0)),
                ..c.clone()
            };
            partial.push(id);
            // A shedding component upstream passes less with fewer
            // instances, which the share's load (at full strength) does
            // not count.
            let shed_above = callers_upstream(original, id).into_iter().any(|u| {
                let u = original.component(u);
                u.load_shedding && u.capacity.is_some()
            });
            if !exact || mover[id.0] || self.bracketed || shed_above {
                inexact.push(id);
            }
        }
        (!partial.is_empty()).then_some(Served {
            model,
            partial,
            inexact,
        })
    }
}

/// Every component with a call path into `id` (its callers, theirs …).
fn callers_upstream(model: &Model, id: ComponentId) -> Vec<ComponentId> {
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
    let series: BTreeSet<ComponentId> = super::structure::series_members(model, entrypoint)
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
fn critical_count(
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
fn at_most_up(model: &Model, id: ComponentId, n: u32) -> f64 {
    let events = super::events::collect(model, &[id]);
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
    let series: BTreeSet<ComponentId> = super::structure::series_members(model, entrypoint)
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
fn served_need(served: &Served, model: &Model, id: ComponentId) -> bool {
    served.partial.binary_search(&id).is_err() && {
        let c = model.component(id);
        c.capacity.is_none() && c.rate_limit.is_none()
    }
}

/// Most components whose capacity cost is worked out (two figures of the
/// whole model each).
pub const MAX_COSTED: usize = 12;

/// What one component's capacity costs the entrypoints, and what would
/// carry its worst load.
#[derive(Debug, Clone, PartialEq)]
pub struct Cost {
    /// The component.
    pub component: ComponentId,
    /// Per entrypoint (in model order), the unavailability its capacity
    /// adds: the figure with it never overloaded, less.
    pub added: Vec<f64>,
    /// The instances that carry its largest load with the spare it was
    /// given (its need at its largest load plus `instances − need` in the
    /// intact state), when more than it has.
    pub instances: Option<u32>,
    /// Per entrypoint, the unavailability that fleet takes off.
    pub gained: Vec<f64>,
}

/// The components whose capacity may cost something, worst-case need
/// first: those whose need is not structural, at most [`MAX_COSTED`].
#[must_use]
pub fn costed(compiled: &Compiled, model: &Model) -> Vec<(ComponentId, Option<u32>)> {
    let mut list: Vec<(ComponentId, Option<u32>, u32)> = Vec::new();
    for id in model.component_ids() {
        let c = model.component(id);
        let (intact, largest) = match &compiled.needs[id.0] {
            Need::Structural => continue,
            Need::Static(k) => (*k, Some(*k)),
            Need::Never => (c.instances.saturating_add(1), None),
            Need::Levels(levels) => (
                levels[0].0,
                levels
                    .last()
                    .filter(|(_, sets)| sets.iter().any(Vec::is_empty))
                    .map(|(k, _)| *k),
            ),
        };
        // The need at the largest load, from the table when it is beyond
        // every level (never enough instances).
        let worst = largest.or_else(|| {
            let load = compiled.tables[id.0]
                .offered
                .iter()
                .flatten()
                .fold(0.0_f64, |a, &b| a.max(b));
            let per = c.capacity.map_or(0.0, |cap| cap.per_instance);
            if per > 0.0 && load.is_finite() && c.rate_limit.is_none_or(|l| load <= l) {
                #[allow(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "a count of instances"
                )]
                let k = (load / per).ceil().min(f64::from(u32::MAX)) as u32;
                Some(k.max(c.min_healthy))
            } else {
                None
            }
        });
        let spare = c.instances.saturating_sub(intact.min(c.instances));
        // Searched from here up (`engine::add_costs`): at least one more.
        let fleet = Some(
            worst
                .map_or(c.instances, |k| k.saturating_add(spare))
                .max(c.instances.saturating_add(1)),
        );
        list.push((id, fleet, worst.unwrap_or(u32::MAX)));
    }
    list.sort_by_key(|&(id, _, worst)| (std::cmp::Reverse(worst), id));
    list.truncate(MAX_COSTED);
    list.into_iter().map(|(id, fleet, _)| (id, fleet)).collect()
}

/// `model` with `id`'s capacity never binding (no capacity figures, no
/// rate limit): what its capacity costs is the difference.
#[must_use]
pub fn without_capacity(model: &Model, id: ComponentId) -> Model {
    let mut m = model.clone();
    // Infinite capacity, not none: the written load stays what the load
    // flow starts from.
    if let Some(cap) = &mut m.components[id.0].capacity {
        cap.per_instance = f64::INFINITY;
    }
    m.components[id.0].rate_limit = None;
    m
}

/// `model` with `id` running `instances`, spread over its domains as its
/// placement spreads them (the extra ones round-robin from the first).
#[must_use]
pub fn with_instances(model: &Model, id: ComponentId, instances: u32) -> Model {
    let mut m = model.clone();
    let c = &mut m.components[id.0];
    let extra = instances.saturating_sub(c.instances);
    if !c.placement.is_empty() {
        let n = c.placement.len();
        for i in 0..extra as usize {
            c.placement[i % n].1 += 1;
        }
    }
    c.instances = instances;
    m
}

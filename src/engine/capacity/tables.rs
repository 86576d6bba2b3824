//! The load tables: each component's offered load as a function of which
//! movers are ok, computed as the load flow of `engine::state` computes it
//! (every component that is not a mover at full strength), and the
//! worst-case load where a component depends on too many movers.

use super::{MAX_MOVERS, MAX_VARS, Table};
use crate::engine::state::Flow;
use crate::model::intact::{carried, intact_share, movers, passed};
use crate::model::{ComponentId, Edge, EdgeKind, Model};

/// The components whose `failover_to` chain passes `target` before
/// reaching an end, with the chain members between them and it.
pub(super) fn failover_sources(model: &Model) -> Vec<Vec<(ComponentId, Vec<ComponentId>)>> {
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
/// callers themselves when they are movers, the `failover_to` chains of
/// its callers (whether a caller that is not ok hands its load on or still
/// passes it here), the alternatives of its in-edges, their caches, and
/// its failover sources with theirs; itself when it is a mover; ascending.
/// `None` past [`MAX_MOVERS`].
pub(super) fn var_sets(
    model: &Model,
    flow: &Flow,
    mover: &[bool],
    sources: &[Vec<(ComponentId, Vec<ComponentId>)>],
) -> Vec<Option<Vec<ComponentId>>> {
    let n = model.components.len();
    let mut vars: Vec<Option<Vec<ComponentId>>> = vec![Some(Vec::new()); n];
    let order = flow.order();
    // Who reads a component's set: the targets of its edges and what it
    // fails over into. A set is worked out again only when one it reads
    // changed (it only grows, from the same inputs: the same rounds as
    // working every set out every round).
    let mut readers: Vec<Vec<ComponentId>> = vec![Vec::new(); n];
    for id in model.component_ids() {
        for &(caller, _) in &order.inbound[id.0] {
            readers[caller.0].push(id);
        }
        for (source, _) in &sources[id.0] {
            readers[source.0].push(id);
        }
    }
    let mut dirty = vec![true; n];
    for _round in 0..=n {
        let mut changed = false;
        for &id in &order.order {
            if !std::mem::replace(&mut dirty[id.0], false) {
                continue;
            }
            let Some(current) = &vars[id.0] else {
                continue;
            };
            let mut set = current.clone();
            let mut overflow = false;
            if mover[id.0] {
                set.push(id);
            }
            for &(caller, e) in &order.inbound[id.0] {
                if order.is_cut(caller, id) {
                    continue;
                }
                let edge = &model.component(caller).depends_on[e];
                match &vars[caller.0] {
                    Some(v) => set.extend_from_slice(v),
                    None => overflow = true,
                }
                if mover[caller.0] {
                    set.push(caller);
                }
                // A caller that is not ok hands its load on only when its
                // chain has an ok component (`edge_loads`): the chain's
                // okness decides whether it passes anything here.
                set.extend(chain(model, caller));
                if edge.kind != EdgeKind::Target && edge.targets.len() > 1 {
                    set.extend_from_slice(&edge.targets);
                }
                if let Some(cache) = edge.cached_by {
                    set.push(cache);
                }
            }
            for (source, between) in &sources[id.0] {
                set.push(*source);
                set.extend_from_slice(between);
                match &vars[source.0] {
                    Some(v) => set.extend_from_slice(v),
                    None => overflow = true,
                }
            }
            set.sort_unstable();
            set.dedup();
            let grew = if overflow || set.len() > MAX_MOVERS {
                vars[id.0] = None;
                true
            } else if set == *current {
                false
            } else {
                vars[id.0] = Some(set);
                true
            };
            if grew {
                changed = true;
                for &r in &readers[id.0] {
                    dirty[r.0] = true;
                }
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
pub(super) struct Assignment<'a> {
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
pub(super) fn tables(
    model: &Model,
    flow: &Flow,
    cold: bool,
) -> (
    Vec<Table>,
    Vec<bool>,
    Vec<Option<Vec<ComponentId>>>,
    Option<Vec<Table>>,
) {
    let mover = movers(model);
    let sources = failover_sources(model);
    let vars = var_sets(model, flow, &mover, &sources);
    let worst = worst_loads(model, flow, &sources, cold);
    let truncated: Vec<bool> = vars
        .iter()
        .map(|v| v.as_ref().is_none_or(|v| v.len() > MAX_VARS))
        .collect();
    let mut ambiguous = false;
    let run = |routing, ambiguous: &mut bool| {
        settle_tables(
            model, flow, cold, &vars, &worst, &truncated, &sources, routing, ambiguous,
        )
    };
    let least = run(Routing::Least, &mut ambiguous);
    if !ambiguous {
        return (least, truncated, vars, None);
    }
    let most = run(Routing::Most, &mut ambiguous);
    (most, truncated, vars, Some(least))
}

/// How an `at_least` edge with fewer alternatives ok than it needs is
/// routed in a table. The load flow then sends it to the alternatives
/// that are up, or failing that running ([`crate::engine::state::State::routed`]),
/// and a table knows only which are ok: `Least` gives an ok alternative
/// its share with every other alternative running and one that is not ok
/// nothing (it may not run), `Most` takes each as not running unless it is
/// the one the share goes to. The load flow's share lies between the two,
/// so where both need as many instances so does the load flow.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Routing {
    Least,
    Most,
}

/// The tables in rounds until they settle, with `routing` where who is
/// ok leaves the routing open; `ambiguous` is set when that happened
/// with load to route.
#[allow(
    clippy::too_many_arguments,
    reason = "the per-model lists worked out once for both routings"
)]
fn settle_tables(
    model: &Model,
    flow: &Flow,
    cold: bool,
    vars: &[Option<Vec<ComponentId>>],
    worst: &[Option<f64>],
    truncated: &[bool],
    sources: &[Vec<(ComponentId, Vec<ComponentId>)>],
    routing: Routing,
    ambiguous: &mut bool,
) -> Vec<Table> {
    let n = model.components.len();
    let mut tables: Vec<Table> = (0..n)
        .map(|i| match &vars[i] {
            Some(v) if v.len() <= MAX_VARS => Table {
                vars: v.clone(),
                offered: vec![None; 1 << v.len()],
            },
            _ => Table::constant(worst[i]),
        })
        .collect();
    // Edge-only loads (without what fails over into it) per combination,
    // for the failover moves.
    let mut edge_only: Vec<Vec<Option<f64>>> = tables.iter().map(|t| t.offered.clone()).collect();
    // Who reads a component's table: the targets of its edges (their
    // in-flows) and the components it fails over into (their moves in).
    // Only what reads a changed table is worked out again.
    let mut readers: Vec<Vec<ComponentId>> = model
        .components
        .iter()
        .map(|c| {
            c.depends_on
                .iter()
                .flat_map(|e| e.targets.iter().copied())
                .collect()
        })
        .collect();
    for (into, from) in sources.iter().enumerate() {
        for (s, between) in from {
            for r in std::iter::once(s).chain(between) {
                readers[r.0].push(ComponentId(into));
            }
        }
    }
    let mut dirty = vec![true; n];
    for _round in 0..=n {
        let mut changed = false;
        for &id in &flow.order().order {
            if truncated[id.0] || !std::mem::replace(&mut dirty[id.0], false) {
                continue;
            }
            let size = tables[id.0].offered.len();
            let mut offered = Vec::with_capacity(size);
            let mut edges = Vec::with_capacity(size);
            let inbound = inbound(model, flow, &tables, id);
            let loads = inbound.as_ref().map(|(base, edges)| {
                edge_loads(model, &tables, id, *base, edges, cold, routing, ambiguous)
            });
            for bits in 0..size {
                let a = Assignment {
                    vars: &tables[id.0].vars,
                    bits,
                };
                let own = loads.as_ref().map(|l| l[bits]);
                let inflow = moved_in(&tables, &edge_only, &sources[id.0], &a, model, id);
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
                offered.push(match (own, inflow) {
                    (Some(l), m) => Some(clamp(l + m)),
                    (None, m) if m > 0.0 => Some(m),
                    (None, _) => None,
                });
            }
            if offered != tables[id.0].offered || edges != edge_only[id.0] {
                tables[id.0].offered = offered;
                edge_only[id.0] = edges;
                changed = true;
                for &r in &readers[id.0] {
                    dirty[r.0] = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    tables
}

/// One in-edge of a tabled component, with what its table's combinations
/// share worked out once: what it carried intact, and where the caller,
/// the movers of the caller's table, the cache and the alternatives stand
/// among the component's movers (`None`: not one of them, always ok).
pub(super) struct Inbound<'m> {
    caller: ComponentId,
    edge: &'m Edge,
    before: f64,
    caller_bit: Option<u32>,
    caller_vars: Vec<Option<u32>>,
    /// Whether a cache fronts the edge, and its bit.
    cached: bool,
    cache_bit: Option<u32>,
    /// The alternatives of an edge with more than one target: each with
    /// its bit and whether it fails over (empty: the whole edge reaches
    /// the component).
    alternatives: Vec<(ComponentId, Option<u32>, bool)>,
    switchover: bool,
}

/// The intact load of `id` and its in-edges as [`edge_loads`] reads them
/// (`None`: nothing says what reaches it).
pub(super) fn inbound<'m>(
    model: &'m Model,
    flow: &Flow,
    tables: &[Table],
    id: ComponentId,
) -> Option<(f64, Vec<Inbound<'m>>)> {
    let base = flow.intact_loads()[id.0]?;
    let vars = &tables[id.0].vars;
    let bit = |c: ComponentId| {
        vars.binary_search(&c).ok().map(|j| {
            #[allow(clippy::cast_possible_truncation, reason = "at most MAX_VARS")]
            let j = j as u32;
            j
        })
    };
    let order = flow.order();
    let mut edges = Vec::with_capacity(order.inbound[id.0].len());
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
        let alternatives = if edge.kind == EdgeKind::Target {
            Vec::new()
        } else {
            edge.targets
                .iter()
                .map(|&t| (t, bit(t), model.component(t).failover_to.is_some()))
                .collect()
        };
        edges.push(Inbound {
            caller,
            edge,
            before,
            caller_bit: bit(caller),
            caller_vars: tables[caller.0].vars.iter().map(|&v| bit(v)).collect(),
            cached: edge.cached_by.is_some(),
            cache_bit: edge.cached_by.and_then(bit),
            alternatives,
            switchover: model.switchover(edge).is_some(),
        });
    }
    Some((base, edges))
}

/// The load of `id` from its in-edges in every combination of its table
/// (its failover moves not counted): its intact load `base` plus the
/// change of each in-flow, summed in the in-edges' order as
/// [`crate::engine::state::State`] sums them (not yet clamped at 0).
#[allow(
    clippy::too_many_arguments,
    reason = "the routing and its flag travel with the tables"
)]
pub(super) fn edge_loads(
    model: &Model,
    tables: &[Table],
    id: ComponentId,
    base: f64,
    inbound: &[Inbound],
    cold: bool,
    routing: Routing,
    ambiguous: &mut bool,
) -> Vec<f64> {
    let vars = &tables[id.0].vars;
    let size = tables[id.0].offered.len();
    let mut delta = vec![0.0; size];
    for edge in inbound {
        let offered = &tables[edge.caller.0].offered;
        let from = model.component(edge.caller);
        let chain = from.failover_to.is_some();
        for (bits, delta) in delta.iter_mut().enumerate() {
            let ok = |bit: Option<u32>| bit.is_none_or(|j| bits & (1 << j) != 0);
            // A caller that is not ok hands its load on when its chain
            // has an ok component: it then passes nothing.
            let handed_on = chain
                && !ok(edge.caller_bit)
                && chain_target(model, edge.caller, &|c| Assignment { vars, bits }.ok(c)).is_some();
            let sent = if handed_on {
                0.0
            } else {
                let mut index = 0;
                for (j, &bit) in edge.caller_vars.iter().enumerate() {
                    if ok(bit) {
                        index |= 1 << j;
                    }
                }
                match offered[index] {
                    None => 0.0,
                    Some(load) => {
                        let (least, most) = edge.share(id, bits);
                        if (least - most).abs() > f64::EPSILON && load > 0.0 {
                            *ambiguous = true;
                        }
                        let share = match routing {
                            Routing::Least => least,
                            Routing::Most => most,
                        };
                        if share == 0.0 {
                            0.0
                        } else {
                            let cache_lost = cold || (edge.cached && !ok(edge.cache_bit));
                            let hit_rate = if cache_lost { None } else { edge.edge.hit_rate };
                            carried(passed(from, from.instances, load), edge.edge, hit_rate) * share
                        }
                    }
                }
            };
            let change = sent - edge.before;
            if !change.is_nan() {
                *delta += change;
            }
        }
    }
    delta.into_iter().map(|d| base + d).collect()
}

impl Inbound<'_> {
    /// The share of this edge that reaches `target` under the combination
    /// `bits`: the routing of [`crate::engine::state::State::routed`], with
    /// "not ok" taken as "not up". Where fewer alternatives are ok than
    /// the edge needs, the load flow routes by who is up or running, which
    /// the combination does not say: the smallest share (an ok `target`'s
    /// with every other alternative running, nothing for one that is not
    /// ok) and the largest (none running but the ok ones and `target`).
    /// Otherwise both are the same.
    fn share(&self, target: ComponentId, bits: usize) -> (f64, f64) {
        if self.alternatives.is_empty() {
            return (1.0, 1.0);
        }
        let routed = |&(_, bit, fails_over): &(ComponentId, Option<u32>, bool)| {
            fails_over || bit.is_none_or(|j| bits & (1 << j) != 0)
        };
        let k = (self.edge.at_least as usize).max(1);
        let ok = self.alternatives.iter().filter(|t| routed(t)).count();
        let all = ok < k;
        let most = if self.switchover { k } else { usize::MAX };
        let (mut len, mut reached) = (0usize, false);
        for t in &self.alternatives {
            if len == most {
                break;
            }
            if all || routed(t) {
                reached |= t.0 == target;
                len += 1;
            }
        }
        #[allow(clippy::cast_precision_loss, reason = "a handful of targets")]
        let least = if reached { 1.0 / len as f64 } else { 0.0 };
        if !all {
            return (least, least);
        }
        // Only the ok alternatives and `target` running: fewer than `k`,
        // so a switchover keeps them all.
        let target_ok = self.alternatives.iter().any(|t| t.0 == target && routed(t));
        let running = if target_ok { ok } else { ok + 1 };
        #[allow(clippy::cast_precision_loss, reason = "a handful of targets")]
        let largest = 1.0 / running.max(1) as f64;
        // An alternative that is not ok may not run, or not be up while
        // enough others are: it may get nothing.
        (if target_ok { least } else { 0.0 }, largest)
    }
}

/// The components along `id`'s `failover_to` chain, in order, up to its
/// end or where it comes back (as [`chain_target`] walks it).
pub(super) fn chain(model: &Model, id: ComponentId) -> impl Iterator<Item = ComponentId> + '_ {
    std::iter::successors(model.component(id).failover_to, |&to| {
        model.component(to).failover_to
    })
    .take_while(move |&to| to != id)
    .take(model.components.len() + 1)
}

/// The first ok component along `id`'s `failover_to` chain.
pub(super) fn chain_target(
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
pub(super) fn moved_in(
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
/// its largest share (all of it, an alternative that alone runs), every
/// cache lost, every failover source's load moved in. Used where a load
/// depends on too many movers to table.
#[must_use]
pub(super) fn worst_loads(
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
                // An alternative may be the only one running: the whole
                // edge (`State::routed` falls back to who is running).
                let after = carried(passed(from, from.instances, w), edge, hit);
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

/// The load tables of `model`.
pub(super) fn tables_of(model: &Model, cold: bool) -> Vec<Table> {
    tables(model, &Flow::new(model), cold).0
}

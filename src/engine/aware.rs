//! The capacity-aware figure: a component is up only while its running
//! instances carry the load that reaches it. The structural figure of
//! [`super::structural_availability`] is worked out beside it and kept in
//! [`Figure::capacity`], with the served share and what each component's
//! capacity costs.

use rayon::prelude::*;

use super::{CapacityCost, CapacityPart};
use super::{
    Figure, Method, Subject, capacity, evaluate_entrypoints, fasthash, state,
    structural_availability, structure,
};
use crate::model::{ComponentId, Model};

/// The capacity-aware figure of every entrypoint, in the model's
/// entrypoint order: a component is up only while its running instances
/// carry the load that reaches it ([`capacity`]); each figure keeps the
/// structural one and the served share in [`Figure::capacity`].
#[must_use]
pub fn availability(model: &Model) -> Vec<(ComponentId, Figure)> {
    availability_with(model, false)
}

/// [`availability`], with every cache cold when `cold`.
#[must_use]
pub fn availability_with(model: &Model, cold: bool) -> Vec<(ComponentId, Figure)> {
    // A request pool that serves less than the capacity counts as the
    // capacity it stands for (docs/slow.md "A pool is a capacity").
    let limited = super::throughput::limited(model);
    availability_as_given(limited.as_ref().unwrap_or(model), cold)
}

/// [`availability_with`] of a model whose request pools are already
/// written as the capacities they stand for ([`super::throughput::limited`],
/// read off the model before what a scenario lost was taken out of it).
#[must_use]
pub fn availability_as_given(model: &Model, cold: bool) -> Vec<(ComponentId, Figure)> {
    availability_bracketed_past(model, cold, capacity::MAX_DYNAMIC)
}

/// [`availability_as_given`], bracketing past `max_dynamic` changing
/// needs instead of [`capacity::MAX_DYNAMIC`]: the tests hold the bracket
/// to the brute-force oracle on models small enough to enumerate.
#[doc(hidden)]
#[must_use]
pub fn availability_bracketed_past(
    model: &Model,
    cold: bool,
    max_dynamic: usize,
) -> Vec<(ComponentId, Figure)> {
    let mut figures = figures_of(model, cold, true, max_dynamic);
    partition_served(model, cold, max_dynamic, &mut figures);
    figures
}

/// The figures of [`availability_with`] before the served share of the
/// entrypoints that reach shards is worked out; capacity costs when `costs`.
fn figures_of(
    model: &Model,
    cold: bool,
    costs: bool,
    max_dynamic: usize,
) -> Vec<(ComponentId, Figure)> {
    let compiled = capacity::compile_past(model, cold, true, max_dynamic);
    if compiled.is_structural() {
        let mut figures = structural_availability(model);
        let fails_over = fails_over(model);
        for (e, f) in &mut figures {
            // A request whose component fails over is served by another:
            // the served share is then more than the figure, which is a
            // lower bound of it.
            let fails_over = fails_over[e.0];
            f.capacity = Some(CapacityPart {
                structural: f.availability,
                structural_unavailability: f.unavailability,
                served: f.availability,
                served_exact: f.method == Method::Exact && !fails_over,
                costs: Vec::new(),
            });
        }
        return figures;
    }
    // A bracketed compilation takes every need at one case: its served
    // share would be a bound below a bound, so the availability stands for
    // it (a lower bound) and the served model is not evaluated.
    let served = if compiled.bracketed {
        None
    } else {
        compiled.served(model)
    };
    let ((structural, aware), shares) = rayon::join(
        || {
            rayon::join(
                || structural_availability(model),
                || evaluate_entrypoints(&compiled.model, false),
            )
        },
        || {
            served
                .as_ref()
                .map(|s| evaluate_entrypoints(&s.model, false))
        },
    );
    let mut shares = shares.map(Vec::into_iter);
    // What can refuse part of its load, or needs something that can: as a
    // mover it is then not ok, and the load it moves lands elsewhere.
    let refusing = served
        .as_ref()
        .map(|s| structure::reaching(model, |c| s.partial.binary_search(&c).is_ok()));
    // The compiled model's figures, which the capacity costs start from.
    let base: Vec<f64> = aware.iter().map(|(_, f)| f.unavailability).collect();
    // Worked out once for every entrypoint.
    let flow = state::Flow::new(model);
    let rerouted = rerouted(model, &compiled);
    let fails_over = fails_over(model);
    let approximate = reaching_any(&compiled.model, &compiled.approximate, &compiled.origin);
    let dynamic = compiled
        .needs
        .iter()
        .filter(|n| matches!(n, capacity::Need::Levels(_)))
        .count();
    let mut figures: Vec<(ComponentId, Figure)> = structural
        .into_iter()
        .zip(aware)
        .map(|((entrypoint, s), (_, a))| {
            let share = shares.as_mut().and_then(Iterator::next).map(|(_, f)| f);
            let once = Shared {
                flow: &flow,
                rerouted,
                approximate: approximate[entrypoint.0],
                dynamic,
            };
            let mut figure = capacity_figure(model, &compiled, entrypoint, &once, &s, a);
            if let (Some(served), Some(share), Some(refusing)) = (&served, share, &refusing) {
                let context = (&compiled, served, refusing.as_slice());
                served_share(model, context, entrypoint, &share, &mut figure);
            } else if let Some(part) = &mut figure.capacity
                && (fails_over[entrypoint.0] || compiled.bracketed)
            {
                // A bracket's served share is not worked out: it stands
                // at the availability, a lower bound of it, even where
                // every need had one case and the figure is exact.
                part.served_exact = false;
            }
            (entrypoint, figure)
        })
        .collect();
    if costs
        && !compiled.bracketed
        && model.components.len() <= MAX_COSTED_MODEL
        && largest_cycle(&compiled.model) <= MAX_COSTED_CYCLE
    {
        add_costs(model, (&compiled, &base), cold, &mut figures);
    }
    figures
}

/// Most variants of a model worked out for one entrypoint's shards, and
/// the largest model they are worked out on.
const MAX_PARTITIONS: usize = 32;
const MAX_PARTITIONED_MODEL: usize = 2_000;

/// The served share of each entrypoint that reaches shards (edges with a
/// `share` of their caller's requests). A request takes one shard of each
/// partition (or none, for the share no edge claims), so the expected
/// served share is, by linearity, the sum over the choices of the choice's
/// weight times the served share of the model in which only the chosen
/// shards are required (the others degradable, their load unchanged).
/// Past the bounds the share stays the figure's with every shard required:
/// a lower bound.
fn partition_served(
    model: &Model,
    cold: bool,
    max_dynamic: usize,
    figures: &mut [(ComponentId, Figure)],
) {
    for (entrypoint, figure) in figures.iter_mut() {
        let partitions = partitions(model, *entrypoint);
        if partitions.is_empty() {
            continue;
        }
        let choices: usize = partitions
            .iter()
            .map(|p| p.edges.len() + usize::from(p.rest > 0.0))
            .try_fold(1_usize, usize::checked_mul)
            .unwrap_or(usize::MAX);
        let Some(part) = &mut figure.capacity else {
            continue;
        };
        // The sum follows the load flow's served share where each request
        // takes one path: no alternatives (whose routing averages), no
        // failover (which serves the requests elsewhere) and no partial
        // server (whose share other shards' losses change) on the way.
        // Elsewhere the share with every shard required stays: a bound.
        let closure = required_closure(model, *entrypoint);
        let simple = closure.iter().all(|&c| {
            let c = model.component(c);
            c.failover_to.is_none()
                && !c.load_shedding
                && c.rate_limit.is_none()
                && c.depends_on
                    .iter()
                    .all(|e| e.degradable || e.kind == crate::model::EdgeKind::Target)
        });
        // A caller of shards reached along two paths is asked twice per
        // request: the flow multiplies its shares, the sum does not.
        let once = partitions
            .iter()
            .all(|p| paths_to(model, *entrypoint, |c| c == p.caller) == 1);
        if !simple
            || !once
            || choices > MAX_PARTITIONS
            || model.components.len() > MAX_PARTITIONED_MODEL
        {
            part.served_exact = false;
            continue;
        }
        let (mut served, mut exact) = (0.0, true);
        for choice in 0..choices {
            let mut variant = model.clone();
            variant.entrypoints = vec![*entrypoint];
            variant.entrypoint_shares.clear();
            let mut weight = 1.0;
            let mut rest = choice;
            for p in &partitions {
                let n = p.edges.len() + usize::from(p.rest > 0.0);
                let chosen = rest % n;
                rest /= n;
                weight *= p.edges.get(chosen).map_or(p.rest, |&(_, w)| w);
                for (k, &(e, _)) in p.edges.iter().enumerate() {
                    let edge = &mut variant.components[p.caller.0].depends_on[e];
                    edge.degradable = k != chosen;
                }
            }
            if weight <= 0.0 {
                continue;
            }
            let (_, f) = &figures_of(&variant, cold, false, max_dynamic)[0];
            let cap = f.capacity.as_ref();
            served += weight * cap.map_or(f.availability, |c| c.served);
            exact &= cap.is_some_and(|c| c.served_exact);
        }
        part.served = served.clamp(figure.availability, 1.0);
        part.served_exact = exact && figure.method == Method::Exact;
    }
}

/// One caller's shards: its required edges with a share (edge index and
/// share) and the share of its requests that needs none of them.
struct Partition {
    caller: ComponentId,
    edges: Vec<(usize, f64)>,
    rest: f64,
}

/// The partitions `entrypoint` reaches through required edges.
fn partitions(model: &Model, entrypoint: ComponentId) -> Vec<Partition> {
    let mut out = Vec::new();
    for c in required_closure(model, entrypoint) {
        let edges: Vec<(usize, f64)> = model
            .component(c)
            .depends_on
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.degradable)
            .filter_map(|(i, e)| e.share.map(|s| (i, s)))
            .collect();
        if !edges.is_empty() {
            let claimed: f64 = edges.iter().map(|(_, s)| s).sum();
            out.push(Partition {
                caller: c,
                edges,
                rest: if claimed > 1.0 - 1e-9 {
                    0.0
                } else {
                    1.0 - claimed
                },
            });
        }
    }
    out
}

/// One costed component: the entrypoints' unavailability without its
/// capacity binding, and the fleet that takes 99% of its cost off with the
/// unavailability it leaves.
type Costed = (ComponentId, Vec<f64>, Option<(u32, Vec<f64>)>);

/// Most components in a model whose capacity costs are worked out.
const MAX_COSTED_MODEL: usize = 100;
/// Most compiled components in one cycle of needs (alternatives that need
/// each other to carry their share, a component that needs its mover) in
/// a model whose capacity costs are worked out. Each cost rebuilds the
/// structure for every fleet it tries, and a cycle's structure is solved
/// as a whole: on the generated layered 100-component model, whose
/// compiled model holds a cycle of 120, the figures take 5 s and the costs
/// did not finish in 15 minutes. The largest in `models/` is 9
/// (cells.yaml).
const MAX_COSTED_CYCLE: usize = 32;

/// How many compiled components the largest cycle of required edges holds
/// (1 where there is none).
fn largest_cycle(compiled: &Model) -> usize {
    let graph = crate::model::graph::ComponentGraph::new(compiled).required();
    petgraph::algo::tarjan_scc(&graph)
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(1)
}

/// What each component's capacity costs each entrypoint (the figure with
/// its capacity never binding, less), and what the fleet that carries its
/// largest load would take off, for the [`capacity::costed`] components.
fn add_costs(
    model: &Model,
    (compiled, base): (&capacity::Compiled, &[f64]),
    cold: bool,
    figures: &mut [(ComponentId, Figure)],
) {
    let unavailability = |m: &Model| -> Vec<f64> {
        let c = capacity::compile_with(m, cold, false);
        evaluate_entrypoints(&c.model, false)
            .into_iter()
            .map(|(_, f)| f.unavailability)
            .collect()
    };
    let costed = capacity::costed(compiled, model);
    let total = |u: &[f64]| -> f64 { u.iter().zip(base).map(|(u, b)| (b - u).max(0.0)).sum() };
    let results: Vec<Costed> = costed
        .par_iter()
        .map(|&(id, fleet)| {
            let without = unavailability(&capacity::without_capacity(model, id));
            // The smallest fleet (spread as its placement is) that takes
            // 99% of its cost off, from the one that carries its largest
            // load up to four times that: the loss that shifts the load
            // may take instances with it.
            let cost = total(&without);
            let with = fleet.filter(|_| cost > 0.0).and_then(|start| {
                let at = |n: u32| unavailability(&capacity::with_instances(model, id, n));
                // Doubling up to the cap, the cap itself tried last (a
                // start of 60,000 tries 60,000 and 100,000).
                let cap = start.saturating_mul(4).min(capacity::MAX_FLEET);
                let (mut low, mut high) = (model.component(id).instances, start);
                let mut found = None;
                loop {
                    let u = at(high);
                    if total(&u) >= 0.99 * cost {
                        found = Some((high, u));
                        break;
                    }
                    if high >= cap {
                        break;
                    }
                    low = high;
                    high = high.saturating_mul(2).min(cap);
                }
                let (mut best, mut best_u) = found?;
                while best - low > 1 {
                    let mid = low + (best - low) / 2;
                    let u = at(mid);
                    if total(&u) >= 0.99 * cost {
                        (best, best_u) = (mid, u);
                    } else {
                        low = mid;
                    }
                }
                Some((best, best_u))
            });
            (id, without, with)
        })
        .collect();
    for (e, (_, figure)) in figures.iter_mut().enumerate() {
        let Some(part) = &mut figure.capacity else {
            continue;
        };
        for (id, without, with) in &results {
            let added = base[e] - without[e];
            if added <= 1e-15 {
                continue;
            }
            part.costs.push(CapacityCost {
                component: *id,
                added,
                fleet: with
                    .as_ref()
                    .map(|(n, u)| (*n, (base[e] - u[e]).max(0.0)))
                    .filter(|(_, g)| *g > 1e-15),
            });
        }
        part.costs.sort_by(|a, b| {
            b.added
                .total_cmp(&a.added)
                .then_with(|| a.component.cmp(&b.component))
        });
    }
}

/// The capacity-aware figure of one entrypoint from its structural figure
/// `s` and the figure `a` of the compiled model (without switchovers).
fn capacity_figure(
    model: &Model,
    compiled: &capacity::Compiled,
    entrypoint: ComponentId,
    shared: &Shared,
    s: &Figure,
    mut a: Figure,
) -> Figure {
    merge_gains(model, compiled, &mut a);
    add_switchover(s, &mut a);
    bound_by_structure(model, compiled, entrypoint, shared, (s, &mut a));
    a.capacity = Some(CapacityPart {
        structural: s.availability,
        structural_unavailability: s.unavailability,
        served: a.availability,
        served_exact: a.method == Method::Exact,
        costs: Vec::new(),
    });
    a
}

/// The improvement of a compiled component is its original's.
fn merge_gains(model: &Model, compiled: &capacity::Compiled, a: &mut Figure) {
    let mut gains: Vec<(Subject, f64)> = Vec::new();
    let mut at: fasthash::FastMap<Subject, usize> = fasthash::FastMap::default();
    for (subject, gain) in a.improvement.drain(..) {
        let subject = match subject {
            Subject::Component(c) => Subject::Component(compiled.origin[c.0]),
            other => other,
        };
        if let Some(&i) = at.get(&subject) {
            gains[i].1 += gain;
        } else {
            at.insert(subject, gains.len());
            gains.push((subject, gain));
        }
    }
    gains.sort_by(|x, y| {
        y.1.total_cmp(&x.1)
            .then_with(|| x.0.name(model).cmp(y.0.name(model)))
    });
    a.improvement = gains;
}

/// Switchovers, what is unquantified and the caveats are the model's.
fn add_switchover(s: &Figure, a: &mut Figure) {
    let cost = s.switchover;
    a.switchover = cost;
    a.availability = (a.availability - cost).max(0.0);
    a.lower = (a.lower - cost).max(0.0);
    a.upper = (a.upper - cost).max(0.0);
    a.unavailability = (a.unavailability + cost).min(1.0);
    a.unavailability_lower = (a.unavailability_lower + cost).min(1.0);
    a.unavailability_upper = (a.unavailability_upper + cost).min(1.0);
    a.unquantified.clone_from(&s.unquantified);
    // Capacity that cannot carry the load is a known failure, whatever
    // the instances' figures: the figure then says something.
    a.quantified = s.quantified || a.unavailability_lower > s.unavailability_upper + 1e-15;
    a.caveats.clone_from(&s.caveats);
}

/// What every entrypoint's capacity figure reads, worked out once.
struct Shared<'a> {
    flow: &'a state::Flow,
    /// Whether an alternative's need is set by capacity ([`rerouted`]).
    rerouted: bool,
    /// Whether this entrypoint reaches a component whose need is a bound.
    approximate: bool,
    /// How many components' needs change with the movers.
    dynamic: usize,
}

/// Where the compilation bracketed the needs (or made a component's need
/// a bound), the structural figure is the upper end; capacity never makes
/// a figure better than the structure's.
fn bound_by_structure(
    model: &Model,
    compiled: &capacity::Compiled,
    entrypoint: ComponentId,
    shared: &Shared,
    (s, a): (&Figure, &mut Figure),
) {
    let relief = if compiled.bracketed {
        None
    } else {
        capacity::relief_in(compiled, model, shared.flow, entrypoint)
    };
    let (approximate, rerouted) = (shared.approximate, shared.rerouted);
    if (relief.is_some() || approximate)
        && (a.unavailability_upper - s.unavailability_lower).abs() > 1e-15
    {
        a.method = Method::Bounded;
        a.upper = s.upper.max(a.lower);
        a.unavailability_lower = s.unavailability_lower.min(a.unavailability_upper);
        // Outside the states where something can relieve it, the figure is
        // the truth: the truth is at most the figure plus their weight.
        // What narrows the upper end: a relief, where nothing else bounds.
        let narrowing = relief.as_ref().filter(|_| !approximate && !rerouted);
        if let Some(relief) = narrowing {
            a.upper = a
                .upper
                .min((a.lower + relief.probability).min(1.0))
                .max(a.lower);
            a.unavailability_lower = a
                .unavailability_lower
                .max((a.unavailability_upper - relief.probability).max(0.0))
                .min(a.unavailability_upper);
        }
        // The reason given is the one the upper end stands on.
        let why = if let Some(relief) = narrowing {
            format!(
                "a failure that does not take this entrypoint down can take enough load off {} to change how many of its instances it needs, which the figure does not count on: the truth is at most {} more",
                model.component(relief.component).name,
                crate::human::probability(relief.probability)
            )
        } else if compiled.bracketed && capacity::likeliest_cases(model) {
            format!(
                "the capacity needs of {} components change with what is lost, more than the {} compiled exactly: each counts as up only in its likeliest case (one count of its instances, with the movers that count needs ok), so the truth is at least the figure, and at most the capacity-blind figure above",
                shared.dynamic,
                capacity::MAX_DYNAMIC
            )
        } else if compiled.bracketed {
            format!(
                "the capacity needs of {} components change with what is lost, more than the {} compiled exactly: each is taken at its largest need (every mover that shifts load onto it out), the capacity-blind figure above",
                shared.dynamic,
                capacity::MAX_DYNAMIC
            )
        } else if let Some(relief) = relief.as_ref().filter(|_| !approximate) {
            format!(
                "a failure that does not take this entrypoint down can take enough load off {} to change how many of its instances it needs, and an `any_of` or `at_least` edge routes around an alternative whose need capacity sets, neither of which the figure counts on: the capacity-blind figure above",
                model.component(relief.component).name,
            )
        } else if let Some(&c) = compiled.unrouted.first() {
            format!(
                "where fewer of an `at_least` edge's alternatives are ok than it needs, its load goes to those still running, and the load of {} then depends on which of the others run, which nines does not table: its need is taken at its worst, the capacity-blind figure above",
                model.component(c).name,
            )
        } else {
            format!(
                "the load of {} depends on more movers than nines tables ({}), or falls when one is lost: its need is taken at its worst, the capacity-blind figure above",
                compiled
                    .approximate
                    .iter()
                    .take(3)
                    .map(|&c| model.component(c).name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                capacity::MAX_VARS
            )
        };
        a.why = Some(match a.why.take() {
            Some(w) => format!("{w}; {why}"),
            None => why,
        });
    }
    // Capacity never makes a figure better than the structure's.
    if a.upper > s.upper {
        a.upper = s.upper;
        a.unavailability_lower = a.unavailability_lower.max(s.unavailability_lower);
    }
}

/// The served share of `entrypoint` from the served model's figure: exact
/// when every partial server it reaches is exact and in its series part
/// (a share multiplies what stands after it) and nothing it reaches hands
/// its load to a failover (whose requests another component serves).
fn served_share(
    model: &Model,
    (compiled, served, refusing): (&capacity::Compiled, &capacity::Served, &[bool]),
    entrypoint: ComponentId,
    share: &Figure,
    figure: &mut Figure,
) {
    let Some(part) = &mut figure.capacity else {
        return;
    };
    let reached = required_closure(&served.model, entrypoint);
    let series = structure::series_members(&served.model, entrypoint);
    let mut exact = figure.method == Method::Exact
        && share.method == Method::Exact
        && !capacity::share_relief(model, compiled, served, entrypoint, &reached);
    // Whether the figure is at least a lower bound of the served share:
    // where it is not, the availability (the whole peak served) is.
    let mut sound = true;
    for c in &reached {
        let original = compiled.origin[c.0];
        if served.partial.binary_search(&original).is_ok() {
            if !series.contains(c) {
                // Behind alternatives the routing averages what they serve,
                // the structure counts any of them.
                sound = false;
            } else if served.inexact.binary_search(&original).is_ok() {
                exact = false;
            }
        }
        // A failover serves the requests elsewhere, and the routing of an
        // edge into it sends them there rather than to a standby the
        // structure counts: no bound either way.
        if model.component(original).failover_to.is_some() {
            sound = false;
        }
    }
    // A partial server that one request reaches along two required paths
    // admits it once in the figure, once per call in the load flow: the
    // figure would be above the truth.
    let twice = served
        .partial
        .iter()
        .any(|&p| paths_to(&served.model, entrypoint, |c| compiled.origin[c.0] == p) > 1);
    if twice {
        sound = false;
    }
    // A cache in front of an edge this entrypoint needs loses its hits
    // when what it needs sheds (it is then not ok), while the served model
    // counts the shedding as a share and keeps them: above the truth.
    let partial_behind_cache = reached.iter().any(|&c| {
        let original = compiled.origin[c.0];
        model.component(original).depends_on.iter().any(|e| {
            e.cached_by.is_some_and(|cache| {
                required_closure(model, cache).iter().any(|&d| {
                    let d = model.component(d);
                    d.load_shedding || d.rate_limit.is_some()
                })
            })
        })
    });
    // More generally, the load of a component this entrypoint needs moves
    // with its movers (caches, alternatives, failover sources), wherever
    // their callers stand: a mover that refuses part of its load is not
    // ok, its misses or its share of an `any_of` land on the component,
    // which the served model counts at the mover's share. Where a load is
    // not tabled (too many movers) nothing says it does not.
    let moved_by_refusal = reached.iter().any(|&c| {
        let original = compiled.origin[c.0];
        compiled.approximate.binary_search(&original).is_ok()
            || compiled.tables[original.0]
                .vars
                .iter()
                .any(|v| refusing[v.0])
    });
    if partial_behind_cache || moved_by_refusal {
        sound = false;
    }
    // Whole service is a share of 1: never below the availability.
    part.served = if sound {
        (share.availability - figure.switchover)
            .max(figure.availability)
            .clamp(0.0, 1.0)
    } else {
        figure.availability
    };
    part.served_exact = exact && sound;
}

/// Whether an alternative of an `any_of`/`at_least` edge has a need that
/// capacity sets: the edge routes around an alternative that is not ok, so
/// its load falls when it is overloaded, a relief the count of relieving
/// instances does not bound (the structural figure stays the upper end).
fn rerouted(model: &Model, compiled: &capacity::Compiled) -> bool {
    model.components.iter().any(|c| {
        c.depends_on.iter().any(|e| {
            e.kind != crate::model::EdgeKind::Target
                && e.targets
                    .iter()
                    .any(|t| compiled.needs[t.0] != capacity::Need::Structural)
        })
    })
}

/// The number of required paths from `from` to the components `is_end`
/// holds for, capped at 2 (a cycle counts as 2). Depth first on a stack
/// of its own: a chain of any length.
fn paths_to(model: &Model, from: ComponentId, is_end: impl Fn(ComponentId) -> bool + Copy) -> u32 {
    /// The required target of `c` at `(edge, target)` or after it, with
    /// where it stands: its required edges' targets in order.
    fn next(
        model: &Model,
        c: ComponentId,
        (mut e, mut t): (usize, usize),
    ) -> Option<(usize, usize)> {
        let edges = &model.component(c).depends_on;
        while let Some(edge) = edges.get(e) {
            if !edge.degradable && t < edge.targets.len() {
                return Some((e, t));
            }
            (e, t) = (e + 1, 0);
        }
        None
    }
    let mut memo: fasthash::FastMap<ComponentId, u32> = fasthash::FastMap::default();
    let mut open: fasthash::FastSet<ComponentId> = fasthash::FastSet::default();
    // (component, where its next required target is, paths so far)
    let mut stack = vec![(from, (0usize, 0usize), u32::from(is_end(from)))];
    open.insert(from);
    loop {
        let Some(top) = stack.last_mut() else {
            return 0;
        };
        if let Some((e, i)) = next(model, top.0, top.1) {
            top.1 = (e, i + 1);
            let t = model.component(top.0).depends_on[e].targets[i];
            if let Some(&n) = memo.get(&t) {
                top.2 = (top.2 + n).min(2);
            } else if open.contains(&t) {
                top.2 = 2;
            } else {
                open.insert(t);
                stack.push((t, (0, 0), u32::from(is_end(t))));
            }
            continue;
        }
        let Some((c, _, n)) = stack.pop() else {
            return 0;
        };
        open.remove(&c);
        memo.insert(c, n);
        match stack.last_mut() {
            Some(parent) => parent.2 = (parent.2 + n).min(2),
            None => return n,
        }
    }
}

/// For every component, whether a component it requires (itself
/// included) hands its load to a failover when it fails (whose requests
/// another component serves).
fn fails_over(model: &Model) -> Vec<bool> {
    structure::reaching(model, |c| model.component(c).failover_to.is_some())
}

/// Every component `entrypoint` reaches through required edges of
/// `model`, itself included.
fn required_closure(model: &Model, entrypoint: ComponentId) -> Vec<ComponentId> {
    structure::reachable(model, &[entrypoint])
}

/// For every component of the compiled model, whether it reaches through
/// required edges a component standing for one of `targets` (sorted).
fn reaching_any(compiled: &Model, targets: &[ComponentId], origin: &[ComponentId]) -> Vec<bool> {
    if targets.is_empty() {
        return vec![false; compiled.components.len()];
    }
    structure::reaching(compiled, |c| targets.binary_search(&origin[c.0]).is_ok())
}

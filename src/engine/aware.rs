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
    let compiled = capacity::compile(model, cold);
    if compiled.is_structural() {
        let mut figures = structural_availability(model);
        for (_, f) in &mut figures {
            f.capacity = Some(CapacityPart {
                structural: f.availability,
                structural_unavailability: f.unavailability,
                served: f.availability,
                served_exact: f.method == Method::Exact,
                costs: Vec::new(),
            });
        }
        return figures;
    }
    let served = compiled.served(model);
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
    let mut figures: Vec<(ComponentId, Figure)> = structural
        .into_iter()
        .zip(aware)
        .map(|((entrypoint, s), (_, a))| {
            let share = shares.as_mut().and_then(Iterator::next).map(|(_, f)| f);
            let mut figure = capacity_figure(model, &compiled, entrypoint, &s, a);
            if let (Some(served), Some(share)) = (&served, share) {
                served_share(model, &compiled, served, entrypoint, &share, &mut figure);
            }
            (entrypoint, figure)
        })
        .collect();
    if !compiled.bracketed && model.components.len() <= MAX_COSTED_MODEL {
        add_costs(model, &compiled, cold, &mut figures);
    }
    figures
}

/// One costed component: the entrypoints' unavailability without its
/// capacity binding, and the fleet that takes 99% of its cost off with the
/// unavailability it leaves.
type Costed = (ComponentId, Vec<f64>, Option<(u32, Vec<f64>)>);

/// Most components in a model whose capacity costs are worked out.
const MAX_COSTED_MODEL: usize = 100;

/// What each component's capacity costs each entrypoint (the figure with
/// its capacity never binding, less), and what the fleet that carries its
/// largest load would take off, for the [`capacity::costed`] components.
fn add_costs(
    model: &Model,
    compiled: &capacity::Compiled,
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
    let base: Vec<f64> = evaluate_entrypoints(&compiled.model, false)
        .into_iter()
        .map(|(_, f)| f.unavailability)
        .collect();
    let costed = capacity::costed(compiled, model);
    let total = |u: &[f64]| -> f64 { u.iter().zip(&base).map(|(u, b)| (b - u).max(0.0)).sum() };
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
                let (mut low, mut high) = (model.component(id).instances, start);
                let mut found = None;
                while high <= start.saturating_mul(4) {
                    let u = at(high);
                    if total(&u) >= 0.99 * cost {
                        found = Some((high, u));
                        break;
                    }
                    low = high;
                    high = high.saturating_mul(2);
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
    s: &Figure,
    mut a: Figure,
) -> Figure {
    merge_gains(model, compiled, &mut a);
    add_switchover(s, &mut a);
    bound_by_structure(model, compiled, entrypoint, s, &mut a);
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
    for (subject, gain) in a.improvement.drain(..) {
        let subject = match subject {
            Subject::Component(c) => Subject::Component(compiled.origin[c.0]),
            other => other,
        };
        match gains.iter_mut().find(|(s, _)| *s == subject) {
            Some((_, g)) => *g += gain,
            None => gains.push((subject, gain)),
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

/// Where the compilation bracketed the needs (or made a component's need
/// a bound), the structural figure is the upper end; capacity never makes
/// a figure better than the structure's.
fn bound_by_structure(
    model: &Model,
    compiled: &capacity::Compiled,
    entrypoint: ComponentId,
    s: &Figure,
    a: &mut Figure,
) {
    let relief = if compiled.bracketed {
        None
    } else {
        capacity::relief_in(compiled, model, &state::Flow::new(model), entrypoint)
    };
    if (relief.is_some()
        || reaches_any(
            &compiled.model,
            entrypoint,
            &compiled.approximate,
            &compiled.origin,
        ))
        && (a.unavailability_upper - s.unavailability_lower).abs() > 1e-15
    {
        a.method = Method::Bounded;
        a.upper = s.upper.max(a.lower);
        a.unavailability_lower = s.unavailability_lower.min(a.unavailability_upper);
        // Outside the states where something can relieve it, the figure is
        // the truth: the truth is at most the figure plus their weight.
        if let Some(relief) = &relief
            && !reaches_any(
                &compiled.model,
                entrypoint,
                &compiled.approximate,
                &compiled.origin,
            )
        {
            a.upper = a
                .upper
                .min((a.lower + relief.probability).min(1.0))
                .max(a.lower);
            a.unavailability_lower = a
                .unavailability_lower
                .max((a.unavailability_upper - relief.probability).max(0.0))
                .min(a.unavailability_upper);
        }
        let why = if let Some(relief) = &relief {
            format!(
                "a failure that does not take this entrypoint down can take enough load off {} to change how many of its instances it needs, which the figure does not count on: the truth is at most {} more",
                model.component(relief.component).name,
                crate::human::probability(relief.probability)
            )
        } else if compiled.bracketed {
            format!(
                "the capacity needs of {} components change with what is lost, more than the {} compiled exactly: each is taken at its largest need (every mover that shifts load onto it out), the capacity-blind figure above",
                compiled
                    .needs
                    .iter()
                    .filter(|n| matches!(n, capacity::Need::Levels(_)))
                    .count(),
                capacity::MAX_DYNAMIC
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
    compiled: &capacity::Compiled,
    served: &capacity::Served,
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
    for c in &reached {
        let original = compiled.origin[c.0];
        if served.partial.binary_search(&original).is_ok()
            && (served.inexact.binary_search(&original).is_ok() || !series.contains(c))
        {
            exact = false;
        }
        if model.component(original).failover_to.is_some() {
            exact = false;
        }
    }
    // Whole service is a share of 1: never below the availability.
    part.served = (share.availability - figure.switchover)
        .max(figure.availability)
        .clamp(0.0, 1.0);
    part.served_exact = exact;
}

/// Every component `entrypoint` reaches through required edges of
/// `model`, itself included.
fn required_closure(model: &Model, entrypoint: ComponentId) -> Vec<ComponentId> {
    let mut seen = fasthash::FastSet::default();
    let mut order = vec![entrypoint];
    seen.insert(entrypoint);
    let mut next = 0;
    while let Some(&c) = order.get(next) {
        next += 1;
        for edge in model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
        {
            for &t in &edge.targets {
                if seen.insert(t) {
                    order.push(t);
                }
            }
        }
    }
    order
}

/// Whether `entrypoint` reaches, through required edges of the compiled
/// model, a component standing for one of `targets` (sorted).
fn reaches_any(
    compiled: &Model,
    entrypoint: ComponentId,
    targets: &[ComponentId],
    origin: &[ComponentId],
) -> bool {
    if targets.is_empty() {
        return false;
    }
    let mut seen = fasthash::FastSet::default();
    let mut stack = vec![entrypoint];
    seen.insert(entrypoint);
    while let Some(c) = stack.pop() {
        if targets.binary_search(&origin[c.0]).is_ok() {
            return true;
        }
        for edge in compiled
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
    false
}

//! The availability engine, kept apart from the findings that use it.
//!
//! - [`scenario`]: what is up when given domains, groups and instances fail;
//! - [`state`]: the system in one scenario: instances and components up and
//!   the load on each (the load flow), read by every structural and load check;
//!   [`component_loss`]: the loads after losing whole components, worked out
//!   from a state by what the loss touches (for N-k over every component);
//! - [`structure`]: one entrypoint's structure function, series part apart
//!   from the alternatives (a [`bdd`]);
//! - [`events`]: the correlated events (domains and groups with a figure)
//!   and how each component's health depends on them;
//! - [`exact`]: conditioning on those events, exact or bounded;
//! - [`switchover`]: the time standbys take to serve, added on top;
//! - [`start_order`]: the start waves and cycles of required edges (from the
//!   component graph of `model::graph`, with petgraph's algorithms), and
//!   [`outage`]: what one event takes down, for the rules that share them;
//! - [`concurrency`]: in flight by Little's law per component and edge
//!   limit in a state, with some components slow (saturation and the
//!   `workers / time held` ceiling);
//! - [`mef`]: the model as an Open-PSA MEF fault tree, for SCRAM.

mod aware;
pub mod bdd;
mod beta;
pub mod capacity;
pub mod component_loss;
pub mod concurrency;
pub mod events;
pub mod exact;
mod fasthash;
pub mod gates;
pub mod joint;
pub mod mef;
pub mod montecarlo;
pub mod outage;
pub mod scenario;
pub mod shared;
pub mod start_order;
pub mod state;
pub mod structure;
pub mod switchover;
pub mod throughput;

pub use aware::{
    availability, availability_as_given, availability_bracketed_past, availability_with,
};
pub use events::Subject;
pub use exact::{CapacityCost, CapacityPart, Figure, Method};

use std::fmt::Write as _;

use rayon::prelude::*;

use crate::model::{ComponentId, Model};

/// The figure of every entrypoint, in the model's entrypoint order.
/// Entrypoints are independent computations, run in parallel; the result
/// does not depend on the number of threads.
///
/// A structure that passed the node budget gets a second, costlier try (a
/// larger budget through the joint diagram, then a bracket by parts): up to
/// seconds each. Only the first [`MAX_RETRIES`] such entrypoints in model
/// order get it, so the work of a model does not grow with its entrypoints
/// (the choice is made after the first pass, hence the same on any number
/// of threads); the others keep the relaxed bracket and say why.
#[must_use]
pub fn structural_availability(model: &Model) -> Vec<(ComponentId, Figure)> {
    evaluate_entrypoints(model, true)
}

/// The figure of every entrypoint of `model` by its structure, with the
/// switchover terms when `switchovers`.
fn evaluate_entrypoints(model: &Model, switchovers: bool) -> Vec<(ComponentId, Figure)> {
    // Each component's health table, built once for every entrypoint
    // whose closure holds it.
    let shared = shared::Shared::new(model);
    let mut figures: Vec<(ComponentId, Figure, bool)> = model
        .entrypoints
        .par_iter()
        .map(|&entrypoint| {
            let structure =
                structure::build_with(model, entrypoint, |components| states(model, components));
            let mut figure = exact::evaluate_shared(model, &structure, Some(&shared));
            // Switchover time is an additive term on top of the static
            // figure, applied below once the static figure is final.
            if switchovers {
                let cost = switchover::cost(model, structure.components());
                figure.switchover = cost.unavailability;
                figure.caveats = cost.caveats;
            }
            (entrypoint, figure, structure.truncated)
        })
        .collect();
    let retried: Vec<usize> = figures
        .iter()
        .enumerate()
        .filter(|(_, (_, figure, truncated))| *truncated || figure.method == Method::Bounded)
        .map(|(i, _)| i)
        .collect();
    let better: Vec<(usize, Figure)> = retried
        .par_iter()
        .take(MAX_RETRIES)
        .map(|&i| {
            let (entrypoint, figure, truncated) = &figures[i];
            (i, retry(model, *entrypoint, *truncated, figure.clone()))
        })
        .collect();
    for (i, figure) in better {
        figures[i].1 = figure;
    }
    for &i in retried.iter().skip(MAX_RETRIES) {
        let figure = &mut figures[i].1;
        if figure.method == Method::Bounded
            && let Some(why) = &mut figure.why
        {
            let _ = write!(
                why,
                "; not narrowed further: only the first {MAX_RETRIES} bounded entrypoints get a costlier second try (a bound on the work of one run)"
            );
        }
    }
    figures
        .into_iter()
        .map(|(entrypoint, mut figure, _)| {
            let cost = figure.switchover;
            figure.availability = (figure.availability - cost).max(0.0);
            figure.lower = (figure.lower - cost).max(0.0);
            figure.upper = (figure.upper - cost).max(0.0);
            figure.unavailability = (figure.unavailability + cost).min(1.0);
            figure.unavailability_lower = (figure.unavailability_lower + cost).min(1.0);
            figure.unavailability_upper = (figure.unavailability_upper + cost).min(1.0);
            // An availability summed to 1 (or just over, clamped) while
            // the failure-space sum says otherwise (5e-15 of nested
            // `at_least` gates) is not 1: keep the two consistent. An
            // exact figure takes the nearest f64 (still 1 when U is below
            // what 1 − U can hold, 1.1e-16); a bounded lower bound is
            // never 1 (see `exact::honest_lower`).
            let bounded = figure.method == Method::Bounded;
            let below = |u: f64| {
                if bounded {
                    exact::honest_lower(1.0 - u)
                } else {
                    1.0 - u
                }
            };
            if figure.unavailability > 0.0 && figure.availability >= 1.0 {
                figure.availability = below(figure.unavailability);
                if !bounded {
                    // Exact: one figure, so lower = upper = availability.
                    figure.upper = figure.availability;
                }
            }
            if figure.unavailability_upper > 0.0 && figure.lower >= 1.0 {
                figure.lower = below(figure.unavailability_upper);
            }
            (entrypoint, figure)
        })
        .collect()
}

/// How many entrypoints whose structure passed the node budget get the
/// costlier second try (see [`availability`]).
pub const MAX_RETRIES: usize = 4;

/// The second try of a bounded entrypoint. When conditioning would visit
/// too many states: for a structure that passed the node budget, the joint
/// diagram under a larger budget, else the best-first search over that
/// larger structure with [`RETRY_VISIT_WORK`] steps; for one that did not,
/// the same search with the larger work. The narrower bracket is kept. A
/// structure that passed the budget is then bracketed by parts too.
fn retry(model: &Model, entrypoint: ComponentId, truncated: bool, mut figure: Figure) -> Figure {
    if figure.events > exact::EXACT_EVENTS {
        // The node budget was divided by the states conditioning would
        // visit; the joint diagram visits none, so the alternatives get a
        // larger budget of their own.
        let larger = if truncated {
            structure::build_with(model, entrypoint, |_| JOINT_RETRY_STATES)
        } else {
            structure::build_with(model, entrypoint, |components| states(model, components))
        };
        if truncated
            && !larger.truncated
            && let Ok(mut exact) = exact::evaluate_joint(model, &larger)
        {
            exact.switchover = figure.switchover;
            exact.caveats = std::mem::take(&mut figure.caveats);
            return exact;
        }
        if !larger.truncated {
            let mut visited = exact::evaluate_by(
                model,
                &larger,
                RETRY_VISIT_WORK,
                exact::Conditioning::Affordable(figure.refusal),
            );
            if visited.unavailability_upper - visited.unavailability_lower
                < figure.unavailability_upper - figure.unavailability_lower
            {
                visited.switchover = figure.switchover;
                visited.caveats = std::mem::take(&mut figure.caveats);
                figure = visited;
            }
            // The whole structure was conditioned on: parts would only
            // give a wider bracket.
            narrow_by_gates(model, entrypoint, &mut figure);
            return figure;
        }
    }
    if truncated && figure.method == Method::Bounded {
        bracket_by_parts(model, entrypoint, PART_NODES, &mut figure);
    }
    narrow_by_gates(model, entrypoint, &mut figure);
    figure
}

/// A bounded figure's bracket is worth a further look when wider than this
/// share of the unavailability.
const WIDE: f64 = 0.01;

/// Narrows a bounded figure wider than [`WIDE`] by the union of its gates
/// in failure space (see [`gates`]), when its shape allows: both brackets
/// hold the truth, so their intersection does.
fn narrow_by_gates(model: &Model, entrypoint: ComponentId, figure: &mut Figure) {
    if figure.method != Method::Bounded
        || figure.unavailability_upper - figure.unavailability_lower
            <= WIDE * figure.unavailability_upper
    {
        return;
    }
    let Some(b) = gates::bracket(model, entrypoint, RETRY_VISIT_WORK) else {
        return;
    };
    let lower = figure.unavailability_lower.max(b.lower);
    let upper = figure.unavailability_upper.min(b.upper).max(lower);
    if upper - lower >= figure.unavailability_upper - figure.unavailability_lower {
        return;
    }
    figure.unavailability_lower = lower;
    figure.unavailability_upper = upper;
    figure.unavailability = upper;
    // `1 − u` rounds to nearest: an ulp of room keeps the availability
    // bracket on the safe side of the unavailability one.
    figure.lower = exact::honest_lower(figure.lower.max(1.0 - upper - f64::EPSILON));
    figure.upper = figure
        .upper
        .min((1.0 - lower + f64::EPSILON).min(1.0))
        .max(figure.lower);
    figure.availability = figure.lower;
    // The gains came from the visited states' availability, a sum short
    // of the unvisited mass (1e-10 against an unavailability of 1e-27):
    // the union gives none.
    figure.improvement.clear();
    if let Some(why) = &mut figure.why {
        let _ = write!(
            why,
            "; narrowed in failure space by the union of its {} gates over the {} likeliest states (Bonferroni below, Harris above, the rest bounded by each gate's own failure), which give no improvement potential",
            b.gates, b.states
        );
    }
}

/// Steps of the best-first search in a second try (four times the first:
/// a few seconds of one core, split across the threads).
pub const RETRY_VISIT_WORK: usize = 4 * exact::MAX_VISIT_WORK;

/// Node limit of each part of a structure too large to build whole.
const PART_NODES: usize = 1 << 16;

/// Narrows the relaxed bracket of a truncated structure by splitting its
/// gates into parts that each fit `limit` nodes (consecutive gates,
/// greedily, doubling). With `S` the series members and `C_i` part `i`'s
/// gates (series members counted up), the figure is `P(S ∧ C_1 ∧ … ∧ C_m)`,
/// every factor non-decreasing in the independent events and instances,
/// so by Harris's inequality it is at least `P(S ∧ C_1) × Π_{i>1} P(C_i)`,
/// and at most `min_i P(S ∧ C_i)`.
fn bracket_by_parts(model: &Model, entrypoint: ComponentId, limit: usize, figure: &mut Figure) {
    let gates = structure::gate_count(model, entrypoint);
    let mut parts = Vec::new();
    let mut start = 0;
    while start < gates {
        let mut end = start + 1;
        let mut part = structure::build_part(model, entrypoint, start..end, limit);
        if part.truncated {
            return; // one gate alone is too large
        }
        let mut step = 1;
        while end < gates {
            let next = (end + step).min(gates);
            let larger = structure::build_part(model, entrypoint, start..next, limit);
            if larger.truncated {
                break;
            }
            (part, end, step) = (larger, next, step * 2);
        }
        parts.push((start..end, part));
        start = end;
    }
    let (mut lower, mut upper) = (1.0_f64, 1.0_f64);
    // The same in failure space: U ≥ max_i U(S ∧ C_i), and
    // U ≤ 1 − (1 − U(S ∧ C_1)) × Π_{i>1} (1 − U(C_i)).
    let (mut failure_lower, mut failures) = (0.0_f64, Vec::new());
    for (i, (range, part)) in parts.iter().enumerate() {
        let with_series = exact::evaluate(model, part);
        upper = upper.min(with_series.upper);
        failure_lower = failure_lower.max(with_series.unavailability_lower);
        if i == 0 {
            lower *= with_series.lower;
            failures.push(with_series.unavailability_upper);
        } else {
            let mut alone = structure::build_part(model, entrypoint, range.clone(), limit);
            alone.series.clear();
            let alone = exact::evaluate(model, &alone);
            lower *= alone.lower;
            failures.push(alone.unavailability_upper);
        }
    }
    let failure_upper = exact::series_failure(failures.into_iter());
    // Either bracket narrowed is kept: near 1e-27 the availability ends
    // both round to 1 while the failure ends still narrow.
    if lower > figure.lower
        || upper < figure.upper
        || failure_lower > figure.unavailability_lower
        || failure_upper < figure.unavailability_upper
    {
        figure.lower = exact::honest_lower(figure.lower.max(lower.min(upper)));
        figure.upper = figure.upper.min(upper).max(figure.lower);
        figure.availability = figure.lower;
        figure.unavailability_lower = figure.unavailability_lower.max(failure_lower);
        figure.unavailability_upper = figure
            .unavailability_upper
            .min(failure_upper)
            .max(figure.unavailability_lower);
        figure.unavailability = figure.unavailability_upper;
        // The gains came from the relaxed figure (every alternative
        // required): a different system, whose gains can exceed all the
        // downtime the narrowed bracket leaves. The parts give none.
        figure.improvement.clear();
        if let Some(why) = &mut figure.why {
            let _ = write!(
                why,
                "; narrowed by {} parts of the gates (Harris's inequality), which give no improvement potential",
                parts.len()
            );
        }
    }
}

/// The state count that gives a truncated structure's second build a
/// budget of about 2^18 nodes (`structure::MAX_WORK / 7,629`).
const JOINT_RETRY_STATES: u64 = structure::MAX_WORK / (1 << 18);

/// How many states of the correlated events evaluating these components
/// visits (at most): every state up to [`exact::EXACT_EVENTS`] events, else
/// the best-first limit.
fn states(model: &Model, components: &[ComponentId]) -> u64 {
    let n = events::collect(model, components).events.len();
    if n <= exact::EXACT_EVENTS {
        1 << n
    } else {
        exact::MAX_STATES as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figure of the first entrypoint.
    fn figure(text: &str) -> Figure {
        let model = crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"));
        availability(&model).remove(0).1
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn series_multiplies() {
        // 0.999^4 = 0.996005996
        let f = figure(
            r"system: s
components:
  a: {availability: 99.9%, depends_on: [b]}
  b: {availability: 99.9%, depends_on: [c]}
  c: {availability: 99.9%, depends_on: [d]}
  d: {availability: 99.9%}
",
        );
        assert!(close(f.availability, 0.996_005_996), "{}", f.availability);
        assert_eq!(f.method, Method::Exact);
    }

    #[test]
    fn tiny_unavailabilities_are_carried_in_failure_space() {
        // Three series components, each 10 instances at 99% needing one:
        // each fails with 0.01^10 = 1e-20, so U = 1 − (1 − 1e-20)³ = 3e-20
        // (less 3e-40), where the availability rounds to exactly 1. The
        // inputs are 0.99 in binary (0.01 × (1 + 9e-16)): to 1e-13.
        let f = figure(
            r"system: s
components:
  a: {instances: 10, availability: 99%, depends_on: [b]}
  b: {instances: 10, availability: 99%, depends_on: [c]}
  c: {instances: 10, availability: 99%}
",
        );
        assert!(f.availability.to_bits() == 1.0_f64.to_bits());
        assert!((f.unavailability / 3e-20 - 1.0).abs() < 1e-13, "{f:?}");
        assert!(f.unavailability_lower.to_bits() == f.unavailability_upper.to_bits());
        // And the series formula alone, on exact inputs: 3e-20 to 1e-15.
        let u = exact::series_failure([1e-20; 3].into_iter());
        assert!((u / 3e-20 - 1.0).abs() < 1e-15, "{u:e}");
        // Two any_of gates, each of two 5-instance components at 99%
        // (1e-10 each): a gate fails with 1e-20, both gates' union with
        // 2e-20 − 1e-40.
        let f = figure(
            r"system: s
components:
  e: {depends_on: [{any_of: [a, b]}, {any_of: [c, d]}]}
  a: {instances: 5, availability: 99%}
  b: {instances: 5, availability: 99%}
  c: {instances: 5, availability: 99%}
  d: {instances: 5, availability: 99%}
",
        );
        assert!((f.unavailability / 2e-20 - 1.0).abs() < 1e-13, "{f:?}");
        // The same in a zone at 99.9% holding everything: the zone adds
        // 1e-3, and with it up the gates add (1 − 1e-3) × 2e-20.
        let f = figure(
            r"system: s
domains: {z: {kind: zone, availability: 99.9%}}
components:
  e: {placement: [z], depends_on: [{any_of: [a, b]}, {any_of: [c, d]}]}
  a: {instances: 5, availability: 99%, placement: [z]}
  b: {instances: 5, availability: 99%, placement: [z]}
  c: {instances: 5, availability: 99%, placement: [z]}
  d: {instances: 5, availability: 99%, placement: [z]}
",
        );
        let truth = 1e-3 + 0.999 * 2e-20;
        assert!((f.unavailability / truth - 1.0).abs() < 1e-13, "{f:?}");
    }

    #[test]
    fn a_switchover_adds_to_the_unavailability() {
        // The worked example of `switchover`: 0.75 h per 724 h on top of a
        // perfect structure: U = 1.0359e-3 in both spaces.
        let f = figure(
            r"system: s
components:
  api: {depends_on: [{any_of: [primary, standby], switchover: 45m}]}
  primary: {mtbf: 720h, mttr: 4h}
  standby: {availability: 100%}
",
        );
        assert!((f.unavailability - 0.75 / 724.0).abs() < 1e-12, "{f:?}");
        assert!((f.unavailability + f.availability - 1.0).abs() < 1e-15);
    }

    #[test]
    fn k_of_n_instances() {
        // 1 of 3 at 99%: 1 − 0.01³ = 0.999999
        let f = figure(
            r"system: s
components:
  a: {instances: 3, availability: 99%}
",
        );
        assert!(close(f.availability, 0.999_999));
        // 2 of 3 at 90%: 3 × 0.9² × 0.1 + 0.9³ = 0.972
        let f = figure(
            r"system: s
components:
  a: {instances: 3, min_healthy: 2, availability: 90%}
",
        );
        assert!(close(f.availability, 0.972));
    }

    #[test]
    fn a_shared_dependency_is_counted_once() {
        // lb needs fe1 or fe2; both need db. A = P(db) × (1 − 0.001²)
        // = 0.999 × 0.999999 = 0.998999001 (naive: 1 − (1 − 0.999²)² ≈ 0.999996).
        let f = figure(
            r"system: s
components:
  lb: {depends_on: [{any_of: [fe1, fe2]}]}
  fe1: {availability: 99.9%, depends_on: [db]}
  fe2: {availability: 99.9%, depends_on: [db]}
  db: {availability: 99.9%}
",
        );
        assert!(close(f.availability, 0.998_999_001), "{}", f.availability);
    }

    #[test]
    fn any_of_and_at_least() {
        // any_of two 99%: 1 − 0.01² = 0.9999
        let f = figure(
            r"system: s
components:
  a: {depends_on: [{any_of: [x, y]}]}
  x: {availability: 99%}
  y: {availability: 99%}
",
        );
        assert!(close(f.availability, 0.9999));
        // at_least 2 of three different 90% components: 0.972
        let f = figure(
            r"system: s
components:
  a: {depends_on: [{at_least: 2, of: [x, y, z]}]}
  x: {availability: 90%}
  y: {availability: 90%}
  z: {availability: 90%}
",
        );
        assert!(close(f.availability, 0.972));
    }

    #[test]
    fn zone_loss_correlates_components_in_the_same_zones() {
        // a and b each run one instance in z1 and one in z2 (99% zones, perfect
        // instances): both are up exactly when a zone is up: 1 − 0.01² = 0.9999,
        // not the naive 0.9999² = 0.99980001.
        let f = figure(
            r"system: s
domains: {z1: {kind: zone, availability: 99%}, z2: {kind: zone, availability: 99%}}
components:
  e: {depends_on: [a, b]}
  a: {instances: 2, placement: [z1, z2]}
  b: {instances: 2, placement: [z1, z2]}
",
        );
        assert!(close(f.availability, 0.9999), "{}", f.availability);
    }

    #[test]
    fn nested_domains_multiply() {
        // one 99.9% instance in az-a (99.9%) in a 99.99% region:
        // 0.9999 × 0.999 × 0.999 = 0.997901...
        let f = figure(
            r"system: s
domains: {r: {kind: region, availability: 99.99%}, az-a: {kind: zone, in: r, availability: 99.9%}}
components:
  a: {availability: 99.9%, placement: [az-a]}
",
        );
        assert!(close(f.availability, 0.9999 * 0.999 * 0.999));
    }

    #[test]
    fn a_shared_fate_group_caps_the_replicas() {
        // three 99% replicas sharing a 99.5% config push:
        // 0.995 × (1 − 0.01³) = 0.994999005, about 99.5%, not six nines.
        let f = figure(
            r"system: s
shared_fate: {push: {kind: config, availability: 99.5%}}
components:
  a: {instances: 3, availability: 99%, shares: [push]}
",
        );
        assert!(close(f.availability, 0.994_999_005));
    }

    #[test]
    fn mtbf_and_mttr_give_the_instance_figure() {
        // 999h / (999h + 1h) = 0.999
        let f = figure(
            r"system: s
components:
  a: {mtbf: 999h, mttr: 1h}
",
        );
        assert!(close(f.availability, 0.999));
    }

    #[test]
    fn a_cycle_of_required_edges_needs_every_member() {
        // a ↔ b, each 99%: up together when both are: 0.9801
        let f = figure(
            r"system: s
entrypoints: [a]
components:
  a: {availability: 99%, depends_on: [b]}
  b: {availability: 99%, depends_on: [a]}
",
        );
        assert!(close(f.availability, 0.9801));
        // a needs (b or c), b needs a: the cycle through b still counts b's own health:
        // A = 0.99 × (1 − (1 − 0.99) × (1 − 0.99)) = 0.99 × 0.9999 = 0.989901
        let f = figure(
            r"system: s
entrypoints: [a]
components:
  a: {availability: 99%, depends_on: [{any_of: [b, c]}]}
  b: {availability: 99%, depends_on: [a]}
  c: {availability: 99%}
",
        );
        assert!(close(f.availability, 0.989_901), "{}", f.availability);
    }

    #[test]
    fn a_truncated_structure_is_bracketed_by_its_parts() {
        // e needs x or y, and y or z (90% each): exact
        // P = p_y + (1 − p_y) p_x p_z = 0.9 + 0.1 × 0.81 = 0.981.
        // With room for one gate per part (5 nodes: two terminals, x, y and
        // x ∨ y), the parts are x ∨ y and y ∨ z, 0.99 each: Harris gives
        // 0.99 × 0.99 = 0.9801 below, the smaller part 0.99 above.
        let model = crate::model::parse(
            r"system: s
components:
  e: {depends_on: [{any_of: [x, y]}, {any_of: [y, z]}]}
  x: {availability: 90%}
  y: {availability: 90%}
  z: {availability: 90%}
",
        )
        .unwrap();
        let e = ComponentId(0);
        assert_eq!(structure::gate_count(&model, e), 2);
        assert!(structure::build_part(&model, e, 0..2, 5).truncated);
        let mut s = structure::build(&model, e);
        s.truncated = true;
        let mut f = exact::evaluate(&model, &s);
        // Relaxed: every component required, 0.9³ = 0.729, up to 1.
        assert!(close(f.lower, 0.729) && close(f.upper, 1.0), "{f:?}");
        bracket_by_parts(&model, e, 5, &mut f);
        assert!(close(f.lower, 0.9801), "{}", f.lower);
        assert!(close(f.upper, 0.99), "{}", f.upper);
        assert!(f.why.as_deref().is_some_and(|w| w.contains("2 parts")));
        // With room for both, one part: the exact figure.
        let mut f = exact::evaluate(&model, &s);
        bracket_by_parts(&model, e, 1 << 16, &mut f);
        assert!(close(f.lower, 0.981) && close(f.upper, 0.981), "{f:?}");
    }

    #[test]
    fn improvement_names_the_weakest_link() {
        // web: 2 × 99.9% (fail together with 1e-6), db: 99.95%.
        // A = 0.999999 × 0.9995 = 0.9994990005; db perfect: 0.999999, gain 0.0004999995;
        // web perfect: 0.9995, gain 0.0000009995.
        let f = figure(
            r"system: s
components:
  web: {instances: 2, availability: 99.9%, depends_on: [db]}
  db: {availability: 99.95%}
",
        );
        assert!(close(f.availability, 0.999_499_000_5));
        assert_eq!(f.improvement.len(), 2);
        assert_eq!(f.improvement[0].0, Subject::Component(ComponentId(1)));
        assert!(close(f.improvement[0].1, 0.000_499_999_5));
        assert!(close(f.improvement[1].1, 0.000_000_999_5));
    }

    #[test]
    fn improvement_of_an_event_and_of_an_alternative() {
        // e needs any_of [x, y] (99% each) and runs in zone z (99.9%).
        // A = 0.999 × 0.9999 = 0.9989001; z perfect: 0.9999 (gain 0.0009999);
        // x perfect: 0.999 (gain 0.0000999).
        let f = figure(
            r"system: s
domains: {z: {kind: zone, availability: 99.9%}}
components:
  e: {placement: [z], depends_on: [{any_of: [x, y]}]}
  x: {availability: 99%, placement: [z]}
  y: {availability: 99%, placement: [z]}
",
        );
        assert!(close(f.availability, 0.998_900_1));
        assert_eq!(
            f.improvement[0].0,
            Subject::Domain(crate::model::DomainId(0))
        );
        assert!(
            close(f.improvement[0].1, 0.000_999_9),
            "{:?}",
            f.improvement
        );
        assert!(
            close(f.improvement[1].1, 0.000_099_9),
            "{:?}",
            f.improvement
        );
    }

    #[test]
    fn a_relaxed_figure_brackets_the_exact_one() {
        // lb needs fe1 or fe2, both need db (all 99.9%): exact 0.998999001.
        // Relaxed: all three in series 0.999³ = 0.997002999; gates ignored: 1.
        let model = crate::model::parse(
            r"system: s
components:
  lb: {depends_on: [{any_of: [fe1, fe2]}]}
  fe1: {availability: 99.9%, depends_on: [db]}
  fe2: {availability: 99.9%, depends_on: [db]}
  db: {availability: 99.9%}
",
        )
        .unwrap();
        let mut s = structure::build(&model, ComponentId(0));
        s.truncated = true;
        let f = exact::evaluate(&model, &s);
        assert_eq!(f.method, Method::Bounded);
        assert!(close(f.lower, 0.997_002_999), "{}", f.lower);
        assert!(close(f.upper, 1.0));
        assert!(f.lower <= 0.998_999_001 && 0.998_999_001 <= f.upper);
    }

    #[test]
    fn domains_private_to_one_component_are_folded_into_it() {
        // One component spread over 65 zones (more events than bits in a mask)
        // at 99.9999% each, perfect instances, min_healthy 65: up only when
        // every zone is: 0.999999^65. Each zone holds one entry of this one
        // component, so the zones fold into it and the figure is exact.
        let mut text = String::from(
            r"system: s
domains:
",
        );
        for z in 0..65 {
            let _ = writeln!(text, "  z{z}: {{kind: zone, availability: 99.9999%}}");
        }
        let zones: Vec<String> = (0..65).map(|z| format!("z{z}")).collect();
        let _ = writeln!(
            text,
            "components:\n  a: {{instances: 65, min_healthy: 65, placement: [{}]}}",
            zones.join(", ")
        );
        let f = figure(&text);
        assert_eq!(f.method, Method::Exact);
        assert!(close(f.availability, 0.999_999_f64.powi(65)));
        // Every zone costs the same: 0.999999^64 − 0.999999^65 ≈ 1e-6 each.
        let first = f.improvement[0].1;
        assert!(
            f.improvement
                .iter()
                .all(|(_, gain)| (gain - first).abs() < 1e-15 && (gain - 1e-6).abs() < 1e-8)
        );
        assert_eq!(f.improvement.len(), 65);
        assert_eq!(
            f.improvement[0].0,
            Subject::Domain(crate::model::DomainId(0))
        );
    }

    #[test]
    fn thirty_zones_that_fail_often_stay_exact() {
        // 30 instances at 99.9%, one per zone at 90%, 20 needed: each instance
        // runs with 0.9 × 0.999 = 0.8991, so A = P(Binomial(30, 0.8991) ≥ 20)
        // = 0.99990340 (the sum by hand over 20..=30). Conditioning on the 30
        // zones would need 2^30 states; folded, it is one.
        let mut text = String::from(
            r"system: s
domains:
",
        );
        for z in 0..30 {
            let _ = writeln!(text, "  z{z}: {{kind: zone, availability: 90%}}");
        }
        let zones: Vec<String> = (0..30).map(|z| format!("z{z}")).collect();
        let _ = writeln!(
            text,
            "components:\n  a: {{instances: 30, min_healthy: 20, availability: 99.9%, placement: [{}]}}",
            zones.join(", ")
        );
        let f = figure(&text);
        assert_eq!(f.method, Method::Exact);
        let truth = events::at_least(30, 20, 0.9 * 0.999);
        assert!(close(f.availability, truth), "{} {truth}", f.availability);
        assert!((truth - 0.999_903_4).abs() < 1e-6, "{truth}");
    }

    #[test]
    fn many_events_are_exact_through_the_joint_diagram() {
        // 20 series components, each in its own 99.9% group: A = 0.999^20 =
        // 0.98018886. 20 events exceed the exhaustive limit (2^20 states);
        // the joint diagram of events and components is a chain of 40 nodes.
        let mut text = String::from(
            r"system: s
shared_fate:
",
        );
        for i in 0..20 {
            let _ = writeln!(text, "  g{i}: {{availability: 99.9%}}");
        }
        text.push_str(
            r"components:
  e: {depends_on: [c0]}
",
        );
        for i in 0..20 {
            let next = if i < 19 {
                format!(", depends_on: [c{}]", i + 1)
            } else {
                String::new()
            };
            let _ = writeln!(text, "  c{i}: {{shares: [g{i}]{next}}}");
        }
        let f = figure(&text);
        let truth = 0.999_f64.powi(20);
        assert_eq!(f.method, Method::Exact);
        assert!((f.availability - truth).abs() < 1e-12, "{}", f.availability);
        assert!((truth - 0.980_188_86).abs() < 1e-8);
    }
}

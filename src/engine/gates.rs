//! A bracket of the unavailability of an entrypoint whose alternatives are
//! all `any_of` gates over leaves (components that depend on nothing), in
//! failure space, when conditioning on every state of the events is out of
//! reach (a grid of 14 × 14 cells in 20 zones whose unavailability is
//! 5e-27, far below what the mass of the unvisited states, 1e-10, says).
//!
//! Each series member counts as a gate of one member. Given a state `s` of
//! the correlated events the members are independent, so a gate fails with
//! `U_g(s) = Π_{m ∈ g} u_m(s)` and two gates together with the product over
//! the union of their members. The entrypoint fails when any gate does:
//!
//! - below, Bonferroni: `U(s) ≥ Σ_g U_g(s) − Σ_{g<h} P(F_g ∧ F_h | s)` (and
//!   at least the largest `U_g(s)`);
//! - above, Harris (gate failures are increasing events of the members'
//!   failures): `U(s) ≤ 1 − Π_g (1 − U_g(s))`.
//!
//! The states are visited most probable first. The unvisited ones add
//! nothing below, and above at most `Σ_unvisited P(s) Σ_g U_g(s)
//! = Σ_g (U_g − Σ_visited P(s) U_g(s))`, each gate's `U_g` being exact from
//! the few events of that gate alone: a bound far below the unvisited
//! states' weight when their failures are rare.

use std::collections::BinaryHeap;

use super::events::{self, EventModel};
use super::exact::{Candidate, push_successors};
use super::fasthash::FastMap;
use crate::model::{ComponentId, EdgeKind, Model};

/// Most events of one gate (its `U_g` enumerates 2^events states).
const MAX_GATE_EVENTS: usize = 20;
/// Most gates (the pairs below cost their square per state).
const MAX_GATES: usize = 512;
/// The search stops once the bracket is this narrow relative to its lower
/// end.
const TARGET: f64 = 1e-3;
/// States visited between two looks at the bracket.
const CHECK_EVERY: usize = 1 << 10;

/// The bracket of the unavailability found by [`bracket`].
#[derive(Debug, Clone, PartialEq)]
pub struct Bracket {
    /// Lower bound of the unavailability.
    pub lower: f64,
    /// Upper bound of the unavailability.
    pub upper: f64,
    /// States of the events visited.
    pub states: usize,
    /// Gates (series members counted one each).
    pub gates: usize,
}

/// The series members and `any_of` gates of `entrypoint` when every gate
/// is an `any_of` over components that depend on nothing; `None` for any
/// other shape.
fn gates_of(
    model: &Model,
    entrypoint: ComponentId,
) -> Option<(Vec<ComponentId>, Vec<Vec<ComponentId>>)> {
    let mut series = vec![entrypoint];
    let mut next = 0;
    let mut gates = Vec::new();
    while let Some(&c) = series.get(next) {
        next += 1;
        for edge in model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
        {
            if edge.kind == EdgeKind::Target {
                for &t in &edge.targets {
                    if !series.contains(&t) {
                        series.push(t);
                    }
                    if series.len() > MAX_GATES {
                        return None;
                    }
                }
                continue;
            }
            if edge.at_least != 1 {
                return None;
            }
            let leaves = edge
                .targets
                .iter()
                .all(|&t| !model.component(t).depends_on.iter().any(|e| !e.degradable));
            if !leaves {
                return None;
            }
            gates.push(edge.targets.clone());
            if series.len() + gates.len() > MAX_GATES {
                return None;
            }
        }
    }
    Some((series, gates))
}

/// The bracket of the unavailability of `entrypoint` (before switchovers)
/// within about `work` steps, when its shape allows (see [`gates_of`]) and
/// each gate's events are few; `None` otherwise.
#[must_use]
pub fn bracket(model: &Model, entrypoint: ComponentId, work: usize) -> Option<Bracket> {
    bracket_within(model, entrypoint, work, usize::MAX)
}

/// [`bracket`] visiting at most `states` states (for tests of the bound on
/// the unvisited ones).
#[doc(hidden)]
#[must_use]
pub fn bracket_within(
    model: &Model,
    entrypoint: ComponentId,
    work: usize,
    states: usize,
) -> Option<Bracket> {
    let (series, any_of) = gates_of(model, entrypoint)?;
    // Each component's place in `components`, looked up rather than
    // searched (a scan per member is quadratic in the gates' sizes).
    let mut place: FastMap<ComponentId, usize> = FastMap::default();
    let mut components = Vec::new();
    for &c in series.iter().chain(any_of.iter().flatten()) {
        place.entry(c).or_insert_with(|| {
            components.push(c);
            components.len() - 1
        });
    }
    let index = |c: ComponentId| place.get(&c).copied().unwrap_or(0);
    let mut gates: Vec<Vec<usize>> = series.iter().map(|&c| vec![index(c)]).collect();
    gates.extend(any_of.iter().map(|g| {
        let mut members: Vec<usize> = g.iter().map(|&c| index(c)).collect();
        members.sort_unstable();
        members.dedup();
        members
    }));
    if gates.len() > MAX_GATES {
        return None;
    }
    let events = events::collect(model, &components);
    let mut budget = work;
    let totals = gates
        .iter()
        .map(|g| gate_failure(&events, g, &mut budget))
        .collect::<Option<Vec<f64>>>()?;
    let search = Search::new(&events, &gates, &mut budget)?;
    Some(search.run(&totals, work, states))
}

/// A gate's failure over every state of its own events: `E[Π u_m(s)]`.
/// Spends its cost (states × members) from `budget`; `None` when the gate
/// has too many events or the budget is spent.
fn gate_failure(events: &EventModel, members: &[usize], budget: &mut usize) -> Option<f64> {
    let mut local: Vec<usize> = members
        .iter()
        .flat_map(|&m| events.leaves[m].footprint.iter().copied())
        .collect();
    local.sort_unstable();
    local.dedup();
    if local.len() > MAX_GATE_EVENTS {
        return None;
    }
    *budget = budget.checked_sub((1usize << local.len()) * (members.len() + local.len()))?;
    let mut total = 0.0;
    let mut running = events::Running::default();
    for mask in 0..1u64 << local.len() {
        let down = |e: usize| super::exact::local_down(&local, mask, e);
        let p: f64 = local
            .iter()
            .enumerate()
            .map(|(i, &e)| {
                if mask & (1 << i) != 0 {
                    1.0 - events.events[e].up
                } else {
                    events.events[e].up
                }
            })
            .product();
        let failure: f64 = members
            .iter()
            .map(|&m| events.leaves[m].failing_in(down, &events.folded, &mut running))
            .product();
        total += p * failure;
    }
    Some(total)
}

/// Two gates that share members.
struct Overlap {
    g: usize,
    h: usize,
    /// The members both have (sorted).
    shared: Vec<usize>,
    /// The members of `h` that `g` lacks.
    own: Vec<usize>,
}

/// The best-first walk over the states of the events, with its sums.
struct Search<'a> {
    events: &'a EventModel,
    gates: &'a [Vec<usize>],
    /// Pairs of gates that share members, with the shared members and the
    /// members of the second that the first lacks.
    overlaps: Vec<Overlap>,
    /// Σ P(s) × lower(s), Σ P(s) × upper(s), Σ P(s).
    lower: f64,
    upper: f64,
    mass: f64,
    /// Per gate: Σ over visited states of `P(s) × U_g(s)`.
    visited: Vec<f64>,
    /// Per leaf: its failure in the current state; per gate likewise.
    u: Vec<f64>,
    per_gate: Vec<f64>,
    running: events::Running,
}

impl<'a> Search<'a> {
    /// `None` when comparing every pair of gates would spend more than
    /// `budget` (512 gates over the same 2,000 members would hold 2 GB of
    /// pairs).
    fn new(events: &'a EventModel, gates: &'a [Vec<usize>], budget: &mut usize) -> Option<Self> {
        let pair_work = gates.iter().enumerate().fold(0usize, |work, (g, members)| {
            work.saturating_add(members.len().saturating_mul(gates.len() - g))
        });
        *budget = budget.checked_sub(pair_work)?;
        let mut overlaps = Vec::new();
        for g in 0..gates.len() {
            for h in g + 1..gates.len() {
                let shared: Vec<usize> = gates[g]
                    .iter()
                    .copied()
                    .filter(|m| gates[h].binary_search(m).is_ok())
                    .collect();
                if !shared.is_empty() {
                    let own: Vec<usize> = gates[h]
                        .iter()
                        .copied()
                        .filter(|m| shared.binary_search(m).is_err())
                        .collect();
                    overlaps.push(Overlap { g, h, shared, own });
                }
            }
        }
        Some(Search {
            events,
            gates,
            overlaps,
            lower: 0.0,
            upper: 0.0,
            mass: 0.0,
            visited: vec![0.0; gates.len()],
            u: vec![0.0; events.leaves.len()],
            per_gate: vec![0.0; gates.len()],
            running: events::Running::default(),
        })
    }

    /// Steps one state costs.
    fn cost(&self) -> usize {
        self.events.leaves.len() * 8
            + self.events.events.len()
            + self.gates.iter().map(Vec::len).sum::<usize>()
            + self.overlaps.iter().map(|o| o.shared.len()).sum::<usize>()
            + 2 * self.gates.len()
            + 1
    }

    /// Adds the state `down` of probability `p`.
    fn visit(&mut self, down: &[bool], p: f64) {
        for (u, leaf) in self.u.iter_mut().zip(&self.events.leaves) {
            *u = leaf.failing_in(|e| down[e], &self.events.folded, &mut self.running);
        }
        for (value, gate) in self.per_gate.iter_mut().zip(self.gates) {
            *value = gate.iter().map(|&m| self.u[m]).product();
        }
        let sum: f64 = self.per_gate.iter().sum();
        let squares: f64 = self.per_gate.iter().map(|x| x * x).sum();
        // Σ_{g<h} U_g U_h, then the pairs that share members: their joint
        // failure counts each shared member once.
        let mut pairs = 0.5 * (sum * sum - squares).max(0.0);
        for overlap in &self.overlaps {
            let (a, b) = (self.per_gate[overlap.g], self.per_gate[overlap.h]);
            if a == 0.0 || b == 0.0 {
                continue;
            }
            let ab = a * b;
            // The joint failure counts each shared member once: a × b over
            // the shared part, or, where a × b has lost its digits (below
            // the smallest normal f64: two gates at 1e-170), a times the
            // second gate's own members.
            let joint = if ab >= f64::MIN_POSITIVE {
                ab / overlap.shared.iter().map(|&m| self.u[m]).product::<f64>()
            } else {
                a * overlap.own.iter().map(|&m| self.u[m]).product::<f64>()
            };
            pairs += joint - ab;
        }
        let largest = self.per_gate.iter().copied().fold(0.0, f64::max);
        let below = (sum - pairs).max(largest);
        let above = super::exact::series_failure(self.per_gate.iter().copied());
        self.lower += p * below;
        self.upper += p * above;
        self.mass += p;
        for (sum, &value) in self.visited.iter_mut().zip(&self.per_gate) {
            *sum += p * value;
        }
    }

    /// The bracket from the sums: the unvisited states bounded by the
    /// gates' totals less what the visited ones took, or by their weight.
    fn bracket(&self, totals: &[f64], states: usize) -> Bracket {
        // Each term is a product or sum of at most this many roundings.
        // The sums over states are plain: each visited state adds one more.
        let r = (self.cost() + self.events.events.len() + 16 + states) as f64 * f64::EPSILON;
        let rest: f64 = totals
            .iter()
            .zip(&self.visited)
            .map(|(&total, &seen)| (total * (1.0 + r) - seen * (1.0 - r)).max(0.0))
            .sum();
        let unvisited = rest.min((1.0 - self.mass).max(0.0) + r);
        let lower = (self.lower * (1.0 - r)).clamp(0.0, 1.0);
        let upper = (self.upper * (1.0 + r) + unvisited).clamp(lower, 1.0);
        Bracket {
            lower,
            upper,
            states,
            gates: self.gates.len(),
        }
    }

    /// Visits states most probable first until the bracket is within
    /// [`TARGET`] of its lower end or the work is spent.
    fn run(mut self, totals: &[f64], work: usize, most: usize) -> Bracket {
        let events = &self.events.events;
        let limit = (work / self.cost()).clamp(1, most.clamp(1, super::exact::MAX_STATES));
        let base: Vec<bool> = events.iter().map(|e| e.up < 0.5).collect();
        let p_of = |e: &events::Event, down: bool| if down { 1.0 - e.up } else { e.up };
        // Flipping event i multiplies the probability by ratio[i] ≤ 1;
        // events sorted by ratio, largest first.
        let mut order: Vec<(f64, usize)> = events
            .iter()
            .enumerate()
            .map(|(i, e)| (p_of(e, !base[i]) / p_of(e, base[i]), i))
            .collect();
        order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut heap = BinaryHeap::new();
        let mut flips: Vec<Vec<usize>> = vec![Vec::new()];
        heap.push(Candidate {
            weight: 1.0,
            sequence: 0,
        });
        let mut down = base.clone();
        let mut states = 0;
        while let Some(Candidate { weight, sequence }) = heap.pop() {
            if states >= limit {
                break;
            }
            if states % CHECK_EVERY == 0 && states > 0 {
                let b = self.bracket(totals, states);
                if b.upper - b.lower <= TARGET * b.lower {
                    return b;
                }
            }
            let flipped = std::mem::take(&mut flips[sequence]);
            down.copy_from_slice(&base);
            for &k in &flipped {
                down[order[k].1] = !down[order[k].1];
            }
            let p: f64 = events.iter().zip(&down).map(|(e, &d)| p_of(e, d)).product();
            self.visit(&down, p);
            states += 1;
            push_successors(&order, flipped, weight, &mut heap, &mut flips);
        }
        self.bracket(totals, states)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"))
    }

    #[test]
    fn two_gates_sharing_a_member_are_bracketed_by_hand() {
        // e needs (a or b) and (b or c), each 90%, no zones: one state.
        // Truth: 1 − 0.981 = 0.019. Each gate fails with 0.1² = 0.01, both
        // together when a, b and c all fail: 0.001. Bonferroni:
        // 0.01 + 0.01 − 0.001 = 0.019 (exact with two gates); Harris:
        // 1 − 0.99² = 0.0199.
        let m = model(
            r"system: s
components:
  e: {depends_on: [{any_of: [a, b]}, {any_of: [b, c]}]}
  a: {availability: 90%}
  b: {availability: 90%}
  c: {availability: 90%}
",
        );
        let b = bracket(&m, m.entrypoints[0], 1_000_000).expect("any_of of leaves");
        assert!((b.lower - 0.019).abs() < 1e-15, "{b:?}");
        assert!((b.upper - 0.0199).abs() < 1e-15, "{b:?}");
        // e itself counts as a gate of one member: three gates.
        assert_eq!(b.gates, 3);
    }

    #[test]
    fn nested_gates_below_the_square_root_of_the_smallest_f64_keep_their_pair() {
        // e needs a and (a or b); a is 85 instances at 99% needing one:
        // u_a = 0.01^85 = 1e-170, b fails with 0.5. Gate {a} fails with
        // 1e-170, gate {a, b} with 5e-171, both together exactly when a
        // fails: 1e-170, the truth (the second gate implies the first).
        // Bonferroni: 1e-170 + 5e-171 − (joint 5e-171 of the overlapping
        // pair) = 1e-170. Dividing a × b = 5e-341 (0 in f64) by the shared
        // part lost the pair and gave 1.5e-170, above the truth.
        let m = model(
            r"system: s
components:
  e: {depends_on: [a, {any_of: [a, b]}]}
  a: {instances: 85, availability: 99%}
  b: {availability: 50%}
",
        );
        let b = bracket(&m, m.entrypoints[0], 1_000_000).expect("any_of of leaves");
        assert!(b.lower <= 1e-170 * (1.0 + 1e-12), "{b:?}");
        assert!(b.lower >= 1e-170 * (1.0 - 1e-12), "{b:?}");
        assert!(b.upper >= 1e-170 * (1.0 - 1e-12), "{b:?}");
    }

    #[test]
    fn unvisited_states_are_bounded_by_each_gates_own_failure() {
        // e needs (a or b), a in zone z1 and b in z2 (99% zones, 90%
        // instances). A member fails with 1 − 0.99 × 0.9 = 0.109, so
        // U = 0.109² = 0.011881. After the likeliest state alone (both
        // zones up, weight 0.9801, U = 0.01 there), the rest is bounded by
        // the gate's total less what that state took:
        // 0.011881 − 0.9801 × 0.01 = 0.00208, so [0.009801, 0.011881].
        let m = model(
            r"system: s
domains: {z1: {kind: zone, availability: 99%}, z2: {kind: zone, availability: 99%}}
components:
  e: {depends_on: [{any_of: [a, b]}]}
  a: {availability: 90%, placement: [z1]}
  b: {availability: 90%, placement: [z2]}
",
        );
        let b = bracket_within(&m, m.entrypoints[0], 1_000_000, 1).expect("any_of of leaves");
        assert_eq!(b.states, 1, "{b:?}");
        assert!((b.lower - 0.009_801).abs() < 1e-12, "{b:?}");
        assert!((b.upper - 0.011_881).abs() < 1e-12, "{b:?}");
        // Every state: exact (one gate, so Bonferroni and Harris agree).
        let b = bracket(&m, m.entrypoints[0], 1_000_000).expect("any_of of leaves");
        assert!((b.lower - 0.011_881).abs() < 1e-15 && (b.upper - 0.011_881).abs() < 1e-15);
    }

    #[test]
    fn other_shapes_are_left_to_the_other_methods() {
        let m = model(
            r"system: s
components:
  e: {depends_on: [{at_least: 2, of: [a, b, c]}]}
  a: {availability: 90%}
  b: {availability: 90%}
  c: {availability: 90%}
",
        );
        assert!(bracket(&m, m.entrypoints[0], 1_000_000).is_none());
    }
}

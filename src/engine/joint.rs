//! One decision diagram over the correlated events and the components
//! together, for entrypoints with more events than can be enumerated
//! (more than [`super::exact::EXACT_EVENTS`]).
//!
//! Conditioning visits `2^events` states; most of them differ only in
//! events that matter to a few components. A diagram whose variables are
//! the events themselves, each placed just before the first component that
//! uses it, shares that work instead: `at_least: 20` of 40 components
//! spread over 40 zones is a counting diagram of a few thousand nodes, not
//! 2^40 states.
//!
//! How a component enters the diagram. Given the events, a component's
//! health is independent of everything else, with probability
//! `h(s)` that depends only on its own events (`Leaf::healthy`). Its
//! function is the decision tree over those events whose leaf for the local
//! state `s` is a fresh variable `c|s` true with probability `h(s)` (or a
//! terminal when `h(s)` is 0 or 1). Every assignment of the events reads
//! exactly one copy of each component, so with the copies independent
//! `P(root | events)` is the figure's `P(up | events)`, and one bottom-up
//! pass gives the figure exactly. Copies with the same `(h, h without own
//! failures)` can share a variable: they sit on disjoint sets of event
//! assignments.
//!
//! The gates come from the structure's own diagram over component
//! variables: each node `v ? hi : lo` becomes `(H_v ∧ hi) ∨ lo`, which is
//! the same function because the gates are monotone (`lo ≤ hi`).

use std::collections::HashMap;

use super::bdd::{Bdd, FALSE, Ref, TRUE};
use super::events::{EventModel, Leaf};
use super::structure::Structure;

/// Most events of one component expanded into the diagram (a tree of
/// `2^this` leaves each).
pub const MAX_LEAF_EVENTS: usize = 12;
/// Most nodes of the joint diagram (about 30 MB with its tables; a
/// diagram that does not fit costs about a second to give up on).
pub const MAX_JOINT_NODES: usize = 1 << 19;

/// Why the joint diagram was not built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A component depends on this many events (more than
    /// [`MAX_LEAF_EVENTS`]).
    WideComponent(usize),
    /// The diagram needed more than this many nodes.
    TooLarge(usize),
}

/// The exact figure from the joint diagram, and the improvement of each
/// subject (what the figure would gain if it never failed).
pub struct Joint {
    /// Probability the entrypoint is up.
    pub total: f64,
    /// Per event of the event model.
    pub event_gain: Vec<f64>,
    /// Per leaf (component) of the event model; 0 for module members.
    pub leaf_gain: Vec<f64>,
    /// Per folded event of the event model.
    pub folded_gain: Vec<f64>,
    /// Nodes of the diagram.
    pub nodes: usize,
}

/// A copy variable: leaf `leaf` in local state `mask` (bit i = the i-th of
/// its events, in diagram order, down), healthy with probability `p`, or
/// `q` without its own failures.
struct Copy {
    leaf: usize,
    mask: u64,
    p: f64,
    q: f64,
}

struct Builder<'a> {
    model: &'a EventModel,
    bdd: Bdd,
    /// Probability of each diagram variable.
    p: Vec<f64>,
    /// Diagram variable of each event, once placed.
    event_var: Vec<Option<u32>>,
    /// Copy behind each diagram variable that is a copy.
    copies: HashMap<u32, Copy>,
    /// Each leaf's events in diagram order.
    local: Vec<Vec<usize>>,
}

/// Builds and evaluates the joint diagram of `structure` (not truncated)
/// over the events of `model`, under `limit` nodes.
///
/// # Errors
/// When a component has too many events, or the diagram too many nodes.
pub fn evaluate(structure: &Structure, model: &EventModel, limit: usize) -> Result<Joint, Refusal> {
    if let Some(wide) = model
        .leaves
        .iter()
        .map(|l| l.footprint.len())
        .find(|&n| n > MAX_LEAF_EVENTS)
    {
        return Err(Refusal::WideComponent(wide));
    }
    let mut b = Builder {
        model,
        bdd: Bdd::with_limit(limit.min(MAX_JOINT_NODES)),
        p: Vec::new(),
        event_var: vec![None; model.events.len()],
        copies: HashMap::new(),
        local: vec![Vec::new(); model.leaves.len()],
    };
    // Every leaf's function, in the structure's order: series, BDD
    // variables (in their order), module members.
    let health: Vec<Ref> = (0..model.leaves.len()).map(|i| b.leaf(i)).collect();
    let series_len = structure.series.len();
    let vars_end = series_len + structure.vars.len();
    let mut gate_input: Vec<Ref> = health[series_len..vars_end].to_vec();
    let mut start = vars_end;
    for module in &structure.modules {
        let members = &health[start..start + module.members.len()];
        start += module.members.len();
        gate_input.push(b.bdd.at_least(module.k, members));
    }
    let gates = compose(&mut b.bdd, &structure.bdd, structure.root, &gate_input);
    let mut root = gates;
    for &h in health[..series_len].iter().rev() {
        root = b.bdd.and(h, root);
    }
    if b.bdd.too_large() {
        return Err(Refusal::TooLarge(limit.min(MAX_JOINT_NODES)));
    }
    let root = b.bdd.retain(root);
    Ok(b.finish(root, structure))
}

/// `root` of `gates` (over component variables) with variable `v`
/// replaced by the function `input[v]` of `bdd`. Nodes are numbered
/// children first, so one ascending pass suffices.
fn compose(bdd: &mut Bdd, gates: &Bdd, root: Ref, input: &[Ref]) -> Ref {
    if root < 2 {
        return root;
    }
    let mut image: Vec<Ref> = vec![FALSE; root as usize + 1];
    image[1] = TRUE;
    for r in 2..=root {
        let (var, low, high) = gates.parts(r);
        // Monotone: low ≤ high, so v ? high : low = (v ∧ high) ∨ low.
        let with = bdd.and(input[var as usize], image[high as usize]);
        image[r as usize] = bdd.or(with, image[low as usize]);
    }
    image[root as usize]
}

impl Builder<'_> {
    fn new_var(&mut self, p: f64) -> u32 {
        let var = u32::try_from(self.p.len()).unwrap_or(u32::MAX);
        self.p.push(p);
        var
    }

    /// Leaf `index` as a function of its events and copies: its events
    /// not yet placed get the next variables, then its copies.
    fn leaf(&mut self, index: usize) -> Ref {
        let model = self.model;
        let leaf = &model.leaves[index];
        for &e in &leaf.footprint {
            if self.event_var[e].is_none() {
                let up = model.events[e].up;
                self.event_var[e] = Some(self.new_var(up));
            }
        }
        let mut local = leaf.footprint.clone();
        local.sort_by_key(|&e| self.event_var[e]);
        // Copies are shared by value unless folded events make the value
        // of each local state matter on its own (their improvement).
        let merge = leaf.private.iter().all(Vec::is_empty);
        let mut by_value = HashMap::new();
        let r = self.expand(index, leaf, &local, 0, 0, merge, &mut by_value);
        self.local[index] = local;
        r
    }

    #[expect(clippy::too_many_arguments, reason = "one recursion's state")]
    fn expand(
        &mut self,
        index: usize,
        leaf: &Leaf,
        local: &[usize],
        i: usize,
        mask: u64,
        merge: bool,
        by_value: &mut HashMap<(u64, u64), Ref>,
    ) -> Ref {
        if i == local.len() {
            let down = |e: usize| down_in(local, mask, e);
            let p = leaf.healthy(down, &self.model.folded, false);
            let q = leaf.healthy(down, &self.model.folded, true);
            // Certain states (bit for bit 0 or 1, with and without own
            // failures) need no variable.
            if merge && p.to_bits() == q.to_bits() {
                if p.to_bits() == 1.0_f64.to_bits() {
                    return TRUE;
                }
                if p.to_bits() == 0.0_f64.to_bits() {
                    return FALSE;
                }
            }
            if merge && let Some(&r) = by_value.get(&(p.to_bits(), q.to_bits())) {
                return r;
            }
            let var = self.new_var(p);
            self.copies.insert(
                var,
                Copy {
                    leaf: index,
                    mask,
                    p,
                    q,
                },
            );
            let r = self.bdd.var(var);
            if merge {
                by_value.insert((p.to_bits(), q.to_bits()), r);
            }
            return r;
        }
        let high = self.expand(index, leaf, local, i + 1, mask, merge, by_value);
        let low = self.expand(index, leaf, local, i + 1, mask | 1 << i, merge, by_value);
        let var = self.event_var[local[i]].unwrap_or(u32::MAX);
        self.bdd.node(var, low, high)
    }

    /// The figure and the gains from the finished diagram.
    fn finish(self, root: Ref, structure: &Structure) -> Joint {
        let mut values = Vec::new();
        let total = self.bdd.probability(root, &self.p, &mut values);
        let mut d = vec![0.0; self.p.len()];
        self.bdd
            .add_derivatives(root, &self.p, &values, 1.0, &mut Vec::new(), &mut d);
        // The figure is multilinear in each variable, and a component's
        // copies never meet on one path, so a subject's gain is the sum of
        // derivative × change over its variables.
        let event_gain = self
            .event_var
            .iter()
            .zip(&self.model.events)
            .map(|(var, e)| var.map_or(0.0, |v| (1.0 - e.up) * d[v as usize]))
            .collect();
        let with_rows = structure.series.len() + structure.vars.len();
        let mut leaf_gain = vec![0.0; self.model.leaves.len()];
        let mut folded_gain = vec![0.0; self.model.folded.len()];
        let mut vars: Vec<(&u32, &Copy)> = self.copies.iter().collect();
        vars.sort_unstable_by_key(|(v, _)| **v);
        for (&var, copy) in vars {
            let slope = d[var as usize];
            if copy.leaf < with_rows {
                leaf_gain[copy.leaf] += slope * (copy.q - copy.p);
            }
            let leaf = &self.model.leaves[copy.leaf];
            let local = &self.local[copy.leaf];
            for &f in leaf.private.iter().flatten() {
                let mut perfect = self.model.folded.clone();
                perfect[f].up = 1.0;
                let lifted = leaf.healthy(|e| down_in(local, copy.mask, e), &perfect, false);
                folded_gain[f] += slope * (lifted - copy.p);
            }
        }
        Joint {
            total,
            event_gain,
            leaf_gain,
            folded_gain,
            nodes: self.bdd.len(),
        }
    }
}

/// Whether `event` is down in local state `mask` over `local`.
fn down_in(local: &[usize], mask: u64, event: usize) -> bool {
    local
        .iter()
        .position(|&e| e == event)
        .is_some_and(|i| mask & (1 << i) != 0)
}

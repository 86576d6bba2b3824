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
//! A component that depends on more events than a tree can expand
//! ([`MAX_LEAF_EVENTS`], e.g. one instance in each of 256 zones) enters
//! instance by instance instead: instance `i` of entry `j` is up when the
//! entry's events are up, its folded domains are (one variable per entry,
//! true with the product of their figures) and the instance itself is (one
//! variable each), and the component is healthy when at least
//! `min_healthy` instances are, and its groups are up. The variables are
//! independent, so this is the same function. Those variables are placed
//! first, event by event, each entry's right after the last of its events,
//! so two components spread over the same zones interleave (a diagram of a
//! few nodes per zone, not 2^zones).
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

/// Most instances of one component entered instance by instance, and most
/// `instances × min(min_healthy, instances − min_healthy + 1)` (the size
/// of its counting diagram).
pub const MAX_WIDE_INSTANCES: usize = 1 << 12;
const MAX_WIDE_COUNT: usize = 1 << 18;

/// Why the joint diagram was not built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A component depends on this many events (more than
    /// [`MAX_LEAF_EVENTS`]) and has too many instances to enter one by one
    /// ([`MAX_WIDE_INSTANCES`]).
    WideComponent(usize),
    /// The diagram needed more than this many nodes.
    TooLarge(usize),
}

/// The exact figure from the joint diagram, and the improvement of each
/// subject (what the figure would gain if it never failed).
pub struct Joint {
    /// Probability the entrypoint is up.
    pub total: f64,
    /// Probability it is down, summed in failure space.
    pub failure: f64,
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
    /// Probability each diagram variable is false (`1 − p`, in failure
    /// space).
    u: Vec<f64>,
    /// Diagram variable of each event, once placed.
    event_var: Vec<Option<u32>>,
    /// Copy behind each diagram variable that is a copy.
    copies: HashMap<u32, Copy>,
    /// Each leaf's events in diagram order.
    local: Vec<Vec<usize>>,
    /// Per wide leaf (entered instance by instance), per entry: the
    /// variable of its folded domains and those of its instances.
    wide: HashMap<usize, Vec<WideEntry>>,
}

/// One entry of a wide leaf: the variable of its folded domains (`None`
/// when it has none) and one variable per instance (none when the
/// instances never fail on their own).
struct WideEntry {
    folded: Option<u32>,
    instances: Vec<u32>,
}

/// Builds and evaluates the joint diagram of `structure` (not truncated)
/// over the events of `model`, under `limit` nodes.
///
/// # Errors
/// When a component has too many events, or the diagram too many nodes.
pub fn evaluate(structure: &Structure, model: &EventModel, limit: usize) -> Result<Joint, Refusal> {
    let wide: Vec<usize> = (0..model.leaves.len())
        .filter(|&i| model.leaves[i].footprint.len() > MAX_LEAF_EVENTS)
        .collect();
    if let Some(&i) = wide.iter().find(|&&i| !countable(&model.leaves[i])) {
        return Err(Refusal::WideComponent(model.leaves[i].footprint.len()));
    }
    let mut b = Builder {
        model,
        bdd: Bdd::with_limit(limit.min(MAX_JOINT_NODES)),
        p: Vec::new(),
        u: Vec::new(),
        event_var: vec![None; model.events.len()],
        copies: HashMap::new(),
        local: vec![Vec::new(); model.leaves.len()],
        wide: HashMap::new(),
    };
    b.place_wide(&wide);
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

/// Whether a leaf's instances are few enough to enter one by one.
fn countable(leaf: &Leaf) -> bool {
    if leaf.pseudo.is_some() {
        return false; // a band or share is not a count of its own instances
    }
    let n: usize = leaf
        .entries
        .iter()
        .map(|&(count, _)| usize::try_from(count).unwrap_or(usize::MAX))
        .fold(0, usize::saturating_add);
    let k = usize::try_from(leaf.min_healthy).unwrap_or(usize::MAX);
    n <= MAX_WIDE_INSTANCES && n.saturating_mul(k.min((n + 1).saturating_sub(k))) <= MAX_WIDE_COUNT
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
    fn new_var(&mut self, p: f64, u: f64) -> u32 {
        let var = u32::try_from(self.p.len()).unwrap_or(u32::MAX);
        self.p.push(p);
        self.u.push(u);
        var
    }

    /// Leaf `index` as a function of its events and copies: its events
    /// not yet placed get the next variables, then its copies.
    fn leaf(&mut self, index: usize) -> Ref {
        let model = self.model;
        let leaf = &model.leaves[index];
        if self.wide.contains_key(&index) {
            return self.wide_leaf(index);
        }
        for &e in &leaf.footprint {
            if self.event_var[e].is_none() {
                let up = model.events[e].up;
                self.event_var[e] = Some(self.new_var(up, 1.0 - up));
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

    /// Places the variables of the wide leaves: events in index order,
    /// each followed by the variables of the entries whose last event it
    /// is (entries that need no event first).
    fn place_wide(&mut self, wide: &[usize]) {
        if wide.is_empty() {
            return;
        }
        let model = self.model;
        let mut entries: Vec<Vec<Option<WideEntry>>> = wide
            .iter()
            .map(|&i| model.leaves[i].entries.iter().map(|_| None).collect())
            .collect();
        let mut anchored: Vec<Vec<(usize, usize)>> = vec![Vec::new(); model.events.len() + 1];
        let mut used = vec![false; model.events.len()];
        for (w, &i) in wide.iter().enumerate() {
            let leaf = &model.leaves[i];
            for (j, (_, needs)) in leaf.entries.iter().enumerate() {
                let slot = needs.iter().max().map_or(0, |&e| e + 1);
                anchored[slot].push((w, j));
            }
            for &e in &leaf.footprint {
                used[e] = true;
            }
        }
        for (slot, members) in anchored.iter().enumerate() {
            if slot > 0 && used[slot - 1] && self.event_var[slot - 1].is_none() {
                let up = model.events[slot - 1].up;
                self.event_var[slot - 1] = Some(self.new_var(up, 1.0 - up));
            }
            for &(w, j) in members {
                let leaf = &model.leaves[wide[w]];
                let private = &leaf.private[j];
                let folded = (!private.is_empty()).then(|| {
                    let up: f64 = private.iter().map(|&f| model.folded[f].up).product();
                    let log_up: f64 = private
                        .iter()
                        .map(|&f| (-(1.0 - model.folded[f].up)).ln_1p())
                        .sum();
                    self.new_var(up, -log_up.exp_m1())
                });
                let instances = if leaf.availability < 1.0 {
                    (0..leaf.entries[j].0)
                        .map(|_| self.new_var(leaf.availability, 1.0 - leaf.availability))
                        .collect()
                } else {
                    Vec::new()
                };
                entries[w][j] = Some(WideEntry { folded, instances });
            }
        }
        for (w, &i) in wide.iter().enumerate() {
            let list = std::mem::take(&mut entries[w])
                .into_iter()
                .flatten()
                .collect();
            self.wide.insert(i, list);
        }
    }

    /// A wide leaf instance by instance: at least `min_healthy` of the
    /// instances whose entry's events, folded domains and own variable are
    /// up, and every group up.
    fn wide_leaf(&mut self, index: usize) -> Ref {
        let leaf = &self.model.leaves[index];
        let entries = self.wide.remove(&index).unwrap_or_default();
        let mut items = Vec::new();
        for ((count, needs), entry) in leaf.entries.iter().zip(&entries) {
            let mut up = TRUE;
            for &e in needs.iter().rev() {
                let v = self.bdd.var(self.event_var[e].unwrap_or(u32::MAX));
                up = self.bdd.and(v, up);
            }
            if let Some(f) = entry.folded {
                let v = self.bdd.var(f);
                up = self.bdd.and(up, v);
            }
            if entry.instances.is_empty() {
                items.extend((0..*count).map(|_| up));
            } else {
                for &i in &entry.instances {
                    let v = self.bdd.var(i);
                    items.push(self.bdd.and(up, v));
                }
            }
        }
        let k = usize::try_from(leaf.min_healthy).unwrap_or(usize::MAX);
        let mut health = self.bdd.at_least(k, &items);
        for &g in &leaf.groups {
            let v = self.bdd.var(self.event_var[g].unwrap_or(u32::MAX));
            health = self.bdd.and(health, v);
        }
        self.wide.insert(index, entries);
        health
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
        by_value: &mut HashMap<(u64, u64, u64), Ref>,
    ) -> Ref {
        if i == local.len() {
            let down = |e: usize| down_in(local, mask, e);
            let p = leaf.healthy(down, &self.model.folded, false);
            let q = leaf.healthy(down, &self.model.folded, true);
            let u = leaf.failing(down, &self.model.folded);
            // Certain states (bit for bit 0 or 1, with and without own
            // failures) need no variable; a health that rounds to 1 while
            // its failure does not (1e-20) still needs one.
            if merge && p.to_bits() == q.to_bits() {
                if u.to_bits() == 0.0_f64.to_bits() {
                    return TRUE;
                }
                if p.to_bits() == 0.0_f64.to_bits() {
                    return FALSE;
                }
            }
            if merge && let Some(&r) = by_value.get(&(p.to_bits(), q.to_bits(), u.to_bits())) {
                return r;
            }
            let var = self.new_var(p, u);
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
                by_value.insert((p.to_bits(), q.to_bits(), u.to_bits()), r);
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
        let failure = self.bdd.failure(root, &self.p, &self.u, &mut Vec::new());
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
        // A wide leaf's instance variables meet on one path: its gains are
        // the figure again with them lifted, minus the figure.
        let mut wide: Vec<(&usize, &Vec<WideEntry>)> = self.wide.iter().collect();
        wide.sort_unstable_by_key(|(i, _)| **i);
        let mut lifted = self.p.clone();
        for (&i, entries) in wide {
            if i < with_rows {
                for entry in entries {
                    for &v in &entry.instances {
                        lifted[v as usize] = 1.0;
                    }
                }
                leaf_gain[i] = self.bdd.probability(root, &lifted, &mut values) - total;
                lifted.clone_from(&self.p);
            }
            let leaf = &self.model.leaves[i];
            let mut private: Vec<usize> = leaf.private.iter().flatten().copied().collect();
            private.sort_unstable();
            private.dedup();
            for f in private {
                for (entry, list) in entries.iter().zip(&leaf.private) {
                    if let (Some(v), true) = (entry.folded, list.contains(&f)) {
                        lifted[v as usize] = list
                            .iter()
                            .filter(|&&g| g != f)
                            .map(|&g| self.model.folded[g].up)
                            .product();
                    }
                }
                folded_gain[f] += self.bdd.probability(root, &lifted, &mut values) - total;
                lifted.clone_from(&self.p);
            }
        }
        Joint {
            total,
            failure,
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

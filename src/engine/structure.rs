//! The structure function of one entrypoint, split so that series models
//! stay linear: the components that must all be up (the entrypoint and
//! everything reached through required single-target edges) form the
//! `series` set, and only the alternatives hanging off it (`any_of`,
//! `at_least`) go into a BDD, with the series members fixed to "up".
//!
//! Why that is exact: the entrypoint is up exactly when every series member
//! is healthy and every alternative gate holds, so
//! `P(up) = P(series healthy) × P(gates | series healthy)`, and given the
//! correlated events each component's health is independent of the others.
//!
//! Cycles of required edges take the greatest fixed point: while unfolding
//! the dependencies of a component, a component already on the path counts
//! as up. For a monotone system this gives the greatest fixed point
//! (νx.f(x) = f(true) for one boolean variable, and Bekić's lemma for
//! several). A value that depends on the path is not memoised, so on
//! interlocked cycles (the capacity compilation's alternatives, each
//! needing the other to carry its share) the walk works it out again for
//! every path, exponentially many; a walk that opens components too often
//! starts again with each strongly connected set solved first, by
//! iteration from "all up" (the same function, the same variables).

use std::borrow::Cow;

use super::bdd::{Bdd, MAX_NODES, Ref, TRUE};
use super::fasthash::{FastMap, FastSet};
use crate::model::{ComponentId, EdgeKind, Model};

/// One entrypoint's structure.
pub struct Structure {
    /// Components that must all be healthy (the entrypoint first).
    pub series: Vec<ComponentId>,
    /// The alternatives, as a BDD over `vars` (series members fixed up).
    pub bdd: Bdd,
    /// The root of the alternatives' function; `TRUE` for series models.
    pub root: Ref,
    /// BDD variable `v` is the health of component `vars[v]`.
    pub vars: Vec<ComponentId>,
    /// Gates evaluated apart from the BDD (see [`Module`]): BDD variable
    /// `vars.len() + m` is "module `m` holds".
    pub modules: Vec<Module>,
    /// Whether the BDD grew too large to finish (the figure is then bounded).
    pub truncated: bool,
}

/// A gate over components that nothing else in the entrypoint depends on
/// and that depend on nothing (private leaves): given the correlated
/// events they are independent of every other variable, so "at least `k`
/// of them are up" is one variable whose probability is the
/// Poisson-binomial tail of theirs, computed in `O(n × k)` per state
/// instead of a BDD of `n × k` nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// How many members must be up.
    pub k: usize,
    /// The members.
    pub members: Vec<ComponentId>,
}

impl Structure {
    /// Every component whose health can matter to the entrypoint, in the
    /// order of the event model's leaves: series, BDD variables, module
    /// members.
    pub fn components(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.series
            .iter()
            .chain(&self.vars)
            .chain(self.modules.iter().flat_map(|m| &m.members))
            .copied()
    }
}

/// How the builder orders the dependencies it visits, and so the BDD
/// variables (first visited, first in the order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// As written in the model.
    Written,
    /// The widest dependency first (by the number of components it
    /// reaches), ties by name: a component next to what it depends on,
    /// whatever order the file lists them in.
    WidestFirst,
    /// The narrowest first, ties by name.
    NarrowestFirst,
    /// Each gate's targets ordered so that few of the dependencies they
    /// share are open at once (see [`sharing_order`]): targets that share
    /// a dependency sit next to each other.
    Sharing,
}

/// A BDD this small is kept without trying the other orders.
const SMALL_BDD: usize = 4_096;
/// Most `BDD nodes × states` one entrypoint may cost: a larger BDD is
/// rebuilt in another order, then with modules, then bounded.
pub const MAX_WORK: u64 = 2_000_000_000;
/// Components counted when measuring how much a dependency reaches.
const REACH_CAP: usize = 256;

/// Builds the structure of `entrypoint`.
#[must_use]
pub fn build(model: &Model, entrypoint: ComponentId) -> Structure {
    build_with(model, entrypoint, |_| 1)
}

/// Builds the structure of `entrypoint`; `states` gives how many states of
/// the correlated events the evaluation will visit for a set of
/// components, so the node budget keeps `nodes × states` under
/// [`MAX_WORK`]. Tries the written order first; a BDD over
/// [`SMALL_BDD`] nodes is rebuilt in the structural orders and the
/// smallest kept, so the order of keys and lists in the file changes the
/// cost by a small factor at most.
pub fn build_with(
    model: &Model,
    entrypoint: ComponentId,
    states: impl Fn(&[ComponentId]) -> u64,
) -> Structure {
    let series = series_closure(model, entrypoint);
    let first = attempt(model, &series, Order::Written, SMALL_BDD, false);
    if !first.truncated {
        return first;
    }
    let reach: Vec<ComponentId> = reachable(model, &series);
    let states = states(&reach).max(1);
    let budget = usize::try_from(MAX_WORK / states)
        .unwrap_or(usize::MAX)
        .clamp(SMALL_BDD, MAX_NODES);
    // Small limits first: a hopeless order then costs little, and a gate
    // whose smallest diagram exceeds the limit (at least k of n private
    // leaves needs k × (n − k + 1) nodes in any order) becomes a module
    // before the large limit is tried.
    // Where no gate's targets share a dependency the sharing order is the
    // written one: building it again could only tie.
    let orders: &[Order] = if shares_dependencies(model, &reach) {
        &[
            Order::Written,
            Order::WidestFirst,
            Order::NarrowestFirst,
            Order::Sharing,
        ]
    } else {
        &[Order::Written, Order::WidestFirst, Order::NarrowestFirst]
    };
    for limit in [budget.min(FIRST_LIMIT), budget] {
        let mut best: Option<Structure> = None;
        for &order in orders {
            // A build that needs many times the nodes of the best result
            // so far will not beat it: stop it early.
            let limit = best
                .as_ref()
                .map_or(limit, |b| limit.min(4 * b.bdd.len() + SMALL_BDD));
            let candidate = attempt(model, &series, order, limit, false);
            if !candidate.truncated
                && best
                    .as_ref()
                    .is_none_or(|b| candidate.bdd.len() < b.bdd.len())
            {
                best = Some(candidate);
            }
        }
        if let Some(best) = best {
            return best;
        }
        // Every order exceeds the limit: gates over private leaves become
        // modules, evaluated apart.
        let modular = attempt(model, &series, Order::WidestFirst, limit, true);
        if !modular.truncated || limit == budget {
            // Still too large at the budget: the figure is bounded (see
            // `exact::relaxed`).
            return modular;
        }
    }
    attempt(model, &series, Order::WidestFirst, budget, true)
}

/// The node limit of the first round of orders.
const FIRST_LIMIT: usize = 65_536;

/// How many times, on average, the walk may open each component it
/// numbered (once each without cycles) before the cycles are solved
/// first, beyond [`REWALK_SLACK`] openings: a walk that stays under it is
/// kept as it is (its figures, node for node).
const REWALKS: usize = 16;
const REWALK_SLACK: usize = 4_096;

/// How many gates (`any_of`, `at_least`) the series members of
/// `entrypoint` have: the parts [`build_part`] numbers.
#[must_use]
pub fn gate_count(model: &Model, entrypoint: ComponentId) -> usize {
    series_closure(model, entrypoint)
        .iter()
        .map(|&c| {
            model
                .component(c)
                .depends_on
                .iter()
                .filter(|e| !e.degradable && e.kind != EdgeKind::Target)
                .count()
        })
        .sum()
}

/// The structure of `entrypoint` with only its gates `gates` (numbered in
/// the widest-first order, gates over private leaves as modules), under
/// `limit` nodes: a part of a structure too large to build whole.
#[must_use]
pub fn build_part(
    model: &Model,
    entrypoint: ComponentId,
    gates: std::ops::Range<usize>,
    limit: usize,
) -> Structure {
    let series = series_closure(model, entrypoint);
    attempt_gates(
        model,
        &series,
        Order::WidestFirst,
        limit,
        true,
        Some(&gates),
    )
}

/// One build in `order` under `limit` nodes.
fn attempt(
    model: &Model,
    series: &[ComponentId],
    order: Order,
    limit: usize,
    modules: bool,
) -> Structure {
    attempt_gates(model, series, order, limit, modules, None)
}

/// One build in `order` under `limit` nodes, of the gates numbered in
/// `gates` only (every gate with `None`).
fn attempt_gates(
    model: &Model,
    series: &[ComponentId],
    order: Order,
    limit: usize,
    modules: bool,
    gates: Option<&std::ops::Range<usize>>,
) -> Structure {
    let (structure, cyclic) = build_gates(model, series, (order, limit, modules), gates, false);
    if cyclic {
        // A value on a cycle depends on the path it was reached by and is
        // not memoised, so the walk can take exponential time: past
        // [`REWALKS`] openings per component, every cycle is solved first
        // and the walk starts again.
        build_gates(model, series, (order, limit, modules), gates, true).0
    } else {
        structure
    }
}

/// [`attempt_gates`]' build: with `cycles`, each strongly connected set of
/// components is solved (its greatest fixed point, by iteration) before
/// the walk; without, the walk stops at the first cycle and says so.
fn build_gates(
    model: &Model,
    series: &[ComponentId],
    (order, limit, modules): (Order, usize, bool),
    gates: Option<&std::ops::Range<usize>>,
    cycles: bool,
) -> (Structure, bool) {
    // Sets, not model-sized vectors: a model has many entrypoints, each
    // with a small closure.
    let in_series: FastSet<ComponentId> = series.iter().copied().collect();
    let private = if modules {
        private_leaves(model, series, &in_series)
    } else {
        FastSet::default()
    };
    let mut builder = Builder {
        model,
        in_series,
        bdd: Bdd::with_limit(limit),
        var_of: FastMap::default(),
        vars: Vec::new(),
        memo: FastMap::default(),
        on_path: FastMap::default(),
        truncated: false,
        order,
        reach: FastMap::default(),
        private,
        modules: Vec::new(),
        opened: 0,
        cyclic: false,
        solving: cycles,
    };
    if cycles {
        builder.solve_cycles(series, gates);
    }
    let mut root = TRUE;
    let mut number = 0;
    for &member in series {
        for (k, targets) in builder.edges(member, true) {
            number += 1;
            if gates.is_some_and(|g| !g.contains(&(number - 1))) {
                continue;
            }
            let (gate, _) = builder.gate(k, &targets);
            root = builder.bdd.and(root, gate);
            if builder.bdd.too_large() {
                builder.truncated = true;
            }
            if builder.truncated {
                break;
            }
        }
        if builder.truncated {
            break;
        }
    }
    let root = if builder.truncated {
        TRUE
    } else {
        builder.bdd.retain(root)
    };
    // Module variables are numbered after the component variables.
    let offset = u32::try_from(builder.vars.len()).unwrap_or(u32::MAX);
    let mut bdd = builder.bdd;
    let root = if builder.modules.is_empty() || builder.truncated {
        root
    } else {
        bdd.renumber(root, |v| {
            if v >= MODULE_BASE {
                offset + (v - MODULE_BASE)
            } else {
                v
            }
        })
    };
    let cyclic = builder.cyclic;
    let structure = Structure {
        series: series.to_vec(),
        root,
        vars: builder.vars,
        modules: builder.modules,
        truncated: builder.truncated,
        bdd,
    };
    (structure, cyclic)
}

/// `targets` in an order that keeps few of their shared direct
/// dependencies "open" (a dependency is open once some of the targets
/// using it are placed and others are still to come): a greedy walk that
/// places next the target closing the most open dependencies (it is their
/// last user), then opening the fewest (it is their first), ties by the
/// written order.
///
/// Why this is the order that matters: the gate's diagram is built over
/// the targets in this order, and each target's dependencies become
/// variables right after it (the builder numbers variables as it first
/// visits them, depth first), so a dependency's variable sits with its
/// first user. Below the level of a target, the diagram must tell apart
/// every combination of the count so far and the values of the
/// dependencies still open: about `k × 2^open` nodes per level. `at_least`
/// over members that each need `any_of` two shared providers is the case:
/// members are edges between providers, the graph is close to a union of
/// paths and cycles, and the written order of a scattered pairing leaves
/// half the providers open (17 of 32, 33 of 64), past any budget. The
/// greedy walk follows each path or cycle (the next member is the one
/// that closes the provider the last one opened), starts a new one at a
/// member that opens the fewest (the end of a path), and keeps 2 or 3
/// open. With no shared dependency every target ties, and the order is
/// the written one.
///
/// Linear in the targets and their dependencies, times the logarithm of a
/// heap: a dependency changes a target's score only when its first user
/// is placed (every other user opens one fewer) and when all but one are
/// (the last one closes it), so each dependency costs two passes over its
/// users, however many there are.
fn sharing_order(model: &Model, targets: &[ComponentId]) -> Vec<ComponentId> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    if targets.len() < 3 {
        return targets.to_vec();
    }
    // The direct required dependencies of each target, numbered, and the
    // targets using each (deduplicated: a target's dependencies are
    // pushed together, so a repeat is the last user pushed).
    let mut number: FastMap<ComponentId, usize> = FastMap::default();
    let mut users: Vec<Vec<usize>> = Vec::new();
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); targets.len()];
    for (i, &t) in targets.iter().enumerate() {
        for edge in model
            .component(t)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
        {
            for &d in &edge.targets {
                let next = users.len();
                let d = *number.entry(d).or_insert(next);
                if d == next {
                    users.push(Vec::new());
                }
                if users[d].last() != Some(&i) {
                    users[d].push(i);
                    deps[i].push(d);
                }
            }
        }
    }
    // Only a dependency with two users or more can be open.
    let shared = |d: usize| users[d].len() > 1;
    let mut opens: Vec<usize> = deps
        .iter()
        .map(|ds| ds.iter().filter(|&&d| shared(d)).count())
        .collect();
    let mut closes = vec![0_usize; targets.len()];
    let key =
        |i: usize, closes: &[usize], opens: &[usize]| (closes[i], Reverse(opens[i]), Reverse(i));
    let mut heap: BinaryHeap<(usize, Reverse<usize>, Reverse<usize>)> = (0..targets.len())
        .map(|i| key(i, &closes, &opens))
        .collect();
    let mut placed = vec![false; targets.len()];
    let mut placed_users = vec![0_usize; users.len()];
    let mut order = Vec::with_capacity(targets.len());
    while let Some(top) = heap.pop() {
        let (_, _, Reverse(i)) = top;
        // A stale entry: the target is placed, or its score has changed
        // since (its current entry is elsewhere in the heap).
        if placed[i] || top != key(i, &closes, &opens) {
            continue;
        }
        placed[i] = true;
        order.push(targets[i]);
        for &d in &deps[i] {
            if !shared(d) {
                continue;
            }
            placed_users[d] += 1;
            let first = placed_users[d] == 1;
            let last_left = placed_users[d] + 1 == users[d].len();
            if !(first || last_left) {
                continue;
            }
            for &j in &users[d] {
                if placed[j] {
                    continue;
                }
                if first {
                    opens[j] -= 1;
                }
                if last_left {
                    closes[j] += 1;
                }
                heap.push(key(j, &closes, &opens));
            }
        }
    }
    order
}

/// Whether two targets of one edge of a component of `reach` (three
/// targets or more: [`sharing_order`] keeps two as written) share a
/// direct required dependency; if none do, [`sharing_order`] keeps every
/// edge as written.
fn shares_dependencies(model: &Model, reach: &[ComponentId]) -> bool {
    let required = |c: ComponentId| {
        model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
    };
    let mut user: FastMap<ComponentId, usize> = FastMap::default();
    for &c in reach {
        for edge in required(c).filter(|e| e.targets.len() > 2) {
            user.clear();
            for (i, &t) in edge.targets.iter().enumerate() {
                for &d in required(t).flat_map(|e| &e.targets) {
                    if *user.entry(d).or_insert(i) != i {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// Module variables are numbered from here while building (so they never
/// collide with component variables), then renumbered.
const MODULE_BASE: u32 = 1 << 30;

/// The components that must all be up for `entrypoint` (it and
/// everything reached from it through required single-target edges).
#[must_use]
pub fn series_members(model: &Model, entrypoint: ComponentId) -> Vec<ComponentId> {
    series_closure(model, entrypoint)
}

/// The entrypoint and everything reached from it through required
/// single-target edges, in breadth-first order.
///
/// This walk, [`reachable`] and [`Builder::reach_of`] are hand-written, not
/// petgraph's: they run once per entrypoint (and per dependency) over
/// closures that are small in a large model, so they keep hash sets where
/// a petgraph walker allocates a visit map of the whole graph each time;
/// and the breadth-first order is the order of the BDD's variables.
fn series_closure(model: &Model, entrypoint: ComponentId) -> Vec<ComponentId> {
    let mut seen: FastSet<ComponentId> = std::iter::once(entrypoint).collect();
    let mut order = vec![entrypoint];
    let mut next = 0;
    while let Some(&c) = order.get(next) {
        next += 1;
        for edge in model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !e.degradable && e.kind == EdgeKind::Target)
        {
            for t in &edge.targets {
                if seen.insert(*t) {
                    order.push(*t);
                }
            }
        }
    }
    order
}

/// Every component reached from `series` through required edges, in
/// breadth-first order from them.
pub(crate) fn reachable(model: &Model, series: &[ComponentId]) -> Vec<ComponentId> {
    let mut seen: FastSet<ComponentId> = series.iter().copied().collect();
    let mut order = series.to_vec();
    let mut next = 0;
    while let Some(&c) = order.get(next) {
        next += 1;
        for edge in model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
        {
            for t in &edge.targets {
                if seen.insert(*t) {
                    order.push(*t);
                }
            }
        }
    }
    order
}

/// For every component, whether it reaches (itself included) through
/// required edges a component `end` holds for: one backward walk from the
/// ends, where asking [`reachable`] of each component would walk its whole
/// closure once per component.
pub(crate) fn reaching(model: &Model, end: impl Fn(ComponentId) -> bool) -> Vec<bool> {
    let callers = super::scenario::callers(model);
    let mut reaches: Vec<bool> = model.component_ids().map(&end).collect();
    let mut todo: Vec<ComponentId> = model.component_ids().filter(|c| reaches[c.0]).collect();
    while let Some(c) = todo.pop() {
        for &caller in &callers[c.0] {
            if !std::mem::replace(&mut reaches[caller.0], true) {
                todo.push(caller);
            }
        }
    }
    reaches
}

/// Components outside the series set that depend on nothing and are named
/// by exactly one edge of the entrypoint's closure.
fn private_leaves(
    model: &Model,
    series: &[ComponentId],
    in_series: &FastSet<ComponentId>,
) -> FastSet<ComponentId> {
    let mut uses: FastMap<ComponentId, usize> = FastMap::default();
    for c in reachable(model, series) {
        for edge in model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
        {
            for &t in &edge.targets {
                *uses.entry(t).or_insert(0) += 1;
            }
        }
    }
    uses.into_iter()
        .filter(|&(c, n)| {
            n == 1
                && !in_series.contains(&c)
                && !model.component(c).depends_on.iter().any(|e| !e.degradable)
        })
        .map(|(c, _)| c)
        .collect()
}

/// A required edge as (how many targets must be up, the targets): borrowed
/// from the model in the written order (no copy per edge and entrypoint),
/// owned when sorted.
type Gate<'a> = (usize, Cow<'a, [ComponentId]>);

/// A gate of a component on a cycle: how many must be up, and each target
/// as its place in the set (`Ok`) or its value, known (`Err`).
type Inner = (usize, Vec<Result<usize, Ref>>);

/// A component open in [`Builder::strongly_connected`]'s walk.
struct Open<'e> {
    c: ComponentId,
    edges: Vec<Gate<'e>>,
    edge: usize,
    target: usize,
}

struct Builder<'a> {
    model: &'a Model,
    in_series: FastSet<ComponentId>,
    bdd: Bdd,
    var_of: FastMap<ComponentId, u32>,
    vars: Vec<ComponentId>,
    memo: FastMap<ComponentId, Ref>,
    /// Each component on the path being built and its depth there (the
    /// cycle check is one lookup, not a scan of the path: on a 20,000-long
    /// chain a scan made the build quadratic).
    on_path: FastMap<ComponentId, usize>,
    truncated: bool,
    order: Order,
    /// How many components each one reaches (capped), for the orders.
    reach: FastMap<ComponentId, usize>,
    /// Private leaves (only when building with modules).
    private: FastSet<ComponentId>,
    modules: Vec<Module>,
    /// Components opened by the walk, counting a component walked again.
    opened: usize,
    /// Whether the walk opened components again too often (values on a
    /// cycle depend on the path and are not memoised); it then stops,
    /// unless the cycles were solved first (`solving`).
    cyclic: bool,
    /// Whether every cycle was solved before the walk.
    solving: bool,
}

impl<'a> Builder<'a> {
    /// The required edges of `c` as (k, targets), in the builder's order;
    /// with `gates_only`, single-target edges are left out.
    fn edges(&mut self, c: ComponentId, gates_only: bool) -> Vec<Gate<'a>> {
        let model: &'a Model = self.model;
        let mut edges: Vec<Gate<'a>> = model
            .component(c)
            .depends_on
            .iter()
            .filter(|e| !(e.degradable || gates_only && e.kind == EdgeKind::Target))
            .map(|e| {
                // A single-target edge needs its (one) target: "at least all of them".
                let k = if e.kind == EdgeKind::Target {
                    e.targets.len()
                } else {
                    e.at_least as usize
                };
                (k, Cow::Borrowed(e.targets.as_slice()))
            })
            .collect();
        if self.order == Order::Written {
            return edges;
        }
        if self.order == Order::Sharing {
            for (_, targets) in &mut edges {
                *targets = sharing_order(model, targets).into();
            }
            return edges;
        }
        let widest = self.order == Order::WidestFirst;
        for (_, targets) in &mut edges {
            let mut keyed: Vec<(usize, ComponentId)> =
                targets.iter().map(|&t| (self.reach_of(t), t)).collect();
            keyed.sort_by(|a, b| {
                let by_size = if widest { b.0.cmp(&a.0) } else { a.0.cmp(&b.0) };
                by_size.then_with(|| model.component(a.1).name.cmp(&model.component(b.1).name))
            });
            *targets = keyed.into_iter().map(|(_, t)| t).collect::<Vec<_>>().into();
        }
        let mut keyed: Vec<(usize, Vec<&str>, Gate<'a>)> = edges
            .into_iter()
            .map(|edge| {
                let size = edge.1.iter().map(|&t| self.reach_of(t)).sum::<usize>();
                let names = edge
                    .1
                    .iter()
                    .map(|&t| self.model.component(t).name.as_str())
                    .collect();
                (size, names, edge)
            })
            .collect();
        keyed.sort_by(|a, b| {
            let by_size = if widest { b.0.cmp(&a.0) } else { a.0.cmp(&b.0) };
            by_size
                .then_with(|| a.1.cmp(&b.1))
                .then_with(|| a.2.0.cmp(&b.2.0))
        });
        keyed.into_iter().map(|(_, _, edge)| edge).collect()
    }

    /// How many components `c` reaches through required edges, itself
    /// included, counted up to [`REACH_CAP`].
    fn reach_of(&mut self, c: ComponentId) -> usize {
        if let Some(&n) = self.reach.get(&c) {
            return n;
        }
        let mut seen: FastSet<ComponentId> = std::iter::once(c).collect();
        let mut stack = vec![c];
        while let Some(x) = stack.pop() {
            if seen.len() >= REACH_CAP {
                break;
            }
            for edge in self
                .model
                .component(x)
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
        let n = seen.len().min(REACH_CAP);
        self.reach.insert(c, n);
        n
    }

    /// "At least `k` of `targets` are up"; also returns the lowest stack
    /// depth the result depends on (for memoisation).
    fn gate(&mut self, k: usize, targets: &[ComponentId]) -> (Ref, usize) {
        if let Some(module) = self.module(k, targets) {
            return (module, usize::MAX);
        }
        let mut low = usize::MAX;
        let mut items = Vec::with_capacity(targets.len());
        for &t in targets {
            let (r, l) = self.value(t);
            low = low.min(l);
            items.push(r);
        }
        (self.at_least(k, &items), low)
    }

    /// Whether an edge to `targets` becomes a module: more than one, each
    /// a private leaf.
    fn is_module(&self, targets: &[ComponentId]) -> bool {
        targets.len() > 1 && targets.iter().all(|t| self.private.contains(t))
    }

    /// The variable of a new module when every one of `targets` (more
    /// than one) is a private leaf.
    fn module(&mut self, k: usize, targets: &[ComponentId]) -> Option<Ref> {
        if self.is_module(targets) {
            let index = u32::try_from(self.modules.len()).unwrap_or(u32::MAX);
            self.modules.push(Module {
                k,
                members: targets.to_vec(),
            });
            return Some(self.bdd.var(MODULE_BASE + index));
        }
        None
    }

    /// "At least `k` of `items`", noting a diagram grown too large.
    fn at_least(&mut self, k: usize, items: &[Ref]) -> Ref {
        let r = self.bdd.at_least(k, items);
        if self.bdd.too_large() {
            self.truncated = true;
        }
        r
    }

    /// The function "component `c` is up", with the lowest stack depth it
    /// depends on.
    ///
    /// A depth-first walk down the dependencies, kept on the heap (`open`,
    /// one frame per component being built) rather than on the thread's
    /// stack: a chain of thousands of `any_of` edges would otherwise
    /// overflow a worker thread's stack. The frames do the work of the
    /// recursion "value → gate → value" in its order, so the diagram, its
    /// node numbering and every figure are the same.
    fn value(&mut self, c: ComponentId) -> (Ref, usize) {
        let mut open: Vec<Frame<'a>> = Vec::new();
        match self.enter(c) {
            Entered::Known(r, l) => return (r, l),
            Entered::Opened(frame) => open.push(frame),
        }
        loop {
            let Some(frame) = open.last_mut() else {
                unreachable!("the walk returns when its last frame closes")
            };
            // The gate being built: open its next target.
            if let Some(gate) = &mut frame.gate {
                if let Some(&t) = gate.targets.get(gate.next) {
                    gate.next += 1;
                    match self.enter(t) {
                        Entered::Known(r, l) => {
                            gate.low = gate.low.min(l);
                            gate.items.push(r);
                        }
                        Entered::Opened(child) => open.push(child),
                    }
                    continue;
                }
                let gate = frame.gate.take().unwrap_or_default();
                let r = self.at_least(gate.k, &gate.items);
                frame.low = frame.low.min(gate.low);
                self.conjoin(frame, r);
                continue;
            }
            // The next required edge of the component.
            if let Some((k, targets)) = frame.edges.get_mut(frame.next).map(std::mem::take) {
                frame.next += 1;
                if let Some(module) = self.module(k, &targets) {
                    self.conjoin(frame, module);
                } else {
                    frame.gate = Some(GateFrame {
                        k,
                        items: Vec::with_capacity(targets.len()),
                        targets,
                        next: 0,
                        low: usize::MAX,
                    });
                }
                continue;
            }
            // Every edge done: close the component.
            let Some(done) = open.pop() else {
                unreachable!("a frame was just inspected")
            };
            self.on_path.remove(&done.c);
            if done.low >= done.depth {
                self.memo.insert(done.c, done.result);
            }
            let Some(parent) = open.last_mut() else {
                return (done.result, done.low);
            };
            if let Some(gate) = &mut parent.gate {
                gate.low = gate.low.min(done.low);
                gate.items.push(done.result);
            }
        }
    }

    /// `frame.result ∧ gate`; a diagram grown too large ends the frame's
    /// edges (and, through `truncated`, the whole build).
    fn conjoin(&mut self, frame: &mut Frame<'a>, gate: Ref) {
        frame.result = self.bdd.and(frame.result, gate);
        if self.bdd.too_large() {
            self.truncated = true;
            frame.next = frame.edges.len();
        }
    }

    /// Numbers every component the walk will reach, in the order the walk
    /// first reaches it (so the diagram's variable order is the walk's),
    /// finds the strongly connected sets among them (Tarjan's algorithm,
    /// iterative), and memoises the value of every component in a cycle:
    /// each set, once every set it reaches is done, is iterated from "all
    /// up" until no value changes. The values only fall from round to
    /// round, so the limit is the greatest fixed point, which is what the
    /// walk's "on the path counts as up" computes for one path; here each
    /// value is worked out once, where the walk would work it out again
    /// for every path that reaches it.
    fn solve_cycles(&mut self, series: &[ComponentId], gates: Option<&std::ops::Range<usize>>) {
        // The gates' targets the walk starts from, in its order.
        let mut starts = Vec::new();
        let mut number = 0;
        for &member in series {
            for (_, targets) in self.edges(member, true) {
                number += 1;
                if gates.is_some_and(|g| !g.contains(&(number - 1))) || self.is_module(&targets) {
                    continue;
                }
                starts.extend(targets.iter().copied());
            }
        }
        let sets = self.strongly_connected(starts);
        // Tarjan's order closes a set after every set it reaches.
        for mut set in sets {
            set.sort_by_key(|c| self.var_of[c]);
            self.solve_set(&set);
            if self.truncated {
                return;
            }
        }
    }

    /// The sets of components on a cycle among those reached from
    /// `starts`, each closed after every set it reaches (Tarjan's order);
    /// numbers each component reached in the walk's order.
    fn strongly_connected(&mut self, starts: Vec<ComponentId>) -> Vec<Vec<ComponentId>> {
        let mut index: FastMap<ComponentId, (usize, usize)> = FastMap::default();
        let mut stack: Vec<ComponentId> = Vec::new();
        let mut on_stack: FastSet<ComponentId> = FastSet::default();
        let mut sets: Vec<Vec<ComponentId>> = Vec::new();
        for start in starts {
            if self.in_series.contains(&start) || index.contains_key(&start) {
                continue;
            }
            let mut open: Vec<Open<'a>> = Vec::new();
            let mut next = Some(start);
            loop {
                if let Some(c) = next.take() {
                    self.number(c);
                    let at = index.len();
                    index.insert(c, (at, at));
                    stack.push(c);
                    on_stack.insert(c);
                    let edges = self.edges(c, false);
                    open.push(Open {
                        c,
                        edges,
                        edge: 0,
                        target: 0,
                    });
                }
                let Some(top) = open.last_mut() else { break };
                let c = top.c;
                // The next target of the top frame.
                let mut found = None;
                while let Some((_, targets)) = top.edges.get(top.edge) {
                    if top.target == 0 && self.is_module(targets) {
                        top.edge += 1;
                        continue;
                    }
                    if let Some(&t) = targets.get(top.target) {
                        top.target += 1;
                        found = Some(t);
                        break;
                    }
                    top.edge += 1;
                    top.target = 0;
                }
                if let Some(t) = found {
                    if self.in_series.contains(&t) {
                        continue;
                    }
                    match index.get(&t) {
                        None => next = Some(t),
                        Some(&(at, _)) => {
                            if on_stack.contains(&t) {
                                let entry = index.get_mut(&c).expect("indexed when opened");
                                entry.1 = entry.1.min(at);
                            }
                        }
                    }
                    continue;
                }
                // Every target done: close `c`.
                let done = open.pop().expect("the top frame");
                let (at, low) = index[&c];
                if low == at {
                    let mut set = Vec::new();
                    while let Some(x) = stack.pop() {
                        on_stack.remove(&x);
                        set.push(x);
                        if x == c {
                            break;
                        }
                    }
                    let looped =
                        set.len() > 1 || done.edges.iter().any(|(_, targets)| targets.contains(&c));
                    if looped {
                        sets.push(set);
                    }
                }
                if let Some(parent) = open.last() {
                    let p = parent.c;
                    let entry = index.get_mut(&p).expect("indexed when opened");
                    entry.1 = entry.1.min(low);
                }
            }
        }
        sets
    }

    /// Memoises the greatest fixed point of one strongly connected set,
    /// every set it reaches being memoised already.
    fn solve_set(&mut self, set: &[ComponentId]) {
        let position: FastMap<ComponentId, usize> =
            set.iter().enumerate().map(|(i, &c)| (c, i)).collect();
        // Per member: its variable and the gates that leave the set (one
        // conjunction), and the gates that reach into it.
        let mut fixed = Vec::with_capacity(set.len());
        let mut inner: Vec<Vec<Inner>> = Vec::with_capacity(set.len());
        for &c in set {
            let mut conj = self.bdd.var(self.var_of[&c]);
            let mut reaching = Vec::new();
            for (k, targets) in self.edges(c, false) {
                if let Some(module) = self.module(k, &targets) {
                    conj = self.bdd.and(conj, module);
                    continue;
                }
                let mut items = Vec::with_capacity(targets.len());
                for &t in targets.iter() {
                    if self.in_series.contains(&t) {
                        items.push(Err(TRUE));
                    } else if let Some(&i) = position.get(&t) {
                        items.push(Ok(i));
                    } else {
                        items.push(Err(self.value(t).0));
                    }
                }
                if items.iter().all(Result::is_err) {
                    let refs: Vec<Ref> = items.into_iter().filter_map(Result::err).collect();
                    let gate = self.at_least(k, &refs);
                    conj = self.bdd.and(conj, gate);
                } else {
                    reaching.push((k, items));
                }
                if self.bdd.too_large() {
                    self.truncated = true;
                }
                if self.truncated {
                    return;
                }
            }
            fixed.push(conj);
            inner.push(reaching);
        }
        let mut value = vec![TRUE; set.len()];
        let mut refs = Vec::new();
        loop {
            let mut changed = false;
            for i in 0..set.len() {
                let mut r = fixed[i];
                for (k, items) in &inner[i] {
                    refs.clear();
                    refs.extend(items.iter().map(|item| match item {
                        Ok(j) => value[*j],
                        Err(r) => *r,
                    }));
                    let gate = self.at_least(*k, &refs);
                    r = self.bdd.and(r, gate);
                }
                if self.bdd.too_large() {
                    self.truncated = true;
                }
                if self.truncated {
                    return;
                }
                if r != value[i] {
                    value[i] = r;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for (&c, r) in set.iter().zip(value) {
            self.memo.insert(c, r);
        }
    }

    /// The variable of `c`, numbered next when it has none yet.
    fn number(&mut self, c: ComponentId) -> u32 {
        let next = u32::try_from(self.vars.len()).unwrap_or(u32::MAX);
        let var = *self.var_of.entry(c).or_insert(next);
        if var == next {
            self.vars.push(c);
        }
        var
    }

    /// The start of "component `c` is up": known at once (in the series
    /// set, on the path, memoised) or a new frame with `c` on the path.
    fn enter(&mut self, c: ComponentId) -> Entered<'a> {
        if self.in_series.contains(&c) || self.truncated {
            return Entered::Known(TRUE, usize::MAX);
        }
        if let Some(&depth) = self.on_path.get(&c) {
            return Entered::Known(TRUE, depth); // greatest fixed point: on the path counts as up
        }
        if let Some(&r) = self.memo.get(&c) {
            return Entered::Known(r, usize::MAX);
        }
        let var = self.number(c);
        self.opened += 1;
        if !self.solving && self.opened > REWALKS * self.vars.len() + REWALK_SLACK {
            // Values on cycles walked again for every path that reaches
            // them: start again with the cycles solved first.
            self.cyclic = true;
            self.truncated = true;
        }
        let depth = self.on_path.len();
        self.on_path.insert(c, depth);
        let result = self.bdd.var(var);
        Entered::Opened(Frame {
            c,
            depth,
            result,
            low: usize::MAX,
            edges: self.edges(c, false),
            next: 0,
            gate: None,
        })
    }
}

/// What [`Builder::enter`] found.
enum Entered<'a> {
    /// The value and the lowest stack depth it depends on.
    Known(Ref, usize),
    /// A component to build.
    Opened(Frame<'a>),
}

/// A component being built by [`Builder::value`].
struct Frame<'a> {
    c: ComponentId,
    /// Its position on the path.
    depth: usize,
    /// Its variable and the gates done so far.
    result: Ref,
    /// The lowest path depth the gates done so far depend on.
    low: usize,
    edges: Vec<Gate<'a>>,
    /// The next edge to build.
    next: usize,
    /// The edge being built.
    gate: Option<GateFrame<'a>>,
}

/// An edge being built: the values of its first `next` targets.
#[derive(Default)]
struct GateFrame<'a> {
    k: usize,
    targets: Cow<'a, [ComponentId]>,
    next: usize,
    items: Vec<Ref>,
    low: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model of `n` components with cycles: each needs `any_of` two
    /// others (some an `at_least: 2 of 3`), the first one the entrypoint.
    fn cyclic_model(seed: u64, n: usize) -> Model {
        use std::fmt::Write as _;
        // A 64-bit linear congruential stream (Knuth's MMIX constants).
        let mut state = seed.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        let mut text = String::from("system: s\nentrypoints: [c0]\ncomponents:\n");
        for i in 0..n {
            let mut pick = || loop {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let t = usize::try_from(state >> 33).unwrap_or(0) % n;
                if t != i {
                    break t;
                }
            };
            let (a, b, c) = (pick(), pick(), pick());
            let edge = if a == b || b == c || a == c {
                format!("{{any_of: [c{a}, c{}]}}", if a == b { c } else { b })
            } else if (a + b + c) % 3 == 0 {
                format!("{{at_least: 2, of: [c{a}, c{b}, c{c}]}}")
            } else {
                format!("{{any_of: [c{a}, c{b}]}}")
            };
            let edge = if a == b && b == c {
                format!("c{a}")
            } else {
                edge
            };
            let _ = writeln!(
                text,
                "  c{i}: {{instances: 2, availability: 9{}%, depends_on: [{edge}]}}",
                i % 10
            );
        }
        crate::model::parse(&text).unwrap()
    }

    #[test]
    fn solving_the_cycles_first_gives_the_walks_diagram() {
        // The walk computes each value on a cycle by "on the path counts
        // as up"; solving each strongly connected set by iteration from
        // "all up" must give the same function over the same variables,
        // hence the same retained diagram and the same probability to the
        // last bit.
        let mut cyclic = 0;
        for seed in 0..300_usize {
            let m = cyclic_model(seed as u64, 4 + seed % 7);
            let series = series_closure(&m, ComponentId(0));
            for order in [Order::Written, Order::WidestFirst, Order::Sharing] {
                let walked = build_gates(&m, &series, (order, 1 << 20, false), None, false).0;
                let solved = build_gates(&m, &series, (order, 1 << 20, false), None, true).0;
                assert!(!walked.truncated && !solved.truncated, "seed {seed}");
                assert_eq!(
                    walked.vars, solved.vars,
                    "seed {seed}: the walk's variable order"
                );
                assert_eq!(walked.bdd.len(), solved.bdd.len(), "seed {seed}");
                let p: Vec<f64> = (0..walked.vars.len())
                    .map(|v| 0.5 + 0.04 * (v % 10) as f64)
                    .collect();
                let mut scratch = Vec::new();
                assert_eq!(
                    walked
                        .bdd
                        .probability(walked.root, &p, &mut scratch)
                        .to_bits(),
                    solved
                        .bdd
                        .probability(solved.root, &p, &mut scratch)
                        .to_bits(),
                    "seed {seed} {order:?}"
                );
            }
            cyclic += usize::from(m.component_ids().any(|c| {
                m.component(c)
                    .depends_on
                    .iter()
                    .flat_map(|e| &e.targets)
                    .any(|&d| reachable(&m, &[d]).contains(&c))
            }));
        }
        // Most of the models have a cycle: the test is about them.
        assert!(cyclic > 250, "{cyclic} of 300 with a cycle");
    }

    #[test]
    fn series_models_need_no_bdd() {
        let m = crate::model::parse(
            r"system: s
components:
  a: {depends_on: [b, c]}
  b: {depends_on: [c]}
  c: {}
",
        )
        .unwrap();
        let s = build(&m, ComponentId(0));
        assert_eq!(s.series, [ComponentId(0), ComponentId(1), ComponentId(2)]);
        assert!(s.vars.is_empty());
        assert_eq!(s.root, TRUE);
    }

    #[test]
    fn alternatives_become_variables() {
        let m = crate::model::parse(
            r"system: s
components:
  a: {depends_on: [{any_of: [x, y]}]}
  x: {depends_on: [db]}
  y: {depends_on: [db]}
  db: {}
",
        )
        .unwrap();
        let s = build(&m, ComponentId(0));
        assert_eq!(s.series, [ComponentId(0)]);
        // x, db (under x), y: db is shared and appears once.
        assert_eq!(s.vars, [ComponentId(1), ComponentId(3), ComponentId(2)]);
    }

    /// The names of `sharing_order` over the targets of the first edge
    /// of the first component, and whether the model's targets share a
    /// dependency anywhere.
    fn sharing(text: &str) -> (Vec<String>, bool) {
        let m = crate::model::parse(text).unwrap();
        let order = sharing_order(&m, &m.components[0].depends_on[0].targets);
        let all: Vec<ComponentId> = m.component_ids().collect();
        (
            order.iter().map(|&c| m.component(c).name.clone()).collect(),
            shares_dependencies(&m, &all),
        )
    }

    #[test]
    fn targets_sharing_nothing_keep_the_written_order() {
        let order = sharing(
            r"system: s
components:
  e: {depends_on: [{at_least: 2, of: [c, a, b]}]}
  c: {depends_on: [z]}
  a: {depends_on: [y]}
  b: {}
  y: {}
  z: {}
",
        );
        assert_eq!(order, (vec!["c".into(), "a".into(), "b".into()], false));
    }

    #[test]
    fn targets_sharing_providers_are_walked_along_them() {
        // Members are edges between providers: m0 p0–p1, m1 p2–p3,
        // m2 p1–p2, m3 p3–p0, a cycle p0 p1 p2 p3 written out of order, so
        // the written order keeps all four providers open after m1. m0
        // opens two (ties: written first); m2 closes p1 and opens p2; m1
        // closes p2; m3 closes p3 and p0: never more than two open.
        let order = sharing(
            r"system: s
components:
  e: {depends_on: [{at_least: 2, of: [m0, m1, m2, m3]}]}
  m0: {depends_on: [{any_of: [p0, p1]}]}
  m1: {depends_on: [{any_of: [p2, p3]}]}
  m2: {depends_on: [{any_of: [p1, p2]}]}
  m3: {depends_on: [{any_of: [p3, p0]}]}
  p0: {}
  p1: {}
  p2: {}
  p3: {}
",
        );
        assert_eq!(order.0, ["m0", "m2", "m1", "m3"]);
        assert!(order.1);
    }

    #[test]
    fn sixty_four_scattered_members_keep_at_most_three_providers_open() {
        // Issue 29 item 2's largest shape: in the written order 33 of the
        // 64 providers are open at once, past any node budget.
        use crate::generate::{Pairing, shared_providers};
        let m = crate::model::parse(&shared_providers(32, 64, 64, 0, Pairing::Scattered)).unwrap();
        let most_open = |members: &[ComponentId]| {
            let mut left: FastMap<ComponentId, usize> = FastMap::default();
            for &c in members {
                for &p in &m.component(c).depends_on[0].targets {
                    *left.entry(p).or_insert(0) += 1;
                }
            }
            let mut open: FastSet<ComponentId> = FastSet::default();
            let mut most = 0;
            for &c in members {
                for &p in &m.component(c).depends_on[0].targets {
                    let n = left.get_mut(&p).unwrap();
                    *n -= 1;
                    if *n == 0 {
                        open.remove(&p);
                    } else {
                        open.insert(p);
                    }
                }
                most = most.max(open.len());
            }
            most
        };
        let written = &m.components[0].depends_on[0].targets;
        assert_eq!(most_open(written), 33);
        assert_eq!(most_open(&sharing_order(&m, written)), 3);
    }

    #[test]
    fn a_path_is_walked_from_its_end() {
        // m0 p1–p2, m1 p0–p1, m2 p2–p3: a path p0 p1 p2 p3 with m1 at its
        // end (p0 has no other member), which opens only p1: it comes
        // first, then m0 and m2 along the path.
        let order = sharing(
            r"system: s
components:
  e: {depends_on: [{at_least: 2, of: [m0, m1, m2]}]}
  m0: {depends_on: [{any_of: [p1, p2]}]}
  m1: {depends_on: [{any_of: [p0, p1]}]}
  m2: {depends_on: [{any_of: [p2, p3]}]}
  p0: {}
  p1: {}
  p2: {}
  p3: {}
",
        );
        assert_eq!(order.0, ["m1", "m0", "m2"]);
        assert!(order.1);
    }
}

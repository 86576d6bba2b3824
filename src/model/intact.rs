//! The intact loads: what reaches each component when nothing is lost.
//! Validation derives the `load` of a `capacity` written without one from
//! them; the engine's load flow ([`crate::engine::state`]) starts from them.
//!
//! An edge carries `caller load × calls × (1 − hit_rate)`, split evenly over
//! the targets of an `any_of` or `at_least` edge (over its first `at_least`
//! targets when the rest are standbys); a consumer's pull from a queue
//! carries nothing, and a component that sheds or has a `rate_limit` passes
//! on only what it serves. A component's intact load
//! is its written `load`, or, when none is written, the sum of what its
//! callers send it (unknown when no caller has a known load). Cycles are
//! cut: components are taken in the graph's dependency order
//! ([`ComponentGraph::dependency_order`]), and an edge that leads back to a
//! component ordered before (or at) its caller is left out of the sum.

use petgraph::visit::EdgeRef;

use super::graph::ComponentGraph;
use super::{Component, ComponentId, Edge, EdgeKind, Model};

/// The dependency order, with the edges into each component: what load
/// flow needs to visit every component after its callers.
#[derive(Debug, Clone)]
pub struct DependencyOrder {
    /// Components in dependency order (callers first).
    pub order: Vec<ComponentId>,
    /// Position of each component in `order`.
    rank: Vec<usize>,
    /// For each component, the (caller, edge index) of the edges into it,
    /// in model order.
    pub inbound: Vec<Vec<(ComponentId, usize)>>,
}

impl DependencyOrder {
    /// The order of `graph` and the edges into each component.
    #[must_use]
    pub fn new(graph: &ComponentGraph) -> Self {
        let order = graph.dependency_order();
        let mut rank = vec![0; order.len()];
        for (at, id) in order.iter().enumerate() {
            rank[id.0] = at;
        }
        let g = graph.graph();
        let mut inbound = vec![Vec::new(); order.len()];
        // Edge indices follow model order (caller, edge, target).
        for call in g.edge_references() {
            inbound[call.target().index()].push((g[call.source()], call.weight().edge));
        }
        Self {
            order,
            rank,
            inbound,
        }
    }

    /// Whether the edge from `caller` into `target` closes a cycle (and so
    /// carries its intact flow in every scenario).
    #[must_use]
    pub fn is_cut(&self, caller: ComponentId, target: ComponentId) -> bool {
        self.rank[target.0] <= self.rank[caller.0]
    }
}

/// The intact load of every component (`None`: nothing says).
#[must_use]
pub fn loads(model: &Model, order: &DependencyOrder) -> Vec<Option<f64>> {
    let mut load: Vec<Option<f64>> = vec![None; model.components.len()];
    for &id in &order.order {
        let c = model.component(id);
        load[id.0] = match c.capacity {
            Some(cap) if !cap.derived => Some(cap.load),
            _ => inflow(model, order, id, &load),
        };
    }
    load
}

/// What reaches `id` from its callers when they carry `load` (`None`: no
/// caller's load is known); edges that close a cycle are left out.
fn inflow(
    model: &Model,
    order: &DependencyOrder,
    id: ComponentId,
    load: &[Option<f64>],
) -> Option<f64> {
    let mut sum = None;
    for &(caller, e) in &order.inbound[id.0] {
        if order.is_cut(caller, id) {
            continue;
        }
        let from = model.component(caller);
        let edge = &from.depends_on[e];
        if let Some(l) = load[caller.0] {
            let share = intact_share(model, edge, id);
            let l = passed(from, from.instances, l);
            *sum.get_or_insert(0.0) += carried(l, edge, edge.hit_rate) * share;
        }
    }
    sum
}

/// The intact loads of `changed`, a copy of `model` whose edges or
/// capacities were changed (the same components and edges), read as the
/// load flow reads a scenario: a written load moves by the change of what
/// reaches it, never below 0; a derived one is what reaches it.
#[must_use]
pub fn loads_changed(model: &Model, changed: &Model, order: &DependencyOrder) -> Vec<Option<f64>> {
    loads_changed_past_zero(model, changed, order).0
}

/// [`loads_changed`], and whether some written load would have moved
/// below 0 (held at 0, it no longer tells what a later change does: the
/// load flow moves the written load of a scenario from what was written).
#[must_use]
pub fn loads_changed_past_zero(
    model: &Model,
    changed: &Model,
    order: &DependencyOrder,
) -> (Vec<Option<f64>>, bool) {
    let before = loads(model, order);
    let mut load: Vec<Option<f64>> = vec![None; changed.components.len()];
    let mut past_zero = false;
    for &id in &order.order {
        load[id.0] = match changed.component(id).capacity {
            Some(cap) if !cap.derived => Some(
                match (
                    inflow(model, order, id, &before),
                    inflow(changed, order, id, &load),
                ) {
                    (Some(was), Some(now)) => {
                        let moved = cap.load + now - was;
                        past_zero |= moved < -1e-9 * cap.load.abs().max(1.0);
                        moved.max(0.0)
                    }
                    _ => cap.load,
                },
            ),
            _ => inflow(changed, order, id, &load),
        };
    }
    (load, past_zero)
}

/// `changed` (a copy of `model` whose edges, instances or capacities
/// changed) with each written load moved by the change of what reaches
/// it, as the load flow moves it in a scenario ([`loads_changed`]):
/// otherwise a written load stays as written whatever its callers stop
/// sending. Also whether one would have moved below 0 (held at 0).
#[must_use]
pub fn with_loads_moved(model: &Model, mut changed: Model) -> (Model, bool) {
    // Only the order of the calls is needed, not a whole flow.
    let order = DependencyOrder::new(&crate::model::graph::ComponentGraph::new(model));
    let (loads, past_zero) = loads_changed_past_zero(model, &changed, &order);
    for (c, load) in changed.components.iter_mut().zip(loads) {
        if let (Some(cap), Some(load)) = (&mut c.capacity, load)
            && !cap.derived
        {
            cap.load = load;
        }
    }
    (changed, past_zero)
}

/// The share of an edge's flow that reaches `target` in the intact state:
/// all of it for a `target` edge; for `any_of`/`at_least`, an even split
/// over every target, or over the first `at_least` when the edge has
/// standbys ([`Model::switchover`]), which carry nothing.
#[must_use]
pub fn intact_share(model: &Model, edge: &Edge, target: ComponentId) -> f64 {
    match edge.kind {
        EdgeKind::Target => 1.0,
        #[allow(
            clippy::cast_precision_loss,
            reason = "a handful of targets, exact in f64"
        )]
        EdgeKind::AnyOf | EdgeKind::AtLeast => {
            if model.switchover(edge).is_some() {
                let active = (edge.at_least as usize).clamp(1, edge.targets.len());
                if edge.targets[..active].contains(&target) {
                    1.0 / active as f64
                } else {
                    0.0
                }
            } else {
                1.0 / edge.targets.len() as f64
            }
        }
    }
}

/// What a component offered `load` passes on to its dependencies with
/// `running` instances: all of it, except that a component with
/// `load_shedding` passes at most what its running instances carry, and a
/// `rate_limit` caps it whatever the instances.
#[must_use]
pub fn passed(component: &Component, running: u32, load: f64) -> f64 {
    let mut out = load;
    if component.load_shedding
        && let Some(cap) = component.capacity
    {
        out = out.min(f64::from(running) * cap.per_instance);
    }
    if let Some(limit) = component.rate_limit {
        out = out.min(limit);
    }
    out
}

/// `caller load × calls × (1 − hit rate)`; nothing for a consumer's pull.
#[must_use]
pub fn carried(caller_load: f64, edge: &Edge, hit_rate: Option<f64>) -> f64 {
    if edge.pull {
        return 0.0;
    }
    caller_load * edge.calls * (1.0 - hit_rate.unwrap_or(0.0))
}

/// Per component, whether it is a mover: whether it is ok moves load (a
/// cache, an alternative of an edge with more than one target, or on a
/// `failover_to` chain). The capacity tables are kept over the movers,
/// and the load flow's routing reads `ok` of nothing else.
#[must_use]
pub fn movers(model: &Model) -> Vec<bool> {
    let mut mover = vec![false; model.components.len()];
    for (id, c) in model.components.iter().enumerate() {
        if let Some(to) = c.failover_to {
            mover[id] = true;
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
    mover
}

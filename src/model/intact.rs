//! The intact loads: what reaches each component when nothing is lost.
//! Validation derives the `load` of a `capacity` written without one from
//! them; the engine's load flow ([`crate::engine::state`]) starts from them.
//!
//! An edge carries `caller load × calls × (1 − hit_rate)`, split evenly over
//! the targets of an `any_of` or `at_least` edge. A component's intact load
//! is its written `load`, or, when none is written, the sum of what its
//! callers send it (unknown when no caller has a known load). Cycles are
//! cut: components are taken in the graph's dependency order
//! ([`ComponentGraph::dependency_order`]), and an edge that leads back to a
//! component ordered before (or at) its caller is left out of the sum.

use petgraph::visit::EdgeRef;

use super::graph::ComponentGraph;
use super::{ComponentId, Edge, EdgeKind, Model};

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
            _ => {
                let mut sum = None;
                for &(caller, e) in &order.inbound[id.0] {
                    if order.is_cut(caller, id) {
                        continue;
                    }
                    let edge = &model.component(caller).depends_on[e];
                    if let Some(l) = load[caller.0] {
                        let share = intact_share(edge);
                        *sum.get_or_insert(0.0) += carried(l, edge, edge.hit_rate) * share;
                    }
                }
                sum
            }
        };
    }
    load
}

/// The share of an edge's flow that reaches each target in the intact state.
#[must_use]
pub fn intact_share(edge: &Edge) -> f64 {
    match edge.kind {
        EdgeKind::Target => 1.0,
        #[allow(
            clippy::cast_precision_loss,
            reason = "a handful of targets, exact in f64"
        )]
        EdgeKind::AnyOf | EdgeKind::AtLeast => 1.0 / edge.targets.len() as f64,
    }
}

/// `caller load × calls × (1 − hit rate)`.
#[must_use]
pub fn carried(caller_load: f64, edge: &Edge, hit_rate: Option<f64>) -> f64 {
    caller_load * edge.calls * (1.0 - hit_rate.unwrap_or(0.0))
}

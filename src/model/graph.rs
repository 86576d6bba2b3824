//! The component graph: one node per component (node `i` is component `i`),
//! one edge per call (from a caller to each target of each of its edges, in
//! model order), as a petgraph graph. It is a view of the validated model,
//! so it lives with it: validation reads the dependency order from it to
//! derive loads, the engine builds it once per model ([`crate::engine::state::Flow`])
//! and takes the start waves from it.
//!
//! The graph algorithms are petgraph's, which are iterative: a chain of any
//! length needs no stack. The walks that stay hand-written follow a rule of
//! their own, and say so where they are: the fixed point of what is up
//! (`engine/scenario.rs`, a worklist over `any_of`/`at_least`
//! conditions), the structure function's unfolding
//! (`engine/structure.rs`, a greatest fixed point over the path) and the
//! per-entrypoint closures it walks with hash sets (many small walks: a
//! petgraph walker allocates a visit map of the whole graph for each), the
//! fault-tree unfolding of the MEF export, the call-path walk with its
//! retry priorities and budget (`analyze/call_paths.rs`), the shortest
//! cycle shown in a finding (`engine/start_order.rs`), the domain tree, and
//! the diagram layout.

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Dfs, DfsPostOrder, EdgeFiltered, VisitMap};

use super::{ComponentId, Edge, Model};

/// What an edge of the graph is: which edge of the caller it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// The index of the edge in the caller's `depends_on`.
    pub edge: usize,
    /// Whether that edge is degradable (the caller works without it).
    pub degradable: bool,
}

/// The component graph of one model.
#[derive(Debug, Clone)]
pub struct ComponentGraph {
    graph: DiGraph<ComponentId, Call>,
}

/// The node of a component.
#[must_use]
pub fn node(id: ComponentId) -> NodeIndex {
    NodeIndex::new(id.0)
}

/// Every call (caller, target, edge) of the model, in model order: an
/// `any_of` or `at_least` edge gives one call per target.
pub fn calls(model: &Model) -> impl Iterator<Item = (ComponentId, ComponentId, &Edge)> {
    model.component_ids().flat_map(move |caller| {
        model
            .component(caller)
            .depends_on
            .iter()
            .flat_map(move |edge| edge.targets.iter().map(move |&t| (caller, t, edge)))
    })
}

impl ComponentGraph {
    /// The graph of `model`'s calls.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let mut graph = DiGraph::with_capacity(model.components.len(), 0);
        for id in model.component_ids() {
            graph.add_node(id);
        }
        for caller in model.component_ids() {
            for (e, edge) in model.component(caller).depends_on.iter().enumerate() {
                for &target in &edge.targets {
                    let call = Call {
                        edge: e,
                        degradable: edge.degradable,
                    };
                    graph.add_edge(node(caller), node(target), call);
                }
            }
        }
        Self { graph }
    }

    /// The petgraph graph: node weights are the components, edge weights
    /// the calls; edges are indexed in model order.
    #[must_use]
    pub fn graph(&self) -> &DiGraph<ComponentId, Call> {
        &self.graph
    }

    /// The same nodes with the required edges only (degradable ones
    /// dropped).
    #[must_use]
    pub fn required(&self) -> DiGraph<ComponentId, Call> {
        self.graph.filter_map(
            |_, &c| Some(c),
            |_, &call| (!call.degradable).then_some(call),
        )
    }

    /// Components ordered depth-first so that callers come before what they
    /// call: the reverse post-order of a depth-first search started from
    /// each component not yet visited, in model order, that follows each
    /// component's calls in model order.
    #[must_use]
    pub fn dependency_order(&self) -> Vec<ComponentId> {
        // petgraph lists a node's neighbours last added first and its
        // post-order walk stacks them, so the first call is walked first.
        let mut dfs = DfsPostOrder::empty(&self.graph);
        let mut post = Vec::with_capacity(self.graph.node_count());
        for start in self.graph.node_indices() {
            if dfs.discovered.is_visited(&start) {
                continue;
            }
            dfs.move_to(start);
            while let Some(done) = dfs.next(&self.graph) {
                post.push(self.graph[done]);
            }
        }
        post.reverse();
        post
    }

    /// Whether each component is reached from one of `starts` through
    /// required edges (`any_of` and `at_least` alike), the starts included.
    #[must_use]
    pub fn required_closure(&self, starts: &[ComponentId]) -> Vec<bool> {
        let required = EdgeFiltered::from_fn(&self.graph, |e| !e.weight().degradable);
        let mut dfs = Dfs::empty(&required);
        for &start in starts {
            dfs.move_to(node(start));
            while dfs.next(&required).is_some() {}
        }
        self.graph
            .node_indices()
            .map(|n| dfs.discovered.is_visited(&n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    fn model(text: &str) -> Model {
        crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"))
    }

    fn names(m: &Model, ids: &[ComponentId]) -> Vec<String> {
        ids.iter().map(|&c| m.component(c).name.clone()).collect()
    }

    #[test]
    fn the_dependency_order_puts_callers_first_walking_calls_in_model_order() {
        // From lb: api (first call), whose calls db then cache finish first,
        // then web; worker is not reached from lb and starts its own walk.
        // Post-order: db, cache, api, web, lb, worker; reversed below.
        let m = model(
            r"system: s
components:
  lb: {depends_on: [api, web]}
  api: {depends_on: [db, {target: cache, degradable: true}]}
  web: {depends_on: [api]}
  db: {}
  cache: {}
  worker: {depends_on: [db]}
",
        );
        let order = ComponentGraph::new(&m).dependency_order();
        assert_eq!(
            names(&m, &order),
            ["worker", "lb", "web", "api", "cache", "db"]
        );
    }

    #[test]
    fn the_required_closure_skips_degradable_edges() {
        let m = model(
            r"system: s
components:
  web: {depends_on: [{any_of: [a, b]}, {target: c, degradable: true}]}
  a: {}
  b: {}
  c: {depends_on: [a]}
",
        );
        let graph = ComponentGraph::new(&m);
        assert_eq!(
            graph.required_closure(&m.entrypoints),
            [true, true, true, false]
        );
        // From c: itself and a.
        assert_eq!(
            graph.required_closure(&[ComponentId(3)]),
            [false, true, false, true]
        );
    }

    #[test]
    fn a_5000_long_chain_needs_no_recursion() {
        let mut text = String::from("system: s\ncomponents:\n");
        for i in 0..5000 {
            let _ = writeln!(text, "  c{i}: {{depends_on: [c{}]}}", i + 1);
        }
        text.push_str("  c5000: {}\n");
        let m = model(&text);
        let graph = ComponentGraph::new(&m);
        let order = graph.dependency_order();
        // The chain is its own dependency order: c0 calls c1 … calls c5000.
        assert_eq!(order, m.component_ids().collect::<Vec<_>>());
        assert!(graph.required_closure(&m.entrypoints).iter().all(|&r| r));
    }
}

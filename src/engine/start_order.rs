//! The start order after a full outage, shared by `recovery-order`,
//! `cold-start` and the recovery simulation: required edges only
//! (degradable ones dropped), their strongly connected groups and the graph
//! of those groups from petgraph's `condensation` (Kosaraju's algorithm,
//! iterative), and waves by depth in that graph, dependencies first, taken
//! in petgraph's `toposort` order. A chain of any length needs no stack.

use petgraph::algo::{condensation, toposort};
use petgraph::visit::{EdgeFiltered, EdgeRef, IntoNeighbors};

use crate::model::graph::ComponentGraph;
use crate::model::{ComponentId, Edge, Model};

/// A cycle of required edges.
#[derive(Debug, Clone)]
pub struct Cycle<'a> {
    /// Every component of the strongly connected group, sorted by name.
    pub members: Vec<ComponentId>,
    /// One closed walk through the first member: `(caller, target, edge)`.
    pub edges: Vec<(ComponentId, ComponentId, &'a Edge)>,
}

/// Waves and cycles.
#[derive(Debug, Clone, Default)]
pub struct StartOrder<'a> {
    /// Each wave, names sorted; a cycle's members share a wave.
    pub waves: Vec<Vec<ComponentId>>,
    /// Cycles of required edges, by their first member's name.
    pub cycles: Vec<Cycle<'a>>,
}

/// The required calls of `caller` (target, edge), in model order.
fn required_calls(
    model: &Model,
    caller: ComponentId,
) -> impl Iterator<Item = (ComponentId, &Edge)> {
    model
        .component(caller)
        .depends_on
        .iter()
        .filter(|e| !e.degradable)
        .flat_map(|e| e.targets.iter().map(move |&t| (t, e)))
}

/// The shortest closed walk from `start` back to it inside `members`, the
/// first found when calls are tried in model order.
///
/// Hand-written, not one of petgraph's searches: the finding names the
/// edges of the walk (two edges may join the same components) and must
/// name the same walk on every run, which is this breadth-first search's
/// rule; petgraph's shortest-path searches return nodes or distances, with
/// ties broken by their own order.
fn shortest_cycle<'a>(
    model: &'a Model,
    members: &[ComponentId],
    start: ComponentId,
) -> Vec<(ComponentId, ComponentId, &'a Edge)> {
    let n = model.components.len();
    let mut member = vec![false; n];
    for m in members {
        member[m.0] = true;
    }
    let mut came_from: Vec<Option<(ComponentId, &Edge)>> = vec![None; n];
    let mut queue = std::collections::VecDeque::from([start]);
    let mut seen = vec![false; n];
    seen[start.0] = true;
    while let Some(v) = queue.pop_front() {
        for (w, edge) in required_calls(model, v) {
            if !member[w.0] {
                continue;
            }
            if w == start {
                let mut walk = vec![(v, start, edge)];
                let mut at = v;
                while let Some((prev, e)) = came_from[at.0] {
                    walk.push((prev, at, e));
                    at = prev;
                }
                walk.reverse();
                return walk;
            }
            if !seen[w.0] {
                seen[w.0] = true;
                came_from[w.0] = Some((v, edge));
                queue.push_back(w);
            }
        }
    }
    Vec::new()
}

/// The start order of `model`, from its component graph.
#[must_use]
pub fn plan<'a>(model: &'a Model, graph: &ComponentGraph) -> StartOrder<'a> {
    // One node per strongly connected group of required edges, its members
    // as weight; an edge inside a group becomes a loop on its node.
    let groups = condensation(graph.required(), false);
    let between = EdgeFiltered::from_fn(&groups, |e| e.source() != e.target());
    // The graph of groups is acyclic once the loops are left out, so
    // `toposort` succeeds; it lists callers before what they call.
    let order = toposort(&between, None).unwrap_or_default();
    let mut wave_of_group = vec![0usize; groups.node_count()];
    for &g in order.iter().rev() {
        wave_of_group[g.index()] = (&between)
            .neighbors(g)
            .map(|h| wave_of_group[h.index()] + 1)
            .max()
            .unwrap_or(0);
    }
    let by_name =
        |a: &ComponentId, b: &ComponentId| model.component(*a).name.cmp(&model.component(*b).name);
    let count = wave_of_group.iter().max().map_or(0, |w| w + 1);
    let mut waves = vec![Vec::new(); count];
    for g in groups.node_indices() {
        waves[wave_of_group[g.index()]].extend(groups[g].iter().copied());
    }
    for wave in &mut waves {
        wave.sort_by(by_name);
    }
    let mut cycles: Vec<Cycle> = groups
        .node_weights()
        .filter(|members| members.len() > 1)
        .map(|members| {
            let mut members = members.clone();
            members.sort_by(by_name);
            let edges = shortest_cycle(model, &members, members[0]);
            Cycle { members, edges }
        })
        .collect();
    cycles.sort_by(|a, b| by_name(&a.members[0], &b.members[0]));
    StartOrder { waves, cycles }
}

/// The start waves of `model`: component ids, dependencies first (the
/// members of a cycle share a wave).
#[must_use]
pub fn waves(model: &Model) -> Vec<Vec<ComponentId>> {
    plan(model, &ComponentGraph::new(model)).waves
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"))
    }

    fn wave_names(m: &Model, order: &StartOrder) -> Vec<Vec<String>> {
        order
            .waves
            .iter()
            .map(|w| w.iter().map(|&c| m.component(c).name.clone()).collect())
            .collect()
    }

    #[test]
    fn layers_start_dependencies_first_and_drop_degradable_edges() {
        // api needs db; its cache edge is dropped, so api does not wait for
        // cache, which itself needs db: both start in the wave after db.
        let m = model(
            r"system: s
components:
  lb: {depends_on: [api]}
  api: {depends_on: [db, {target: cache, degradable: true}]}
  db: {}
  cache: {depends_on: [db]}
",
        );
        let order = plan(&m, &ComponentGraph::new(&m));
        assert_eq!(
            wave_names(&m, &order),
            [vec!["db"], vec!["api", "cache"], vec!["lb"]]
                .map(|w| w.into_iter().map(str::to_owned).collect::<Vec<_>>())
        );
        assert!(order.cycles.is_empty());
    }

    #[test]
    fn a_cycle_shares_a_wave_and_names_its_edges() {
        let m = model(
            r"system: s
entrypoints: [web]
components:
  web: {depends_on: [b]}
  b: {depends_on: [c]}
  c: {depends_on: [a]}
  a: {depends_on: [b, d]}
  d: {}
",
        );
        let order = plan(&m, &ComponentGraph::new(&m));
        assert_eq!(order.cycles.len(), 1);
        let cycle = &order.cycles[0];
        let walk: Vec<String> = cycle
            .edges
            .iter()
            .map(|&(x, y, _)| format!("{}>{}", m.component(x).name, m.component(y).name))
            .collect();
        assert_eq!(walk, ["a>b", "b>c", "c>a"]);
        let waves = wave_names(&m, &order);
        assert_eq!(waves[0], ["d"]);
        assert_eq!(waves[1], ["a", "b", "c"]);
        assert_eq!(waves[2], ["web"]);
    }

    #[test]
    fn a_5000_long_chain_needs_no_recursion() {
        use std::fmt::Write as _;
        let mut text = String::from(
            r"system: s
components:
",
        );
        for i in 0..5000 {
            let _ = writeln!(text, "  c{i}: {{depends_on: [c{}]}}", i + 1);
        }
        text.push_str("  c5000: {}\n");
        let m = model(&text);
        let order = plan(&m, &ComponentGraph::new(&m));
        // c5000 first, then one wave per link back to c0.
        assert_eq!(order.waves.len(), 5001);
        assert_eq!(wave_names(&m, &order)[0], ["c5000"]);
        assert_eq!(wave_names(&m, &order)[5000], ["c0"]);
    }

    /// `n` components `c0 … c{n-1}`, each requiring the next; with `ring`
    /// the last requires the first. Built from one parsed component, since
    /// parsing 100,000 lines is slow in a debug build.
    fn chain(n: usize, ring: bool) -> Model {
        let mut m = model(
            r"system: s
components:
  a: {depends_on: [b]}
  b: {}
",
        );
        let template = m.components[0].clone();
        m.components = (0..n)
            .map(|i| {
                let mut c = template.clone();
                c.name = format!("c{i}");
                let next = if i + 1 < n {
                    Some(i + 1)
                } else {
                    ring.then_some(0)
                };
                c.depends_on.truncate(usize::from(next.is_some()));
                for edge in &mut c.depends_on {
                    edge.targets = vec![ComponentId(next.unwrap_or_default())];
                }
                c
            })
            .collect();
        m.entrypoints = vec![ComponentId(0)];
        m
    }

    #[test]
    fn a_100k_chain_and_a_100k_cycle_need_no_recursion() {
        let m = chain(100_000, false);
        let order = plan(&m, &ComponentGraph::new(&m));
        // One component per wave, the end of the chain first.
        assert_eq!(order.waves.len(), 100_000);
        assert_eq!(order.waves[0], [ComponentId(99_999)]);
        assert_eq!(order.waves[99_999], [ComponentId(0)]);
        assert!(order.cycles.is_empty());

        let m = chain(100_000, true);
        let order = plan(&m, &ComponentGraph::new(&m));
        // The ring is one group: one wave, one cycle through all 100,000.
        assert_eq!(order.waves.len(), 1);
        assert_eq!(order.waves[0].len(), 100_000);
        assert_eq!(order.cycles.len(), 1);
        let cycle = &order.cycles[0];
        // Its walk starts at the first name ("c0") and takes every link.
        assert_eq!(cycle.members[0], ComponentId(0));
        assert_eq!(cycle.edges.len(), 100_000);
        assert_eq!(cycle.edges[0].0, ComponentId(0));
    }
}

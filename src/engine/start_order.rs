//! The start order after a full outage, shared by `recovery-order` and
//! `cold-start`: required edges only (degradable ones dropped), strongly
//! connected groups found with Tarjan's algorithm, and waves by depth in
//! the graph of those groups, dependencies first.

use crate::analyze::results::Report;
use crate::model::{ComponentId, Edge, Model};

/// A cycle of required edges.
#[derive(Debug, Clone)]
pub(crate) struct Cycle<'a> {
    /// Every component of the strongly connected group, sorted by name.
    pub members: Vec<ComponentId>,
    /// One closed walk through the first member: `(caller, target, edge)`.
    pub edges: Vec<(ComponentId, ComponentId, &'a Edge)>,
}

/// Waves and cycles.
#[derive(Debug, Clone, Default)]
pub(crate) struct StartOrder<'a> {
    /// Each wave, names sorted; a cycle's members share a wave.
    pub waves: Vec<Vec<ComponentId>>,
    /// Cycles of required edges, by their first member's name.
    pub cycles: Vec<Cycle<'a>>,
}

/// The required dependencies of each component, with the edge.
fn required(model: &Model) -> Vec<Vec<(ComponentId, &Edge)>> {
    model
        .components
        .iter()
        .map(|c| {
            c.depends_on
                .iter()
                .filter(|e| !e.degradable)
                .flat_map(|e| e.targets.iter().map(move |&t| (t, e)))
                .collect()
        })
        .collect()
}

/// Tarjan's strongly connected components, iteratively (no recursion depth
/// limit on long chains). Each group comes after every group it depends on.
fn strongly_connected(deps: &[Vec<(ComponentId, &Edge)>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = deps.len();
    let (mut index, mut low) = (vec![UNSEEN; n], vec![0; n]);
    let mut on_stack = vec![false; n];
    let (mut stack, mut groups, mut counter) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&(v, next)) = work.last() {
            if let Some(&(w, _)) = deps[v].get(next) {
                if let Some(top) = work.last_mut() {
                    top.1 += 1;
                }
                let w = w.0;
                if index[w] == UNSEEN {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut group = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                groups.push(group);
            }
        }
    }
    groups
}

/// The shortest closed walk from `start` back to it inside `members`.
fn shortest_cycle<'a>(
    deps: &[Vec<(ComponentId, &'a Edge)>],
    members: &[ComponentId],
    start: ComponentId,
) -> Vec<(ComponentId, ComponentId, &'a Edge)> {
    let mut member = vec![false; deps.len()];
    for m in members {
        member[m.0] = true;
    }
    let mut came_from: Vec<Option<(ComponentId, &Edge)>> = vec![None; deps.len()];
    let mut queue = std::collections::VecDeque::from([start]);
    let mut seen = vec![false; deps.len()];
    seen[start.0] = true;
    while let Some(v) = queue.pop_front() {
        for &(w, edge) in &deps[v.0] {
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

/// Computes the start order.
pub(crate) fn plan(model: &Model) -> StartOrder<'_> {
    let deps = required(model);
    let groups = strongly_connected(&deps);
    let mut group_of = vec![0; deps.len()];
    for (g, members) in groups.iter().enumerate() {
        for &m in members {
            group_of[m] = g;
        }
    }
    // Groups come dependencies first, so each one's dependencies have a wave.
    let mut wave_of_group = vec![0usize; groups.len()];
    for (g, members) in groups.iter().enumerate() {
        wave_of_group[g] = members
            .iter()
            .flat_map(|&m| &deps[m])
            .map(|&(t, _)| group_of[t.0])
            .filter(|&h| h != g)
            .map(|h| wave_of_group[h] + 1)
            .max()
            .unwrap_or(0);
    }
    let by_name =
        |a: &ComponentId, b: &ComponentId| model.component(*a).name.cmp(&model.component(*b).name);
    let count = wave_of_group.iter().max().map_or(0, |w| w + 1);
    let mut waves = vec![Vec::new(); count];
    for (c, &g) in group_of.iter().enumerate() {
        waves[wave_of_group[g]].push(ComponentId(c));
    }
    for wave in &mut waves {
        wave.sort_by(by_name);
    }
    let mut cycles: Vec<Cycle> = groups
        .iter()
        .filter(|members| members.len() > 1)
        .map(|members| {
            let mut members: Vec<ComponentId> = members.iter().map(|&m| ComponentId(m)).collect();
            members.sort_by(by_name);
            let edges = shortest_cycle(&deps, &members, members[0]);
            Cycle { members, edges }
        })
        .collect();
    cycles.sort_by(|a, b| by_name(&a.members[0], &b.members[0]));
    StartOrder { waves, cycles }
}

/// Fills the waves, warmups and cycles of the report's `cold_start` section
/// once, whichever of the two rules runs first.
pub(crate) fn fill(model: &Model, order: &StartOrder, report: &mut Report) {
    let section = &mut report.cold_start;
    if !section.waves.is_empty() {
        return;
    }
    let names = |ids: &[ComponentId]| -> Vec<String> {
        ids.iter()
            .map(|&c| model.component(c).name.clone())
            .collect()
    };
    section.waves = order.waves.iter().map(|w| names(w)).collect();
    section.wave_warmup_s = order
        .waves
        .iter()
        .map(|w| {
            w.iter()
                .filter_map(|&c| model.component(c).warmup)
                .max()
                .unwrap_or_default()
                .seconds()
        })
        .collect();
    section.time_to_full_service_s = section.wave_warmup_s.iter().sum();
    section.cycles = order.cycles.iter().map(|c| names(&c.members)).collect();
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
        let order = plan(&m);
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
        let order = plan(&m);
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
    fn a_long_chain_needs_no_recursion() {
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
        let order = plan(&m);
        assert_eq!(order.waves.len(), 5001);
    }
}

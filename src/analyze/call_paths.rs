//! The call paths from each entrypoint, with the retry amplification along
//! them: shared by `retry-amplification`, `retry-layers` and `retry-storm`,
//! and the rows of the report's `retries` section.
//!
//! A path follows every edge, required or degradable, to every target, and
//! is cut where it would revisit a component already on it. The number of
//! paths grows exponentially with layered fan-out, so the walk stops after
//! [`MAX_PATHS`] and says so; the per-component figures then cover the paths
//! visited.

use super::wording::{number, percent};
use crate::model::{ComponentId, Edge, Model, Span};
use crate::report::{Report, RetryPath, StormPoint};

/// The most paths visited (all entrypoints together).
pub(crate) const MAX_PATHS: usize = 10_000;

/// The failure rates of the storm load curve in the report.
pub(crate) const STORM_RATES: [f64; 4] = [0.01, 0.05, 0.25, 1.0];

/// One call path: `components[i]` calls `components[i + 1]` over `edges[i]`.
#[derive(Debug, Clone)]
pub(crate) struct CallPath<'a> {
    /// From the entrypoint to the last hop.
    pub components: Vec<ComponentId>,
    /// The edge of each hop.
    pub edges: Vec<&'a Edge>,
    /// Worst-case attempts reaching the last hop.
    pub amplification: f64,
    /// The same without the last hop.
    pub previous_amplification: f64,
    /// Hops that retry.
    pub retrying: u32,
}

impl CallPath<'_> {
    /// The component the path ends at.
    pub fn last(&self) -> ComponentId {
        *self
            .components
            .last()
            .expect("a path has at least two components")
    }

    /// Hops that retry before the last one.
    pub fn previous_retrying(&self) -> u32 {
        self.retrying - u32::from(self.edges.last().is_some_and(|e| e.retries > 0))
    }

    /// `a>b>c`, the subject of path finding ids.
    pub fn id(&self, model: &Model) -> String {
        self.names(model).join(">")
    }

    /// The component names along the path.
    pub fn names(&self, model: &Model) -> Vec<String> {
        self.components
            .iter()
            .map(|&c| model.component(c).name.clone())
            .collect()
    }

    /// The hops that retry: (caller, target, edge).
    pub fn retrying_hops(&self) -> impl Iterator<Item = (ComponentId, ComponentId, &Edge)> {
        self.edges
            .iter()
            .enumerate()
            .filter(|(_, e)| e.retries > 0)
            .map(|(i, e)| (self.components[i], self.components[i + 1], *e))
    }

    /// Where the innermost retrying hop writes `retries` (or the last edge).
    pub fn innermost_retries_span(&self) -> Span {
        self.edges
            .iter()
            .rev()
            .find(|e| e.retries > 0)
            .or(self.edges.last())
            .map(|e| retries_span(e))
            .unwrap_or_default()
    }

    /// `3 (a>b) × 1.1 (b>c, 1 + min(2, 10%))`: the factors of the retrying hops.
    pub fn factors(&self, model: &Model) -> String {
        self.retrying_hops()
            .map(|(caller, target, edge)| {
                let hop = format!(
                    "{}>{}",
                    model.component(caller).name,
                    model.component(target).name
                );
                match edge.retry_budget {
                    Some(budget) => format!(
                        "{} ({hop}, 1 + min({}, {}))",
                        number(factor(edge)),
                        edge.retries,
                        percent(budget)
                    ),
                    None => format!("{} ({hop})", number(factor(edge))),
                }
            })
            .collect::<Vec<_>>()
            .join(" × ")
    }
}

/// Every path visited, and whether the walk stopped early.
#[derive(Debug, Default)]
pub(crate) struct CallPaths<'a> {
    /// In walk order (entrypoint by entrypoint, depth first).
    pub paths: Vec<CallPath<'a>>,
    /// Whether some paths were not visited.
    pub truncated: bool,
}

/// What one hop multiplies attempts by: `1 + retries`, or
/// `1 + min(retries, retry_budget)` with a budget.
pub(crate) fn factor(edge: &Edge) -> f64 {
    let retries = f64::from(edge.retries);
    edge.retry_budget
        .map_or(1.0 + retries, |budget| 1.0 + retries.min(budget))
}

/// Where an edge writes `retries`, else the edge itself.
pub(crate) fn retries_span(edge: &Edge) -> Span {
    edge.fields.get("retries").unwrap_or(edge.span)
}

/// Every call (caller, target, edge) of the model, in model order: an
/// `any_of` or `at_least` edge gives one call per target.
pub(crate) fn calls(model: &Model) -> impl Iterator<Item = (ComponentId, ComponentId, &Edge)> {
    model.component_ids().flat_map(move |caller| {
        model
            .component(caller)
            .depends_on
            .iter()
            .flat_map(move |edge| edge.targets.iter().map(move |&t| (caller, t, edge)))
    })
}

/// A frame of the depth-first walk: which edge and target to try next.
struct Frame {
    component: ComponentId,
    edge: usize,
    target: usize,
}

/// Walks every call path from every entrypoint, at most [`MAX_PATHS`].
pub(crate) fn walk(model: &Model) -> CallPaths<'_> {
    walk_bounded(model, MAX_PATHS)
}

fn walk_bounded(model: &Model, max_paths: usize) -> CallPaths<'_> {
    let mut out = CallPaths::default();
    let mut entrypoints = model.entrypoints.clone();
    entrypoints.dedup();
    // Each entrypoint gets its share, so one huge subgraph does not hide the others.
    let share = (max_paths / entrypoints.len().max(1)).max(1);
    // Within a share, retrying edges are walked first (largest multiplier
    // first), so when the budget runs out it is the paths without retries
    // that go unvisited, not the ones the retry rules are about.
    let order: Vec<Vec<usize>> = model
        .components
        .iter()
        .map(|c| {
            let mut edges: Vec<usize> = (0..c.depends_on.len()).collect();
            edges.sort_by(|&a, &b| factor(&c.depends_on[b]).total_cmp(&factor(&c.depends_on[a])));
            edges
        })
        .collect();
    for entry in entrypoints {
        let mut budget = share;
        let mut on_path = vec![false; model.components.len()];
        on_path[entry.0] = true;
        let mut stack = vec![Frame {
            component: entry,
            edge: 0,
            target: 0,
        }];
        let mut current = CallPath {
            components: vec![entry],
            edges: Vec::new(),
            amplification: 1.0,
            previous_amplification: 1.0,
            retrying: 0,
        };
        let mut amplifications = vec![1.0];
        while let Some(top) = stack.last_mut() {
            let component = model.component(top.component);
            let Some(edge) = order[top.component.0]
                .get(top.edge)
                .map(|&e| &component.depends_on[e])
            else {
                on_path[top.component.0] = false;
                stack.pop();
                if current.edges.pop().is_some_and(|e| e.retries > 0) {
                    current.retrying -= 1;
                }
                current.components.pop();
                amplifications.pop();
                continue;
            };
            let Some(&target) = edge.targets.get(top.target) else {
                top.edge += 1;
                top.target = 0;
                continue;
            };
            top.target += 1;
            if on_path[target.0] {
                continue;
            }
            if budget == 0 {
                out.truncated = true;
                break;
            }
            budget -= 1;
            let previous = *amplifications.last().unwrap_or(&1.0);
            let amplification = previous * factor(edge);
            on_path[target.0] = true;
            current.components.push(target);
            current.edges.push(edge);
            current.retrying += u32::from(edge.retries > 0);
            current.amplification = amplification;
            current.previous_amplification = previous;
            amplifications.push(amplification);
            out.paths.push(current.clone());
            stack.push(Frame {
                component: target,
                edge: 0,
                target: 0,
            });
        }
    }
    out
}

/// `L × (1 − f) + L × f × A`.
pub(crate) fn storm_load(load: f64, failure_rate: f64, amplification: f64) -> f64 {
    load * (1.0 - failure_rate) + load * failure_rate * amplification
}

/// `(C / L − 1) / (A − 1)`: the failure rate from which retries alone push
/// a component with load `L` and capacity `C` over capacity; 0 when it is
/// over capacity already, `None` without retries or without load.
pub(crate) fn critical_failure_rate(load: f64, capacity: f64, amplification: f64) -> Option<f64> {
    if amplification <= 1.0 || load <= 0.0 {
        return None;
    }
    if capacity < load {
        return Some(0.0);
    }
    Some((capacity / load - 1.0) / (amplification - 1.0))
}

/// One report row per path that amplifies (`A > 1`), worst first; when the
/// walk was truncated, one per last hop (the worst path visited into it).
pub(crate) fn rows(model: &Model, paths: &CallPaths) -> Vec<RetryPath> {
    let mut rows: Vec<RetryPath> = paths
        .paths
        .iter()
        .filter(|p| p.amplification > 1.0)
        .map(|p| {
            let last = model.component(p.last());
            let figures = last
                .capacity
                .map(|c| (c.load, c.per_instance * f64::from(last.instances)));
            RetryPath {
                path: p.names(model),
                amplification: p.amplification,
                retrying_hops: p.retrying,
                critical_failure_rate: figures
                    .and_then(|(load, cap)| critical_failure_rate(load, cap, p.amplification)),
                load: figures.map(|(load, _)| load),
                capacity: figures.map(|(_, cap)| cap),
                storm_load: figures.map_or_else(Vec::new, |(load, _)| {
                    STORM_RATES
                        .iter()
                        .map(|&f| StormPoint {
                            failure_rate: f,
                            load: storm_load(load, f, p.amplification),
                        })
                        .collect()
                }),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.amplification
            .total_cmp(&a.amplification)
            .then_with(|| a.path.cmp(&b.path))
    });
    // Two edges between the same components give the same path: keep the worst.
    rows.dedup_by(|later, kept| later.path == kept.path);
    if paths.truncated {
        // Too many paths to list: the worst visited path into each component.
        let mut seen = std::collections::BTreeSet::new();
        rows.retain(|row| seen.insert(row.path.last().cloned().unwrap_or_default()));
    }
    rows
}

/// Fills the report's `retries` section once, whichever retry rule runs first.
pub(crate) fn fill(model: &Model, paths: &CallPaths, report: &mut Report) {
    if report.retries.is_empty() {
        report.retries = rows(model, paths);
        report.retries_truncated = paths.truncated;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    fn model(text: &str) -> Model {
        crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"))
    }

    #[test]
    fn three_retrying_layers_multiply_to_27() {
        let m = model(
            "system: s\ncomponents:\n  lb: {depends_on: [{target: api, retries: 2}]}\n  api: {depends_on: [{target: svc, retries: 2}]}\n  svc: {depends_on: [{target: db, retries: 2}]}\n  db: {capacity: 100, load: 50}\n",
        );
        let paths = walk(&m);
        assert!(!paths.truncated);
        let ids: Vec<String> = paths.paths.iter().map(|p| p.id(&m)).collect();
        assert_eq!(ids, ["lb>api", "lb>api>svc", "lb>api>svc>db"]);
        // (1 + 2) × (1 + 2) × (1 + 2) = 27, the prefix 9.
        assert!((paths.paths[2].amplification - 27.0).abs() < 1e-9);
        assert!((paths.paths[2].previous_amplification - 9.0).abs() < 1e-9);
        assert_eq!(paths.paths[2].retrying, 3);
        let rows = rows(&m, &paths);
        assert_eq!(rows[0].path, ["lb", "api", "svc", "db"]);
        // (100 / 50 − 1) / (27 − 1) = 1 / 26 = 0.0385
        let critical = rows[0].critical_failure_rate.unwrap();
        assert!((critical - 1.0 / 26.0).abs() < 1e-12);
        // at 25%: 50 × 0.75 + 50 × 0.25 × 27 = 37.5 + 337.5 = 375
        assert!((rows[0].storm_load[2].load - 375.0).abs() < 1e-9);
    }

    #[test]
    fn a_budget_caps_a_hop() {
        let m = model(
            "system: s\ncomponents:\n  a: {depends_on: [{target: b, retries: 2, retry_budget: 10%}]}\n  b: {}\n",
        );
        // 1 + min(2, 0.1) = 1.1
        assert!((walk(&m).paths[0].amplification - 1.1).abs() < 1e-12);
    }

    #[test]
    fn cycles_are_cut_where_they_revisit() {
        let m = model(
            "system: s\nentrypoints: [a]\ncomponents:\n  a: {depends_on: [{target: b, retries: 1}]}\n  b: {depends_on: [{target: a, retries: 1}]}\n",
        );
        let ids: Vec<String> = walk(&m).paths.iter().map(|p| p.id(&m)).collect();
        assert_eq!(ids, ["a>b"]);
    }

    #[test]
    fn any_of_edges_give_one_path_per_target() {
        let m = model(
            "system: s\ncomponents:\n  a: {depends_on: [{any_of: [b, c], retries: 1}]}\n  b: {}\n  c: {}\n",
        );
        let ids: Vec<String> = walk(&m).paths.iter().map(|p| p.id(&m)).collect();
        assert_eq!(ids, ["a>b", "a>c"]);
    }

    #[test]
    fn an_exploding_graph_is_truncated() {
        // 30 layers of 2 components, each calling both of the next layer:
        // 2 × (2 + 4 + … + 2^29) paths, far more than MAX_PATHS.
        let mut text = String::from("system: s\nentrypoints: [l0a]\ncomponents:\n");
        for layer in 0..30 {
            for side in ["a", "b"] {
                if layer == 29 {
                    let _ = writeln!(text, "  l{layer}{side}: {{}}");
                } else {
                    let next = layer + 1;
                    let _ = writeln!(
                        text,
                        "  l{layer}{side}: {{depends_on: [{{target: l{next}a, retries: 1}}, {{target: l{next}b, retries: 1}}]}}"
                    );
                }
            }
        }
        let m = model(&text);
        let paths = walk(&m);
        assert!(paths.truncated);
        assert_eq!(paths.paths.len(), MAX_PATHS);
        let rows = rows(&m, &paths);
        // Depth first: the deepest path, 29 retrying hops, 2^29, comes first.
        assert!((rows[0].amplification - 2f64.powi(29)).abs() < 1.0);
        // Aggregated per last hop: at most one row per component but l0a.
        assert!(rows.len() <= 59, "{}", rows.len());
    }

    #[test]
    fn critical_rate_edges() {
        assert_eq!(critical_failure_rate(100.0, 110.0, 1.0), None);
        assert_eq!(critical_failure_rate(0.0, 110.0, 3.0), None);
        assert_eq!(critical_failure_rate(120.0, 110.0, 3.0), Some(0.0));
        // (110 / 100 − 1) / (3 − 1) = 0.05
        assert!((critical_failure_rate(100.0, 110.0, 3.0).unwrap() - 0.05).abs() < 1e-12);
    }
}

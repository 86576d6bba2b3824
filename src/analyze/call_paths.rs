//! The call paths from each entrypoint, with the retry amplification along
//! them: shared by `retry-amplification`, `retry-layers` and `retry-storm`,
//! and the rows of the report's `retries` section.
//!
//! A path follows every edge, required or degradable, to every target, and
//! is cut where it would revisit a component already on it. The number of
//! paths grows exponentially with layered fan-out, so the walk stops after
//! [`MAX_PATHS`] and says so; the per-component figures then cover the paths
//! visited.
//!
//! Every prefix of a path is a path too, so a chain of n hops has n paths of
//! total length n²/2: a path keeps only its last hop and a shared pointer to
//! the path it extends, so the walk takes memory linear in the paths, and
//! the report lists the worst paths up to [`MAX_ROW_NAMES`] names in all
//! (a count says how many more there are).
//!
//! The walk is hand-written rather than petgraph's `all_simple_paths`
//! because its order is part of the rule: retrying edges first (the
//! largest multiplier first) so that a walk cut by the budget drops paths
//! without retries, a budget shared out per entrypoint, and each path
//! extending the one before it (its amplification and retry count carried
//! along) instead of being rebuilt from its nodes.

use std::collections::HashMap;
use std::sync::Arc;

use super::wording::{number, percent};
use crate::analyze::results::{Audit, RetryPath, StormPoint};
use crate::engine::state::State;
use crate::model::{ComponentId, Duration, Edge, Model, Span};

/// The most paths visited (all entrypoints together).
pub(crate) const MAX_PATHS: usize = 10_000;

/// The most component names listed in the report's `retries` rows, all rows
/// together: a 4,000-hop chain would otherwise list 8 million.
pub(crate) const MAX_ROW_NAMES: usize = 20_000;

/// The most rows in the report's `retries` section.
pub(crate) const MAX_ROWS: usize = 1_000;

/// The most component names spelt out in a path finding's id.
pub(crate) const MAX_ID_NAMES: usize = 16;

/// The most retrying hops spelt out in a finding's message.
const MAX_FACTORS: usize = 12;

/// The failure rates of the storm load curve in the report.
pub(crate) const STORM_RATES: [f64; 4] = [0.01, 0.05, 0.25, 1.0];

/// One hop of a path, linked to the path it extends: paths that share a
/// prefix share its hops, and what a finding needs of the whole path is
/// carried along, so it takes a few steps instead of a walk back to the
/// entrypoint (10,000 findings on a 10,000-hop chain walked 50 million hops).
#[derive(Debug)]
struct Hop<'a> {
    component: ComponentId,
    /// The edge into `component`; `None` at the entrypoint.
    edge: Option<&'a Edge>,
    before: Option<Arc<Hop<'a>>>,
    /// FNV-1a of the names from the entrypoint to here, joined by `>`.
    hash: u64,
    /// The hop `MAX_ID_NAMES / 2` components from the entrypoint, once the
    /// path is longer (the end of the names a long id starts with).
    head: Option<Arc<Hop<'a>>>,
    /// Where the innermost retrying hop up to here writes `retries`.
    retries: Option<Span>,
}

/// FNV-1a's offset basis: the hash of no byte.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of `bytes` continued from `hash`: stable across runs and builds.
fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// One call path: from an entrypoint over one or more hops.
#[derive(Debug, Clone)]
pub(crate) struct CallPath<'a> {
    /// The last hop, linked back to the entrypoint.
    hop: Arc<Hop<'a>>,
    /// Components on the path, the entrypoint included.
    pub len: usize,
    /// Worst-case attempts reaching the last hop.
    pub amplification: f64,
    /// The same without the last hop.
    pub previous_amplification: f64,
    /// Hops that retry.
    pub retrying: u32,
    /// The entrypoint it starts at.
    pub entrypoint: ComponentId,
    /// `Σ timeout × (1 + retries)` over its hops with a timeout, and how
    /// many have none (the `deadline` rule's figures, carried along so a
    /// path's take one step: summed from its hops, a 12,000-link chain
    /// summed 72 million).
    pub latency: Duration,
    /// Hops without a timeout.
    pub untimed: u32,
    /// Which path this is, whatever edges it took (two edges between the
    /// same components give the same path): same components, same number.
    key: usize,
}

impl<'a> CallPath<'a> {
    /// The path one hop longer: over `edge` to `target`, with the key
    /// `key`; what a finding needs of the whole path carried along.
    fn extend(&self, model: &Model, edge: &'a Edge, target: ComponentId, key: usize) -> Self {
        let before = &self.hop;
        CallPath {
            hop: Arc::new(Hop {
                component: target,
                edge: Some(edge),
                before: Some(Arc::clone(before)),
                hash: fnv(
                    fnv(before.hash, b">"),
                    model.component(target).name.as_bytes(),
                ),
                head: match self.len.cmp(&(MAX_ID_NAMES / 2)) {
                    std::cmp::Ordering::Less => None,
                    std::cmp::Ordering::Equal => Some(Arc::clone(before)),
                    std::cmp::Ordering::Greater => before.head.clone(),
                },
                retries: if edge.retries > 0 {
                    Some(retries_span(edge))
                } else {
                    before.retries
                },
            }),
            len: self.len + 1,
            amplification: self.amplification * factor(edge),
            previous_amplification: self.amplification,
            retrying: self.retrying + u32::from(edge.retries > 0),
            entrypoint: self.entrypoint,
            latency: worst_call(edge).map_or(self.latency, |w| {
                Duration(self.latency.0.saturating_add(w.0))
            }),
            untimed: self.untimed + u32::from(edge.timeout.is_none()),
            key,
        }
    }

    /// The component the path ends at.
    pub fn last(&self) -> ComponentId {
        self.hop.component
    }

    /// From the entrypoint to the last hop.
    pub fn components(&self) -> Vec<ComponentId> {
        let mut out = Vec::with_capacity(self.len);
        let mut hop = Some(&self.hop);
        while let Some(h) = hop {
            out.push(h.component);
            hop = h.before.as_ref();
        }
        out.reverse();
        out
    }

    /// The hops as (caller, target, edge), from the entrypoint.
    pub fn hops(&self) -> Vec<(ComponentId, ComponentId, &'a Edge)> {
        let mut out = Vec::with_capacity(self.len);
        let mut hop = &self.hop;
        while let (Some(edge), Some(before)) = (hop.edge, hop.before.as_ref()) {
            out.push((before.component, hop.component, edge));
            hop = before;
        }
        out.reverse();
        out
    }

    /// The last hop's edge.
    fn last_edge(&self) -> Option<&'a Edge> {
        self.hop.edge
    }

    /// The caller of the last hop and the edge it calls it over; `None` for
    /// a path of the entrypoint alone.
    pub fn last_edge_from(&self) -> Option<(ComponentId, &'a Edge)> {
        Some((self.hop.before.as_ref()?.component, self.hop.edge?))
    }

    /// Hops that retry before the last one.
    pub fn previous_retrying(&self) -> u32 {
        self.retrying - u32::from(self.last_edge().is_some_and(|e| e.retries > 0))
    }

    /// `a>b>c`, the subject of path finding ids. A path of more than
    /// [`MAX_ID_NAMES`] components keeps its first and last names around
    /// `…` and a hash of the whole path (`a>…>z#0123abcd0123abcd`), so ids
    /// stay unique and a finding's size does not grow with the path; the
    /// names are read from the hops kept for it, in as many steps.
    pub fn id(&self, model: &Model) -> String {
        if self.len <= MAX_ID_NAMES {
            return self.names(model).join(">");
        }
        let half = MAX_ID_NAMES / 2;
        let names = |hop: &Hop| {
            let mut out: Vec<&str> = Vec::with_capacity(half);
            let mut at = Some(hop);
            while let Some(h) = at.filter(|_| out.len() < half) {
                out.push(&model.component(h.component).name);
                at = h.before.as_deref();
            }
            out.reverse();
            out.join(">")
        };
        let head = self.hop.head.as_deref().unwrap_or(&self.hop);
        format!(
            "{}>…>{}#{:016x}",
            names(head),
            names(&self.hop),
            self.hop.hash
        )
    }

    /// The component names along the path.
    pub fn names(&self, model: &Model) -> Vec<String> {
        self.components()
            .iter()
            .map(|&c| model.component(c).name.clone())
            .collect()
    }

    /// The hops that retry: (caller, target, edge).
    pub fn retrying_hops(&self) -> impl Iterator<Item = (ComponentId, ComponentId, &'a Edge)> {
        self.hops().into_iter().filter(|(_, _, e)| e.retries > 0)
    }

    /// Where the innermost retrying hop writes `retries` (or the last edge).
    pub fn innermost_retries_span(&self) -> Span {
        self.hop
            .retries
            .or_else(|| self.last_edge().map(retries_span))
            .unwrap_or_default()
    }

    /// The retrying hops, with what the messages say of them.
    pub(crate) fn retrying_words(&self, model: &Model) -> RetryingHops {
        RetryingHops(
            self.retrying_hops()
                .map(|(caller, target, edge)| HopWords {
                    caller: Arc::from(model.component(caller).name.as_str()),
                    target: Arc::from(model.component(target).name.as_str()),
                    retries: edge.retries,
                    budget: edge.retry_budget,
                    factor: factor(edge),
                })
                .collect(),
        )
    }
}

/// The retrying hops of a path as findings name them, written when shown.
#[derive(Debug)]
pub(crate) struct RetryingHops(Vec<HopWords>);

/// One retrying hop: `a>b`, its retries, budget and factor.
#[derive(Debug)]
struct HopWords {
    caller: Arc<str>,
    target: Arc<str>,
    retries: u32,
    budget: Option<f64>,
    factor: f64,
}

impl RetryingHops {
    /// `a>b (2 retries)`, each hop with its retries.
    pub(crate) fn with_retries(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|h| {
                let word = if h.retries == 1 { "retry" } else { "retries" };
                format!("{}>{} ({} {word})", h.caller, h.target, h.retries)
            })
            .collect()
    }

    /// `3 (a>b) × 1.1 (b>c, 1 + min(2, 10%))`: the factors of the retrying
    /// hops (the first and last few, with a count between, on a long path).
    pub(crate) fn factors(&self) -> String {
        let shown = |h: &HopWords| match h.budget {
            Some(budget) => format!(
                "{} ({}>{}, 1 + min({}, {}))",
                number(h.factor),
                h.caller,
                h.target,
                h.retries,
                percent(budget)
            ),
            None => format!("{} ({}>{})", number(h.factor), h.caller, h.target),
        };
        let hops = &self.0;
        if hops.len() <= MAX_FACTORS {
            return hops.iter().map(shown).collect::<Vec<_>>().join(" × ");
        }
        let half = MAX_FACTORS / 2;
        let mut parts: Vec<String> = hops[..half].iter().map(shown).collect();
        parts.push(format!("… {} more retrying hops …", hops.len() - 2 * half));
        parts.extend(hops[hops.len() - half..].iter().map(shown));
        parts.join(" × ")
    }
}

/// Every path visited, and whether the walk stopped early.
#[derive(Debug, Default)]
pub(crate) struct CallPaths<'a> {
    /// In walk order (entrypoint by entrypoint, depth first).
    pub paths: Vec<CallPath<'a>>,
    /// Whether some paths were not visited.
    pub truncated: bool,
    /// How many different paths (by their components) were visited.
    keys: usize,
    /// Each path key's place in name order.
    order: Vec<usize>,
}

/// What one hop multiplies attempts by: `1 + retries`, or
/// `1 + min(retries, retry_budget)` with a budget.
pub(crate) fn factor(edge: &Edge) -> f64 {
    let retries = f64::from(edge.retries);
    edge.retry_budget
        .map_or(1.0 + retries, |budget| 1.0 + retries.min(budget))
}

/// `(1 + retries) × timeout`, the longest one attempt series can take.
pub(crate) fn worst_call(edge: &Edge) -> Option<Duration> {
    edge.timeout
        .map(|t| Duration(t.0.saturating_mul(1 + u64::from(edge.retries))))
}

/// Where an edge writes `retries`, else the edge itself.
pub(crate) fn retries_span(edge: &Edge) -> Span {
    edge.fields.get("retries").unwrap_or(edge.span)
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
    // Paths with the same components get the same key, whatever edges
    // they took: (key of the path extended, last component) → key.
    let mut keys: HashMap<(usize, ComponentId), usize> = HashMap::new();
    for entry in entrypoints {
        let mut budget = share;
        let mut on_path = vec![false; model.components.len()];
        on_path[entry.0] = true;
        let mut stack = vec![Frame {
            component: entry,
            edge: 0,
            target: 0,
        }];
        let root = CallPath {
            hop: Arc::new(Hop {
                component: entry,
                edge: None,
                before: None,
                hash: fnv(FNV_OFFSET, model.component(entry).name.as_bytes()),
                head: None,
                retries: None,
            }),
            len: 1,
            amplification: 1.0,
            previous_amplification: 1.0,
            retrying: 0,
            entrypoint: entry,
            latency: Duration(0),
            untimed: 0,
            key: intern(&mut keys, usize::MAX, entry),
        };
        // The path to each frame of the stack.
        let mut current = vec![root];
        while let Some(top) = stack.last_mut() {
            let component = model.component(top.component);
            let Some(edge) = order[top.component.0]
                .get(top.edge)
                .map(|&e| &component.depends_on[e])
            else {
                on_path[top.component.0] = false;
                stack.pop();
                current.pop();
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
            let Some(before) = current.last() else {
                break;
            };
            let key = intern(&mut keys, before.key, target);
            let path = before.extend(model, edge, target, key);
            on_path[target.0] = true;
            out.paths.push(path.clone());
            current.push(path);
            stack.push(Frame {
                component: target,
                edge: 0,
                target: 0,
            });
        }
    }
    out.keys = keys.len();
    out.order = name_order(model, &keys);
    out
}

/// The key of the path `before` extended to `component`.
fn intern(
    keys: &mut HashMap<(usize, ComponentId), usize>,
    before: usize,
    component: ComponentId,
) -> usize {
    let next = keys.len();
    *keys.entry((before, component)).or_insert(next)
}

/// For each path key, its place when paths are sorted by their names
/// (`a>b` before `a>b>c` before `a>c`): a walk of the tree of keys with
/// children in name order.
fn name_order(model: &Model, keys: &HashMap<(usize, ComponentId), usize>) -> Vec<usize> {
    let mut children: Vec<Vec<(ComponentId, usize)>> = vec![Vec::new(); keys.len()];
    let mut roots: Vec<(ComponentId, usize)> = Vec::new();
    for (&(before, component), &key) in keys {
        if before == usize::MAX {
            roots.push((component, key));
        } else {
            children[before].push((component, key));
        }
    }
    let by_name = |list: &mut Vec<(ComponentId, usize)>| {
        list.sort_by(|a, b| model.component(a.0).name.cmp(&model.component(b.0).name));
    };
    by_name(&mut roots);
    for list in &mut children {
        by_name(list);
    }
    let mut order = vec![0; keys.len()];
    let mut next = 0;
    let mut stack: Vec<usize> = roots.iter().rev().map(|&(_, k)| k).collect();
    while let Some(key) = stack.pop() {
        order[key] = next;
        next += 1;
        stack.extend(children[key].iter().rev().map(|&(_, k)| k));
    }
    order
}

/// The storm figures of one path in one state: the load `L` on its last
/// hop, the part `F` of it that this path sends (the flow over its last
/// edge), and the capacity `C` of the instances up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Storm {
    /// The last hop's load in the state.
    pub load: f64,
    /// What the path sends into it: the state's flow over the last edge
    /// (`caller load × calls × (1 − hit rate)`), at most `load`; all of
    /// `load` when the caller's load is unknown.
    pub flow: f64,
    /// Whether `flow` is the edge's flow (`false`: the caller's load is
    /// unknown, so the path is taken to send all of `load`).
    pub flow_known: bool,
    /// The capacity of the instances up.
    pub capacity: f64,
}

impl Storm {
    /// The figures of `path` in `state`, for a running last hop with
    /// `capacity` and a known load.
    pub(crate) fn of(model: &Model, state: &State, path: &CallPath) -> Option<Self> {
        let id = path.last();
        if !state.of(id).running {
            return None;
        }
        let capacity = state.capacity(model, id)?;
        let load = state.of(id).offered?;
        let flow = path
            .last_edge_from()
            .and_then(|(caller, edge)| state.edge_flow(model, caller, edge, id));
        Some(Self {
            load,
            flow: flow.map_or(load, |f| f.min(load)),
            flow_known: flow.is_some(),
            capacity,
        })
    }

    /// The last hop's load when a share `f` of the path's attempts fail.
    pub(crate) fn load_at(&self, failure_rate: f64, amplification: f64) -> f64 {
        storm_load(self.load, self.flow, failure_rate, amplification)
    }

    /// The failure rate from which the path's retries overload the last hop.
    pub(crate) fn critical(&self, amplification: f64) -> Option<f64> {
        critical_failure_rate(self.load, self.flow, self.capacity, amplification)
    }
}

/// `L + F × f × (A − 1)`: the rest of the load `L − F` as it is, and the
/// path's flow `F` as `F × (1 − f) + F × f × A` (the calls that succeed,
/// plus the failed ones multiplied by their attempts).
pub(crate) fn storm_load(load: f64, flow: f64, failure_rate: f64, amplification: f64) -> f64 {
    load + flow * failure_rate * (amplification - 1.0)
}

/// `(C − L) / (F × (A − 1))`: the failure rate from which the retries of a
/// path sending `F` of a component's load `L` push it over its capacity
/// `C`; 0 when it is over capacity already, `None` without retries or when
/// the path sends nothing. With `F = L` this is `(C / L − 1) / (A − 1)`.
pub(crate) fn critical_failure_rate(
    load: f64,
    flow: f64,
    capacity: f64,
    amplification: f64,
) -> Option<f64> {
    if amplification <= 1.0 || flow <= 0.0 {
        return None;
    }
    if capacity < load {
        return Some(0.0);
    }
    Some((capacity - load) / (flow * (amplification - 1.0)))
}

/// One report row per path that amplifies (`A > 1`), worst first (then by
/// name); when the walk was truncated, one per last hop (the worst path
/// visited into it). At most [`MAX_ROWS`] rows and [`MAX_ROW_NAMES`] names in
/// all (the worst path is always listed); the second value counts the
/// rows left out. Loads and capacities are those of `state`.
pub(crate) fn rows(model: &Model, state: &State, paths: &CallPaths) -> (Vec<RetryPath>, usize) {
    let mut candidates: Vec<&CallPath> = paths
        .paths
        .iter()
        .filter(|p| p.amplification > 1.0)
        .collect();
    candidates.sort_by(|a, b| {
        b.amplification
            .total_cmp(&a.amplification)
            .then_with(|| paths.order[a.key].cmp(&paths.order[b.key]))
    });
    // Two edges between the same components give the same path: keep the worst.
    let mut seen = vec![false; paths.keys];
    candidates.retain(|p| !std::mem::replace(&mut seen[p.key], true));
    if paths.truncated {
        // Too many paths to list: the worst visited path into each component.
        let mut seen = vec![false; model.components.len()];
        candidates.retain(|p| !std::mem::replace(&mut seen[p.last().0], true));
    }
    let mut rows = Vec::new();
    let mut names = 0;
    for p in &candidates {
        if !rows.is_empty() && (rows.len() >= MAX_ROWS || names + p.len > MAX_ROW_NAMES) {
            break;
        }
        names += p.len;
        let storm = Storm::of(model, state, p);
        rows.push(RetryPath {
            path: p.names(model),
            amplification: p.amplification,
            retrying_hops: p.retrying,
            critical_failure_rate: storm.and_then(|s| s.critical(p.amplification)),
            load: storm.map(|s| s.load),
            flow: storm.map(|s| s.flow),
            capacity: storm.map(|s| s.capacity),
            storm_load: storm.map_or_else(Vec::new, |s| {
                STORM_RATES
                    .iter()
                    .map(|&f| StormPoint {
                        failure_rate: f,
                        load: s.load_at(f, p.amplification),
                    })
                    .collect()
            }),
        });
    }
    let omitted = candidates.len() - rows.len();
    (rows, omitted)
}

/// Fills the report's `retries` section once, whichever retry rule runs first.
pub(crate) fn fill(model: &Model, state: &State, paths: &CallPaths, report: &mut Audit) {
    if report.retries.is_empty() {
        (report.retries, report.retries_omitted) = rows(model, state, paths);
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

    fn intact(m: &Model) -> State {
        State::intact(m, &crate::engine::state::Flow::new(m))
    }

    #[test]
    fn three_retrying_layers_multiply_to_27() {
        let m = model(
            r"system: s
components:
  lb: {depends_on: [{target: api, retries: 2}]}
  api: {depends_on: [{target: svc, retries: 2}]}
  svc: {depends_on: [{target: db, retries: 2}]}
  db: {capacity: 100, load: 50}
",
        );
        let paths = walk(&m);
        assert!(!paths.truncated);
        let ids: Vec<String> = paths.paths.iter().map(|p| p.id(&m)).collect();
        assert_eq!(ids, ["lb>api", "lb>api>svc", "lb>api>svc>db"]);
        // (1 + 2) × (1 + 2) × (1 + 2) = 27, the prefix 9.
        assert!((paths.paths[2].amplification - 27.0).abs() < 1e-9);
        assert!((paths.paths[2].previous_amplification - 9.0).abs() < 1e-9);
        assert_eq!(paths.paths[2].retrying, 3);
        let (rows, omitted) = rows(&m, &intact(&m), &paths);
        assert_eq!(omitted, 0);
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
            r"system: s
components:
  a: {depends_on: [{target: b, retries: 2, retry_budget: 10%}]}
  b: {}
",
        );
        // 1 + min(2, 0.1) = 1.1
        assert!((walk(&m).paths[0].amplification - 1.1).abs() < 1e-12);
    }

    #[test]
    fn cycles_are_cut_where_they_revisit() {
        let m = model(
            r"system: s
entrypoints: [a]
components:
  a: {depends_on: [{target: b, retries: 1}]}
  b: {depends_on: [{target: a, retries: 1}]}
",
        );
        let ids: Vec<String> = walk(&m).paths.iter().map(|p| p.id(&m)).collect();
        assert_eq!(ids, ["a>b"]);
    }

    #[test]
    fn any_of_edges_give_one_path_per_target() {
        let m = model(
            r"system: s
components:
  a: {depends_on: [{any_of: [b, c], retries: 1}]}
  b: {}
  c: {}
",
        );
        let ids: Vec<String> = walk(&m).paths.iter().map(|p| p.id(&m)).collect();
        assert_eq!(ids, ["a>b", "a>c"]);
    }

    #[test]
    fn an_exploding_graph_is_truncated() {
        // 30 layers of 2 components, each calling both of the next layer:
        // 2 × (2 + 4 + … + 2^29) paths, far more than MAX_PATHS.
        let mut text = String::from(
            r"system: s
entrypoints: [l0a]
components:
",
        );
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
        let (rows, _) = rows(&m, &intact(&m), &paths);
        // Depth first: the deepest path, 29 retrying hops, 2^29, comes first.
        assert!((rows[0].amplification - 2f64.powi(29)).abs() < 1.0);
        // Aggregated per last hop: at most one row per component but l0a.
        assert!(rows.len() <= 59, "{}", rows.len());
    }

    #[test]
    fn long_paths_get_short_unique_ids() {
        // A chain of 40: the path to c39 has 40 names; its id keeps 8 + 8.
        let mut text = String::from(
            r"system: s
entrypoints: [c0]
components:
",
        );
        for i in 0..39 {
            let _ = writeln!(text, "  c{i}: {{depends_on: [c{}]}}", i + 1);
        }
        text.push_str("  c39: {}\n");
        let m = model(&text);
        let paths = walk(&m);
        let ids: Vec<String> = paths.paths.iter().map(|p| p.id(&m)).collect();
        assert_eq!(
            ids[14],
            "c0>c1>c2>c3>c4>c5>c6>c7>c8>c9>c10>c11>c12>c13>c14>c15"
        );
        let long = &ids[38];
        assert!(
            long.starts_with("c0>c1>c2>c3>c4>c5>c6>c7>…>c32>c33>c34>c35>c36>c37>c38>c39#"),
            "{long}"
        );
        // The hash carried along the hops is FNV-1a of the whole path's
        // names joined by `>`, as if computed from them at the end. The
        // paths of 17 names (c0..c16) and 16 (c0..c15) are on either side
        // of the cut.
        for (index, path) in paths.paths.iter().enumerate() {
            let names = path.names(&m).join(">");
            if path.len > MAX_ID_NAMES {
                let hash = format!("#{:016x}", fnv(FNV_OFFSET, names.as_bytes()));
                assert!(ids[index].ends_with(&hash), "{}", ids[index]);
            } else {
                assert_eq!(ids[index], names);
            }
        }
        assert_eq!(
            ids[15],
            format!(
                "c0>c1>c2>c3>c4>c5>c6>c7>…>c9>c10>c11>c12>c13>c14>c15>c16#{:016x}",
                fnv(
                    FNV_OFFSET,
                    (0..17)
                        .map(|i| format!("c{i}"))
                        .collect::<Vec<_>>()
                        .join(">")
                        .as_bytes()
                )
            )
        );
        let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
    }

    #[test]
    fn critical_rate_edges() {
        assert_eq!(critical_failure_rate(100.0, 100.0, 110.0, 1.0), None);
        assert_eq!(critical_failure_rate(0.0, 0.0, 110.0, 3.0), None);
        assert_eq!(critical_failure_rate(120.0, 120.0, 110.0, 3.0), Some(0.0));
        // (110 / 100 − 1) / (3 − 1) = 0.05
        assert!((critical_failure_rate(100.0, 100.0, 110.0, 3.0).unwrap() - 0.05).abs() < 1e-12);
        // Half of the 100 over the path: (110 − 100) / (50 × (3 − 1)) = 0.1
        assert!((critical_failure_rate(100.0, 50.0, 110.0, 3.0).unwrap() - 0.1).abs() < 1e-12);
        // The path sends nothing (its caller is down): no storm from it.
        assert_eq!(critical_failure_rate(100.0, 0.0, 110.0, 3.0), None);
    }
}

//! The dependency diagram, built once from the model and the report's
//! findings: components as nodes in layers (callers above what they call),
//! failure domains as nested clusters, degradable edges marked, and the
//! single points of failure flagged. The renderers ([`mermaid`], [`dot`],
//! [`svg`]) only format this data; [`layout`] places it for the SVG.

pub mod dot;
pub mod layout;
pub mod mermaid;
pub mod route;
pub mod svg;
pub mod wrap;

use crate::analyze::Finding;
use crate::model::{ComponentId, DomainId, EdgeKind, Model};

/// Everything a renderer needs to draw the dependency graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagram {
    /// The system's name.
    pub system: String,
    /// Domains that hold at least one node (directly or in a domain inside
    /// them), in model order; a parent always comes before its children.
    pub clusters: Vec<Cluster>,
    /// Components, in model order.
    pub nodes: Vec<Node>,
    /// Calls, in model order of the caller, then of its `depends_on`.
    pub edges: Vec<Link>,
    /// `failover_to`: (from, to) node indices, in model order.
    pub failovers: Vec<(usize, usize)>,
    /// Components left out of a large model's diagram ([`Diagram::focus`]).
    pub hidden: usize,
}

/// A failure domain drawn as a cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// The domain's name.
    pub name: String,
    /// Its kind (region, zone …).
    pub kind: String,
    /// The enclosing cluster (an index into [`Diagram::clusters`]).
    pub parent: Option<usize>,
    /// Whether losing the domain takes an entrypoint down (`spof/<domain>`).
    pub spof: bool,
}

/// A component drawn as a box.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The component's name.
    pub name: String,
    /// A second line: kind and instances (`datastore · 1 instance`).
    pub detail: String,
    /// Where its instances run (`az-a: 2, az-b: 1`), empty when unplaced.
    pub placement: String,
    /// The innermost cluster holding every instance, if any.
    pub cluster: Option<usize>,
    /// Whether one instance failing takes an entrypoint down (`spof/<component>`).
    pub spof: bool,
    /// Whether it is an entrypoint.
    pub entrypoint: bool,
    /// Its layer: the longest call path from an entrypoint to it (cycles
    /// broken at the edge that closes them).
    pub layer: usize,
    /// The shared-fate groups it belongs to.
    pub shares: Vec<String>,
}

/// A call from one node to another.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The caller (an index into [`Diagram::nodes`]).
    pub from: usize,
    /// The callee.
    pub to: usize,
    /// Whether the caller works without it (drawn dashed).
    pub degradable: bool,
    /// `any of` or `2 of 3` for alternatives; `None` for a plain target.
    pub label: Option<String>,
    /// The `depends_on` entry it comes from, numbered over the diagram: the
    /// links of one `any_of` or `at_least` share it and are drawn as one
    /// group.
    pub group: usize,
}

impl Diagram {
    /// Builds the diagram of `model`, marking the SPOFs found in `findings`.
    #[must_use]
    pub fn new(model: &Model, findings: &[Finding]) -> Self {
        // The names the `spof` rule flags, looked up once per component and
        // domain: one pass over the findings, not one per name.
        let flagged: std::collections::HashSet<&str> = findings
            .iter()
            .filter(|f| f.rule == "spof")
            .map(|f| f.subject.name())
            .collect();
        let spof = |name: &str| flagged.contains(name);
        let mut entrypoint = vec![false; model.components.len()];
        for id in &model.entrypoints {
            entrypoint[id.0] = true;
        }
        let home: Vec<Option<DomainId>> = model
            .component_ids()
            .map(|id| innermost_domain(model, id))
            .collect();
        // A domain is drawn when a component lives in it or inside it.
        let mut shown = vec![false; model.domains.len()];
        for domain in home.iter().flatten() {
            shown[domain.0] = true;
            for a in &model.domain(*domain).ancestors {
                shown[a.0] = true;
            }
        }
        let order = parents_first(model, &shown);
        let mut index = vec![None; model.domains.len()];
        for (at, d) in order.iter().enumerate() {
            index[d.0] = Some(at);
        }
        let clusters = order
            .iter()
            .map(|&d| {
                let domain = model.domain(d);
                Cluster {
                    name: domain.name.clone(),
                    kind: domain.kind.clone(),
                    parent: domain.parent.and_then(|p| index[p.0]),
                    spof: spof(&domain.name),
                }
            })
            .collect();
        let edges = links(model);
        let layers = layers(model, &edges);
        let nodes = model
            .component_ids()
            .map(|id| {
                let c = model.component(id);
                let instances = if c.instances == 1 {
                    "1 instance".to_owned()
                } else {
                    format!("{} instances", c.instances)
                };
                Node {
                    name: c.name.clone(),
                    detail: match &c.kind {
                        Some(kind) => format!("{kind} · {instances}"),
                        None => instances,
                    },
                    placement: c
                        .placement
                        .iter()
                        .map(|&(d, n)| format!("{}: {n}", model.domain(d).name))
                        .collect::<Vec<_>>()
                        .join(", "),
                    cluster: home[id.0].and_then(|d| index[d.0]),
                    spof: spof(&c.name),
                    entrypoint: entrypoint[id.0],
                    layer: layers[id.0],
                    shares: c
                        .shares
                        .iter()
                        .map(|g| model.groups[g.0].name.clone())
                        .collect(),
                }
            })
            .collect();
        let failovers = model
            .component_ids()
            .filter_map(|id| {
                let to = model.component(id).failover_to?;
                Some((id.0, to.0))
            })
            .collect();
        Self {
            system: model.system.clone(),
            clusters,
            nodes,
            edges,
            failovers,
            hidden: 0,
        }
    }

    /// The diagram of a large model cut down to what a reviewer reads: the
    /// components named by findings, most serious first (errors, then
    /// warnings, then notes, by how many name them, then model order), each
    /// with a shortest call path from an entrypoint down to it, as many as
    /// fit in `limit` components. [`Diagram::hidden`] counts the rest. A
    /// diagram within the limit is returned as it is. (The breadth-first
    /// walk is hand-written: it works on the diagram's own nodes and keeps
    /// the first caller reaching each one, part of the layout's rule.)
    #[must_use]
    pub fn focus(self, findings: &[Finding], limit: usize) -> Self {
        let n = self.nodes.len();
        if n <= limit {
            return self;
        }
        let index: std::collections::HashMap<&str, usize> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| (node.name.as_str(), i))
            .collect();
        // How much the findings naming a component weigh: an error counts
        // more than any number of warnings, a warning more than notes.
        let mut weight = vec![0u64; n];
        for finding in findings {
            let add = match finding.severity {
                crate::analyze::Severity::Error => 1 << 40,
                crate::analyze::Severity::Warning => 1 << 20,
                crate::analyze::Severity::Note => 1,
            };
            let pieces = std::iter::once(finding.subject.name()).chain(finding.subject.then());
            for part in pieces.flat_map(|piece| piece.split(['/', '>'])) {
                if let Some(&i) = index.get(part) {
                    weight[i] = weight[i].saturating_add(add);
                }
            }
        }
        // Breadth-first from the entrypoints: the caller that first reaches
        // each node, so a kept node brings its shortest path along.
        let mut callees: Vec<Vec<usize>> = vec![Vec::new(); n];
        for link in &self.edges {
            callees[link.from].push(link.to);
        }
        let mut parent: Vec<Option<usize>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut queue: std::collections::VecDeque<usize> = (0..n)
            .filter(|&i| self.nodes[i].entrypoint)
            .inspect(|&i| seen[i] = true)
            .collect();
        while let Some(node) = queue.pop_front() {
            for &next in &callees[node] {
                if !seen[next] {
                    seen[next] = true;
                    parent[next] = Some(node);
                    queue.push_back(next);
                }
            }
        }
        let mut keep = vec![false; n];
        let mut kept = 0;
        let mut wanted: Vec<usize> = (0..n).filter(|&i| weight[i] > 0).collect();
        wanted.sort_by_key(|&i| (std::cmp::Reverse(weight[i]), i));
        if wanted.is_empty() {
            wanted = (0..n).filter(|&i| self.nodes[i].entrypoint).collect();
        }
        for start in wanted {
            let mut path = Vec::new();
            let mut at = Some(start);
            while let Some(i) = at {
                if keep[i] {
                    break;
                }
                path.push(i);
                at = parent[i];
            }
            if kept + path.len() > limit {
                continue;
            }
            for i in path {
                keep[i] = true;
                kept += 1;
            }
        }
        self.keep(&keep)
    }

    /// The sub-diagram of the kept nodes, layers and clusters renumbered.
    fn keep(self, keep: &[bool]) -> Self {
        let mut new_index = vec![None; self.nodes.len()];
        let mut at = 0;
        for (i, &k) in keep.iter().enumerate() {
            if k {
                new_index[i] = Some(at);
                at += 1;
            }
        }
        let hidden = self.nodes.len() - at;
        // Layers without a kept node close up.
        let mut used: Vec<usize> = self
            .nodes
            .iter()
            .zip(keep)
            .filter(|&(_, &k)| k)
            .map(|(node, _)| node.layer)
            .collect();
        used.sort_unstable();
        used.dedup();
        // Clusters holding a kept node (or a cluster that does).
        let mut shown = vec![false; self.clusters.len()];
        for (node, _) in self.nodes.iter().zip(keep).filter(|&(_, &k)| k) {
            let mut c = node.cluster;
            while let Some(i) = c {
                shown[i] = true;
                c = self.clusters[i].parent;
            }
        }
        let mut cluster_index = vec![None; self.clusters.len()];
        let mut next = 0;
        for (i, &s) in shown.iter().enumerate() {
            if s {
                cluster_index[i] = Some(next);
                next += 1;
            }
        }
        let clusters = self
            .clusters
            .into_iter()
            .zip(&shown)
            .filter(|&(_, &s)| s)
            .map(|(mut cluster, _)| {
                cluster.parent = cluster.parent.and_then(|p| cluster_index[p]);
                cluster
            })
            .collect();
        let nodes = self
            .nodes
            .into_iter()
            .zip(keep)
            .filter(|&(_, &k)| k)
            .map(|(mut node, _)| {
                node.layer = used.partition_point(|&l| l < node.layer);
                node.cluster = node.cluster.and_then(|c| cluster_index[c]);
                node
            })
            .collect();
        let edges = self
            .edges
            .into_iter()
            .filter_map(|mut link| {
                link.from = new_index[link.from]?;
                link.to = new_index[link.to]?;
                Some(link)
            })
            .collect();
        let failovers = self
            .failovers
            .into_iter()
            .filter_map(|(a, b)| Some((new_index[a]?, new_index[b]?)))
            .collect();
        Self {
            system: self.system,
            clusters,
            nodes,
            edges,
            failovers,
            hidden: self.hidden + hidden,
        }
    }

    /// The number of layers.
    #[must_use]
    pub fn depth(&self) -> usize {
        self.nodes.iter().map(|n| n.layer + 1).max().unwrap_or(0)
    }
}

/// The innermost domain holding all of a component's instances: the one
/// domain it is placed in, or the nearest domain enclosing all of them.
fn innermost_domain(model: &Model, id: ComponentId) -> Option<DomainId> {
    let mut placed = model
        .component(id)
        .placement
        .iter()
        .filter(|&&(_, n)| n > 0)
        .map(|&(d, _)| d);
    let first = placed.next()?;
    let mut candidates: Vec<DomainId> = std::iter::once(first)
        .chain(model.domain(first).ancestors.iter().copied())
        .collect();
    for other in placed {
        let chain: Vec<DomainId> = std::iter::once(other)
            .chain(model.domain(other).ancestors.iter().copied())
            .collect();
        candidates.retain(|c| chain.contains(c));
    }
    candidates.first().copied()
}

/// The shown domains, each parent before its children, siblings in model
/// order: a walk over each domain's shown children, listed once (no scan
/// of every domain per domain), with an explicit stack (no recursion).
fn parents_first(model: &Model, shown: &[bool]) -> Vec<DomainId> {
    // children[0]: the top level; children[i + 1]: inside domain i.
    let mut children: Vec<Vec<DomainId>> = vec![Vec::new(); model.domains.len() + 1];
    for (at, domain) in model.domains.iter().enumerate() {
        if shown[at] {
            children[domain.parent.map_or(0, |p| p.0 + 1)].push(DomainId(at));
        }
    }
    let mut out = Vec::new();
    let mut stack: Vec<DomainId> = children[0].iter().rev().copied().collect();
    while let Some(d) = stack.pop() {
        out.push(d);
        stack.extend(children[d.0 + 1].iter().rev().copied());
    }
    out
}

/// What lies directly in each cluster of a diagram, in diagram order:
/// index 0 the top level, index `i + 1` cluster `i`.
pub(super) struct Members {
    nodes: Vec<Vec<usize>>,
    clusters: Vec<Vec<usize>>,
}

/// The index of `cluster` in [`Members`]' lists (`None`: the top level).
fn slot(cluster: Option<usize>) -> usize {
    cluster.map_or(0, |c| c + 1)
}

impl Members {
    /// Listed in one pass over the nodes and one over the clusters.
    pub(super) fn of(diagram: &Diagram) -> Self {
        let mut nodes = vec![Vec::new(); diagram.clusters.len() + 1];
        for (index, node) in diagram.nodes.iter().enumerate() {
            nodes[slot(node.cluster)].push(index);
        }
        let mut clusters = vec![Vec::new(); diagram.clusters.len() + 1];
        for (index, cluster) in diagram.clusters.iter().enumerate() {
            clusters[slot(cluster.parent)].push(index);
        }
        Self { nodes, clusters }
    }

    /// The nodes directly in `cluster` (`None`: the top level).
    pub(super) fn nodes_in(&self, cluster: Option<usize>) -> &[usize] {
        &self.nodes[slot(cluster)]
    }

    /// The clusters directly in `cluster` (`None`: the top level).
    pub(super) fn clusters_in(&self, cluster: Option<usize>) -> &[usize] {
        &self.clusters[slot(cluster)]
    }
}

/// Whether each group of alternatives has been drawn: one flag per group
/// number (a list searched per link was quadratic in the groups).
pub(super) fn group_flags(diagram: &Diagram) -> Vec<bool> {
    vec![false; diagram.edges.iter().map(|l| l.group + 1).max().unwrap_or(0)]
}

fn links(model: &Model) -> Vec<Link> {
    let mut out = Vec::new();
    let mut group = 0;
    for id in model.component_ids() {
        for edge in &model.component(id).depends_on {
            group += 1;
            let label = match edge.kind {
                EdgeKind::Target => None,
                EdgeKind::AnyOf => Some("any of".to_owned()),
                EdgeKind::AtLeast => Some(format!("{} of {}", edge.at_least, edge.targets.len())),
            };
            for target in &edge.targets {
                out.push(Link {
                    from: id.0,
                    to: target.0,
                    degradable: edge.degradable,
                    label: label.clone(),
                    group,
                });
            }
        }
    }
    out
}

/// The longest path from a root to each node, over every edge but those
/// that close a cycle (found by a depth-first walk from the entrypoints,
/// then from any node not reached yet, in model order). Hand-written, as
/// the rest of the layout: which edges count as closing a cycle is a
/// choice of the drawing (entrypoints first), not a graph property.
fn layers(model: &Model, links: &[Link]) -> Vec<usize> {
    let n = model.components.len();
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for link in links {
        if link.from != link.to && !out_edges[link.from].contains(&link.to) {
            out_edges[link.from].push(link.to);
        }
    }
    // 0 unvisited, 1 on the stack, 2 done.
    let mut state = vec![0u8; n];
    let mut finished: Vec<usize> = Vec::with_capacity(n);
    let mut kept: Vec<Vec<usize>> = vec![Vec::new(); n];
    let roots = model
        .entrypoints
        .iter()
        .map(|e| e.0)
        .chain(0..n)
        .collect::<Vec<_>>();
    for root in roots {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&target) = out_edges[node].get(*next) {
                *next += 1;
                match state[target] {
                    0 => {
                        kept[node].push(target);
                        state[target] = 1;
                        stack.push((target, 0));
                    }
                    2 => kept[node].push(target),
                    _ => {} // closes a cycle: ignored for layering
                }
            } else {
                state[node] = 2;
                finished.push(node);
                stack.pop();
            }
        }
    }
    let mut layer = vec![0usize; n];
    // Reverse finishing order is a topological order of the kept edges.
    for &node in finished.iter().rev() {
        for &target in &kept[node] {
            layer[target] = layer[target].max(layer[node] + 1);
        }
    }
    layer
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;

    fn diagram(text: &str) -> Diagram {
        let model = crate::model::parse(text).unwrap();
        let audit = crate::analyze::audit(
            &model,
            text,
            crate::engine::scenario::Scenario::default(),
            crate::analyze::Options::new(crate::model::Date::parse("2026-11-30").unwrap()),
        );
        Diagram::new(&model, &audit.findings)
    }

    #[test]
    fn domains_come_parents_first_siblings_in_model_order() {
        // Listed r1, r2, a (in r1), b (in r1), c (in r2), x (in b): a walk
        // from the top gives r1, a, b, x, r2, c. Hidden domains (none
        // shown in r2) are left out with what is inside them.
        let text = "system: s\ndomains:\n  r1: {kind: region}\n  r2: {kind: region}\n  a: {kind: zone, in: r1}\n  b: {kind: zone, in: r1}\n  c: {kind: zone, in: r2}\n  x: {kind: rack, in: b}\ncomponents:\n  web: {placement: [a]}\n";
        let model = crate::model::parse(text).unwrap();
        let names = |order: Vec<DomainId>| -> Vec<String> {
            order
                .into_iter()
                .map(|d| model.domain(d).name.clone())
                .collect()
        };
        assert_eq!(
            names(parents_first(&model, &[true; 6])),
            ["r1", "a", "b", "x", "r2", "c"]
        );
        assert_eq!(
            names(parents_first(
                &model,
                &[true, false, true, true, false, true]
            )),
            ["r1", "a", "b", "x"]
        );
    }

    #[test]
    fn layers_follow_the_longest_call_path() {
        // lb -> api -> db and lb -> db: db is two calls down, not one.
        let d = diagram(
            r"system: s
components:
  lb: {depends_on: [api, db]}
  api: {depends_on: [db]}
  db: {}
",
        );
        let layers: Vec<usize> = d.nodes.iter().map(|n| n.layer).collect();
        assert_eq!(layers, [0, 1, 2]);
        assert!(d.nodes.iter().all(|n| n.spof));
    }

    #[test]
    fn a_cycle_is_broken_at_its_closing_edge() {
        let d = diagram(
            r"system: s
entrypoints: [a]
components:
  a: {depends_on: [b]}
  b: {depends_on: [a]}
",
        );
        let layers: Vec<usize> = d.nodes.iter().map(|n| n.layer).collect();
        assert_eq!(layers, [0, 1]);
    }

    #[test]
    fn spof_marks_are_one_pass_over_the_findings() {
        // Issue 16: each node used to scan every finding, formatting
        // `spof/<name>` anew for each: 20,000 nodes x 20,000 findings is
        // 4 x 10^8 formatted strings, minutes in a debug build, where one
        // set of the flagged names takes milliseconds. A chain c0 -> c1 ->
        // ... -> c19999 with every component flagged, plus one finding
        // that names no component.
        const N: usize = 20_000;
        let mut text = String::from("system: s\nentrypoints: [c0]\ncomponents:\n");
        for i in 0..N - 1 {
            let _ = writeln!(text, "  c{i}: {{depends_on: [c{}]}}", i + 1);
        }
        let _ = writeln!(text, "  c{}: {{}}", N - 1);
        let model = crate::model::parse(&text).unwrap();
        let base = crate::analyze::Finding::new(
            crate::model::Rule::Spof,
            "c0",
            crate::analyze::Severity::Error,
            crate::model::Span::default(),
            crate::analyze::Text::new(""),
        );
        let mut findings: Vec<Finding> = (0..N)
            .map(|i| Finding {
                subject: format!("c{i}").into(),
                ..base.clone()
            })
            .collect();
        // `spof/c1x` names no component.
        findings.push(Finding {
            subject: "c1x".into(),
            ..base.clone()
        });
        let d = Diagram::new(&model, &findings[1..]);
        // Every node but c0 (its finding left out above) is marked, in a
        // chain layered 0, 1, 2, ...
        assert!(!d.nodes[0].spof);
        assert_eq!(d.nodes.iter().filter(|n| n.spof).count(), N - 1);
        assert_eq!(d.nodes[N - 1].layer, N - 1);
        assert!(d.nodes[0].entrypoint && !d.nodes[1].entrypoint);
    }

    #[test]
    fn components_live_in_the_innermost_domain_holding_them() {
        let d = diagram(
            r"system: s
domains:
  r: {kind: region}
  a: {kind: zone, in: r}
  b: {kind: zone, in: r}
  empty: {kind: zone, in: r}
components:
  web: {instances: 2, placement: [a, b], depends_on: [{target: cache, degradable: true}, db]}
  db: {placement: [a]}
  cache: {}
",
        );
        let names: Vec<&str> = d.clusters.iter().map(|c| c.name.as_str()).collect();
        // web spreads over a and b, so it lives in r; no component lives in
        // `b` or `empty` alone, so they are not drawn.
        assert_eq!(names, ["r", "a"]);
        assert_eq!(d.nodes[0].cluster, Some(0));
        assert_eq!(d.nodes[1].cluster, Some(1));
        assert_eq!(d.nodes[2].cluster, None);
        assert!(d.clusters[1].spof && !d.clusters[0].spof);
        assert!(d.edges[0].degradable && !d.edges[1].degradable);
    }
}

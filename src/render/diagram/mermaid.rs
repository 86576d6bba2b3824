//! The diagram as a Mermaid flowchart, for Markdown (a ```` ```mermaid ````
//! block renders on GitHub and GitLab) and `nines graph --format mermaid`.
//! Node ids are positional (`c0`, `d0`), so no name can clash with Mermaid
//! syntax; labels are quoted with `"` written as `#quot;`.

use std::fmt::Write as _;

use super::{Diagram, Members, group_flags};
use crate::render::escape;

/// The flowchart text, ending with a newline.
#[must_use]
pub fn render(diagram: &Diagram) -> String {
    let mut out = String::from("flowchart TD\n");
    cluster_body(diagram, &Members::of(diagram), None, 1, &mut out);
    // A group of alternatives (`any_of`, `at_least`) is drawn once: the
    // caller points at a small round node labelled `any of` or `2 of 3`,
    // which points at each alternative.
    let mut drawn = group_flags(diagram);
    for link in &diagram.edges {
        let arrow = if link.degradable { "-.->" } else { "-->" };
        match &link.label {
            None => {
                let _ = writeln!(out, "  c{} {arrow} c{}", link.from, link.to);
            }
            Some(label) => {
                if !std::mem::replace(&mut drawn[link.group], true) {
                    let _ = writeln!(out, "  g{}((\"{}\"))", link.group, quote(label));
                    let _ = writeln!(out, "  c{} {arrow} g{}", link.from, link.group);
                }
                let _ = writeln!(out, "  g{} {arrow} c{}", link.group, link.to);
            }
        }
    }
    // Failover moves load, not requests: a thick arrow labelled so.
    for &(from, to) in &diagram.failovers {
        let _ = writeln!(out, "  c{from} ==>|failover| c{to}");
    }
    let spofs: Vec<String> = diagram
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.spof)
        .map(|(i, _)| format!("c{i}"))
        .collect();
    if !spofs.is_empty() {
        out.push_str("  classDef spof stroke:#c0392b,stroke-width:3px\n");
        let _ = writeln!(out, "  class {} spof", spofs.join(","));
    }
    let spof_clusters: Vec<String> = diagram
        .clusters
        .iter()
        .enumerate()
        .filter(|(_, c)| c.spof)
        .map(|(i, _)| format!("d{i}"))
        .collect();
    if !spof_clusters.is_empty() {
        out.push_str("  classDef spofDomain stroke:#c0392b,stroke-width:2px\n");
        let _ = writeln!(out, "  class {} spofDomain", spof_clusters.join(","));
    }
    out
}

/// Writes the nodes directly in `cluster`, then its child clusters as
/// nested subgraphs.
fn cluster_body(
    diagram: &Diagram,
    members: &Members,
    cluster: Option<usize>,
    depth: usize,
    out: &mut String,
) {
    let indent = "  ".repeat(depth);
    for &index in members.nodes_in(cluster) {
        let node = &diagram.nodes[index];
        let spof = if node.spof { " · SPOF" } else { "" };
        let _ = writeln!(
            out,
            "{indent}c{index}[\"{}{spof}<br/>{}\"]",
            quote(&node.name),
            quote(&node.detail)
        );
    }
    for &index in members.clusters_in(cluster) {
        let child = &diagram.clusters[index];
        let spof = if child.spof { " · SPOF" } else { "" };
        let _ = writeln!(
            out,
            "{indent}subgraph d{index}[\"{} ({}){spof}\"]",
            quote(&child.name),
            quote(&child.kind)
        );
        cluster_body(diagram, members, Some(index), depth + 1, out);
        let _ = writeln!(out, "{indent}end");
    }
}

/// Text inside a quoted Mermaid label: entity codes for the characters
/// Mermaid or the HTML it produces would read as syntax, directives
/// (`%%{init: …}%%`) included (see [`escape::mermaid`]).
fn quote(text: &str) -> String {
    escape::mermaid(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_domains_become_nested_subgraphs() {
        let text = "system: s\ndomains: {r: {kind: region}, a: {kind: zone, in: r}, b: {kind: zone, in: r}}\ncomponents:\n  web: {instances: 2, placement: [a, b], depends_on: [{any_of: [db], degradable: true}]}\n  db: {kind: \"x\\\"y\", placement: [a]}\n";
        let model = crate::model::parse(text).unwrap();
        let out = render(&Diagram::new(&model, &[]));
        assert_eq!(
            out,
            "flowchart TD\n  subgraph d0[\"r (region)\"]\n    c0[\"web<br/>2 instances\"]\n    subgraph d1[\"a (zone)\"]\n      c1[\"db<br/>x#quot;y · 1 instance\"]\n    end\n  end\n  g1((\"any of\"))\n  c0 -.-> g1\n  g1 -.-> c1\n"
        );
    }
}

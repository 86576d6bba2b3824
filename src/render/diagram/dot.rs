//! The diagram in Graphviz DOT (`nines graph --format dot | dot -Tsvg`):
//! domains as nested `cluster_` subgraphs, degradable edges dashed,
//! `failover_to` dotted purple, SPOFs with a red border. Every id and label is a quoted, escaped string.

use std::fmt::Write as _;

use super::{Diagram, Members, group_flags};

/// The DOT text, ending with a newline.
#[must_use]
pub fn render(diagram: &Diagram) -> String {
    let mut out = format!("digraph {} {{\n", quote(&diagram.system));
    // `newrank` ranks across clusters as a whole, so a caller in one domain
    // stays above what it calls in another.
    out.push_str("  rankdir=TB;\n  newrank=true;\n  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\"];\n  edge [color=\"#555555\"];\n");
    cluster_body(diagram, &Members::of(diagram), None, 1, &mut out);
    // A group of alternatives (`any_of`, `at_least`) is drawn once: the
    // caller points at a small circle labelled `any of` or `2 of 3`, which
    // points at each alternative. Its id has a space, which no component
    // name can have.
    let mut drawn = group_flags(diagram);
    for link in &diagram.edges {
        let style = if link.degradable {
            " [style=dashed]"
        } else {
            ""
        };
        let from = quote(&diagram.nodes[link.from].name);
        let to = quote(&diagram.nodes[link.to].name);
        match &link.label {
            None => {
                let _ = writeln!(out, "  {from} -> {to}{style};");
            }
            Some(label) => {
                let group = quote(&format!("group {}", link.group));
                if !std::mem::replace(&mut drawn[link.group], true) {
                    let _ = writeln!(
                        out,
                        "  {group} [shape=circle, label={}, fontsize=9, margin=0.02];",
                        quote(label)
                    );
                    let _ = writeln!(out, "  {from} -> {group}{style};");
                }
                let _ = writeln!(out, "  {group} -> {to}{style};");
            }
        }
    }
    // Failover moves load, not requests: dotted purple, not ranked.
    for &(from, to) in &diagram.failovers {
        let _ = writeln!(
            out,
            "  {} -> {} [style=dotted, color=\"#8e44ad\", label=\"failover\", constraint=false];",
            quote(&diagram.nodes[from].name),
            quote(&diagram.nodes[to].name)
        );
    }
    out.push_str("}\n");
    out
}

fn cluster_body(
    diagram: &Diagram,
    members: &Members,
    cluster: Option<usize>,
    depth: usize,
    out: &mut String,
) {
    let indent = "  ".repeat(depth);
    for node in members.nodes_in(cluster).iter().map(|&i| &diagram.nodes[i]) {
        let (name, extra) = if node.spof {
            (
                format!("{} (SPOF)", node.name),
                ", color=\"#c0392b\", penwidth=3",
            )
        } else {
            (node.name.clone(), "")
        };
        let _ = writeln!(
            out,
            "{indent}{} [label={}{extra}];",
            quote(&node.name),
            quote(&format!("{name}\n{}", node.detail))
        );
    }
    for &index in members.clusters_in(cluster) {
        let child = &diagram.clusters[index];
        let (tag, color) = if child.spof {
            (" (SPOF)", "#c0392b")
        } else {
            ("", "#8a9bb0")
        };
        let _ = writeln!(
            out,
            "{indent}subgraph {} {{",
            quote(&format!("cluster_{}", child.name))
        );
        let _ = writeln!(
            out,
            "{indent}  label={}; color={}; style=rounded;",
            quote(&format!("{} ({}){tag}", child.name, child.kind)),
            quote(color)
        );
        cluster_body(diagram, members, Some(index), depth + 1, out);
        let _ = writeln!(out, "{indent}}}");
    }
}

/// A DOT double-quoted string; a newline becomes the `\n` line break.
fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            // Shown, never obeyed, by a terminal or a viewer.
            c if crate::render::escape::is_unsafe_char(c) => {
                let shown = crate::render::escape::terminal(c.encode_utf8(&mut [0; 4]))
                    .replace('\\', "\\\\");
                out.push_str(&shown);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_quoted_and_escaped() {
        assert_eq!(quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
    }
}

//! The diagram as an inline SVG element for the HTML report: no script, no
//! external font or link, every text escaped. Clusters are labelled
//! rectangles, required calls solid arrows, degradable calls dashed,
//! `failover_to` dotted purple, each `any_of`/`at_least` one junction with
//! its label, shared-fate groups a tag in their members' boxes, SPOFs red
//! with a `SPOF` tag, and a legend for every mark; each box has a `<title>`
//! tooltip with its placement. Arrows are routed by [`super::route`].

use std::fmt::Write as _;

use super::Diagram;
use super::layout::{LEGEND_HEIGHT, Rect, cluster_label, layout};
use super::route::{Kind, route};
use crate::render::escape::xml as escape_xml;

const RED: &str = "#c0392b";
/// Failover arrows.
const FAILOVER: &str = "#8e44ad";
/// Shared-fate tags.
const SHARED: &str = "#b9770e";

/// The `<svg>` element. A diagram wider than the page is wrapped onto more
/// rows first ([`super::wrap`]); it then scales down to the width of the
/// page (its `viewBox` keeps the proportions), so nothing is cut off on a
/// narrow screen or on paper; it is never drawn larger than its natural size.
#[must_use]
pub fn render(diagram: &Diagram) -> String {
    let wrapped = super::wrap::wrap(diagram, super::wrap::PAGE_WIDTH);
    let diagram = &wrapped;
    let placed = layout(diagram);
    let routes = route(diagram, &placed);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg class="diagram" role="img" aria-labelledby="diagram-title" width="100%" viewBox="0 0 {w:.0} {h:.0}" style="max-width:{w:.0}px;height:auto" preserveAspectRatio="xMinYMin meet" font-family="sans-serif" font-size="13">"#,
        w = placed.width,
        h = placed.height
    );
    let _ = writeln!(
        out,
        r#"<title id="diagram-title">Dependencies of {}</title>"#,
        escape_xml(&diagram.system)
    );
    let _ = writeln!(
        out,
        concat!(
            r#"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">"#,
            r##"<path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker>"##,
            r#"<marker id="arrow-failover" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">"#,
            r#"<path d="M 0 0 L 10 5 L 0 10 z" fill="{}"/></marker></defs>"#
        ),
        FAILOVER
    );
    for (cluster, rect) in diagram.clusters.iter().zip(&placed.clusters) {
        let Some(rect) = rect else { continue };
        let stroke = if cluster.spof { RED } else { "#8a9bb0" };
        let _ = writeln!(
            out,
            r##"<g class="cluster"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="6" fill="#eef3f9" fill-opacity="0.55" stroke="{stroke}" stroke-width="{}"/></g>"##,
            rect.x,
            rect.y,
            rect.width,
            rect.height,
            if cluster.spof { 2 } else { 1 },
        );
    }
    for arrow in &routes.routes {
        let (stroke, dash, marker, class) = match arrow.kind {
            Kind::Call { degradable: false } => ("#555", "", "arrow", "edge"),
            Kind::Call { degradable: true } => (
                "#555",
                r#" stroke-dasharray="6 4""#,
                "arrow",
                "edge degradable",
            ),
            Kind::Failover => (
                FAILOVER,
                r#" stroke-dasharray="2 3""#,
                "arrow-failover",
                "edge failover",
            ),
        };
        let mut d = String::new();
        for (i, (x, y)) in arrow.points.iter().enumerate() {
            let _ = write!(d, "{}{x:.1} {y:.1}", if i == 0 { "M " } else { " L " });
        }
        let _ = writeln!(
            out,
            r#"<path class="{class}" d="{d}" fill="none" stroke="{stroke}" stroke-width="1.3" stroke-linejoin="round"{dash} marker-end="url(#{marker})"/>"#
        );
    }
    // Cluster labels after the arrows, with a halo, though no arrow passes
    // them (route.rs keeps corridors clear of labels).
    for (cluster, label) in diagram.clusters.iter().zip(&placed.labels) {
        let Some(label) = label else { continue };
        let fill = if cluster.spof { RED } else { "#50637a" };
        let _ = writeln!(
            out,
            r##"<text class="cluster-label" x="{:.1}" y="{:.1}" font-size="11" fill="{fill}" stroke="#fff" stroke-width="3" paint-order="stroke">{}</text>"##,
            label.x + 2.0,
            label.y + 11.0,
            escape_xml(&cluster_label(cluster)),
        );
    }
    for junction in &routes.junctions {
        let (x, y) = junction.at;
        let (tx, ty) = junction.label_at;
        let _ = writeln!(
            out,
            r##"<g class="group"><circle cx="{x:.1}" cy="{y:.1}" r="4" fill="#fff" stroke="#555" stroke-width="1.5"/><text x="{tx:.1}" y="{ty:.1}" font-size="10" fill="#333" stroke="#fff" stroke-width="3" paint-order="stroke">{}</text></g>"##,
            escape_xml(&junction.label)
        );
    }
    for (node, rect) in diagram.nodes.iter().zip(&placed.nodes) {
        node_box(&mut out, node, rect);
    }
    legend(
        &mut out,
        placed.height - LEGEND_HEIGHT + 14.0,
        diagram.nodes.iter().any(|n| !n.shares.is_empty()),
    );
    out.push_str("</svg>\n");
    out
}

fn node_box(out: &mut String, node: &super::Node, rect: &Rect) {
    let (stroke, width) = if node.spof { (RED, 3) } else { ("#34495e", 1) };
    let fill = if node.entrypoint {
        "#fdf6e3"
    } else {
        "#ffffff"
    };
    let mut title = if node.placement.is_empty() {
        format!("{}: {}, no placement", node.name, node.detail)
    } else {
        format!("{}: {}, {}", node.name, node.detail, node.placement)
    };
    if !node.shares.is_empty() {
        let _ = write!(title, "; shares the fate of {}", node.shares.join(", "));
    }
    let _ = write!(
        out,
        r#"<g class="node{}"><title>{}</title><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="4" fill="{fill}" stroke="{stroke}" stroke-width="{width}"/>"#,
        if node.spof { " spof" } else { "" },
        escape_xml(&title),
        rect.x,
        rect.y,
        rect.width,
        rect.height,
    );
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">{}"#,
        rect.x + rect.width / 2.0,
        rect.y + 18.0,
        escape_xml(&node.name)
    );
    if node.spof {
        let _ = write!(out, r#" <tspan fill="{RED}">SPOF</tspan>"#);
    }
    let _ = write!(
        out,
        r##"</text><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="11" fill="#555">{}</text>"##,
        rect.x + rect.width / 2.0,
        rect.y + 35.0,
        escape_xml(&node.detail)
    );
    if !node.shares.is_empty() {
        let _ = write!(
            out,
            r#"<text class="shares" x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10" fill="{SHARED}">shares {}</text>"#,
            rect.x + rect.width / 2.0,
            rect.y + 50.0,
            escape_xml(&node.shares.join(", "))
        );
    }
    out.push_str("</g>\n");
}

/// Every mark the diagram uses, on two lines.
fn legend(out: &mut String, y: f64, shares: bool) {
    let t = y + 4.0;
    let r = y - 6.0;
    let _ = write!(
        out,
        r##"<g class="legend" font-size="11" fill="#333"><rect x="16" y="{r:.1}" width="16" height="12" fill="#fdf6e3" stroke="#34495e"/><text x="38" y="{t:.1}">entrypoint</text><rect x="112" y="{r:.1}" width="16" height="12" fill="#fff" stroke="{RED}" stroke-width="3"/><text x="134" y="{t:.1}">single point of failure (SPOF)</text><circle cx="330" cy="{y:.1}" r="4" fill="#fff" stroke="#555" stroke-width="1.5"/><text x="340" y="{t:.1}">any of / k of n: one group of alternatives</text>"##,
    );
    let y2 = y + 20.0;
    let (t2, m2) = (y2 + 4.0, y2);
    let _ = write!(
        out,
        r##"<line x1="16" y1="{m2:.1}" x2="46" y2="{m2:.1}" stroke="#555" stroke-width="1.3"/><text x="52" y="{t2:.1}">required call</text><line x1="140" y1="{m2:.1}" x2="170" y2="{m2:.1}" stroke="#555" stroke-width="1.3" stroke-dasharray="6 4"/><text x="176" y="{t2:.1}">degradable call</text><line x1="280" y1="{m2:.1}" x2="310" y2="{m2:.1}" stroke="{FAILOVER}" stroke-width="1.3" stroke-dasharray="2 3"/><text x="316" y="{t2:.1}">failover_to</text>"##,
    );
    if shares {
        let _ = write!(
            out,
            r#"<text x="396" y="{t2:.1}" fill="{SHARED}">shares X: member of shared-fate group X</text>"#
        );
    }
    out.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_svg_has_no_script_and_no_link() {
        let text = "system: s<x>\ncomponents:\n  web: {kind: \"a&b\", depends_on: [{target: db, degradable: true}]}\n  db: {}\n";
        let model = crate::model::parse(text).unwrap();
        let svg = render(&Diagram::new(&model, &[]));
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("s&lt;x&gt;") && svg.contains("a&amp;b · 1 instance"));
        assert!(svg.contains("stroke-dasharray=\"6 4\" marker-end"));
        assert!(svg.contains("width=\"100%\" viewBox="));
        assert!(!svg.contains("<script") && !svg.contains("http"));
    }
}

//! The diagram as an inline SVG element for the HTML report: no script, no
//! external font or link, every text escaped. Clusters are labelled
//! rectangles, required calls solid arrows, degradable calls dashed, SPOFs
//! red with a `SPOF` tag; each box has a `<title>` tooltip with its placement.

use std::fmt::Write as _;

use super::layout::{LEGEND_HEIGHT, Rect, layout};
use super::{Diagram, escape_xml};

const RED: &str = "#c0392b";

/// The `<svg>` element.
#[must_use]
pub fn render(diagram: &Diagram) -> String {
    let placed = layout(diagram);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg class="diagram" role="img" aria-labelledby="diagram-title" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif" font-size="13">"#,
        w = placed.width,
        h = placed.height
    );
    let _ = writeln!(
        out,
        r#"<title id="diagram-title">Dependencies of {}</title>"#,
        escape_xml(&diagram.system)
    );
    out.push_str(concat!(
        r#"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">"#,
        r##"<path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>"##,
        "\n"
    ));
    for (cluster, rect) in diagram.clusters.iter().zip(&placed.clusters) {
        let Some(rect) = rect else { continue };
        let (stroke, tag) = if cluster.spof {
            (RED, " · SPOF")
        } else {
            ("#8a9bb0", "")
        };
        let _ = writeln!(
            out,
            r##"<g class="cluster"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="6" fill="#eef3f9" fill-opacity="0.55" stroke="{stroke}" stroke-width="{}"/><text x="{:.1}" y="{:.1}" font-size="11" fill="{stroke}">{} ({}){tag}</text></g>"##,
            rect.x,
            rect.y,
            rect.width,
            rect.height,
            if cluster.spof { 2 } else { 1 },
            rect.x + 8.0,
            rect.y + 14.0,
            escape_xml(&cluster.name),
            escape_xml(&cluster.kind),
        );
    }
    for link in &diagram.edges {
        let (from, to) = (&placed.nodes[link.from], &placed.nodes[link.to]);
        let ((x1, y1), (x2, y2)) = ends(from, to);
        let dash = if link.degradable {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        // An arrow that would cross a box in a row between its ends bends
        // to the right around it (a quadratic curve through a side point).
        let bend = if crosses(
            diagram,
            &placed.nodes,
            link.from,
            link.to,
            (x1, y1),
            (x2, y2),
        ) {
            from.width + 30.0
        } else {
            0.0
        };
        let (cx, cy) = (f64::midpoint(x1, x2) + bend, f64::midpoint(y1, y2));
        let _ = write!(
            out,
            r##"<g class="edge"><path d="M {x1:.1} {y1:.1} Q {cx:.1} {cy:.1} {x2:.1} {y2:.1}" fill="none" stroke="#555" stroke-width="1.3"{dash} marker-end="url(#arrow)"/>"##
        );
        if let Some(label) = &link.label {
            // The curve's midpoint: a quarter of each end and half the control point.
            let (mx, my) = (
                0.25 * x1 + 0.5 * cx + 0.25 * x2,
                0.25 * y1 + 0.5 * cy + 0.25 * y2,
            );
            let _ = write!(
                out,
                r##"<text x="{:.1}" y="{:.1}" font-size="10" fill="#333" text-anchor="middle">{}</text>"##,
                mx,
                my - 3.0,
                escape_xml(label)
            );
        }
        out.push_str("</g>\n");
    }
    for (node, rect) in diagram.nodes.iter().zip(&placed.nodes) {
        let (stroke, width) = if node.spof { (RED, 3) } else { ("#34495e", 1) };
        let fill = if node.entrypoint {
            "#fdf6e3"
        } else {
            "#ffffff"
        };
        let title = if node.placement.is_empty() {
            format!("{}: {}, no placement", node.name, node.detail)
        } else {
            format!("{}: {}, {}", node.name, node.detail, node.placement)
        };
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
        let _ = writeln!(
            out,
            r##"</text><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="11" fill="#555">{}</text></g>"##,
            rect.x + rect.width / 2.0,
            rect.y + 35.0,
            escape_xml(&node.detail)
        );
    }
    legend(&mut out, placed.height - LEGEND_HEIGHT + 16.0);
    out.push_str("</svg>\n");
    out
}

/// Where a call's arrow starts and ends: from the caller's bottom to the
/// callee's top when the callee is lower, otherwise between the facing sides.
fn ends(from: &Rect, to: &Rect) -> ((f64, f64), (f64, f64)) {
    if to.y > from.y {
        (from.bottom(), to.top())
    } else if to.y < from.y {
        (from.top(), to.bottom())
    } else if to.x > from.x {
        (
            (from.x + from.width, from.y + from.height / 2.0),
            (to.x, to.y + to.height / 2.0),
        )
    } else {
        (
            (from.x, from.y + from.height / 2.0),
            (to.x + to.width, to.y + to.height / 2.0),
        )
    }
}

/// Whether the straight arrow between two boxes passes through a box in a
/// row between them.
fn crosses(
    diagram: &Diagram,
    boxes: &[Rect],
    from: usize,
    to: usize,
    (x1, y1): (f64, f64),
    (x2, y2): (f64, f64),
) -> bool {
    let (a, b) = (diagram.nodes[from].layer, diagram.nodes[to].layer);
    let (low, high) = (a.min(b), a.max(b));
    if high - low < 2 || (y2 - y1).abs() < f64::EPSILON {
        return false;
    }
    diagram.nodes.iter().zip(boxes).any(|(node, rect)| {
        if node.layer <= low || node.layer >= high {
            return false;
        }
        let y = rect.y + rect.height / 2.0;
        let x = x1 + (x2 - x1) * (y - y1) / (y2 - y1);
        x >= rect.x - 6.0 && x <= rect.x + rect.width + 6.0
    })
}

fn legend(out: &mut String, y: f64) {
    let _ = writeln!(
        out,
        r##"<g class="legend" font-size="11" fill="#333"><line x1="16" y1="{y:.1}" x2="46" y2="{y:.1}" stroke="#555" stroke-width="1.3"/><text x="52" y="{t:.1}">required</text><line x1="120" y1="{y:.1}" x2="150" y2="{y:.1}" stroke="#555" stroke-width="1.3" stroke-dasharray="6 4"/><text x="156" y="{t:.1}">degradable</text><rect x="236" y="{r:.1}" width="14" height="10" fill="#fff" stroke="{RED}" stroke-width="3"/><text x="256" y="{t:.1}">single point of failure</text></g>"##,
        t = y + 4.0,
        r = y - 5.0
    );
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
        assert!(!svg.contains("<script") && !svg.contains("http"));
    }
}

//! Where each box of the SVG diagram goes. Rows are the diagram's layers
//! (callers above what they call). Each cluster owns a vertical band of
//! columns: first its own components, then the bands of the clusters inside
//! it, so bands never overlap and every cluster is one rectangle around its
//! band, as tall as the rows its components use. Components outside every
//! domain get a band of their own on the right. Deterministic: the same
//! diagram always gives the same coordinates.

use super::{Diagram, Members};

/// Space around the drawing.
const MARGIN: f64 = 16.0;
/// Horizontal space between columns.
const COLUMN_GAP: f64 = 28.0;
/// Height of a component box: its name and detail lines.
const NODE_HEIGHT: f64 = 44.0;
/// The extra line of a box that belongs to a shared-fate group.
const SHARES_LINE: f64 = 14.0;
/// Space a cluster keeps around what it holds, on each side; its label sits
/// in the top one.
const PAD: f64 = 10.0;
/// Vertical space per nesting level above and below a row.
const LEVEL: f64 = 22.0;
/// Vertical space between rows, besides the clusters' padding: the channel
/// where calls run across.
const ROW_GAP: f64 = 40.0;
/// Room below the drawing for the legend (two lines).
pub const LEGEND_HEIGHT: f64 = 50.0;
/// Width the legend needs.
pub const LEGEND_WIDTH: f64 = 560.0;
/// Width of one character of an 11 px cluster label, generously.
pub const LABEL_CHAR: f64 = 6.6;

/// A rectangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Rect {
    /// The middle of the top edge.
    #[must_use]
    pub fn top(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y)
    }
    /// The middle of the bottom edge.
    #[must_use]
    pub fn bottom(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height)
    }
}

/// The placed diagram.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// One box per node, in the diagram's node order.
    pub nodes: Vec<Rect>,
    /// One rectangle per cluster, in the diagram's cluster order (`None`
    /// for a cluster with no component, which is not drawn).
    pub clusters: Vec<Option<Rect>>,
    /// Per cluster, where its label sits (the label's box).
    pub labels: Vec<Option<Rect>>,
    /// Per row, the y of the middle of the channel below it, where calls
    /// run across between rows.
    pub channels: Vec<f64>,
    /// Height of every component box.
    pub node_height: f64,
    /// Width of the whole drawing.
    pub width: f64,
    /// Height of the whole drawing, legend included.
    pub height: f64,
}

/// The width of a component box: room for the longer of its two lines, the
/// name in a bold 13 px sans-serif font (about 8.2 px a character, so that
/// `mongodb-recommendation` stays inside its box) and the detail in 11 px
/// (about 6.6 px).
#[must_use]
pub fn node_width(diagram: &Diagram) -> f64 {
    let longest = diagram
        .nodes
        .iter()
        .map(|n| {
            let spof = if n.spof { 6 } else { 0 };
            let name = (n.name.chars().count() + spof) as f64 * 8.2;
            name.max(n.detail.chars().count() as f64 * 6.6)
        })
        .fold(0.0, f64::max);
    // A cluster label sits above its first box and must leave room on the
    // box's top for the calls entering it.
    let label = diagram
        .clusters
        .iter()
        .map(|c| cluster_label(c).chars().count())
        .max()
        .unwrap_or(0);
    (longest + 24.0)
        .max(label as f64 * LABEL_CHAR + 48.0)
        .max(120.0)
}

/// The text of a cluster's label: `az-a (zone)`, `az-a (zone) · SPOF`.
#[must_use]
pub fn cluster_label(cluster: &super::Cluster) -> String {
    format!(
        "{} ({}){}",
        cluster.name,
        cluster.kind,
        if cluster.spof { " · SPOF" } else { "" }
    )
}

/// Places the diagram.
#[must_use]
pub fn layout(diagram: &Diagram) -> Layout {
    let width = node_width(diagram);
    let column = width + COLUMN_GAP;
    let rows = diagram.depth();
    let members = Members::of(diagram);
    // Nesting height of each cluster: 1 for one holding no other cluster.
    let mut height = vec![1usize; diagram.clusters.len()];
    for c in (0..diagram.clusters.len()).rev() {
        if let Some(p) = diagram.clusters[c].parent {
            height[p] = height[p].max(height[c] + 1);
        }
    }
    let levels = height.iter().copied().max().unwrap_or(0);
    let node_height = if diagram.nodes.iter().any(|n| !n.shares.is_empty()) {
        NODE_HEIGHT + SHARES_LINE
    } else {
        NODE_HEIGHT
    };
    let pitch = node_height + 2.0 * LEVEL * levels as f64 + ROW_GAP;
    let row_y = |layer: usize| MARGIN + LEVEL * levels as f64 + layer as f64 * pitch;

    let mut placer = Placer {
        diagram,
        column,
        width,
        nodes: vec![
            Rect {
                x: 0.0,
                y: 0.0,
                width,
                height: node_height,
            };
            diagram.nodes.len()
        ],
        node_height,
        clusters: vec![None; diagram.clusters.len()],
        rows,
        row_y: &row_y,
    };
    let mut x = MARGIN;
    for &root in members.clusters_in(None) {
        x = placer.cluster(root, x, &height, &members) + COLUMN_GAP;
    }
    x = placer.own(None, x);
    let right = (x - COLUMN_GAP).max(MARGIN + width).max(LEGEND_WIDTH);
    let channels: Vec<f64> = (0..rows)
        .map(|r| row_y(r) + node_height + LEVEL * levels as f64 + ROW_GAP / 2.0)
        .collect();
    // The channel below the last row is kept: calls that close a cycle
    // leave their caller downwards and run back up.
    let bottom = if rows == 0 {
        MARGIN
    } else {
        row_y(rows - 1) + node_height + LEVEL * levels as f64 + ROW_GAP
    };
    let labels = diagram
        .clusters
        .iter()
        .zip(&placer.clusters)
        .map(|(cluster, rect)| {
            rect.map(|r| Rect {
                x: r.x + 6.0,
                y: r.y + 2.0,
                width: cluster_label(cluster).chars().count() as f64 * LABEL_CHAR + 4.0,
                height: 15.0,
            })
        })
        .collect();
    Layout {
        nodes: placer.nodes,
        clusters: placer.clusters,
        labels,
        channels,
        node_height,
        width: right + MARGIN,
        height: bottom + MARGIN + LEGEND_HEIGHT,
    }
}

struct Placer<'a> {
    diagram: &'a Diagram,
    column: f64,
    width: f64,
    node_height: f64,
    nodes: Vec<Rect>,
    clusters: Vec<Option<Rect>>,
    rows: usize,
    row_y: &'a dyn Fn(usize) -> f64,
}

impl Placer<'_> {
    /// Places the components directly in `cluster` in columns from `x`,
    /// one row per layer; returns the x after the last column.
    fn own(&mut self, cluster: Option<usize>, x: f64) -> f64 {
        let mut used = 0usize;
        for layer in 0..self.rows {
            let mut at = 0usize;
            for (index, node) in self.diagram.nodes.iter().enumerate() {
                if node.cluster == cluster && node.layer == layer {
                    self.nodes[index] = Rect {
                        x: x + at as f64 * self.column,
                        y: (self.row_y)(layer),
                        width: self.width,
                        height: self.node_height,
                    };
                    at += 1;
                }
            }
            used = used.max(at);
        }
        x + used as f64 * self.column
    }

    /// Places a cluster's band from `x`; returns its right edge.
    fn cluster(&mut self, cluster: usize, x: f64, height: &[usize], members: &Members) -> f64 {
        let mut inner = self.own(Some(cluster), x + PAD);
        for &child in members.clusters_in(Some(cluster)) {
            inner = self.cluster(child, inner, height, members) + COLUMN_GAP;
        }
        let right = (inner - COLUMN_GAP).max(x + PAD + self.width) + PAD;
        // The rows this cluster's components use, its own and nested ones.
        let rows: Vec<usize> = self
            .diagram
            .nodes
            .iter()
            .filter(|n| n.cluster.is_some_and(|c| self.inside(c, cluster)))
            .map(|n| n.layer)
            .collect();
        if let (Some(&top), Some(&bottom)) = (rows.iter().min(), rows.iter().max()) {
            let level = LEVEL * height[cluster] as f64;
            let y = (self.row_y)(top) - level;
            self.clusters[cluster] = Some(Rect {
                x,
                y,
                width: right - x,
                height: (self.row_y)(bottom) + self.node_height + level - y,
            });
        }
        right
    }

    /// Whether cluster `c` is `outer` or inside it.
    fn inside(&self, mut c: usize, outer: usize) -> bool {
        loop {
            if c == outer {
                return true;
            }
            match self.diagram.clusters[c].parent {
                Some(p) => c = p,
                None => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Cluster, Diagram, Link, Node};
    use super::*;

    fn node(name: &str, cluster: Option<usize>, layer: usize) -> Node {
        Node {
            name: name.to_owned(),
            detail: String::new(),
            placement: String::new(),
            cluster,
            spof: false,
            entrypoint: layer == 0,
            layer,
            shares: Vec::new(),
        }
    }

    fn overlaps(a: &Rect, b: &Rect) -> bool {
        a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
    }

    fn contains(outer: &Rect, inner: &Rect) -> bool {
        outer.x <= inner.x
            && outer.y <= inner.y
            && inner.x + inner.width <= outer.x + outer.width
            && inner.y + inner.height <= outer.y + outer.height
    }

    #[test]
    fn clusters_enclose_their_boxes_and_nothing_overlaps() {
        let cluster = |name: &str, parent| Cluster {
            name: name.to_owned(),
            kind: "zone".to_owned(),
            parent,
            spof: false,
        };
        let diagram = Diagram {
            system: "s".to_owned(),
            clusters: vec![
                cluster("r", None),
                cluster("a", Some(0)),
                cluster("b", Some(0)),
            ],
            nodes: vec![
                node("lb", Some(0), 0),
                node("api-a", Some(1), 1),
                node("api-b", Some(2), 1),
                node("db", Some(1), 2),
                node("saas", None, 2),
            ],
            edges: vec![Link {
                from: 0,
                to: 1,
                degradable: false,
                label: None,
                group: 1,
            }],
            failovers: Vec::new(),
            hidden: 0,
        };
        let placed = layout(&diagram);
        for (i, a) in placed.nodes.iter().enumerate() {
            for b in &placed.nodes[i + 1..] {
                assert!(!overlaps(a, b), "{a:?} {b:?}");
            }
        }
        let [r, a, b] = [0, 1, 2].map(|c| placed.clusters[c].unwrap());
        assert!(contains(&r, &a) && contains(&r, &b) && !overlaps(&a, &b));
        assert!(contains(&a, &placed.nodes[1]) && contains(&a, &placed.nodes[3]));
        assert!(contains(&r, &placed.nodes[0]) && !overlaps(&r, &placed.nodes[4]));
        // Callers above what they call.
        assert!(placed.nodes[0].y < placed.nodes[1].y && placed.nodes[1].y < placed.nodes[3].y);
        assert!(placed.width > placed.nodes[4].x + placed.nodes[4].width);
    }
}

//! The paths of the SVG diagram's arrows, kept off every box and cluster
//! label. Each arrow is a polyline of horizontal and vertical segments: down
//! from its caller's bottom into the channel below the caller's row, across
//! that channel, down (or up) a free corridor between the boxes of the rows
//! it passes, across the channel next to its callee, and into the callee.
//! Channels hold no box and no label, corridors are chosen clear of both,
//! so no segment crosses a box: `tests` checks it on every example model.
//! Hand-written rather than a graph-drawing crate: the rule (orthogonal
//! lanes on the layered grid of [`super::layout`]) is specific and short.

use super::Diagram;
use super::layout::{Layout, Rect};

/// What an arrow stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A call; `degradable` ones are drawn dashed.
    Call {
        /// Whether the caller works without the callee.
        degradable: bool,
    },
    /// A `failover_to`: where the load goes when the component fails.
    Failover,
}

/// One arrow.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// The polyline, from the caller's edge to the callee's edge.
    pub points: Vec<(f64, f64)>,
    /// What it stands for.
    pub kind: Kind,
}

/// Where the links of one `any_of` or `at_least` part: drawn once, with
/// its label.
#[derive(Debug, Clone, PartialEq)]
pub struct Junction {
    /// The point the group's links fan out from.
    pub at: (f64, f64),
    /// `any of`, `2 of 3`.
    pub label: String,
    /// Where the label's text starts (its baseline), beside the point and
    /// clear of the other junctions' labels and of every box.
    pub label_at: (f64, f64),
}

/// Width of one character of a 10 px junction label, generously.
const JUNCTION_CHAR: f64 = 6.0;
/// Height of a junction label.
const JUNCTION_HEIGHT: f64 = 12.0;

/// The box a junction label takes with its text starting at `(x, y)`.
fn label_box(label: &str, (x, y): (f64, f64)) -> Rect {
    Rect {
        x: x - 1.0,
        y: y - JUNCTION_HEIGHT + 2.0,
        width: label.chars().count() as f64 * JUNCTION_CHAR + 2.0,
        height: JUNCTION_HEIGHT,
    }
}

/// Places each junction's label: right of and above its point, else left
/// of it, else lower or higher and further along on either side, the
/// nearest that overlaps no label already placed, no box or cluster label
/// and no arrow, and stays inside the drawing; when none is, the one that
/// crosses the fewest arrows.
fn place_labels(junctions: &mut [Junction], placed: &Layout, routes: &[Route]) {
    let segments: Vec<Segment> = routes
        .iter()
        .flat_map(|r| r.points.windows(2).map(|w| (w[0], w[1])))
        .collect();
    let obstacles: Vec<Rect> = placed
        .nodes
        .iter()
        .chain(placed.labels.iter().flatten())
        .copied()
        .collect();
    let mut taken: Vec<Rect> = Vec::new();
    for junction in junctions.iter_mut() {
        let (x, y) = junction.at;
        let width = label_box(&junction.label, (0.0, 0.0)).width;
        // Right of and above the point first, then every place on a 6 × 3 px
        // grid around it, nearest first.
        let mut choices: Vec<(f64, f64)> = vec![(x + 6.0, y - 5.0), (x - 6.0 - width, y - 5.0)];
        let mut grid: Vec<(f64, (f64, f64))> = Vec::new();
        for i in -SEARCH_X..=SEARCH_X {
            for j in -SEARCH_Y..=SEARCH_Y {
                let at = (x + 6.0 * f64::from(i), y + 3.0 * f64::from(j));
                let b = label_box(&junction.label, at);
                let dx = (b.x - x).max(x - (b.x + b.width)).max(0.0);
                let dy = (b.y - y).max(y - (b.y + b.height)).max(0.0);
                grid.push((dx.hypot(dy), at));
            }
        }
        grid.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then(a.1.1.total_cmp(&b.1.1))
                .then(a.1.0.total_cmp(&b.1.0))
        });
        choices.extend(grid.into_iter().map(|(_, at)| at));
        // Only the arrows near the point can cross a label placed near it.
        let reach = Rect {
            x: x - 6.0 * f64::from(SEARCH_X) - width - 2.0,
            y: y - 3.0 * f64::from(SEARCH_Y) - JUNCTION_HEIGHT - 2.0,
            width: 2.0 * (6.0 * f64::from(SEARCH_X) + width + 2.0),
            height: 2.0 * (3.0 * f64::from(SEARCH_Y) + JUNCTION_HEIGHT + 2.0),
        };
        let segments: Vec<&Segment> = segments
            .iter()
            .filter(|(p, q)| enters(*p, *q, &reach))
            .collect();
        let crossings = |b: &Rect| segments.iter().filter(|(p, q)| enters(*p, *q, b)).count();
        let free = |at: &(f64, f64)| {
            let b = label_box(&junction.label, *at);
            b.x >= 0.0
                && b.x + b.width <= placed.width
                && !taken
                    .iter()
                    .chain(&obstacles)
                    .any(|other| overlaps(&b, other))
                && crossings(&b) == 0
        };
        let at = choices.iter().copied().find(free).unwrap_or_else(|| {
            // Nothing clear: apart from the other labels and the boxes if
            // possible, across as few arrows as possible.
            choices
                .iter()
                .copied()
                .min_by_key(|at| {
                    let b = label_box(&junction.label, *at);
                    let hidden = taken.iter().chain(&obstacles).any(|o| overlaps(&b, o));
                    (hidden, crossings(&b))
                })
                .unwrap_or((x + 6.0, y - 5.0))
        });
        taken.push(label_box(&junction.label, at));
        junction.label_at = at;
    }
}

/// A straight run of an arrow, from one point to the next.
type Segment = ((f64, f64), (f64, f64));

/// How far a junction label may move from its point: this many 6 px steps
/// sideways and 3 px steps up or down.
const SEARCH_X: i32 = 40;
const SEARCH_Y: i32 = 14;

/// Whether two rectangles overlap (touching is not overlapping).
fn overlaps(a: &Rect, b: &Rect) -> bool {
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}

/// Every arrow and group junction of a diagram.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Routes {
    /// Calls first, in the diagram's order, then failovers.
    pub routes: Vec<Route>,
    /// One per multi-target group.
    pub junctions: Vec<Junction>,
}

/// Space between parallel lanes in a channel or corridor.
const LANE: f64 = 4.5;
/// Lanes per channel before they repeat.
const LANES: usize = 7;
/// Room kept between an arrow and a box or label it passes.
const CLEAR: f64 = 3.0;

/// A port on a box's bottom: the departure of one call group or failover,
/// or the arrival of an arrow from below.
enum Port {
    Departure(usize),
    Arrival(usize),
}

/// One arrow before it is routed.
struct Wire {
    from: usize,
    to: usize,
    kind: Kind,
    /// The departure it shares with the other links of its group.
    departure: usize,
}

/// Routes every call and failover of `diagram` on `placed`.
#[must_use]
pub fn route(diagram: &Diagram, placed: &Layout) -> Routes {
    let (departures, wires) = wires(diagram);
    let (departure_x, arrival_x) = ports(diagram, placed, &departures, &wires);
    let layer = |i: usize| diagram.nodes[i].layer;
    let mut lanes = Router {
        placed,
        diagram,
        lanes: vec![0; placed.channels.len()],
        corridors: Vec::new(),
    };
    let departure_lane: Vec<f64> = departures
        .iter()
        .map(|&(from, _)| lanes.lane(layer(from)))
        .collect();
    let mut routes = Routes::default();
    for (d, (_, label)) in departures.iter().enumerate() {
        if let Some(text) = label {
            routes.junctions.push(Junction {
                at: (departure_x[d], departure_lane[d]),
                label: text.clone(),
                label_at: (0.0, 0.0),
            });
        }
    }
    for (w, wire) in wires.iter().enumerate() {
        let start = (departure_x[wire.departure], departure_lane[wire.departure]);
        routes.routes.push(Route {
            points: lanes.path(wire, start, arrival_x[w]),
            kind: wire.kind,
        });
    }
    // The labels once every arrow is drawn, so that they keep clear of all.
    place_labels(&mut routes.junctions, placed, &routes.routes);
    routes
}

/// The departures (one per call group and per failover, in the diagram's
/// order: the caller and the group's label) and the wires leaving them.
type Departures = Vec<(usize, Option<String>)>;

/// Every call and failover of `diagram` as a wire, with the departures
/// they leave from.
fn wires(diagram: &Diagram) -> (Departures, Vec<Wire>) {
    let mut departures: Departures = Vec::new();
    let mut wires: Vec<Wire> = Vec::new();
    let mut last_group = None;
    for link in &diagram.edges {
        if last_group != Some((link.from, link.group)) {
            departures.push((link.from, link.label.clone()));
            last_group = Some((link.from, link.group));
        }
        wires.push(Wire {
            from: link.from,
            to: link.to,
            kind: Kind::Call {
                degradable: link.degradable,
            },
            departure: departures.len() - 1,
        });
    }
    for &(from, to) in &diagram.failovers {
        departures.push((from, None));
        wires.push(Wire {
            from,
            to,
            kind: Kind::Failover,
            departure: departures.len() - 1,
        });
    }
    (departures, wires)
}

/// Where each departure and each arrival sits along its box: the x of
/// every departure, and of every wire's arrival.
fn ports(
    diagram: &Diagram,
    placed: &Layout,
    departures: &Departures,
    wires: &[Wire],
) -> (Vec<f64>, Vec<f64>) {
    let nodes = &placed.nodes;
    let center = |i: usize| nodes[i].x + nodes[i].width / 2.0;
    let layer = |i: usize| diagram.nodes[i].layer;
    let mut departure_x = vec![0.0; departures.len()];
    let mut arrival_x = vec![0.0; wires.len()];
    for (node, rect) in nodes.iter().enumerate() {
        // Bottom ports: departures ordered by where their callees are, then
        // arrivals from below ordered by their callers.
        let mut bottom: Vec<(f64, Port)> = Vec::new();
        for (d, (from, _)) in departures.iter().enumerate() {
            if *from == node {
                let targets: Vec<f64> = wires
                    .iter()
                    .filter(|w| w.departure == d)
                    .map(|w| center(w.to))
                    .collect();
                let mean = targets.iter().sum::<f64>() / targets.len().max(1) as f64;
                bottom.push((mean, Port::Departure(d)));
            }
        }
        let mut top: Vec<(f64, usize)> = Vec::new();
        for (w, wire) in wires.iter().enumerate() {
            if wire.to == node {
                if layer(wire.to) > layer(wire.from) {
                    top.push((center(wire.from), w));
                } else {
                    bottom.push((center(wire.from), Port::Arrival(w)));
                }
            }
        }
        bottom.sort_by(|a, b| a.0.total_cmp(&b.0));
        top.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (lo, hi) = (rect.x + 10.0, rect.x + rect.width - 10.0);
        for (k, (_, port)) in bottom.iter().enumerate() {
            let x = spread(lo, hi, k, bottom.len());
            match port {
                Port::Departure(d) => departure_x[*d] = x,
                Port::Arrival(w) => arrival_x[*w] = x,
            }
        }
        // Arrivals on the top keep clear of the labels above the box.
        let above = placed.channels.get(layer(node).wrapping_sub(1)).copied();
        let lo = placed
            .labels
            .iter()
            .flatten()
            .filter(|label| {
                label.y < rect.y
                    && above.is_none_or(|y| label.y + label.height > y)
                    && label.x < hi
                    && label.x + label.width > lo
            })
            .map(|label| label.x + label.width + 6.0)
            .fold(lo, f64::max)
            .min(hi - 4.0);
        for (k, &(_, w)) in top.iter().enumerate() {
            arrival_x[w] = spread(lo, hi, k, top.len());
        }
    }
    (departure_x, arrival_x)
}

/// The `k`-th of `n` points spread evenly inside `lo..hi`.
fn spread(lo: f64, hi: f64, k: usize, n: usize) -> f64 {
    lo + (hi - lo) * (k + 1) as f64 / (n + 1) as f64
}

struct Router<'a> {
    placed: &'a Layout,
    diagram: &'a Diagram,
    /// The next lane of each row's channel.
    lanes: Vec<usize>,
    /// Vertical corridors taken: x and the y range.
    corridors: Vec<(f64, f64, f64)>,
}

impl Router<'_> {
    /// The polyline of `wire`: from its caller's bottom at `start`'s x down
    /// to its departure lane at `start`'s y, along a corridor to the lane
    /// next to the callee, and into the callee at `ex` (its top when it is
    /// in a lower row, else its bottom).
    fn path(&mut self, wire: &Wire, (dx, y_a): (f64, f64), ex: f64) -> Vec<(f64, f64)> {
        let layer = |i: usize| self.diagram.nodes[i].layer;
        let (a, b) = (layer(wire.from), layer(wire.to));
        let from = self.placed.nodes[wire.from];
        let to = self.placed.nodes[wire.to];
        let mut points = vec![(dx, from.y + from.height), (dx, y_a)];
        if b > a {
            if b > a + 1 {
                let y_b = self.lane(b - 1);
                let cx = self.corridor(a + 1..b, (y_a, y_b), dx, ex);
                points.extend([(cx, y_a), (cx, y_b), (ex, y_b)]);
            } else {
                points.push((ex, y_a));
            }
            points.push((ex, to.y));
        } else {
            if b < a {
                let y_b = self.lane(b);
                let cx = self.corridor(b + 1..a + 1, (y_b, y_a), dx, ex);
                points.extend([(cx, y_a), (cx, y_b), (ex, y_b)]);
            } else {
                points.push((ex, y_a));
            }
            points.push((ex, to.y + to.height));
        }
        points.dedup();
        points
    }

    /// The y of the next lane in the channel below `row`.
    fn lane(&mut self, row: usize) -> f64 {
        let k = self.lanes[row];
        self.lanes[row] += 1;
        self.placed.channels[row] + ((k % LANES) as f64 - (LANES / 2) as f64) * LANE
    }

    /// An x for a vertical run from `y1` to `y2` through `rows` that passes
    /// no box of those rows and no cluster label, nearest to `dx` and `ex`
    /// and apart from the corridors already taken.
    fn corridor(
        &mut self,
        rows: std::ops::Range<usize>,
        (y1, y2): (f64, f64),
        dx: f64,
        ex: f64,
    ) -> f64 {
        let (top, bottom) = (y1.min(y2), y1.max(y2));
        let obstacles: Vec<Rect> = self
            .diagram
            .nodes
            .iter()
            .zip(&self.placed.nodes)
            .filter(|(node, _)| rows.contains(&node.layer))
            .map(|(_, rect)| *rect)
            .chain(
                self.placed
                    .labels
                    .iter()
                    .flatten()
                    .filter(|l| l.y < bottom && l.y + l.height > top)
                    .copied(),
            )
            // A cluster's sides, as lines an arrow should not run along.
            .chain(
                self.placed
                    .clusters
                    .iter()
                    .flatten()
                    .filter(|c| c.y < bottom && c.y + c.height > top)
                    .flat_map(|c| {
                        [c.x, c.x + c.width].map(|x| Rect {
                            x,
                            y: c.y,
                            width: 0.0,
                            height: c.height,
                        })
                    }),
            )
            .collect();
        let mut candidates = vec![dx, ex, 8.0, self.placed.width - 8.0];
        for o in &obstacles {
            let gap = if o.width == 0.0 { 7.0 } else { 14.0 };
            candidates.push(o.x - gap);
            candidates.push(o.x + o.width + gap);
        }
        candidates.sort_by(|a, b| {
            let cost = |x: f64| (x - dx).abs() + (x - ex).abs();
            cost(*a).total_cmp(&cost(*b)).then(a.total_cmp(b))
        });
        // Inside the drawing, and apart from every obstacle.
        let width = self.placed.width;
        let clear = |x: f64| {
            (CLEAR..=width - CLEAR).contains(&x)
                && obstacles
                    .iter()
                    .all(|o| x < o.x - CLEAR || x > o.x + o.width + CLEAR)
        };
        let free = |x: f64, corridors: &[(f64, f64, f64)]| {
            corridors
                .iter()
                .all(|&(cx, t, b)| (cx - x).abs() >= LANE - 0.5 || b < top || t > bottom)
        };
        for &x in &candidates {
            if !clear(x) {
                continue;
            }
            for offset in [0.0, LANE, -LANE, 2.0 * LANE, -2.0 * LANE] {
                let at = x + offset;
                if clear(at) && free(at, &self.corridors) {
                    self.corridors.push((at, top, bottom));
                    return at;
                }
            }
        }
        // Every corridor is taken: share the first clear one.
        let at = candidates.into_iter().find(|&x| clear(x)).unwrap_or(8.0);
        self.corridors.push((at, top, bottom));
        at
    }
}

/// Whether the segment from `a` to `b` (horizontal or vertical) enters the
/// inside of `rect`.
#[must_use]
pub fn enters((ax, ay): (f64, f64), (bx, by): (f64, f64), rect: &Rect) -> bool {
    let eps = 0.5;
    let (x1, x2) = (ax.min(bx), ax.max(bx));
    let (y1, y2) = (ay.min(by), ay.max(by));
    x2 > rect.x + eps
        && x1 < rect.x + rect.width - eps
        && y2 > rect.y + eps
        && y1 < rect.y + rect.height - eps
}

#[cfg(test)]
mod tests {
    use super::super::layout::layout;
    use super::*;

    /// Panics when a segment of an arrow is not axis-parallel, or enters a
    /// box or a cluster label.
    fn assert_clear(diagram: &Diagram, placed: &Layout, routes: &Routes, what: &str) {
        assert_eq!(
            routes.routes.len(),
            diagram.edges.len() + diagram.failovers.len()
        );
        for (r, arrow) in routes.routes.iter().enumerate() {
            for pair in arrow.points.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                assert!(
                    (a.0 - b.0).abs() < 1e-9 || (a.1 - b.1).abs() < 1e-9,
                    "{what} arrow {r}: {a:?} {b:?}"
                );
                for (n, rect) in placed.nodes.iter().enumerate() {
                    assert!(
                        !enters(a, b, rect),
                        "{what}: arrow {r} crosses the box of {}",
                        diagram.nodes[n].name
                    );
                }
                for (c, label) in placed.labels.iter().enumerate() {
                    if let Some(label) = label {
                        assert!(
                            !enters(a, b, label),
                            "{what}: arrow {r} strikes the label of {}",
                            diagram.clusters[c].name
                        );
                    }
                }
            }
        }
    }

    fn findings(model: &crate::model::Model, text: &str) -> Vec<crate::analyze::Finding> {
        crate::analyze::audit(
            model,
            text,
            crate::engine::scenario::Scenario::default(),
            crate::analyze::Options::new(crate::model::Date::parse("2026-11-30").unwrap()),
        )
        .findings
    }

    /// Every segment of every arrow of every example model stays out of
    /// every box and every cluster label.
    #[test]
    fn no_arrow_crosses_a_box_or_a_label_in_any_example() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        let mut arrows = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let model = crate::model::parse(&text).unwrap();
            let diagram = Diagram::new(&model, &findings(&model, &text));
            let diagram = super::super::wrap::wrap(&diagram, super::super::wrap::PAGE_WIDTH);
            let placed = layout(&diagram);
            let routes = route(&diagram, &placed);
            assert_clear(&diagram, &placed, &routes, &path.display().to_string());
            assert_labels_apart(&placed, &routes, &path.display().to_string());
            arrows += routes.routes.len();
        }
        assert!(arrows > 50, "{arrows}");
    }

    /// The same on generated models, whole and focused as the review draws
    /// them.
    #[test]
    fn no_arrow_crosses_a_box_in_generated_models() {
        for (size, seed) in [(30, 1), (60, 2), (300, 3)] {
            let text = crate::generate::microservices(size, seed);
            let model = crate::model::parse(&text).unwrap();
            let found = findings(&model, &text);
            let whole = Diagram::new(&model, &found);
            let focused = whole.clone().focus(&found, 24);
            assert!(focused.nodes.len() <= 24);
            let wrapped = super::super::wrap::wrap(&focused, super::super::wrap::PAGE_WIDTH);
            for diagram in [whole, focused, wrapped] {
                let placed = layout(&diagram);
                let routes = route(&diagram, &placed);
                assert_clear(&diagram, &placed, &routes, &format!("generated {size}"));
                assert_labels_apart(&placed, &routes, &format!("generated {size}"));
            }
        }
    }

    /// No junction label overlaps another or a box, none is crossed by an
    /// arrow, and every arrow and label is inside the drawing.
    fn assert_labels_apart(placed: &Layout, routes: &Routes, what: &str) {
        let labels: Vec<Rect> = routes
            .junctions
            .iter()
            .map(|j| label_box(&j.label, j.label_at))
            .collect();
        for (i, a) in labels.iter().enumerate() {
            for b in labels[i + 1..].iter().chain(&placed.nodes) {
                assert!(!overlaps(a, b), "{what}: label {a:?} overlaps {b:?}");
            }
            assert!(
                a.x >= 0.0 && a.x + a.width <= placed.width,
                "{what}: label {a:?} outside 0..{}",
                placed.width
            );
            for (r, arrow) in routes.routes.iter().enumerate() {
                for pair in arrow.points.windows(2) {
                    assert!(
                        !enters(pair[0], pair[1], a),
                        "{what}: arrow {r} crosses the label {a:?}"
                    );
                }
            }
        }
        for arrow in &routes.routes {
            for &(x, y) in &arrow.points {
                assert!(
                    (0.0..=placed.width).contains(&x) && (0.0..=placed.height).contains(&y),
                    "{what}: ({x}, {y}) outside {} × {}",
                    placed.width,
                    placed.height
                );
            }
        }
    }

    #[test]
    fn junction_labels_do_not_overlap() {
        // Four callers side by side, each with an any_of over the same two
        // stores: the four junctions share one channel.
        let text = r"system: s
components:
  a: {depends_on: [{any_of: [x, y]}, {any_of: [y, z]}]}
  b: {depends_on: [{any_of: [x, y]}, {any_of: [y, z]}]}
  c: {depends_on: [{any_of: [x, z]}]}
  x: {}
  y: {}
  z: {}
";
        let model = crate::model::parse(text).unwrap();
        let diagram = Diagram::new(&model, &[]);
        let placed = layout(&diagram);
        let routes = route(&diagram, &placed);
        assert_eq!(routes.junctions.len(), 5);
        assert_labels_apart(&placed, &routes, "five junctions");
    }

    #[test]
    fn a_group_is_drawn_once() {
        let text = r"system: s
components:
  lb: {depends_on: [{at_least: 2, of: [a, b, c]}]}
  a: {}
  b: {}
  c: {}
";
        let model = crate::model::parse(text).unwrap();
        let diagram = Diagram::new(&model, &[]);
        let routes = route(&diagram, &layout(&diagram));
        assert_eq!(routes.junctions.len(), 1);
        assert_eq!(routes.junctions[0].label, "2 of 3");
        // The three links leave lb at one point.
        let starts: Vec<(f64, f64)> = routes.routes.iter().map(|r| r.points[0]).collect();
        assert!(starts.iter().all(|s| *s == starts[0]));
    }
}

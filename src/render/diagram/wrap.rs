//! A wide diagram wrapped onto more rows, so that the SVG of the review
//! fits its page: a layer whose components sit side by side beyond the
//! page's width (eighteen services that nothing orders, one per column) is
//! split into rows of at most as many columns as fit, each cluster's band
//! keeping its own components in model order. Callers stay above what they
//! call: a layer's rows all come before the next layer's. The arrows are
//! then routed on the wrapped layers as on any others.

use super::Diagram;
use super::layout::layout;

/// The widest drawing the HTML review shows at its natural size: the
/// page's text column (72rem) less its padding and the diagram's frame.
pub const PAGE_WIDTH: f64 = 1100.0;

/// `diagram` with its layers wrapped so that its layout is at most
/// `max_width` wide, with as many columns per row as fit; the diagram
/// itself when it already fits (or when one column per band is still too
/// wide: there are more bands, the clusters, than fit side by side).
#[must_use]
pub fn wrap(diagram: &Diagram, max_width: f64) -> Diagram {
    if layout(diagram).width <= max_width {
        return diagram.clone();
    }
    let widest = band_counts(diagram).into_iter().max().unwrap_or(1);
    let mut last = diagram.clone();
    for columns in (1..widest).rev() {
        last = rows_of(diagram, columns);
        if layout(&last).width <= max_width {
            break;
        }
    }
    last
}

/// For each group of components placed side by side (those directly in one
/// cluster, or in none) and each layer, how many there are: the most of
/// any layer, per group.
fn band_counts(diagram: &Diagram) -> Vec<usize> {
    let mut counts: std::collections::BTreeMap<(Option<usize>, usize), usize> =
        std::collections::BTreeMap::new();
    for node in &diagram.nodes {
        *counts.entry((node.cluster, node.layer)).or_default() += 1;
    }
    let mut per_group: std::collections::BTreeMap<Option<usize>, usize> =
        std::collections::BTreeMap::new();
    for ((group, _), count) in counts {
        let most = per_group.entry(group).or_default();
        *most = (*most).max(count);
    }
    per_group.into_values().collect()
}

/// `diagram` with at most `columns` components of one group side by side
/// in a row: each layer becomes as many rows as its fullest group needs.
fn rows_of(diagram: &Diagram, columns: usize) -> Diagram {
    let depth = diagram.depth();
    let mut position: std::collections::BTreeMap<(Option<usize>, usize), usize> =
        std::collections::BTreeMap::new();
    // The row within its layer of each node, in model order per group.
    let within: Vec<usize> = diagram
        .nodes
        .iter()
        .map(|node| {
            let at = position.entry((node.cluster, node.layer)).or_default();
            let row = *at / columns;
            *at += 1;
            row
        })
        .collect();
    let mut rows = vec![1usize; depth];
    for (node, &row) in diagram.nodes.iter().zip(&within) {
        rows[node.layer] = rows[node.layer].max(row + 1);
    }
    let mut first = vec![0usize; depth];
    for layer in 1..depth {
        first[layer] = first[layer - 1] + rows[layer - 1];
    }
    let mut wrapped = diagram.clone();
    for (node, row) in wrapped.nodes.iter_mut().zip(within) {
        node.layer = first[node.layer] + row;
    }
    wrapped
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` services nothing orders (one layer) behind one entrypoint.
    fn flat(n: usize) -> Diagram {
        let mut text = String::from(
            "system: s\nentrypoints: [gateway]\ncomponents:\n  gateway: {depends_on: [",
        );
        let names: Vec<String> = (0..n).map(|i| format!("service-{i:02}")).collect();
        text.push_str(&names.join(", "));
        text.push_str("]}\n");
        for name in &names {
            text.push_str("  ");
            text.push_str(name);
            text.push_str(": {}\n");
        }
        let model = crate::model::parse(&text).unwrap();
        Diagram::new(&model, &[])
    }

    #[test]
    fn thirty_components_in_one_layer_fit_the_page() {
        let diagram = flat(29);
        // 29 boxes of 10-character names in one row: 29 × (120 + 28) + margins.
        assert!(layout(&diagram).width > 4000.0);
        let wrapped = wrap(&diagram, PAGE_WIDTH);
        let placed = layout(&wrapped);
        assert!(placed.width <= PAGE_WIDTH, "{}", placed.width);
        // 120-px boxes 28 px apart: (1100 − 2 × 16 + 28) / 148 = 7 columns,
        // so ceil(29 / 7) = 5 rows under the gateway's.
        assert_eq!(wrapped.depth(), 6);
        // The gateway still calls downwards, every service below it.
        assert!(
            wrapped.nodes[1..]
                .iter()
                .all(|n| n.layer > wrapped.nodes[0].layer)
        );
    }

    #[test]
    fn a_diagram_that_fits_is_left_alone() {
        let diagram = flat(3);
        assert_eq!(wrap(&diagram, PAGE_WIDTH), diagram);
    }
}

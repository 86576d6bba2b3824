//! Writing a component's need into the compiled model: a static threshold,
//! never, or the bands of its count with the movers each one needs.

use crate::model::{Component, ComponentId, Edge, EdgeKind, Model, Pseudo};

/// A component that can never carry its load: it needs more instances
/// than it has (so even perfect instances do not make it up).
pub(super) fn never(c: &mut Component) {
    c.min_healthy = c.instances.saturating_add(1);
    if c.availability.is_none() {
        // Known to fail, not unquantified.
        c.availability = Some(1.0);
    }
}

/// A component with no failures of its own and no domains or groups: it
/// stands for a condition over others (its required edges).
pub(super) fn neutral(of: &Component, name: String, depends_on: Vec<Edge>) -> Component {
    Component {
        name,
        instances: 1,
        placement: Vec::new(),
        min_healthy: 1,
        availability: Some(1.0),
        mttr: None,
        capacity: None,
        load_shedding: false,
        rate_limit: None,
        shares: Vec::new(),
        failover_to: None,
        depends_on,
        recovery: None,
        objective: None,
        pseudo: None,
        ..of.clone()
    }
}

/// A required edge to `targets`, all of them (`Target`) or any one.
pub(super) fn required(kind: EdgeKind, targets: Vec<ComponentId>, like: &Edge) -> Edge {
    Edge {
        kind,
        backoff: like.backoff,
        limits: like.limits.clone(),
        fields: like.fields.clone(),
        ..Edge::required(targets, like.span)
    }
}

/// Replaces `id`'s own health by `∨_i (band_i ∧ G_i)`: `id` keeps its
/// edges and needs a new `id#own`, an `any_of` of one component per level,
/// each the band of its count with required edges to the movers of `G_i`
/// (an `any_of` of one component per minimal set when there are several).
pub(super) fn add_levels(
    compiled: &mut Model,
    origin: &mut Vec<ComponentId>,
    id: ComponentId,
    levels: &[(u32, Vec<Vec<ComponentId>>)],
) {
    let original = compiled.components[id.0].clone();
    let template = Edge::required(Vec::new(), original.span);
    let push = |compiled: &mut Model, origin: &mut Vec<ComponentId>, c: Component| {
        let at = ComponentId(compiled.components.len());
        compiled.components.push(c);
        origin.push(id);
        at
    };
    let mut bands = Vec::new();
    for (i, (k, minimal)) in levels.iter().enumerate() {
        let below = levels.get(i + 1).map(|(next, _)| *next);
        let condition: Vec<Edge> = if minimal.iter().any(Vec::is_empty) {
            Vec::new()
        } else if minimal.len() == 1 {
            vec![required(EdgeKind::Target, minimal[0].clone(), &template)]
        } else {
            let terms: Vec<ComponentId> = minimal
                .iter()
                .enumerate()
                .map(|(t, set)| {
                    let term = neutral(
                        &original,
                        format!("{} (≥{k} up, case {})", original.name, t + 1),
                        vec![required(EdgeKind::Target, set.clone(), &template)],
                    );
                    push(compiled, origin, term)
                })
                .collect();
            vec![required(EdgeKind::AnyOf, terms, &template)]
        };
        let band = Component {
            name: format!("{} (≥{k} up)", original.name),
            min_healthy: *k,
            pseudo: below.map(|below| Pseudo::Band { below }),
            depends_on: condition,
            failover_to: None,
            recovery: None,
            objective: None,
            ..original.clone()
        };
        bands.push(push(compiled, origin, band));
    }
    let own_edges = if bands.len() == 1 {
        vec![required(EdgeKind::Target, bands.clone(), &template)]
    } else {
        vec![required(EdgeKind::AnyOf, bands.clone(), &template)]
    };
    let own = neutral(&original, format!("{} (own)", original.name), own_edges);
    let own = push(compiled, origin, own);
    let mut edges = original.depends_on.clone();
    edges.push(required(EdgeKind::Target, vec![own], &template));
    let neutralised = neutral(&original, original.name.clone(), edges);
    compiled.components[id.0] = Component {
        failover_to: original.failover_to,
        recovery: original.recovery.clone(),
        objective: original.objective,
        ..neutralised
    };
}

/// The largest level of a need with no mover to be ok (every mover that
/// can shift load onto the component out), or more instances than it has
/// when even the largest level needs some mover ok.
pub(super) fn largest_need<'a>(
    model: &Model,
    id: ComponentId,
    levels: &'a [(u32, Vec<Vec<ComponentId>>)],
) -> (u32, &'a [ComponentId]) {
    levels
        .last()
        .filter(|(_, sets)| sets.iter().any(Vec::is_empty))
        .map_or(
            (model.component(id).instances.saturating_add(1), &[]),
            |(k, _)| (*k, &[]),
        )
}

/// Of a need's cases (a level `k` with one minimal set of the movers it
/// needs ok), the likeliest, judged on the component alone: the chance
/// that `k` of its instances are up times each mover's chance of having
/// its `min_healthy` up, independent (a choice only: whichever case is
/// taken, the compiled component is up in a part of the states where it
/// carries its load). Ties go to fewer movers, then to fewer instances.
pub(super) fn likeliest_case<'a>(
    model: &Model,
    id: ComponentId,
    levels: &'a [(u32, Vec<Vec<ComponentId>>)],
    row: &mut Vec<f64>,
) -> (u32, &'a [ComponentId]) {
    let mut up = |c: &Component, k: u32| {
        let p = c.availability.unwrap_or(1.0);
        crate::engine::events::tail(
            k as usize,
            std::iter::repeat_n(p, c.instances as usize),
            row,
        )
    };
    let own = model.component(id);
    let mut best: Option<(f64, u32, &[ComponentId])> = None;
    for (k, sets) in levels {
        let instances = up(own, *k);
        for set in sets {
            let chance = set.iter().fold(instances, |acc, &m| {
                let m = model.component(m);
                acc * up(m, m.min_healthy)
            });
            let better = best.is_none_or(|(b, bk, bset)| {
                chance
                    .total_cmp(&b)
                    .then_with(|| bset.len().cmp(&set.len()))
                    .then_with(|| bk.cmp(k))
                    .is_gt()
            });
            if better {
                best = Some((chance, *k, set));
            }
        }
    }
    best.map_or((own.instances.saturating_add(1), &[]), |(_, k, set)| {
        (k, set)
    })
}

/// Writes one case of a need into the component itself: at least `k`
/// instances up (never, past its instances), and a required edge to
/// `movers`.
pub(super) fn single_case(c: &mut Component, k: u32, movers: &[ComponentId]) {
    if k > c.instances {
        never(c);
        return;
    }
    c.min_healthy = k;
    if !movers.is_empty() {
        let like = Edge::required(Vec::new(), c.span);
        c.depends_on
            .push(required(EdgeKind::Target, movers.to_vec(), &like));
    }
}

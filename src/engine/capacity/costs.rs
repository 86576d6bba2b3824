//! What each component's capacity costs, and the fleet that takes it off.

use super::{Compiled, Need};
use crate::model::{ComponentId, Model};

/// Most components whose capacity cost is worked out (two figures of the
/// whole model each).
pub const MAX_COSTED: usize = 12;

/// The largest fleet offered: a load that needs more instances than this
/// is a storm or a loop of failovers, not a size to run, and a figure of
/// a fleet that large is not worked out.
pub const MAX_FLEET: u32 = 100_000;

/// The components whose capacity may cost something, worst-case need
/// first: those whose need is not structural, at most [`MAX_COSTED`].
#[must_use]
pub fn costed(compiled: &Compiled, model: &Model) -> Vec<(ComponentId, Option<u32>)> {
    let mut list: Vec<(ComponentId, Option<u32>, u32)> = Vec::new();
    for id in model.component_ids() {
        let c = model.component(id);
        let (intact, largest) = match &compiled.needs[id.0] {
            Need::Structural => continue,
            Need::Static(k) => (*k, Some(*k)),
            Need::Never => (c.instances.saturating_add(1), None),
            Need::Levels(levels) => (
                levels[0].0,
                levels
                    .last()
                    .filter(|(_, sets)| sets.iter().any(Vec::is_empty))
                    .map(|(k, _)| *k),
            ),
        };
        // The need at the largest load, from the table when it is beyond
        // every level (never enough instances).
        let worst = largest.or_else(|| {
            let load = compiled.tables[id.0]
                .offered
                .iter()
                .flatten()
                .fold(0.0_f64, |a, &b| a.max(b));
            let per = c.capacity.map_or(0.0, |cap| cap.per_instance);
            if per > 0.0 && load.is_finite() && c.rate_limit.is_none_or(|l| load <= l) {
                #[allow(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "a count of instances"
                )]
                let k = (load / per).ceil().min(f64::from(u32::MAX)) as u32;
                Some(k.max(c.min_healthy))
            } else {
                None
            }
        });
        let spare = c.instances.saturating_sub(intact.min(c.instances));
        // Searched from here up (`engine::add_costs`): at least one more.
        let fleet = Some(
            worst
                .map_or(c.instances, |k| k.saturating_add(spare))
                .max(c.instances.saturating_add(1)),
        )
        .filter(|&f| f <= MAX_FLEET);
        list.push((id, fleet, worst.unwrap_or(u32::MAX)));
    }
    list.sort_by_key(|&(id, _, worst)| (std::cmp::Reverse(worst), id));
    list.truncate(MAX_COSTED);
    list.into_iter().map(|(id, fleet, _)| (id, fleet)).collect()
}

/// `model` with `id`'s capacity never binding (no capacity figures, no
/// rate limit): what its capacity costs is the difference.
#[must_use]
pub fn without_capacity(model: &Model, id: ComponentId) -> Model {
    let mut m = model.clone();
    // Infinite capacity, not none: the written load stays what the load
    // flow starts from.
    if let Some(cap) = &mut m.components[id.0].capacity {
        cap.per_instance = f64::INFINITY;
    }
    m.components[id.0].rate_limit = None;
    m
}

/// `model` with `id` running `instances`, spread over its domains as its
/// placement spreads them (the extra ones round-robin from the first).
#[must_use]
pub fn with_instances(model: &Model, id: ComponentId, instances: u32) -> Model {
    let mut m = model.clone();
    let c = &mut m.components[id.0];
    let extra = instances.saturating_sub(c.instances);
    if !c.placement.is_empty() {
        // Round-robin from the first domain, worked out per domain (a
        // fleet of millions is not a loop of millions).
        let n = u32::try_from(c.placement.len()).unwrap_or(u32::MAX);
        let (each, rest) = (extra / n, extra % n);
        for (i, (_, count)) in c.placement.iter_mut().enumerate() {
            let first = u32::try_from(i).is_ok_and(|i| i < rest);
            *count = count.saturating_add(each + u32::from(first));
        }
    }
    c.instances = instances;
    m
}

#[cfg(test)]
mod tests {
    use super::with_instances;
    use crate::model::ComponentId;

    #[test]
    fn extra_instances_go_round_robin_from_the_first_domain() {
        let model = crate::model::parse(
            "system: m\nentrypoints: [a]\ndomains:\n  z0: {kind: zone, availability: 99.9%}\n  z1: {kind: zone, availability: 99.9%}\ncomponents:\n  a: {instances: 3, availability: 99%, placement: [z0, z1]}\n",
        )
        .unwrap();
        // 3 over two zones: 2 + 1. Five more round-robin from z0: z0, z1,
        // z0, z1, z0: 5 + 3.
        let grown = with_instances(&model, ComponentId(0), 8);
        let counts: Vec<u32> = grown.components[0].placement.iter().map(|p| p.1).collect();
        assert_eq!(counts, [5, 3]);
        assert_eq!(grown.components[0].instances, 8);
        // The largest count is spread in one step per domain: u32::MAX - 3
        // = 4,294,967,292 more, 2^31 - 2 = 2,147,483,646 to each zone.
        let all = with_instances(&model, ComponentId(0), u32::MAX);
        let counts: Vec<u32> = all.components[0].placement.iter().map(|p| p.1).collect();
        assert_eq!(counts, [2 + 2_147_483_646, 1 + 2_147_483_646]);
        assert_eq!(counts.iter().sum::<u32>(), u32::MAX);
    }
}

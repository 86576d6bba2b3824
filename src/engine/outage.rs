//! What one event takes down: shared by the single-point-of-failure and
//! shared-fate checks, which ask the same question of different events (one
//! instance, one domain, one group), and say the answer with
//! `analyze::wording::describe_outage`.
//!
//! An entrypoint is taken down by an event when it is up in the empty
//! scenario and down in the event's scenario ([`scenario::up`]).

use super::scenario::{self, Baseline, Scenario};
use crate::model::graph::ComponentGraph;
use crate::model::{ComponentId, Model};

/// Names listed in a message before "and N more".
pub const LISTED: usize = 6;

/// What one event takes down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outage {
    /// Components down on their own (too few instances left, or a group
    /// fired), with the instances they lost, in model order.
    pub lost: Vec<(ComponentId, u32)>,
    /// Components down because something they require is down, in model
    /// order: the first [`LISTED`] of them (the message names no more).
    pub dragged: Vec<ComponentId>,
    /// How many components are down because something they require is.
    pub dragged_total: usize,
    /// Entrypoints down, in the model's entrypoint order.
    pub entrypoints: Vec<ComponentId>,
}

/// Components every entrypoint needs through non-degradable edges (required
/// targets, `any_of` and `at_least` alike), entrypoints included. Nothing
/// outside this set can take an entrypoint down.
#[must_use]
pub fn required_closure(model: &Model, graph: &ComponentGraph) -> Vec<bool> {
    graph.required_closure(&model.entrypoints)
}

/// What `event` takes down compared with `baseline` (the components up in
/// the empty scenario), or `None` when every entrypoint stays up.
pub fn outage(model: &Model, baseline: &Baseline, event: &Scenario) -> Option<Outage> {
    let down = baseline.down_under(model, event);
    let entrypoints: Vec<ComponentId> = model
        .entrypoints
        .iter()
        .copied()
        .filter(|e| down.binary_search(e).is_ok())
        .collect();
    if entrypoints.is_empty() {
        return None;
    }
    let mut lost = Vec::new();
    let mut dragged = Vec::new();
    for id in down {
        let instances = instances_lost(model, id, event);
        let c = model.component(id);
        let on_its_own = c.shares.iter().any(|g| event.groups.contains(g))
            || c.instances - instances < c.min_healthy;
        if on_its_own {
            lost.push((id, instances));
        } else {
            dragged.push(id);
        }
    }
    let dragged_total = dragged.len();
    dragged.truncate(LISTED);
    Some(Outage {
        lost,
        dragged,
        dragged_total,
        entrypoints,
    })
}

/// Instances of `id` an event takes away: all of them when one of its groups
/// fired, else those in lost domains plus those failed on their own (what
/// [`scenario::instances_up`] leaves, taken from the fleet).
fn instances_lost(model: &Model, id: ComponentId, event: &Scenario) -> u32 {
    model
        .component(id)
        .instances
        .saturating_sub(scenario::instances_up(model, id, event))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DomainId;

    fn model(text: &str) -> Model {
        crate::model::parse(text).unwrap()
    }

    #[test]
    fn a_zone_loss_names_what_it_takes_and_what_follows() {
        let m = model(
            r"system: s
domains: {az-a: {kind: zone}, az-b: {kind: zone}}
components:
  lb: {instances: 2, placement: [az-a, az-b], depends_on: [checkout]}
  checkout: {instances: 2, placement: [az-a, az-b], depends_on: [postgres]}
  postgres: {placement: [az-a]}
",
        );
        let baseline = Baseline::new(&m);
        let lose_a = Scenario {
            domains: vec![DomainId(0)],
            ..Scenario::default()
        };
        let outage = outage(&m, &baseline, &lose_a).unwrap();
        // postgres has its only instance in az-a; checkout and lb keep one
        // instance each but need postgres.
        let [lb, checkout, postgres] = [0, 1, 2].map(ComponentId);
        assert_eq!(outage.lost, [(postgres, 1)]);
        assert_eq!(outage.dragged, [lb, checkout]);
        assert_eq!(outage.dragged_total, 2);
        assert_eq!(outage.entrypoints, [lb]);
        let lose_b = Scenario {
            domains: vec![DomainId(1)],
            ..Scenario::default()
        };
        assert_eq!(super::outage(&m, &baseline, &lose_b), None);
    }
}

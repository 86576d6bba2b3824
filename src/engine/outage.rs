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
    /// fired), with the instances this event takes away, in model order
    /// (from a scenario that already lost some, only those it adds).
    pub lost: Vec<(ComponentId, u32)>,
    /// Those of `lost` that were already short of instances before the
    /// event (a what-if's scenario), with how many were down: empty from
    /// the intact system.
    pub already_down: Vec<(ComponentId, u32)>,
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
    outage_after(model, baseline, &Scenario::default(), event)
}

/// [`outage`] of `event` (which includes `before`) from the state of
/// `before`, `baseline` being built under it: each component's instances
/// lost are those the event adds to what `before` already took, and
/// [`Outage::already_down`] says what that was (after losing az1, losing az2
/// takes the 2 instances az2 holds, not the 4 of both).
pub fn outage_after(
    model: &Model,
    baseline: &Baseline,
    before: &Scenario,
    event: &Scenario,
) -> Option<Outage> {
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
    let mut already_down = Vec::new();
    let mut dragged = Vec::new();
    for id in down {
        let c = model.component(id);
        let up_after = scenario::instances_up(model, id, event);
        let on_its_own =
            c.shares.iter().any(|g| event.groups.contains(g)) || up_after < c.min_healthy;
        if on_its_own {
            let up_before = if before.is_intact() {
                c.instances
            } else {
                scenario::instances_up(model, id, before)
            };
            lost.push((id, up_before.saturating_sub(up_after)));
            if up_before < c.instances {
                already_down.push((id, c.instances - up_before));
            }
        } else {
            dragged.push(id);
        }
    }
    let dragged_total = dragged.len();
    dragged.truncate(LISTED);
    Some(Outage {
        lost,
        already_down,
        dragged,
        dragged_total,
        entrypoints,
    })
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

    #[test]
    fn after_a_loss_an_event_counts_only_what_it_adds() {
        let m = model(
            r"system: s
domains: {az1: {kind: zone}, az2: {kind: zone}, az3: {kind: zone}}
components:
  web: {instances: 3, placement: [az1, az2, az3], depends_on: [redis]}
  redis: {instances: 6, min_healthy: 3, placement: [az1, az2, az3]}
",
        );
        let lose = |d: &[usize]| Scenario {
            domains: d.iter().map(|&d| DomainId(d)).collect(),
            ..Scenario::default()
        };
        let before = lose(&[0]);
        let baseline = Baseline::under(&m, &before);
        // redis: 2 per zone. After az1, 4 are up (>= 3); losing az2 too
        // leaves 2 < 3: az2 takes its 2, the 2 of az1 were already down.
        let outage = outage_after(&m, &baseline, &before, &lose(&[0, 1])).unwrap();
        let redis = ComponentId(1);
        assert_eq!(outage.lost, [(redis, 2)]);
        assert_eq!(outage.already_down, [(redis, 2)]);
        // From the intact system, both zones at once take 4 of 6.
        let outage = super::outage(&m, &Baseline::new(&m), &lose(&[0, 1])).unwrap();
        assert_eq!(outage.lost, [(redis, 4)]);
        assert!(outage.already_down.is_empty());
    }
}

//! What advice may say about a component, asked of the model before a rule
//! writes it: where its instances are (by domain kind), which domains a
//! scenario has lost, whether a spread would cross regions (and what that
//! costs a synchronously replicated or quorum component), whether it is a
//! role (a primary with a standby) rather than a fleet. The rules share
//! these so that no help proposes a place that does not exist or is lost,
//! or a change that would make the design worse.
//!
//! [`sizing`] is how many instances help asks for, counted from what is
//! deployed and what a scenario already lost, and whether a component is a
//! role (a primary) that more instances do not help.
//!
//! [`in_force`] is the last check, before any help is printed: a clause of
//! a help that proposes a setting the component or edge already has is
//! left out.

pub mod in_force;
pub(crate) mod sizing;
pub(crate) mod spread;

use std::sync::Arc;

use crate::engine::scenario::{Scenario, is_lost};
use crate::model::{Component, DomainId, Model, Replication};

/// The domain of `kind` that holds `domain`: itself or the nearest
/// ancestor of that kind.
pub(crate) fn of_kind(model: &Model, domain: DomainId, kind: &str) -> Option<DomainId> {
    std::iter::once(domain)
        .chain(model.domain(domain).ancestors.iter().copied())
        .find(|d| model.domain(*d).kind == kind)
}

/// The domains of `kind` that hold instances of `c`, in model order.
pub(crate) fn spans(model: &Model, c: &Component, kind: &str) -> Vec<DomainId> {
    let mut held: Vec<DomainId> = c
        .placement
        .iter()
        .filter(|&&(_, count)| count > 0)
        .filter_map(|&(d, _)| of_kind(model, d, kind))
        .collect();
    held.sort_unstable();
    held.dedup();
    held
}

/// The domains of `kind` that `scenario` has lost, in model order.
pub(crate) fn lost_of_kind(model: &Model, scenario: &Scenario, kind: &str) -> Vec<DomainId> {
    (0..model.domains.len())
        .map(DomainId)
        .filter(|&d| model.domain(d).kind == kind && is_lost(model, d, &scenario.domains))
        .collect()
}

/// The domains of `kind` still up in `scenario`, other than `but`, in
/// model order: where instances could still go.
pub(crate) fn left_of_kind(
    model: &Model,
    scenario: &Scenario,
    kind: &str,
    but: Option<DomainId>,
) -> Vec<DomainId> {
    (0..model.domains.len())
        .map(DomainId)
        .filter(|&d| {
            Some(d) != but && model.domain(d).kind == kind && !is_lost(model, d, &scenario.domains)
        })
        .collect()
}

/// Whether spreading over domains of `kind` crosses regions: the kind is
/// called a region (`region`, `aws-region` …), or its domains are the
/// outermost ones and hold other domains (a zone is inside each). The
/// model gives no round-trip times; this is where they are long.
pub(crate) fn crosses_regions(model: &Model, kind: &str) -> bool {
    if kind.to_ascii_lowercase().contains("region") {
        return true;
    }
    let of_kind: Vec<usize> = (0..model.domains.len())
        .filter(|&d| model.domains[d].kind == kind)
        .collect();
    of_kind.len() >= 2
        && of_kind.iter().all(|&d| {
            model.domains[d].parent.is_none()
                && model
                    .domains
                    .iter()
                    .any(|x| x.parent.is_some_and(|p| p.0 == d))
        })
}

/// Why stretching `c` across regions costs every write a cross-region
/// round trip: it replicates synchronously, or it needs a quorum of its
/// instances; `None` when neither.
pub(crate) fn stretch_cost(c: &Component) -> Option<Arc<str>> {
    let sync = c
        .recovery
        .as_ref()
        .is_some_and(|r| r.replication == Replication::Sync);
    // Stated, not proposed: no backticks (a setting in backticks is advice).
    let text = if sync {
        format!("{} replicates synchronously", c.name)
    } else if c.min_healthy > 1 {
        format!(
            "{} needs a quorum ({} of its {} instances)",
            c.name, c.min_healthy, c.instances
        )
    } else {
        return None;
    };
    Some(Arc::from(text))
}

/// The sentence that names the cost of stretching components across
/// regions (`costs`, from [`stretch_cost`]), and the design that avoids it.
pub(crate) fn latency_words<S: AsRef<str>>(costs: &[S]) -> String {
    let one = costs.len() == 1;
    format!(
        "but {}: stretched across regions, every write waits for a cross-region round trip (tens of milliseconds; the model gives none), so the usual design keeps {} in one region and fails over to an async standby in another, called through an `any_of` with a `switchover`",
        crate::analyze::wording::and_list(costs),
        if one { "it" } else { "them" }
    )
}

/// When `c` is a role rather than a fleet (a primary whose `recovery` has a
/// standby), the replication it names: more instances of a primary do not
/// make a second one.
pub(crate) fn standby_of(c: &Component) -> Option<&'static str> {
    c.recovery
        .as_ref()
        .filter(|r| r.replication != Replication::None && c.instances <= c.min_healthy)
        .map(|r| r.replication.as_str())
}

/// The names of `domains`.
pub(crate) fn names(model: &Model, domains: &[DomainId]) -> Vec<Arc<str>> {
    domains
        .iter()
        .map(|&d| Arc::from(model.domain(d).name.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"))
    }

    #[test]
    fn regions_are_named_or_hold_zones() {
        let m = model(
            r"system: s
domains:
  east: {kind: geo}
  west: {kind: geo}
  e1: {kind: zone, in: east}
  w1: {kind: zone, in: west}
  r1: {kind: rack}
  r2: {kind: rack}
components:
  db: {instances: 3, min_healthy: 2, placement: {e1: 2, w1: 1}}
",
        );
        // geo domains are outermost and each holds a zone; racks hold nothing.
        assert!(crosses_regions(&m, "geo"));
        assert!(!crosses_regions(&m, "zone"));
        assert!(!crosses_regions(&m, "rack"));
        assert!(crosses_regions(&m, "aws-region"));
        let db = &m.components[0];
        // e1 (2 instances) is in east, w1 in west: two geos, two zones.
        assert_eq!(spans(&m, db, "geo").len(), 2);
        assert_eq!(spans(&m, db, "zone").len(), 2);
        assert_eq!(
            stretch_cost(db).as_deref(),
            Some("db needs a quorum (2 of its 3 instances)")
        );
    }

    #[test]
    fn a_scenario_leaves_the_other_domains() {
        let m = model(
            r"system: s
domains: {a: {kind: zone}, b: {kind: zone}, c: {kind: zone}}
components:
  x: {instances: 3, placement: [a, b, c]}
",
        );
        let lose_a = Scenario {
            domains: vec![DomainId(0)],
            ..Scenario::default()
        };
        assert_eq!(lost_of_kind(&m, &lose_a, "zone"), [DomainId(0)]);
        // Besides b, only c is left.
        assert_eq!(
            left_of_kind(&m, &lose_a, "zone", Some(DomainId(1))),
            [DomainId(2)]
        );
    }
}

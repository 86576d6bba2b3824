//! Switchover time: an alternative that is a standby serves only after
//! detect + decide + failover, so each failure of the active side costs that
//! long even though the standby is up. An additive term on top of the
//! structure's figure (the BDD and SCRAM's static fault tree know nothing of
//! it): `Σ frequency × switchover` over the standby edges an entrypoint
//! needs.
//!
//! The frequency of the active side's failures is `Σ q / mttr` over the
//! active alternative and what it needs in series (`target` edges, not
//! degradable), `q` being a component's unavailability from its instances;
//! for one instance with `mtbf` and `mttr` that is `1 / (mtbf + mttr)`.
//! A domain whose loss alone takes an active-side component down adds
//! `(1 − availability) / mttr` of its own. A component or such a domain
//! with a figure but no `mttr` leaves it unknown: the figure then assumes
//! instant failover and says so in a caveat.

use std::collections::BTreeSet;

use super::events;
use super::scenario::surviving_instances;
use crate::model::{ComponentId, DomainId, Duration, Edge, EdgeKind, Model};

/// What the switchovers of one entrypoint cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cost {
    /// Unavailability added: `Σ frequency × switchover`.
    pub unavailability: f64,
    /// One line per standby edge whose frequency is unknown.
    pub caveats: Vec<String>,
}

/// How long switching away from the edge's active alternatives takes
/// ([`Model::switchover`]).
#[must_use]
pub fn duration(model: &Model, edge: &Edge) -> Option<Duration> {
    model.switchover(edge)
}

/// The active alternative and what it needs in series: a small closure
/// walked once per switchover edge, so with a set of its own rather than a
/// petgraph walker's visit map of the whole graph.
fn active_side(model: &Model, active: ComponentId) -> Vec<ComponentId> {
    let mut seen = BTreeSet::from([active]);
    let mut stack = vec![active];
    while let Some(c) = stack.pop() {
        for edge in &model.component(c).depends_on {
            if edge.kind == EdgeKind::Target && !edge.degradable && seen.insert(edge.targets[0]) {
                stack.push(edge.targets[0]);
            }
        }
    }
    seen.into_iter().collect()
}

/// Failures per second of the active side, or the names that have a
/// figure but no `mttr`.
fn frequency(model: &Model, active: ComponentId) -> Result<f64, Vec<String>> {
    let mut rate = 0.0;
    let mut unknown = Vec::new();
    for c in active_side(model, active) {
        let component = model.component(c);
        let Some(a) = component.availability else {
            continue; // unquantified: reported as such
        };
        if a <= 0.0 {
            // Down for good (what-if's lost things are 0): it does not fail
            // again and again, the standby has taken over. (q / mttr would
            // count a failure every mttr.)
            return Ok(0.0);
        }
        let q = 1.0
            - events::at_least(
                u64::from(component.instances),
                u64::from(component.min_healthy),
                a,
            );
        if q <= 0.0 {
            continue;
        }
        match component.mttr {
            Some(mttr) if mttr.0 > 0 => rate += q / mttr.seconds(),
            _ => unknown.push(component.name.clone()),
        }
    }
    // Domains whose loss alone takes an active-side component down (a
    // zone holding all its instances, the region around it), once each.
    let mut lost_with = BTreeSet::new();
    for c in active_side(model, active) {
        let component = model.component(c);
        if component.placement.is_empty() {
            continue;
        }
        for (index, domain) in model.domains.iter().enumerate() {
            if domain.availability.is_some_and(|a| a < 1.0)
                && surviving_instances(model, c, &[DomainId(index)]) < component.min_healthy
            {
                lost_with.insert(index);
            }
        }
    }
    if lost_with
        .iter()
        .any(|&index| model.domains[index].availability == Some(0.0))
    {
        return Ok(0.0); // lost for good: as for a component above
    }
    for index in lost_with {
        let domain = &model.domains[index];
        let q = 1.0 - domain.availability.unwrap_or(1.0);
        match domain.mttr {
            Some(mttr) if mttr.0 > 0 => rate += q / mttr.seconds(),
            _ => unknown.push(domain.name.clone()),
        }
    }
    if unknown.is_empty() {
        Ok(rate)
    } else {
        Err(unknown)
    }
}

/// The components of `components` down for certain: a figure of 0 (what
/// `what-if` gives what it loses), a group or every domain holding them at
/// 0, or a required edge that cannot hold given those. Empty, and nothing
/// walked, when nothing is at 0.
fn certainly_down(model: &Model, components: &BTreeSet<ComponentId>) -> BTreeSet<ComponentId> {
    let zero_domains: Vec<DomainId> = (0..model.domains.len())
        .filter(|&d| model.domains[d].availability == Some(0.0))
        .map(DomainId)
        .collect();
    let mut down: BTreeSet<ComponentId> = components
        .iter()
        .copied()
        .filter(|&c| {
            let component = model.component(c);
            component.availability == Some(0.0)
                || component
                    .shares
                    .iter()
                    .any(|g| model.groups[g.0].availability == Some(0.0))
                || (!zero_domains.is_empty()
                    && !component.placement.is_empty()
                    && surviving_instances(model, c, &zero_domains) < component.min_healthy)
        })
        .collect();
    if down.is_empty() {
        return down;
    }
    // What requires them: a few sweeps (a chain of required edges walked
    // against the model order takes one each), at most 64.
    for _ in 0..64 {
        let before = down.len();
        for &c in components {
            if down.contains(&c) {
                continue;
            }
            let fails = model
                .component(c)
                .depends_on
                .iter()
                .filter(|e| !e.degradable)
                .any(|edge| {
                    let alive = edge.targets.iter().filter(|t| !down.contains(t)).count();
                    match edge.kind {
                        EdgeKind::Target => alive < edge.targets.len(),
                        EdgeKind::AnyOf | EdgeKind::AtLeast => alive < edge.at_least as usize,
                    }
                });
            if fails {
                down.insert(c);
            }
        }
        if down.len() == before {
            break;
        }
    }
    down
}

/// The cost of the standby edges among `components` (an entrypoint's
/// structure), in model order.
#[must_use]
pub fn cost(model: &Model, components: impl Iterator<Item = ComponentId>) -> Cost {
    let components: BTreeSet<ComponentId> = components.collect();
    let mut out = Cost::default();
    let mut down: Option<BTreeSet<ComponentId>> = None;
    for &caller in &components {
        for edge in &model.component(caller).depends_on {
            if edge.degradable {
                continue;
            }
            let Some(switchover) = duration(model, edge) else {
                continue;
            };
            let k = usize::try_from(edge.at_least)
                .unwrap_or(usize::MAX)
                .min(edge.targets.len());
            // The active alternatives are the first `at_least` of those not
            // down for certain (a what-if scenario's lost one is replaced
            // by its standby); with no standby left behind them, their
            // failures are outages the structure counts, not switchovers.
            let down = down.get_or_insert_with(|| certainly_down(model, &components));
            let up: Vec<ComponentId> = edge
                .targets
                .iter()
                .copied()
                .filter(|t| !down.contains(t))
                .collect();
            if up.len() < edge.targets.len() && up.len() <= k {
                continue;
            }
            for &target in &up[..k.min(up.len())] {
                match frequency(model, target) {
                    Ok(rate) => out.unavailability += rate * switchover.seconds(),
                    Err(names) => out.caveats.push(format!(
                        "assumes instant failover from {} ({} of switchover in {}): {} {} a figure but no mttr, so how often it fails over is unknown",
                        model.component(target).name,
                        switchover,
                        model.component(caller).name,
                        names.join(", "),
                        if names.len() == 1 { "has" } else { "have" },
                    )),
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"))
    }

    #[test]
    fn the_worked_example_costs_45_minutes_per_724_hours() {
        // primary: mtbf 720h, mttr 4h; hot standby perfect; switchover 45m.
        // Frequency 1 / 724h; unavailability 0.75h / 724h = 1.0359e-3.
        let m = model(
            r"system: s
components:
  api: {depends_on: [{any_of: [primary, standby], switchover: 45m}]}
  primary: {mtbf: 720h, mttr: 4h}
  standby: {availability: 100%}
",
        );
        let cost = cost(&m, m.component_ids());
        assert!(
            (cost.unavailability - 0.75 / 724.0).abs() < 1e-12,
            "{}",
            cost.unavailability
        );
        assert!(cost.caveats.is_empty());
    }

    #[test]
    fn an_active_side_down_for_good_costs_no_switchovers() {
        // What-if marks a lost component or zone with availability 0. a at 0
        // with mttr 1h would give (1 − 0) / 1h = 1 failure an hour × 10m =
        // 0.1667 of unavailability; it is down for good and b has taken
        // over: no switchover cost and no caveat.
        let text = "system: s\ndomains: {z1: {kind: zone, availability: 99.95%, mttr: 1h}}\ncomponents:\n  api: {depends_on: [{any_of: [a, b], switchover: 10m}]}\n  a: {availability: 0%, mttr: 1h, placement: [z1]}\n  b: {availability: 99.9%}\n";
        let m = model(text);
        let cost = cost(&m, m.component_ids());
        assert!(cost.unavailability.abs() < 1e-15, "{}", cost.unavailability);
        assert!(cost.caveats.is_empty());
        // The same with the zone lost instead: z1 at 0 holds all of a.
        let m = model(
            &text
                .replace(
                    "availability: 0%, mttr: 1h, ",
                    "availability: 99.9%, mttr: 1h, ",
                )
                .replace(
                    "availability: 99.95%, mttr: 1h",
                    "availability: 0%, mttr: 1h",
                ),
        );
        let cost = super::cost(&m, m.component_ids());
        assert!(cost.unavailability.abs() < 1e-15, "{}", cost.unavailability);
        // Intact, the zone and a count: (1e-3 + 5e-4) / 1h × 1/6 h = 2.5e-4.
        let m = model(&text.replace(
            "availability: 0%, mttr: 1h, ",
            "availability: 99.9%, mttr: 1h, ",
        ));
        let cost = super::cost(&m, m.component_ids());
        assert!(
            (cost.unavailability - 2.5e-4).abs() < 1e-12,
            "{}",
            cost.unavailability
        );
    }

    #[test]
    fn a_lost_active_alternative_is_replaced_by_the_next_one() {
        // [a, b, c] with a down for good (what-if's 0): b is active and c
        // its standby: b's 1e-3 / 1h × 10m = 1.667e-4. With b lost too, c
        // has no standby behind it: no switchover term.
        let text = "system: s\ncomponents:\n  api: {depends_on: [{any_of: [a, b, c], switchover: 10m}]}\n  a: {availability: 0%, mttr: 1h}\n  b: {availability: 99.9%, mttr: 1h}\n  c: {availability: 99%, mttr: 1h}\n";
        let m = model(text);
        let c = cost(&m, m.component_ids());
        assert!(
            (c.unavailability - 1e-3 / 6.0).abs() < 1e-15,
            "{}",
            c.unavailability
        );
        let m = model(&text.replace("b: {availability: 99.9%", "b: {availability: 0%"));
        assert!(cost(&m, m.component_ids()).unavailability.abs() < 1e-15);
    }

    #[test]
    fn availability_with_mttr_gives_the_frequency_and_without_it_a_caveat() {
        // 99.9% with mttr 1h: (1 − 0.999) / 1h = 1e-3 per hour; × 0.5h = 5e-4.
        let text = r"system: s
components:
  api: {depends_on: [{any_of: [a, b], switchover: 30m}]}
  a: {availability: 99.9%, mttr: 1h}
  b: {availability: 99.9%}
";
        let m = model(text);
        assert!((cost(&m, m.component_ids()).unavailability - 5e-4).abs() < 1e-12);
        let m = model(&text.replace(", mttr: 1h", ""));
        let cost = cost(&m, m.component_ids());
        assert!(cost.unavailability.abs() < 1e-15);
        assert_eq!(
            cost.caveats,
            [
                "assumes instant failover from a (30m of switchover in api): a has a figure but no mttr, so how often it fails over is unknown"
            ]
        );
    }

    #[test]
    fn a_zone_holding_the_active_side_adds_its_own_losses() {
        // a: 99.9%, mttr 1h -> 1e-3 per hour; its zone z: 99.99%, mttr 2h ->
        // 1e-4 / 2h = 5e-5 per hour. Σ 1.05e-3 per hour × 1h switchover.
        let text = r"system: s
domains: {z: {kind: zone, availability: 99.99%, mttr: 2h}}
components:
  api: {depends_on: [{any_of: [a, b], switchover: 1h}]}
  a: {availability: 99.9%, mttr: 1h, placement: [z]}
  b: {}
";
        let m = model(text);
        let c = cost(&m, m.component_ids());
        assert!(
            (c.unavailability - 1.05e-3).abs() < 1e-12,
            "{}",
            c.unavailability
        );
        // Without the zone's mttr, its losses' frequency is unknown.
        let m = model(&text.replace(", mttr: 2h", ""));
        let c = cost(&m, m.component_ids());
        assert!(
            c.caveats[0].contains(": z has a figure but no mttr"),
            "{:?}",
            c.caveats
        );
    }

    #[test]
    fn failover_to_with_a_recovery_implies_the_switchover() {
        // a fails over to b: detect 5m + decide 30m + failover 10m = 45m.
        let m = model(
            r"system: s
components:
  api: {depends_on: [{any_of: [a, b]}]}
  a: {mtbf: 720h, mttr: 4h, failover_to: b, recovery: {detect: 5m, decide: 30m, failover: 10m}}
  b: {}
",
        );
        assert_eq!(
            duration(&m, &m.components[0].depends_on[0]),
            Some(Duration(45 * 60_000))
        );
        // Without failover_to the alternatives are hot.
        let m = model(
            r"system: s
components:
  api: {depends_on: [{any_of: [a, b]}]}
  a: {mtbf: 720h, mttr: 4h, recovery: {detect: 5m}}
  b: {}
",
        );
        assert_eq!(duration(&m, &m.components[0].depends_on[0]), None);
    }
}

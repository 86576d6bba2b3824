//! How many instances would carry a load, as help says it: the deployed
//! fleet that passes, counted from what is deployed and what a scenario
//! already lost, never a count at or below what is deployed for a fleet
//! that does not pass ("run 4 instances" beside a fleet of 6 reads as a
//! scale-down). `headroom` and `overload` share it.
//!
//! The instances needed up are `ceil(load / (capacity × max_utilization))`
//! (one more for N+1). A component spread over domains of one kind keeps
//! them in the domains left: with `d` domains of that kind holding it, `g`
//! of them lost (by the scenario, and by the loss judged) and `f` instances
//! failed on their own on top, `per = ceil((needed + f) / (d − g))` per
//! domain, `per × d` deployed. Otherwise the instances the losses took
//! stay lost and the missing ones are added where they survive:
//! `needed + (deployed − survivors)`.

use std::fmt;
use std::sync::Arc;

use super::{lost_of_kind, of_kind, spans};
use crate::analyze::wording::{amount, and_list, whole_percent};
use crate::engine::scenario::{Scenario, is_lost};
use crate::model::{ComponentId, DomainId, EdgeKind, Model};

/// What a sizing needs to know of the loss and the component.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Need<'a> {
    /// The load to carry.
    pub load: f64,
    /// Capacity of one instance.
    pub per_instance: f64,
    /// Instances up after the losses.
    pub survivors: u32,
    /// One more instance than the load needs (N+1).
    pub spare: bool,
    /// The domains the judged loss itself takes (none for an instance, a
    /// group, a component).
    pub domains: &'a [DomainId],
}

/// The fleet that would pass: the instances needed up at peak, the fleet
/// to deploy, and its spread per domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Instances needed up at peak within the ceiling.
    pub at_peak: u32,
    /// The fleet to deploy.
    pub required: u32,
    /// Instances per domain, when the losses go by domain of one kind.
    pub per_domain: Option<u32>,
}

/// How the losses reach a component spread over domains of one kind.
#[derive(Debug, Clone, Copy)]
struct Shape<'m> {
    kind: &'m str,
    /// Domains of the kind holding the component.
    used: u32,
    /// Of those, lost by the scenario and by the judged loss.
    before: u32,
    now: u32,
}

impl Shape<'_> {
    fn left(&self) -> u32 {
        self.used.saturating_sub(self.before + self.now)
    }
}

impl Counts {
    /// The fleet of `id` that carries `need` in `scenario` (with the
    /// judged loss's domains lost too), within `policy.max_utilization`.
    /// Builds no text: every headroom row has one.
    pub(crate) fn new(model: &Model, scenario: &Scenario, id: ComponentId, need: Need<'_>) -> Self {
        Self::of(
            model,
            scenario,
            id,
            need,
            shape(model, scenario, id, need.domains),
        )
    }

    fn of(
        model: &Model,
        scenario: &Scenario,
        id: ComponentId,
        need: Need<'_>,
        shape: Option<Shape<'_>>,
    ) -> Self {
        let c = model.component(id);
        let at_peak = at_peak(need.per_instance, need.load, model.policy.max_utilization);
        let needed = at_peak.saturating_add(u32::from(need.spare));
        match shape {
            Some(s) => {
                let per = needed
                    .saturating_add(failed(scenario, id))
                    .div_ceil(s.left());
                Self {
                    at_peak,
                    required: per.saturating_mul(s.used),
                    per_domain: Some(per),
                }
            }
            None => Self {
                at_peak,
                required: needed.saturating_add(
                    c.instances
                        .saturating_sub(need.survivors + u32::from(need.spare)),
                ),
                per_domain: None,
            },
        }
    }
}

/// The fleet that would pass, with what its help says: the instances
/// deployed, the domains lost before, the figures of the ceiling.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sizing {
    counts: Counts,
    /// Deployed now.
    deployed: u32,
    spread: Option<Spread>,
    spare: bool,
    survivors: u32,
    load: f64,
    per_instance: f64,
    max: f64,
}

/// A fleet spread over the domains of one kind.
#[derive(Debug, Clone, PartialEq)]
struct Spread {
    per: u32,
    kind: Arc<str>,
    /// Domains of the kind holding the component.
    used: u32,
    /// Of those, lost by the scenario (named) and by the judged loss.
    lost_before: Vec<Arc<str>>,
    lost_now: u32,
    /// Instances failed on their own in the scenario, on top.
    failed: u32,
}

impl Sizing {
    /// [`Counts`] with the names its help needs (for a finding).
    pub(crate) fn new(model: &Model, scenario: &Scenario, id: ComponentId, need: Need<'_>) -> Self {
        let c = model.component(id);
        let shape = shape(model, scenario, id, need.domains);
        let counts = Counts::of(model, scenario, id, need, shape);
        let spread = shape.map(|s| Spread {
            per: counts.per_domain.unwrap_or(0),
            kind: Arc::from(s.kind),
            used: s.used,
            lost_before: lost_before(model, scenario, id, s.kind),
            lost_now: s.now,
            failed: failed(scenario, id),
        });
        Self {
            counts,
            deployed: c.instances,
            spread,
            spare: need.spare,
            survivors: need.survivors,
            load: need.load,
            per_instance: need.per_instance,
            max: model.policy.max_utilization,
        }
    }

    /// `at peak 3 instances are needed at 100% (ceil(300 / (100 × 1)))`.
    fn head(&self) -> String {
        format!(
            "at peak {} instances are needed at {} (ceil({} / ({} × {})))",
            self.counts.at_peak,
            whole_percent(self.max),
            amount(self.load),
            amount(self.per_instance),
            self.max
        )
    }

    /// Writes the help for a row of `headroom`, `steady` being the
    /// utilization of the fleet before the loss.
    pub(crate) fn write_headroom(
        &self,
        name: &str,
        steady: f64,
        out: &mut fmt::Formatter<'_>,
    ) -> fmt::Result {
        let steady = whole_percent(steady);
        let spare = if self.spare { ", plus one spare" } else { "" };
        let head = self.head();
        match &self.spread {
            Some(s) => {
                let kind = &s.kind;
                let fit = s.fit();
                if self.counts.required > self.deployed {
                    write!(
                        out,
                        "run {} instances{}{}: {head}{spare}, {fit}; that fleet runs at {steady} in steady state",
                        self.counts.required,
                        s.placed(),
                        self.deployed_now(s),
                    )
                } else {
                    write!(
                        out,
                        "spread the {} instances of {} at least {} per {kind} over its {}: {head}{spare}, {fit}; {} so spread run at {steady} in steady state",
                        self.deployed,
                        name,
                        s.per,
                        count(s.used, kind),
                        self.counts.required,
                    )
                }
            }
            None if self.spare && self.survivors + 1 == self.deployed => write!(
                out,
                "run {} instances of {} (N+1: {head}, plus one spare); that fleet runs at {steady} in steady state",
                self.counts.required, name
            ),
            None if self.survivors < self.deployed => write!(
                out,
                "run {} instances of {}, {} more where this loss does not reach: {head}{spare}, and {} are left after it; that fleet runs at {steady} in steady state",
                self.counts.required,
                name,
                self.counts.required.saturating_sub(self.deployed),
                self.survivors,
            ),
            None => write!(
                out,
                "run {} instances of {} ({} more): {head}{spare} for the load this loss sends it; that fleet runs at {steady} in steady state",
                self.counts.required,
                name,
                self.counts.required.saturating_sub(self.deployed),
            ),
        }
    }

    /// Writes the help of `overload`: the fleet that carries the load with
    /// nothing more lost.
    pub(crate) fn write_overload(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ceiling = format!(
            "ceil({} / ({} × {}))",
            amount(self.load),
            amount(self.per_instance),
            self.max
        );
        match &self.spread {
            Some(s) => write!(
                out,
                "run {} instances{}{}: {} are needed at peak ({ceiling}), {}, or cut the load reaching it",
                self.counts.required,
                s.placed(),
                self.deployed_now(s),
                self.counts.at_peak,
                s.fit(),
            ),
            None if self.survivors < self.deployed => write!(
                out,
                "run {} instances ({} more where this scenario leaves them: {} are needed at peak, {ceiling}, and {} of {} are up) or cut the load reaching it",
                self.counts.required,
                self.counts.required.saturating_sub(self.deployed),
                self.counts.at_peak,
                self.survivors,
                self.deployed,
            ),
            None => write!(
                out,
                "run {} instances ({ceiling}) or cut the load reaching it",
                self.counts.required
            ),
        }
    }

    /// ` (6 are deployed)` when the scenario already lost some of them.
    fn deployed_now(&self, s: &Spread) -> String {
        if s.lost_before.is_empty() && s.failed == 0 {
            String::new()
        } else {
            format!(" ({} are deployed)", self.deployed)
        }
    }
}

impl Spread {
    /// `, 3 per zone over 3 zones`, or ` in its one zone` where it has one
    /// (a per-zone count over one zone is the fleet again).
    fn placed(&self) -> String {
        if self.used == 1 {
            format!(" in its one {}", self.kind)
        } else {
            format!(
                ", {} per {} over {}",
                self.per,
                self.kind,
                count(self.used, &self.kind)
            )
        }
    }

    /// `and they must fit in the 2 zones left after losing 1`.
    fn fit(&self) -> String {
        let kind = &self.kind;
        let left = self.used - u32::try_from(self.lost_before.len()).unwrap_or(0) - self.lost_now;
        if self.lost_before.is_empty() && self.lost_now == 0 {
            if self.used == 1 {
                return format!("all in that {kind}");
            }
            return format!("spread over its {}", count(self.used, kind));
        }
        let after = if self.lost_before.is_empty() {
            format!("losing {}", self.lost_now)
        } else if self.lost_now == 0 {
            format!("this scenario's loss of {}", and_list(&self.lost_before))
        } else {
            format!(
                "losing {} more ({} already lost)",
                self.lost_now,
                and_list(&self.lost_before)
            )
        };
        let failed = if self.failed > 0 {
            format!(" with {} more failed on their own", self.failed)
        } else {
            String::new()
        };
        format!(
            "and they must fit in the {} left after {after}{failed}",
            count(left, kind)
        )
    }
}

/// Instances needed to carry `load` within `max_utilization` (at least 1).
pub(crate) fn at_peak(per_instance: f64, load: f64, max_utilization: f64) -> u32 {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a non-negative count; `as` saturates at u32::MAX when the ceiling is 0"
    )]
    let n = (load / (per_instance * max_utilization)).ceil() as u32;
    n.max(1)
}

/// `1 zone`, `2 zones`.
pub(crate) fn count(n: u32, kind: &str) -> String {
    format!("{n} {kind}{}", if n == 1 { "" } else { "s" })
}

/// Instances of `id` that `scenario` fails on their own.
fn failed(scenario: &Scenario, id: ComponentId) -> u32 {
    scenario
        .failed_instances
        .iter()
        .filter(|(c, _)| *c == id)
        .map(|&(_, n)| n)
        .sum()
}

/// The kind the losses take `id`'s instances by: the kind of `domains`
/// when given, else the one kind of the scenario's lost domains holding
/// it; with the domains of that kind holding it, and how many of them the
/// scenario and the judged loss take. `None` when no loss goes by domain
/// of one kind, when some instances sit outside every domain of the kind
/// (they survive anywhere), or when no domain would be left.
fn shape<'m>(
    model: &'m Model,
    scenario: &Scenario,
    id: ComponentId,
    domains: &[DomainId],
) -> Option<Shape<'m>> {
    let c = model.component(id);
    if c.placement.is_empty() {
        return None;
    }
    let kind: &'m str = match domains.first() {
        Some(&d) => &model.domain(d).kind,
        None if scenario.domains.is_empty() => return None,
        None => {
            let mut found: Option<&'m str> = None;
            for &lost in &scenario.domains {
                let kind = model.domain(lost).kind.as_str();
                let holds = c.placement.iter().any(|&(d, n)| {
                    n > 0
                        && of_kind(model, d, kind)
                            .is_some_and(|k| is_lost(model, k, &scenario.domains))
                });
                match found {
                    _ if !holds => {}
                    None => found = Some(kind),
                    Some(k) if k == kind => {}
                    Some(_) => return None,
                }
            }
            found?
        }
    };
    // The distinct domains of the kind holding it (a placement has a few
    // entries: no set is built).
    let held = |i: usize| of_kind(model, c.placement[i].0, kind);
    let (mut used, mut before, mut now) = (0, 0, 0);
    for i in 0..c.placement.len() {
        let k = held(i)?;
        if c.placement[i].1 == 0 || (0..i).any(|j| c.placement[j].1 > 0 && held(j) == Some(k)) {
            continue;
        }
        used += 1;
        if is_lost(model, k, &scenario.domains) {
            before += 1;
        } else if domains.contains(&k) {
            now += 1;
        }
    }
    let shape = Shape {
        kind,
        used,
        before,
        now,
    };
    // Without a loss by domain a spread says nothing new: N+1 and the
    // load a group or a component sends are the plain count.
    (shape.left() > 0 && (!domains.is_empty() || shape.before > 0)).then_some(shape)
}

/// The names of the domains of `kind` holding `id` that `scenario` lost.
fn lost_before(model: &Model, scenario: &Scenario, id: ComponentId, kind: &str) -> Vec<Arc<str>> {
    let held = spans(model, model.component(id), kind);
    lost_of_kind(model, scenario, kind)
        .into_iter()
        .filter(|d| held.contains(d))
        .map(|d| Arc::from(model.domain(d).name.as_str()))
        .collect()
}

/// Why a component is a role rather than a fleet, for each component
/// (built once per run): the active alternative of a standby `any_of`
/// (`at_least`) edge, or one whose `recovery` fails over to a standby.
/// More instances of a primary do not make a second one: help says to
/// add a replica or to resize it.
pub(crate) fn roles(model: &Model) -> Vec<Option<Arc<str>>> {
    let mut roles: Vec<Option<Arc<str>>> = model
        .components
        .iter()
        .map(|c| {
            c.recovery
                .as_ref()
                .filter(|r| r.failover.is_some())
                .map(|_| Arc::from("its recovery fails over to a standby"))
        })
        .collect();
    for caller in &model.components {
        for edge in &caller.depends_on {
            if edge.kind == EdgeKind::Target || model.switchover(edge).is_none() {
                continue;
            }
            let active = (edge.at_least as usize).clamp(1, edge.targets.len());
            let standbys: Vec<&str> = edge.targets[active..]
                .iter()
                .map(|&t| model.component(t).name.as_str())
                .collect();
            for &t in &edge.targets[..active] {
                roles[t.0].get_or_insert_with(|| {
                    Arc::from(format!(
                        "the active side of {}'s `any_of` with the standby {}",
                        caller.name,
                        and_list(&standbys)
                    ))
                });
            }
        }
    }
    roles
}

/// The help for a role that cannot carry `load`: a replica or a larger
/// instance, not more instances of it.
pub(crate) fn write_role(
    out: &mut fmt::Formatter<'_>,
    name: &str,
    why: &str,
    (load, per_instance, up, max): (f64, f64, u32, f64),
) -> fmt::Result {
    write!(
        out,
        "{name} is a primary ({why}), not a fleet: more instances of it are not more primaries; take reads off it with a read replica behind its callers, or resize it: carrying {} within {} takes {} where its {} × {} give {}",
        amount(load),
        whole_percent(max),
        amount(load / max),
        up,
        amount(per_instance),
        amount(f64::from(up) * per_instance),
    )
}

/// Help for a load over a `rate_limit` that binds (below what the
/// instances up carry): a limit is the whole component's and does not
/// grow with instances, so the help raises it (to the load within
/// `policy.max_utilization`) and says what the instances carry, or, where
/// they do not carry it either, adds the limit to the fleet's help.
pub(crate) fn write_rate_limit(
    out: &mut fmt::Formatter<'_>,
    (load, max): (f64, f64),
    (up, carried): (u32, f64),
    fleet: &dyn Fn(&mut fmt::Formatter<'_>) -> fmt::Result,
) -> fmt::Result {
    let need = within_ceiling(load, max);
    if load > carried * max + 1e-9 {
        fleet(out)?;
        write!(
            out,
            "; and raise its rate_limit to at least {need}: the limit is the whole component's and does not grow with instances"
        )
    } else {
        write!(
            out,
            "raise its rate_limit to at least {need}, or cut the load reaching it: the {up} {} up carry {}, so the limit is what refuses (it is the whole component's: more instances do not raise it)",
            if up == 1 { "instance" } else { "instances" },
            amount(carried)
        )
    }
}

/// The rate that carries `load` within `policy.max_utilization` (`max`),
/// with its arithmetic where the ceiling is below 100%: `625 (500 / 80%,
/// policy.max_utilization)`.
pub(crate) fn within_ceiling(load: f64, max: f64) -> String {
    if (max - 1.0).abs() < 1e-12 {
        amount(load)
    } else {
        format!(
            "{} ({} / {}, policy.max_utilization)",
            amount(load / max),
            amount(load),
            whole_percent(max)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"))
    }

    const FLEET: &str = "system: s\ndomains: {az-a: {kind: zone}, az-b: {kind: zone}, az-c: {kind: zone}}\ncomponents:\n  api: {instances: 6, placement: [az-a, az-b, az-c], capacity: 100, load: 300}\n";

    #[test]
    fn after_two_zones_the_fleet_that_passes_is_larger_than_the_one_deployed() {
        // Lost az-a and az-b: 2 of 6 up at 300 / 200 = 150%. 3 are needed
        // up, in the one zone left: 3 per zone over 3 zones = 9 (6 now).
        let m = model(FLEET);
        let scenario = Scenario {
            domains: vec![DomainId(0), DomainId(1)],
            ..Scenario::default()
        };
        let need = Need {
            load: 300.0,
            per_instance: 100.0,
            survivors: 2,
            spare: false,
            domains: &[],
        };
        let s = Counts::new(&m, &scenario, ComponentId(0), need);
        assert_eq!((s.at_peak, s.required, s.per_domain), (3, 9, Some(3)));
        // N+1 in the same state: 4 up in az-c, 4 per zone = 12.
        let s = Counts::new(
            &m,
            &scenario,
            ComponentId(0),
            Need {
                survivors: 1,
                spare: true,
                ..need
            },
        );
        assert_eq!(s.required, 12);
    }

    #[test]
    fn instances_failed_on_their_own_stay_failed() {
        // api:2 failed, then az-b: 4 in az-a and az-c less 2 = 2 up... the
        // fleet that passes holds 3 + 2 in the two zones left: ceil(5 / 2)
        // = 3 per zone, 9 in all.
        let m = model(FLEET);
        let scenario = Scenario {
            failed_instances: vec![(ComponentId(0), 2)],
            ..Scenario::default()
        };
        let s = Counts::new(
            &m,
            &scenario,
            ComponentId(0),
            Need {
                load: 300.0,
                per_instance: 100.0,
                survivors: 2,
                spare: false,
                domains: &[DomainId(1)],
            },
        );
        assert_eq!((s.per_domain, s.required), (Some(3), 9));
    }
}

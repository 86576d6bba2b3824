//! What is up in one scenario: a set of lost domains, fired shared-fate
//! groups and failed instances. The SPOF, shared-fate, recovery-access and
//! what-if checks ask this question; the Monte Carlo simulation asks it once
//! per trial; [`super::state`] builds the load flow on top of it.
//!
//! A component is up when at least `min_healthy` of its instances survive and
//! every required dependency is satisfied. Cycles of required edges take the
//! greatest fixed point: start from "everything that survives locally is up"
//! and switch off whatever lacks a dependency until nothing changes, so the
//! members of a cycle are up when each one's own conditions hold.

use std::sync::Arc;

use crate::model::{ComponentId, DomainId, EdgeKind, GroupId, Model};

/// A failure scenario: what is down, how much load enters, and whether the
/// caches are cold. [`super::state::State`] is the system in one.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Domains lost (with everything inside them).
    pub domains: Vec<DomainId>,
    /// Shared-fate groups that fired.
    pub groups: Vec<GroupId>,
    /// Instances failed on their own, as (component, how many) pairs; pairs
    /// naming the same component add up.
    pub failed_instances: Vec<(ComponentId, u32)>,
    /// Factor on every written `load` (1: as written).
    pub load_factor: f64,
    /// Whether every cache is cold (every `hit_rate` is 0).
    pub cold: bool,
    /// Concurrency ceilings (docs/slow.md), for the components a slowness
    /// keeps from serving all they are offered; pairs naming the same
    /// component take the lowest. Empty but in a slow scenario.
    pub ceilings: Vec<(ComponentId, Ceiling)>,
    /// Edge limits that refuse calls (docs/slow.md): (caller, edge index,
    /// the share of the edge's calls its limit admits). A refused call is
    /// not made: the edge carries only the admitted share. Pairs naming the
    /// same edge take the lowest. Empty but in a slow scenario.
    pub admitted: Vec<(ComponentId, usize, f64)>,
}

/// What a component a slowness holds back still does, requests per second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ceiling {
    /// What it serves at most: its pool's `workers / time held`, less what
    /// its bulkheads refuse; 0 when its calls fail or hang.
    pub serves: f64,
    /// What its pool takes in, and so passes on to its dependencies (a
    /// call that fails was still made): `workers / time held` when its pool
    /// is saturated, else all it is offered.
    pub admits: f64,
}

impl Default for Scenario {
    fn default() -> Self {
        Self {
            domains: Vec::new(),
            groups: Vec::new(),
            failed_instances: Vec::new(),
            load_factor: 1.0,
            cold: false,
            ceilings: Vec::new(),
            admitted: Vec::new(),
        }
    }
}

impl Scenario {
    /// This scenario with `event` happening too.
    #[must_use]
    pub fn and(&self, event: &Scenario) -> Scenario {
        let mut both = self.clone();
        both.domains.extend(event.domains.iter().copied());
        both.groups.extend(event.groups.iter().copied());
        both.failed_instances
            .extend(event.failed_instances.iter().copied());
        both.cold |= event.cold;
        both.ceilings.extend(event.ceilings.iter().copied());
        both.admitted.extend(event.admitted.iter().copied());
        both
    }

    /// Whether nothing is down, the load is as written and caches are warm.
    #[must_use]
    pub fn is_intact(&self) -> bool {
        self.domains.is_empty()
            && self.groups.is_empty()
            && self.failed_instances.is_empty()
            && (self.load_factor - 1.0).abs() < f64::EPSILON
            && !self.cold
            && self.ceilings.is_empty()
            && self.admitted.is_empty()
    }
}

/// Instances of `component` up in `scenario`: those outside the lost
/// domains, less those failed, none when one of its groups fired.
pub fn instances_up(model: &Model, component: ComponentId, scenario: &Scenario) -> u32 {
    let failed: u32 = scenario
        .failed_instances
        .iter()
        .filter(|(f, _)| *f == component)
        .map(|&(_, n)| n)
        .sum();
    instances_up_failing(model, component, scenario, failed)
}

/// [`instances_up`] with the instances of `component` that failed on
/// their own already added up (see [`failed_per_component`]).
pub fn instances_up_failing(
    model: &Model,
    component: ComponentId,
    scenario: &Scenario,
    failed: u32,
) -> u32 {
    let c = model.component(component);
    if c.shares.iter().any(|g| scenario.groups.contains(g)) {
        return 0;
    }
    surviving_instances(model, component, &scenario.domains).saturating_sub(failed)
}

/// The instances failed on their own per component, in one pass over the
/// scenario's pairs (a slow scenario can fail thousands of components).
#[must_use]
pub fn failed_per_component(model: &Model, scenario: &Scenario) -> Vec<u32> {
    let mut failed = vec![0u32; model.components.len()];
    for &(id, n) in &scenario.failed_instances {
        failed[id.0] = failed[id.0].saturating_add(n);
    }
    failed
}

/// Instances of `component` that survive the lost domains (ignoring groups
/// and own failures).
pub fn surviving_instances(model: &Model, component: ComponentId, lost: &[DomainId]) -> u32 {
    let c = model.component(component);
    if c.placement.is_empty() {
        return c.instances;
    }
    c.placement
        .iter()
        .filter(|(domain, _)| !is_lost(model, *domain, lost))
        .map(|&(_, count)| count)
        .sum()
}

/// One `--lose` argument (`what-if`, `recover`): `NAME`, or `COMPONENT:N`
/// for N of its instances (a component whose name has a `:` is itself).
///
/// # Errors
/// A count after `:` that is not a whole number above 0.
pub fn lose_arg<'a>(model: &Model, arg: &'a str) -> Result<(&'a str, Option<u32>), String> {
    match arg.rsplit_once(':') {
        Some((name, n)) if !model.components.iter().any(|c| c.name == arg) => {
            let count: u32 = n.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                format!("--lose `{arg}`: the count after `:` must be a whole number above 0, such as `api:1`")
            })?;
            Ok((name, Some(count)))
        }
        _ => Ok((arg, None)),
    }
}

/// The refusal of a `--lose` name that is no domain, group or component,
/// with the closest name of the model.
#[must_use]
pub fn unknown_loss(model: &Model, name: &str) -> String {
    let all = model
        .domains
        .iter()
        .map(|d| d.name.as_str())
        .chain(model.groups.iter().map(|g| g.name.as_str()))
        .chain(model.components.iter().map(|c| c.name.as_str()));
    let hint = crate::model::error::closest(name, all)
        .map_or_else(String::new, |b| format!(" (did you mean `{b}`?)"));
    format!("--lose `{name}`: no domain, shared-fate group or component is called that{hint}")
}

/// Whether `domain` is lost, directly or through a domain that contains it.
pub fn is_lost(model: &Model, domain: DomainId, lost: &[DomainId]) -> bool {
    lost.contains(&domain)
        || model
            .domain(domain)
            .ancestors
            .iter()
            .any(|a| lost.contains(a))
}

/// Whether each component survives on its own: enough instances outside the
/// lost domains, not failed, and none of its groups fired.
pub fn locally_up(model: &Model, scenario: &Scenario) -> Vec<bool> {
    model
        .component_ids()
        .map(|id| survives(model, id, scenario))
        .collect()
}

/// Which components are up, given which survive on their own (the greatest
/// fixed point of the required-edge conditions).
pub fn up_given(model: &Model, up: Vec<bool>) -> Vec<bool> {
    up_given_with(model, &callers(model), up)
}

/// [`up_given`] with the callers index already built (see [`callers`]): a
/// worklist switches off what lacks a dependency and then only re-checks its
/// callers, so a long chain costs its length, not its length squared.
pub fn up_given_with(model: &Model, callers: &[Vec<ComponentId>], mut up: Vec<bool>) -> Vec<bool> {
    let mut work: Vec<ComponentId> = Vec::new();
    for id in model.component_ids() {
        if up[id.0] && !dependencies_hold(model, id, &up) {
            up[id.0] = false;
            work.push(id);
        }
    }
    while let Some(id) = work.pop() {
        for &caller in &callers[id.0] {
            if up[caller.0] && !dependencies_hold(model, caller, &up) {
                up[caller.0] = false;
                work.push(caller);
            }
        }
    }
    up
}

/// [`up_given_with`] worked out from a set already closed, at the cost of
/// what it loses rather than the model's size.
///
/// `before` must be closed (every member's required dependencies hold
/// within it, as in any result of [`up_given_with`]) and must hold what
/// `base` keeps up (`up_given_with(base) ⊆ before`: `base` a subset of
/// what `before` was worked out from, or itself a subset of `before`).
/// The greatest fixed point under `base` then lies inside `base ∩ before`,
/// whose members all had their dependencies in `before`: only the callers
/// of what `before` loses can lack one, and the worklist walks up from
/// there alone.
#[must_use]
pub fn up_given_from(
    model: &Model,
    callers: &[Vec<ComponentId>],
    before: &[bool],
    mut base: Vec<bool>,
) -> Vec<bool> {
    let mut work: Vec<ComponentId> = Vec::new();
    for (i, (up, &was)) in base.iter_mut().zip(before).enumerate() {
        if !was {
            *up = false;
        } else if !*up {
            work.push(ComponentId(i));
        }
    }
    while let Some(id) = work.pop() {
        for &caller in &callers[id.0] {
            if base[caller.0] && !dependencies_hold(model, caller, &base) {
                base[caller.0] = false;
                work.push(caller);
            }
        }
    }
    base
}

/// For each component, who calls it through a required edge.
#[must_use]
pub fn callers(model: &Model) -> Callers {
    let mut callers = vec![Vec::new(); model.components.len()];
    for id in model.component_ids() {
        for edge in model
            .component(id)
            .depends_on
            .iter()
            .filter(|e| !e.degradable)
        {
            for t in &edge.targets {
                // Callers are visited in id order, so a repeat can only be
                // the last one pushed (a hub's list is not searched).
                if callers[t.0].last() != Some(&id) {
                    callers[t.0].push(id);
                }
            }
        }
    }
    callers
}

/// Which components are up in a scenario.
pub fn up(model: &Model, scenario: &Scenario) -> Vec<bool> {
    up_given(model, locally_up(model, scenario))
}

/// Whether every required edge of `component` is satisfied by `up`.
pub fn dependencies_hold(model: &Model, component: ComponentId, up: &[bool]) -> bool {
    holds(model, component, |t| up[t.0])
}

/// The components up with nothing failed, and who calls whom through
/// required edges, so that one event's effect is found by walking up from
/// what it breaks instead of re-evaluating the whole model: single-event
/// checks then cost the size of what each event touches.
pub struct Baseline {
    up: Vec<bool>,
    callers: Arc<Callers>,
    /// The domains and groups lost in the scenario it stands for: an event
    /// on top of it touches only what its other domains and groups hold.
    lost: (Vec<DomainId>, Vec<GroupId>),
}

/// For each component, who calls it through a required edge ([`callers`]).
pub type Callers = Vec<Vec<ComponentId>>;

impl Baseline {
    /// The empty scenario's state of `model`.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        Self::under(model, &Scenario::default())
    }

    /// What is up in `scenario`, from which further events are judged
    /// (pass `scenario.and(event)` to [`Baseline::down_under`]).
    #[must_use]
    pub fn under(model: &Model, scenario: &Scenario) -> Self {
        Self::with_callers(model, scenario, Arc::new(callers(model)))
    }

    /// [`Baseline::under`], with the model's [`callers`] already indexed
    /// (the [`Flow`](super::state::Flow) holds them).
    #[must_use]
    pub fn with_callers(model: &Model, scenario: &Scenario, callers: Arc<Callers>) -> Self {
        Self {
            up: up_given_with(model, &callers, locally_up(model, scenario)),
            callers,
            lost: (scenario.domains.clone(), scenario.groups.clone()),
        }
    }

    /// Whether a component is up with nothing failed.
    #[must_use]
    pub fn is_up(&self, id: ComponentId) -> bool {
        self.up[id.0]
    }

    /// The components up in the baseline that are down under `event`, in
    /// model order: the same answer as [`up`], found from what the event
    /// touches. Starting from the baseline (a state above the event's
    /// greatest fixed point) and switching off what fails its conditions
    /// descends to exactly that fixed point.
    #[must_use]
    pub fn down_under(&self, model: &Model, event: &Scenario) -> Vec<ComponentId> {
        // One flag per component, not a set searched per edge: a zone's
        // loss takes down a good part of a large model.
        let mut is_down = vec![false; self.up.len()];
        let mut down: Vec<ComponentId> = Vec::new();
        for id in touched(model, event, &self.lost) {
            if self.up[id.0] && !is_down[id.0] && !survives(model, id, event) {
                is_down[id.0] = true;
                down.push(id);
            }
        }
        let mut work = down.clone();
        while let Some(id) = work.pop() {
            for &caller in &self.callers[id.0] {
                if !self.up[caller.0] || is_down[caller.0] {
                    continue;
                }
                let is_up = |c: ComponentId| self.up[c.0] && !is_down[c.0];
                if !holds(model, caller, is_up) {
                    is_down[caller.0] = true;
                    down.push(caller);
                    work.push(caller);
                }
            }
        }
        down.sort_unstable();
        down
    }
}

/// Components an event can take down on their own: those it fails
/// directly, those placed in a lost domain, and the members of fired
/// groups; of the domains and groups, only those not already `lost` in the
/// baseline's scenario (what those hold is down there already, or survived
/// them and is touched again only by the event's other parts). A what-if
/// that lost a zone then tries each instance of a 10k model in the size of
/// the instance, not of the model.
fn touched(
    model: &Model,
    event: &Scenario,
    lost: &(Vec<DomainId>, Vec<GroupId>),
) -> Vec<ComponentId> {
    let mut ids: Vec<ComponentId> = event.failed_instances.iter().map(|&(c, _)| c).collect();
    let domains = not_in(&event.domains, &lost.0);
    let groups = not_in(&event.groups, &lost.1);
    if !domains.is_empty() || !groups.is_empty() {
        ids.extend(model.component_ids().filter(|&id| {
            let c = model.component(id);
            c.shares.iter().any(|g| groups.contains(g))
                || c.placement
                    .iter()
                    .any(|&(d, _)| is_lost(model, d, &domains))
        }));
    }
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The items of `all` that `lost` does not hold, in order.
fn not_in<T: Copy + PartialEq>(all: &[T], lost: &[T]) -> Vec<T> {
    all.iter().copied().filter(|x| !lost.contains(x)).collect()
}

/// Whether `id` survives an event on its own (runs: enough instances up,
/// none of its groups fired).
pub fn survives(model: &Model, id: ComponentId, event: &Scenario) -> bool {
    survives_with(model, id, event, instances_up(model, id, event))
}

/// [`survives`], given the component's [`instances_up`] in `event` already
/// counted.
pub fn survives_with(model: &Model, id: ComponentId, event: &Scenario, instances_up: u32) -> bool {
    let c = model.component(id);
    !c.shares.iter().any(|g| event.groups.contains(g)) && instances_up >= c.min_healthy
}

/// Whether every required edge of `component` holds, given who is up.
fn holds(model: &Model, component: ComponentId, up: impl Fn(ComponentId) -> bool) -> bool {
    model
        .component(component)
        .depends_on
        .iter()
        .filter(|e| !e.degradable)
        .all(|edge| {
            let alive = edge.targets.iter().filter(|t| up(**t)).count();
            match edge.kind {
                EdgeKind::Target => alive == edge.targets.len(),
                EdgeKind::AnyOf | EdgeKind::AtLeast => alive >= edge.at_least as usize,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        crate::model::parse(text).unwrap()
    }

    #[test]
    fn losing_a_zone_takes_down_what_is_only_there() {
        let m = model(
            r"system: s
domains: {a: {kind: zone}, b: {kind: zone}}
components:
  api: {instances: 2, placement: [a, b], depends_on: [db]}
  db: {placement: [a]}
",
        );
        let lose_a = Scenario {
            domains: vec![DomainId(0)],
            ..Scenario::default()
        };
        // api keeps 1 of 2 instances (min_healthy 1), but db has none left, so api is down too.
        assert_eq!(up(&m, &lose_a), [false, false]);
        let lose_b = Scenario {
            domains: vec![DomainId(1)],
            ..Scenario::default()
        };
        assert_eq!(up(&m, &lose_b), [true, true]);
    }

    #[test]
    fn cycles_stay_up_when_every_member_holds() {
        let m = model(
            r"system: s
entrypoints: [a]
components:
  a: {depends_on: [b]}
  b: {depends_on: [a]}
",
        );
        assert_eq!(up(&m, &Scenario::default()), [true, true]);
        let b_fails = Scenario {
            failed_instances: vec![(ComponentId(1), 1)],
            ..Scenario::default()
        };
        assert_eq!(up(&m, &b_fails), [false, false]);
    }

    /// One instance of each component, each domain, each group.
    fn single_events(m: &Model) -> Vec<Scenario> {
        let mut events: Vec<Scenario> = m
            .component_ids()
            .map(|c| Scenario {
                failed_instances: vec![(c, 1)],
                ..Scenario::default()
            })
            .collect();
        events.extend((0..m.domains.len()).map(|d| Scenario {
            domains: vec![DomainId(d)],
            ..Scenario::default()
        }));
        events.extend((0..m.groups.len()).map(|g| Scenario {
            groups: vec![GroupId(g)],
            ..Scenario::default()
        }));
        events
    }

    /// `down_under` from `baseline` is what the full evaluation of `event`
    /// takes down of what the baseline has up.
    fn agrees(m: &Model, baseline: &Baseline, event: &Scenario, seed: u64) {
        let full = up(m, event);
        let expected: Vec<ComponentId> = m
            .component_ids()
            .filter(|c| baseline.is_up(*c) && !full[c.0])
            .collect();
        assert_eq!(
            baseline.down_under(m, event),
            expected,
            "seed {seed}, {event:?}"
        );
    }

    #[test]
    fn walking_up_from_the_event_agrees_with_full_evaluation() {
        for seed in 0..100 {
            let m = crate::model::parse(&crate::generate::random_small(seed)).unwrap();
            let baseline = Baseline::new(&m);
            for event in single_events(&m) {
                agrees(&m, &baseline, &event, seed);
            }
        }
    }

    #[test]
    fn walking_up_from_a_degraded_baseline_agrees_with_full_evaluation() {
        // The baseline under a lost domain or a fired group (a what-if),
        // each further event on top of it: the event touches only what its
        // own parts hold, and the answer is still the full evaluation's.
        for seed in 0..100 {
            let m = crate::model::parse(&crate::generate::random_small(seed)).unwrap();
            let bases = single_events(&m)
                .into_iter()
                .filter(|e| e.failed_instances.is_empty());
            for base in bases {
                let baseline = Baseline::under(&m, &base);
                for event in single_events(&m) {
                    agrees(&m, &baseline, &base.and(&event), seed);
                }
            }
        }
    }

    #[test]
    fn alternatives_need_enough_members() {
        let m = model(
            r"system: s
components:
  a: {depends_on: [{at_least: 2, of: [x, y, z]}]}
  x: {}
  y: {}
  z: {}
",
        );
        let one = Scenario {
            failed_instances: vec![(ComponentId(1), 1)],
            ..Scenario::default()
        };
        assert!(up(&m, &one)[0]);
        let two = Scenario {
            failed_instances: vec![(ComponentId(1), 1), (ComponentId(2), 1)],
            ..Scenario::default()
        };
        assert!(!up(&m, &two)[0]);
    }
}

//! Every credible next loss from the checked state, and what it changes:
//! the contingencies of N-k headroom (docs/structural.md, "N-k over every
//! loss").
//!
//! The losses are each domain (and each same-kind pair when
//! `policy.survive` is 2 or more), each shared-fate group, and each
//! component lost whole; the state after each is judged on **every**
//! component whose instances fall or whose load rises in it, not only on
//! those the lost thing holds: losing the zone of both cache nodes floods
//! the database in the other zones. (One instance of a component changes
//! only that component: `headroom` adds that row itself.)
//!
//! - A domain loss is the [`State`] of the checked scenario with the
//!   domain lost too, shared with the loss judge
//!   ([`Context::state_losing`]). `check` tries single domains when
//!   `policy.survive` is at least 1; under a `what-if` scenario that lost
//!   something every remaining domain is a next loss, whatever `survive`
//!   says, and one beyond it is marked so (a warning, not an error).
//! - A group, or a component lost whole, is worked out from the checked
//!   state by what it touches ([`component_loss`]): a large model has tens
//!   of thousands of components. A component whose loss takes an
//!   entrypoint down is an outage (the SPOF and availability rules'
//!   question), and one with `failover_to` and `capacity` is the `cascade`
//!   rule's origin: neither is a headroom row. The work is bounded
//!   ([`work_bound`]); past it the remaining components are not tried, and
//!   [`Contingencies::untried`] says from which one.

use std::sync::Arc;

use super::Context;
use crate::engine::component_loss::{After, Losses, rose};
use crate::engine::scenario::{Scenario, is_lost};
use crate::model::{ComponentId, DomainId, GroupId, Model};

/// What a contingency takes away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lost {
    /// These domains (one, or a same-kind pair).
    Domains(Vec<DomainId>),
    /// A shared-fate group fires.
    Group(GroupId),
    /// A component, every instance of it.
    Component(ComponentId),
}

/// One credible next loss.
#[derive(Debug, Clone)]
pub(crate) struct Contingency {
    /// What it takes.
    pub lost: Lost,
    /// `az-a`, `az-a+az-b` (sorted), a group's or a component's name.
    pub name: Arc<str>,
    /// Whether it is more than `policy.survive` asks (a `what-if` next
    /// domain loss with `survive: 0`).
    pub beyond_survive: bool,
}

/// One component in the state after a contingency.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Change {
    /// Index into [`Contingencies::list`].
    pub contingency: usize,
    /// Instances up after it.
    pub survivors: u32,
    /// Load offered after it.
    pub load: f64,
}

/// The contingencies of one check and what each changes, by component.
pub(crate) struct Contingencies {
    /// Every contingency tried, in order: domains, pairs, groups,
    /// components.
    pub list: Vec<Contingency>,
    /// The changes, grouped by component, each group in contingency order.
    changes: Vec<Change>,
    /// Where each component's changes start in `changes` (one more entry
    /// than components).
    start: Vec<usize>,
    /// The first component whose whole loss was not tried because the work
    /// bound was reached, and how many were not tried from it on.
    pub untried: Option<(ComponentId, usize)>,
}

impl Contingencies {
    /// The changes of one component, in contingency order.
    pub(crate) fn of(&self, id: ComponentId) -> &[Change] {
        &self.changes[self.start[id.0]..self.start[id.0 + 1]]
    }
}

/// The work whole-component and group losses may take, in units of a
/// component visited or an edge looked at: 50 per component and edge of
/// the model, and a million more (a generated model of 100,000 components
/// uses a small part of it).
#[must_use]
pub(crate) fn work_bound(model: &Model) -> u64 {
    let edges: usize = model.components.iter().map(|c| c.depends_on.len()).sum();
    50 * (model.components.len() + edges) as u64 + 1_000_000
}

/// Every contingency from the checked state, and what it changes on the
/// components `judged` names (running, with capacity and a known load),
/// within `bound` units of work ([`work_bound`]) for groups and whole
/// components.
pub(crate) fn every(cx: &Context, judged: &[bool], bound: u64) -> Contingencies {
    let model = cx.model;
    let state = cx.state();
    let mut list = Vec::new();
    let mut found: Vec<(ComponentId, Change)> = Vec::new();
    domain_changes(cx, judged, &mut list, &mut found);
    let losses = Losses::new(model, cx.flow(), state, &cx.scenario);
    let mut budget = bound;
    let mut rises =
        |lost: Lost, name: &str, after: After, found: &mut Vec<(ComponentId, Change)>| {
            let After::Rises(rises) = after else { return };
            let at = list.len();
            for (id, load) in rises.into_iter().filter(|(id, _)| judged[id.0]) {
                found.push((
                    id,
                    Change {
                        contingency: at,
                        survivors: state.of(id).instances_up,
                        load,
                    },
                ));
            }
            list.push(Contingency {
                lost,
                name: Arc::from(name),
                beyond_survive: false,
            });
        };
    for (g, group) in model.groups.iter().enumerate() {
        let g = GroupId(g);
        if cx.scenario.groups.contains(&g) {
            continue;
        }
        let members: Vec<ComponentId> = model
            .component_ids()
            .filter(|&id| model.component(id).shares.contains(&g) && state.of(id).running)
            .collect();
        if members.is_empty() {
            continue;
        }
        let after = losses.after_losing(&members, None, &mut budget);
        rises(Lost::Group(g), &group.name, after, &mut found);
    }
    let watched: Vec<bool> = model
        .component_ids()
        .map(|id| model.entrypoints.contains(&id) && state.of(id).up)
        .collect();
    let candidates: Vec<ComponentId> = model
        .component_ids()
        .filter(|&id| {
            let c = model.component(id);
            state.of(id).running && !(c.failover_to.is_some() && c.capacity.is_some())
        })
        .collect();
    let mut untried = None;
    for (i, &id) in candidates.iter().enumerate() {
        let after = losses.after_losing(&[id], Some(&watched), &mut budget);
        if after == After::OverBudget {
            untried = Some((id, candidates.len() - i));
            break;
        }
        rises(
            Lost::Component(id),
            &model.component(id).name,
            after,
            &mut found,
        );
    }
    let (changes, start) = by_component(model.components.len(), found);
    Contingencies {
        list,
        changes,
        start,
        untried,
    }
}

/// The domain losses of [`every`], each pushed on `list` with what it
/// changes on the judged components into `found`.
fn domain_changes(
    cx: &Context,
    judged: &[bool],
    list: &mut Vec<Contingency>,
    found: &mut Vec<(ComponentId, Change)>,
) {
    let model = cx.model;
    let state = cx.state();
    for (domains, beyond_survive) in domain_losses(cx, judged) {
        let after = cx.state_losing(&domains);
        let at = list.len();
        for id in model.component_ids().filter(|id| judged[id.0]) {
            let (now, then) = (state.of(id), after.of(id));
            let Some(load) = then.offered else { continue };
            if then.instances_up > 0
                && (then.instances_up < now.instances_up || rose(now.offered, load))
            {
                found.push((
                    id,
                    Change {
                        contingency: at,
                        survivors: then.instances_up,
                        load,
                    },
                ));
            }
        }
        let mut names: Vec<&str> = domains
            .iter()
            .map(|d| model.domain(*d).name.as_str())
            .collect();
        names.sort_unstable();
        list.push(Contingency {
            lost: Lost::Domains(domains),
            name: Arc::from(names.join("+")),
            beyond_survive,
        });
    }
}

/// The domain losses to try, with whether each is beyond `policy.survive`:
/// each domain still up whose loss touches something running and leaves
/// some judged component an instance, then same-kind pairs of those when
/// `survive` is 2 or more. `check` tries single domains only when
/// `survive` is at least 1; a `what-if` scenario that lost something
/// always tries them.
fn domain_losses(cx: &Context, judged: &[bool]) -> Vec<(Vec<DomainId>, bool)> {
    let model = cx.model;
    let state = cx.state();
    let survive = model.policy.survive;
    let next = lost_something(&cx.scenario);
    if survive == 0 && !next {
        return Vec::new();
    }
    let singles: Vec<DomainId> = (0..model.domains.len())
        .map(DomainId)
        .filter(|&d| !is_lost(model, d, &cx.scenario.domains))
        .filter(|&d| {
            let touches = model.component_ids().any(|id| {
                state.of(id).running
                    && model
                        .component(id)
                        .placement
                        .iter()
                        .any(|&(p, n)| n > 0 && is_lost(model, p, &[d]))
            });
            touches && leaves_some(model, &cx.scenario, judged, &[d])
        })
        .collect();
    let mut out: Vec<(Vec<DomainId>, bool)> =
        singles.iter().map(|&d| (vec![d], survive < 1)).collect();
    if survive >= 2 {
        for (i, &a) in singles.iter().enumerate() {
            for &b in &singles[i + 1..] {
                if model.domain(a).kind == model.domain(b).kind
                    && leaves_some(model, &cx.scenario, judged, &[a, b])
                {
                    out.push((vec![a, b], false));
                }
            }
        }
    }
    out
}

/// Whether a judged component keeps an instance outside the lost domains
/// (an unplaced one always does).
fn leaves_some(model: &Model, scenario: &Scenario, judged: &[bool], domains: &[DomainId]) -> bool {
    model.component_ids().filter(|id| judged[id.0]).any(|id| {
        let c = model.component(id);
        c.placement.is_empty()
            || c.placement.iter().any(|&(p, n)| {
                n > 0 && !is_lost(model, p, domains) && !is_lost(model, p, &scenario.domains)
            })
    })
}

/// Whether a scenario loses anything (domains, groups, instances, or the
/// caches' hits): its findings about further losses are then the next
/// losses from it.
#[must_use]
pub(crate) fn lost_something(scenario: &Scenario) -> bool {
    !scenario.domains.is_empty()
        || !scenario.groups.is_empty()
        || !scenario.failed_instances.is_empty()
        || scenario.cold
}

/// The changes grouped by component, keeping their order within each
/// (a counting sort: the changes arrive in contingency order).
fn by_component(n: usize, found: Vec<(ComponentId, Change)>) -> (Vec<Change>, Vec<usize>) {
    let mut start = vec![0_usize; n + 1];
    for (id, _) in &found {
        start[id.0 + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut next = start.clone();
    let mut changes = vec![
        Change {
            contingency: 0,
            survivors: 0,
            load: 0.0,
        };
        found.len()
    ];
    for (id, change) in found {
        changes[next[id.0]] = change;
        next[id.0] += 1;
    }
    (changes, start)
}

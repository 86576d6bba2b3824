//! Does losing a domain or a group break an entrypoint? The question
//! `common-cause` and `recovery-access` ask of a domain or group before
//! they judge it, so that redundancy one level up (an `any_of` between
//! regions) counts, as it does for `spof`.
//!
//! A loss breaks an entrypoint when the entrypoint is up with nothing lost
//! and down under the loss. One that takes down the active side of a
//! standby edge (a `switchover`, docs/availability.md) that an entrypoint
//! needs is told apart ([`Loss::Switchover`]): the standby serves only
//! after the switchover, so the entrypoint is down for that long, which
//! `recovery-access` counts and `common-cause` leaves to the availability
//! figure (the loss the standby exists for). It also breaks one when, in the state after the
//! loss (the load flow of `engine/state.rs`), a component an entrypoint
//! requires is offered more than its running instances carry and it was
//! not before, without `load_shedding`: losing a cache in front of a store
//! takes the store down by load even though nothing requires the cache.

use std::sync::{Arc, OnceLock};

use super::Context;
use crate::engine::outage::required_closure;
use crate::engine::scenario::{Baseline, Scenario};
use crate::engine::state::{self, Flow, State};
use crate::engine::switchover;
use crate::model::{ComponentId, DomainId, GroupId, Model};

/// What one model needs to judge losses: computed once per run and shared
/// by the rules that ask (through [`super::Context::loss_judge`]).
pub(crate) struct LossJudge {
    baseline: Arc<Baseline>,
    flow: Arc<Flow>,
    /// Components an entrypoint requires that can fail by load: running
    /// intact within their capacity, and without `load_shedding`.
    load_sensitive: Vec<ComponentId>,
    /// The active alternatives of the standby edges an entrypoint needs.
    standby_active: Vec<ComponentId>,
    /// Each domain's answer, once asked (many components share a zone);
    /// rules running on other threads wait for an answer being computed
    /// instead of computing it again.
    domains: Vec<OnceLock<Loss>>,
    /// Each group's answer, once asked (many components share a release).
    groups: Vec<OnceLock<Loss>>,
}

/// What one loss does to the entrypoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Loss {
    /// Every entrypoint survives it.
    Survived,
    /// It takes down the active side of a standby edge an entrypoint
    /// needs: the entrypoint is down for the switchover, which its
    /// availability figure counts (the loss a DR region exists for).
    Switchover,
    /// It takes an entrypoint down (structurally, or by load).
    Breaks,
}

impl LossJudge {
    /// The judge of `model`'s losses, with its load flow and the empty
    /// scenario's [`Baseline`].
    pub(crate) fn new(model: &Model, flow: Arc<Flow>, baseline: Arc<Baseline>) -> Self {
        let needed = required_closure(model, flow.graph());
        let intact = State::intact(model, &flow);
        let load_sensitive = model
            .component_ids()
            .filter(|c| {
                needed[c.0]
                    && !model.component(*c).load_shedding
                    && intact.utilization(model, *c).is_some()
                    && !state::overloaded(model, &intact, *c)
            })
            .collect();
        let mut standby_active: Vec<ComponentId> = model
            .component_ids()
            .filter(|c| needed[c.0] && baseline.is_up(*c))
            .flat_map(|caller| {
                model
                    .component(caller)
                    .depends_on
                    .iter()
                    .filter(|e| !e.degradable && switchover::duration(model, e).is_some())
                    .flat_map(|edge| {
                        let active = usize::try_from(edge.at_least)
                            .unwrap_or(usize::MAX)
                            .min(edge.targets.len());
                        edge.targets[..active].iter().copied()
                    })
            })
            .collect();
        standby_active.sort_unstable();
        standby_active.dedup();
        Self {
            baseline,
            flow,
            load_sensitive,
            standby_active,
            domains: (0..model.domains.len()).map(|_| OnceLock::new()).collect(),
            groups: (0..model.groups.len()).map(|_| OnceLock::new()).collect(),
        }
    }

    /// What `loss` (domains lost, groups fired) does to the entrypoints;
    /// `after` gives the state after it, when the load flow must be asked.
    fn judge(&self, model: &Model, loss: &Scenario, after: impl FnOnce() -> Arc<State>) -> Loss {
        let down = self.baseline.down_under(model, loss);
        if model
            .entrypoints
            .iter()
            .any(|e| self.baseline.is_up(*e) && down.binary_search(e).is_ok())
        {
            return Loss::Breaks;
        }
        if !self.load_sensitive.is_empty() {
            let after = after();
            if self
                .load_sensitive
                .iter()
                .any(|c| after.of(*c).running && state::overloaded(model, &after, *c))
            {
                return Loss::Breaks;
            }
        }
        if self
            .standby_active
            .iter()
            .any(|t| down.binary_search(t).is_ok())
        {
            return Loss::Switchover;
        }
        Loss::Survived
    }

    /// Whether losing `domain` breaks an entrypoint, a switchover to a
    /// standby included. The state after the loss is the one `headroom`
    /// reads when `cx` checks the empty scenario.
    pub(crate) fn domain_breaks(&self, cx: &Context, domain: DomainId) -> bool {
        self.domain_loss(cx, domain) != Loss::Survived
    }

    /// What losing `domain` does to the entrypoints.
    pub(crate) fn domain_loss(&self, cx: &Context, domain: DomainId) -> Loss {
        *self.domains[domain.0].get_or_init(|| {
            let loss = Scenario {
                domains: vec![domain],
                ..Scenario::default()
            };
            self.judge(cx.model, &loss, || {
                if cx.scenario == Scenario::default() {
                    cx.state_losing(&[domain])
                } else {
                    Arc::new(State::new(cx.model, &self.flow, &loss).without_record())
                }
            })
        })
    }

    /// Whether `group` firing breaks an entrypoint, a switchover to a
    /// standby included.
    pub(crate) fn group_breaks(&self, model: &Model, group: GroupId) -> bool {
        self.group_loss(model, group) != Loss::Survived
    }

    /// What `group` firing does to the entrypoints.
    pub(crate) fn group_loss(&self, model: &Model, group: GroupId) -> Loss {
        *self.groups[group.0].get_or_init(|| {
            let loss = Scenario {
                groups: vec![group],
                ..Scenario::default()
            };
            self.judge(model, &loss, || {
                Arc::new(State::new(model, &self.flow, &loss).without_record())
            })
        })
    }
}

/// Whether `spof` judges losses of `domain`'s kind: only kinds with at
/// least two domains in the model (a single-region design is on purpose).
pub(crate) fn judged_kind(model: &Model, domain: DomainId) -> bool {
    let kind = &model.domain(domain).kind;
    model.domains.iter().filter(|d| &d.kind == kind).count() >= 2
}

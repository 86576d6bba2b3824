//! Does losing a domain or a group break an entrypoint? The question
//! `common-cause` and `recovery-access` ask of a domain or group before
//! they judge it, so that redundancy one level up (an `any_of` between
//! regions) counts, as it does for `spof`.
//!
//! A loss breaks an entrypoint when the entrypoint is up with nothing lost
//! and down under the loss, or when the loss takes down the active side of
//! a standby edge (a `switchover`, docs/availability.md) that an entrypoint
//! needs: the standby serves only after the switchover, so the entrypoint
//! is down for that long. It also breaks one when, in the state after the
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
    domains: Vec<OnceLock<bool>>,
    /// Each group's answer, once asked (many components share a release).
    groups: Vec<OnceLock<bool>>,
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

    /// Whether `loss` (domains lost, groups fired) breaks an entrypoint;
    /// `after` gives the state after it, when the load flow must be asked.
    fn breaks_an_entrypoint(
        &self,
        model: &Model,
        loss: &Scenario,
        after: impl FnOnce() -> Arc<State>,
    ) -> bool {
        let down = self.baseline.down_under(model, loss);
        if model
            .entrypoints
            .iter()
            .any(|e| self.baseline.is_up(*e) && down.binary_search(e).is_ok())
        {
            return true;
        }
        if self
            .standby_active
            .iter()
            .any(|t| down.binary_search(t).is_ok())
        {
            return true;
        }
        if self.load_sensitive.is_empty() {
            return false;
        }
        let after = after();
        self.load_sensitive
            .iter()
            .any(|c| after.of(*c).running && state::overloaded(model, &after, *c))
    }

    /// Whether losing `domain` breaks an entrypoint. The state after the
    /// loss is the one `headroom` reads when `cx` checks the empty scenario.
    pub(crate) fn domain_breaks(&self, cx: &Context, domain: DomainId) -> bool {
        *self.domains[domain.0].get_or_init(|| {
            let loss = Scenario {
                domains: vec![domain],
                ..Scenario::default()
            };
            self.breaks_an_entrypoint(cx.model, &loss, || {
                if cx.scenario == Scenario::default() {
                    cx.state_losing(&[domain])
                } else {
                    Arc::new(State::new(cx.model, &self.flow, &loss))
                }
            })
        })
    }

    /// Whether `group` firing breaks an entrypoint.
    pub(crate) fn group_breaks(&self, model: &Model, group: GroupId) -> bool {
        *self.groups[group.0].get_or_init(|| {
            let loss = Scenario {
                groups: vec![group],
                ..Scenario::default()
            };
            self.breaks_an_entrypoint(model, &loss, || {
                Arc::new(State::new(model, &self.flow, &loss))
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

//! Does losing a domain or a group break an entrypoint? The question
//! `common-cause` and `recovery-access` ask of a domain or group before
//! they judge it, so that redundancy one level up (an `any_of` between
//! regions) counts, as it does for `spof`.
//!
//! A loss breaks an entrypoint when the entrypoint is up with nothing lost
//! and down under the loss, or when the loss takes down the active side of
//! a standby edge (a `switchover`, docs/availability.md) that an entrypoint
//! needs: the standby serves only after the switchover, so the entrypoint
//! is down for that long.

use super::outage::required_closure;
use crate::engine::scenario::{Baseline, Scenario};
use crate::engine::switchover;
use crate::model::{DomainId, Model};

/// What one model needs to judge losses: computed once per rule run.
pub(crate) struct LossJudge {
    baseline: Baseline,
    needed: Vec<bool>,
}

impl LossJudge {
    /// The judge of `model`'s losses.
    pub(crate) fn new(model: &Model) -> Self {
        Self {
            baseline: Baseline::new(model),
            needed: required_closure(model),
        }
    }

    /// Whether `loss` (domains lost, groups fired) breaks an entrypoint.
    pub(crate) fn breaks_an_entrypoint(&self, model: &Model, loss: &Scenario) -> bool {
        let down = self.baseline.down_under(model, loss);
        if model
            .entrypoints
            .iter()
            .any(|e| self.baseline.is_up(*e) && down.binary_search(e).is_ok())
        {
            return true;
        }
        model
            .component_ids()
            .filter(|c| self.needed[c.0] && self.baseline.is_up(*c))
            .any(|caller| {
                model.component(caller).depends_on.iter().any(|edge| {
                    let active = usize::try_from(edge.at_least)
                        .unwrap_or(usize::MAX)
                        .min(edge.targets.len());
                    !edge.degradable
                        && switchover::duration(model, edge).is_some()
                        && edge.targets[..active]
                            .iter()
                            .any(|t| down.binary_search(t).is_ok())
                })
            })
    }

    /// Whether losing `domain` breaks an entrypoint.
    pub(crate) fn domain_breaks(&self, model: &Model, domain: DomainId) -> bool {
        self.breaks_an_entrypoint(
            model,
            &Scenario {
                domains: vec![domain],
                ..Scenario::default()
            },
        )
    }
}

/// Whether `spof` judges losses of `domain`'s kind: only kinds with at
/// least two domains in the model (a single-region design is on purpose).
pub(crate) fn judged_kind(model: &Model, domain: DomainId) -> bool {
    let kind = &model.domain(domain).kind;
    model.domains.iter().filter(|d| &d.kind == kind).count() >= 2
}

//! Recovery after an outage, simulated: a deterministic, time-stepped fluid
//! model of every component (load through the call graph, retries at the
//! current failure rate, warming capacity, refilling caches, queues and
//! timeouts, load shedding, the clients' herd) under an admission policy at
//! the entrypoints. `docs/recovery.md` gives the equations.
//!
//! [`plan`] runs it three ways (everything admitted at once, the largest
//! share that converges without a ramp, and the TCP-like ramp) for
//! `nines recover`, the review report and the `metastable` rule.

#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    reason = "step counts, retries and component indices are small and non-negative: horizons are at most a day of seconds, retries are capped at 64, and a model has far fewer than 2^32 components or edges"
)]

mod backlog;
mod herd;
pub(crate) mod network;
mod plan;
mod retry;
mod simulate;
#[cfg(test)]
mod tests;
mod waves;

pub use backlog::{Backlog, backlogs};
pub use plan::{Plan, RunSummary, Series, Wave, plan, ramp_steps};
pub use simulate::{Admission, Run, Settings, WaveRun, simulate};

pub use network::Network;

use crate::model::{ComponentId, Model};

/// What went down, and for how long.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// In words, for the output.
    pub label: String,
    /// How long it was down, seconds.
    pub outage_s: f64,
    /// Instances that restart cold, per component (0: it stayed up).
    pub restarted: Vec<u32>,
}

impl Scenario {
    /// Everything down for `outage_s`: every instance restarts cold.
    #[must_use]
    pub fn full_outage(model: &Model, outage_s: f64) -> Self {
        Self {
            label: format!(
                "full outage of {}",
                crate::model::Duration((outage_s * 1000.0) as u64)
            ),
            outage_s,
            restarted: model.components.iter().map(|c| c.instances).collect(),
        }
    }

    /// The named domains, groups and components down for `outage_s`: the
    /// instances in a lost domain, every instance of a lost component or a
    /// member of a lost group, `N` instances of a component for
    /// `COMPONENT:N` (as in `what-if`). A component left with fewer than
    /// `min_healthy` survivors restarts whole. `Err` names an unknown name
    /// or a count it cannot take.
    pub fn losing(model: &Model, names: &[String], outage_s: f64) -> Result<Self, String> {
        let mut restarted = vec![0u32; model.components.len()];
        for arg in names {
            let (name, count) = crate::engine::scenario::lose_arg(model, arg)?;
            if let Some(count) = count {
                let Some(c) = model.components.iter().position(|c| c.name == name) else {
                    return Err(format!(
                        "--lose `{arg}`: `:N` counts instances of a component, and no component is called `{name}`"
                    ));
                };
                let component = &model.components[c];
                let lost = restarted[c] + count;
                if lost > component.instances {
                    return Err(format!(
                        "--lose `{arg}`: {name} has {} instance{}{}",
                        component.instances,
                        if component.instances == 1 { "" } else { "s" },
                        if restarted[c] > 0 {
                            format!(
                                ", and earlier --lose arguments already take {}",
                                restarted[c]
                            )
                        } else {
                            String::new()
                        }
                    ));
                }
                restarted[c] = if component.instances - lost < component.min_healthy {
                    component.instances
                } else {
                    lost
                };
                continue;
            }
            let name = &name.to_owned();
            if let Some(d) = model.domains.iter().position(|d| &d.name == name) {
                let lost = [crate::model::DomainId(d)];
                for id in model.component_ids() {
                    let survivors = crate::engine::scenario::surviving_instances(model, id, &lost);
                    let c = model.component(id);
                    restarted[id.0] = restarted[id.0].max(if survivors < c.min_healthy {
                        c.instances
                    } else {
                        c.instances - survivors
                    });
                }
            } else if let Some(g) = model.groups.iter().position(|g| &g.name == name) {
                for (at, c) in model.components.iter().enumerate() {
                    if c.shares.contains(&crate::model::GroupId(g)) {
                        restarted[at] = c.instances;
                    }
                }
            } else if let Some(c) = model.components.iter().position(|c| &c.name == name) {
                restarted[c] = model.components[c].instances;
            } else {
                return Err(crate::engine::scenario::unknown_loss(model, name));
            }
        }
        Ok(Self {
            label: format!(
                "loss of {} for {}",
                names.join(", "),
                crate::model::Duration((outage_s * 1000.0) as u64)
            ),
            outage_s,
            restarted,
        })
    }

    /// Whether the whole of `id` restarts.
    #[must_use]
    pub fn restarts(&self, model: &Model, id: ComponentId) -> bool {
        self.restarted[id.0] >= model.component(id).instances
    }
}

//! The served share: the compiled model with each shedding or rate-limited
//! component standing for its expected share.

use super::relief::callers_upstream;
use super::{Compiled, Need};
use crate::model::intact::movers;
use crate::model::{Component, ComponentId, Model, Pseudo};

/// The model whose figures are the served shares: the compiled model with
/// every component that can serve a share (shedding past its capacity, or
/// past its `rate_limit`) standing for its expected share instead of
/// "ok" ([`Pseudo::Share`]). Evaluating a structure with such leaves gives
/// the expectation of its multilinear extension, which is the expected
/// served share where the partial servers are in series.
#[derive(Debug, Clone)]
pub struct Served {
    /// The model.
    pub model: Model,
    /// The partial servers (original ids), sorted.
    pub partial: Vec<ComponentId>,
    /// Partial servers whose share is a bound (a load that changes with
    /// the movers, taken at its largest; or a mover itself), sorted.
    pub inexact: Vec<ComponentId>,
}

impl Compiled {
    /// The served model of `original`, or `None` when nothing can serve a
    /// share (the served figure is then the availability).
    #[must_use]
    pub fn served(&self, original: &Model) -> Option<Served> {
        let mover = movers(original);
        let mut model = self.model.clone();
        let mut partial = Vec::new();
        let mut inexact = Vec::new();
        for id in original.component_ids() {
            let c = original.component(id);
            let sheds = c.load_shedding && c.capacity.is_some() || c.rate_limit.is_some();
            if !sheds || self.needs[id.0] == Need::Structural || c.depends_on.iter().any(|e| e.pull)
            {
                continue;
            }
            let table = &self.tables[id.0];
            let loads = table.offered.iter().flatten().copied();
            // A load that changes with the movers (a cache lost) is taken
            // at its largest: the share is then its smallest, a bound.
            let largest = loads.clone().fold(0.0, f64::max);
            let varies = loads
                .clone()
                .any(|l| (l - largest).abs() > 1e-9 * largest.max(1.0));
            let (load, exact) = match self.needs[id.0] {
                Need::Levels(_) => (largest, false),
                _ if varies => (largest, false),
                _ => (table.offered[table.offered.len() - 1].unwrap_or(0.0), true),
            };
            let limit = c.rate_limit.unwrap_or(f64::INFINITY);
            model.components[id.0] = Component {
                pseudo: Some(Pseudo::Share {
                    load,
                    limit,
                    sheds: c.load_shedding,
                }),
                availability: c.availability.or(Some(1.0)),
                ..c.clone()
            };
            partial.push(id);
            // A shedding component upstream passes less with fewer
            // instances, which the share's load (at full strength) does
            // not count.
            let shed_above = callers_upstream(original, id).into_iter().any(|u| {
                let u = original.component(u);
                u.load_shedding && u.capacity.is_some()
            });
            if !exact || mover[id.0] || self.bracketed || shed_above {
                inexact.push(id);
            }
        }
        (!partial.is_empty()).then_some(Served {
            model,
            partial,
            inexact,
        })
    }
}

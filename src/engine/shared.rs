//! Work shared across the entrypoints of one model.
//!
//! Entrypoints of a large model share most of their closures: in the
//! layered generator's 10k model, 3,000 entrypoints of about 19 components
//! each draw on 7,000 components. A component's health in a state of the
//! correlated events depends only on the component and on which of *its*
//! events are down, not on the entrypoint: its events are its domains and
//! groups that can fail, numbered in model order in every entrypoint's
//! event list, so the state of its events is the same bit mask whichever
//! entrypoint asks. [`Shared`] keeps that table (with and without the
//! component's own failures) once per component, built by the first
//! entrypoint that needs it; every other entrypoint reads it, so a series
//! footprint's table is a product of look-ups and a BDD variable's table is
//! shared outright.
//!
//! A component whose leaf has folded events (domains private to one of its
//! entries, integrated into it when an entrypoint has many events) depends
//! on that entrypoint's folding, so it is not shared. The values are the
//! same bits whether read here or computed by the entrypoint, so the
//! figures do not depend on which thread built a table first.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use super::events::Leaf;
use crate::model::{ComponentId, Model};

/// Footprints of at most this many events are shared (4,096 states).
const MAX_SHARED_EVENTS: usize = 12;
/// Most table entries shared in one model (three `f64` each: 192 MB); past
/// it, entrypoints compute their own tables as before.
const MAX_SHARED_ENTRIES: usize = 1 << 23;

/// One component's health per state of its own events: `p[mask]` with its
/// own failures, `q[mask]` without (bit i of `mask` = the i-th event of its
/// footprint down).
#[derive(Debug)]
pub struct Health {
    /// With the component's own instance failures.
    pub p: Vec<f64>,
    /// With its instances perfect (for the improvement table).
    pub q: Vec<f64>,
    /// `1 − p`, computed in failure space (see `Leaf::failing`).
    pub u: Vec<f64>,
}

impl Health {
    /// The table of `leaf`, which must have no folded events.
    fn of(leaf: &Leaf) -> Self {
        let size = 1usize << leaf.footprint.len();
        let mut p = Vec::with_capacity(size);
        let mut q = Vec::with_capacity(size);
        let mut u = Vec::with_capacity(size);
        for mask in 0..size as u64 {
            let down = |e: usize| super::exact::local_down(&leaf.footprint, mask, e);
            p.push(leaf.healthy(down, &[], false));
            q.push(leaf.healthy(down, &[], true));
            u.push(leaf.failing(down, &[]));
        }
        Self { p, q, u }
    }
}

/// The per-component tables of one model, filled as entrypoints ask.
pub struct Shared {
    health: Vec<OnceLock<Option<Arc<Health>>>>,
    /// Table entries still allowed.
    budget: AtomicUsize,
}

impl Shared {
    /// An empty cache for the components of `model`.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        Self {
            health: (0..model.components.len())
                .map(|_| OnceLock::new())
                .collect(),
            budget: AtomicUsize::new(MAX_SHARED_ENTRIES),
        }
    }

    /// The health table of `component`, whose leaf in the asking
    /// entrypoint is `leaf`: built on the first call; `None` when the leaf
    /// has folded events, too many events, or the budget is spent.
    pub fn health(&self, component: ComponentId, leaf: &Leaf) -> Option<Arc<Health>> {
        if leaf.footprint.len() > MAX_SHARED_EVENTS || leaf.private.iter().any(|p| !p.is_empty()) {
            return None;
        }
        let size = 1usize << leaf.footprint.len();
        self.health
            .get(component.0)?
            .get_or_init(|| {
                self.budget
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| {
                        b.checked_sub(size)
                    })
                    .ok()
                    .map(|_| Arc::new(Health::of(leaf)))
            })
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{events, exact, structure};

    #[test]
    fn a_component_table_holds_its_health_per_state_of_its_zones() {
        // a: two 90% instances, one in z1 and one in z2, one needed.
        // Both zones up: 1 − 0.1² = 0.99; one zone down: 0.9; both: 0.
        // Perfect instances: 1, 1, 1, 0.
        let model = crate::model::parse(
            r"system: s
domains: {z1: {kind: zone, availability: 99%}, z2: {kind: zone, availability: 99%}}
components:
  e: {depends_on: [a]}
  a: {instances: 2, availability: 90%, placement: [z1, z2]}
",
        )
        .unwrap();
        let a = ComponentId(1);
        let leaf = &events::collect(&model, &[a]).leaves[0];
        let shared = Shared::new(&model);
        let health = shared.health(a, leaf).unwrap();
        let expected = [0.99, 0.9, 0.9, 0.0];
        for (got, want) in health.p.iter().zip(expected) {
            assert!((got - want).abs() < 1e-15, "{:?}", health.p);
        }
        assert_eq!(health.q, [1.0, 1.0, 1.0, 0.0]);
        // The second entrypoint to ask reads the same table.
        assert!(Arc::ptr_eq(&health, &shared.health(a, leaf).unwrap()));
    }

    #[test]
    fn sharing_gives_the_same_bits_as_each_entrypoint_alone() {
        // 150 entrypoints of the layered generator share their services,
        // backends and datastores; every figure, bound and improvement row
        // must be the one the entrypoint computes on its own.
        let model = crate::model::parse(&crate::generate::layered(500, 42)).unwrap();
        let shared = Shared::new(&model);
        for &entrypoint in &model.entrypoints {
            let structure = structure::build(&model, entrypoint);
            let alone = exact::evaluate(&model, &structure);
            let with = exact::evaluate_shared(&model, &structure, Some(&shared));
            assert_eq!(alone, with, "{}", model.component(entrypoint).name);
        }
    }
}

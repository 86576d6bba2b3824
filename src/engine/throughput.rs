//! What a request pool lets a component serve, as the availability figure
//! counts it (docs/slow.md "A pool is a capacity"): at normal latency a
//! component with `workers` per instance, each request holding one for
//! `held` seconds, serves at most `workers / held` requests a second per
//! instance (Little's law), whatever its `capacity`; a required edge with
//! a `pool` or `connections` limit lets through at most its limit's share
//! of the caller's requests. Past that the pool refuses or queues: what
//! reaches the component's own work never exceeds the pool's throughput,
//! so it sheds (it serves `throughput / offered` of its requests) rather
//! than collapsing.
//!
//! [`limited`] writes that throughput into a copy of the model as the
//! capacity it stands for wherever it is below the written capacity (or
//! no capacity is written), with load shedding on: the capacity compilation
//! then counts it in every state, as it counts capacity. The throughput is
//! per instance, so a state with fewer instances up serves less, as the
//! pool `workers × instances up` does.

use super::concurrency::{Plan, Slowed, concurrency, has_pools};
use super::scenario::Scenario;
use super::state::{Flow, State};
use crate::model::{Capacity, Model};

/// A copy of `model` in which each component whose request pool (or a
/// required edge's limit) serves less than its capacity at normal latency
/// has that throughput as its capacity per instance, with load shedding;
/// `None` when no pool binds anything (the model's figures are then its
/// own).
#[must_use]
pub fn limited(model: &Model) -> Option<Model> {
    if !has_pools(model) {
        return None;
    }
    let limits = throughputs(model);
    if limits.iter().all(Option::is_none) {
        return None;
    }
    let mut copy = model.clone();
    for (c, limit) in copy.components.iter_mut().zip(limits) {
        let Some((per_instance, load)) = limit else {
            continue;
        };
        c.capacity = Some(Capacity {
            per_instance,
            load: c.capacity.map_or(load, |k| k.load),
            derived: c.capacity.is_none_or(|k| k.derived),
        });
        c.load_shedding = true;
    }
    Some(copy)
}

/// Per component: `(throughput per instance, offered load)` where its pool
/// or a required edge's limit serves less than its capacity per instance
/// in the intact state at normal latency, else `None`.
#[must_use]
pub fn throughputs(model: &Model) -> Vec<Option<(f64, f64)>> {
    let flow = Flow::new(model);
    let plan = Plan::new(model, &flow);
    let state = State::new(model, &flow, &Scenario::default());
    let normal = concurrency(model, &plan, &state, &Slowed::default(), None);
    model
        .component_ids()
        .map(|id| {
            let c = model.component(id);
            let load = normal.of(id);
            let up = state.of(id).instances_up;
            let lambda = load.arrival;
            if up == 0 || !(lambda > 0.0 && lambda.is_finite()) {
                return None;
            }
            // The whole component's throughput: its pool's `workers /
            // held`, and for each required edge with a limit the caller
            // requests its limit lets through (`λ × limit / demand`).
            let mut whole = f64::INFINITY;
            if let Some(workers) = load.workers {
                #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
                let workers = workers as f64;
                whole = whole.min(if load.held.is_finite() && load.held > 0.0 {
                    workers / load.held
                } else if load.held > 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                });
            }
            for (edge, e) in c.depends_on.iter().zip(normal.edges_of(id)) {
                if edge.degradable {
                    continue;
                }
                if let Some(limit) = e.limit
                    && e.demand > 0.0
                {
                    #[allow(clippy::cast_precision_loss, reason = "limits far below 2^53")]
                    let limit = limit as f64;
                    whole = whole.min(lambda * limit / e.demand);
                }
            }
            // A request whose required call fails or never returns at
            // normal latency is never served.
            if normal.local_share(model, id) == 0.0 {
                whole = 0.0;
            }
            let per_instance = whole / f64::from(up);
            let capacity = c.capacity.map_or(f64::INFINITY, |k| k.per_instance);
            (per_instance.is_finite() && per_instance < capacity * (1.0 - 1e-12))
                .then_some((per_instance, lambda))
        })
        .collect()
}

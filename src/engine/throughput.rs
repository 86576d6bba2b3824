//! What a request pool lets a component serve, as the availability figure
//! and every state count it (docs/slow.md "A pool is a capacity"): at
//! normal latency a component with `workers` per instance, each request
//! holding one for `held` seconds, serves at most `workers / held` requests
//! a second per instance (Little's law), whatever its `capacity`; nothing
//! when a required call fails or never returns. Past that the pool refuses
//! or queues: what reaches the component's own work never exceeds the
//! pool's throughput, so it sheds (it serves `throughput / offered` of its
//! requests) rather than collapsing.
//!
//! [`throughputs`] reads it off the intact state's concurrency once per
//! model ([`Flow::pools`]); every [`State`] then holds each such component
//! at a concurrency ceiling of that throughput times its instances up, and
//! [`limited`] writes it into a copy of the model as the capacity it stands
//! for, with load shedding, for the capacity compilation to count in every
//! state as it counts capacity. An edge's own limit (`pool`,
//! `connections`) is left to a slow scenario's settled state, where the
//! share of calls it admits is known.

use super::concurrency::{Plan, Slowed, concurrency, has_pools};
use super::scenario::Scenario;
use super::state::{Flow, State};
use crate::model::{Capacity, Model};

/// A copy of `model` in which each component whose request pool serves
/// less than its capacity at normal latency has that throughput as its
/// capacity per instance, with load shedding (a rate limit of 0 where it
/// serves nothing); `None` when no pool binds anything (the model's
/// figures are then its own).
#[must_use]
pub fn limited(model: &Model) -> Option<Model> {
    if !has_pools(model) {
        return None;
    }
    let flow = Flow::new(model);
    let limits = flow.pools();
    if limits.iter().all(Option::is_none) {
        return None;
    }
    let mut copy = model.clone();
    for (c, limit) in copy.components.iter_mut().zip(limits) {
        let &Some(PoolLimit {
            serves: per_instance,
            load,
            ..
        }) = limit
        else {
            continue;
        };
        c.load_shedding = true;
        if per_instance <= 0.0 {
            // Serves nothing (a required call fails or never returns): a
            // capacity of 0 would read as none, a rate limit of 0 does not.
            c.rate_limit = Some(0.0);
            continue;
        }
        c.capacity = Some(Capacity {
            per_instance,
            load: c.capacity.map_or(load, |k| k.load),
            derived: c.capacity.is_none_or(|k| k.derived),
        });
    }
    Some(copy)
}

/// What a component's pool lets it serve per instance at normal latency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoolLimit {
    /// Requests a second one instance serves at most: its pool's `workers
    /// / held`, 0 when a required call fails or never returns.
    pub serves: f64,
    /// What its pool takes in per instance (`workers / held`): a call that
    /// fails was still made.
    pub admits: f64,
    /// Its offered load in the intact state.
    pub load: f64,
}

/// Per component, its [`PoolLimit`] where its pool serves less than its
/// capacity per instance in the intact state at normal latency, else
/// `None`. `flow` is the model's, before these are
/// put in it ([`Flow::pools`] keeps them).
#[must_use]
pub fn throughputs(model: &Model, flow: &Flow) -> Vec<Option<PoolLimit>> {
    let plan = Plan::new(model, flow);
    let state = State::new(model, flow, &Scenario::default());
    let normal = concurrency(model, &plan, &state, &Slowed::default(), None);
    model
        .component_ids()
        .map(|id| {
            let c = model.component(id);
            let load = normal.of(id);
            let up = f64::from(state.of(id).instances_up);
            let lambda = load.arrival;
            if up == 0.0 || !(lambda > 0.0 && lambda.is_finite()) {
                return None;
            }
            // Its own pool's `workers / held`, over the whole component.
            let mut pool = f64::INFINITY;
            if let Some(workers) = load.workers {
                #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
                let workers = workers as f64;
                pool = if load.held.is_finite() && load.held > 0.0 {
                    workers / load.held
                } else if load.held > 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                };
            }
            // A request whose required call fails or never returns at
            // normal latency is never served (what its pool takes in is
            // still called).
            let fails = normal.local_share(model, id) == 0.0;
            let serves = if fails { 0.0 } else { pool };
            let capacity = c.capacity.map_or(f64::INFINITY, |k| k.per_instance);
            (serves.is_finite() && serves / up < capacity * (1.0 - 1e-12)).then_some(PoolLimit {
                serves: serves / up,
                admits: pool / up,
                load: lambda,
            })
        })
        .collect()
}

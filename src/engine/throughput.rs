//! What a request pool lets a component serve, as the availability figure
//! and every state count it (docs/slow.md "A pool is a capacity"): at
//! normal latency a component with `workers` per instance, each request
//! holding one for `held` seconds, serves at most `workers / held` requests
//! a second per instance (Little's law), whatever its `capacity`. Past
//! that the pool refuses or queues: what reaches the component's own work
//! never exceeds the pool's throughput, so it sheds (it serves `throughput
//! / offered` of its requests) rather than collapsing.
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
/// capacity per instance, with load shedding; `None` when no pool binds
/// anything (the model's figures are then its own).
#[must_use]
pub fn limited(model: &Model) -> Option<Model> {
    if !has_pools(model) {
        return None;
    }
    limited_with(model, &Flow::new(model))
}

/// [`limited`], with the model's flow already built.
#[must_use]
pub fn limited_with(model: &Model, flow: &Flow) -> Option<Model> {
    let limits = flow.pools();
    if limits.iter().all(Option::is_none) {
        return None;
    }
    let mut copy = model.clone();
    counted(&mut copy, limits);
    // The pools are counted: the copy has none left to count again (its
    // own flow would read different times held off a model that sheds),
    // and no edge limit either, which the figures do not read: its flow
    // then runs no concurrency pass.
    for c in &mut copy.components {
        c.workers = None;
        for limits in c.depends_on.iter_mut().filter_map(|e| e.limits.as_mut()) {
            limits.pool = None;
            limits.connections = None;
        }
    }
    Some(copy)
}

/// Writes each [`PoolLimit`] of `limits` into `model` as the capacity per
/// instance it stands for, with load shedding.
pub fn counted(model: &mut Model, limits: &[Option<PoolLimit>]) {
    for (c, limit) in model.components.iter_mut().zip(limits) {
        let &Some(PoolLimit { per_instance, load }) = limit else {
            continue;
        };
        c.load_shedding = true;
        c.capacity = Some(Capacity {
            per_instance,
            load: c.capacity.map_or(load, |k| k.load),
            derived: c.capacity.is_none_or(|k| k.derived),
        });
    }
}

/// What a component's own pool lets it serve per instance at normal
/// latency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoolLimit {
    /// Requests a second one instance serves and takes in at most: its
    /// `workers / held`.
    pub per_instance: f64,
    /// Its intact load (`Flow::intact_loads`), for the capacity written in
    /// its place where none is (a load taken as derived).
    pub load: f64,
}

/// Per component with `workers`, its [`PoolLimit`] where its pool serves
/// less than its capacity per instance in the intact state at normal
/// latency, else `None`. `flow` is the model's, before these are put in
/// it ([`Flow::pools`] keeps them).
///
/// A consumer (`consumes`) gets none: below its input it lags. Only a
/// time held that does not rest on a pool saturated elsewhere is
/// kept for every state: a component with a call into a saturated pool,
/// or a call that fails or never returns, gets none (its time held is
/// that pool's queue, which another state may not have; a slow scenario's
/// settled state judges it, and `pool/…` names the saturated pool).
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
            let workers = load.workers?;
            if up == 0.0 || !(lambda > 0.0 && lambda.is_finite()) {
                return None;
            }
            if !(load.held.is_finite() && load.held > 0.0) {
                return None;
            }
            // A consumer below its input lags; it does not shed.
            if c.depends_on.iter().any(|e| e.pull) {
                return None;
            }
            let leans = c
                .depends_on
                .iter()
                .zip(normal.edges_of(id))
                .any(|(edge, e)| {
                    e.fails || e.hangs || edge.targets.iter().any(|&t| normal.of(t).saturated)
                });
            if leans {
                return None;
            }
            #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
            let per_instance = workers as f64 / load.held / up;
            let capacity = c.capacity.map_or(f64::INFINITY, |k| k.per_instance);
            (per_instance < capacity * (1.0 - 1e-12)).then_some(PoolLimit {
                per_instance,
                load: flow.intact_loads()[id.0].unwrap_or(lambda),
            })
        })
        .collect()
}

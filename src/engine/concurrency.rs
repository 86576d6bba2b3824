//! Concurrency in a state (docs/slow.md): how many requests each
//! component holds in flight, against its request pool (`workers`) and the
//! limits of its edges (a bulkhead `pool`, `connections`), when some
//! components are slow.
//!
//! It reads a [`State`] (who runs, the loads offered and the flow over
//! every edge) and never changes it. Little's law gives the in-flight
//! count: arrival rate × time held.
//!
//! - A request at a component holds one worker for the component's own
//!   latency ([`Latency::held`]: the p99 when written) plus every call it
//!   makes: `calls × time held` per edge (the calls of a request are taken
//!   one after the other, and `calls` is per request of the caller).
//! - A call holds its caller for the target's response time *as seen by
//!   the caller*, cut by the edge's `timeout`. A target that is degraded in
//!   the state (slowed, saturated, or slower than at normal latency) and
//!   slower than the timeout fails every attempt: the call is held
//!   `timeout × attempts`, attempts `1 + retries` (`1 + min(retries,
//!   retry_budget)` with a budget); without a timeout a hang holds it
//!   forever. A call that closes a cycle counts its target's own latency.
//! - An edge with a `breaker` and a `timeout` whose calls fail has its
//!   breaker open: calls fail at once (held 0) and the edge is degraded.
//!   Without a timeout a hang fails no call, and the breaker never opens.
//! - An edge's limit (the smaller of `pool` and `connections`) admits at
//!   most that many calls in flight; the rest are refused at once (held 0).
//! - `workers`, `pool` and `connections` are per instance, as `capacity`
//!   is: a component's pool is `workers × instances up`, an edge's limit
//!   its `pool` (or `connections`) × the caller's instances up.
//! - A component whose in-flight count exceeds its pool is
//!   *saturated*: it serves at most `pool / time held` requests per
//!   second (a share `pool / in-flight` of its arrivals), and, without
//!   `load_shedding`, queues the rest without bound: its callers see it
//!   hang. With `load_shedding` it refuses the excess and answers the rest
//!   in their time.
//! - A hedged edge sends the target `flow × share` more calls: the share
//!   slower than the hedge's percentile (5% after p95), all of them when
//!   the target is slowed, capped by `max`.
//!
//! Components are taken in reverse dependency order (targets before their
//! callers), so the work is linear in the model.

use super::state::{Flow, State};
use crate::model::intact::{DependencyOrder, intact_share};
use crate::model::{ComponentId, Duration, Edge, EdgeKind, EdgeLimits, Model};

/// How a slowed component answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Slowness {
    /// Its own latency becomes this.
    Latency(Duration),
    /// It never answers: a call waits for its timeout, or forever.
    Hang,
}

impl Slowness {
    /// Its own latency in seconds (infinite for a hang).
    #[must_use]
    pub fn seconds(self) -> f64 {
        match self {
            Slowness::Latency(d) => d.seconds(),
            Slowness::Hang => f64::INFINITY,
        }
    }
}

/// Which components are slow, and how.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slowed {
    /// The slowed components, each once, in the order given.
    pub components: Vec<(ComponentId, Slowness)>,
    /// Components whose pool a slowness drained (it serves nothing): the
    /// state counts them lost (their load moves to a failover, callers
    /// with alternatives route around them), and their callers still see
    /// them hang (docs/slow.md).
    pub drained: Vec<ComponentId>,
}

impl Slowed {
    /// Whether nothing is slowed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.components.is_empty()
    }

    /// How `id` is slowed, if it is.
    #[must_use]
    pub fn of(&self, id: ComponentId) -> Option<Slowness> {
        self.components
            .iter()
            .find(|(c, _)| *c == id)
            .map(|&(_, s)| s)
    }
}

/// What is needed to compute the concurrency of any state of one model,
/// built once.
#[derive(Debug, Clone)]
pub struct Plan {
    order: DependencyOrder,
    /// Whether any component has `workers` or any edge a limit: without
    /// them nothing can saturate.
    pools: bool,
}

impl Plan {
    /// The plan of `model` (its dependency order).
    #[must_use]
    pub fn new(model: &Model, flow: &Flow) -> Self {
        Self {
            order: DependencyOrder::new(flow.graph()),
            pools: has_pools(model),
        }
    }

    /// Whether the model has a pool that can saturate.
    #[must_use]
    pub fn has_pools(&self) -> bool {
        self.pools
    }

    /// The dependency order the computation follows.
    #[must_use]
    pub fn order(&self) -> &DependencyOrder {
        &self.order
    }
}

/// Whether any component has `workers` or any edge a `pool` or
/// `connections`.
#[must_use]
pub fn has_pools(model: &Model) -> bool {
    model.components.iter().any(|c| {
        c.workers.is_some()
            || c.depends_on
                .iter()
                .any(|e| e.limits.as_ref().is_some_and(|l| l.limit().is_some()))
    })
}

/// Whether the model says anything about latency or pools: without it,
/// every figure here is 0 and no rule of slowness has anything to say.
#[must_use]
pub fn has_slowness(model: &Model) -> bool {
    model.components.iter().any(|c| {
        c.latency.is_some()
            || c.workers.is_some()
            || c.depends_on.iter().any(|e| e.limits.is_some())
    })
}

/// One component in one state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ComponentLoad {
    /// Requests arriving per second: its offered load while it runs (hedges
    /// included), 0 when it does not run or nothing says.
    pub arrival: f64,
    /// Its own latency in this state, seconds (infinite for a hang).
    pub own: f64,
    /// The mean time a request holds one of its workers, seconds: its own
    /// latency and its calls.
    pub held: f64,
    /// Requests in flight: `arrival × held` (infinite when a call never
    /// returns).
    pub in_flight: f64,
    /// Its request pool: `workers × instances up`.
    pub workers: Option<u64>,
    /// Whether in flight exceeds the pool.
    pub saturated: bool,
    /// The share of its arrivals it serves from its pool: `workers / in
    /// flight` when saturated, else 1.
    pub share: f64,
    /// What its callers wait for an answer, seconds: `held`, or infinite
    /// when it is saturated without load shedding (it queues).
    pub seen: f64,
    /// Whether it is degraded in this state: slowed, saturated, or slower
    /// than at normal latency.
    pub degraded: bool,
}

impl ComponentLoad {
    /// What it serves per second at most: `workers / held` (saturated).
    #[must_use]
    pub fn ceiling(&self) -> Option<f64> {
        #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
        let workers = self.workers? as f64;
        self.saturated.then(|| {
            if self.held > 0.0 {
                workers / self.held
            } else {
                f64::INFINITY
            }
        })
    }
}

/// One edge in one state.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "four facts of one edge, each read on its own"
)]
pub struct EdgeLoad {
    /// The caller.
    pub caller: ComponentId,
    /// The edge's index in the caller's `depends_on`.
    pub edge: usize,
    /// Calls per second over the edge (all its targets).
    pub rate: f64,
    /// Mean time a call is held, seconds, before the limit's refusals.
    pub held: f64,
    /// Calls that want to be in flight: `rate × held`.
    pub demand: f64,
    /// Calls in flight: the demand, at most the limit.
    pub in_flight: f64,
    /// The edge's limit: `pool` (or `connections`) × the caller's
    /// instances up.
    pub limit: Option<u64>,
    /// Whether the demand exceeds the limit.
    pub saturated: bool,
    /// The share of calls admitted: `limit / demand` when saturated, else 1.
    pub admitted: f64,
    /// Whether its calls fail (every attempt times out, or the breaker is
    /// open).
    pub fails: bool,
    /// Whether a call never returns (a hang without a timeout).
    pub hangs: bool,
    /// Whether its breaker is open.
    pub breaker_open: bool,
    /// Attempts per call (`1 + retries` when every attempt times out).
    pub attempts: f64,
}

/// The concurrency of every component and edge in one state.
#[derive(Debug, Clone, PartialEq)]
pub struct Concurrency {
    /// Per component, in model order.
    pub components: Vec<ComponentLoad>,
    /// Per edge, in model order (caller, then edge).
    pub edges: Vec<EdgeLoad>,
    /// Where each component's edges start in `edges`.
    starts: Vec<usize>,
    /// The share of its requests each component serves (see
    /// [`Concurrency::served_share`]).
    served: Vec<f64>,
    /// The share each component serves on its own account (see
    /// [`Concurrency::local_share`]).
    local: Vec<f64>,
}

impl Concurrency {
    /// One component.
    #[must_use]
    pub fn of(&self, id: ComponentId) -> &ComponentLoad {
        &self.components[id.0]
    }

    /// One edge: the `edge`th of `caller`.
    #[must_use]
    pub fn edge(&self, caller: ComponentId, edge: usize) -> &EdgeLoad {
        &self.edges[self.starts[caller.0] + edge]
    }

    /// The edges of `caller`, in order.
    #[must_use]
    pub fn edges_of(&self, caller: ComponentId) -> &[EdgeLoad] {
        let end = self
            .starts
            .get(caller.0 + 1)
            .copied()
            .unwrap_or(self.edges.len());
        &self.edges[self.starts[caller.0]..end]
    }

    /// The share of its requests an entrypoint (or any component) serves:
    /// its pool's share times, for each edge, what the edge serves (a hang
    /// serves nothing, degradable or not: the request never completes; a
    /// required edge whose calls fail serves nothing; a required edge
    /// serves its admitted share times its targets' shares, averaged over
    /// the alternatives of an `any_of`). A call that closes a cycle counts
    /// as served. A request slower than an entrypoint's own `timeout` is
    /// lost (its clients gave up).
    #[must_use]
    pub fn served_share(&self, model: &Model, id: ComponentId) -> f64 {
        match model.component(id).timeout {
            Some(t) if self.of(id).seen > t.seconds() => 0.0,
            _ => self.served[id.0],
        }
    }

    /// The share of its requests a component serves on its own account,
    /// its targets' shares left out: what its pool serves (`workers / in
    /// flight` when saturated), times the share each required edge admits
    /// (a saturated bulkhead refuses the rest); nothing when a call hangs
    /// or a required edge's calls fail, or when it is slower than its own
    /// `timeout`. The state of a slow scenario takes it as the component's
    /// concurrency ceiling (`analyze::slow::ceilings`).
    #[must_use]
    pub fn local_share(&self, model: &Model, id: ComponentId) -> f64 {
        match model.component(id).timeout {
            Some(t) if self.of(id).seen > t.seconds() => 0.0,
            _ => self.local[id.0],
        }
    }

    /// Every component's served share, targets before their callers (one
    /// pass, no recursion: a chain of any length).
    fn shares(&mut self, model: &Model, order: &DependencyOrder) {
        let mut done = vec![false; model.components.len()];
        for &id in order.order.iter().rev() {
            // Its own account (`local`): its pool, what its required edges
            // admit, nothing when a call hangs or a required one fails;
            // the whole share, that times its required targets' shares.
            let mut local = self.of(id).share;
            let mut through = 1.0;
            for (edge, load) in model.component(id).depends_on.iter().zip(self.edges_of(id)) {
                if local == 0.0 {
                    break;
                }
                if load.hangs || (!edge.degradable && load.fails) {
                    local = 0.0;
                    break;
                }
                if edge.degradable {
                    continue;
                }
                local *= load.admitted;
                let target = |t: ComponentId| if done[t.0] { self.served[t.0] } else { 1.0 };
                #[allow(clippy::cast_precision_loss, reason = "a handful of targets")]
                let targets = match edge.kind {
                    EdgeKind::Target => edge.targets.iter().map(|&t| target(t)).product::<f64>(),
                    EdgeKind::AnyOf | EdgeKind::AtLeast => {
                        edge.targets.iter().map(|&t| target(t)).sum::<f64>()
                            / edge.targets.len() as f64
                    }
                };
                through *= targets;
            }
            self.served[id.0] = local * through;
            self.local[id.0] = local;
            done[id.0] = true;
        }
    }
}

/// The concurrency of `state`, with `slowed` components slow; `base` is
/// the same model's concurrency at normal latency (which tells what is
/// slower than usual), `None` when this *is* the normal one.
#[must_use]
pub fn concurrency(
    model: &Model,
    plan: &Plan,
    state: &State,
    slowed: &Slowed,
    base: Option<&Concurrency>,
) -> Concurrency {
    let n = model.components.len();
    let mut starts = Vec::with_capacity(n);
    let mut count = 0;
    for c in &model.components {
        starts.push(count);
        count += c.depends_on.len();
    }
    let arrival = arrivals(model, state, slowed);
    let mut out = Concurrency {
        components: vec![ComponentLoad::idle(); n],
        edges: vec![EdgeLoad::idle(); count],
        starts,
        served: vec![1.0; n],
        local: vec![1.0; n],
    };
    let mut drained = vec![false; n];
    for &id in &slowed.drained {
        drained[id.0] = true;
    }
    let mut done = vec![false; n];
    for &id in plan.order.order.iter().rev() {
        let component = model.component(id);
        if drained[id.0] && !state.of(id).running {
            out.components[id.0] = ComponentLoad {
                arrival: state.of(id).offered.unwrap_or(0.0),
                own: f64::INFINITY,
                held: f64::INFINITY,
                in_flight: f64::INFINITY,
                workers: pool_of(component.workers, state.of(id).instances_up),
                saturated: true,
                share: 0.0,
                seen: f64::INFINITY,
                degraded: true,
            };
            done[id.0] = true;
            continue;
        }
        let own = slowed.of(id).map_or_else(
            || {
                component
                    .latency
                    .as_ref()
                    .map_or(0.0, |l| l.held().1.seconds())
            },
            Slowness::seconds,
        );
        let lambda = arrival[id.0];
        let mut per_request = own;
        let mut in_flight = times(lambda, own);
        let mut any_fails = false;
        for (at, edge) in component.depends_on.iter().enumerate() {
            let load = edge_load(model, state, &out, &done, slowed, (id, at, edge), lambda);
            any_fails |= load.fails || load.hangs;
            in_flight += load.in_flight;
            per_request += if lambda > 0.0 {
                load.in_flight / lambda
            } else {
                load.held * edge.calls * (1.0 - edge.hit_rate.unwrap_or(0.0))
            };
            out.edges[out.starts[id.0] + at] = load;
        }
        let workers = pool_of(component.workers, state.of(id).instances_up);
        let Pool {
            in_flight,
            saturated,
            share,
            seen,
        } = pool(
            model,
            plan,
            state,
            (id, lambda, per_request, in_flight),
            workers,
        );
        let held_longer = base.is_some_and(|b| seen > b.of(id).seen * (1.0 + 1e-9) + 1e-12);
        out.components[id.0] = ComponentLoad {
            arrival: lambda,
            own,
            held: per_request,
            in_flight,
            workers,
            saturated,
            share,
            seen,
            degraded: slowed.of(id).is_some() || saturated || held_longer || any_fails,
        };
        done[id.0] = true;
    }
    out.shares(model, &plan.order);
    out
}

/// A component's pool in a state: in flight, saturated, the share of its
/// arrivals it serves, and the response its callers see.
struct Pool {
    in_flight: f64,
    saturated: bool,
    share: f64,
    seen: f64,
}

/// The pool of `id` (`workers` of them), with `lambda` arriving, each
/// request held `per_request`, `in_flight` wanted.
fn pool(
    model: &Model,
    plan: &Plan,
    state: &State,
    (id, lambda, per_request, in_flight): (ComponentId, f64, f64, f64),
    workers: Option<u64>,
) -> Pool {
    let component = model.component(id);
    #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
    let saturated = workers.is_some_and(|w| in_flight > w as f64 * (1.0 + 1e-12) && lambda > 0.0);
    let share = match workers {
        #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
        Some(w) if saturated => {
            if in_flight.is_finite() {
                w as f64 / in_flight
            } else {
                0.0
            }
        }
        _ => 1.0,
    };
    // Fed only through edge limits, a pool holds what the limits let
    // through (never a refused call), and when that is more than its
    // workers its queue is bounded by them: the callers wait for a worker,
    // no longer than their timeouts, and every call admitted is answered.
    let queued = (workers.is_some() && lambda > 0.0 && !component.load_shedding)
        .then(|| bounded_queue(model, plan, state, (id, lambda, per_request), workers))
        .flatten();
    let (in_flight, share, saturated) = match queued {
        Some(q) => (q.in_flight, 1.0, q.saturated),
        None => (in_flight, share, saturated),
    };
    let seen = match queued {
        Some(q) => q.response,
        None if saturated && !component.load_shedding => f64::INFINITY,
        None => per_request,
    };
    Pool {
        in_flight,
        saturated,
        share,
        seen,
    }
}

/// A saturated pool whose every request comes over edges with a limit.
#[derive(Debug, Clone, Copy)]
struct Queue {
    /// Requests held: those at a worker and those waiting for one.
    in_flight: f64,
    /// The response its callers see, seconds: the time held times the
    /// requests held over the workers (Little's law on the whole queue).
    response: f64,
    /// Whether the limits let more in than the workers take: when they
    /// hold no more than the pool in flight, nothing waits.
    saturated: bool,
}

/// The queue of a saturated pool (`workers` of them) whose arrivals all
/// come over edges with a limit (a bulkhead or a connection pool), each
/// call held `held` at a worker: a limit's slots are held only while its
/// calls are out, so the callers hold at most their limits in flight and
/// the queue is bounded. Its response time `R` solves `R = held
/// × N(R) / workers`, `N(R) = Σ min(flow × R, limit)` over the edges in;
/// the pool then serves `workers / held` a second, what the limits admit.
/// `None` when some arrivals come over an edge without a limit (the queue
/// grows without bound) or `R` is past a caller's timeout (its calls fail).
fn bounded_queue(
    model: &Model,
    plan: &Plan,
    state: &State,
    (id, lambda, held): (ComponentId, f64, f64),
    workers: Option<u64>,
) -> Option<Queue> {
    #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
    let workers = workers? as f64;
    if !(held.is_finite() && held > 0.0 && lambda.is_finite() && workers > 0.0) {
        return None;
    }
    // (flow offered, limit, timeout) of every edge in that carries calls.
    let mut edges: Vec<(f64, f64, f64)> = Vec::new();
    let mut arriving = 0.0;
    for &(caller, at) in &plan.order.inbound[id.0] {
        let edge = &model.component(caller).depends_on[at];
        let offered = state.offered_flow(model, caller, edge, id).unwrap_or(0.0);
        if offered <= 0.0 || !state.of(caller).running {
            continue;
        }
        if edge.pull
            || edge.targets.len() != 1
            || edge.limits.as_ref().is_some_and(|l| l.hedge.is_some())
        {
            return None;
        }
        // A caller holds at most its edge limit in flight over the edge
        // (its own pool is not counted: its requests spend part of their
        // time elsewhere, which this does not follow).
        let limit = edge_bound(edge, state.of(caller).instances_up);
        if !limit.is_finite() || plan.order.is_cut(caller, id) {
            return None;
        }
        arriving += state.edge_flow(model, caller, edge, id).unwrap_or(0.0);
        edges.push((
            offered,
            limit,
            edge.timeout.map_or(f64::INFINITY, Duration::seconds),
        ));
    }
    // Load that does not come over these edges (its own written load, a
    // failover's, a hedge's) is not bounded by them.
    if edges.is_empty() || lambda > arriving * (1.0 + 1e-9) + 1e-9 {
        return None;
    }
    let held_at = |r: f64| -> f64 { edges.iter().map(|&(f, l, _)| (f * r).min(l)).sum() };
    let at_held = held_at(held);
    if at_held <= workers * (1.0 + 1e-12) {
        return Some(Queue {
            in_flight: at_held,
            response: held,
            saturated: false,
        });
    }
    // N(R) is concave and piecewise linear: on each piece the edges whose
    // limit binds give `capped`, the others `slope × R`. Walk the pieces
    // from R = held upward.
    let mut breaks: Vec<f64> = edges.iter().map(|&(f, l, _)| l / f).collect();
    breaks.sort_by(f64::total_cmp);
    let mut response = f64::INFINITY;
    let mut from = held;
    for &end in breaks
        .iter()
        .filter(|&&b| b > held)
        .chain(std::iter::once(&f64::INFINITY))
    {
        let mid = if end.is_finite() {
            f64::midpoint(from, end)
        } else {
            from + 1.0
        };
        let (capped, slope) = edges.iter().fold((0.0, 0.0), |(c, s), &(f, l, _)| {
            if f * mid >= l { (c + l, s) } else { (c, s + f) }
        });
        // R = held × (capped + slope × R) / workers.
        let denominator = workers - held * slope;
        if denominator > 0.0 {
            let r = held * capped / denominator;
            if r >= from * (1.0 - 1e-12) && r <= end * (1.0 + 1e-12) {
                response = r.max(held);
                break;
            }
        }
        from = end;
    }
    if !response.is_finite() || edges.iter().any(|&(_, _, t)| response > t) {
        return None;
    }
    Some(Queue {
        in_flight: held_at(response),
        response,
        saturated: true,
    })
}

/// An edge's limit (`pool` or `connections`) times its caller's instances
/// up; infinite without one.
fn edge_bound(edge: &Edge, instances_up: u32) -> f64 {
    #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
    pool_of(
        edge.limits.as_deref().and_then(EdgeLimits::limit),
        instances_up,
    )
    .map_or(f64::INFINITY, |l| l as f64)
}

/// `rate × time`, 0 when nothing arrives (never `0 × ∞`).
fn times(rate: f64, time: f64) -> f64 {
    if rate > 0.0 { rate * time } else { 0.0 }
}

/// The arrival rate of every component: its offered load while it runs,
/// plus the hedges its callers send it.
fn arrivals(model: &Model, state: &State, slowed: &Slowed) -> Vec<f64> {
    let mut arrival: Vec<f64> = model
        .component_ids()
        .map(|id| {
            let c = state.of(id);
            if c.running {
                c.offered.unwrap_or(0.0)
            } else {
                0.0
            }
        })
        .collect();
    for caller in model.component_ids() {
        for edge in &model.component(caller).depends_on {
            let Some(hedge) = edge.limits.as_ref().and_then(|l| l.hedge) else {
                continue;
            };
            for &target in &edge.targets {
                let flow = state.edge_flow(model, caller, edge, target).unwrap_or(0.0);
                let share = if slowed.of(target).is_some() {
                    hedge.slow_share()
                } else {
                    hedge.steady_share()
                };
                if state.of(target).running {
                    arrival[target.0] += flow * share;
                }
            }
        }
    }
    arrival
}

/// One edge of `caller` in this state.
fn edge_load(
    model: &Model,
    state: &State,
    out: &Concurrency,
    done: &[bool],
    slowed: &Slowed,
    (caller, at, edge): (ComponentId, usize, &Edge),
    lambda: f64,
) -> EdgeLoad {
    let limits = edge.limits.as_deref();
    let timeout = edge.timeout.map(Duration::seconds);
    let mut rate = 0.0;
    let mut demand = 0.0;
    let mut fails = false;
    let mut hangs = false;
    let mut attempts_max: f64 = 1.0;
    let mut breaker_open = false;
    let mut held_sum = 0.0;
    for &target in &edge.targets {
        let flow = if lambda <= 0.0 {
            0.0
        } else if edge.pull {
            // A consumer's pull adds nothing to the queue's load, but each
            // pull holds one of its workers: the calls it makes.
            state.passing(model, caller) * edge.calls * state.share(model, edge, target)
        } else {
            // The calls offered to the limit: in a slow scenario's state
            // the edge carries only those it admits.
            state
                .offered_flow(model, caller, edge, target)
                .unwrap_or(0.0)
        };
        let (seen, degraded) = if done[target.0] {
            let t = out.of(target);
            (t.seen, t.degraded)
        } else {
            // A call that closes a cycle: the target's own latency.
            let own = slowed.of(target).map_or_else(
                || {
                    model
                        .component(target)
                        .latency
                        .as_ref()
                        .map_or(0.0, |l| l.held().1.seconds())
                },
                Slowness::seconds,
            );
            (own, slowed.of(target).is_some())
        };
        let (mut held, attempts, call_fails) = match timeout {
            Some(t) if degraded && seen > t => (t * attempts(edge), attempts(edge), true),
            Some(t) => (seen.min(t), 1.0, false),
            None => (seen, 1.0, false),
        };
        let call_hangs = held.is_infinite();
        if call_fails && limits.and_then(|l| l.breaker).is_some() {
            held = 0.0;
            breaker_open = true;
        }
        fails |= call_fails;
        hangs |= call_hangs;
        attempts_max = attempts_max.max(attempts);
        rate += flow;
        demand += times(flow, held);
        held_sum += held * intact_share(model, edge, target);
    }
    let held = if rate > 0.0 { demand / rate } else { held_sum };
    let limit = pool_of(
        limits.and_then(EdgeLimits::limit),
        state.of(caller).instances_up,
    );
    #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
    let saturated = limit.is_some_and(|l| demand > l as f64 * (1.0 + 1e-12));
    let (in_flight, admitted) = match limit {
        #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
        Some(l) if saturated => {
            let l = l as f64;
            (l, if demand.is_finite() { l / demand } else { 0.0 })
        }
        _ => (demand, 1.0),
    };
    EdgeLoad {
        caller,
        edge: at,
        rate,
        held,
        demand,
        in_flight,
        limit,
        saturated,
        admitted,
        fails: fails || breaker_open,
        // Refused calls return at once: a saturated bulkhead in front of a
        // hang keeps the requests it refuses.
        hangs: hangs && !breaker_open && admitted > 0.0,
        breaker_open,
        attempts: attempts_max,
    }
}

/// A pool per instance times the instances up.
fn pool_of(per_instance: Option<u32>, instances_up: u32) -> Option<u64> {
    per_instance.map(|p| u64::from(p) * u64::from(instances_up))
}

/// Attempts per call when every attempt fails: `1 + retries`, or `1 +
/// min(retries, retry_budget)` with a budget.
fn attempts(edge: &Edge) -> f64 {
    let retries = f64::from(edge.retries);
    1.0 + edge.retry_budget.map_or(retries, |b| retries.min(b))
}

impl ComponentLoad {
    fn idle() -> Self {
        Self {
            arrival: 0.0,
            own: 0.0,
            held: 0.0,
            in_flight: 0.0,
            workers: None,
            saturated: false,
            share: 1.0,
            seen: 0.0,
            degraded: false,
        }
    }
}

impl EdgeLoad {
    fn idle() -> Self {
        Self {
            caller: ComponentId(0),
            edge: 0,
            rate: 0.0,
            held: 0.0,
            demand: 0.0,
            in_flight: 0.0,
            limit: None,
            saturated: false,
            admitted: 1.0,
            fails: false,
            hangs: false,
            breaker_open: false,
            attempts: 1.0,
        }
    }
}

#[cfg(test)]
#[path = "concurrency_tests.rs"]
mod tests;

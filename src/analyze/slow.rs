//! A slow dependency, judged (docs/slow.md): the concurrency of the
//! system with some components slow or hanging, which pools saturate or
//! drain, how soon, and which entrypoints lose service, including those
//! that never call the slow component. `what-if --slow` asks it of the
//! components it is given; `check` asks it of every credible slow
//! component (`policy.slow`) through the `bulkhead` rule.
//!
//! A drained pool (a component that serves nothing: every worker held by a
//! call that does not return) is counted lost in the state: its load moves
//! along `failover_to`, callers with alternatives route around it (its
//! health checks wait for a worker too), and what that does to capacity
//! follows as for a lost component. Callers without an alternative still
//! see it hang. Drained pools are looked for again in the new state, at
//! most [`MAX_ROUNDS`] times.

use std::collections::BTreeMap;

use crate::analyze::results::{PoolChange, ServiceLoss, SlowEvent, SlowedRow};
use crate::engine::concurrency::{Concurrency, Plan, Slowed, Slowness, concurrency};
use crate::engine::scenario::{self, Ceiling, Scenario};
use crate::engine::state::{Flow, State};
use crate::model::{ComponentId, Model};

/// Rounds of drained pools moved into the state, at most.
pub const MAX_ROUNDS: usize = 8;

/// Rounds of limits settled ([`settle`]), at most: the shares only fall
/// from round to round, and converge to 1e-12 in a few dozen.
pub const SETTLE_ROUNDS: usize = 64;

/// How an entrypoint reaches the slowed components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Through required edges: it needs one.
    Required,
    /// Only through degradable edges.
    Degradable,
    /// Not at all: no call path leads to one.
    Never,
}

impl Reach {
    /// The word of the JSON report.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Reach::Required => "required",
            Reach::Degradable => "degradable",
            Reach::Never => "never",
        }
    }
}

/// A slowness judged.
#[derive(Debug, Clone)]
pub struct Judged {
    /// What is slow, and the pools it drained.
    pub slowed: Slowed,
    /// The slow scenario: the scenario judged in, with the drained pools
    /// lost and every other pool the slowness saturates at its ceiling.
    pub scenario: Scenario,
    /// Its state.
    pub state: State,
    /// The concurrency at normal latency in the scenario.
    pub base: Concurrency,
    /// The concurrency with the slowness in the scenario's own state,
    /// before any drained pool is counted lost: how each pool fills.
    pub first: Concurrency,
    /// The concurrency with the slowness, in `state`.
    pub after: Concurrency,
    /// The entrypoints that serve less: (entrypoint, share before, share
    /// after, how it reaches the slowed components).
    pub losses: Vec<(ComponentId, f64, f64, Reach)>,
    /// The states computed again with drained pools lost (at most
    /// [`MAX_ROUNDS`]).
    pub rounds: usize,
    /// The states computed again while the limits settled (at most
    /// [`SETTLE_ROUNDS`]).
    pub settled: usize,
}

/// The scenario's state and concurrency at normal latency, which every
/// slowness in it is judged against.
pub struct Before<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// Its state.
    pub state: &'a State,
    /// Its concurrency at normal latency.
    pub base: &'a Concurrency,
    /// Its steady state with nothing slowed ([`steady_normal`]), when the
    /// caller judges many slownesses in it: computed once, not per
    /// judgement.
    pub steady: Option<&'a State>,
}

/// The steady state of `before`'s scenario with nothing slowed: what every
/// slowness in it is compared with.
#[must_use]
pub fn steady_normal(model: &Model, (flow, plan): (&Flow, &Plan), before: &Before) -> State {
    steady(model, (flow, plan), before, Slowed::default()).state
}

/// `slowed` judged in `before`'s scenario.
#[must_use]
pub fn judge(
    model: &Model,
    (flow, plan): (&Flow, &Plan),
    before: &Before,
    slowed: Slowed,
) -> Judged {
    let Steady {
        slowed,
        scenario,
        state,
        first,
        after,
        rounds,
        settled,
    } = steady(model, (flow, plan), before, slowed);
    let losses = losses(model, plan, (flow, before), &state, &slowed);
    Judged {
        slowed,
        scenario,
        state,
        base: before.base.clone(),
        first,
        after,
        losses,
        rounds,
        settled,
    }
}

/// A slowness carried to its steady state in a scenario.
struct Steady {
    /// What is slow, and the pools it drained.
    slowed: Slowed,
    /// The scenario with the drained pools lost and the limits settled.
    scenario: Scenario,
    /// Its state.
    state: State,
    /// The concurrency as the slowness starts, in the scenario's state.
    first: Concurrency,
    /// The concurrency the limits were read from.
    after: Concurrency,
    /// Rounds of drained pools.
    rounds: usize,
    /// Rounds of the limits settling.
    settled: usize,
}

/// `slowed` in `before`'s scenario, carried to its steady state: the
/// pools it drains counted lost (looked for again in each new state, at
/// most [`MAX_ROUNDS`] times), then the limits settled ([`settle`]).
/// Nothing slowed gives the scenario's own steady state, which every
/// slowness is compared with.
fn steady(
    model: &Model,
    (flow, plan): (&Flow, &Plan),
    before: &Before,
    mut slowed: Slowed,
) -> Steady {
    let mut state = before.state.clone();
    let first = concurrency(model, plan, &state, &slowed, Some(before.base));
    let mut after = first.clone();
    let mut rounds = 0;
    let mut drained = vec![false; model.components.len()];
    for &id in &slowed.drained {
        drained[id.0] = true;
    }
    for _round in 0..MAX_ROUNDS {
        let new: Vec<ComponentId> = model
            .component_ids()
            .filter(|&id| {
                state.of(id).running
                    && after.of(id).saturated
                    && after.of(id).share == 0.0
                    && !drained[id.0]
            })
            .collect();
        if new.is_empty() {
            break;
        }
        for &id in &new {
            drained[id.0] = true;
        }
        slowed.drained.extend(new);
        let lost = Scenario {
            failed_instances: slowed
                .drained
                .iter()
                .map(|&id| (id, model.component(id).instances))
                .collect(),
            ..Scenario::default()
        };
        state = State::new(model, flow, &before.scenario.and(&lost));
        after = concurrency(model, plan, &state, &slowed, Some(before.base));
        rounds += 1;
    }
    // What every pool the slowness saturates still serves is its limit in
    // the state (docs/slow.md), and every edge limit lets through only
    // the calls it admits: the load flow, the served shares and the
    // verdicts follow from them as from capacity.
    let lost = Scenario {
        failed_instances: slowed
            .drained
            .iter()
            .map(|&id| (id, model.component(id).instances))
            .collect(),
        ..Scenario::default()
    };
    let scenario = before.scenario.and(&lost);
    let (limits, _, after, settled) = settle(
        model,
        (flow, plan),
        &scenario,
        (&slowed, Some(before.base)),
        (state, after),
    );
    let scenario = scenario.and(&limits);
    let state = State::new(model, flow, &scenario);
    Steady {
        slowed,
        scenario,
        state,
        first,
        after,
        rounds,
        settled,
    }
}

/// The limits of a slow scenario settled: starting from `state` (of
/// `scenario`) and its concurrency `after`, the ceilings and admitted
/// shares they give are put into the scenario, its state and concurrency
/// computed again (what a held-back pool passes on and what a bulkhead
/// refuses no longer reach the pools below), until the limits stop
/// changing, at most [`SETTLE_ROUNDS`] times. Returns the limits (a scenario
/// of ceilings and admitted shares only), the state of `scenario` with
/// the limits before the last, and its concurrency, from which the limits
/// were read.
fn settle(
    model: &Model,
    (flow, plan): (&Flow, &Plan),
    scenario: &Scenario,
    (slowed, base): (&Slowed, Option<&Concurrency>),
    (mut state, mut after): (State, Concurrency),
) -> (Scenario, State, Concurrency, usize) {
    let mut limits = held_back(model, &state, &after, None);
    let mut rounds = 0;
    for _round in 0..SETTLE_ROUNDS {
        rounds += 1;
        if limits.admitted.is_empty() && limits.ceilings.is_empty() {
            break;
        }
        let next_state = State::new(model, flow, &scenario.and(&limits));
        let next_after = concurrency(model, plan, &next_state, slowed, base);
        let next = held_back(model, &next_state, &next_after, Some(&limits));
        state = next_state;
        after = next_after;
        let settled = same_limits(&next, &limits);
        limits = next;
        if settled {
            break;
        }
    }
    (limits, state, after, rounds)
}

/// The ceilings and admitted shares `concurrency` (computed in `state`)
/// gives, as a scenario of those alone. With the shares of the round
/// before (`was`), a limit never admits more than it did then: what it
/// refused at the fuller load stays refused (the steady state reached
/// from the slowness's start; a round that relieves a target cannot flip
/// it back), and the ceiling of its caller counts the share kept.
fn held_back(
    model: &Model,
    state: &State,
    concurrency: &Concurrency,
    was: Option<&Scenario>,
) -> Scenario {
    // Keyed maps: a wide fan-out has as many shares as edges.
    let mut admitted: BTreeMap<(ComponentId, usize), f64> = model
        .component_ids()
        .filter(|&id| state.of(id).running)
        .flat_map(|id| {
            concurrency
                .edges_of(id)
                .iter()
                .filter(|e| e.admitted < 1.0 - 1e-12)
                .map(move |e| ((id, e.edge), e.admitted))
        })
        .collect();
    // Per caller, what its ceiling's share is cut by where a share kept
    // from before is below this round's.
    let mut cut = vec![1.0_f64; model.components.len()];
    for &(c, e, before) in was.map_or(&[][..], |w| &w.admitted[..]) {
        let now = concurrency.edge(c, e).admitted;
        if before < now {
            admitted.insert((c, e), before);
            if !model.component(c).depends_on[e].degradable && now > 0.0 {
                cut[c.0] *= before / now;
            }
        }
    }
    let mut ceilings: BTreeMap<ComponentId, Ceiling> =
        ceilings(model, state, concurrency).into_iter().collect();
    for id in model
        .component_ids()
        .filter(|&id| cut[id.0] < 1.0 && state.of(id).running)
    {
        let offered = state.of(id).offered.unwrap_or(0.0);
        ceilings
            .entry(id)
            .and_modify(|ceiling| ceiling.serves *= cut[id.0])
            .or_insert(Ceiling {
                serves: concurrency.local_share(model, id) * cut[id.0] * offered,
                admits: concurrency.of(id).share * offered,
            });
    }
    // Nor does a pool serve or take in more than it did the round before:
    // what fails as the slowness starts stays failed.
    for &(id, before) in was.map_or(&[][..], |w| &w.ceilings[..]) {
        ceilings
            .entry(id)
            .and_modify(|now| {
                now.serves = now.serves.min(before.serves);
                now.admits = now.admits.min(before.admits);
            })
            .or_insert(before);
    }
    let ceilings: Vec<(ComponentId, Ceiling)> = ceilings.into_iter().collect();
    let admitted: Vec<(ComponentId, usize, f64)> = admitted
        .into_iter()
        .map(|((c, e), share)| (c, e, share))
        .collect();
    Scenario {
        ceilings,
        admitted,
        ..Scenario::default()
    }
}

/// Whether two sets of limits are the same, to 1e-12 of each figure.
fn same_limits(a: &Scenario, b: &Scenario) -> bool {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0);
    a.ceilings.len() == b.ceilings.len()
        && a.admitted.len() == b.admitted.len()
        && a.ceilings.iter().zip(&b.ceilings).all(|((i, x), (j, y))| {
            i == j && close(x.serves, y.serves) && close(x.admits, y.admits)
        })
        && a.admitted
            .iter()
            .zip(&b.admitted)
            .all(|(&(i, e, x), &(j, f, y))| i == j && e == f && close(x, y))
}

/// The concurrency ceiling of every running component that does not serve
/// all it is offered in `concurrency` (computed in `state`), in model
/// order: it serves its offered load times the share it serves on its own
/// account (`workers / time held` a second when its pool is saturated, less
/// what its bulkheads refuse; 0 when its calls fail or hang), and takes in
/// its offered load times its pool's share.
#[must_use]
pub fn ceilings(
    model: &Model,
    state: &State,
    concurrency: &Concurrency,
) -> Vec<(ComponentId, Ceiling)> {
    model
        .component_ids()
        .filter(|&id| state.of(id).running)
        .filter_map(|id| {
            let local = concurrency.local_share(model, id);
            let offered = state.of(id).offered.unwrap_or(0.0);
            (local < 1.0 - 1e-12).then(|| {
                (
                    id,
                    Ceiling {
                        serves: local * offered,
                        admits: concurrency.of(id).share * offered,
                    },
                )
            })
        })
        .collect()
}

/// The entrypoints that serve less with the slowness (in `state`, the
/// slow scenario's) than at normal latency (the scenario's own state, with
/// the ceilings of any pool saturated even then).
fn losses(
    model: &Model,
    plan: &Plan,
    (flow, before): (&Flow, &Before),
    state: &State,
    slowed: &Slowed,
) -> Vec<(ComponentId, f64, f64, Reach)> {
    let computed;
    let was_state = if let Some(state) = before.steady {
        state
    } else {
        computed = steady_normal(model, (flow, plan), before);
        &computed
    };
    let slow: Vec<ComponentId> = slowed.components.iter().map(|&(c, _)| c).collect();
    let needs = upstream(model, plan, &slow, true);
    let calls = upstream(model, plan, &slow, false);
    let mut out = Vec::new();
    let was_shares = was_state.served_shares(model, &model.entrypoints);
    let now_shares = state.served_shares(model, &model.entrypoints);
    for ((&e, was), now) in model.entrypoints.iter().zip(was_shares).zip(now_shares) {
        if now < was - 1e-9 {
            let reach = if needs[e.0] {
                Reach::Required
            } else if calls[e.0] {
                Reach::Degradable
            } else {
                Reach::Never
            };
            out.push((e, was, now, reach));
        }
    }
    out
}

/// Every component that reaches one of `from` (itself included) through
/// calls, only required ones when `required`.
pub fn upstream(model: &Model, plan: &Plan, from: &[ComponentId], required: bool) -> Vec<bool> {
    let mut seen = vec![false; model.components.len()];
    let mut stack: Vec<ComponentId> = from.to_vec();
    for c in from {
        seen[c.0] = true;
    }
    while let Some(c) = stack.pop() {
        for &(caller, e) in &plan.order().inbound[c.0] {
            if required && model.component(caller).depends_on[e].degradable {
                continue;
            }
            if !std::mem::replace(&mut seen[caller.0], true) {
                stack.push(caller);
            }
        }
    }
    seen
}

/// Which components `check` judges hanging (`policy.slow`): every one
/// (`true`), none (`false`), or by default those some caller calls without
/// a `timeout`; only those a pool can feel (a component with `workers` or
/// an edge limit, and what it calls, directly or not), in model order.
#[must_use]
pub fn credible(model: &Model, plan: &Plan) -> Vec<ComponentId> {
    if model.policy.slow == Some(false) || !plan.has_pools() {
        return Vec::new();
    }
    let pooled: Vec<ComponentId> = model
        .component_ids()
        .filter(|&c| {
            let c = model.component(c);
            c.workers.is_some()
                || c.depends_on
                    .iter()
                    .any(|e| e.limits.as_ref().is_some_and(|l| l.limit().is_some()))
        })
        .collect();
    let mut felt = downstream(model, &pooled);
    for c in &pooled {
        felt[c.0] = true;
    }
    let untimed = if model.policy.slow == Some(true) {
        vec![true; model.components.len()]
    } else {
        let mut untimed = vec![false; model.components.len()];
        for (_, target, edge) in crate::model::graph::calls(model) {
            if edge.timeout.is_none() {
                untimed[target.0] = true;
            }
        }
        untimed
    };
    model
        .component_ids()
        .filter(|c| untimed[c.0] && felt[c.0])
        .collect()
}

/// Every component `from` call (not themselves, unless a cycle leads back).
fn downstream(model: &Model, from: &[ComponentId]) -> Vec<bool> {
    let mut seen = vec![false; model.components.len()];
    let mut stack: Vec<ComponentId> = from.to_vec();
    while let Some(c) = stack.pop() {
        for edge in &model.component(c).depends_on {
            for &t in &edge.targets {
                if !std::mem::replace(&mut seen[t.0], true) {
                    stack.push(t);
                }
            }
        }
    }
    seen
}

/// The rows of a judged slowness: the pools whose in-flight count changed
/// as they fill (with `all`, every component's, pool or not, and every
/// component held longer), the drained ones and the entrypoints that lose
/// service.
#[must_use]
pub fn event(model: &Model, judged: &Judged, all: bool) -> SlowEvent {
    let name = |c: ComponentId| model.component(c).name.clone();
    let mut slow: Vec<(ComponentId, Slowness)> = judged.slowed.components.clone();
    slow.sort_by_key(|&(c, _)| c);
    let mut pools = Vec::new();
    for id in model.component_ids() {
        if let Some(row) = component_row(model, judged, id, all) {
            pools.push(row);
        }
        for (at, edge) in model.component(id).depends_on.iter().enumerate() {
            if let Some(row) = edge_row(model, judged, (id, at, edge)) {
                pools.push(row);
            }
        }
    }
    SlowEvent {
        slow: slow
            .iter()
            .map(|&(c, s)| SlowedRow {
                component: name(c),
                latency_s: match s {
                    Slowness::Latency(d) => Some(d.seconds()),
                    Slowness::Hang => None,
                },
            })
            .collect(),
        pools,
        drained: judged.slowed.drained.iter().map(|&c| name(c)).collect(),
        lose_service: judged
            .losses
            .iter()
            .map(|&(e, before, after, reach)| ServiceLoss {
                entrypoint: name(e),
                served_before: before,
                served_after: after,
                calls: reach.as_str(),
            })
            .collect(),
    }
}

/// The row of a component's pool as it fills, when it changed.
fn component_row(model: &Model, judged: &Judged, id: ComponentId, all: bool) -> Option<PoolChange> {
    let after = &judged.first;
    let (b, a) = (judged.base.of(id), after.of(id));
    let changed = !same(b.in_flight, a.in_flight) || a.saturated != b.saturated;
    // A what-if lists every component held longer, even one whose load
    // nothing says (its in flight is then 0 before and after).
    let longer = all && !same(b.held, a.held);
    let loaded = a.arrival > 0.0 || b.arrival > 0.0;
    if !((changed && loaded && (all || a.workers.is_some())) || longer) {
        return None;
    }
    let grown: f64 = after
        .edges_of(id)
        .iter()
        .zip(judged.base.edges_of(id))
        .filter(|(a, b)| a.held > b.held * (1.0 + 1e-9))
        .map(|(a, _)| a.rate)
        .sum::<f64>()
        + if a.own > b.own { a.arrival } else { 0.0 };
    Some(PoolChange {
        component: model.component(id).name.clone(),
        target: None,
        size: a.workers,
        in_flight_before: b.in_flight,
        in_flight_after: finite(a.in_flight),
        held_before_s: b.held,
        held_after_s: finite(a.held),
        saturated: a.saturated,
        exhausted_in_s: exhaustion(a.workers, b.in_flight, a.saturated && !b.saturated, grown),
        served: a.share,
        ceiling: a.ceiling(),
        breaker_opens_in_s: None,
    })
}

/// The row of an edge's limit as it fills (or of an edge whose breaker
/// opens), when it changed.
fn edge_row(
    model: &Model,
    judged: &Judged,
    (id, at, edge): (ComponentId, usize, &crate::model::Edge),
) -> Option<PoolChange> {
    let (b, a) = (judged.base.edge(id, at), judged.first.edge(id, at));
    let changed = !same(b.in_flight, a.in_flight) || a.saturated != b.saturated;
    if !(a.breaker_open || (changed && a.limit.is_some())) {
        return None;
    }
    // The breaker opens once its window of calls has failed: the timeout,
    // and the time the window takes to arrive.
    let opens = a.breaker_open.then(|| {
        let window = edge
            .limits
            .as_ref()
            .and_then(|l| l.breaker)
            .map_or(0, |b| b.window);
        edge.timeout.map_or(0.0, crate::model::Duration::seconds)
            + if a.rate > 0.0 {
                f64::from(window) / a.rate
            } else {
                0.0
            }
    });
    #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
    let ceiling = a.limit.filter(|_| a.saturated).map(|l| {
        if a.held > 0.0 {
            l as f64 / a.held
        } else {
            f64::INFINITY
        }
    });
    Some(PoolChange {
        component: model.component(id).name.clone(),
        target: Some(model.component(edge.targets[0]).name.clone()),
        size: a.limit,
        in_flight_before: b.in_flight,
        in_flight_after: finite(a.in_flight),
        held_before_s: b.held,
        held_after_s: finite(a.held),
        saturated: a.saturated,
        exhausted_in_s: exhaustion(a.limit, b.in_flight, a.saturated && !b.saturated, a.rate),
        served: a.admitted,
        ceiling,
        breaker_opens_in_s: opens,
    })
}

/// Seconds until a pool of `size` that held `before` fills, at `rate` new
/// long-held calls a second: `(size − before) / rate`, 0 when it was full.
fn exhaustion(size: Option<u64>, before: f64, fills: bool, rate: f64) -> Option<f64> {
    #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
    let size = size? as f64;
    if !fills || rate <= 0.0 {
        return None;
    }
    Some(((size - before) / rate).max(0.0))
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn same(a: f64, b: f64) -> bool {
    // Two unbounded figures are the same; ∞ − ∞ would not say so.
    a.total_cmp(&b).is_eq() || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// The scenario's state and its concurrency at normal latency.
#[must_use]
pub fn normal(
    model: &Model,
    flow: &Flow,
    plan: &Plan,
    scenario: &Scenario,
) -> (State, Concurrency) {
    let state = State::new(model, flow, scenario);
    let base = concurrency(model, plan, &state, &Slowed::default(), None);
    (state, base)
}

/// The components a name slows: the component, or every component placed
/// in the domain (or in a domain inside it).
#[must_use]
pub fn slowed_by_name(model: &Model, name: &str) -> Option<Vec<ComponentId>> {
    if let Some(c) = model.components.iter().position(|c| c.name == name) {
        return Some(vec![ComponentId(c)]);
    }
    let d = model.domains.iter().position(|d| d.name == name)?;
    let d = crate::model::DomainId(d);
    Some(
        model
            .component_ids()
            .filter(|&c| {
                model
                    .component(c)
                    .placement
                    .iter()
                    .any(|&(p, _)| scenario::is_lost(model, p, &[d]))
            })
            .collect(),
    )
}

/// A time computed here, for messages, as every duration reads
/// ([`crate::human::duration`]): `160ms`, `30s`, `forever`.
#[must_use]
pub(crate) fn seconds(x: f64) -> String {
    crate::human::duration(x)
}

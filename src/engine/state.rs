//! The system in one scenario: how many instances of each component are up,
//! which components are up, and how much load reaches each one. This is the
//! one place where "what is up" and "how much load reaches whom" are
//! decided; `check` reads the state of the empty scenario, N-k headroom the
//! state of each loss, the cascade a sequence of states, `what-if` the
//! state of the scenario it is given, and the capacity-aware availability
//! figure the *settled* state of every combination of failures
//! ([`State::settle`], `docs/availability.md`).
//!
//! **What is up** is [`scenario::up`]: the greatest fixed point of the
//! required, `any_of` and `at_least` conditions, as in the availability
//! engine.
//!
//! **Load flow.** An edge carries `caller load × calls × (1 − hit_rate)`.
//! The hit rate is 0 when caches are cold or when the edge's `cached_by`
//! cache is not ok (not running, a required dependency of it down, or over
//! its capacity: a cache that fails its calls answers no hits). In the intact state a
//! component's load is its written `load`, or, when none is written, the
//! sum of what its callers send it (unknown when no caller has a known
//! load). In a scenario a component is offered its intact load plus the
//! change of its in-flows, in dependency order, never below 0.
//!
//! - An `any_of`/`at_least` edge sends its load to the targets that are
//!   *ok* (up and not over capacity; in a first pass, up), split evenly,
//!   or, when the edge has standbys (a `switchover`, [`Model::switchover`]),
//!   to the first `at_least` of them in order: a standby carries nothing
//!   until an active one is out. A target that is not ok but has a
//!   `failover_to` keeps its share, which its failover moves.
//! - A component that is not ok and has a `failover_to` hands its offered
//!   load to the first ok component along the chain, and sends nothing
//!   downstream. Without a running failover its load is unserved.
//! - A running component that is down only because a required dependency
//!   is down still takes its calls and makes its own (it fails them), so
//!   its flows continue. A component that is not running (too few
//!   instances, a fired group, collapsed under its load) sends nothing.
//! - A component with `load_shedding` passes on only what it serves (what
//!   its running instances carry); a `rate_limit` caps what it accepts and
//!   passes on, whatever its instances.
//! - A consumer's pull from a queue (`consumes`) adds nothing to the
//!   queue's load; a consumer below its input lags instead of collapsing.
//! - Cycles are cut: components are ordered depth-first from the first
//!   component in model order, and an edge that leads back to a component
//!   ordered before (or at) its caller carries its intact flow in every
//!   scenario. Failover moves are applied in rounds until they settle.
//!
//! **Capacity.** [`State::new`] is one pass: the loads as first offered,
//! and a [`Verdict`] per component (within its capacity, shedding,
//! lagging, or collapsing). [`State::settle`] then lets what is over its
//! capacity go: a component without load shedding collapses (serves and
//! sends nothing, its load moves as for a lost one), a shedding one stays
//! but is no longer *ok* (it serves a share), and every alternative that is
//! not ok is routed around, until nothing more changes; a verdict never
//! turns back (the greatest fixed point, as for cycles).
//!
//! **Concurrency ceilings.** In a slow scenario (`analyze::slow`,
//! docs/slow.md) a component whose pool the slowness saturates serves at
//! most `workers / time held` requests a second (less what its bulkheads
//! refuse; nothing when its calls fail or hang): the scenario's
//! `ceilings`. A ceiling counts as a `rate_limit` does: it caps what the
//! component serves ([`State::serving`]; [`State::limit`], which the rules
//! word as capacity, is left alone), past it the component sheds, and it
//! passes on only what its pool takes in (a call that then fails was still
//! made). In every state, slow or not, a component whose own pool serves
//! less than its capacity at normal latency ([`Flow::pools`],
//! `engine::throughput`) has the ceiling `workers / held × instances up`;
//! past it it sheds and never collapses (its pool bounds the work it
//! admits).

use std::sync::Arc;

use super::scenario::{self, Ceiling, Scenario};
use crate::model::graph::ComponentGraph;
use crate::model::intact::{self, DependencyOrder, carried, intact_share, passed};
use crate::model::{ComponentId, Edge, EdgeKind, Model};

/// What is needed to compute any state of one model, built once: the
/// component graph, the dependency order, who calls whom, and the intact
/// loads.
#[derive(Debug, Clone)]
pub struct Flow {
    /// The component graph.
    graph: ComponentGraph,
    /// The dependency order (callers first) and the edges into each component.
    order: DependencyOrder,
    /// Callers through required edges (for the fixed point of what is up).
    callers: Arc<scenario::Callers>,
    /// The intact load of each component, when known.
    intact: Vec<Option<f64>>,
    /// What each component passes on in the intact state (its intact load,
    /// less what it sheds or its rate limit refuses).
    intact_passed: Vec<Option<f64>>,
    /// Per component, what its own request pool serves per instance at
    /// normal latency where that is below its capacity
    /// ([`super::throughput`]), with its intact offered load; empty without
    /// pools.
    pools: Arc<Vec<Option<super::throughput::PoolLimit>>>,
    /// Per component, whether its being ok moves load: a cache, an
    /// alternative of an `any_of`/`at_least` edge, a `failover_to` source
    /// or target (what the routing of [`State::pass`] reads `ok` of).
    movers: Arc<Vec<bool>>,
    /// [`flag_readers`], worked out when a state first settles.
    readers: Arc<std::sync::OnceLock<Vec<Vec<ComponentId>>>>,
}

/// What the last [`State::offer`] of a state read: what each component
/// passed on, who was ok, up and running, and what failed over into each,
/// and the scenario-wide terms every load reads (`key`).
#[derive(Debug, Default)]
struct Track {
    passing: Vec<f64>,
    flags: Vec<u8>,
    failover_in: Vec<f64>,
    key: Key,
}

/// What every load of a state reads beside its callers and routing: the
/// load factor, cold caches, and whether an edge limit admits less than
/// all (a record taken under other terms says nothing of this state).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Key {
    factor: u64,
    cold: bool,
    admitted: bool,
}

/// The record of a state's last offer ([`Track`]), kept so that the next
/// offer (a settle round, or a state built from this one by
/// [`State::after`]) works out only what changed. A memo, not part of the
/// state's value: states that differ only in it are equal, and it prints
/// as `_`.
#[derive(Clone, Default)]
struct Tracked(Option<Arc<Track>>);

impl std::fmt::Debug for Tracked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("_")
    }
}

impl PartialEq for Tracked {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Track {
    /// Ok, up and running, the flags routing reads, and whether its load
    /// moved to a failover (which what it passes on reads), as bits.
    fn flags(c: &ComponentState, handed: bool) -> u8 {
        u8::from(c.ok)
            | (u8::from(c.up) << 1)
            | (u8::from(c.running) << 2)
            | (u8::from(handed) << 3)
    }

    /// A bit no state's flags have: set in a record where a component
    /// changed in a way the record does not hold (its instances up, its
    /// ceiling), so that it is worked out again.
    const STALE: u8 = 1 << 7;
}

/// Per component, who reads its flags (ok, up, running) when their load
/// is worked out: every target of an `any_of`/`at_least` edge it is an
/// alternative of, and of an edge it is the cache of.
fn flag_readers(model: &Model) -> Vec<Vec<ComponentId>> {
    let mut readers: Vec<Vec<ComponentId>> = vec![Vec::new(); model.components.len()];
    for c in &model.components {
        for edge in &c.depends_on {
            if edge.kind != EdgeKind::Target {
                for &alternative in &edge.targets {
                    readers[alternative.0].extend_from_slice(&edge.targets);
                }
            }
            if let Some(cache) = edge.cached_by {
                readers[cache.0].extend_from_slice(&edge.targets);
            }
        }
    }
    for r in &mut readers {
        r.sort_unstable();
        r.dedup();
    }
    readers
}

/// Marks what `id` calls to be worked out again (its passing moved).
fn mark_targets(model: &Model, id: ComponentId, dirty: &mut [bool]) {
    for edge in &model.component(id).depends_on {
        for t in &edge.targets {
            dirty[t.0] = true;
        }
    }
}

/// Whether what runs changed since `up` was last worked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ran {
    /// `up` was never worked out (a state fresh from [`State::new`]).
    First,
    /// Some components stopped running since.
    Changed,
    /// Nothing stopped running since.
    Same,
}

impl Flow {
    /// The graph, the order, the edges into each component and the intact
    /// loads.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let graph = ComponentGraph::new(model);
        let order = DependencyOrder::new(&graph);
        let intact = intact::loads(model, &order);
        let intact_passed = passed_on(model, &intact);
        let mut flow = Self {
            graph,
            order,
            callers: Arc::new(scenario::callers(model)),
            intact,
            intact_passed,
            pools: Arc::new(Vec::new()),
            movers: Arc::new(intact::movers(model)),
            readers: Arc::default(),
        };
        if super::concurrency::has_pools(model) {
            // Read off the intact state without them (the time each
            // request holds a worker), then kept for every state. The
            // intact loads are then the figures' copy's: what a pool
            // passes on is what it takes in (a written load stays as
            // written).
            let pools = super::throughput::throughputs(model, &flow);
            if pools.iter().any(Option::is_some) {
                let mut counted = model.clone();
                super::throughput::counted(&mut counted, &pools);
                flow.intact = intact::loads(&counted, &flow.order);
                flow.intact_passed = passed_on(&counted, &flow.intact);
            }
            flow.pools = Arc::new(pools);
        }
        flow
    }

    /// Per component, what its pool lets it serve per instance at normal
    /// latency, where that is below its capacity (empty without pools).
    #[must_use]
    pub fn pools(&self) -> &[Option<super::throughput::PoolLimit>] {
        &self.pools
    }

    /// Who calls each component through a required edge, shared with the
    /// [`Baseline`](scenario::Baseline)s built from this flow.
    #[must_use]
    pub fn callers(&self) -> &Arc<scenario::Callers> {
        &self.callers
    }

    /// The component graph of the model.
    #[must_use]
    pub fn graph(&self) -> &ComponentGraph {
        &self.graph
    }

    /// The intact load of every component (`None`: nothing says).
    #[must_use]
    pub fn intact_loads(&self) -> &[Option<f64>] {
        &self.intact
    }

    /// What every component passes on in the intact state (`None`:
    /// nothing says): its intact load less what it sheds, its rate limit
    /// refuses or its pool does not take in.
    #[must_use]
    pub fn intact_passed(&self) -> &[Option<f64>] {
        &self.intact_passed
    }

    /// The dependency order and the edges into each component.
    #[must_use]
    pub fn order(&self) -> &DependencyOrder {
        &self.order
    }
}

/// What holds a component below what its instances carry by their
/// capacity in a state ([`State::bound`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// Its own request pool, full: `workers` per instance, each request
    /// holding one `held` seconds (an instance serves `workers / held` a
    /// second), at normal latency or as a slowness holds it.
    Pool {
        /// Workers per instance.
        workers: u32,
        /// Seconds a request holds a worker.
        held: f64,
    },
    /// In a slow scenario, the limits of its edges (`pool`, `connections`):
    /// they refuse the calls past them and its requests that need those
    /// calls fail at once, while its own pool is not full.
    Bulkheads,
    /// In a slow scenario, calls it needs fail (every attempt outlasts its
    /// timeout) or never return, while its own pool is not full: it serves
    /// nothing, whatever its pool and bulkheads.
    Failing,
}

/// How a component stands against its capacity in a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Its running instances (and rate limit) carry what it is offered, or
    /// nothing says (no capacity figures, load unknown).
    Within,
    /// Over capacity with `load_shedding` or over its `rate_limit`: it
    /// serves what it can and refuses the rest.
    Shedding,
    /// A consumer below its input: it falls behind, the backlog grows.
    Lagging,
    /// Over capacity without load shedding: it collapses.
    Collapsing,
}

/// One component in one state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ComponentState {
    /// Instances up.
    pub instances_up: u32,
    /// Whether enough instances are up for it to run on its own (and, once
    /// settled, it has not collapsed under its load).
    pub running: bool,
    /// Whether it is up: running, and every required dependency up.
    pub up: bool,
    /// Whether it is *ok*: up, within its capacity, and every required
    /// dependency ok: it serves all it is offered.
    pub ok: bool,
    /// Load that reaches it (for a component that is not running, the load
    /// that moves to its failover or is lost); `None` when nothing says.
    pub offered: Option<f64>,
    /// How it stands against its capacity.
    pub verdict: Verdict,
}

/// The system in one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// Per component, in model order.
    pub components: Vec<ComponentState>,
    /// Load no running component serves: offered to components that are
    /// not running and have no running failover.
    pub unserved: f64,
    /// Failover moves: (from, to, load).
    pub moves: Vec<(ComponentId, ComponentId, f64)>,
    /// Whether every cache is cold in this state.
    cold: bool,
    /// Factor on every written load.
    factor: f64,
    /// Whether the state has been settled.
    settled: bool,
    /// Per component, whether its load moved to a failover in the last
    /// pass (it then passes nothing on).
    handed: Vec<bool>,
    /// Per component, its concurrency ceiling (its own pool's, from
    /// `Flow::pools`, and the scenario's `ceilings`, the lower); empty when
    /// there are none.
    ceilings: Vec<Option<Ceiling>>,
    /// Per component, whether its own request pool serves less than its
    /// capacity (`Flow::pools`): the work it admits never exceeds its
    /// capacity, so past its pool it sheds and never collapses; empty
    /// without pools.
    pooled: Vec<bool>,
    /// Whether the scenario holds pools back (a slow scenario's ceilings).
    slowed: bool,
    /// Per caller, per edge, the share of its calls the edge's limit
    /// admits (the scenario's `admitted`); empty when the scenario has none.
    admitted: Vec<Vec<f64>>,
    /// The record of the last offer.
    track: Tracked,
}

impl State {
    /// The state of `model` in `scenario`: one pass of the load flow and
    /// the verdict of each component on the loads as first offered.
    #[must_use]
    pub fn new(model: &Model, flow: &Flow, scenario: &Scenario) -> Self {
        Self::unworked(model, flow, scenario).worked_out(model, flow, Ran::First, true)
    }

    /// [`State::new`] with every load, and who is up and ok, worked out
    /// over the whole model: the reference the tests hold [`State::new`]
    /// and [`State::after`] to.
    #[doc(hidden)]
    #[must_use]
    pub fn new_recomputing_everything(model: &Model, flow: &Flow, scenario: &Scenario) -> Self {
        Self::unworked(model, flow, scenario).worked_out(model, flow, Ran::First, false)
    }

    /// The state of `scenario` that [`State::new`] gives, worked out from
    /// `base`, a state of the same model and flow (the intact one, say):
    /// where `base` ran everything the scenario runs and read its loads
    /// under the same load factor, cold caches and edge limits, only the
    /// loads the scenario's changes reach are worked out again (what runs,
    /// who is up and ok, what each component passes on; see
    /// [`State::offer`]), and what is up is worked out upward from what
    /// stopped running. Otherwise it is [`State::new`].
    #[must_use]
    pub fn after(model: &Model, flow: &Flow, base: &State, scenario: &Scenario) -> Self {
        let mut state = Self::unworked(model, flow, scenario);
        // The shares its edge limits admit change what a caller sends, not
        // what it passes on, so no record shows them: a base read under
        // other shares is of no use.
        let record = base.track.0.as_deref().filter(|_| {
            base.components.len() == state.components.len()
                && base.admitted == state.admitted
                && state
                    .components
                    .iter()
                    .zip(&base.components)
                    .all(|(c, b)| b.running || !c.running)
        });
        let Some(t) = record else {
            return state.worked_out(model, flow, Ran::First, true);
        };
        let before: Vec<bool> = base.components.iter().map(|c| c.up).collect();
        let running: Vec<bool> = state.components.iter().map(|c| c.running).collect();
        let up = scenario::up_given_from(model, &flow.callers, &before, running);
        for ((c, b), up) in state.components.iter_mut().zip(&base.components).zip(up) {
            c.up = up;
            c.ok = c.running && up;
            c.offered = b.offered;
            c.verdict = b.verdict;
        }
        // The record holds what each component passed on with the base's
        // instances up and ceiling: where those differ it is stale.
        let mut flags = t.flags.clone();
        for (i, (c, b)) in state.components.iter().zip(&base.components).enumerate() {
            let id = ComponentId(i);
            if c.instances_up != b.instances_up || state.ceiling(id) != base.ceiling(id) {
                flags[i] |= Track::STALE;
            }
        }
        state.track = Tracked(Some(Arc::new(Track {
            passing: t.passing.clone(),
            flags,
            failover_in: t.failover_in.clone(),
            key: t.key,
        })));
        state.worked_out(model, flow, Ran::Same, true)
    }

    /// One pass of the load flow (`ran`: whether `up` is to be worked out
    /// whole), the verdicts of what it touched, and who is ok, upward of
    /// what is up but not within (`tracked`) or over the whole model.
    fn worked_out(mut self, model: &Model, flow: &Flow, ran: Ran, tracked: bool) -> Self {
        let touched = self.pass(model, flow, ran, tracked);
        self.judge(model, touched.as_deref());
        if tracked {
            let up: Vec<bool> = self.components.iter().map(|c| c.up).collect();
            self.ok_fixed_point(model, flow, Some(&up));
        } else {
            self.ok_fixed_point(model, flow, None);
        }
        self
    }

    /// This state without the record of its last offer (17 bytes per
    /// component), for a state kept to be read and never built on: a
    /// settle or [`State::after`] from it then works out every load once.
    #[must_use]
    pub fn without_record(mut self) -> Self {
        self.track = Tracked::default();
        self
    }

    /// The components of `scenario` (instances up, running) with nothing
    /// worked out yet, and the scenario's ceilings and admitted shares.
    fn unworked(model: &Model, flow: &Flow, scenario: &Scenario) -> Self {
        let failed = scenario::failed_per_component(model, scenario);
        let components: Vec<ComponentState> = model
            .component_ids()
            .map(|id| {
                let instances_up =
                    scenario::instances_up_failing(model, id, scenario, failed[id.0]);
                let running = scenario::survives_with(model, id, scenario, instances_up);
                ComponentState {
                    instances_up,
                    running,
                    up: false,
                    ok: running,
                    offered: None,
                    verdict: Verdict::Within,
                }
            })
            .collect();
        let mut state = Self {
            components,
            unserved: 0.0,
            moves: Vec::new(),
            cold: scenario.cold,
            factor: scenario.load_factor,
            settled: false,
            handed: vec![false; model.components.len()],
            ceilings: Vec::new(),
            pooled: flow.pools().iter().map(Option::is_some).collect(),
            slowed: !scenario.ceilings.is_empty(),
            admitted: admitted(model, scenario),
            track: Tracked::default(),
        };
        state.ceilings = ceilings(model, scenario, flow.pools(), &state.components);
        state
    }

    /// The intact state: nothing lost, load as written.
    #[must_use]
    pub fn intact(model: &Model, flow: &Flow) -> Self {
        Self::new(model, flow, &Scenario::default())
    }

    /// The settled state: what is over its capacity goes (a component
    /// without load shedding collapses, a shedding one is routed around
    /// where it has alternatives) and the load flow is computed again,
    /// until nothing more changes. At most one round per component.
    #[must_use]
    pub fn settle(self, model: &Model, flow: &Flow) -> Self {
        self.settle_with(model, flow, true)
    }

    /// [`State::settle`] with every offer working out every component's
    /// load again: the reference the tests hold the tracked offers to.
    #[doc(hidden)]
    #[must_use]
    pub fn settle_recomputing_everything(self, model: &Model, flow: &Flow) -> Self {
        self.settle_with(model, flow, false)
    }

    fn settle_with(mut self, model: &Model, flow: &Flow, tracked: bool) -> Self {
        // A state fresh from `new` routed its one pass on `ok` = running
        // and up. When nothing collapses and every component whose `ok`
        // routing reads is still ok exactly where it was then, a pass
        // again gives the same loads, verdicts and `ok`: it is settled.
        if !self.settled
            && self
                .components
                .iter()
                .zip(flow.movers.iter())
                .all(|(c, &mover)| {
                    !(c.running && c.verdict == Verdict::Collapsing)
                        && (!mover || c.ok == (c.running && c.up))
                })
        {
            self.settled = true;
            return self;
        }
        for _round in 0..=model.components.len() {
            let mut changed = false;
            for c in &mut self.components {
                if c.running && c.verdict == Verdict::Collapsing {
                    c.running = false;
                    changed = true;
                }
            }
            // `ok` already carries every verdict: re-route on it.
            let before: Vec<bool> = self.components.iter().map(|c| c.ok).collect();
            let ran = if changed { Ran::Changed } else { Ran::Same };
            let touched = self.pass(model, flow, ran, tracked);
            self.judge(model, touched.as_deref());
            // What was ok is closed and holds all that can be ok now.
            self.ok_fixed_point(model, flow, tracked.then_some(before.as_slice()));
            for (c, was) in self.components.iter_mut().zip(&before) {
                // A verdict never turns back: what was not ok stays so.
                if !was && c.ok {
                    c.ok = false;
                }
            }
            let after: Vec<bool> = self.components.iter().map(|c| c.ok).collect();
            changed |= before != after;
            if !changed {
                break;
            }
        }
        self.settled = true;
        self
    }

    /// Whether [`State::settle`] has run.
    #[must_use]
    pub fn is_settled(&self) -> bool {
        self.settled
    }

    /// One component's state.
    #[must_use]
    pub fn of(&self, id: ComponentId) -> &ComponentState {
        &self.components[id.0]
    }

    /// The load a component carries: what reaches it while it is up, 0 when
    /// it is down; `None` when nothing says.
    #[must_use]
    pub fn load(&self, id: ComponentId) -> Option<f64> {
        let c = self.of(id);
        if c.up {
            c.offered
        } else {
            c.offered.map(|_| 0.0)
        }
    }

    /// What the instances up can carry, for a component with `capacity`.
    #[must_use]
    pub fn capacity(&self, model: &Model, id: ComponentId) -> Option<f64> {
        let cap = model.component(id).capacity?;
        Some(f64::from(self.of(id).instances_up) * cap.per_instance)
    }

    /// The most a component can serve in this state: its running
    /// instances' capacity, capped by its `rate_limit`; `None` when it has
    /// neither. (A concurrency ceiling caps it further: [`State::serving`].)
    #[must_use]
    pub fn limit(&self, model: &Model, id: ComponentId) -> Option<f64> {
        let c = model.component(id);
        match (self.capacity(model, id), c.rate_limit) {
            (Some(cap), Some(limit)) => Some(cap.min(limit)),
            (cap, limit) => cap.or(limit),
        }
    }

    /// The most a component serves in this state: [`State::limit`], and its
    /// concurrency ceiling's `serves` (its pool's, or a slow scenario's).
    #[must_use]
    pub fn serving(&self, model: &Model, id: ComponentId) -> Option<f64> {
        let ceiling = self.ceiling(id).map(|c| c.serves);
        match (self.limit(model, id), ceiling) {
            (Some(limit), Some(ceiling)) => Some(limit.min(ceiling)),
            (limit, ceiling) => limit.or(ceiling),
        }
    }

    /// What holds `id` below what its instances carry by their capacity in
    /// this state, with what one instance of it then serves a second;
    /// `None` where its capacity is what binds (or nothing does), or none
    /// of its instances is up. At normal latency that is its own pool where
    /// it serves less than the capacity ([`Flow::pools`]); in a slow
    /// scenario, its ceiling where that is below the capacity: its own
    /// pool when the pool is full (it admits less than it is offered), else
    /// its calls that fail where it serves nothing, else its bulkheads.
    /// The one reading of it for every rule and command (`headroom`,
    /// `experiments`).
    #[must_use]
    pub fn bound(&self, model: &Model, flow: &Flow, id: ComponentId) -> Option<(f64, Bound)> {
        let c = model.component(id);
        let up = self.of(id).instances_up;
        if up == 0 {
            return None;
        }
        let own = flow.pools().get(id.0).copied().flatten();
        if self.slowed
            && let Some(ceiling) = self.ceiling(id)
            // Held below what its own pool serves at normal latency: a
            // component the slowness does not reach keeps that reading.
            && own.is_none_or(|pool| {
                ceiling.serves < pool.per_instance * f64::from(up) * (1.0 - 1e-9)
            })
        {
            let per = ceiling.serves / f64::from(up);
            if c.capacity.is_none_or(|cap| per < cap.per_instance) {
                // A time held only where its own pool is full: a
                // bulkhead's refusals cut what it serves (each instance's
                // slots) without holding its workers longer.
                let full = self
                    .of(id)
                    .offered
                    .is_some_and(|offered| ceiling.admits < offered * (1.0 - 1e-9));
                let bound = match c.workers {
                    Some(workers) if full => Bound::Pool {
                        workers,
                        held: f64::from(workers) / per,
                    },
                    _ if per <= 0.0 => Bound::Failing,
                    _ => Bound::Bulkheads,
                };
                return Some((per, bound));
            }
        }
        match (own, c.workers) {
            (Some(limit), Some(workers)) => Some((
                limit.per_instance,
                Bound::Pool {
                    workers,
                    held: f64::from(workers) / limit.per_instance,
                },
            )),
            _ => None,
        }
    }

    /// A component's concurrency ceiling in this state (docs/slow.md): what
    /// its pool (or a slowness holding it back) lets it serve and take in a
    /// second; `None` without one.
    #[must_use]
    pub fn ceiling(&self, id: ComponentId) -> Option<Ceiling> {
        self.ceilings.get(id.0).copied().flatten()
    }

    /// Offered load over the capacity of the instances up, for a running
    /// component with capacity and a known load (infinite when no capacity
    /// is left for a positive load).
    #[must_use]
    pub fn utilization(&self, model: &Model, id: ComponentId) -> Option<f64> {
        let c = self.of(id);
        if !c.running {
            return None;
        }
        let offered = c.offered?;
        let capacity = self.capacity(model, id)?;
        Some(if capacity > 0.0 {
            offered / capacity
        } else if offered > 0.0 {
            f64::INFINITY
        } else {
            0.0
        })
    }

    /// What a component passes on to its dependencies in this state:
    /// nothing when it is not running or its load moved to a failover,
    /// else its offered load less what it sheds or its rate limit refuses.
    #[must_use]
    pub fn passing(&self, model: &Model, id: ComponentId) -> f64 {
        let passed = self.passing_offered(model, id);
        self.ceiling(id)
            .map_or(passed, |ceiling| passed.min(ceiling.admits))
    }

    /// [`State::passing`] before a concurrency ceiling holds it back: what
    /// the component would pass on if its pool took in all it is offered.
    fn passing_offered(&self, model: &Model, id: ComponentId) -> f64 {
        let c = self.of(id);
        if !c.running || self.handed[id.0] {
            return 0.0;
        }
        c.offered
            .map_or(0.0, |l| passed(model.component(id), c.instances_up, l))
    }

    /// The capacity verdict of every running component on its offered
    /// load: of those `touched` (whose load, running, instances or
    /// ceiling may have changed since their verdict), or of all.
    fn judge(&mut self, model: &Model, touched: Option<&[bool]>) {
        for id in model.component_ids() {
            if touched.is_some_and(|t| !t[id.0]) {
                continue;
            }
            let verdict = self.verdict_of(model, id);
            self.components[id.0].verdict = verdict;
        }
    }

    fn verdict_of(&self, model: &Model, id: ComponentId) -> Verdict {
        let c = self.of(id);
        let component = model.component(id);
        let ceiling = self.ceiling(id).map(|c| c.serves);
        // A pool that serves nothing whatever it is offered (its calls fail
        // or hang): a ceiling of 0.
        let serves_nothing = c.running && ceiling == Some(0.0);
        let Some(offered) = c.offered.filter(|_| c.running) else {
            return if serves_nothing {
                Verdict::Shedding
            } else {
                Verdict::Within
            };
        };
        let pooled = self.pooled.get(id.0).copied().unwrap_or(false);
        let over_capacity = !pooled
            && self
                .capacity(model, id)
                .is_some_and(|cap| offered > cap * (1.0 + 1e-12));
        // A rate limit and a concurrency ceiling refuse what is past them
        // (a saturated pool serves `workers / time held` a second; its
        // other requests wait for a worker until their callers give up).
        let over_limit = serves_nothing
            || component
                .rate_limit
                .into_iter()
                .chain(ceiling)
                .any(|limit| offered > limit * (1.0 + 1e-12));
        if !over_capacity && !over_limit {
            Verdict::Within
        } else if component.depends_on.iter().any(|e| e.pull) {
            Verdict::Lagging
        } else if component.load_shedding || !over_capacity {
            Verdict::Shedding
        } else {
            Verdict::Collapsing
        }
    }

    /// Who is up (running, required dependencies up) and who is ok (up,
    /// within capacity, required dependencies ok). With `closed`, a set
    /// closed under the required edges that holds every component that can
    /// be ok now (what is up, or what was ok before a settle round), worked
    /// out upward from what it loses ([`scenario::up_given_from`]); else
    /// over the whole model.
    fn ok_fixed_point(&mut self, model: &Model, flow: &Flow, closed: Option<&[bool]>) {
        // What is up follows from what runs, which nothing changed since
        // the pass before it worked `up` out.
        let up: Vec<bool> = self.components.iter().map(|c| c.up).collect();
        let within: Vec<bool> = self
            .components
            .iter()
            .zip(&up)
            .map(|(c, &up)| up && c.ok && matches!(c.verdict, Verdict::Within | Verdict::Lagging))
            .collect();
        let ok = match closed {
            Some(closed) => scenario::up_given_from(model, &flow.callers, closed, within),
            None => scenario::up_given_with(model, &flow.callers, within),
        };
        for ((c, up), ok) in self.components.iter_mut().zip(up).zip(ok) {
            c.up = up;
            c.ok = ok;
        }
    }

    /// The offered loads, in dependency order, with failover moves applied
    /// in rounds until they stop changing (at most one round per
    /// component); routing reads who is up and ok from before the pass.
    ///
    /// Returns which components it may have changed (load, passing on,
    /// running; `None`: any of them), for [`State::judge`].
    fn pass(&mut self, model: &Model, flow: &Flow, ran: Ran, tracked: bool) -> Option<Vec<bool>> {
        // Routing reads `ok` as it stands: before the first pass that is
        // "running" (`new`) and what is up follows from it. Where nothing
        // stopped running since `up` was worked out, it stands (and `ok`
        // is within it); where some did, it is worked out upward from them
        // (`tracked`) or again over the whole model.
        if ran != Ran::Same {
            let running: Vec<bool> = self.components.iter().map(|c| c.running).collect();
            let up = if ran == Ran::Changed && tracked {
                let before: Vec<bool> = self.components.iter().map(|c| c.up).collect();
                scenario::up_given_from(model, &flow.callers, &before, running)
            } else {
                scenario::up_given_with(model, &flow.callers, running)
            };
            for (c, up) in self.components.iter_mut().zip(up) {
                c.up = up;
                c.ok &= up;
            }
        }
        let handed: Vec<bool> = model
            .component_ids()
            .map(|id| !self.of(id).ok && failover_target(model, self, id).is_some())
            .collect();
        self.handed = handed;
        let mut failover_in = vec![0.0_f64; model.components.len()];
        self.moves.clear();
        let mut touched = Some(vec![false; model.components.len()]);
        for _round in 0..=model.components.len() {
            let whole = !self.offer(model, flow, &failover_in, tracked, touched.as_deref_mut());
            if whole {
                touched = None;
            }
            let (next, moves, unserved) = self.failovers(model, flow);
            self.moves = moves;
            self.unserved = unserved;
            if next == failover_in {
                break;
            }
            failover_in = next;
        }
        touched
    }

    /// One pass over the dependency order. `tracked`: the pass is recorded
    /// ([`Track`]), and with the record of the offer before it (this
    /// state's, or the one [`State::after`] started from) taken under the
    /// same [`Key`], a component is worked out again only where what its
    /// load reads changed since: what a caller passes on, who is ok, up or
    /// running among an edge's alternatives and its cache, or what fails
    /// over into it (everything else the sum reads is in the key or the
    /// flow); the others keep their load, the same sum of the same terms,
    /// and what they pass on where their own flags are as they were.
    ///
    /// Marks in `touched` each component whose load or passing on was
    /// worked out again; returns false when there was no record to compare
    /// with (every one was).
    fn offer(
        &mut self,
        model: &Model,
        flow: &Flow,
        failover_in: &[f64],
        tracked: bool,
        mut touched: Option<&mut [bool]>,
    ) -> bool {
        let n = model.components.len();
        let flags: Vec<u8> = self
            .components
            .iter()
            .zip(&self.handed)
            .map(|(c, &handed)| Track::flags(c, handed))
            .collect();
        let key = Key {
            factor: self.factor.to_bits(),
            cold: self.cold,
            admitted: !self.admitted.is_empty(),
        };
        // The last offer's record, where there is one to compare with.
        let record = if tracked { self.track.0.take() } else { None };
        let last = record
            .as_deref()
            .filter(|t| t.passing.len() == n && t.key == key);
        // Who must be worked out again: the readers of every component
        // whose flags changed, and (as the order reaches them) the targets
        // of every component whose passing moved.
        let mut dirty = vec![false; if last.is_some() { n } else { 0 }];
        if let Some(t) = last {
            let readers = flow.readers.get_or_init(|| flag_readers(model));
            for (c, (a, b)) in flags.iter().zip(&t.flags).enumerate() {
                if a != b {
                    for r in &readers[c] {
                        dirty[r.0] = true;
                    }
                }
            }
        }
        let mut passing = vec![0.0; if tracked { n } else { 0 }];
        for &id in &flow.order.order {
            let unchanged = last.is_some_and(|t| {
                !dirty[id.0] && failover_in[id.0].to_bits() == t.failover_in[id.0].to_bits()
            });
            if !unchanged {
                self.components[id.0].offered = self.offered_now(model, flow, id, failover_in);
            }
            let kept = last.filter(|t| unchanged && flags[id.0] == t.flags[id.0]);
            if kept.is_none()
                && let Some(touched) = touched.as_deref_mut()
            {
                touched[id.0] = true;
            }
            if tracked {
                // Its load, running, handing over, instances and ceiling
                // as they were: it passes on what it did.
                let p = kept.map_or_else(|| self.passing(model, id), |t| t.passing[id.0]);
                if last.is_some_and(|t| p.to_bits() != t.passing[id.0].to_bits()) {
                    mark_targets(model, id, &mut dirty);
                }
                passing[id.0] = p;
            }
        }
        let compared = last.is_some();
        if tracked {
            self.track = Tracked(Some(Arc::new(Track {
                passing,
                flags,
                failover_in: failover_in.to_vec(),
                key,
            })));
        }
        compared
    }

    /// The load offered to `id` from its in-edges' change since the intact
    /// state and what fails over into it (`None`: nothing says).
    fn offered_now(
        &self,
        model: &Model,
        flow: &Flow,
        id: ComponentId,
        failover_in: &[f64],
    ) -> Option<f64> {
        let factor = self.factor;
        let base = flow.intact[id.0].map(|l| l * factor);
        let mut delta = 0.0;
        for &(caller, e) in &flow.order.inbound[id.0] {
            if flow.order.is_cut(caller, id) {
                continue;
            }
            let Some(intact_caller) = flow.intact_passed[caller.0] else {
                continue;
            };
            let edge = &model.component(caller).depends_on[e];
            let before = carried(intact_caller * factor, edge, edge.hit_rate)
                * intact_share(model, edge, id);
            let after = self.sent(model, caller, edge, id);
            // ∞ − ∞ (a flow that overflowed, before and now) is no
            // change, not NaN, which `max` below would turn into 0.
            let change = after - before;
            if !change.is_nan() {
                delta += change;
            }
        }
        let offered = base.map(|b| {
            let sum = b + delta + failover_in[id.0];
            // ∞ − ∞ between two changed flows: the load is beyond any
            // capacity either way.
            if sum.is_nan() {
                f64::INFINITY
            } else {
                sum.max(0.0)
            }
        });
        offered.or_else(|| (failover_in[id.0] > 0.0).then_some(failover_in[id.0]))
    }

    /// The flow over one edge in this state: what `caller` sends `target`
    /// over `edge`, `caller load × calls × (1 − hit rate)` and its share of
    /// an `any_of`/`at_least` edge; `None` when the caller's load is
    /// unknown. A caller that is not running sends nothing.
    #[must_use]
    pub fn edge_flow(
        &self,
        model: &Model,
        caller: ComponentId,
        edge: &Edge,
        target: ComponentId,
    ) -> Option<f64> {
        self.of(caller).offered?;
        Some(self.sent(model, caller, edge, target))
    }

    /// What `caller` would send `target` over `edge` in this state if
    /// neither its pool nor the edge's limit held any back
    /// ([`State::edge_flow`] before the scenario's ceilings and `admitted`
    /// shares): the calls its offered load makes, which hold its workers
    /// and meet the limit. `None` when the caller's load is unknown.
    #[must_use]
    pub fn offered_flow(
        &self,
        model: &Model,
        caller: ComponentId,
        edge: &Edge,
        target: ComponentId,
    ) -> Option<f64> {
        self.of(caller).offered?;
        let load = self.passing_offered(model, caller);
        Some(self.carried_to(load, model, edge, target))
    }

    /// The share of `edge`'s calls (an edge of `caller`) its limit admits
    /// in this state: 1 but in a slow scenario that says otherwise.
    #[must_use]
    pub fn admitted(&self, model: &Model, caller: ComponentId, edge: &Edge) -> f64 {
        let Some(shares) = self.admitted.get(caller.0).filter(|s| !s.is_empty()) else {
            return 1.0;
        };
        // The edge's index among its caller's, from its address: O(1)
        // where a search would be quadratic in a wide fan-out.
        let edges = &model.component(caller).depends_on;
        let size = std::mem::size_of::<Edge>().max(1);
        let offset =
            (std::ptr::from_ref::<Edge>(edge) as usize).wrapping_sub(edges.as_ptr() as usize);
        let at = offset / size;
        if offset.is_multiple_of(size)
            && at < edges.len()
            && std::ptr::eq(std::ptr::from_ref(&edges[at]), edge)
        {
            shares[at]
        } else {
            1.0
        }
    }

    /// What `caller` sends `target` over `edge` in this state: the calls
    /// offered, less what the edge's limit refuses (a refused call is not
    /// made).
    fn sent(&self, model: &Model, caller: ComponentId, edge: &Edge, target: ComponentId) -> f64 {
        let offered = self.offered_to(model, caller, edge, target);
        if self.admitted.is_empty() || offered == 0.0 {
            return offered;
        }
        offered * self.admitted(model, caller, edge)
    }

    /// What `caller` offers `target` over `edge` in this state.
    fn offered_to(
        &self,
        model: &Model,
        caller: ComponentId,
        edge: &Edge,
        target: ComponentId,
    ) -> f64 {
        self.carried_to(self.passing(model, caller), model, edge, target)
    }

    /// What `load` passed on by a caller sends `target` over `edge`.
    fn carried_to(&self, load: f64, model: &Model, edge: &Edge, target: ComponentId) -> f64 {
        if load == 0.0 {
            return 0.0;
        }
        let share = self.share(model, edge, target);
        if share == 0.0 {
            return 0.0;
        }
        // A cache that is not ok (down, or over its capacity) answers no
        // hits: its share reaches the store.
        let cache_lost = self.cold || edge.cached_by.is_some_and(|cache| !self.of(cache).ok);
        let hit_rate = if cache_lost { None } else { edge.hit_rate };
        carried(load, edge, hit_rate) * share
    }

    /// The share of an edge's flow that reaches `target` in this state.
    #[must_use]
    pub fn share(&self, model: &Model, edge: &Edge, target: ComponentId) -> f64 {
        match edge.kind {
            EdgeKind::Target => 1.0,
            EdgeKind::AnyOf | EdgeKind::AtLeast => {
                let routed = self.routed(model, edge);
                if !routed.contains(&target) {
                    return 0.0;
                }
                #[allow(
                    clippy::cast_precision_loss,
                    reason = "a handful of targets, exact in f64"
                )]
                let share = 1.0 / routed.len() as f64;
                share
            }
        }
    }

    /// The targets of an `any_of`/`at_least` edge that take its load in
    /// this state: those that are ok (a target that is not ok but has a
    /// `failover_to` keeps its share, which its failover moves), or, when
    /// fewer than `at_least` are, those that are up, or those that run; of
    /// those, all for hot alternatives, the first `at_least` when the edge
    /// has standbys.
    #[must_use]
    pub fn routed(&self, model: &Model, edge: &Edge) -> Vec<ComponentId> {
        let k = (edge.at_least as usize).max(1);
        let fails_over = |t: ComponentId| model.component(t).failover_to.is_some();
        let tiers: [&dyn Fn(ComponentId) -> bool; 3] = [
            &|t| self.of(t).ok || fails_over(t),
            &|t| self.of(t).up || fails_over(t),
            &|t| self.of(t).running || fails_over(t),
        ];
        let mut chosen: Vec<ComponentId> = Vec::new();
        for tier in tiers {
            chosen = edge.targets.iter().copied().filter(|&t| tier(t)).collect();
            if chosen.len() >= k {
                break;
            }
        }
        if model.switchover(edge).is_some() {
            chosen.truncate(k);
        }
        chosen
    }

    /// Where the load of each component that is not ok goes: the first
    /// component that is ok along its `failover_to` chain.
    fn failovers(
        &self,
        model: &Model,
        flow: &Flow,
    ) -> (Vec<f64>, Vec<(ComponentId, ComponentId, f64)>, f64) {
        let mut into = vec![0.0; model.components.len()];
        let mut moves = Vec::new();
        let mut unserved = 0.0;
        for id in model.component_ids() {
            let c = self.of(id);
            if c.ok || (c.running && c.up && model.component(id).failover_to.is_none()) {
                continue;
            }
            let Some(load) = c.offered.filter(|l| *l > 0.0) else {
                continue;
            };
            match failover_target(model, self, id) {
                Some(to) => {
                    into[to.0] += load;
                    moves.push((id, to, load));
                }
                // Calls over degradable edges only (a cache in front of a
                // store) fail over to the caller's own fallback path: the
                // flow already moved them, nothing is lost here.
                None if !c.running && needed(model, flow, id) => unserved += load,
                None => {}
            }
        }
        (into, moves, unserved)
    }

    /// The share of an entrypoint's requests served in this state (1 when
    /// it serves its whole load): each component serves what it is within
    /// capacity for (a shedding one `limit / offered`, a collapsed or lost
    /// one nothing, its failover's share when its load moved), times what
    /// its required edges serve (a target's share; an `any_of`/`at_least`
    /// edge, the average over the targets its load is routed to; nothing
    /// with fewer than `at_least` of them). Cycles count as served.
    #[must_use]
    pub fn served_share(&self, model: &Model, entrypoint: ComponentId) -> f64 {
        self.served_shares(model, &[entrypoint])[0]
    }

    /// [`State::served_share`] of each of `entrypoints`, in their order,
    /// in one walk of the model: a component's share is kept for every
    /// entrypoint after it when no cycle was cut below it (such a share is
    /// the same from any entrypoint), and for this entrypoint only when one
    /// was (where a cycle is cut depends on where the walk entered it).
    /// Each figure equals `served_share` of that entrypoint alone.
    #[must_use]
    pub fn served_shares(&self, model: &Model, entrypoints: &[ComponentId]) -> Vec<f64> {
        let n = model.components.len();
        let mut walk = ShareWalk {
            shared: vec![None; n],
            own: vec![None; n],
            owned: Vec::new(),
            open: vec![false; n],
            sharded: reaches_shards(model),
        };
        entrypoints
            .iter()
            .map(|&e| {
                let (s, _) = self.share_of(model, e, &mut walk);
                for i in walk.owned.drain(..) {
                    walk.own[i] = None;
                }
                s
            })
            .collect()
    }

    /// A component's served share and whether a cycle was cut below it.
    fn share_of(&self, model: &Model, id: ComponentId, walk: &mut ShareWalk) -> (f64, bool) {
        if let Some(s) = walk.shared[id.0] {
            return (s, false);
        }
        if let Some(s) = walk.own[id.0] {
            return (s, true);
        }
        if walk.open[id.0] {
            return (if self.of(id).up { 1.0 } else { 0.0 }, true);
        }
        walk.open[id.0] = true;
        let mut cut = false;
        let mut share = |t: ComponentId, walk: &mut ShareWalk| {
            let (s, c) = self.share_of(model, t, walk);
            cut |= c;
            s
        };
        let c = *self.of(id);
        // A component that reaches shards (edges for a share of the
        // requests) is down while one is, yet serves the other shards'
        // requests.
        let sharded = walk.sharded.get(id.0).copied().unwrap_or(false);
        let s = if c.ok {
            1.0
        } else if let Some(to) = failover_target(model, self, id).filter(|_| !c.ok) {
            share(to, walk)
        } else if !c.running || (!c.up && !sharded) {
            0.0
        } else {
            let own = match (c.verdict, c.offered, self.serving(model, id)) {
                (Verdict::Shedding, Some(offered), Some(limit)) if offered > 0.0 => {
                    (limit / offered).min(1.0)
                }
                // A ceiling of 0 (every call fails or hangs): nothing.
                (Verdict::Shedding, _, Some(limit)) if limit <= 0.0 => 0.0,
                (Verdict::Collapsing, ..) => 0.0,
                _ => 1.0,
            };
            let mut s = own;
            // The shards' part: each serves its share of the requests; the
            // rest of the requests need none of them.
            let (mut parted, mut partition) = (0.0, 0.0);
            for edge in model
                .component(id)
                .depends_on
                .iter()
                .filter(|e| !e.degradable)
            {
                if s == 0.0 {
                    break;
                }
                if let Some(part) = edge.share {
                    parted += part;
                    partition += part
                        * edge
                            .targets
                            .iter()
                            .map(|&t| share(t, walk))
                            .product::<f64>();
                    continue;
                }
                s *= match edge.kind {
                    EdgeKind::Target => edge
                        .targets
                        .iter()
                        .map(|&t| share(t, walk))
                        .product::<f64>(),
                    EdgeKind::AnyOf | EdgeKind::AtLeast => {
                        let routed = self.routed(model, edge);
                        let serving: Vec<f64> = routed.iter().map(|&t| share(t, walk)).collect();
                        if serving.iter().filter(|&&x| x > 0.0).count() < edge.at_least as usize {
                            0.0
                        } else {
                            #[allow(clippy::cast_precision_loss, reason = "a handful of targets")]
                            let n = serving.len() as f64;
                            serving.iter().sum::<f64>() / n
                        }
                    }
                };
            }
            if parted > 0.0 {
                s *= partition + (1.0 - parted).max(0.0);
            }
            s
        };
        walk.open[id.0] = false;
        if cut {
            walk.own[id.0] = Some(s);
            walk.owned.push(id.0);
        } else {
            walk.shared[id.0] = Some(s);
        }
        (s, cut)
    }

    /// The load entering at the entrypoints that is not served in this
    /// state: each entrypoint's offered load times the share it does not
    /// serve (never a sum of internal calls).
    #[must_use]
    pub fn unserved_entering(&self, model: &Model) -> f64 {
        model
            .entrypoints
            .iter()
            .zip(self.served_shares(model, &model.entrypoints))
            .filter_map(|(&e, share)| Some(self.of(e).offered? * (1.0 - share)))
            // From +0: an f64 sum of nothing is -0, which JSON would show.
            .fold(0.0, |sum, x| sum + x)
    }
}

/// The memory of one [`State::served_shares`] walk.
struct ShareWalk {
    /// Shares with no cycle cut below them: the same from any entrypoint.
    shared: Vec<Option<f64>>,
    /// Shares with a cycle cut below them, for the current entrypoint.
    own: Vec<Option<f64>>,
    /// Where `own` is set (cleared before the next entrypoint).
    owned: Vec<usize>,
    /// Components on the walk's path (a cycle is cut where it meets one).
    open: Vec<bool>,
    /// Per component, whether it reaches an edge with a `share`.
    sharded: Vec<bool>,
}

/// What each component passes on of its intact load `intact` (less what it
/// sheds or its rate limit refuses).
fn passed_on(model: &Model, intact: &[Option<f64>]) -> Vec<Option<f64>> {
    intact
        .iter()
        .zip(&model.components)
        .map(|(l, c)| l.map(|l| passed(c, c.instances, l)))
        .collect()
}

/// The concurrency ceilings per component: what its pool serves at normal
/// latency with the instances up (`pools`: per instance), and the
/// scenario's (the lowest of its pairs); empty when there are none.
fn ceilings(
    model: &Model,
    scenario: &Scenario,
    pools: &[Option<super::throughput::PoolLimit>],
    components: &[ComponentState],
) -> Vec<Option<Ceiling>> {
    if scenario.ceilings.is_empty() && pools.iter().all(Option::is_none) {
        return Vec::new();
    }
    let mut out: Vec<Option<Ceiling>> = vec![None; model.components.len()];
    for (i, pool) in pools.iter().enumerate() {
        if let Some(pool) = pool {
            let serves = pool.per_instance * f64::from(components[i].instances_up);
            out[i] = Some(Ceiling {
                serves,
                admits: serves,
            });
        }
    }
    for &(id, ceiling) in &scenario.ceilings {
        let at = &mut out[id.0];
        *at = Some(at.map_or(ceiling, |c| Ceiling {
            serves: c.serves.min(ceiling.serves),
            admits: c.admits.min(ceiling.admits),
        }));
    }
    out
}

/// The scenario's admitted shares per caller and edge (the lowest of the
/// pairs naming an edge); empty when it has none.
fn admitted(model: &Model, scenario: &Scenario) -> Vec<Vec<f64>> {
    if scenario.admitted.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<Vec<f64>> = vec![Vec::new(); model.components.len()];
    for &(caller, at, share) in &scenario.admitted {
        let edges = &mut out[caller.0];
        if edges.is_empty() {
            *edges = vec![1.0; model.component(caller).depends_on.len()];
        }
        if let Some(e) = edges.get_mut(at) {
            *e = e.min(share.clamp(0.0, 1.0));
        }
    }
    out
}

/// Per component, whether it reaches an edge with a `share` through
/// required edges (empty, without a walk, when no edge has one).
fn reaches_shards(model: &Model) -> Vec<bool> {
    let n = model.components.len();
    let has = |c: &crate::model::Component| {
        c.depends_on
            .iter()
            .any(|e| !e.degradable && e.share.is_some())
    };
    if !model.components.iter().any(has) {
        return Vec::new();
    }
    // Callers of a component that reaches shards reach them: walk the
    // required edges backwards from the components that have one.
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, c) in model.components.iter().enumerate() {
        for e in c.depends_on.iter().filter(|e| !e.degradable) {
            for t in &e.targets {
                callers[t.0].push(i);
            }
        }
    }
    let mut out = vec![false; n];
    let mut stack: Vec<usize> = (0..n).filter(|&i| has(&model.components[i])).collect();
    for &i in &stack {
        out[i] = true;
    }
    while let Some(i) = stack.pop() {
        for &c in &callers[i] {
            if !std::mem::replace(&mut out[c], true) {
                stack.push(c);
            }
        }
    }
    out
}

/// Whether losing `id` loses the load that reaches it: it is an entrypoint
/// or someone calls it through a required edge.
fn needed(model: &Model, flow: &Flow, id: ComponentId) -> bool {
    model.entrypoints.contains(&id)
        || flow.order.inbound[id.0]
            .iter()
            .any(|&(caller, e)| !model.component(caller).depends_on[e].degradable)
}

/// The first component that is ok along `id`'s `failover_to` chain: a
/// target that runs but is down through a dependency (or over its capacity)
/// would fail the load it takes over, so the chain passes it as it passes a
/// lost one.
fn failover_target(model: &Model, state: &State, id: ComponentId) -> Option<ComponentId> {
    let mut next = model.component(id).failover_to;
    let mut hops = 0;
    while let Some(to) = next {
        if to == id || hops > model.components.len() {
            return None;
        }
        if state.of(to).ok {
            return Some(to);
        }
        next = model.component(to).failover_to;
        hops += 1;
    }
    None
}

/// Whether a running component is offered more than its instances up can
/// carry.
#[must_use]
pub fn overloaded(model: &Model, state: &State, id: ComponentId) -> bool {
    state
        .utilization(model, id)
        .is_some_and(|u| u > 1.0 + 1e-12)
}

#[cfg(test)]
#[allow(clippy::float_cmp, reason = "whole numbers, exact in f64")]
mod tests {
    use super::*;
    use crate::model::DomainId;

    fn model(text: &str) -> Model {
        crate::model::parse(text).unwrap_or_else(|p| panic!("{p:#?}"))
    }

    fn id(m: &Model, name: &str) -> ComponentId {
        ComponentId(m.components.iter().position(|c| c.name == name).unwrap())
    }

    const SHORTENER: &str = r"system: s
components:
  redirect: {instances: 6, capacity: 2000, load: 9000, depends_on: [{target: cache, degradable: true}, {target: db, hit_rate: 95%, cached_by: cache}]}
  api: {depends_on: [{target: db, calls: 2}]}
  cache: {instances: 2}
  db: {instances: 3, capacity: 1000, load: 500}
";

    #[test]
    fn losing_the_cache_moves_its_share_onto_the_store() {
        let m = model(SHORTENER);
        let flow = Flow::new(&m);
        let intact = State::intact(&m, &flow);
        let db = id(&m, "db");
        // Intact: the written 500 (9000 × 5% = 450 from redirect + api's 50).
        assert_eq!(intact.load(db), Some(500.0));
        let lose_cache = Scenario {
            failed_instances: vec![(id(&m, "cache"), 2)],
            ..Scenario::default()
        };
        let s = State::new(&m, &flow, &lose_cache);
        // 500 + (9000 − 450) = 9050 against 3 × 1000.
        assert_eq!(s.load(db), Some(9050.0));
        assert!(overloaded(&m, &s, db));
        // Cold caches give the same figure; load × 2 gives 18100.
        let cold = Scenario {
            cold: true,
            ..Scenario::default()
        };
        assert_eq!(State::new(&m, &flow, &cold).load(db), Some(9050.0));
        let twice = Scenario {
            cold: true,
            load_factor: 2.0,
            ..Scenario::default()
        };
        assert_eq!(State::new(&m, &flow, &twice).load(db), Some(18100.0));
    }

    #[test]
    fn a_store_without_written_load_gets_the_sum_of_its_in_flows() {
        // lb 1000 → api (2 calls each) → db, 75% cached: db gets 1000 × 2 × 0.25 = 500.
        let m = model(
            r"system: s
components:
  lb: {capacity: 2000, load: 1000, depends_on: [{target: api, calls: 2}]}
  api: {instances: 2, capacity: 1500, depends_on: [{target: db, hit_rate: 75%}]}
  db: {capacity: 500}
",
        );
        let flow = Flow::new(&m);
        assert_eq!(
            flow.intact_loads(),
            [Some(1000.0), Some(2000.0), Some(500.0)]
        );
        assert_eq!(m.components[2].capacity.unwrap().load, 500.0);
    }

    #[test]
    fn a_failed_cell_moves_its_load_to_its_failover() {
        let m = model(
            r"system: s
components:
  a: {instances: 5, capacity: 200, load: 620, failover_to: b}
  b: {instances: 5, capacity: 200, load: 560, failover_to: c}
  c: {instances: 5, capacity: 200, load: 480, failover_to: a}
",
        );
        let flow = Flow::new(&m);
        let a_down = Scenario {
            failed_instances: vec![(ComponentId(0), 5)],
            ..Scenario::default()
        };
        let s = State::new(&m, &flow, &a_down);
        // b: 560 + 620 = 1180; a carries nothing.
        assert_eq!(s.load(ComponentId(1)), Some(1180.0));
        assert_eq!(s.load(ComponentId(0)), Some(0.0));
        // a and b down: both move past b to c: 480 + 620 + 560 = 1660.
        let both_down = Scenario {
            failed_instances: vec![(ComponentId(0), 5), (ComponentId(1), 5)],
            ..Scenario::default()
        };
        let s = State::new(&m, &flow, &both_down);
        assert_eq!(s.load(ComponentId(2)), Some(1660.0));
        assert_eq!(s.unserved, 0.0);
        // Everything down: all 1660 is unserved.
        let all = Scenario {
            failed_instances: vec![
                (ComponentId(0), 5),
                (ComponentId(1), 5),
                (ComponentId(2), 5),
            ],
            ..Scenario::default()
        };
        assert_eq!(State::new(&m, &flow, &all).unserved, 1660.0);
    }

    #[test]
    fn a_lost_zone_leaves_the_instances_elsewhere() {
        let m = model(
            r"system: s
domains: {z1: {kind: zone}, z2: {kind: zone}}
components:
  api: {instances: 4, placement: [z1, z2], capacity: 100, load: 150}
",
        );
        let flow = Flow::new(&m);
        let s = State::new(
            &m,
            &flow,
            &Scenario {
                domains: vec![DomainId(0)],
                ..Scenario::default()
            },
        );
        // 2 of 4 left: 150 / 200 = 75%.
        assert_eq!(s.of(ComponentId(0)).instances_up, 2);
        assert_eq!(s.utilization(&m, ComponentId(0)), Some(0.75));
    }

    #[test]
    fn cycles_are_cut_and_stay_finite() {
        // a ⇄ b, each calling the other twice: the edge back to a is cut.
        let m = model(
            r"system: s
entrypoints: [a]
components:
  a: {capacity: 100, load: 10, depends_on: [{target: b, calls: 2}]}
  b: {depends_on: [{target: a, calls: 2}]}
",
        );
        let flow = Flow::new(&m);
        assert_eq!(flow.intact_loads(), [Some(10.0), Some(20.0)]);
        let s = State::new(
            &m,
            &flow,
            &Scenario {
                load_factor: 3.0,
                ..Scenario::default()
            },
        );
        assert_eq!(
            (s.load(ComponentId(0)), s.load(ComponentId(1))),
            (Some(30.0), Some(60.0))
        );
    }

    #[test]
    fn an_overflowing_flow_stays_infinite_and_is_not_taken_for_zero() {
        // 1e300 × 1e10 calls overflows to ∞: b and c are offered ∞, never 0
        // (∞ − ∞ in the change of the in-flows was NaN, and NaN.max(0) = 0).
        let m = model(
            "system: s\nentrypoints: [a]\ncomponents:\n  a: {instances: 2, capacity: 1e300, load: 1e300, depends_on: [{target: b, calls: 1e10}]}\n  b: {instances: 2, capacity: 100, depends_on: [{target: c, calls: 2}]}\n  c: {instances: 2, capacity: 100}\n",
        );
        let flow = Flow::new(&m);
        let s = State::intact(&m, &flow);
        assert_eq!(s.load(ComponentId(1)), Some(f64::INFINITY));
        assert_eq!(s.load(ComponentId(2)), Some(f64::INFINITY));
        assert!(overloaded(&m, &s, ComponentId(1)));
        let lost = State::new(
            &m,
            &flow,
            &Scenario {
                failed_instances: vec![(ComponentId(0), 1)],
                ..Scenario::default()
            },
        );
        assert_eq!(lost.load(ComponentId(2)), Some(f64::INFINITY));
    }

    #[test]
    fn a_cache_down_through_its_dependency_answers_no_hits() {
        // cache requires auth; losing auth takes the cache down although its
        // instances run: web's 2000 × (1 − 0) = 2000 reach db (was 2000 × 25%
        // = 500, as if the cache still answered 75%).
        let m = model(
            "system: s\nentrypoints: [web]\ncomponents:\n  web: {instances: 4, capacity: 1000, load: 2000, depends_on: [{target: cache, degradable: true}, {target: db, hit_rate: 75%, cached_by: cache}]}\n  cache: {instances: 2, depends_on: [auth]}\n  auth: {instances: 2}\n  db: {instances: 2, capacity: 300}\n",
        );
        let flow = Flow::new(&m);
        assert_eq!(State::intact(&m, &flow).load(id(&m, "db")), Some(500.0));
        let s = State::new(
            &m,
            &flow,
            &Scenario {
                failed_instances: vec![(id(&m, "auth"), 2)],
                ..Scenario::default()
            },
        );
        assert!(s.of(id(&m, "cache")).running && !s.of(id(&m, "cache")).up);
        assert_eq!(s.load(id(&m, "db")), Some(2000.0));
        assert!(overloaded(&m, &s, id(&m, "db")));
    }

    #[test]
    fn failover_passes_a_target_that_is_down_through_its_dependency() {
        // cell-a lost, db-b lost: cell-b runs but is down, so cell-a's 600
        // goes on to cell-c, not into cell-b where it would be failed; and
        // cell-b, down, hands its own 300 to cell-c too: 100 + 600 + 300 =
        // 1000 of 1000, nothing unserved (cell-b was offered 300).
        let m = model(
            "system: s\nentrypoints: [cell-a, cell-b]\ncomponents:\n  cell-a: {instances: 5, capacity: 200, load: 600, failover_to: cell-b, depends_on: [db-a]}\n  cell-b: {instances: 5, capacity: 200, load: 300, failover_to: cell-c, depends_on: [db-b]}\n  cell-c: {instances: 5, capacity: 200, load: 100}\n  db-a: {instances: 2}\n  db-b: {instances: 2}\n",
        );
        let flow = Flow::new(&m);
        let s = State::new(
            &m,
            &flow,
            &Scenario {
                failed_instances: vec![(id(&m, "cell-a"), 5), (id(&m, "db-b"), 2)],
                ..Scenario::default()
            },
        );
        assert_eq!(s.load(id(&m, "cell-c")), Some(1000.0));
        assert_eq!(s.of(id(&m, "cell-b")).offered, Some(300.0));
        assert_eq!(
            s.moves,
            [
                (id(&m, "cell-a"), id(&m, "cell-c"), 600.0),
                (id(&m, "cell-b"), id(&m, "cell-c"), 300.0)
            ]
        );
        assert_eq!(s.unserved, 0.0);
        assert!(s.of(id(&m, "cell-c")).ok);
        // Both cells' requests are served by cell-c.
        assert_eq!(s.served_share(&m, id(&m, "cell-b")), 1.0);
    }
}

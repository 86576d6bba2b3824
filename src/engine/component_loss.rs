//! The loads after losing whole components (one component, or the members
//! of a shared-fate group), found from what the loss touches instead of a
//! new [`State`] of the whole model. N-k headroom asks this of every
//! component of a model, tens of thousands on a large one, where a state of
//! its own each would cost the model's size each time.
//!
//! The answer is the one [`State::new`] gives for the checked scenario with
//! those components lost too (a test compares the two on random models):
//! starting from the checked state, only what the loss changes is
//! recomputed.
//!
//! - The lost components stop running; what requires them goes down
//!   (walked up the required edges from them, as
//!   [`Baseline::down_under`](super::scenario::Baseline::down_under) does).
//! - What changed sends differently: a component that stops running sends
//!   nothing; one that goes down with a `failover_to` hands its load on; an
//!   `any_of`/`at_least` edge naming one routes around it; an edge it
//!   caches loses its hits. Each such edge's flow is worked out again and
//!   its change added to the load of its targets.
//! - The targets are visited in dependency order, callers first, each
//!   offered its checked load plus the change of its in-flows and of what
//!   fails over into it; a change passes on to what it calls. Failover can
//!   send load back up the order: a component whose load keeps changing
//!   (a loop of failover and calls) is given up on, and the full state is
//!   built instead.
//!
//! The work is counted against a budget the caller holds; a loss that
//! would overdraw it is not computed.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::fasthash::{FastMap, FastSet};
use super::scenario::Scenario;
use super::state::{Flow, State};
use crate::model::intact::{carried, intact_share, passed};
use crate::model::{ComponentId, Edge, EdgeKind, Model};

/// How many times one component's load may be worked out again in one loss
/// before the full state is built instead.
const MAX_VISITS: u32 = 16;

/// The checked state and what is needed to work out a loss from it, built
/// once per check.
pub struct Losses<'a> {
    model: &'a Model,
    flow: &'a Flow,
    state: &'a State,
    scenario: &'a Scenario,
    /// Position of each component in the dependency order.
    rank: Vec<usize>,
    /// The `any_of`/`at_least` edges naming each component: (caller, edge).
    alternative_in: Vec<Vec<(ComponentId, usize)>>,
    /// The edges each component caches: (caller, edge).
    caching: Vec<Vec<(ComponentId, usize)>>,
    /// Components down in the checked state whose `failover_to` chain
    /// passes each component, by component: their load moves when it goes.
    down_sources: FastMap<usize, Vec<ComponentId>>,
    /// Load moved by failover into each component in the checked state.
    failover_in: Vec<f64>,
    /// The working of one loss, kept for the next (its maps keep their
    /// room).
    work: RefCell<Work>,
}

/// What one loss did.
#[derive(Debug, Clone, PartialEq)]
pub enum After {
    /// The components whose offered load rose, in model order, with their
    /// load after the loss.
    Rises(Vec<(ComponentId, f64)>),
    /// It takes down a component the caller watches (an entrypoint): an
    /// outage, not a shift of load; not computed further.
    TakesDown,
    /// The work it needed would overdraw the budget: not computed.
    OverBudget,
}

/// Who is up and running, and what each component is offered: the checked
/// state, or the checked state with the loss's changes on top.
trait View {
    fn up(&self, id: ComponentId) -> bool;
    fn running(&self, id: ComponentId) -> bool;
    fn instances_up(&self, id: ComponentId) -> u32;
    fn offered(&self, id: ComponentId) -> Option<f64>;
}

impl View for State {
    fn up(&self, id: ComponentId) -> bool {
        self.of(id).up
    }
    fn running(&self, id: ComponentId) -> bool {
        self.of(id).running
    }
    fn instances_up(&self, id: ComponentId) -> u32 {
        self.of(id).instances_up
    }
    fn offered(&self, id: ComponentId) -> Option<f64> {
        self.of(id).offered
    }
}

/// The changes of one loss over the checked state.
struct Changed<'s> {
    base: &'s State,
    /// Lost: not running, no instance up.
    lost: FastSet<usize>,
    /// Down in the loss and up before.
    down: FastSet<usize>,
    offered: FastMap<usize, Option<f64>>,
}

impl View for Changed<'_> {
    fn up(&self, id: ComponentId) -> bool {
        !self.lost.contains(&id.0) && !self.down.contains(&id.0) && self.base.of(id).up
    }
    fn running(&self, id: ComponentId) -> bool {
        !self.lost.contains(&id.0) && self.base.of(id).running
    }
    fn instances_up(&self, id: ComponentId) -> u32 {
        if self.lost.contains(&id.0) {
            0
        } else {
            self.base.of(id).instances_up
        }
    }
    fn offered(&self, id: ComponentId) -> Option<f64> {
        match self.offered.get(&id.0) {
            Some(o) => *o,
            None => self.base.of(id).offered,
        }
    }
}

impl<'a> Losses<'a> {
    /// What is needed to work out losses from `state`, the (unsettled)
    /// state of `model` in `scenario`.
    #[must_use]
    pub fn new(model: &'a Model, flow: &'a Flow, state: &'a State, scenario: &'a Scenario) -> Self {
        let n = model.components.len();
        let mut rank = vec![0; n];
        for (at, id) in flow.order().order.iter().enumerate() {
            rank[id.0] = at;
        }
        let mut alternative_in = vec![Vec::new(); n];
        let mut caching = vec![Vec::new(); n];
        for caller in model.component_ids() {
            for (e, edge) in model.component(caller).depends_on.iter().enumerate() {
                if edge.kind != EdgeKind::Target {
                    for t in &edge.targets {
                        alternative_in[t.0].push((caller, e));
                    }
                }
                if let Some(cache) = edge.cached_by {
                    caching[cache.0].push((caller, e));
                }
            }
        }
        let mut down_sources: FastMap<usize, Vec<ComponentId>> = FastMap::default();
        for id in model.component_ids().filter(|&id| !state.of(id).up) {
            let mut next = model.component(id).failover_to;
            let mut hops = 0;
            while let Some(to) = next {
                if to == id || hops > n {
                    break;
                }
                down_sources.entry(to.0).or_default().push(id);
                next = model.component(to).failover_to;
                hops += 1;
            }
        }
        let mut failover_in = vec![0.0; n];
        for &(_, to, load) in &state.moves {
            failover_in[to.0] += load;
        }
        Self {
            model,
            flow,
            state,
            scenario,
            rank,
            alternative_in,
            caching,
            down_sources,
            failover_in,
            work: RefCell::new(Work::default()),
        }
    }

    /// The checked state.
    #[must_use]
    pub fn state(&self) -> &State {
        self.state
    }

    /// The loads after losing every component of `lost` whole, on top of
    /// the checked scenario: the components whose offered load rises. With
    /// `watched`, a loss that takes down a component it names (that was up)
    /// stops there: [`After::TakesDown`].
    pub fn after_losing(
        &self,
        lost: &[ComponentId],
        watched: Option<&[bool]>,
        budget: &mut u64,
    ) -> After {
        let mut changed = self.changed(lost);
        if changed.lost.is_empty() {
            return After::Rises(Vec::new());
        }
        let mut hit = false;
        let walked = self.walk_up(&mut changed, budget, |id| {
            hit = watched.is_some_and(|w| w[id.0]);
            hit
        });
        if !walked {
            return After::OverBudget;
        }
        if hit {
            return After::TakesDown;
        }
        if !self.shifts(&changed) {
            return After::Rises(Vec::new());
        }
        let mut work = self.work.borrow_mut();
        let work = &mut *work;
        work.clear();
        let mut status: Vec<usize> = changed.lost.iter().chain(&changed.down).copied().collect();
        status.sort_unstable();
        status.dedup();
        for &id in &status {
            let id = ComponentId(id);
            if !Self::spend(budget, 1) {
                return After::OverBudget;
            }
            // Edges routing among it, edges it caches, its own calls.
            for &(caller, e) in &self.alternative_in[id.0] {
                self.touch(&changed, work, caller, e);
            }
            for &(caller, e) in &self.caching[id.0] {
                self.touch(&changed, work, caller, e);
            }
            for e in 0..self.model.component(id).depends_on.len() {
                self.touch(&changed, work, id, e);
            }
            // Its own failover, and that of components already down whose
            // chain passed it.
            self.move_of(&changed, work, id);
            if let Some(sources) = self.down_sources.get(&id.0) {
                for &s in sources {
                    self.move_of(&changed, work, s);
                }
            }
        }
        while let Some(Reverse((_, at))) = work.queue.pop() {
            work.queued.remove(&at);
            let id = ComponentId(at);
            let visits = work.visits.entry(at).or_insert(0);
            *visits += 1;
            if *visits > MAX_VISITS {
                return self.full(lost, budget);
            }
            let cost = 1 + self.flow.order().inbound[at].len() as u64;
            if !Self::spend(budget, cost) {
                return After::OverBudget;
            }
            let Ok(offered) = self.offered(work, id) else {
                return self.full(lost, budget);
            };
            if offered == changed.offered(id) {
                continue;
            }
            changed.offered.insert(at, offered);
            for e in 0..self.model.component(id).depends_on.len() {
                self.touch(&changed, work, id, e);
            }
            if !changed.up(id) {
                self.move_of(&changed, work, id);
            }
        }
        let mut rises: Vec<(ComponentId, f64)> = changed
            .offered
            .iter()
            .filter(|(id, _)| !changed.lost.contains(id))
            .filter_map(|(&id, &after)| {
                let after = after?;
                let before = self.state.of(ComponentId(id)).offered;
                rose(before, after).then_some((ComponentId(id), after))
            })
            .collect();
        rises.sort_unstable_by_key(|&(id, _)| id);
        After::Rises(rises)
    }

    /// Whether what the loss changed can move load onto anything: an
    /// edge routes among a changed component, or it caches one, or a
    /// failover chain passes one. Without, every load only falls.
    fn shifts(&self, changed: &Changed<'_>) -> bool {
        changed.lost.iter().chain(&changed.down).any(|&at| {
            !self.alternative_in[at].is_empty()
                || !self.caching[at].is_empty()
                || self.model.components[at].failover_to.is_some()
                || self.down_sources.contains_key(&at)
        })
    }

    /// The loss's starting changes: what it loses (those running in the
    /// checked state).
    fn changed(&self, lost: &[ComponentId]) -> Changed<'a> {
        Changed {
            base: self.state,
            lost: lost
                .iter()
                .filter(|id| self.state.of(**id).running)
                .map(|id| id.0)
                .collect(),
            down: FastSet::default(),
            offered: FastMap::default(),
        }
    }

    /// Takes down what requires the lost components, walking up the
    /// required edges; `stop` is asked of each component going down and
    /// ends the walk when it says so. `false` when the walk would
    /// overdraw the budget.
    fn walk_up(
        &self,
        changed: &mut Changed<'_>,
        budget: &mut u64,
        mut stop: impl FnMut(ComponentId) -> bool,
    ) -> bool {
        let mut work: Vec<ComponentId> = Vec::new();
        let mut lost: Vec<usize> = changed.lost.iter().copied().collect();
        lost.sort_unstable();
        for at in lost {
            let id = ComponentId(at);
            if self.state.of(id).up {
                if stop(id) {
                    return true;
                }
                work.push(id);
            }
        }
        while let Some(id) = work.pop() {
            for &caller in &self.flow.callers()[id.0] {
                let edges = self.model.component(caller).depends_on.len() as u64;
                if !Self::spend(budget, 1 + edges) {
                    return false;
                }
                if changed.up(caller) && !holds(self.model, caller, changed) {
                    changed.down.insert(caller.0);
                    if stop(caller) {
                        return true;
                    }
                    work.push(caller);
                }
            }
        }
        true
    }

    fn spend(budget: &mut u64, cost: u64) -> bool {
        if *budget < cost {
            *budget = 0;
            return false;
        }
        *budget -= cost;
        true
    }

    /// The full state of the loss, compared with the checked one: for the
    /// loops the local walk gives up on.
    fn full(&self, lost: &[ComponentId], budget: &mut u64) -> After {
        let n = self.model.components.len() as u64;
        if !Self::spend(budget, n.saturating_mul(4)) {
            return After::OverBudget;
        }
        let event = Scenario {
            failed_instances: lost
                .iter()
                .map(|&id| (id, self.state.of(id).instances_up))
                .collect(),
            ..Scenario::default()
        };
        let after = State::after(
            self.model,
            self.flow,
            self.state,
            &self.scenario.and(&event),
        );
        let rises = self
            .model
            .component_ids()
            .filter(|id| !lost.contains(id))
            .filter_map(|id| {
                let load = after.of(id).offered?;
                rose(self.state.of(id).offered, load).then_some((id, load))
            })
            .collect();
        After::Rises(rises)
    }

    /// The load offered to `id` with the changes so far, as
    /// [`State::new`]'s pass computes it: its checked load plus the change
    /// of its in-flows and of what fails over into it (worked out from
    /// scratch where the checked load was clamped or unknown). `None` when
    /// a flow is not finite (the full state decides then): [`NotFinite`].
    fn offered(&self, work: &Work, id: ComponentId) -> Result<Option<f64>, NotFinite> {
        let at = id.0;
        let failover_in = work
            .failover_in
            .get(&at)
            .copied()
            .unwrap_or(self.failover_in[at]);
        let base = self.flow.intact_loads()[at].map(|l| l * self.scenario.load_factor);
        let Some(base) = base else {
            return Ok((failover_in > 0.0).then_some(failover_in));
        };
        let before = self.state.of(id).offered;
        let sum = match before {
            Some(b) if b > 0.0 && b.is_finite() => {
                b + work.delta_in.get(&at).copied().unwrap_or(0.0)
                    + (failover_in - self.failover_in[at])
            }
            _ => {
                let mut delta = 0.0;
                for &(caller, e) in &self.flow.order().inbound[at] {
                    if self.flow.order().is_cut(caller, id) {
                        continue;
                    }
                    let Some(intact_caller) = self.flow.intact_passed()[caller.0] else {
                        continue;
                    };
                    let edge = &self.model.component(caller).depends_on[e];
                    let factor = self.scenario.load_factor;
                    let was = carried(intact_caller * factor, edge, edge.hit_rate)
                        * intact_share(self.model, edge, id);
                    let now = match work.sent_at.get(&(caller.0, e)) {
                        Some(&at) => work.arena[at + position(edge, id)],
                        None => self.sent(self.state, caller, edge, id),
                    };
                    delta += now - was;
                }
                base + delta + failover_in
            }
        };
        if sum.is_finite() {
            Ok(Some(sum.max(0.0)))
        } else {
            Err(NotFinite)
        }
    }

    /// Works out the flow of one edge again and adds its change to the load
    /// of each target (queued to be visited).
    fn touch(&self, changed: &Changed<'_>, work: &mut Work, caller: ComponentId, e: usize) {
        // A caller whose intact load is unknown sends nothing the flow
        // counts (as in the full pass).
        if self.flow.intact_passed()[caller.0].is_none() {
            return;
        }
        let edge = &self.model.component(caller).depends_on[e];
        let n = edge.targets.len();
        let (mut now, mut was, mut routed) = (
            std::mem::take(&mut work.now),
            std::mem::take(&mut work.was),
            std::mem::take(&mut work.routed),
        );
        self.sent_all(changed, caller, edge, &mut routed, &mut now);
        let key = (caller.0, e);
        let at = work.sent_at.get(&key).copied();
        match at {
            Some(at) => {
                was.clear();
                was.extend_from_slice(&work.arena[at..at + n]);
            }
            None => self.sent_all(self.state, caller, edge, &mut routed, &mut was),
        }
        for (i, &t) in edge.targets.iter().enumerate() {
            if self.flow.order().is_cut(caller, t) {
                continue;
            }
            let change = now[i] - was[i];
            if change != 0.0 {
                *work.delta_in.entry(t.0).or_insert(0.0) += change;
                self.queue(work, t);
            }
        }
        if let Some(at) = at {
            work.arena[at..at + n].copy_from_slice(&now);
        } else {
            work.sent_at.insert(key, work.arena.len());
            work.arena.extend_from_slice(&now);
        }
        (work.now, work.was, work.routed) = (now, was, routed);
    }

    /// Works out where `id`'s load fails over to again, and moves it.
    fn move_of(&self, changed: &Changed<'_>, work: &mut Work, id: ComponentId) {
        let was = match work.moves.get(&id.0) {
            Some(m) => *m,
            None => self.failover_move(self.state, id),
        };
        let now = self.failover_move(changed, id);
        if now == was {
            return;
        }
        for (m, sign) in [(was, -1.0), (now, 1.0)] {
            if let Some((to, load)) = m {
                let into = work
                    .failover_in
                    .entry(to.0)
                    .or_insert(self.failover_in[to.0]);
                *into += sign * load;
                self.queue(work, to);
            }
        }
        // Whether it hands its load on changes what it passes on.
        if self.handed(self.state, id) != self.handed(changed, id) {
            for e in 0..self.model.component(id).depends_on.len() {
                self.touch(changed, work, id, e);
            }
        }
        work.moves.insert(id.0, now);
    }

    fn queue(&self, work: &mut Work, id: ComponentId) {
        if work.queued.insert(id.0) {
            work.queue.push(Reverse((self.rank[id.0], id.0)));
        }
    }

    /// Where a component that is down hands its offered load, and how
    /// much (as [`State`]'s failover rounds do); `None` for one that is up.
    fn failover_move(&self, view: &impl View, id: ComponentId) -> Option<(ComponentId, f64)> {
        if view.up(id) {
            return None;
        }
        let load = view.offered(id).filter(|l| *l > 0.0)?;
        self.failover_target(view, id).map(|to| (to, load))
    }

    /// The first component up along `id`'s `failover_to` chain.
    fn failover_target(&self, view: &impl View, id: ComponentId) -> Option<ComponentId> {
        let mut next = self.model.component(id).failover_to;
        let mut hops = 0;
        while let Some(to) = next {
            if to == id || hops > self.model.components.len() {
                return None;
            }
            if view.up(to) {
                return Some(to);
            }
            next = self.model.component(to).failover_to;
            hops += 1;
        }
        None
    }

    /// Whether a component hands its load to a failover: it is down and
    /// something along its chain is up.
    fn handed(&self, view: &impl View, id: ComponentId) -> bool {
        !view.up(id) && self.failover_target(view, id).is_some()
    }

    /// What `caller` passes on: nothing when it is not running or hands
    /// its load to a failover.
    fn passing(&self, view: &impl View, caller: ComponentId) -> f64 {
        if !view.running(caller) || self.handed(view, caller) {
            return 0.0;
        }
        let passed = view.offered(caller).map_or(0.0, |l| {
            passed(self.model.component(caller), view.instances_up(caller), l)
        });
        self.state
            .ceiling(caller)
            .map_or(passed, |ceiling| passed.min(ceiling.admits))
    }

    /// What `caller` sends `target` over `edge`, as [`State`]'s pass
    /// computes it (routing and caches follow who is up).
    fn sent(&self, view: &impl View, caller: ComponentId, edge: &Edge, target: ComponentId) -> f64 {
        let load = self.passing(view, caller);
        if load == 0.0 {
            return 0.0;
        }
        let share = match edge.kind {
            EdgeKind::Target => 1.0,
            EdgeKind::AnyOf | EdgeKind::AtLeast => {
                let routed = self.routed(view, edge);
                if !routed.contains(&target) {
                    return 0.0;
                }
                #[allow(clippy::cast_precision_loss, reason = "a handful of targets")]
                let share = 1.0 / routed.len() as f64;
                share
            }
        };
        let cache_lost = self.scenario.cold || edge.cached_by.is_some_and(|cache| !view.up(cache));
        let hit_rate = if cache_lost { None } else { edge.hit_rate };
        carried(load, edge, hit_rate) * share
    }

    /// [`Losses::sent`] to every target of `edge`, into `out` (`routed`
    /// is room for the routing).
    fn sent_all(
        &self,
        view: &impl View,
        caller: ComponentId,
        edge: &Edge,
        routed: &mut Vec<ComponentId>,
        out: &mut Vec<f64>,
    ) {
        out.clear();
        let load = self.passing(view, caller);
        if load == 0.0 {
            out.resize(edge.targets.len(), 0.0);
            return;
        }
        let cache_lost = self.scenario.cold || edge.cached_by.is_some_and(|cache| !view.up(cache));
        let hit_rate = if cache_lost { None } else { edge.hit_rate };
        let carried = carried(load, edge, hit_rate);
        match edge.kind {
            EdgeKind::Target => out.resize(edge.targets.len(), carried),
            EdgeKind::AnyOf | EdgeKind::AtLeast => {
                self.routed_into(view, edge, routed);
                #[allow(clippy::cast_precision_loss, reason = "a handful of targets")]
                let share = 1.0 / routed.len() as f64;
                out.extend(edge.targets.iter().map(|t| {
                    if routed.contains(t) {
                        carried * share
                    } else {
                        0.0
                    }
                }));
            }
        }
    }

    /// [`State::routed`] in the pass, where "ok" is "up".
    fn routed(&self, view: &impl View, edge: &Edge) -> Vec<ComponentId> {
        let mut chosen = Vec::new();
        self.routed_into(view, edge, &mut chosen);
        chosen
    }

    /// [`Losses::routed`] into `chosen`.
    fn routed_into(&self, view: &impl View, edge: &Edge, chosen: &mut Vec<ComponentId>) {
        let k = (edge.at_least as usize).max(1);
        let fails_over = |t: ComponentId| self.model.component(t).failover_to.is_some();
        for tier in 0..2 {
            chosen.clear();
            chosen.extend(edge.targets.iter().copied().filter(|&t| {
                fails_over(t)
                    || if tier == 0 {
                        view.up(t)
                    } else {
                        view.running(t)
                    }
            }));
            if chosen.len() >= k {
                break;
            }
        }
        if self.model.switchover(edge).is_some() {
            chosen.truncate(k);
        }
    }
}

/// A flow that is not finite: the full state decides.
struct NotFinite;

/// The working of one loss.
#[derive(Default)]
struct Work {
    /// Where the last flow applied per edge (caller, edge index) starts in
    /// `arena`, one value per target.
    sent_at: FastMap<(usize, usize), usize>,
    arena: Vec<f64>,
    /// Room for one edge's flows now and before, and its routing.
    now: Vec<f64>,
    was: Vec<f64>,
    routed: Vec<ComponentId>,
    /// The change of each component's in-flows so far.
    delta_in: FastMap<usize, f64>,
    /// Load moved by failover into each component, where it changed.
    failover_in: FastMap<usize, f64>,
    /// The failover move applied per component, where worked out again.
    moves: FastMap<usize, Option<(ComponentId, f64)>>,
    /// Components to visit, by position in the dependency order.
    queue: BinaryHeap<Reverse<(usize, usize)>>,
    queued: FastSet<usize>,
    visits: FastMap<usize, u32>,
}

impl Work {
    /// Empty, keeping the room of the last loss.
    fn clear(&mut self) {
        // A map's clear writes its whole table: an empty one is left alone
        // (most losses touch a few components after one touched many).
        fn clear<K, V>(map: &mut FastMap<K, V>) {
            if !map.is_empty() {
                map.clear();
            }
        }
        clear(&mut self.sent_at);
        clear(&mut self.delta_in);
        clear(&mut self.failover_in);
        clear(&mut self.moves);
        clear(&mut self.visits);
        if !self.queued.is_empty() {
            self.queued.clear();
        }
        self.arena.clear();
        self.queue.clear();
    }
}

/// Where `target` stands among the edge's targets.
fn position(edge: &Edge, target: ComponentId) -> usize {
    edge.targets.iter().position(|&t| t == target).unwrap_or(0)
}

/// Whether a load rose: above what it was by more than rounding.
#[must_use]
pub fn rose(before: Option<f64>, after: f64) -> bool {
    match before {
        Some(b) => after > b + 1e-9 * (1.0 + b.abs()),
        None => after > 0.0,
    }
}

/// Whether every required edge of `id` holds, given who is up.
fn holds(model: &Model, id: ComponentId, view: &impl View) -> bool {
    model
        .component(id)
        .depends_on
        .iter()
        .filter(|e| !e.degradable)
        .all(|edge| {
            let alive = edge.targets.iter().filter(|t| view.up(**t)).count();
            match edge.kind {
                EdgeKind::Target => alive == edge.targets.len(),
                EdgeKind::AnyOf | EdgeKind::AtLeast => alive >= edge.at_least as usize,
            }
        })
}

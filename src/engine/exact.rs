//! The availability of one entrypoint: condition on the correlated events
//! (domains and groups with an availability), and in each state multiply the
//! independent parts.
//!
//! In a state `s` of the events, every component's health is independent of
//! the others, so `P(up | s) = Π series P(healthy | s) × P(gates | s)`, the
//! second factor from the BDD of the alternatives. The series product is
//! grouped by footprint (the set of events a component depends on): one
//! table per footprint, indexed by the state of its few events, so a state
//! costs the number of footprints, not the number of components.
//!
//! With at most [`EXACT_EVENTS`] events every state is visited and the figure
//! is exact. With more, states are visited most probable first until the
//! probability of the unvisited ones is below [`BOUND_WIDTH`]; the figure is
//! then the interval `[visited, visited + unvisited mass]`.

use std::cell::RefCell;
use std::collections::BinaryHeap;
use std::sync::Arc;

use rayon::prelude::*;

use super::events::{self, EventModel, Subject};
use super::fasthash::FastMap;
use super::joint;
use super::shared::{Health, Shared};
use super::structure::Structure;
use crate::model::{ComponentId, Model};

/// Most events enumerated exhaustively (2^14 states).
pub const EXACT_EVENTS: usize = 14;
/// Target width of a bounded figure.
pub const BOUND_WIDTH: f64 = 1e-10;
/// Most states visited for a bounded figure.
pub const MAX_STATES: usize = 2_000_000;
/// Most steps (states × per-state cost) a bounded figure takes.
pub const MAX_VISIT_WORK: usize = 50_000_000;
/// Exhaustive enumerations of at least this many states are split across
/// threads.
const PARALLEL_STATES: u64 = 1 << 12;
/// States per chunk of a parallel enumeration (a fixed size, so the sums
/// are the same whatever the number of threads).
const CHUNK_STATES: u64 = 1 << 10;
/// States listed at a time by the best-first search before they are
/// evaluated (a fixed number, so the sums do not depend on the threads).
const BATCH_STATES: usize = 1 << 12;
/// States per chunk of a best-first batch.
const CHUNK_BEST_FIRST: usize = 1 << 8;
/// Footprints wider than this are evaluated per state instead of tabled.
const MAX_TABLE_EVENTS: usize = 16;
/// Most table entries for the BDD variables and module members of one
/// entrypoint (two `f64` each: 64 MB); past it, the rest are evaluated per
/// state.
const MAX_VAR_TABLE: usize = 1 << 22;

/// One BDD variable's (or module member's) health per state of its
/// events: `p[mask]` with its own failures, `q[mask]` without (bit i of
/// `mask` = `events[i]` down).
struct VarTable {
    events: Vec<usize>,
    /// The table, shared with other entrypoints when it can be (see
    /// [`Shared`]).
    health: Arc<Health>,
}

impl VarTable {
    fn new(
        leaf: &events::Leaf,
        folded: &[events::Event],
        with_q: bool,
        shared: Option<Arc<Health>>,
    ) -> Self {
        let events = leaf.footprint.clone();
        if let Some(health) = shared {
            return VarTable { events, health };
        }
        let size = 1usize << events.len();
        let mut p = Vec::with_capacity(size);
        let mut q = Vec::with_capacity(if with_q { size } else { 0 });
        let mut u = Vec::with_capacity(size);
        for mask in 0..size {
            let down = |e: usize| local_down(&events, mask as u64, e);
            p.push(leaf.healthy(down, folded, false));
            if with_q {
                q.push(leaf.healthy(down, folded, true));
            }
            u.push(leaf.failing(down, folded));
        }
        VarTable {
            events,
            health: Arc::new(Health { p, q, u }),
        }
    }
}

/// How a figure was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Every state of the correlated events was evaluated.
    Exact,
    /// Only the likeliest states were: the truth is within `[lower, upper]`.
    Bounded,
}

/// The availability of one entrypoint.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// The figure (the lower bound when bounded: conservative).
    pub availability: f64,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// The unavailability, `1 − availability` carried in failure space so
    /// that a figure of 1e-27 keeps its digits (the upper bound when
    /// bounded: conservative).
    pub unavailability: f64,
    /// Lower bound of the unavailability (`1 − upper`, unrounded).
    pub unavailability_lower: f64,
    /// Upper bound of the unavailability (`1 − lower`, unrounded).
    pub unavailability_upper: f64,
    /// How it was computed.
    pub method: Method,
    /// What each subject would add if it never failed, largest first.
    pub improvement: Vec<(Subject, f64)>,
    /// States of the correlated events evaluated.
    pub states: usize,
    /// Events conditioned on.
    pub events: usize,
    /// Components, domains and groups that matter but have no figure: the
    /// availability counts them as never failing.
    pub unquantified: Vec<Subject>,
    /// Whether anything that matters has a figure; when not, the
    /// availability (1) says nothing and is shown as n/a.
    pub quantified: bool,
    /// Unavailability added by switchovers to standbys (already taken off
    /// `availability`, `lower` and `upper`).
    pub switchover: f64,
    /// What the figure assumes that the model does not say (instant
    /// failover where the switchover frequency is unknown).
    pub caveats: Vec<String>,
    /// Why a bounded figure is not exact (`None` when exact).
    pub why: Option<String>,
    /// Why the joint diagram of events and components was refused, when it
    /// was tried (a second try names it without building it again).
    pub refusal: Option<joint::Refusal>,
    /// The capacity-blind figure and the served share, when the figure is
    /// the capacity-aware one (`engine::availability`).
    pub capacity: Option<CapacityPart>,
}

/// What the capacity-aware figure adds to the structural one.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityPart {
    /// The structural (capacity-blind) availability: every component up
    /// with `min_healthy` instances, whatever its load.
    pub structural: f64,
    /// Its unavailability, in failure space.
    pub structural_unavailability: f64,
    /// The expected share of the entrypoint's peak requests served
    /// (request-weighted): shedding and shards serve a share.
    pub served: f64,
    /// Whether `served` is exact (else a lower bound).
    pub served_exact: bool,
    /// The components whose capacity costs this entrypoint availability,
    /// largest first.
    pub costs: Vec<CapacityCost>,
}

/// What one component's capacity costs an entrypoint.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityCost {
    /// The component.
    pub component: crate::model::ComponentId,
    /// The unavailability its capacity adds (the figure with it never
    /// overloaded, less).
    pub added: f64,
    /// The fleet that carries its largest load with the spare it was
    /// designed with, and the unavailability that fleet takes off.
    pub fleet: Option<(u32, f64)>,
}

/// Computes the figure of one entrypoint from its structure.
#[must_use]
pub fn evaluate(model: &Model, structure: &Structure) -> Figure {
    evaluate_shared(model, structure, None)
}

/// [`evaluate`], reading and filling the per-component tables that the
/// entrypoints of one model share (see [`Shared`]): the same figure, less
/// work when entrypoints share components.
#[must_use]
pub fn evaluate_shared(model: &Model, structure: &Structure, shared: Option<&Shared>) -> Figure {
    evaluate_with(
        model,
        structure,
        MAX_VISIT_WORK,
        Conditioning::Usual,
        shared,
    )
}

/// Computes the figure of one entrypoint from its structure, a bounded
/// figure visiting states for at most about `work` steps.
#[must_use]
pub fn evaluate_within(model: &Model, structure: &Structure, work: usize) -> Figure {
    evaluate_with(model, structure, work, Conditioning::Usual, None)
}

/// Most events enumerated exhaustively when the work allows it (see
/// [`Conditioning::Affordable`]): 2^24 states.
pub const AFFORDABLE_EVENTS: usize = 24;

/// How [`evaluate_by`] conditions on the events.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conditioning {
    /// Every state up to [`EXACT_EVENTS`] events, else the joint diagram,
    /// else best-first.
    Usual,
    /// Best-first past [`EXACT_EVENTS`] events, without the joint diagram
    /// (for tests of the bracket).
    BestFirst,
    /// Every state up to 24 events (for tests: 2^events), else best-first.
    Exhaustive,
    /// Every state when `2^events × cost of a state` is within the work
    /// (up to [`AFFORDABLE_EVENTS`]), else best-first; no joint diagram
    /// (for a second try, after the joint diagram was refused: the
    /// refusal, if any, is said in the `why`).
    Affordable(Option<joint::Refusal>),
}

/// [`evaluate_within`] with a choice of method, for tests that compare
/// the bracket of one method with the figure of another.
#[doc(hidden)]
#[must_use]
pub fn evaluate_by(
    model: &Model,
    structure: &Structure,
    work: usize,
    conditioning: Conditioning,
) -> Figure {
    evaluate_with(model, structure, work, conditioning, None)
}

/// The one evaluation behind [`evaluate`], [`evaluate_shared`],
/// [`evaluate_within`] and [`evaluate_by`].
fn evaluate_with(
    model: &Model,
    structure: &Structure,
    work: usize,
    conditioning: Conditioning,
    shared: Option<&Shared>,
) -> Figure {
    if structure.truncated {
        return relaxed(model, structure, shared);
    }
    let components: Vec<ComponentId> = structure.components().collect();
    let event_model = events::collect(model, &components);
    let n = event_model.events.len();
    let mut refusal = match conditioning {
        Conditioning::Affordable(refusal) => refusal,
        _ => None,
    };
    if n > EXACT_EVENTS && conditioning == Conditioning::Usual {
        match joint::evaluate(structure, &event_model, joint::MAX_JOINT_NODES) {
            Ok(joint) => return joint_figure(model, structure, &components, &event_model, &joint),
            Err(r) => refusal = Some(r),
        }
    }
    let mut run = Run::with_shared(structure, &event_model, &components, shared);
    let affordable = matches!(conditioning, Conditioning::Affordable(_))
        && n <= AFFORDABLE_EVENTS
        && (1usize << n).saturating_mul(run.state_cost()) <= work;
    let method =
        if n <= EXACT_EVENTS || (conditioning == Conditioning::Exhaustive && n <= 24) || affordable
        {
            run.exhaust();
            Method::Exact
        } else {
            run.best_first(work);
            Method::Bounded
        };
    run.settle();
    let mut lower = run.total.clamp(0.0, 1.0);
    let mut upper = match method {
        Method::Exact => lower,
        Method::Bounded => (lower + (1.0 - run.mass).max(0.0)).min(1.0),
    };
    let mut failure = run.failure.clamp(0.0, 1.0);
    let mut failure_upper = failure;
    if method == Method::Bounded {
        [lower, upper, failure, failure_upper] = run.bracket([lower, upper]);
    }
    let mut improvement = run.improvement(model, &components);
    // A folded domain's gain is one more run: affordable once, not once
    // per domain.
    if !affordable {
        improvement.extend(folded_gains(
            structure,
            &event_model,
            method,
            run.total,
            (&components, shared),
        ));
    }
    improvement.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| a.0.name(model).cmp(b.0.name(model)))
    });
    Figure {
        availability: lower,
        lower,
        upper,
        unavailability: failure_upper,
        unavailability_lower: failure,
        unavailability_upper: failure_upper,
        method,
        improvement,
        states: run.states,
        events: n,
        unquantified: unquantified(model, &components),
        quantified: quantified(model, &components),
        switchover: 0.0,
        caveats: Vec::new(),
        refusal,
        capacity: None,
        why: (method == Method::Bounded).then(|| {
            let joint = match refusal {
                Some(joint::Refusal::WideComponent(k)) => format!(
                    "one component depends on {k} of them (the joint diagram expands at most {} per component)",
                    joint::MAX_LEAF_EVENTS
                ),
                Some(joint::Refusal::TooLarge(nodes)) => {
                    format!("their joint diagram with the components exceeded {nodes} nodes")
                }
                None => String::new(),
            };
            let joint = if joint.is_empty() {
                joint
            } else {
                format!("; {joint}")
            };
            format!(
                "{n} correlated events: {} of their 2^{n} states visited within the work limit, the others weighing {:.1e} together{joint}",
                run.states,
                (1.0 - run.mass).max(0.0)
            )
        }),
    }
}

/// The largest `f64` below 1.
const BELOW_ONE: f64 = 1.0 - f64::EPSILON / 2.0;

/// A bounded figure's lower bound, never 1: the truth of a bounded figure
/// may be below 1 by less than an `f64` resolves there (a grid whose
/// unavailability is 1e-20), and a bracket printed as [1, 1] would not hold
/// it.
#[must_use]
pub fn honest_lower(lower: f64) -> f64 {
    lower.min(BELOW_ONE)
}

/// The exact figure from the joint diagram of events and components (see
/// [`joint`]), with the same improvement rows as conditioning gives.
fn joint_figure(
    model: &Model,
    structure: &Structure,
    components: &[ComponentId],
    events: &EventModel,
    joint: &joint::Joint,
) -> Figure {
    let with_rows = structure.series.len() + structure.vars.len();
    let mut improvement: Vec<(Subject, f64)> = components[..with_rows]
        .iter()
        .zip(&joint.leaf_gain)
        .map(|(&c, &gain)| (Subject::Component(c), gain))
        .chain(
            events
                .events
                .iter()
                .zip(&joint.event_gain)
                .map(|(e, &gain)| (e.subject, gain)),
        )
        .chain(
            events
                .folded
                .iter()
                .zip(&joint.folded_gain)
                .map(|(e, &gain)| (e.subject, gain)),
        )
        .filter(|&(_, gain)| gain > 1e-15)
        .collect();
    improvement.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| a.0.name(model).cmp(b.0.name(model)))
    });
    let total = joint.total.clamp(0.0, 1.0);
    let failure = joint.failure.clamp(0.0, 1.0);
    Figure {
        availability: total,
        lower: total,
        upper: total,
        unavailability: failure,
        unavailability_lower: failure,
        unavailability_upper: failure,
        method: Method::Exact,
        improvement,
        states: 1,
        events: events.events.len(),
        unquantified: unquantified(model, components),
        quantified: quantified(model, components),
        switchover: 0.0,
        caveats: Vec::new(),
        refusal: None,
        why: None,
        capacity: None,
    }
}

/// The exact figure of a structure from the joint diagram alone (see
/// [`joint`]), for a structure rebuilt with a larger node budget after the
/// first one was truncated.
///
/// # Errors
/// Why the joint diagram could not be built.
pub fn evaluate_joint(model: &Model, structure: &Structure) -> Result<Figure, joint::Refusal> {
    let components: Vec<ComponentId> = structure.components().collect();
    let event_model = events::collect(model, &components);
    let joint = joint::evaluate(structure, &event_model, joint::MAX_JOINT_NODES)?;
    Ok(joint_figure(
        model,
        structure,
        &components,
        &event_model,
        &joint,
    ))
}

/// Most folded events whose improvement is computed (each costs one more
/// evaluation).
const MAX_FOLDED_GAINS: usize = 256;

/// The improvement of each folded domain: the figure again with that domain
/// never failing, minus the figure.
fn folded_gains(
    structure: &Structure,
    events: &EventModel,
    method: Method,
    total: f64,
    (components, shared): (&[ComponentId], Option<&Shared>),
) -> Vec<(Subject, f64)> {
    // A bounded figure already spent its work bound once: one more bounded
    // run per folded domain would multiply it (40 zones and 16 entrypoints
    // took over a minute), so only exact figures get these gains.
    if events.folded.len() > MAX_FOLDED_GAINS || method == Method::Bounded {
        return Vec::new();
    }
    (0..events.folded.len())
        .filter_map(|i| {
            let mut perfect = events.clone();
            perfect.folded[i].up = 1.0;
            let mut run = Run::with_shared(structure, &perfect, components, shared);
            match method {
                Method::Exact => run.exhaust(),
                Method::Bounded => run.best_first(MAX_VISIT_WORK),
            }
            run.settle();
            let gain = run.total - total;
            (gain > 1e-15).then_some((events.folded[i].subject, gain))
        })
        .collect()
}

/// When the alternatives' BDD grew too large: rigorous but wide bounds. The
/// structure function is monotone, so requiring every component at all
/// (alternatives as series) bounds it from below, and ignoring the
/// alternatives (gates always hold) bounds it from above.
fn relaxed(model: &Model, structure: &Structure, shared: Option<&Shared>) -> Figure {
    let all = Structure {
        series: structure.components().collect(),
        bdd: super::bdd::Bdd::new(),
        root: super::bdd::TRUE,
        vars: Vec::new(),
        modules: Vec::new(),
        truncated: false,
    };
    let series_only = Structure {
        series: structure.series.clone(),
        bdd: super::bdd::Bdd::new(),
        root: super::bdd::TRUE,
        vars: Vec::new(),
        modules: Vec::new(),
        truncated: false,
    };
    let low = evaluate_shared(model, &all, shared);
    let high = evaluate_shared(model, &series_only, shared);
    let lower = honest_lower(low.lower);
    Figure {
        availability: lower,
        lower,
        upper: high.upper,
        unavailability: low.unavailability_upper,
        unavailability_lower: high.unavailability_lower,
        unavailability_upper: low.unavailability_upper,
        method: Method::Bounded,
        improvement: low.improvement,
        states: low.states + high.states,
        events: low.events,
        unquantified: low.unquantified,
        quantified: low.quantified,
        switchover: 0.0,
        caveats: Vec::new(),
        refusal: None,
        why: Some(format!(
            "the diagram of the `any_of`/`at_least` gates exceeded its node budget ({} correlated events): the bracket counts every alternative as required (lower) or as always up (upper)",
            low.events
        )),
        capacity: None,
    }
}

/// A footprint: the series components that depend on the same events.
struct Footprint {
    events: Vec<usize>,
    members: Vec<usize>,
    /// Product of the members' health per state of `events` (bit i = event
    /// i down); `None` when too wide to table.
    table: Option<Arc<Vec<f64>>>,
    /// `ln table`, from the members' failures (see [`log_health`]), so
    /// that the series failure is `−expm1` of a sum of look-ups.
    log_health: Option<Arc<Vec<f64>>>,
    /// Σ P(s) × P(gates | s) × (product of the other footprints), per state
    /// of `events` (for the improvement of the members), indexed like
    /// `table` (empty when there is no table).
    weight: Vec<f64>,
    /// For a footprint too wide to table (one member): its gain, summed
    /// state by state.
    direct_gain: f64,
}

impl Footprint {
    /// Fills the tables of a footprint narrow enough to table: its
    /// members' health per state of its events, from their `shared`
    /// tables when they all have one, and its log-health from their
    /// failures.
    fn fill_tables(&mut self, model: &EventModel, tables: Option<&[&Arc<Health>]>) {
        let size = 1usize << self.events.len();
        let footprint = &*self;
        let table = (0..size)
            .map(|mask| {
                if let Some(tables) = tables {
                    return tables.iter().map(|t| t.p[mask]).product();
                }
                let down = |e: usize| local_down(&footprint.events, mask as u64, e);
                footprint
                    .members
                    .iter()
                    .map(|&m| model.leaves[m].healthy(down, &model.folded, false))
                    .product()
            })
            .collect();
        let logs = (0..size)
            .map(|mask| {
                if let Some(tables) = tables {
                    return log_health(tables.iter().map(|t| t.u[mask]));
                }
                let down = |e: usize| local_down(&footprint.events, mask as u64, e);
                log_health(
                    footprint
                        .members
                        .iter()
                        .map(|&m| model.leaves[m].failing(down, &model.folded)),
                )
            })
            .collect();
        self.table = Some(Arc::new(table));
        self.log_health = Some(Arc::new(logs));
        self.weight = vec![0.0; size];
    }
}

struct Run<'a> {
    structure: &'a Structure,
    model: &'a EventModel,
    footprints: Vec<Footprint>,
    down: Vec<bool>,
    total: f64,
    mass: f64,
    /// Σ P(s) × (1 − f(s)), each state's failure computed in failure space.
    failure: f64,
    /// What rounding took off `total`, `mass` and `failure` (Neumaier's
    /// compensated summation: a sum of millions of states would otherwise
    /// drift by 1e-12, enough to lift a lower bound above the truth).
    carry: (f64, f64, f64),
    /// Whether sums are compensated (best-first only: an exhaustive
    /// enumeration keeps its plain sums, and so its figures to the bit).
    compensated: bool,
    states: usize,
    /// Per event: Σ over states where it is up of P(s)/u × f(s).
    event_up: Vec<f64>,
    /// Per BDD variable: Σ P(s) × P(series | s) × ∂G/∂p × (q − p).
    var_gain: Vec<f64>,
    scratch: Scratch,
    /// The Poisson-binomial row of a module.
    tail: Vec<f64>,
    /// Per leaf after the series part (BDD variables, then module
    /// members): its health per state of its events, when small enough.
    tables: Arc<Vec<Option<VarTable>>>,
    /// Per series leaf: its health table shared across entrypoints, when
    /// there is one (see [`Shared`]).
    health: Arc<Vec<Option<Arc<Health>>>>,
}

/// Buffers reused from state to state.
#[derive(Default)]
struct Scratch {
    /// Health probability of each BDD variable.
    p: Vec<f64>,
    /// The same with the component's own failures removed.
    q: Vec<f64>,
    /// Failure probability of each BDD variable (`1 − p`, in failure space).
    u: Vec<f64>,
    /// Per-node probabilities.
    values: Vec<f64>,
    /// Per-node failure probabilities.
    failures: Vec<f64>,
    /// Per-node derivatives.
    derivative: Vec<f64>,
    /// Probability of each event's value in the state.
    factors: Vec<f64>,
    /// Each footprint's local state.
    masks: Vec<u64>,
    /// Each footprint's series product.
    parts: Vec<f64>,
    /// Prefix and suffix products (see [`products_without`]).
    prefix: Vec<f64>,
    suffix: Vec<f64>,
    /// Derivative per BDD variable.
    d: Vec<f64>,
    /// The running-instance distribution of a leaf evaluated per state.
    running: events::Running,
}

thread_local! {
    /// Buffers of runs that ended on this thread, for its next runs: a
    /// model evaluates thousands of small entrypoints, and each would
    /// otherwise grow its ten buffers afresh.
    static SPARE: RefCell<Vec<Scratch>> = const { RefCell::new(Vec::new()) };
}

/// Spare buffers kept per thread.
const SPARE_RUNS: usize = 4;
/// Most `f64`s a spare's largest buffer may hold (a run over a large BDD
/// gives its buffers back to the allocator instead).
const SPARE_LEN: usize = 1 << 16;

impl Scratch {
    /// Buffers left by an earlier run on this thread, or new ones. Every
    /// buffer is cleared before it is read, so what they held is never
    /// seen.
    fn reuse() -> Self {
        SPARE
            .with(|spare| spare.borrow_mut().pop())
            .unwrap_or_default()
    }

    /// The most elements any of its buffers holds room for.
    fn largest(&self) -> usize {
        [
            self.p.capacity(),
            self.q.capacity(),
            self.u.capacity(),
            self.values.capacity(),
            self.failures.capacity(),
            self.derivative.capacity(),
            self.factors.capacity(),
            self.masks.capacity(),
            self.parts.capacity(),
            self.prefix.capacity(),
            self.suffix.capacity(),
            self.d.capacity(),
            self.running.capacity(),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }

    /// Keeps these buffers for the next run on this thread, unless one of
    /// them is large (so a thread keeps at most [`SPARE_RUNS`] ×
    /// 13 buffers of [`SPARE_LEN`] elements), or the thread is ending.
    fn give_back(self) {
        if self.largest() <= SPARE_LEN {
            let _ = SPARE.try_with(|spare| {
                let mut spare = spare.borrow_mut();
                if spare.len() < SPARE_RUNS {
                    spare.push(self);
                }
            });
        }
    }
}

impl Drop for Run<'_> {
    fn drop(&mut self) {
        std::mem::take(&mut self.scratch).give_back();
    }
}

impl<'a> Run<'a> {
    /// A run over `model`, whose leaves are those of `components`, reading
    /// the tables `shared` across entrypoints when given.
    fn with_shared(
        structure: &'a Structure,
        model: &'a EventModel,
        components: &[ComponentId],
        shared: Option<&Shared>,
    ) -> Self {
        let health: Vec<Option<Arc<Health>>> = match shared {
            Some(shared) => model
                .leaves
                .iter()
                .zip(components)
                .map(|(leaf, &c)| shared.health(c, leaf))
                .collect(),
            None => Vec::new(),
        };
        let shared_health = |index: usize| health.get(index).and_then(Option::as_ref);
        let mut by_events: FastMap<&[usize], usize> = FastMap::default();
        let mut footprints: Vec<Footprint> = Vec::new();
        for (index, leaf) in model.leaves.iter().enumerate().take(structure.series.len()) {
            let wide = leaf.footprint.len() > MAX_TABLE_EVENTS;
            let slot = if wide {
                None
            } else {
                by_events.get(leaf.footprint.as_slice()).copied()
            };
            if let Some(f) = slot {
                footprints[f].members.push(index);
            } else {
                if !wide {
                    by_events.insert(leaf.footprint.as_slice(), footprints.len());
                }
                footprints.push(Footprint {
                    events: leaf.footprint.clone(),
                    members: vec![index],
                    table: None,
                    log_health: None,
                    weight: Vec::new(),
                    direct_gain: 0.0,
                });
            }
        }
        for footprint in &mut footprints {
            if footprint.events.len() <= MAX_TABLE_EVENTS {
                // The members' shared tables when they all have one: the
                // same products of the same values, without a `healthy`
                // call per member and state.
                let tables: Option<Vec<&Arc<Health>>> = footprint
                    .members
                    .iter()
                    .map(|&m| shared_health(m))
                    .collect();
                footprint.fill_tables(model, tables.as_deref());
            }
        }
        let series_len = structure.series.len();
        let vars_end = series_len + structure.vars.len();
        let mut budget = MAX_VAR_TABLE;
        let tables = model.leaves[series_len..]
            .iter()
            .enumerate()
            .map(|(i, leaf)| {
                let size = 1usize << leaf.footprint.len().min(MAX_TABLE_EVENTS + 1);
                (leaf.footprint.len() <= MAX_TABLE_EVENTS && size <= budget).then(|| {
                    budget -= size;
                    VarTable::new(
                        leaf,
                        &model.folded,
                        series_len + i < vars_end,
                        shared_health(series_len + i).cloned(),
                    )
                })
            })
            .collect();
        let mut health = health;
        health.truncate(series_len);
        Run {
            structure,
            model,
            footprints,
            tables: Arc::new(tables),
            health: Arc::new(health),
            down: vec![false; model.events.len()],
            total: 0.0,
            mass: 0.0,
            failure: 0.0,
            carry: (0.0, 0.0, 0.0),
            compensated: false,
            states: 0,
            event_up: vec![0.0; model.events.len()],
            var_gain: vec![0.0; structure.vars.len() + structure.modules.len()],
            scratch: Scratch::reuse(),
            tail: Vec::new(),
        }
    }

    /// Evaluates the current state of `down`. Allocates nothing: every
    /// per-state vector lives in `scratch`.
    fn visit(&mut self) {
        let p_state = self.state_probability();
        self.states += 1;
        if self.compensated {
            add_compensated(&mut self.mass, &mut self.carry.1, p_state);
        } else {
            self.mass += p_state;
        }
        let (series, series_fail) = self.series_part();
        let (gates, gates_fail) = self.gates_part();
        let f = series * gates;
        // 1 − (1 − a)(1 − b), without forming 1 − a.
        let fail = series_fail + gates_fail - series_fail * gates_fail;
        if self.compensated {
            add_compensated(&mut self.total, &mut self.carry.0, p_state * f);
            add_compensated(&mut self.failure, &mut self.carry.2, p_state * fail);
        } else {
            self.total += p_state * f;
            self.failure += p_state * fail;
        }
        if p_state == 0.0 {
            return;
        }
        self.record_gains(p_state, series, gates, f);
    }

    /// The probability of the current state of `down`, each event's factor
    /// kept in `scratch.factors`.
    fn state_probability(&mut self) -> f64 {
        let factors = &mut self.scratch.factors;
        factors.clear();
        factors.extend(
            self.model
                .events
                .iter()
                .zip(&self.down)
                .map(|(e, &down)| if down { 1.0 - e.up } else { e.up }),
        );
        factors.iter().product()
    }

    /// The series product, footprint by footprint (each footprint's local
    /// state in `scratch.masks`, its product in `scratch.parts`), and its
    /// complement computed in failure space.
    fn series_part(&mut self) -> (f64, f64) {
        let Scratch {
            masks,
            parts,
            running,
            ..
        } = &mut self.scratch;
        masks.clear();
        masks.extend(self.footprints.iter().map(|f| {
            if f.table.is_some() {
                mask_of(&f.events, &self.down)
            } else {
                0
            }
        }));
        parts.clear();
        parts.extend(self.footprints.iter().zip(masks.iter()).map(|(f, &mask)| {
            match &f.table {
                Some(table) => table[usize::try_from(mask).unwrap_or(0)],
                None => f
                    .members
                    .iter()
                    .map(|&m| {
                        self.model.leaves[m].healthy_in(
                            |e| self.down[e],
                            &self.model.folded,
                            false,
                            running,
                        )
                    })
                    .product(),
            }
        }));
        let log_up: f64 = self
            .footprints
            .iter()
            .zip(masks.iter())
            .map(|(f, &mask)| match &f.log_health {
                Some(table) => table[usize::try_from(mask).unwrap_or(0)],
                None => log_health(f.members.iter().map(|&m| {
                    self.model.leaves[m].failing_in(|e| self.down[e], &self.model.folded, running)
                })),
            })
            .sum();
        (parts.iter().product(), -log_up.exp_m1())
    }

    /// The probability the alternatives hold in the current state: each
    /// BDD variable's health with and without its own failures into
    /// `scratch.p` and `scratch.q`, each module's tail after them; and the
    /// probability they fail, computed in failure space.
    fn gates_part(&mut self) -> (f64, f64) {
        let Scratch {
            p,
            q,
            u,
            values,
            failures,
            running,
            ..
        } = &mut self.scratch;
        let series_len = self.structure.series.len();
        p.clear();
        q.clear();
        u.clear();
        let vars_end = series_len + self.structure.vars.len();
        let down = &self.down;
        let folded = &self.model.folded;
        for (leaf, table) in self.model.leaves[series_len..vars_end]
            .iter()
            .zip(self.tables.iter())
        {
            if let Some(t) = table {
                let mask = usize::try_from(mask_of(&t.events, down)).unwrap_or(0);
                p.push(t.health.p[mask]);
                q.push(t.health.q[mask]);
                u.push(t.health.u[mask]);
            } else {
                p.push(leaf.healthy_in(|e| down[e], folded, false, running));
                q.push(leaf.healthy_in(|e| down[e], folded, true, running));
                u.push(leaf.failing_in(|e| down[e], folded, running));
            }
        }
        let mut start = vars_end;
        for module in &self.structure.modules {
            let range = start..start + module.members.len();
            start += module.members.len();
            let members = &self.model.leaves[range.clone()];
            let tables = &self.tables[range.start - series_len..range.end - series_len];
            let held = events::tail(
                module.k,
                members.iter().zip(tables).map(|(leaf, table)| match table {
                    Some(t) => t.health.p[usize::try_from(mask_of(&t.events, down)).unwrap_or(0)],
                    None => leaf.healthy_in(|e| down[e], folded, false, running),
                }),
                &mut self.tail,
            );
            let lost = events::tail_failure(
                module.k,
                members.iter().zip(tables).map(|(leaf, table)| match table {
                    Some(t) => {
                        let mask = usize::try_from(mask_of(&t.events, down)).unwrap_or(0);
                        (t.health.p[mask], t.health.u[mask])
                    }
                    None => (
                        leaf.healthy_in(|e| down[e], folded, false, running),
                        leaf.failing_in(|e| down[e], folded, running),
                    ),
                }),
                &mut self.tail,
            );
            // A module's members have no improvement row: q = p.
            p.push(held);
            q.push(held);
            u.push(lost);
        }
        let bdd = &self.structure.bdd;
        (
            bdd.probability(self.structure.root, p, values),
            bdd.failure(self.structure.root, p, u, failures),
        )
    }

    /// The improvement bookkeeping of one state of probability `p_state`
    /// whose series part is `series`, gates `gates` and figure `f`.
    fn record_gains(&mut self, p_state: f64, series: f64, gates: f64, f: f64) {
        let Scratch {
            p,
            q,
            u: _,
            values,
            failures: _,
            derivative,
            factors,
            masks,
            parts,
            prefix,
            suffix,
            d,
            running,
        } = &mut self.scratch;
        products_without(parts, prefix, suffix);
        for (i, footprint) in self.footprints.iter_mut().enumerate() {
            let weight = p_state * gates * prefix[i] * suffix[i + 1];
            if footprint.table.is_some() {
                footprint.weight[usize::try_from(masks[i]).unwrap_or(0)] += weight;
            } else {
                let leaf = &self.model.leaves[footprint.members[0]];
                let q = leaf.healthy_in(|e| self.down[e], &self.model.folded, true, running);
                footprint.direct_gain += weight * (q - parts[i]);
            }
        }
        if !self.var_gain.is_empty() && series > 0.0 {
            d.clear();
            d.resize(self.var_gain.len(), 0.0);
            self.structure
                .bdd
                .add_derivatives(self.structure.root, p, values, 1.0, derivative, d);
            for (v, gain) in self.var_gain.iter_mut().enumerate() {
                *gain += p_state * series * d[v] * (q[v] - p[v]);
            }
        }
        products_without(factors, prefix, suffix);
        for (i, up_sum) in self.event_up.iter_mut().enumerate() {
            if !self.down[i] {
                *up_sum += prefix[i] * suffix[i + 1] * f;
            }
        }
    }

    /// A run over the same tables with every sum at zero, for one chunk of
    /// the states.
    fn fork(&self) -> Run<'a> {
        Run {
            structure: self.structure,
            model: self.model,
            footprints: self
                .footprints
                .iter()
                .map(|f| Footprint {
                    events: f.events.clone(),
                    members: f.members.clone(),
                    table: f.table.clone(),
                    log_health: f.log_health.clone(),
                    weight: vec![0.0; f.weight.len()],
                    direct_gain: 0.0,
                })
                .collect(),
            down: vec![false; self.down.len()],
            total: 0.0,
            mass: 0.0,
            failure: 0.0,
            carry: (0.0, 0.0, 0.0),
            compensated: self.compensated,
            states: 0,
            event_up: vec![0.0; self.event_up.len()],
            var_gain: vec![0.0; self.var_gain.len()],
            scratch: Scratch::reuse(),
            tail: Vec::new(),
            tables: Arc::clone(&self.tables),
            health: Arc::clone(&self.health),
        }
    }

    /// Folds the rounding carried aside back into `total` and `mass`.
    fn settle(&mut self) {
        self.total += std::mem::take(&mut self.carry.0);
        self.mass += std::mem::take(&mut self.carry.1);
        self.failure += std::mem::take(&mut self.carry.2);
    }

    /// Adds the sums of a chunk's run into this one.
    fn merge(&mut self, part: &Run<'_>) {
        if self.compensated {
            add_compensated(&mut self.total, &mut self.carry.0, part.total);
            add_compensated(&mut self.total, &mut self.carry.0, part.carry.0);
            add_compensated(&mut self.mass, &mut self.carry.1, part.mass);
            add_compensated(&mut self.mass, &mut self.carry.1, part.carry.1);
            add_compensated(&mut self.failure, &mut self.carry.2, part.failure);
            add_compensated(&mut self.failure, &mut self.carry.2, part.carry.2);
        } else {
            self.total += part.total;
            self.mass += part.mass;
            self.failure += part.failure;
        }
        self.states += part.states;
        for (sum, x) in self.event_up.iter_mut().zip(&part.event_up) {
            *sum += x;
        }
        for (sum, x) in self.var_gain.iter_mut().zip(&part.var_gain) {
            *sum += x;
        }
        for (mine, theirs) in self.footprints.iter_mut().zip(&part.footprints) {
            mine.direct_gain += theirs.direct_gain;
            // Adding the zero of a state the chunk did not visit changes
            // nothing (every weight is a sum of non-negative products).
            for (sum, &w) in mine.weight.iter_mut().zip(&theirs.weight) {
                *sum += w;
            }
        }
    }

    /// Visits every state of the events. From [`PARALLEL_STATES`] states
    /// on, in fixed chunks of [`CHUNK_STATES`] run in parallel and summed
    /// in chunk order: the figure does not depend on the number of
    /// threads.
    fn exhaust(&mut self) {
        let count = 1u64 << self.down.len();
        if count < PARALLEL_STATES {
            self.visit_range(0..count);
            return;
        }
        let this = &*self;
        let parts: Vec<Run<'a>> = (0..count / CHUNK_STATES)
            .into_par_iter()
            .map(|chunk| {
                let mut part = this.fork();
                part.visit_range(chunk * CHUNK_STATES..(chunk + 1) * CHUNK_STATES);
                part
            })
            .collect();
        for part in &parts {
            self.merge(part);
        }
    }

    /// Visits the states whose masks are in `masks` (bit i = event i down).
    fn visit_range(&mut self, masks: std::ops::Range<u64>) {
        for mask in masks {
            for (i, down) in self.down.iter_mut().enumerate() {
                *down = mask & (1 << i) != 0;
            }
            self.visit();
        }
    }

    /// Visits states most probable first until the rest weighs less than
    /// [`BOUND_WIDTH`] or the state limit (see [`Run::state_limit`]) is
    /// reached. Which states are visited depends only on the events'
    /// probabilities, so they are listed first, in batches of
    /// [`BATCH_STATES`], and each batch is evaluated in fixed chunks of
    /// [`CHUNK_BEST_FIRST`] across threads and summed in chunk order: the
    /// figure does not depend on the number of threads.
    fn best_first(&mut self, work: usize) {
        self.compensated = true;
        let events = &self.model.events;
        // Base: each event at its likelier value; flipping i multiplies the
        // probability by ratio[i] <= 1. Events sorted by ratio, largest first.
        let base: Vec<bool> = events.iter().map(|e| e.up < 0.5).collect();
        let mut order: Vec<(f64, usize)> = events
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let (likely, unlikely) = if e.up >= 0.5 {
                    (e.up, 1.0 - e.up)
                } else {
                    (1.0 - e.up, e.up)
                };
                (unlikely / likely, i)
            })
            .collect();
        order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let events_of =
            |flipped: &[usize]| -> Vec<usize> { flipped.iter().map(|&k| order[k].1).collect() };
        let probability = |flipped: &[usize]| -> f64 {
            let mut down = base.clone();
            for &k in flipped {
                down[order[k].1] = !down[order[k].1];
            }
            events
                .iter()
                .zip(&down)
                .map(|(e, &d)| if d { 1.0 - e.up } else { e.up })
                .product()
        };
        let mut batch: Vec<Vec<usize>> = vec![Vec::new()];
        let mut mass = probability(&[]);
        let mut listed = 1;
        let mut heap = BinaryHeap::new();
        let mut flips: Vec<Vec<usize>> = Vec::new();
        if !order.is_empty() {
            flips.push(vec![0]);
            heap.push(Candidate {
                weight: order[0].0,
                sequence: 0,
            });
        }
        let limit = self.state_limit(work);
        while let Some(Candidate { weight, sequence }) = heap.pop() {
            if 1.0 - mass <= BOUND_WIDTH || listed >= limit {
                break;
            }
            let flipped = std::mem::take(&mut flips[sequence]);
            mass += probability(&flipped);
            listed += 1;
            batch.push(events_of(&flipped));
            if batch.len() == BATCH_STATES {
                self.visit_flipped(&base, &batch);
                batch.clear();
            }
            push_successors(&order, flipped, weight, &mut heap, &mut flips);
        }
        self.visit_flipped(&base, &batch);
    }

    /// Visits the states `base` with the events of each item of `batch`
    /// flipped, in chunks of [`CHUNK_BEST_FIRST`] (in parallel when there
    /// are several), summed in chunk order.
    fn visit_flipped(&mut self, base: &[bool], batch: &[Vec<usize>]) {
        let visit_chunk = |run: &mut Run<'_>, chunk: &[Vec<usize>]| {
            for flipped in chunk {
                run.down.copy_from_slice(base);
                for &e in flipped {
                    run.down[e] = !run.down[e];
                }
                run.visit();
            }
        };
        if batch.len() <= CHUNK_BEST_FIRST {
            let mut part = self.fork();
            visit_chunk(&mut part, batch);
            self.merge(&part);
            return;
        }
        let this = &*self;
        let parts: Vec<Run<'a>> = batch
            .par_chunks(CHUNK_BEST_FIRST)
            .map(|chunk| {
                let mut part = this.fork();
                visit_chunk(&mut part, chunk);
                part
            })
            .collect();
        for part in &parts {
            self.merge(part);
        }
    }

    /// The bracket of a bounded run from the visited states' sums,
    /// `[lower, upper]` of the availability before the factor bounds:
    /// the availability's and the unavailability's, each end widened by
    /// its roundings.
    fn bracket(&self, [mut lower, mut upper]: [f64; 2]) -> [f64; 4] {
        // The visited states bound the figure; so does the product of its
        // factors' expectations (see [`Run::factor_bounds`]): keep the
        // tighter of each.
        let (low, high) = self.factor_bounds();
        lower = lower.max(low.min(upper));
        upper = upper.min(high).max(lower);
        // Each state's term is a product of about this many roundings,
        // and the BDD pass adds one per level: widen the bracket by that
        // much so rounding cannot take it off the truth.
        let roundings = self.model.events.len()
            + self.footprints.len()
            + self.structure.vars.len()
            + self.structure.modules.len()
            + 8;
        let allowance = roundings as f64 * f64::EPSILON;
        lower = honest_lower((lower - allowance).max(0.0));
        upper = (upper + allowance).min(1.0);
        // The same in failure space: the visited states' failures are a
        // lower bound (to a relative rounding), and the unvisited ones add
        // at most their weight.
        let visited = self.failure.clamp(0.0, 1.0);
        let unvisited = (1.0 - self.mass).max(0.0);
        let failure = (visited * (1.0 - allowance))
            .max(1.0 - high - allowance)
            .clamp(0.0, 1.0);
        let failure_upper = (visited * (1.0 + allowance) + unvisited + allowance)
            .min(1.0 - low + allowance)
            .clamp(failure, 1.0);
        [lower, upper, failure, failure_upper]
    }

    /// Bounds on the figure from its factors, whatever the number of
    /// events. The figure is `E[Π_j F_j(s)]`: one factor per footprint of
    /// the series part and one for the alternatives, each a non-decreasing
    /// function of which events are up (an event up never takes an instance
    /// down, and the gates are monotone). For independent events, Harris's
    /// inequality gives `E[Π F_j] ≥ Π E[F_j]`; and since every factor is at
    /// most 1, `E[Π F_j] ≤ min_j E[F_j]`. A factor whose expectation cannot
    /// be had exactly contributes the lower bound `P(its events all up) ×
    /// F(all up)` and no upper bound.
    fn factor_bounds(&self) -> (f64, f64) {
        let events = &self.model.events;
        let mut lower = 1.0;
        let mut upper: f64 = 1.0;
        let all_up =
            |footprint: &[usize]| -> f64 { footprint.iter().map(|&e| events[e].up).product() };
        for footprint in &self.footprints {
            if let Some(table) = &footprint.table {
                let expected: f64 = table
                    .iter()
                    .enumerate()
                    .map(|(mask, &value)| {
                        let p: f64 = footprint
                            .events
                            .iter()
                            .enumerate()
                            .map(|(i, &e)| {
                                if mask & (1 << i) != 0 {
                                    1.0 - events[e].up
                                } else {
                                    events[e].up
                                }
                            })
                            .product();
                        p * value
                    })
                    .sum();
                lower *= expected;
                upper = upper.min(expected);
            } else {
                let leaf = &self.model.leaves[footprint.members[0]];
                if let Some(expected) = expected_health(leaf, self.model) {
                    lower *= expected;
                    upper = upper.min(expected);
                } else {
                    lower *= all_up(&leaf.footprint)
                        * leaf.healthy(|_| false, &self.model.folded, false);
                }
            }
        }
        if !self.structure.vars.is_empty() || !self.structure.modules.is_empty() {
            // The alternatives: at least their value with every event up,
            // times the probability of that.
            let series_len = self.structure.series.len();
            let mut needed: Vec<usize> = self.model.leaves[series_len..]
                .iter()
                .flat_map(|leaf| leaf.footprint.iter().copied())
                .collect();
            needed.sort_unstable();
            needed.dedup();
            let mut p: Vec<f64> = self.model.leaves
                [series_len..series_len + self.structure.vars.len()]
                .iter()
                .map(|leaf| leaf.healthy(|_| false, &self.model.folded, false))
                .collect();
            let mut start = series_len + self.structure.vars.len();
            let mut row = Vec::new();
            for module in &self.structure.modules {
                let members = &self.model.leaves[start..start + module.members.len()];
                start += module.members.len();
                p.push(events::tail(
                    module.k,
                    members
                        .iter()
                        .map(|leaf| leaf.healthy(|_| false, &self.model.folded, false)),
                    &mut row,
                ));
            }
            let mut values = Vec::new();
            lower *= all_up(&needed)
                * self
                    .structure
                    .bdd
                    .probability(self.structure.root, &p, &mut values);
        }
        (lower.clamp(0.0, 1.0), upper.clamp(0.0, 1.0))
    }

    /// Most states a bounded figure visits: [`MAX_STATES`], fewer when one
    /// state costs much (many events, footprints or BDD nodes), so that a
    /// bounded figure costs at most about [`MAX_VISIT_WORK`] steps (about a
    /// second of one core).
    fn state_limit(&self, work: usize) -> usize {
        (work / self.state_cost()).clamp(1_000, MAX_STATES)
    }

    /// The steps one state costs, for [`Run::state_limit`].
    fn state_cost(&self) -> usize {
        // A BDD variable's health is worked out per state (twice, with and
        // without its own failures): it weighs more than a node.
        // Tabled, it is a mask and two look-ups.
        let per_var: usize = self
            .tables
            .iter()
            .take(self.structure.vars.len())
            .map(|t| t.as_ref().map_or(128, |t| 8 + 2 * t.events.len()))
            .sum();
        4 * self.model.events.len()
            + 8 * self.footprints.len()
            + self.structure.bdd.len()
            + per_var
            + self
                .structure
                .modules
                .iter()
                .map(|m| m.members.len() * m.k)
                .sum::<usize>()
            + 1
    }

    /// The improvement table: components, then events, by gain.
    fn improvement(&self, model: &Model, components: &[ComponentId]) -> Vec<(Subject, f64)> {
        let mut gains: Vec<(Subject, f64)> = Vec::new();
        let (mut p, mut q, mut prefix, mut suffix) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for footprint in &self.footprints {
            if footprint.table.is_none() {
                gains.push((
                    Subject::Component(components[footprint.members[0]]),
                    footprint.direct_gain,
                ));
                continue;
            }
            let mut per_member = vec![0.0; footprint.members.len()];
            // The states visited, in ascending masks. A state of weight
            // zero would add nothing (zero times a probability), so the
            // dense table skips what a map of the visited states held.
            for (mask, &weight) in footprint.weight.iter().enumerate() {
                if weight == 0.0 {
                    continue;
                }
                let down = |e: usize| local_down(&footprint.events, mask as u64, e);
                p.clear();
                q.clear();
                for &m in &footprint.members {
                    if let Some(health) = self.health.get(m).and_then(Option::as_ref) {
                        p.push(health.p[mask]);
                        q.push(health.q[mask]);
                    } else {
                        let leaf = &self.model.leaves[m];
                        p.push(leaf.healthy(down, &self.model.folded, false));
                        q.push(leaf.healthy(down, &self.model.folded, true));
                    }
                }
                products_without(&p, &mut prefix, &mut suffix);
                for i in 0..footprint.members.len() {
                    per_member[i] += weight * prefix[i] * suffix[i + 1] * (q[i] - p[i]);
                }
            }
            for (i, &m) in footprint.members.iter().enumerate() {
                gains.push((Subject::Component(components[m]), per_member[i]));
            }
        }
        for (v, &gain) in self
            .var_gain
            .iter()
            .enumerate()
            .take(self.structure.vars.len())
        {
            gains.push((Subject::Component(self.structure.vars[v]), gain));
        }
        for (i, event) in self.model.events.iter().enumerate() {
            gains.push((event.subject, self.event_up[i] - self.total));
        }
        gains.retain(|&(_, gain)| gain > 1e-15);
        gains.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| a.0.name(model).cmp(b.0.name(model)))
        });
        gains
    }
}

/// Whether any of these components, or a domain or group it is in, has an
/// availability figure.
fn quantified(model: &Model, components: &[ComponentId]) -> bool {
    components.iter().any(|&c| {
        let component = model.component(c);
        component.availability.is_some()
            || component.placement.iter().any(|&(d, _)| {
                std::iter::once(d)
                    .chain(model.domain(d).ancestors.iter().copied())
                    .any(|x| model.domain(x).availability.is_some())
            })
            || component
                .shares
                .iter()
                .any(|&g| model.group(g).availability.is_some())
    })
}

/// What matters to these components but has no availability figure.
fn unquantified(model: &Model, components: &[ComponentId]) -> Vec<Subject> {
    let mut out = Vec::new();
    for &c in components {
        let component = model.component(c);
        if component.availability.is_none() {
            out.push(Subject::Component(c));
        }
        for &(d, _) in &component.placement {
            for x in std::iter::once(d).chain(model.domain(d).ancestors.iter().copied()) {
                if model.domain(x).availability.is_none() {
                    out.push(Subject::Domain(x));
                }
            }
        }
        for &g in &component.shares {
            if model.group(g).availability.is_none() {
                out.push(Subject::Group(g));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The probability a component is healthy over every state of the events,
/// when its entries need disjoint sets of events (one instance per zone
/// across many zones): then the entries are up independently, and the
/// events can be integrated into the leaf like folded ones. `None` when
/// two entries share an event.
fn expected_health(leaf: &events::Leaf, model: &EventModel) -> Option<f64> {
    let mut seen = std::collections::HashSet::new();
    for (_, needs) in &leaf.entries {
        for &e in needs {
            if !seen.insert(e) {
                return None;
            }
        }
    }
    // Every event becomes a folded one, after the folded ones already there.
    let offset = model.folded.len();
    let mut folded = model.folded.clone();
    folded.extend(model.events.iter().copied());
    let integrated = events::Leaf {
        entries: leaf
            .entries
            .iter()
            .map(|(count, _)| (*count, Vec::new()))
            .collect(),
        groups: Vec::new(),
        availability: leaf.availability,
        min_healthy: leaf.min_healthy,
        footprint: Vec::new(),
        private: leaf
            .entries
            .iter()
            .zip(&leaf.private)
            .map(|((_, needs), private)| {
                private
                    .iter()
                    .copied()
                    .chain(needs.iter().map(|&e| offset + e))
                    .collect()
            })
            .collect(),
        pseudo: leaf.pseudo,
    };
    let groups: f64 = leaf.groups.iter().map(|&g| model.events[g].up).product();
    Some(groups * integrated.healthy(|_| false, &folded, false))
}

/// Whether `event` is down in the state `mask` of `events` (bit i = the
/// i-th of `events` down).
pub(super) fn local_down(events: &[usize], mask: u64, event: usize) -> bool {
    events
        .iter()
        .position(|&e| e == event)
        .is_some_and(|i| mask & (1 << i) != 0)
}

fn mask_of(events: &[usize], down: &[bool]) -> u64 {
    events.iter().enumerate().fold(
        0,
        |mask, (i, &e)| if down[e] { mask | (1 << i) } else { mask },
    )
}

/// The probability that not every one of independent parts holds, given
/// the probability each fails: `1 − Π (1 − u_i)` as `−expm1(Σ ln_1p(−u_i))`,
/// so that parts failing with 1e-20 each add up instead of vanishing.
pub(crate) fn series_failure(failures: impl Iterator<Item = f64>) -> f64 {
    (-log_health(failures).exp_m1()).clamp(0.0, 1.0)
}

/// `ln Π (1 − u_i)` as `Σ ln_1p(−u_i)` (−∞ when one part surely fails).
fn log_health(failures: impl Iterator<Item = f64>) -> f64 {
    failures.map(|u| (-u).ln_1p()).sum()
}

/// Adds `x` to `sum`, keeping what rounding lost in `carry` (Neumaier).
fn add_compensated(sum: &mut f64, carry: &mut f64, x: f64) {
    let t = *sum + x;
    if sum.abs() >= x.abs() {
        *carry += (*sum - t) + x;
    } else {
        *carry += (x - t) + *sum;
    }
    *sum = t;
}

/// Prefix and suffix products into `prefix` and `suffix`, so
/// `prefix[i] × suffix[i + 1]` is the product of all but item i, without
/// dividing (an item may be zero).
fn products_without(items: &[f64], prefix: &mut Vec<f64>, suffix: &mut Vec<f64>) {
    prefix.clear();
    prefix.push(1.0);
    for &x in items {
        prefix.push(prefix.last().copied().unwrap_or(1.0) * x);
    }
    suffix.clear();
    suffix.resize(items.len() + 1, 1.0);
    for i in (0..items.len()).rev() {
        suffix[i] = suffix[i + 1] * items[i];
    }
}

/// Queues the successors of a set of flips (positions in `order`, the
/// events sorted by ratio, largest first): the next position added, and the
/// last one moved on to it. Every set is reached once, from the root `[]`
/// (whose only successor is `[0]`). Shared by best-first here and in
/// [`super::gates`].
pub(super) fn push_successors(
    order: &[(f64, usize)],
    flipped: Vec<usize>,
    weight: f64,
    heap: &mut BinaryHeap<Candidate>,
    flips: &mut Vec<Vec<usize>>,
) {
    let next = flipped.last().map_or(0, |&l| l + 1);
    if next >= order.len() {
        return;
    }
    let mut extended = flipped.clone();
    extended.push(next);
    heap.push(Candidate {
        weight: weight * order[next].0,
        sequence: flips.len(),
    });
    flips.push(extended);
    if let Some(&last) = flipped.last() {
        let mut moved = flipped;
        if let Some(l) = moved.last_mut() {
            *l = next;
        }
        let ratio = if order[last].0 > 0.0 {
            order[next].0 / order[last].0
        } else {
            0.0
        };
        heap.push(Candidate {
            weight: weight * ratio,
            sequence: flips.len(),
        });
        flips.push(moved);
    }
}

/// A set of flipped events (positions in the ratio order, kept apart under
/// `sequence`) and its weight relative to the base state. Ties are broken
/// by the sequence number (first pushed, first visited), never by
/// comparing the sets. Shared with [`super::gates`]'s best-first walk.
pub(super) struct Candidate {
    pub(super) weight: f64,
    pub(super) sequence: usize,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.weight
            .total_cmp(&other.weight)
            .then_with(|| other.sequence.cmp(&self.sequence))
    }
}

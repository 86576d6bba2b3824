//! The system model: how it is read (`load`, `decode`), what it means
//! (`validate`), and the validated [`Model`] every analysis reads, with its
//! component graph (`graph`, on petgraph) and intact loads (`intact`).
//!
//! ```text
//! text ──load──▶ Node tree ──decode──▶ RawModel ──validate──▶ Model
//!        (spans)            (keys, units)        (references, cross-field rules)
//! ```
//!
//! Every stage collects all the problems it finds; a model with any problem
//! is not analysed.

mod chunks;
pub mod decode;
pub mod error;
pub mod graph;
pub mod intact;
pub mod latency;
pub mod layout;
pub mod load;
pub mod raw;
pub mod rule;
pub mod set;
pub mod span;
pub mod units;
pub mod validate;

pub use error::Problem;
pub use latency::{Breaker, EdgeLimits, Hedge, Latency};
pub use rule::Rule;
pub use span::Span;
pub use units::{
    Backoff, Criticality, Date, Down, Duration, Percentile, Plane, Prewarm, Replication,
};

/// Index of a component in [`Model::components`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ComponentId(pub usize);
/// Index of a domain in [`Model::domains`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DomainId(pub usize);
/// Index of a shared-fate group in [`Model::groups`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupId(pub usize);

/// The spans of the keys written for one entity, by key. Each is kept as
/// the key's place in its entity's list of keys and the span's offset and
/// length in 32 bits (12 bytes instead of 32: a model holds about twenty
/// per component); the model text is under
/// [`load::MAX_LARGE_MODEL_BYTES`], so every offset fits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields {
    // (Offsets into a text of at most `MAX_LARGE_MODEL_BYTES`: see the
    // assertion below.)
    keys: &'static [&'static str],
    written: Box<[(u8, u32, u32)]>,
}

const _: () = assert!(load::MAX_LARGE_MODEL_BYTES < u32::MAX as usize);

impl Fields {
    /// The keys `written` (each one of `keys`) with their spans.
    #[must_use]
    pub fn new(keys: &'static [&'static str], written: &[(&'static str, Span)]) -> Self {
        let narrow = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let mut compact = Vec::with_capacity(written.len());
        for &(key, span) in written {
            if let Some(at) = keys.iter().position(|k| *k == key)
                && let Ok(at) = u8::try_from(at)
            {
                compact.push((at, narrow(span.offset), narrow(span.len)));
            }
        }
        Self {
            keys,
            written: compact.into_boxed_slice(),
        }
    }

    /// Where `key` was written, if it was.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<Span> {
        let at = self.keys.iter().position(|k| *k == key)?;
        self.written
            .iter()
            .find(|&&(k, _, _)| usize::from(k) == at)
            .map(|&(_, offset, len)| Span::new(offset as usize, len as usize))
    }
}

/// A validated model: names resolved to ids, units parsed, defaults applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The system's name.
    pub system: String,
    /// The availability promise, if any.
    pub objective: Option<Objective>,
    /// Where requests enter, in the order given (or model order by default).
    pub entrypoints: Vec<ComponentId>,
    /// Each entrypoint's share of the requests, in `entrypoints` order,
    /// when the model gives the request mix (empty otherwise).
    pub entrypoint_shares: Vec<f64>,
    /// Thresholds, with defaults applied.
    pub policy: Policy,
    /// Failure domains, in model order.
    pub domains: Vec<Domain>,
    /// Shared-fate groups, in model order.
    pub groups: Vec<Group>,
    /// Components, in model order.
    pub components: Vec<Component>,
    /// Accepted findings.
    pub accepted: Vec<Accepted>,
    /// Where the `system` key is (findings about the whole model point here).
    pub span: Span,
}

/// The availability target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Objective {
    /// Target availability per entrypoint.
    pub availability: f64,
    /// Budget window.
    pub window: Duration,
    /// Where it is written.
    pub span: Span,
}

/// Check thresholds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    /// Ceiling on utilization after a loss.
    pub max_utilization: f64,
    /// Domains of one kind that must be losable at once.
    pub survive: u32,
    /// Ceiling on retry amplification.
    pub max_retry_amplification: f64,
    /// Dedicated fallback size over the largest load it covers.
    pub fallback_headroom: f64,
    /// Oldest acceptable recovery drill.
    pub drill_max_age: Duration,
    /// Which components `check` judges hanging: `Some(true)` every one,
    /// `Some(false)` none, `None` (the default) those some caller calls
    /// without a timeout.
    pub slow: Option<bool>,
    /// A pool is sized for its in-flight calls at normal latency times this.
    pub pool_headroom: f64,
    /// Recovery-simulation figures as written (`None`: the default applies).
    pub recovery: RecoveryPolicy,
}

/// The figures `nines recover` needs that a model may leave out; each is
/// `None` when not written, so the output can name the defaults it used.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RecoveryPolicy {
    /// Share of capacity a restarted instance with a warmup starts at.
    pub cold_capacity: Option<f64>,
    /// First admitted share of the target rate.
    pub ramp_start: Option<f64>,
    /// Multiplicative growth below half the target.
    pub ramp_increase: Option<f64>,
    /// Additive growth from half the target on.
    pub ramp_step: Option<f64>,
    /// Multiplicative decrease after a breach.
    pub ramp_decrease: Option<f64>,
    /// Time between ramp steps and between start waves.
    pub ramp_interval: Option<Duration>,
    /// Retries of the clients outside the entrypoints.
    pub client_retries: Option<u32>,
    /// Timeout of one client attempt.
    pub client_timeout: Option<Duration>,
    /// Client retry spacing.
    pub client_backoff: Option<Backoff>,
    /// Highest share of capacity the ramp loads a component to.
    pub ramp_ceiling: Option<f64>,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            max_utilization: 1.0,
            survive: 1,
            max_retry_amplification: 10.0,
            fallback_headroom: 1.5,
            drill_max_age: Duration(90 * 86_400_000),
            slow: None,
            pool_headroom: 1.5,
            recovery: RecoveryPolicy::default(),
        }
    }
}

/// A failure domain.
#[derive(Debug, Clone, PartialEq)]
pub struct Domain {
    /// Its name.
    pub name: String,
    /// Its level (region, zone …).
    pub kind: String,
    /// The domain it is in.
    pub parent: Option<DomainId>,
    /// Every domain it is inside, nearest first.
    pub ancestors: Vec<DomainId>,
    /// Chance it is up; `None` counts as never failing in the figure.
    pub availability: Option<f64>,
    /// Mean time to restore it, when given (the frequency of its losses).
    pub mttr: Option<Duration>,
    /// Where its name is written.
    pub span: Span,
    /// Where each key is written.
    pub fields: Fields,
}

/// A shared-fate group.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Its name.
    pub name: String,
    /// What kind of cause it is.
    pub kind: Option<String>,
    /// Chance it has not fired.
    pub availability: Option<f64>,
    /// When it lapses.
    pub expires: Option<Date>,
    /// Where its name is written.
    pub span: Span,
    /// Where each key is written.
    pub fields: Fields,
}

/// Peak load against capacity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capacity {
    /// What one instance can carry.
    pub per_instance: f64,
    /// Peak load on the whole component in the intact state: as written,
    /// or, when `load` is not written, the sum of the loads its callers send
    /// it (see [`crate::engine::state`]).
    pub load: f64,
    /// Whether `load` was derived from the callers instead of written.
    pub derived: bool,
}

/// A component.
#[derive(Debug, Clone, PartialEq)]
pub struct Component {
    /// Its name.
    pub name: String,
    /// Free-text kind.
    pub kind: Option<String>,
    /// Data or control plane.
    pub plane: Plane,
    /// Criticality tier.
    pub criticality: Criticality,
    /// Number of instances (at least 1).
    pub instances: u32,
    /// Instances per listed domain, adding up to `instances`; empty when unplaced.
    pub placement: Vec<(DomainId, u32)>,
    /// Instances that must be up for the component to be up.
    pub min_healthy: u32,
    /// Availability of one instance; `None` when not given (unquantified).
    pub availability: Option<f64>,
    /// Mean time to repair one instance, when given (with `mtbf` or with
    /// `availability`): with the availability it gives the failure frequency.
    pub mttr: Option<Duration>,
    /// Capacity and load, when given.
    pub capacity: Option<Capacity>,
    /// Whether overload sheds instead of collapsing.
    pub load_shedding: bool,
    /// A rate limit for the whole component, independent of its instances.
    pub rate_limit: Option<f64>,
    /// Time to full capacity after a cold start.
    pub warmup: Option<Duration>,
    /// What it does with connections while down (`nines recover`).
    pub down: Down,
    /// Whether a cache restores its contents on its own after a restart.
    pub prewarm: Prewarm,
    /// How long a queue keeps an event.
    pub retention: Option<Duration>,
    /// Shared-fate groups it belongs to.
    pub shares: Vec<GroupId>,
    /// Where its load goes when it fails.
    pub failover_to: Option<ComponentId>,
    /// Whether the team does not run it (a managed or external service).
    pub managed: bool,
    /// Its own availability objective (meant for entrypoints) and where it
    /// is written.
    pub objective: Option<(f64, Span)>,
    /// How long its own clients wait (meant for entrypoints).
    pub timeout: Option<Duration>,
    /// Its own service time by percentile, when given (boxed: few
    /// components have one).
    pub latency: Option<Box<Latency>>,
    /// Its request pool (threads, event-loop slots, a concurrency limit).
    pub workers: Option<u32>,
    /// What it calls.
    pub depends_on: Vec<Edge>,
    /// How its data is recovered (boxed: few components have one, and
    /// inline it would be 40% of every component).
    pub recovery: Option<Box<Recovery>>,
    /// Where its name is written.
    pub span: Span,
    /// Where each key is written.
    pub fields: Fields,
    /// Set only on the components the engine's capacity compilation adds
    /// (`engine::capacity`): what its health stands for. `None` for every
    /// component read from a model.
    pub pseudo: Option<Pseudo>,
}

impl Component {
    /// Whether its kind is a queue kind (queue, stream, topic, kafka,
    /// pubsub, broker): it keeps what it is sent until consumed.
    #[must_use]
    pub fn is_queue(&self) -> bool {
        self.kind
            .as_deref()
            .is_some_and(|k| validate::QUEUE_KINDS.contains(&k))
    }
}

/// What a component added by the capacity compilation stands for, in
/// place of "at least `min_healthy` instances up".
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pseudo {
    /// One band of its instance count: at least `min_healthy` up given
    /// that fewer than `below` are (the bands of one component, taken as
    /// independent given the correlated events, give the distribution of
    /// its count: `[n ≥ k_j]` is "some band from `j` up holds").
    Band {
        /// The next band's threshold (exclusive upper end of this one).
        below: u32,
    },
    /// The share of `load` its running instances serve,
    /// `min(1, min(n × per_instance, limit) / load)` for `n ≥ min_healthy`,
    /// as an expectation (the served figure of a shedding or rate-limited
    /// component).
    Share {
        /// The load it is offered.
        load: f64,
        /// Its rate limit (infinite without one).
        limit: f64,
        /// Whether it sheds past its capacity (without, it collapses
        /// there and serves nothing).
        sheds: bool,
    },
}

/// The shape of a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeKind {
    /// One target.
    Target,
    /// At least one of the targets.
    AnyOf,
    /// At least k of the targets.
    AtLeast,
}

/// A call from a component to its dependencies.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// How the targets combine.
    pub kind: EdgeKind,
    /// The components called (one for `Target`).
    pub targets: Vec<ComponentId>,
    /// How many targets must be up (1 for `Target` and `AnyOf`).
    pub at_least: u32,
    /// Extra attempts after the first.
    pub retries: u32,
    /// Retry spacing.
    pub backoff: Backoff,
    /// Cap on retries as a share of calls.
    pub retry_budget: Option<f64>,
    /// Per-attempt timeout.
    pub timeout: Option<Duration>,
    /// Share of calls answered by a cache in front.
    pub hit_rate: Option<f64>,
    /// The component that is that cache: while it is down, or caches are
    /// cold, the edge's hit rate is 0.
    pub cached_by: Option<ComponentId>,
    /// Calls per request (for a share of the requests, the calls of one
    /// of them times that share).
    pub calls: f64,
    /// The share of the caller's requests that make this call (`shards`,
    /// or `share` per target): the edges of one caller with a share form
    /// a partition, each request taking one of them (or none).
    pub share: Option<f64>,
    /// Whether the caller still works without it.
    pub degradable: bool,
    /// Whether the caller pulls from the target (a consumer of a queue):
    /// its rate adds nothing to the target's load.
    pub pull: bool,
    /// Time a standby takes to serve after an active alternative fails
    /// (`any_of`/`at_least` only); `None` for hot alternatives.
    pub switchover: Option<Duration>,
    /// Its bulkhead, connection limit, connect timeout, breaker and hedge,
    /// when it has any (boxed: few edges do).
    pub limits: Option<Box<EdgeLimits>>,
    /// Where the entry is written.
    pub span: Span,
    /// Where each key is written (empty for the short form `- name`).
    pub fields: Fields,
}

impl Edge {
    /// A required call to `targets` (one `target` edge, or `any_of` once
    /// `kind` is set) with every option at its default: the short form
    /// `- name`, and what compiled models build.
    #[must_use]
    pub fn required(targets: Vec<ComponentId>, span: Span) -> Edge {
        Edge {
            kind: EdgeKind::Target,
            targets,
            at_least: 1,
            retries: 0,
            backoff: Backoff::None,
            retry_budget: None,
            timeout: None,
            hit_rate: None,
            cached_by: None,
            calls: 1.0,
            share: None,
            degradable: false,
            pull: false,
            switchover: None,
            limits: None,
            span,
            fields: Fields::default(),
        }
    }
}

/// Recovery procedure and targets.
#[derive(Debug, Clone, PartialEq)]
pub struct Recovery {
    /// Target: longest tolerable outage.
    pub rto: Option<Duration>,
    /// Target: most data that may be lost.
    pub rpo: Option<Duration>,
    /// Backup interval.
    pub backup_interval: Option<Duration>,
    /// Log shipping interval.
    pub log_shipping: Option<Duration>,
    /// Replication mode.
    pub replication: Replication,
    /// Worst async lag.
    pub replication_lag: Option<Duration>,
    /// Time to detect.
    pub detect: Option<Duration>,
    /// Time to decide.
    pub decide: Option<Duration>,
    /// Time to restore from backup.
    pub restore: Option<Duration>,
    /// Time to fail over to a standby.
    pub failover: Option<Duration>,
    /// Last rehearsal.
    pub last_drill: Option<Date>,
    /// What the procedure depends on.
    pub needs: Vec<ComponentId>,
    /// Where the `recovery` block starts.
    pub span: Span,
    /// Where each key is written.
    pub fields: Fields,
}

/// An accepted finding.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The finding id.
    pub id: String,
    /// Why.
    pub reason: String,
    /// Until when.
    pub expires: Option<Date>,
    /// Where the id is written.
    pub span: Span,
}

impl Model {
    /// The component with this id.
    #[must_use]
    pub fn component(&self, id: ComponentId) -> &Component {
        &self.components[id.0]
    }

    /// The domain with this id.
    #[must_use]
    pub fn domain(&self, id: DomainId) -> &Domain {
        &self.domains[id.0]
    }

    /// The group with this id.
    #[must_use]
    pub fn group(&self, id: GroupId) -> &Group {
        &self.groups[id.0]
    }

    /// The objective of an entrypoint: its own `objective` with the model's
    /// window (30 days without one), else the model-wide objective.
    #[must_use]
    pub fn objective_of(&self, entrypoint: ComponentId) -> Option<Objective> {
        match self.component(entrypoint).objective {
            Some((availability, span)) => Some(Objective {
                availability,
                window: self
                    .objective
                    .map_or(Duration(30 * 86_400_000), |o| o.window),
                span,
            }),
            None => self.objective,
        }
    }

    /// How long switching away from an `any_of`/`at_least` edge's active
    /// alternatives takes: `switchover` when given; else, when the first
    /// alternative's `failover_to` names another alternative of the edge,
    /// its recovery's detect + decide + failover; else none (hot). An
    /// edge with a switchover has standbys: its first `at_least`
    /// alternatives are active, the rest carry nothing until an active
    /// one is down.
    #[must_use]
    pub fn switchover(&self, edge: &Edge) -> Option<Duration> {
        if edge.kind == EdgeKind::Target {
            return None;
        }
        if edge.switchover.is_some() {
            return edge.switchover.filter(|d| d.0 > 0);
        }
        let active = self.component(edge.targets[0]);
        active.failover_to.filter(|t| edge.targets.contains(t))?;
        let recovery = active.recovery.as_ref()?;
        let parts = [recovery.detect, recovery.decide, recovery.failover];
        if parts.iter().all(Option::is_none) {
            return None;
        }
        let ms = parts.iter().flatten().map(|d| d.0).sum::<u64>();
        (ms > 0).then_some(Duration(ms))
    }

    /// Component ids in model order.
    pub fn component_ids(&self) -> impl Iterator<Item = ComponentId> + use<> {
        (0..self.components.len()).map(ComponentId)
    }
}

/// Reads and validates a model from its text, reporting every problem. A
/// text over [`load::MAX_MODEL_BYTES`] (up to
/// [`load::MAX_LARGE_MODEL_BYTES`]) is read only in pieces.
///
/// # Errors
/// Every problem found, in source order.
pub fn parse(text: &str) -> Result<Model, Vec<Problem>> {
    // Cut once: the model is read from the cuts, or a syntax error located
    // with them.
    let cuts = chunks::layout(text, chunks::CHUNK_BYTES);
    if let Some(cuts) = &cuts
        && let Some(result) = validate::read(text, cuts)
    {
        return result;
    }
    if text.len() > load::MAX_MODEL_BYTES {
        // Cut into pieces but not read in them: a syntax error in one piece
        // is reported where it is, not as the size of the file.
        let problem = cuts
            .and_then(|cuts| chunks::syntax_error(text, &cuts))
            .unwrap_or_else(|| Problem::too_large(text.len()));
        return Err(vec![problem]);
    }
    let root = load::parse(text).map_err(|problem| vec![problem])?;
    validate::validate(text, root)
}

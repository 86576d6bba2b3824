//! The [`Audit`]: everything one run found, in the shape of the JSON wire
//! format (ANALYSES.md, documented in `docs/json.md`). The analyzers fill
//! it; the renderers in `render/` read it and never compute. It lives here,
//! below the renderers, so that data flows one way.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;

use super::{Finding, Location, Severity, Status};
use crate::model::ComponentId;

/// The result of the analyses (`analyze::audit`): what `nines check` renders.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Audit {
    /// The system's name.
    pub system: String,
    /// Availability per entrypoint, by name.
    pub availability: BTreeMap<String, AvailabilityRow>,
    /// The figures over the request mix, when `entrypoints` gives each its
    /// share of the requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_mix: Option<RequestMix>,
    /// Every finding, sorted by id.
    pub findings: Vec<Finding>,
    /// Ids of the `--baseline` file that no finding has any more, sorted:
    /// the baseline can be refreshed. Absent without a baseline or when
    /// nothing was fixed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<String>,
    /// The `--baseline` file, when one was given (SARIF's `baselineState`
    /// and the hint to refresh it need it; not part of the JSON report).
    #[serde(skip)]
    pub baseline: Option<Known>,
    /// N-k rows: one per component and loss.
    pub headroom: Vec<HeadroomRow>,
    /// Failover walks.
    pub cascades: Vec<Cascade>,
    /// Call paths with their retry amplification, worst first.
    pub retries: Vec<RetryPath>,
    /// Whether the call-path walk stopped at its bound before visiting
    /// every path (the rows are then the worst path visited per last hop).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub retries_truncated: bool,
    /// Paths that amplify but are not listed: `retries` stops at 1,000 rows
    /// or 20,000 component names in all (the worst paths are listed).
    #[serde(skip_serializing_if = "is_zero")]
    pub retries_omitted: usize,
    /// Worst-case latency per entrypoint: its slowest call path, each hop
    /// counted as `timeout × (1 + retries)`, against the entrypoint's own
    /// `timeout` when it has one.
    pub latency: Vec<LatencyRow>,
    /// Cold-start order and cache stampedes.
    pub cold_start: ColdStart,
    /// Disaster-recovery figures per component.
    pub recovery: Vec<RecoveryRow>,
    /// Every request pool and edge limit at normal latency (docs/slow.md);
    /// absent when the model has none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pools: Vec<PoolRow>,
    /// Each credible slow dependency that saturates a pool (`policy.slow`):
    /// what it does to every pool and entrypoint; absent when none does.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slow: Vec<SlowEvent>,
    /// Whether the slow events judged stopped at their bound before every
    /// credible one was judged.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub slow_truncated: bool,
}

/// The availability of one entrypoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AvailabilityRow {
    /// Probability the entrypoint is up; `null` when nothing on its paths
    /// has a figure (n/a). With `unquantified` names it is an upper bound:
    /// they count as never failing.
    pub availability: Option<f64>,
    /// `exact` or `bounded`.
    pub method: &'static str,
    /// Lower bound (of the quantified part).
    pub lower: f64,
    /// Upper bound (of the quantified part).
    pub upper: f64,
    /// `1 − availability`, computed in failure space so that a figure of
    /// 1e-27 keeps its digits (where `availability` rounds to 1); `null`
    /// with the availability. The upper end of the bracket when bounded.
    pub unavailability: Option<f64>,
    /// Lower bound of the unavailability (`1 − upper`, unrounded).
    pub unavailability_lower: f64,
    /// Upper bound of the unavailability (`1 − lower`, unrounded).
    pub unavailability_upper: f64,
    /// `-log10(unavailability)` (99 for a perfect figure); `null` with the
    /// availability.
    pub nines: Option<f64>,
    /// Expected downtime per year (`unavailability` × a year), in seconds;
    /// `null` with the availability.
    pub downtime_per_year_s: Option<f64>,
    /// The objective's window, in seconds (30 days without an objective).
    pub window_s: f64,
    /// Expected downtime per window, in seconds; `null` with the availability.
    pub downtime_per_window_s: Option<f64>,
    /// The objective, when the model has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub objective: Option<f64>,
    /// Downtime the objective allows per window, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_budget_s: Option<f64>,
    /// Gain if a component, domain or group never failed, largest first.
    pub improvement: Vec<Improvement>,
    /// Names that matter but have no figure (counted as never failing).
    pub unquantified: Vec<String>,
    /// How many of those are components: a component without a figure
    /// makes the availability an upper bound (a domain or group without one
    /// is, by the format, one that only scenario checks use).
    pub unquantified_components: usize,
    /// Unavailability from switchovers to standbys, already included in
    /// `availability` (`Σ frequency × switchover`, docs/availability.md).
    pub switchover: f64,
    /// What the figure assumes that the model does not say, one line each
    /// (instant failover where the switchover frequency is unknown).
    pub caveats: Vec<String>,
    /// Why a bounded figure is not exact (absent when exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_bounded: Option<String>,
    /// The capacity-blind figure: every component up with `min_healthy`
    /// instances, whatever its load (`availability` is capacity-aware:
    /// docs/availability.md); `null` with the availability.
    pub structural_availability: Option<f64>,
    /// Its unavailability, in failure space.
    pub structural_unavailability: Option<f64>,
    /// The expected share of the entrypoint's peak requests served
    /// (request-weighted; shedding and rate limits serve a share):
    /// at least `availability`; `null` with the availability.
    pub served: Option<f64>,
    /// `exact`, or `lower bound` when `served` is one.
    pub served_method: &'static str,
    /// What capacity costs: per component whose capacity adds
    /// unavailability, how much, and the fleet that would carry its largest
    /// load, largest first.
    pub capacity: Vec<CapacityCostRow>,
}

/// The system over its request mix: each entrypoint's figure weighted by
/// its share of the requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestMix {
    /// Each entrypoint's share of the requests, by name.
    pub shares: BTreeMap<String, f64>,
    /// The share of requests that enter at an entrypoint serving its whole
    /// peak: Σ share × availability (`null` when an entrypoint has none).
    pub availability: Option<f64>,
    /// The expected share of all requests served: Σ share × served.
    pub served: Option<f64>,
    /// `exact`, or `lower bound` when an entrypoint's `served` is one.
    pub served_method: &'static str,
}

/// What one component's capacity costs an entrypoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CapacityCostRow {
    /// The component.
    pub component: String,
    /// Unavailability its capacity adds.
    pub unavailability: f64,
    /// The instances that carry its largest load with the spare it was
    /// designed with (absent when that takes nothing off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fleet: Option<u32>,
    /// The unavailability that fleet takes off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fleet_gain: Option<f64>,
}

impl AvailabilityRow {
    /// `99.950000%`, `≤ 99.950000%, 3 unquantified` or `n/a (12 unquantified)`;
    /// a figure that assumes instant failover is a bound too and says so.
    #[must_use]
    pub fn figure_text(&self) -> String {
        let bounded = if self.method == "exact" {
            ""
        } else {
            " (bounded)"
        };
        let Some(a) = self.availability else {
            return format!("n/a ({} unquantified)", self.unquantified.len());
        };
        let mut why = Vec::new();
        if self.unquantified_components > 0 {
            why.push(format!("{} unquantified", self.unquantified_components));
        }
        if !self.caveats.is_empty() {
            why.push("assumes instant failover".to_owned());
        }
        let figure = crate::human::availability_of(a, self.unavailability.unwrap_or(1.0 - a));
        if why.is_empty() {
            format!("{figure}{bounded}")
        } else {
            format!("≤ {figure}{bounded}, {}", why.join(", "))
        }
    }

    /// Whether the figure is only an upper bound: unquantified components,
    /// or instant failover assumed.
    #[must_use]
    pub fn upper_bound(&self) -> bool {
        self.unquantified_components > 0 || !self.caveats.is_empty()
    }

    /// `3.30`, `≤ 3.30` (an upper bound) or `n/a`.
    #[must_use]
    pub fn nines_text(&self) -> String {
        match self.nines {
            None => "n/a".to_owned(),
            // `-log10(1)` is -0: no nines, not "minus nothing".
            Some(n) if !self.upper_bound() => format!("{:.2}", n + 0.0),
            Some(n) => format!("≤ {:.2}", n + 0.0),
        }
    }

    /// Whether the figure is a complete one (nothing unquantified).
    #[must_use]
    pub fn complete(&self) -> bool {
        self.availability.is_some() && self.unquantified_components == 0 && self.caveats.is_empty()
    }
}

/// What one component, domain or group costs an entrypoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Improvement {
    /// Its name (the key is `component` for all kinds, as in ANALYSES.md).
    pub component: String,
    /// `component`, `domain` or `group`.
    pub kind: &'static str,
    /// Availability gained if it never failed.
    pub gain: f64,
}

/// One N-k contingency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeadroomRow {
    /// The component (shared by its rows: a large model has several rows
    /// per component, and millions of rows in all).
    pub component: Arc<str>,
    /// What is lost: a domain, `a+b`, or `instance` (shared by every row
    /// that loses the same domains).
    pub lost: Arc<str>,
    /// Instances before the loss.
    pub instances: u32,
    /// Instances left.
    pub survivors: u32,
    /// Peak load over surviving capacity.
    pub utilization: f64,
    /// Whether it stays within `max_utilization`.
    pub ok: bool,
    /// Fleet size that would pass.
    pub required_instances: u32,
    /// Instances per domain for that fleet (absent for the loss of one instance).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_domain: Option<u32>,
    /// Utilization of the `required_instances` fleet with nothing lost.
    pub required_steady_utilization: f64,
}

/// One failover walk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cascade {
    /// The component that fails first.
    pub origin: String,
    /// Its load at peak, which moves to its `failover_to`.
    pub load: f64,
    /// Each target the load reaches.
    pub steps: Vec<CascadeStep>,
    /// Load nobody serves at the end.
    pub unserved: f64,
    /// Size of a dedicated fallback that would stop the walk.
    pub recommended_fallback_capacity: f64,
}

/// One step of a failover walk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CascadeStep {
    /// The target.
    pub component: String,
    /// The target's id in the model the walk ran on (not written out).
    #[serde(skip)]
    pub id: ComponentId,
    /// Load it is asked to carry.
    pub load: f64,
    /// What it can carry (`instances × capacity`); absent when the target
    /// has no capacity figures, which ends the walk unjudged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<f64>,
    /// Whether it fails.
    pub failed: bool,
}

/// One call path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetryPath {
    /// Components from the entrypoint to the last hop.
    pub path: Vec<String>,
    /// Worst-case attempts reaching the last hop.
    pub amplification: f64,
    /// Hops on the path that retry.
    pub retrying_hops: u32,
    /// Failure rate from which retries overload the last hop; above 1 when
    /// even a 100% failure rate stays within capacity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub critical_failure_rate: Option<f64>,
    /// The last hop's steady (peak) load in the checked state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// The part of `load` this path sends: the flow over its last edge
    /// (`caller load × calls × (1 − hit_rate)`), or all of `load` when the
    /// caller's load is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow: Option<f64>,
    /// The last hop's capacity (of the instances up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<f64>,
    /// Load on the last hop at 1%, 5%, 25% and 100% failure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub storm_load: Vec<StormPoint>,
}

/// The slowest call path from one entrypoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencyRow {
    /// The entrypoint.
    pub entrypoint: String,
    /// Components from the entrypoint to the last hop of its slowest path.
    pub path: Vec<String>,
    /// `Σ timeout × (1 + retries)` over the path's hops, seconds.
    pub worst_latency_s: f64,
    /// Hops of that path without a `timeout` (not counted: the worst case
    /// is then unbounded, the figure a floor).
    pub untimed_hops: u32,
    /// The entrypoint's own `timeout`, seconds, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
    /// Whether the worst case, or the p99, reaches the entrypoint's timeout
    /// (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over: Option<bool>,
    /// The slowest path's time at the p99, seconds: each component's own
    /// p99 summed along it, with hedges and timeouts (docs/slow.md);
    /// absent when no component on its paths has a `latency`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p99_latency_s: Option<f64>,
    /// That path, from the entrypoint (with `p99_latency_s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p99_path: Option<Vec<String>>,
}

/// One request pool (`workers`) or edge limit (`pool`, `connections`) at
/// normal latency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolRow {
    /// The component whose pool it is (the caller, for an edge's).
    pub component: String,
    /// For an edge's limit, the edge's first target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Its size: `workers`, or the edge's `pool` and `connections` (the
    /// smaller), times the instances up.
    pub size: u64,
    /// Requests (calls) in flight at normal latency: arrival rate × time held.
    pub in_flight: f64,
    /// The size that keeps `policy.pool_headroom` of room: `ceil(in_flight × pool_headroom)`.
    pub required: f64,
    /// Whether `size` is at least `required`.
    pub ok: bool,
}

/// What one slow dependency (or a what-if's `--slow`) does.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlowEvent {
    /// The slowed components, in model order.
    pub slow: Vec<SlowedRow>,
    /// Every pool (and, for a what-if, every component) whose in-flight
    /// count changed, in model order.
    pub pools: Vec<PoolChange>,
    /// Components whose pool is drained (they serve nothing): the state
    /// counts them lost, so their load moves as for a lost component.
    pub drained: Vec<String>,
    /// The entrypoints that lose service, in the model's entrypoint order.
    pub lose_service: Vec<ServiceLoss>,
}

/// One slowed component.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlowedRow {
    /// Its name.
    pub component: String,
    /// Its own latency, seconds; `null` for a hang.
    pub latency_s: Option<f64>,
}

/// One pool, before and after a slowness.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolChange {
    /// The component (the caller, for an edge's limit).
    pub component: String,
    /// For an edge, its first target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The pool's size (per instance × instances up); absent when the
    /// component or edge has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// In flight at normal latency.
    pub in_flight_before: f64,
    /// In flight with the slowness; `null` when unbounded (a call that
    /// never returns).
    pub in_flight_after: Option<f64>,
    /// Time a request (a call) is held at normal latency, seconds.
    pub held_before_s: f64,
    /// Time held with the slowness, seconds; `null` when unbounded.
    pub held_after_s: Option<f64>,
    /// Whether in flight exceeds the size with the slowness.
    pub saturated: bool,
    /// Seconds until the pool is full: free workers (size − in flight at
    /// normal latency) over the rate of the calls that are now held longer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exhausted_in_s: Option<f64>,
    /// The share of its arrivals it serves from the pool (of its calls it
    /// admits, for an edge): `size / in flight` when saturated, else 1.
    pub served: f64,
    /// What it serves per second at most when saturated: `size / time held`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling: Option<f64>,
    /// For an edge whose breaker opens: seconds until it does (its timeout,
    /// and the time the window's calls take to arrive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker_opens_in_s: Option<f64>,
}

/// An entrypoint that serves less with a slowness.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServiceLoss {
    /// The entrypoint.
    pub entrypoint: String,
    /// Share of its requests served at normal latency.
    pub served_before: f64,
    /// Share served with the slowness.
    pub served_after: f64,
    /// How it reaches a slowed component: `required` (through required
    /// edges), `degradable` (only through degradable ones) or `never`.
    pub calls: &'static str,
}

/// The load on a path's last hop at one failure rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StormPoint {
    /// Share of attempts that fail.
    pub failure_rate: f64,
    /// `L + F × f × (A − 1)`: the path's flow `F` amplified, the rest of
    /// the load `L` as it is.
    pub load: f64,
}

/// Cold start after a full outage.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ColdStart {
    /// Start order: each wave needs only earlier waves (the members of a
    /// cycle share a wave: they can only be started together).
    pub waves: Vec<Vec<String>>,
    /// The longest `warmup` in each wave, seconds.
    pub wave_warmup_s: Vec<f64>,
    /// The waves' warmups summed: estimated time to full service, seconds.
    pub time_to_full_service_s: f64,
    /// Cycles of required edges (no order exists), members sorted.
    pub cycles: Vec<Vec<String>>,
    /// Dependencies behind caches, with their load when the caches are empty.
    pub stampedes: Vec<Stampede>,
}

/// A cache stampede after a restart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stampede {
    /// The dependency behind the caches.
    pub component: String,
    /// What it receives with warm caches.
    pub steady_load: f64,
    /// What it receives with empty caches.
    pub cold_load: f64,
    /// What it can carry.
    pub capacity: f64,
    /// Share of traffic to admit first (1 when the cold load fits).
    pub admit_fraction: f64,
    /// Whether the cold load exceeds the capacity.
    pub overloaded: bool,
}

/// Disaster-recovery figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecoveryRow {
    /// The component.
    pub component: String,
    /// Worst-case data loss, seconds (absent when no durable copy exists).
    pub worst_rpo_s: Option<f64>,
    /// Worst-case recovery time, seconds.
    pub worst_rto_s: Option<f64>,
    /// Whether the RPO target is met.
    pub rpo_ok: Option<bool>,
    /// Whether the RTO target is met.
    pub rto_ok: Option<bool>,
    /// The RPO target, seconds.
    pub rpo_target_s: Option<f64>,
    /// The RTO target, seconds.
    pub rto_target_s: Option<f64>,
    /// Target minus worst RPO, seconds (negative when over).
    pub rpo_margin_s: Option<f64>,
    /// Target minus worst RTO, seconds (negative when over).
    pub rto_margin_s: Option<f64>,
    /// Share of the worst RTO spent detecting and deciding.
    pub detect_decide_share: Option<f64>,
    /// Whether a standby exists (async or sync replication).
    pub standby: bool,
    /// Whether the recovery is a restore from a backup that does not exist
    /// (no `backup_interval`): then `worst_rto_s` is null. Written only
    /// when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub restore_without_backup: bool,
}

impl Audit {
    /// A report with findings and no figures yet.
    #[must_use]
    pub fn new(system: String, findings: Vec<Finding>) -> Self {
        Self {
            system,
            availability: BTreeMap::new(),
            request_mix: None,
            findings,
            fixed: Vec::new(),
            baseline: None,
            headroom: Vec::new(),
            cascades: Vec::new(),
            retries: Vec::new(),
            retries_truncated: false,
            retries_omitted: 0,
            latency: Vec::new(),
            cold_start: ColdStart::default(),
            recovery: Vec::new(),
            pools: Vec::new(),
            slow: Vec::new(),
            slow_truncated: false,
        }
    }

    /// Takes in the findings and figures of one analyzer's run. A section
    /// that several rules fill alike (call paths, start order, recovery rows)
    /// is taken from the first part that has it.
    pub fn absorb(&mut self, part: Audit) {
        self.findings.extend(part.findings);
        if self.headroom.is_empty() {
            self.headroom = part.headroom;
        }
        if self.cascades.is_empty() {
            self.cascades = part.cascades;
        }
        if self.retries.is_empty() {
            self.retries = part.retries;
            self.retries_omitted = part.retries_omitted;
        }
        // The walk's truncation stands even when it found no row to list:
        // a later part that walked nothing must not clear it.
        self.retries_truncated |= part.retries_truncated;
        if self.latency.is_empty() {
            self.latency = part.latency;
        }
        let cold = part.cold_start;
        if self.cold_start.waves.is_empty() {
            self.cold_start.waves = cold.waves;
            self.cold_start.wave_warmup_s = cold.wave_warmup_s;
            self.cold_start.time_to_full_service_s = cold.time_to_full_service_s;
            self.cold_start.cycles = cold.cycles;
        }
        if self.cold_start.stampedes.is_empty() {
            self.cold_start.stampedes = cold.stampedes;
        }
        if self.recovery.is_empty() {
            self.recovery = part.recovery;
        }
        if self.pools.is_empty() {
            self.pools = part.pools;
        }
        if self.slow.is_empty() {
            self.slow = part.slow;
        }
        // Only `bulkhead` judges slowness; its truncation stands even when
        // nothing it judged filled a pool (a later part must not clear it).
        self.slow_truncated |= part.slow_truncated;
    }

    /// Fills in each finding's line and column from the model text (one
    /// pass to index the lines, then a binary search per finding).
    pub fn locate(&mut self, text: &str) {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        for finding in &mut self.findings {
            let offset = finding.span.offset.min(text.len());
            let line = starts.partition_point(|&start| start <= offset);
            let start = starts[line - 1];
            let column = text
                .get(start..offset)
                .map_or(1, |before| before.chars().count() + 1);
            finding.location = Location { line, column };
        }
    }

    /// Whether a finding's id is in the `--baseline` file: `None` without one.
    #[must_use]
    pub fn in_baseline(&self, id: &str) -> Option<bool> {
        self.baseline.as_ref().map(|known| known.ids.contains(id))
    }

    /// Findings that count against the run at `threshold` or above.
    pub fn failing(&self, threshold: Option<Severity>) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(move |f| f.status == Status::New && threshold.is_some_and(|t| f.severity >= t))
    }
}

/// For `skip_serializing_if`: a count of zero is left out.
#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// What a report needs to know of the baseline it was compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// The file as given to `--baseline`.
    pub file: String,
    /// Its ids.
    pub ids: BTreeSet<String>,
}

#[cfg(test)]
mod tests {
    use super::Audit;

    #[test]
    fn a_truncated_walk_with_no_rows_stays_truncated_after_later_parts() {
        // retry_storm walked to its bound and found no amplifying path to
        // list; deadline's part, absorbed after it, walked nothing.
        let mut audit = Audit::new("s".to_owned(), Vec::new());
        let mut storm = Audit::new("s".to_owned(), Vec::new());
        storm.retries_truncated = true;
        audit.absorb(storm);
        audit.absorb(Audit::new("s".to_owned(), Vec::new()));
        assert!(audit.retries_truncated);
        // Nothing truncated: nothing said.
        let mut clean = Audit::new("s".to_owned(), Vec::new());
        clean.absorb(Audit::new("s".to_owned(), Vec::new()));
        assert!(!clean.retries_truncated);
    }
}

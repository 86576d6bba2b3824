//! The raw model: a mirror of the YAML format, with a span on every value and
//! key. These types are what `nines schema` describes (their doc comments are
//! the schema's descriptions); [`super::validate`] turns them into a
//! [`super::Model`].

use super::decode::{Cx, Decode, Entries, Spanned, raw_struct};
use super::load::{Node, Value};
use super::units::{
    Backoff, Count, Criticality, Date, Down, Duration, Name, Percentile, Plane, Prewarm,
    Probability, Rate, Ratio, Replication,
};

raw_struct! {
    /// A nines model: one distributed system, its failure domains, shared causes
    /// of failure, components and accepted findings (format version 1).
    pub struct RawModel as "the model" {
        /// Format version; only 1 exists.
        pub version: Option<Spanned<Count>>,
        /// The system's name.
        pub system: Spanned<String>,
        /// What the system promises, end to end, per entrypoint.
        pub objective: Option<RawObjective>,
        /// Where user requests enter: a list of names, or a map of each name to its share of the requests (`{redirect: 90%, api: 10%}`, adding up to 100%) for a served figure over the request mix. Default: every component that no `depends_on` names.
        pub entrypoints: Option<Spanned<RawEntrypoints>>,
        /// Thresholds the checks use.
        pub policy: Option<RawPolicy>,
        /// Failure domains: places whose loss takes down everything in them (regions, zones, racks, hosts).
        pub domains: Option<Entries<RawDomain>>,
        /// Correlated causes that are not places: one release, one config push, one certificate.
        pub shared_fate: Option<Entries<RawGroup>>,
        /// The components of the system.
        pub components: Entries<RawComponent>,
        /// Findings accepted on purpose, with a reason.
        pub accepted: Option<Vec<RawAccepted>>,
    }
}

raw_struct! {
    /// The availability the system promises per entrypoint.
    pub struct RawObjective as "objective" {
        /// End-to-end availability target, per entrypoint (`99.95%`).
        pub availability: Option<Spanned<Probability>>,
        /// The budget window (default 30d).
        pub window: Option<Spanned<Duration>>,
    }
}

raw_struct! {
    /// Thresholds for the checks.
    pub struct RawPolicy as "policy" {
        /// Highest tolerable utilization after losing a domain, as a ratio (default 1.0).
        pub max_utilization: Option<Spanned<Ratio>>,
        /// How many domains of one kind must be losable at once (N-k; default 1).
        pub survive: Option<Spanned<Count>>,
        /// Highest tolerable worst-case retry amplification on a call path (default 10).
        pub max_retry_amplification: Option<Spanned<Ratio>>,
        /// Size of a dedicated fallback relative to the largest load it covers (default 1.5).
        pub fallback_headroom: Option<Spanned<Ratio>>,
        /// A recovery drill older than this is stale (default 90d).
        pub drill_max_age: Option<Spanned<Duration>>,
        /// Share of its capacity a restarted instance with a `warmup` starts at (`nines recover`; default 50%).
        pub cold_capacity: Option<Spanned<Probability>>,
        /// Share of the target rate the edge admits first after an outage (`nines recover`; default 10%).
        pub ramp_start: Option<Spanned<Probability>>,
        /// Factor the admitted share grows by while below half the target (default 1.5).
        pub ramp_increase: Option<Spanned<Ratio>>,
        /// Share of the target added per step from half the target on (default 10%).
        pub ramp_step: Option<Spanned<Probability>>,
        /// Factor the admitted share is multiplied by after a breach (default 50%).
        pub ramp_decrease: Option<Spanned<Probability>>,
        /// Time between two steps of the admission ramp, and between two start waves (default 10s).
        pub ramp_interval: Option<Spanned<Duration>>,
        /// Retries of the clients outside the entrypoints (default 0: they do not retry).
        pub client_retries: Option<Spanned<Count>>,
        /// Timeout of one client attempt: the clients' retry interval (default 10s).
        pub client_timeout: Option<Spanned<Duration>>,
        /// How the clients space their retries: none, exponential or jittered (default jittered).
        pub client_backoff: Option<Spanned<Backoff>>,
        /// Whether `check` judges a hanging dependency as a credible event: true for every component, false for none. Default: the components some caller calls without a `timeout` (docs/slow.md).
        pub slow: Option<Spanned<bool>>,
        /// A pool (`workers`, an edge's `pool` or `connections`) is sized for its in-flight calls at normal latency times this (Hystrix's breathing room; default 1.5).
        pub pool_headroom: Option<Spanned<Ratio>>,
        /// Highest share of its (warming) capacity the admission ramp loads a component to during recovery, a margin for the variance of arrivals (`nines recover`; default 90%).
        pub ramp_ceiling: Option<Spanned<Probability>>,
    }
}

raw_struct! {
    /// A failure domain.
    pub struct RawDomain as "domain" {
        /// The level: free text, commonly region, zone, rack or host. N-k checks compare domains of one kind.
        pub kind: Spanned<String>,
        /// The domain this one is inside.
        pub r#in: Option<Spanned<Name>>,
        /// Chance the domain is up; without it the domain never fails in the availability figure.
        pub availability: Option<Spanned<Probability>>,
        /// Mean time to restore the domain (with availability): its losses happen (1 − availability) / mttr often, which switchovers to standbys need.
        pub mttr: Option<Spanned<Duration>>,
    }
}

raw_struct! {
    /// A shared-fate group: a cause that takes down all its members at once.
    pub struct RawGroup as "shared-fate group" {
        /// What the cause is: config, certificate, software, credential, dns …
        pub kind: Option<Spanned<String>>,
        /// Chance the cause has not fired; without it the group is used for scenario checks only.
        pub availability: Option<Spanned<Probability>>,
        /// When it lapses for all members at once (certificates, licences, tokens).
        pub expires: Option<Spanned<Date>>,
    }
}

raw_struct! {
    /// A component: a service, datastore, cache, queue, load balancer …
    pub struct RawComponent as "component" {
        /// Free text: service, datastore, cache, queue, lb, dns …
        pub kind: Option<Spanned<String>>,
        /// `data` (default) or `control` (config, secrets, deploys, DNS, discovery).
        pub plane: Option<Spanned<Plane>>,
        /// critical (default) fails the request; important serves stale then omits; optional is omitted; deferrable is queued.
        pub criticality: Option<Spanned<Criticality>>,
        /// Number of instances (default 1).
        pub instances: Option<Spanned<Count>>,
        /// Where the instances run: a list (spread evenly, remainder to the first) or a map of exact counts.
        pub placement: Option<Spanned<RawPlacement>>,
        /// Up while at least this many instances are up (default 1).
        pub min_healthy: Option<Spanned<Count>>,
        /// Availability of one instance; or give mtbf and mttr.
        pub availability: Option<Spanned<Probability>>,
        /// Mean time between failures of one instance (with mttr).
        pub mtbf: Option<Spanned<Duration>>,
        /// Mean time to repair one instance (with mtbf, or with availability: then it only gives the failure frequency for switchovers).
        pub mttr: Option<Spanned<Duration>>,
        /// Capacity of one instance, in the model's unit of load (with load).
        pub capacity: Option<Spanned<Rate>>,
        /// Peak load on the whole component (with capacity).
        pub load: Option<Spanned<Rate>>,
        /// true: overload sheds the excess instead of collapsing; what it sheds is not passed downstream.
        pub load_shedding: Option<Spanned<bool>>,
        /// A rate limit for the whole component, whatever its instances: it accepts and forwards at most this much and rejects the rest (in the model's unit of load).
        pub rate_limit: Option<Spanned<Rate>>,
        /// Time from start to full capacity after a cold start; on a cache, the time its misses take to refill it at the steady miss rate.
        pub warmup: Option<Spanned<Duration>>,
        /// What the component does with its callers' connections while it is down (`nines recover`): blackhole (default: a lost host, attempts hang until the callers' timeout) or refuse (a stopped process: attempts fail at once).
        pub down: Option<Spanned<Down>>,
        /// On a cache: snapshot restores its contents on its own, so it restarts warm; none (default) refills by the misses its store answers.
        pub prewarm: Option<Spanned<Prewarm>>,
        /// On a queue kind: how long it keeps an event; a backlog older than this after an outage is lost (`nines recover`).
        pub retention: Option<Spanned<Duration>>,
        /// Shared-fate groups the component belongs to.
        pub shares: Option<Vec<Spanned<Name>>>,
        /// Where its load goes when it fails (cells, peers, fallbacks).
        pub failover_to: Option<Spanned<Name>>,
        /// true: a service the team does not run (a cloud-managed store, a `SaaS` API, a global `DNS`): it cannot be given instances or a placement, so `placement` does not ask for one and `spof` advises a second provider, a cached or stale fallback, a degradable edge or the provider's SLA. Default: true for `kind: saas` or `kind: external`, else false.
        pub managed: Option<Spanned<bool>>,
        /// On an entrypoint: its own availability objective (`99.5%`), instead of `objective.availability`; the window stays the model's.
        pub objective: Option<Spanned<Probability>>,
        /// On an entrypoint: how long its clients wait for an answer; the worst-case latency of each call path from it is compared with this.
        pub timeout: Option<Spanned<Duration>>,
        /// Its own service time at normal load, by percentile (`{p50: 20ms, p99: 120ms}`), without the time its calls take.
        // Boxed: few components have one.
        pub latency: Option<Box<RawLatency>>,
        /// The request pool: threads, event-loop slots or a concurrency limit. A request holds one worker for its own latency and its calls.
        pub workers: Option<Spanned<Count>>,
        /// What it calls.
        pub depends_on: Option<Vec<RawDependency>>,
        /// Recovery of the data it holds.
        // Boxed: few components have one, and inline it would double the
        // size of every raw component.
        pub recovery: Option<Box<RawRecovery>>,
    }
}

/// The entrypoints: names, or names with their share of the requests.
#[derive(Debug, Clone, PartialEq, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RawEntrypoints {
    /// The entrypoints, in the order given.
    Names(Vec<Spanned<Name>>),
    /// Each entrypoint's share of the requests (the request mix).
    Shares(Entries<Spanned<Probability>>),
}

impl Default for RawEntrypoints {
    fn default() -> Self {
        RawEntrypoints::Names(Vec::new())
    }
}

impl Decode for RawEntrypoints {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        match &node.value {
            Value::Seq(_) | Value::Str(_) => Vec::decode(node, key, cx).map(RawEntrypoints::Names),
            Value::Map(_) => Entries::decode(node, key, cx).map(RawEntrypoints::Shares),
            _ => cx.wrong(
                node,
                key,
                "a list of entrypoints or a map of each to its share of the requests",
            ),
        }
    }
}

/// Where a component's instances run.
#[derive(Debug, Clone, PartialEq, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RawPlacement {
    /// Domains to spread the instances over evenly (remainder to the first).
    Spread(Vec<Spanned<Name>>),
    /// Exact instance counts per domain; they add up to `instances`.
    Counts(Entries<Spanned<Count>>),
}

impl Default for RawPlacement {
    fn default() -> Self {
        RawPlacement::Spread(Vec::new())
    }
}

impl Decode for RawPlacement {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        match &node.value {
            // A list, or one name (`placement: az-a`), which the list
            // decoder rejects with the list form as its help.
            Value::Seq(_) | Value::Str(_) => Vec::decode(node, key, cx).map(RawPlacement::Spread),
            Value::Map(_) => Entries::decode(node, key, cx).map(RawPlacement::Counts),
            _ => cx.wrong(node, key, "a list of domains or a map of counts per domain"),
        }
    }
}

/// One entry of `depends_on`: a name (a required call with no retries) or an edge.
#[derive(Debug, Clone, PartialEq, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RawDependency {
    /// A required call to this component, no retries.
    Name(Spanned<Name>),
    /// A call with options, to one target, any of several, or at least k of several.
    Edge(Box<RawEdge>),
}

impl Decode for RawDependency {
    fn decode(node: &Node, key: &str, cx: &mut Cx) -> Option<Self> {
        match &node.value {
            Value::Map(_) => RawEdge::decode_in(node, "a dependency", cx)
                .map(|edge| RawDependency::Edge(Box::new(edge))),
            _ => Spanned::<Name>::decode(node, key, cx).map(RawDependency::Name),
        }
    }
}

raw_struct! {
    /// A call to a dependency. Give exactly one of `target`, `any_of`, `at_least` with `of`, or `shards`.
    pub struct RawEdge as "dependency" {
        /// The component called.
        pub target: Option<Spanned<Name>>,
        /// A keyed partition: each of these serves an equal share of the requests (1 / n), so one down fails its share, not all of them.
        pub shards: Option<Spanned<Vec<Spanned<Name>>>>,
        /// With `target`: the share of the caller's requests that make this call (a partition written per target; the shares of one component add up to at most 100%). Default: every request.
        pub share: Option<Spanned<Probability>>,
        /// Alternatives: works while at least one of them works.
        pub any_of: Option<Spanned<Vec<Spanned<Name>>>>,
        /// Works while at least this many of `of` work (a vote across components).
        pub at_least: Option<Spanned<Count>>,
        /// The alternatives counted by `at_least`.
        pub of: Option<Spanned<Vec<Spanned<Name>>>>,
        /// Extra attempts after the first (default 0).
        pub retries: Option<Spanned<Count>>,
        /// none (default), exponential or jittered.
        pub backoff: Option<Spanned<Backoff>>,
        /// Retries are capped at this share of calls.
        pub retry_budget: Option<Spanned<Probability>>,
        /// Timeout of one attempt.
        pub timeout: Option<Spanned<Duration>>,
        /// Share of calls answered by a cache in front of the target.
        pub hit_rate: Option<Spanned<Probability>>,
        /// The component that provides `hit_rate` (a cache): when it is down, or caches are cold, every call reaches the target.
        pub cached_by: Option<Spanned<Name>>,
        /// Calls per request to this dependency (default 1).
        pub calls: Option<Spanned<Rate>>,
        /// true: the caller still works without it. Default: true when the target is not critical.
        pub degradable: Option<Spanned<bool>>,
        /// true: the caller is a consumer that pulls from the target (a queue): its rate does not add to the target's load, and a consumer below its input lags instead of collapsing. Default: true when the target's kind is a queue kind (queue, stream, topic, kafka, pubsub, broker) and the caller's kind is worker or consumer.
        pub consumes: Option<Spanned<bool>>,
        /// On `any_of`/`at_least`: the first `at_least` alternatives are active and the rest standby; each failure of an active one costs this long (detect + decide + failover) before a standby serves. Default: hot (0s), or detect + decide + failover of the active one's `recovery` when it names a standby here in `failover_to`.
        pub switchover: Option<Spanned<Duration>>,
        /// A bulkhead: the most concurrent calls over this edge, out of the caller's `workers`; calls past it are refused at once. Without it the calls share `workers`.
        pub pool: Option<Spanned<Count>>,
        /// The most connections (concurrent calls) the caller opens to the target, where that differs from `pool`; calls past it are refused at once.
        pub connections: Option<Spanned<Count>>,
        /// Timeout of establishing a connection, where it is given apart from `timeout` (the read timeout).
        pub connect_timeout: Option<Spanned<Duration>>,
        /// A circuit breaker: opens when this share of the calls in a window fail; while open, calls fail at once and the edge counts as degraded.
        pub breaker: Option<Box<RawBreaker>>,
        /// Hedged requests: a second attempt to another instance after the target's latency at a percentile; `max` caps hedges as a share of calls.
        pub hedge: Option<Box<RawHedge>>,
    }
}

raw_struct! {
    /// A service time by percentile: give at least one, each at least the one before.
    pub struct RawLatency as "latency" {
        /// Median.
        pub p50: Option<Spanned<Duration>>,
        /// 90th percentile.
        pub p90: Option<Spanned<Duration>>,
        /// 95th percentile.
        pub p95: Option<Spanned<Duration>>,
        /// 99th percentile: what pools are sized with when given.
        pub p99: Option<Spanned<Duration>>,
        /// 99.9th percentile.
        pub p999: Option<Spanned<Duration>>,
    }
}

raw_struct! {
    /// A circuit breaker on an edge (defaults: Hystrix's).
    pub struct RawBreaker as "breaker" {
        /// Opens when at least this share of the calls in the window fail (default 50%).
        pub after: Option<Spanned<Probability>>,
        /// Calls in the window it judges (default 20).
        pub window: Option<Spanned<Count>>,
        /// How long it stays open before it lets a trial call through (default 5s).
        pub open: Option<Spanned<Duration>>,
    }
}

raw_struct! {
    /// Hedged requests on an edge.
    pub struct RawHedge as "hedge" {
        /// The percentile of the target's latency after which a second attempt is sent: p50, p90, p95, p99 or p999.
        pub after: Spanned<Percentile>,
        /// Hedges are capped at this share of calls (without it: unbounded).
        pub max: Option<Spanned<Probability>>,
    }
}

raw_struct! {
    /// How the data a component holds is recovered, and the targets.
    pub struct RawRecovery as "recovery" {
        /// Target: longest tolerable outage.
        pub rto: Option<Spanned<Duration>>,
        /// Target: most recent data that may be lost.
        pub rpo: Option<Spanned<Duration>>,
        /// Interval of full or snapshot backups.
        pub backup_interval: Option<Spanned<Duration>>,
        /// Interval of continuous log/WAL shipping, if any.
        pub log_shipping: Option<Spanned<Duration>>,
        /// none, async or sync replication to a standby.
        pub replication: Option<Spanned<Replication>>,
        /// Worst lag of an async standby.
        pub replication_lag: Option<Spanned<Duration>>,
        /// From failure to someone or something knowing.
        pub detect: Option<Spanned<Duration>>,
        /// From knowing to the decision to recover (0 when automatic).
        pub decide: Option<Spanned<Duration>>,
        /// Restore from backup, as measured in a drill.
        pub restore: Option<Spanned<Duration>>,
        /// Promote a standby and repoint clients.
        pub failover: Option<Spanned<Duration>>,
        /// When a restore or failover was last rehearsed.
        pub last_drill: Option<Spanned<Date>>,
        /// Components the recovery procedure itself depends on (SSO, VPN …).
        pub needs: Option<Vec<Spanned<Name>>>,
    }
}

raw_struct! {
    /// A finding accepted on purpose.
    pub struct RawAccepted as "accepted entry" {
        /// The finding id, `<rule>/<subject>`, as `nines check` prints it.
        pub id: Spanned<String>,
        /// Why it is accepted: a ticket, a runbook, an agreed target.
        pub reason: Spanned<String>,
        /// After this date the finding counts again.
        pub expires: Option<Spanned<Date>>,
    }
}

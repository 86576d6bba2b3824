//! Components: counts, placement, availability, capacity, dependencies,
//! failover and recovery, with every cross-field rule of the format.

use super::super::decode::{Cx, Spanned};
use super::super::error::Problem;
use super::super::raw::{
    RawComponent, RawDependency, RawEdge, RawModel, RawPlacement, RawRecovery,
};
use super::super::span::Span;
use super::super::units::{Criticality, Name};
use super::super::{
    Backoff, Capacity, Component, ComponentId, Domain, DomainId, Edge, EdgeKind, Fields, Recovery,
};
use super::Names;

/// Kinds that mean a service the team does not run (`managed` defaults to true).
pub const MANAGED_KINDS: &[&str] = &["saas", "external"];

/// The validated components, in model order, built from the raw ones in
/// `blocks` (their names moved to `component_names`), each raw component
/// dropped as soon as its component is built. The names are left empty:
/// the caller moves them in once the namespace no longer borrows them.
pub(super) fn components(
    raw: &RawModel,
    blocks: super::Blocks,
    component_names: &[Spanned<String>],
    names: &Names,
    domains: &[Domain],
    cx: &mut Cx,
) -> Vec<Component> {
    let count = component_names.len();
    none_declared(raw, count, cx);
    // Each component is built on its own (in parallel for a large model);
    // its problems are reported in component order.
    let parallel = super::super::decode::in_parallel(count);
    let mut out = Vec::with_capacity(count);
    for mut block in blocks {
        let first = out.len();
        super::super::decode::map_in_order(
            &mut block,
            first,
            parallel,
            cx,
            &mut out,
            |index, (_, component), cx| {
                component_of(
                    index,
                    component,
                    &component_names[index],
                    names,
                    domains,
                    cx,
                )
            },
        );
        // Freed a block at a time, once its components are built: freed
        // one by one between the model's allocations, the raw entries
        // left the allocator's lists full of small holes that made every
        // later allocation slower.
        drop(block);
    }
    out
}

/// Reports a model without any component entry (`count` readable ones).
pub(super) fn none_declared(raw: &RawModel, count: usize, cx: &mut Cx) {
    if count == 0 && raw.components.unreadable.is_empty() {
        cx.report(Problem::empty_list(raw.components.span, "`components`"));
    }
}

/// One component from its raw entry (whose name has been moved out, and
/// `kind` is moved out too). The `degradable`
/// of its edges that do not say is left for [`default_degradable`], which
/// needs the criticality of every component.
pub(super) fn component_of(
    index: usize,
    component: &mut RawComponent,
    name: &Spanned<String>,
    names: &Names,
    domains: &[Domain],
    cx: &mut Cx,
) -> Component {
    let this = ComponentId(index);
    let instances = component.instances.as_ref().map_or(1, |v| {
        if v.value.0 == 0 {
            cx.report(Problem::zero_count(v.span, "instances"));
        }
        v.value.0.max(1)
    });
    let min_healthy = min_healthy(component, instances, cx);
    let failover_to = component.failover_to.as_ref().and_then(|target| {
        let id = names.component(target, cx)?;
        if id == this {
            cx.report(Problem::self_reference(
                target.span,
                &name.value,
                "failover_to",
            ));
            return None;
        }
        Some(id)
    });
    // Sized once: collected from a filter, the list would hold four edges'
    // room for three (168 bytes each, a tenth of a component).
    let workers = super::slow::workers(component, cx);
    let workers_at = workers.zip(component.workers.as_ref().map(|w| w.span));
    let written = component.depends_on.as_deref().unwrap_or_default();
    let mut depends_on = Vec::with_capacity(written.len());
    for dependency in written {
        if let Some(e) = edge(dependency, (this, &name.value, workers_at), names, cx) {
            let sharded = matches!(dependency, RawDependency::Edge(raw) if raw.shards.is_some());
            shard(e, sharded, &mut depends_on);
        }
    }
    shares_add_up(written, &name.value, cx);
    let managed = component.managed.as_ref().map_or_else(
        || {
            component
                .kind
                .as_ref()
                .is_some_and(|k| MANAGED_KINDS.contains(&k.value.as_str()))
        },
        |v| v.value,
    );
    Component {
        name: String::new(),
        plane: component
            .plane
            .as_ref()
            .map(|p| p.value)
            .unwrap_or_default(),
        criticality: component
            .criticality
            .as_ref()
            .map_or(Criticality::Critical, |v| v.value),
        instances,
        placement: placement(component, instances, names, domains, cx),
        min_healthy,
        availability: availability(component, cx),
        mttr: component.mttr.as_ref().map(|v| v.value),
        capacity: capacity(component, cx),
        load_shedding: component.load_shedding.as_ref().is_some_and(|v| v.value),
        rate_limit: component.rate_limit.as_ref().map(|v| v.value.0),
        warmup: component.warmup.as_ref().map(|v| v.value),
        down: component.down.as_ref().map(|v| v.value).unwrap_or_default(),
        prewarm: component
            .prewarm
            .as_ref()
            .map(|v| v.value)
            .unwrap_or_default(),
        retention: retention(component, cx),
        shares: shares(component, names, cx),
        failover_to,
        timeout: component.timeout.as_ref().map(|v| v.value),
        latency: super::slow::latency(component, cx),
        workers,
        objective: component.objective.as_ref().map(|v| (v.value.0, v.span)),
        managed,
        depends_on,
        recovery: component
            .recovery
            .as_deref()
            .map(|r| Box::new(recovery(r, names, cx))),
        span: name.span,
        kind: component.kind.take().map(|k| k.value),
        fields: Fields::new(RawComponent::KEYS, &component.keys),
        pseudo: None,
    }
}

/// A `retention` is a queue's: on any other kind it would mean nothing.
fn retention(component: &RawComponent, cx: &mut Cx) -> Option<super::super::Duration> {
    let retention = component.retention.as_ref()?;
    let kind = component.kind.as_ref().map(|k| k.value.as_str());
    if !kind.is_some_and(|k| QUEUE_KINDS.contains(&k)) {
        cx.report(Problem::retention_not_queue(retention.span, kind));
        return None;
    }
    Some(retention.value)
}

fn shares(component: &RawComponent, names: &Names, cx: &mut Cx) -> Vec<super::super::GroupId> {
    let list = component.shares.as_deref().unwrap_or_default();
    super::no_repeats(list, "shares", cx);
    let mut ids: Vec<_> = list
        .iter()
        .filter_map(|group| names.group(group, cx))
        .collect();
    ids.dedup();
    ids
}

fn min_healthy(component: &RawComponent, instances: u32, cx: &mut Cx) -> u32 {
    let Some(min) = &component.min_healthy else {
        return 1;
    };
    if min.value.0 == 0 {
        cx.report(Problem::zero_count(min.span, "min_healthy"));
        return 1;
    }
    if min.value.0 > instances {
        cx.report(Problem::min_healthy(min.span, min.value.0, instances));
    }
    min.value.0
}

fn availability(component: &RawComponent, cx: &mut Cx) -> Option<f64> {
    match (&component.availability, &component.mtbf, &component.mttr) {
        // With an availability, mttr only gives the failure frequency
        // (1 − A) / mttr that switchovers need.
        (Some(a), None, _) => Some(a.value.0),
        (a, Some(mtbf), Some(mttr)) => {
            if let Some(a) = a {
                cx.report(Problem::exclusive(
                    mtbf.span,
                    "mtbf",
                    "availability",
                    a.span,
                    "give either `availability`, or `mtbf` with `mttr`: remove one",
                ));
            }
            if mtbf.value.0 == 0 {
                cx.report(Problem::zero_duration(mtbf.span, "mtbf"));
            }
            let (up, down) = (mtbf.value.seconds(), mttr.value.seconds());
            Some(if up + down > 0.0 {
                up / (up + down)
            } else {
                0.0
            })
        }
        (_, Some(mtbf), None) => {
            let span = component.key_span("mtbf").unwrap_or(mtbf.span);
            cx.report(Problem::needs_partner(
                span,
                "mtbf",
                "mttr",
                "availability = mtbf / (mtbf + mttr) needs both",
            ));
            None
        }
        (None, None, Some(mttr)) => {
            let span = component.key_span("mttr").unwrap_or(mttr.span);
            cx.report(Problem::needs_partner(
                span,
                "mttr",
                "mtbf",
                "availability = mtbf / (mtbf + mttr) needs both (or give `availability` with it)",
            ));
            None
        }
        (None, None, None) => None,
    }
}

fn capacity(component: &RawComponent, cx: &mut Cx) -> Option<Capacity> {
    match (&component.capacity, &component.load) {
        (Some(capacity), Some(load)) => Some(Capacity {
            per_instance: capacity.value.0,
            load: load.value.0,
            derived: false,
        }),
        // The load comes from the callers; `super::derive_loads` fills it in
        // (or reports that none reaches it) once every edge is known.
        (Some(capacity), None) => Some(Capacity {
            per_instance: capacity.value.0,
            load: 0.0,
            derived: true,
        }),
        (None, Some(_)) => {
            let span = component.key_span("load").unwrap_or(component.span);
            cx.report(Problem::needs_partner(
                span,
                "load",
                "capacity",
                "headroom compares the peak `load` with `capacity` per instance",
            ));
            None
        }
        (None, None) => None,
    }
}

/// Resolves placement to instance counts per domain.
fn placement(
    component: &RawComponent,
    instances: u32,
    names: &Names,
    domains: &[Domain],
    cx: &mut Cx,
) -> Vec<(DomainId, u32)> {
    let Some(placement) = &component.placement else {
        return Vec::new();
    };
    let placed: Vec<(DomainId, u32, Span)> = match &placement.value {
        RawPlacement::Spread(list) => {
            if list.is_empty() {
                cx.report(Problem::empty_list(placement.span, "`placement`"));
                return Vec::new();
            }
            super::no_repeats(list, "placement", cx);
            if list.len() > instances as usize {
                cx.report(Problem::placement_spread(
                    placement.span,
                    list.len(),
                    instances,
                ));
                return Vec::new();
            }
            let ids: Vec<(DomainId, Span)> = list
                .iter()
                .filter_map(|name| names.domain(name, cx).map(|id| (id, name.span)))
                .collect();
            if ids.len() != list.len() {
                return Vec::new();
            }
            let n = u32::try_from(ids.len()).unwrap_or(u32::MAX);
            ids.into_iter()
                .enumerate()
                .map(|(i, (id, span))| {
                    let extra = u32::from(u32::try_from(i).unwrap_or(u32::MAX) < instances % n);
                    (id, instances / n + extra, span)
                })
                .collect()
        }
        RawPlacement::Counts(entries) => {
            if entries.items.is_empty() && entries.unreadable.is_empty() {
                cx.report(Problem::empty_list(placement.span, "`placement`"));
                return Vec::new();
            }
            let mut placed = Vec::new();
            for (name, count) in &entries.items {
                let spanned = Spanned {
                    value: Name(name.value.clone()),
                    span: name.span,
                };
                if count.value.0 == 0 {
                    cx.report(Problem::zero_count(count.span, &name.value));
                } else if let Some(id) = names.domain(&spanned, cx) {
                    placed.push((id, count.value.0, name.span));
                }
            }
            if !entries.unreadable.is_empty() || placed.len() != entries.items.len() {
                return Vec::new();
            }
            let sum: u64 = placed.iter().map(|&(_, n, _)| u64::from(n)).sum();
            // `instances: 0` is reported on its own; comparing the counts
            // with the 1 it stands in for would add a second, wrong error.
            let declared_zero = component.instances.as_ref().is_some_and(|v| v.value.0 == 0);
            if declared_zero {
                return Vec::new();
            }
            if sum != u64::from(instances) {
                cx.report(Problem::placement_sum(
                    placement.span,
                    sum,
                    instances,
                    component.key_span("instances"),
                ));
                return Vec::new();
            }
            placed
        }
    };
    // No domain may be listed together with one that contains it.
    for (id, _, span) in &placed {
        if let Some((outer, _, _)) = placed
            .iter()
            .find(|(other, _, _)| domains[id.0].ancestors.contains(other))
        {
            cx.report(Problem::placement_nested(
                *span,
                &domains[id.0].name,
                &domains[outer.0].name,
            ));
            return Vec::new();
        }
    }
    placed.into_iter().map(|(id, n, _)| (id, n)).collect()
}

/// A placeholder for a component not yet built.
pub(super) fn placeholder() -> Component {
    Component {
        name: String::new(),
        kind: None,
        plane: super::super::Plane::default(),
        criticality: Criticality::Critical,
        instances: 1,
        placement: Vec::new(),
        min_healthy: 1,
        availability: None,
        mttr: None,
        capacity: None,
        load_shedding: false,
        rate_limit: None,
        warmup: None,
        down: super::super::units::Down::default(),
        prewarm: super::super::units::Prewarm::default(),
        retention: None,
        shares: Vec::new(),
        failover_to: None,
        managed: false,
        objective: None,
        timeout: None,
        latency: None,
        workers: None,
        depends_on: Vec::new(),
        recovery: None,
        span: Span::default(),
        fields: Fields::default(),
        pseudo: None,
    }
}

/// Applies the default of `degradable` to every edge that does not say:
/// true when none of its targets is critical.
pub(super) fn default_degradable(components: &mut [Component]) {
    let critical: Vec<bool> = components
        .iter()
        .map(|c| c.criticality == Criticality::Critical)
        .collect();
    for edge in components.iter_mut().flat_map(|c| &mut c.depends_on) {
        if edge.fields.get("degradable").is_none() {
            edge.degradable = edge.targets.iter().all(|id| !critical[id.0]);
        }
    }
}

/// Kinds whose components are queues: a consumer pulls from them.
pub const QUEUE_KINDS: &[&str] = &["queue", "stream", "topic", "kafka", "pubsub", "broker"];
/// Kinds whose components consume from a queue by default.
pub const CONSUMER_KINDS: &[&str] = &["worker", "consumer"];

/// Applies the default of `consumes` to every edge that does not say: a
/// `worker` or `consumer` calling a queue kind pulls from it.
pub(super) fn default_pull(components: &mut [Component]) {
    let queue: Vec<bool> = components
        .iter()
        .map(|c| c.kind.as_deref().is_some_and(|k| QUEUE_KINDS.contains(&k)))
        .collect();
    for c in components.iter_mut() {
        let consumer = c
            .kind
            .as_deref()
            .is_some_and(|k| CONSUMER_KINDS.contains(&k));
        for edge in &mut c.depends_on {
            if edge.fields.get("consumes").is_none() {
                edge.pull = consumer && edge.targets.iter().all(|id| queue[id.0]);
            }
        }
    }
}

/// A dependency entry of `this` (its id, name, and `workers` with where
/// they are written), resolved; `degradable` is false unless written (see
/// [`default_degradable`]).
fn edge(
    dependency: &RawDependency,
    (this, this_name, workers): (ComponentId, &str, Option<(u32, Span)>),
    names: &Names,
    cx: &mut Cx,
) -> Option<Edge> {
    let resolve_all = |list: &[Spanned<Name>], cx: &mut Cx| -> Option<Vec<ComponentId>> {
        super::no_repeats(list, "depends_on", cx);
        let mut ids = Vec::new();
        let mut complete = true;
        for name in list {
            match names.component(name, cx) {
                Some(id) if id == this => {
                    cx.report(Problem::self_reference(name.span, this_name, "depends_on"));
                    complete = false;
                }
                Some(id) => ids.push(id),
                None => complete = false,
            }
        }
        complete.then_some(ids)
    };
    let raw = match dependency {
        RawDependency::Name(name) => {
            let targets = resolve_all(std::slice::from_ref(name), cx)?;
            return Some(Edge::required(targets, name.span));
        }
        RawDependency::Edge(raw) => raw,
    };
    let (kind, targets, at_least) = edge_shape(raw, cx)?;
    let targets = resolve_all(targets, cx)?;
    if targets.is_empty() {
        return None;
    }
    let degradable = raw.degradable.as_ref().is_some_and(|d| d.value);
    let share = share(raw, cx);
    let calls = raw.calls.as_ref().map_or(1.0, |c| c.value.0);
    Some(Edge {
        kind,
        targets,
        at_least,
        retries: raw.retries.as_ref().map_or(0, |r| r.value.0),
        backoff: raw.backoff.as_ref().map_or(Backoff::None, |b| b.value),
        retry_budget: raw.retry_budget.as_ref().map(|b| b.value.0),
        timeout: raw.timeout.as_ref().map(|t| t.value),
        hit_rate: raw.hit_rate.as_ref().map(|h| h.value.0),
        cached_by: cached_by(raw, this, this_name, names, cx),
        calls: share.map_or(calls, |s| calls * s),
        share,
        degradable,
        pull: raw.consumes.as_ref().is_some_and(|c| c.value),
        switchover: switchover(raw, kind, cx),
        limits: super::slow::edge_limits(raw, workers, cx),
        span: raw.span,
        fields: Fields::new(RawEdge::KEYS, &raw.keys),
    })
}

/// A `shards` edge (`sharded`) becomes one edge per shard, each for an
/// equal share of the requests; any other edge is pushed as it is.
fn shard(edge: Edge, sharded: bool, out: &mut Vec<Edge>) {
    if !sharded {
        out.push(edge);
        return;
    }
    #[allow(clippy::cast_precision_loss, reason = "a handful of shards")]
    let share = 1.0 / edge.targets.len() as f64;
    for &t in &edge.targets {
        out.push(Edge {
            kind: EdgeKind::Target,
            targets: vec![t],
            calls: edge.calls * share,
            share: Some(share),
            ..edge.clone()
        });
    }
}

/// The `share` of an edge: only on a `target`.
fn share(raw: &RawEdge, cx: &mut Cx) -> Option<f64> {
    let value = raw.share.as_ref()?;
    for other in ["any_of", "at_least", "of", "shards"] {
        if let Some(span) = raw.key_span(other) {
            cx.report(Problem::exclusive(
                raw.key_span("share").unwrap_or(value.span),
                "share",
                other,
                span,
                "`share` is the part of the requests that make this one call: give it on a `target` edge, one per part (or list the parts with `shards` for equal shares)",
            ));
            return None;
        }
    }
    Some(value.value.0)
}

/// The `share`s of one component's edges are parts of its requests: they
/// add up to at most 100%.
fn shares_add_up(written: &[RawDependency], name: &str, cx: &mut Cx) {
    let mut sum = 0.0;
    for dependency in written {
        let RawDependency::Edge(raw) = dependency else {
            continue;
        };
        // `shards` split all of the requests among them: 100%.
        let (part, span) = match (&raw.share, &raw.shards) {
            (Some(share), _) => (share.value.0, share.span),
            (None, Some(shards)) => (1.0, raw.key_span("shards").unwrap_or(shards.span)),
            (None, None) => continue,
        };
        sum += part;
        if sum > 1.0 + 1e-9 {
            cx.report(Problem::share_sum(
                span,
                &format!("`share`s and `shards` of {name}'s calls"),
                sum,
                "at most 100% (the rest of the requests make none of these calls)",
            ));
            return;
        }
    }
}

/// The cache named by `cached_by`, which needs a `hit_rate` to provide.
fn cached_by(
    raw: &RawEdge,
    this: ComponentId,
    this_name: &str,
    names: &Names,
    cx: &mut Cx,
) -> Option<ComponentId> {
    let name = raw.cached_by.as_ref()?;
    let id = names.component(name, cx)?;
    if id == this {
        cx.report(Problem::self_reference(name.span, this_name, "cached_by"));
        return None;
    }
    if raw.hit_rate.is_none() {
        cx.report(Problem::needs_partner(
            name.span,
            "cached_by",
            "hit_rate",
            "`cached_by` names the cache that answers `hit_rate` of the calls",
        ));
        return None;
    }
    Some(id)
}

/// The `switchover` of an edge: only between alternatives.
fn switchover(raw: &RawEdge, kind: EdgeKind, cx: &mut Cx) -> Option<super::super::Duration> {
    let value = raw.switchover.as_ref()?;
    if kind == EdgeKind::Target {
        cx.report(Problem::needs_partner(
            raw.key_span("switchover").unwrap_or(value.span),
            "switchover",
            "any_of",
            "a switchover moves traffic from an active alternative to a standby: list them with `any_of` (or `at_least` with `of`), the active ones first",
        ));
        return None;
    }
    Some(value.value)
}

/// Which of the three forms an edge takes, reporting a mix or none.
fn edge_shape<'e>(raw: &'e RawEdge, cx: &mut Cx) -> Option<(EdgeKind, &'e [Spanned<Name>], u32)> {
    let forms: Vec<&str> = [
        ("target", raw.target.is_some()),
        ("any_of", raw.any_of.is_some()),
        ("at_least", raw.at_least.is_some() || raw.of.is_some()),
        ("shards", raw.shards.is_some()),
    ]
    .iter()
    .filter(|(_, present)| *present)
    .map(|(key, _)| *key)
    .collect();
    if forms.len() != 1 {
        let found: Vec<&str> = ["target", "any_of", "at_least", "of", "shards"]
            .into_iter()
            .filter(|key| raw.key_span(key).is_some())
            .collect();
        let span = found
            .first()
            .and_then(|k| raw.key_span(k))
            .unwrap_or(raw.span);
        let labels: Vec<String> = found.iter().map(|k| format!("`{k}`")).collect();
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        cx.report(Problem::edge_shape(span, &labels));
        return None;
    }
    if let Some(target) = &raw.target {
        return Some((EdgeKind::Target, std::slice::from_ref(target), 1));
    }
    if let Some(shards) = &raw.shards {
        if shards.value.len() < 2 {
            cx.report(Problem::at_least_two(
                shards.span,
                "`shards`",
                "one shard is the whole of it: write `target:`",
            ));
            return None;
        }
        // One edge to every shard here; `shard` splits it.
        return Some((EdgeKind::Target, &shards.value, 1));
    }
    if let Some(any_of) = &raw.any_of {
        if any_of.value.is_empty() {
            cx.report(Problem::empty_list(any_of.span, "`any_of`"));
            return None;
        }
        return Some((EdgeKind::AnyOf, &any_of.value, 1));
    }
    let (Some(at_least), Some(of)) = (&raw.at_least, &raw.of) else {
        let (key, partner) = if raw.at_least.is_some() {
            ("at_least", "of")
        } else {
            ("of", "at_least")
        };
        let span = raw.key_span(key).unwrap_or(raw.span);
        cx.report(Problem::needs_partner(
            span,
            key,
            partner,
            "`at_least: K` counts how many of the components in `of` must be up",
        ));
        return None;
    };
    if of.value.is_empty() {
        cx.report(Problem::empty_list(of.span, "`of`"));
        return None;
    }
    if at_least.value.0 == 0 {
        cx.report(Problem::zero_count(at_least.span, "at_least"));
        return None;
    }
    if at_least.value.0 as usize > of.value.len() {
        cx.report(Problem::at_least(
            at_least.span,
            at_least.value.0,
            of.value.len(),
        ));
        return None;
    }
    Some((EdgeKind::AtLeast, &of.value, at_least.value.0))
}

fn recovery(raw: &RawRecovery, names: &Names, cx: &mut Cx) -> Recovery {
    let get = |d: &Option<Spanned<super::super::Duration>>| d.as_ref().map(|d| d.value);
    Recovery {
        rto: get(&raw.rto),
        rpo: get(&raw.rpo),
        backup_interval: get(&raw.backup_interval),
        log_shipping: get(&raw.log_shipping),
        replication: raw
            .replication
            .as_ref()
            .map(|r| r.value)
            .unwrap_or_default(),
        replication_lag: get(&raw.replication_lag),
        detect: get(&raw.detect),
        decide: get(&raw.decide),
        restore: get(&raw.restore),
        failover: get(&raw.failover),
        last_drill: raw.last_drill.as_ref().map(|d| d.value),
        needs: raw
            .needs
            .iter()
            .flatten()
            .filter_map(|n| names.component(n, cx))
            .collect(),
        span: raw.span,
        fields: Fields::new(RawRecovery::KEYS, &raw.keys),
    }
}

//! The keys of slowness (docs/slow.md): a component's `latency` and
//! `workers`, an edge's `pool`, `connections`, `connect_timeout`,
//! `breaker` and `hedge`, with their cross-field rules: percentiles in
//! order, no bulkhead above the caller's workers, a hedge only where
//! another instance can answer.

use super::super::decode::{Cx, Spanned};
use super::super::error::Problem;
use super::super::raw::{RawComponent, RawEdge};
use super::super::span::Span;
use super::super::units::{Count, Duration};
use super::super::{Breaker, Component, EdgeLimits, Hedge, Latency};

/// A component's `latency`: at least one percentile, each at least the one
/// before.
pub(super) fn latency(component: &RawComponent, cx: &mut Cx) -> Option<Box<Latency>> {
    let raw = component.latency.as_deref()?;
    let written: [(&str, &Option<Spanned<Duration>>); 5] = [
        ("p50", &raw.p50),
        ("p90", &raw.p90),
        ("p95", &raw.p95),
        ("p99", &raw.p99),
        ("p999", &raw.p999),
    ];
    let mut latency = Latency::default();
    let mut lower: Option<(&str, Duration, Span)> = None;
    for (at, (key, value)) in written.into_iter().enumerate() {
        let Some(value) = value else { continue };
        if let Some((lower_key, lower_value, lower_span)) = lower
            && value.value < lower_value
        {
            cx.report(Problem::latency_order(
                value.span,
                key,
                &value.value.to_string(),
                (lower_key, &lower_value.to_string()),
                lower_span,
            ));
        }
        latency.by_percentile[at] = Some(value.value);
        lower = Some((key, value.value, value.span));
    }
    if lower.is_none() {
        cx.report(Problem::empty_latency(raw.span));
        return None;
    }
    Some(Box::new(latency))
}

/// A component's `workers`: at least 1.
pub(super) fn workers(component: &RawComponent, cx: &mut Cx) -> Option<u32> {
    let workers = component.workers.as_ref()?;
    at_least_one(workers, "workers", cx)
}

fn at_least_one(value: &Spanned<Count>, key: &str, cx: &mut Cx) -> Option<u32> {
    if value.value.0 == 0 {
        cx.report(Problem::zero_count(value.span, key));
        return None;
    }
    Some(value.value.0)
}

/// An edge's limits and defences, `None` when it has none; `workers` is
/// the caller's, with where it is written.
pub(super) fn edge_limits(
    raw: &RawEdge,
    workers: Option<(u32, Span)>,
    cx: &mut Cx,
) -> Option<Box<EdgeLimits>> {
    if raw.pool.is_none()
        && raw.connections.is_none()
        && raw.connect_timeout.is_none()
        && raw.breaker.is_none()
        && raw.hedge.is_none()
    {
        return None;
    }
    let pool = raw.pool.as_ref().and_then(|p| {
        let pool = at_least_one(p, "pool", cx)?;
        if let Some((workers, span)) = workers
            && pool > workers
        {
            cx.report(Problem::pool_above_workers(p.span, pool, workers, span));
        }
        Some(pool)
    });
    let connect_timeout = raw.connect_timeout.as_ref().map(|t| {
        if t.value.0 == 0 {
            cx.report(Problem::zero_duration(t.span, "connect_timeout"));
        }
        t.value
    });
    Some(Box::new(EdgeLimits {
        pool,
        connections: raw
            .connections
            .as_ref()
            .and_then(|c| at_least_one(c, "connections", cx)),
        connect_timeout,
        breaker: breaker(raw, cx),
        hedge: raw.hedge.as_deref().map(|h| {
            let max = h.max.as_ref().map(|m| m.value.0);
            if let Some(m) = h.max.as_ref().filter(|m| m.value.0 <= 0.0) {
                cx.report(Problem::pointless(
                    m.span,
                    "a hedge capped at 0% never sends a hedge",
                    "no hedge",
                    "give the share of calls that may be hedged, such as `max: 5%`, or remove `hedge`",
                ));
            }
            Hedge {
                after: h.after.value,
                max,
            }
        }),
    }))
}

fn breaker(raw: &RawEdge, cx: &mut Cx) -> Option<Breaker> {
    let b = raw.breaker.as_deref()?;
    let defaults = Breaker::default();
    if let Some(after) = b.after.as_ref().filter(|a| a.value.0 <= 0.0) {
        cx.report(Problem::pointless(
            after.span,
            "a breaker that opens after 0% failures is always open",
            "opens with no failure",
            "give the share of failed calls that opens it, such as `after: 50%`",
        ));
    }
    if let Some(open) = b.open.as_ref().filter(|o| o.value.0 == 0) {
        cx.report(Problem::zero_duration(open.span, "open"));
    }
    Some(Breaker {
        after: b.after.as_ref().map_or(defaults.after, |a| a.value.0),
        window: b
            .window
            .as_ref()
            .map_or(Some(defaults.window), |w| at_least_one(w, "window", cx))
            .unwrap_or(defaults.window),
        open: b.open.as_ref().map_or(defaults.open, |o| o.value),
    })
}

/// Reports every hedge whose targets have one instance between them: a
/// second attempt needs another instance to go to.
/// The components' names are given apart: they are moved in later.
pub(super) fn hedge_targets(components: &[Component], names: &[Spanned<String>], cx: &mut Cx) {
    for edge in components.iter().flat_map(|c| &c.depends_on) {
        if edge.limits.as_ref().and_then(|l| l.hedge).is_none() {
            continue;
        }
        let instances: u64 = edge
            .targets
            .iter()
            .map(|t| u64::from(components[t.0].instances))
            .sum();
        if instances <= 1 {
            let span = edge.fields.get("hedge").unwrap_or(edge.span);
            cx.report(Problem::hedge_one_instance(
                span,
                &names[edge.targets[0].0].value,
            ));
        }
    }
}

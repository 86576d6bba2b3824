//! Traces as spans: Jaeger's `/api/traces` (`{"data": [{"spans",
//! "processes"}]}`) and Zipkin's `/api/v2/traces` (`[[span, …], …]`, or
//! one trace's `[span, …]`). From them: every call between two services
//! (a span whose parent is in another service), and each service's own
//! time (docs/import.md, docs/slow.md).
//!
//! A service's *entry* span is one whose parent is in another service, or
//! has none. Its own time is the entry span's duration less the durations
//! of the calls it made (the entry spans of other services under it,
//! reached through spans of its own), at least 0: calls made in parallel
//! are taken off as if one after the other, and the network time of a
//! call counts as the caller's own. The p50 and p99 of those own times
//! (nearest rank) are the service's `latency`. Counts are of the traces
//! given: sampled traces undercount the calls, not their ratios.

use std::collections::{BTreeMap, HashMap};

use super::json::{Json, JsonValue};
use crate::model::Problem;
use crate::model::span::Span;

/// What the spans say.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spans {
    /// Calls between services: (caller, callee, where the callee's span is).
    pub calls: Vec<(String, String, Span)>,
    /// Each service's own times, in seconds, one per entry span.
    pub own: BTreeMap<String, Vec<f64>>,
}

/// One span, as both formats give it.
struct Item<'a> {
    id: &'a str,
    parent: Option<&'a str>,
    service: &'a str,
    /// Microseconds.
    duration: f64,
    span: Span,
    /// A Zipkin server span that shares its client's id: its parent is
    /// that client span, and spans naming the id as parent are its own.
    shared: bool,
}

fn str_of(json: Option<&Json>) -> Option<&str> {
    match &json?.value {
        JsonValue::Str(s) if !s.is_empty() => Some(s),
        _ => None,
    }
}

fn number_of(json: Option<&Json>) -> Option<f64> {
    match json?.value {
        JsonValue::Number(n) if n.is_finite() && n >= 0.0 => Some(n),
        _ => None,
    }
}

fn array_of(json: Option<&Json>) -> &[Json] {
    match json.map(|j| &j.value) {
        Some(JsonValue::Array(items)) => items,
        _ => &[],
    }
}

/// Whether Jaeger's `data` holds traces (its items have `spans`).
#[must_use]
pub fn is_jaeger(data: &[Json]) -> bool {
    data.first().is_some_and(|t| t.get("spans").is_some())
}

/// Whether a JSON array is Zipkin traces: arrays of spans, or spans
/// (objects with `traceId`).
#[must_use]
pub fn is_zipkin(items: &[Json]) -> bool {
    match items.first().map(|i| &i.value) {
        Some(JsonValue::Array(_)) => true,
        Some(JsonValue::Object(_)) => items[0].get("traceId").is_some(),
        _ => false,
    }
}

/// Jaeger's traces; a span without a service or a duration is left out
/// with a problem.
pub fn jaeger(data: &[Json], problems: &mut Vec<Problem>) -> Spans {
    let mut out = Spans::default();
    for (t, trace) in data.iter().enumerate() {
        let processes = trace.get("processes");
        let mut items = Vec::new();
        for (s, span) in array_of(trace.get("spans")).iter().enumerate() {
            let path = format!("data[{t}].spans[{s}]");
            let service = str_of(span.get("processID"))
                .and_then(|p| str_of(processes?.get(p)?.get("serviceName")));
            let parent = array_of(span.get("references")).iter().find_map(|r| {
                (str_of(r.get("refType")) == Some("CHILD_OF"))
                    .then(|| str_of(r.get("spanID")))
                    .flatten()
            });
            match (
                str_of(span.get("spanID")),
                service,
                number_of(span.get("duration")),
            ) {
                (Some(id), Some(service), Some(duration)) => items.push(Item {
                    id,
                    parent,
                    service,
                    duration,
                    span: span.span,
                    shared: false,
                }),
                _ => problems.push(Problem::trace_value(
                    span.span,
                    &path,
                    "a span with `spanID`, `duration` and a `processID` in `processes`",
                    span.kind(),
                )),
            }
        }
        add(&items, &mut out);
    }
    out
}

/// Zipkin's traces (or one trace).
pub fn zipkin(items: &[Json], problems: &mut Vec<Problem>) -> Spans {
    let mut out = Spans::default();
    let traces: Vec<(String, &[Json])> =
        if matches!(items.first().map(|i| &i.value), Some(JsonValue::Array(_))) {
            items
                .iter()
                .enumerate()
                .map(|(t, trace)| (format!("[{t}]"), array_of(Some(trace))))
                .collect()
        } else {
            vec![(String::new(), items)]
        };
    for (prefix, spans) in traces {
        let mut list = Vec::new();
        let mut remotes: Vec<(usize, &str)> = Vec::new();
        for (s, span) in spans.iter().enumerate() {
            let service = str_of(span.get("localEndpoint").and_then(|e| e.get("serviceName")));
            let shared = matches!(
                span.get("shared").map(|v| &v.value),
                Some(JsonValue::Bool(true))
            );
            let id = str_of(span.get("id"));
            let parent = str_of(span.get("parentId"));
            let remote = str_of(
                span.get("remoteEndpoint")
                    .and_then(|e| e.get("serviceName")),
            )
            .filter(|_| str_of(span.get("kind")) == Some("CLIENT"));
            match (id, service, number_of(span.get("duration"))) {
                (Some(id), Some(service), Some(duration)) => {
                    list.push(Item {
                        id,
                        parent,
                        service,
                        duration,
                        span: span.span,
                        shared,
                    });
                    // A call to a service that writes no spans (a
                    // database): its client span's remote endpoint.
                    if let Some(remote) = remote.filter(|r| *r != service) {
                        remotes.push((list.len() - 1, remote));
                    }
                }
                // A span still open has no duration: nothing to measure.
                (Some(_), Some(_), None) => {}
                _ => problems.push(Problem::trace_value(
                    span.span,
                    &format!("{prefix}[{s}]"),
                    "a span with `id`, `duration` and `localEndpoint.serviceName`",
                    span.kind(),
                )),
            }
        }
        // A remote endpoint stands for a server span only where no span of
        // another service answers the client span (as a shared span, or a
        // child).
        for (client, remote) in remotes {
            let id = list[client].id;
            let answered = list.iter().any(|other| {
                other.service != list[client].service
                    && ((other.shared && other.id == id) || other.parent == Some(id))
            });
            if !answered {
                list.push(Item {
                    id,
                    parent: Some(id),
                    service: remote,
                    duration: list[client].duration,
                    span: list[client].span,
                    shared: true,
                });
            }
        }
        add(&list, &mut out);
    }
    out
}

/// The calls and own times of one trace's spans.
fn add(items: &[Item], out: &mut Spans) {
    // By id: the span written with it, and the shared span (Zipkin's
    // server side) that has it too; a child names the shared one.
    let mut by_id: HashMap<&str, (Option<usize>, Option<usize>)> =
        HashMap::with_capacity(items.len());
    for (at, item) in items.iter().enumerate() {
        let slot = by_id.entry(item.id).or_default();
        let side = if item.shared {
            &mut slot.1
        } else {
            &mut slot.0
        };
        side.get_or_insert(at);
    }
    let parent_of = |at: usize| -> Option<usize> {
        let item = &items[at];
        let found = if item.shared {
            by_id.get(item.id).and_then(|(own, _)| *own)
        } else {
            item.parent
                .and_then(|p| by_id.get(p))
                .and_then(|(own, shared)| shared.or(*own))
        };
        found.filter(|&p| p != at)
    };
    // Each span's entry span: itself when its parent is elsewhere, else
    // its parent's. Found once per span (a walk up stops at a span already
    // known, and records what it found on every span it passed), so a deep
    // trace is linear; a cycle of references ends where it closes.
    let mut entry: Vec<Option<usize>> = vec![None; items.len()];
    let mut walk: Vec<usize> = Vec::new();
    let mut on_walk = vec![false; items.len()];
    for start in 0..items.len() {
        let mut here = start;
        let found = loop {
            if let Some(e) = entry[here] {
                break e;
            }
            walk.push(here);
            on_walk[here] = true;
            match parent_of(here) {
                Some(p) if items[p].service == items[here].service && !on_walk[p] => here = p,
                _ => break here,
            }
        };
        for at in walk.drain(..) {
            entry[at] = Some(found);
            on_walk[at] = false;
        }
    }
    let entry_of = |at: usize| entry[at].unwrap_or(at);
    let mut own: Vec<Option<f64>> = vec![None; items.len()];
    for at in 0..items.len() {
        if entry_of(at) == at {
            own[at].get_or_insert(items[at].duration);
        }
    }
    for at in 0..items.len() {
        let Some(p) = parent_of(at) else { continue };
        if items[p].service == items[at].service || entry_of(at) != at {
            continue;
        }
        out.calls.push((
            items[p].service.to_owned(),
            items[at].service.to_owned(),
            items[at].span,
        ));
        let caller = entry_of(p);
        if let Some(time) = own[caller].as_mut() {
            *time -= items[at].duration;
        }
    }
    for (at, time) in own.iter().enumerate() {
        if let Some(time) = time {
            out.own
                .entry(items[at].service.to_owned())
                .or_default()
                .push(time.max(0.0) / 1e6);
        }
    }
}

/// The `q` quantile of `times` by nearest rank (`times` not empty).
#[must_use]
pub fn quantile(times: &mut [f64], q: f64) -> f64 {
    times.sort_by(f64::total_cmp);
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "a rank between 1 and the number of spans"
    )]
    let rank = ((q * times.len() as f64).ceil() as usize).clamp(1, times.len());
    times[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Json {
        super::super::json::parse(text).unwrap()
    }

    #[test]
    fn own_time_is_the_entry_span_less_its_calls() {
        // frontend's request takes 100 ms and calls customer (60 ms) through a
        // client span of its own: frontend's own time 100 − 60 = 40 ms;
        // customer calls mysql (50 ms): 60 − 50 = 10 ms; mysql 50 ms.
        let json = parse(
            r#"{"data": [{"traceID": "t", "processes": {"p1": {"serviceName": "frontend"}, "p2": {"serviceName": "customer"}, "p3": {"serviceName": "mysql"}},
              "spans": [
                {"spanID": "a", "processID": "p1", "duration": 100000, "references": []},
                {"spanID": "b", "processID": "p1", "duration": 70000, "references": [{"refType": "CHILD_OF", "spanID": "a"}]},
                {"spanID": "c", "processID": "p2", "duration": 60000, "references": [{"refType": "CHILD_OF", "spanID": "b"}]},
                {"spanID": "d", "processID": "p3", "duration": 50000, "references": [{"refType": "CHILD_OF", "spanID": "c"}]}
              ]}]}"#,
        );
        let mut problems = Vec::new();
        let spans = jaeger(array_of(json.get("data")), &mut problems);
        assert!(problems.is_empty());
        let calls: Vec<(&str, &str)> = spans
            .calls
            .iter()
            .map(|(a, b, _)| (a.as_str(), b.as_str()))
            .collect();
        assert_eq!(calls, [("frontend", "customer"), ("customer", "mysql")]);
        let near = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(near(spans.own["frontend"][0], 0.04));
        assert!(near(spans.own["customer"][0], 0.01));
        assert!(near(spans.own["mysql"][0], 0.05));
    }

    #[test]
    fn zipkin_shared_spans_and_quantiles() {
        // web's server span 30 ms, its client span to db (same id as db's
        // shared server span, 20 ms): web's own 30 − 20 = 10 ms.
        let json = parse(
            r#"[[{"traceId": "t", "id": "1", "duration": 30000, "localEndpoint": {"serviceName": "web"}},
                 {"traceId": "t", "id": "2", "parentId": "1", "kind": "CLIENT", "duration": 22000, "localEndpoint": {"serviceName": "web"}},
                 {"traceId": "t", "id": "2", "parentId": "1", "kind": "SERVER", "shared": true, "duration": 20000, "localEndpoint": {"serviceName": "db"}}]]"#,
        );
        let JsonValue::Array(items) = &json.value else {
            unreachable!()
        };
        let mut problems = Vec::new();
        let spans = zipkin(items, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(spans.calls.len(), 1);
        assert!((spans.own["web"][0] - 0.01).abs() < 1e-12);
        assert!((spans.own["db"][0] - 0.02).abs() < 1e-12);
        // p50 of 1..=100 ms is the 50th, p99 the 99th.
        let mut times: Vec<f64> = (1..=100).map(f64::from).collect();
        assert!((quantile(&mut times, 0.5) - 50.0).abs() < 1e-12);
        assert!((quantile(&mut times, 0.99) - 99.0).abs() < 1e-12);
    }

    #[test]
    fn a_deep_trace_and_a_cycle_of_references_are_read_in_one_pass() {
        // 50,000 spans of one service, each the child of the one before,
        // under a caller: one entry span, one call; and two spans naming
        // each other as parent end without looping.
        let mut spans = vec![r#"{"traceId": "t", "id": "root", "duration": 100, "localEndpoint": {"serviceName": "web"}}"#.to_owned()];
        let mut parent = "root".to_owned();
        for i in 0..50_000 {
            spans.push(format!(
                r#"{{"traceId": "t", "id": "s{i}", "parentId": "{parent}", "duration": 50, "localEndpoint": {{"serviceName": "db"}}}}"#
            ));
            parent = format!("s{i}");
        }
        spans.push(r#"{"traceId": "t", "id": "x", "parentId": "y", "duration": 5, "localEndpoint": {"serviceName": "a"}}"#.to_owned());
        spans.push(r#"{"traceId": "t", "id": "y", "parentId": "x", "duration": 5, "localEndpoint": {"serviceName": "a"}}"#.to_owned());
        let json = parse(&format!("[{}]", spans.join(",")));
        let JsonValue::Array(items) = &json.value else {
            unreachable!()
        };
        let mut problems = Vec::new();
        let read = zipkin(items, &mut problems);
        assert!(problems.is_empty());
        assert_eq!(read.calls.len(), 1);
        assert_eq!(read.own["db"].len(), 1);
        assert_eq!(read.own["a"].len(), 1);
    }
}

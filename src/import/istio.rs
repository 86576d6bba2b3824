//! Istio's traffic policies, read when the manifests hold them: a
//! `VirtualService`'s timeout, retries and injected delay, a
//! `DestinationRule`'s connection pool and outlier detection. They are
//! what the callers of a host get from their sidecars, so `draft` writes
//! them on every edge to that host (docs/import.md, docs/slow.md):
//!
//! | Istio | edge key |
//! |---|---|
//! | `retries.perTryTimeout` (else the route's `timeout`) | `timeout` |
//! | `retries.attempts` | `retries` (cut to what the route's `timeout` leaves) |
//! | `connectionPool.http.http2MaxRequests`, else `tcp.maxConnections + http.http1MaxPendingRequests` | `pool` |
//! | `connectionPool.tcp.maxConnections` alone | `# connections` (a comment: without a pending limit calls wait for a connection, holding the caller's worker) |
//! | `connectionPool.tcp.connectTimeout` | `connect_timeout` |
//! | `outlierDetection.consecutive5xxErrors` (`consecutiveErrors`, `consecutiveGatewayErrors`), `baseEjectionTime` | `breaker: {after: 100%, window: N, open: T}` |
//!
//! A `fault.delay` is a test, not a setting: it becomes a note naming the
//! `what-if --slow` that asks what it does. The route read is the one
//! without a `match` (the default), else the first; a `DestinationRule`'s
//! top-level `trafficPolicy` (not a subset's). Hosts are matched by their
//! first label (`reviews.default.svc.cluster.local` is `reviews`).

use std::collections::BTreeMap;

use super::k8s::get;
use super::{Note, Origin};
use crate::model::load::{Node, Value};
use crate::model::units::{Duration, parse_duration};

/// What the mesh sets for the callers of each host, by host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mesh {
    /// From `VirtualService`s.
    pub routes: BTreeMap<String, Route>,
    /// From `DestinationRule`s.
    pub destinations: BTreeMap<String, Destination>,
}

/// A `VirtualService`'s route to a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The `VirtualService`'s name.
    pub name: String,
    /// The route's `timeout` (all attempts together).
    pub timeout: Option<Duration>,
    /// `retries.attempts`: retries after the first attempt.
    pub attempts: Option<u32>,
    /// `retries.perTryTimeout`.
    pub per_try: Option<Duration>,
    /// An injected `fault.delay`: the delay and the share of calls, in
    /// percent as written.
    pub delay: Option<(Duration, String)>,
    /// Where it is written.
    pub origin: Origin,
}

/// A `DestinationRule`'s traffic policy for a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    /// The `DestinationRule`'s name.
    pub name: String,
    /// `tcp.maxConnections`.
    pub max_connections: Option<u32>,
    /// `tcp.connectTimeout`.
    pub connect_timeout: Option<Duration>,
    /// `http.http1MaxPendingRequests`.
    pub max_pending: Option<u32>,
    /// `http.http2MaxRequests`.
    pub max_requests: Option<u32>,
    /// Outlier detection: consecutive errors and the ejection time.
    pub outlier: Option<(u32, Option<Duration>)>,
}

/// One edge key written from the mesh, with where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// `timeout: 3s`, `breaker: {after: 100%, window: 5, open: 30s}`.
    pub text: String,
    /// The comment saying where it comes from.
    pub why: String,
}

/// The first label of a host: its Service's name.
fn service_of(host: &str) -> &str {
    host.split('.').next().unwrap_or(host)
}

fn text(node: &Node) -> Option<&str> {
    match &node.value {
        Value::Str(s) => Some(s),
        _ => None,
    }
}

fn items(node: Option<&Node>) -> &[Node] {
    match node.map(|n| &n.value) {
        Some(Value::Seq(items)) => items,
        _ => &[],
    }
}

fn count(node: Option<&Node>) -> Option<u32> {
    match node?.value {
        Value::Int(n) => u32::try_from(n).ok(),
        _ => None,
    }
}

fn path<'a>(node: &'a Node, keys: &[&str]) -> Option<&'a Node> {
    keys.iter().try_fold(node, |node, key| get(node, key))
}

impl Mesh {
    /// Reads one `VirtualService` or `DestinationRule`; a value that is not
    /// what Istio writes there is skipped with a note.
    pub fn read(
        &mut self,
        kind: &str,
        node: &Node,
        name: &str,
        origin: Origin,
        notes: &mut Vec<Note>,
    ) {
        let Some(spec) = get(node, "spec") else {
            return;
        };
        let mut duration = |node: Option<&Node>, what: &str| -> Option<Duration> {
            let node = node?;
            let parsed = text(node).and_then(|t| parse_duration(t.trim()).ok());
            if parsed.is_none() {
                notes.push(Note {
                    origin: Some(origin),
                    message: format!(
                        "{kind} {name}: `{what}` is not a duration nines reads; left out"
                    ),
                });
            }
            parsed
        };
        match kind {
            "VirtualService" => {
                let http = items(get(spec, "http"));
                let route = http
                    .iter()
                    .find(|r| get(r, "match").is_none())
                    .or_else(|| http.first());
                let delay = http.iter().find_map(|r| {
                    let delay = path(r, &["fault", "delay"])?;
                    let fixed = get(delay, "fixedDelay")?;
                    let share = path(delay, &["percentage", "value"])
                        .or_else(|| get(delay, "percent"))
                        .map_or_else(|| "100".to_owned(), scalar);
                    Some((fixed, share))
                });
                let delay = delay.and_then(|(fixed, share)| {
                    duration(Some(fixed), "fault.delay.fixedDelay").map(|d| (d, share))
                });
                let (timeout, attempts, per_try) = match route {
                    Some(r) => (
                        duration(get(r, "timeout"), "timeout"),
                        count(path(r, &["retries", "attempts"])),
                        duration(
                            path(r, &["retries", "perTryTimeout"]),
                            "retries.perTryTimeout",
                        ),
                    ),
                    None => (None, None, None),
                };
                for host in items(get(spec, "hosts")).iter().filter_map(text) {
                    self.routes.insert(
                        service_of(host).to_owned(),
                        Route {
                            name: name.to_owned(),
                            timeout,
                            attempts,
                            per_try,
                            delay: delay.clone(),
                            origin,
                        },
                    );
                }
            }
            "DestinationRule" => {
                let Some(host) = get(spec, "host").and_then(text) else {
                    return;
                };
                let policy = get(spec, "trafficPolicy");
                let pool = policy.and_then(|p| get(p, "connectionPool"));
                let tcp = pool.and_then(|p| get(p, "tcp"));
                let http = pool.and_then(|p| get(p, "http"));
                let outlier = policy.and_then(|p| get(p, "outlierDetection"));
                let errors = outlier.and_then(|o| {
                    count(get(o, "consecutive5xxErrors"))
                        .or_else(|| count(get(o, "consecutiveErrors")))
                        .or_else(|| count(get(o, "consecutiveGatewayErrors")))
                });
                let ejection = outlier.and_then(|o| {
                    duration(
                        get(o, "baseEjectionTime"),
                        "outlierDetection.baseEjectionTime",
                    )
                });
                let connect_timeout =
                    tcp.and_then(|t| duration(get(t, "connectTimeout"), "tcp.connectTimeout"));
                self.destinations.insert(
                    service_of(host).to_owned(),
                    Destination {
                        name: name.to_owned(),
                        max_connections: tcp.and_then(|t| count(get(t, "maxConnections"))),
                        connect_timeout,
                        max_pending: http.and_then(|h| count(get(h, "http1MaxPendingRequests"))),
                        max_requests: http.and_then(|h| count(get(h, "http2MaxRequests"))),
                        outlier: errors.filter(|n| *n > 0).map(|n| (n, ejection)),
                    },
                );
            }
            _ => {}
        }
    }

    /// The edge keys the mesh sets for calls to the Service `service`, in
    /// the order they are written.
    #[must_use]
    pub fn keys(&self, service: &str) -> Vec<Key> {
        let mut keys = Vec::new();
        if let Some(route) = self.routes.get(service) {
            route_keys(route, &mut keys);
        }
        if let Some(destination) = self.destinations.get(service) {
            destination_keys(destination, &mut keys);
        }
        keys
    }

    /// The note of an injected delay on `service` (reached as the
    /// component `component`), if one is written.
    #[must_use]
    pub fn delay_note(&self, service: &str, component: &str) -> Option<Note> {
        let route = self.routes.get(service)?;
        let (delay, share) = route.delay.as_ref()?;
        Some(Note {
            origin: Some(route.origin),
            message: format!(
                "VirtualService {} injects a {delay} delay into {share}% of the calls to {service}: `nines what-if MODEL --slow {component}={delay}` shows what it does to every pool",
                route.name
            ),
        })
    }
}

fn scalar(node: &Node) -> String {
    match &node.value {
        Value::Str(s) => s.clone(),
        Value::Int(n) => n.to_string(),
        Value::Float(f) => f.to_string(),
        _ => "100".to_owned(),
    }
}

fn route_keys(route: &Route, keys: &mut Vec<Key>) {
    let vs = format!("VirtualService {}", route.name);
    let per_try = route.per_try.or(route.timeout);
    if let Some(t) = per_try {
        let why = if route.per_try.is_some() {
            format!("{vs}: retries.perTryTimeout")
        } else {
            format!("{vs}: the route's timeout")
        };
        keys.push(Key {
            text: format!("timeout: {t}"),
            why,
        });
    }
    if let Some(attempts) = route.attempts.filter(|a| *a > 0) {
        // The route's timeout bounds all attempts together.
        let fit = match (route.timeout, per_try) {
            (Some(total), Some(each)) if each.0 > 0 => u32::try_from(total.0 / each.0)
                .unwrap_or(u32::MAX)
                .saturating_sub(1),
            _ => attempts,
        };
        let (retries, why) = if fit < attempts {
            (
                fit,
                format!(
                    "{vs}: retries.attempts {attempts}, of which the route's timeout {} leaves {fit}",
                    route.timeout.unwrap_or_default()
                ),
            )
        } else {
            (attempts, format!("{vs}: retries.attempts"))
        };
        keys.push(Key {
            text: format!("retries: {retries}"),
            why,
        });
    }
}

fn destination_keys(d: &Destination, keys: &mut Vec<Key>) {
    let dr = format!("DestinationRule {}", d.name);
    let pool = match (d.max_requests, d.max_connections, d.max_pending) {
        (Some(requests), _, _) => Some((requests, "http.http2MaxRequests".to_owned())),
        (None, Some(connections), Some(pending)) => Some((
            connections.saturating_add(pending),
            format!(
                "tcp.maxConnections {connections} + http.http1MaxPendingRequests {pending}, per caller pod"
            ),
        )),
        _ => None,
    };
    if let Some((size, what)) = &pool {
        keys.push(Key {
            text: format!("pool: {}", size.max(&1)),
            why: format!("{dr}: {what}; Envoy refuses the rest at once"),
        });
    }
    // Calls past tcp.maxConnections wait in Envoy's pending queue, holding
    // the caller's worker: the connections are a limit only with the queue
    // (counted in `pool` above).
    if let (Some(connections), None) = (d.max_connections, &pool) {
        keys.push(Key {
            text: format!("# connections: {}", connections.max(1)),
            why: format!(
                "{dr}: tcp.maxConnections; calls past it wait in Envoy's pending queue (no http1MaxPendingRequests: unbounded), holding the caller's worker, so it is no limit"
            ),
        });
    }
    if let Some(t) = d.connect_timeout.filter(|t| t.0 > 0) {
        keys.push(Key {
            text: format!("connect_timeout: {t}"),
            why: format!("{dr}: tcp.connectTimeout"),
        });
    }
    if let Some((errors, ejection)) = d.outlier {
        let open = ejection.filter(|e| e.0 > 0).unwrap_or(Duration(30_000));
        keys.push(Key {
            text: format!("breaker: {{after: 100%, window: {errors}, open: {open}}}"),
            why: format!(
                "{dr}: outlierDetection ejects an instance after {errors} error{} in a row, for baseEjectionTime{}",
                if errors == 1 { "" } else { "s" },
                if ejection.is_some() { "" } else { " (Istio's default 30s)" }
            ),
        });
    }
}

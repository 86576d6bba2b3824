//! `deadline/<caller>><target>`: a caller gives up on a call while the
//! target may still be retrying its own dependencies.

use super::call_paths::{CallPath, worst_call};
use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use crate::analyze::results::{LatencyRow, Audit};
use crate::model::Rule;
use crate::model::graph::calls;
use crate::model::{ComponentId, Duration, Edge, Model};

// ---- finding constructors ----

/// `deadline/<caller>><target>` and `deadline/<entrypoint>`: a timeout
/// shorter than what it waits for.
#[derive(Debug)]
enum TooLate {
    /// The caller gives up before the target's own call can end.
    TooShort {
        /// The edge `caller>target`.
        edge: Subject,
        inner: Arc<str>,
        timeout: Duration,
        /// The inner call's retries and timeout.
        retries: u32,
        inner_timeout: Duration,
        worst: Duration,
    },
    /// The clients of an entrypoint give up before its slowest path ends.
    EntrypointTooSlow {
        component: Arc<str>,
        path: String,
        worst: Duration,
        timeout: Duration,
    },
}

fn too_short(
    model: &Model,
    (caller, target, edge, timeout): (ComponentId, ComponentId, &Edge, Duration),
    (inner_target, inner): (ComponentId, &Edge),
    worst: Duration,
) -> Finding {
    let (caller, target) = (model.component(caller), model.component(target));
    let subject = Subject::edge(&caller.name, &target.name);
    Finding::new(
        DOC.rule,
        subject.clone(),
        Severity::Warning,
        edge.fields.get("timeout").unwrap_or(edge.span),
        TooLate::TooShort {
            edge: subject,
            inner: Arc::from(model.component(inner_target).name.as_str()),
            timeout,
            retries: inner.retries,
            inner_timeout: inner.timeout.unwrap_or_default(),
            worst,
        },
    )
}

fn entrypoint_too_slow(
    model: &Model,
    entrypoint: ComponentId,
    (path, worst): (&[String], Duration),
    timeout: Duration,
) -> Finding {
    let component = model.component(entrypoint);
    let name: Arc<str> = Arc::from(component.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Warning,
        component.fields.get("timeout").unwrap_or(component.span),
        TooLate::EntrypointTooSlow {
            component: name,
            path: path.join(" > "),
            worst,
            timeout,
        },
    )
}

impl Wording for TooLate {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TooLate::TooShort {
                edge,
                inner,
                timeout,
                retries,
                inner_timeout,
                worst,
            } => {
                let (caller, target) = (edge.name(), edge.then().unwrap_or(""));
                write!(
                    out,
                    "{caller} gives up on {target} after {timeout}, but {target}'s call to {inner} alone can take "
                )?;
                if *retries == 0 {
                    write!(out, "{worst}")?;
                } else {
                    write!(out, "(1 + {retries}) × {inner_timeout} = {worst}")?;
                }
                write!(
                    out,
                    ": {target} keeps working{} for a caller that is gone",
                    if *retries == 0 { "" } else { " (and retrying)" },
                )
            }
            TooLate::EntrypointTooSlow {
                component,
                path,
                worst,
                timeout,
            } => write!(
                out,
                "{component}'s clients wait {timeout}, but its slowest call path {path} can take {worst} (Σ timeout × attempts over its hops): a request can still be in flight when the client has given up"
            ),
        }
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TooLate::TooShort { edge, worst, .. } => {
                let (caller, target) = (edge.name(), edge.then().unwrap_or(""));
                write!(
                    out,
                    "per-call timeouts do not compose: propagate a deadline ({caller} passes its remaining time to {target}, which stops when it runs out), or make {caller}'s timeout on {target} at least {worst}"
                )
            }
            TooLate::EntrypointTooSlow {
                component, timeout, ..
            } => write!(
                out,
                "propagate a deadline from {component} down the path, or cut timeouts and retries on it until their sum is below {timeout}"
            ),
        }
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Deadline,
    id: "deadline/<caller>><target>",
    severity: "warning",
    summary: "A caller gives up no later than its target's own worst-case call to a dependency can end.",
    checks: "For every edge with a `timeout`, the target's worst-case call time to each of its own dependencies: `(1 + retries) × timeout` on that edge (edges without a timeout are skipped). When the caller's timeout is not longer than the longest of them (equal is already too short: the target starts its call after the caller's timer started), the caller abandons calls its target is still working on. Also, per entrypoint, the worst-case latency of each call path, `Σ timeout × (1 + retries)` over its hops (the report's `latency` rows): when the entrypoint has a `timeout` (how long its clients wait) and its slowest path reaches it, `deadline/<entrypoint>` fires.",
    why: "Per-call timeouts do not compose. The target keeps retrying for a request whose caller has already given up, and the caller usually retries too, so the work done for nothing multiplies exactly when the dependency is slow.",
    example: "components:\n  frontend: {depends_on: [{target: checkout, timeout: 5s}]}   # deadline/frontend>checkout\n  checkout: {depends_on: [{target: payments, retries: 2, timeout: 2s}]}   # (1 + 2) × 2s = 6s\n  payments: {}",
    fix: "Propagate a deadline: the caller sends the time it has left (a gRPC deadline, a header) and the target stops retrying when it runs out. Otherwise make the caller's timeout longer than the target's worst-case call, or cut the target's retries or timeout.",
};

// ---- the check ----

/// The `deadline` rule.
pub struct Deadline;

impl Analyzer for Deadline {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        // The longest worst-case call of each component (first one on ties).
        let longest: Vec<Option<(Duration, ComponentId, &Edge)>> = cx
            .model
            .components
            .iter()
            .map(|component| {
                let mut best: Option<(Duration, ComponentId, &Edge)> = None;
                for edge in &component.depends_on {
                    if let Some(worst) = worst_call(edge)
                        && best.is_none_or(|(b, _, _)| worst > b)
                    {
                        best = Some((worst, edge.targets[0], edge));
                    }
                }
                best
            })
            .collect();
        for (entrypoint, worst, row) in latency_rows(cx.model, &cx.call_paths().paths) {
            if let (Some(timeout), Some(true)) = (cx.model.component(entrypoint).timeout, row.over)
            {
                audit.findings.push(entrypoint_too_slow(
                    cx.model,
                    entrypoint,
                    (&row.path, worst),
                    timeout,
                ));
            }
            audit.latency.push(row);
        }
        for (caller, target, edge) in calls(cx.model) {
            let (Some(timeout), Some((worst, inner_target, inner))) =
                (edge.timeout, longest[target.0])
            else {
                continue;
            };
            // Equal is too short: the target's timer starts after the caller's.
            if timeout <= worst {
                audit.findings.push(too_short(
                    cx.model,
                    (caller, target, edge, timeout),
                    (inner_target, inner),
                    worst,
                ));
            }
        }
    }
}

/// The entrypoint a path starts at, `Σ timeout × (1 + retries)` over its
/// hops, and the hops without a timeout (carried along the walk); `None`
/// for a path of no hops.
fn path_latency(path: &CallPath) -> Option<(ComponentId, Duration, u32)> {
    (path.len > 1).then_some((path.entrypoint, path.latency, path.untimed))
}

/// One row per entrypoint with a timed path: its slowest call path (the
/// first on ties, in walk order), compared with the entrypoint's `timeout`.
/// Names are spelt out only for the winners, so a long chain (whose every
/// prefix is a path) costs its paths' hops, not their names.
fn latency_rows(model: &Model, paths: &[CallPath]) -> Vec<(ComponentId, Duration, LatencyRow)> {
    let mut best: Vec<(ComponentId, Duration, u32, &CallPath)> = Vec::new();
    for path in paths {
        let Some((entrypoint, worst, untimed)) = path_latency(path) else {
            continue;
        };
        let slot = best.iter().position(|(e, _, _, _)| *e == entrypoint);
        if worst.0 == 0 || slot.is_some_and(|i| best[i].1 >= worst) {
            continue;
        }
        match slot {
            Some(i) => best[i] = (entrypoint, worst, untimed, path),
            None => best.push((entrypoint, worst, untimed, path)),
        }
    }
    best.into_iter()
        .map(|(entrypoint, worst, untimed, path)| {
            let timeout = model.component(entrypoint).timeout;
            let row = LatencyRow {
                entrypoint: model.component(entrypoint).name.clone(),
                path: path.names(model),
                worst_latency_s: worst.seconds(),
                untimed_hops: untimed,
                timeout_s: timeout.map(Duration::seconds),
                over: timeout.map(|t| worst >= t),
            };
            (entrypoint, worst, row)
        })
        .collect()
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        crate::analyze::check_one(&Deadline, text).findings
    }

    #[test]
    fn a_caller_shorter_than_its_callees_retries_fires() {
        let found = findings(
            r"system: s
components:
  frontend: {depends_on: [{target: checkout, timeout: 5s}]}
  checkout: {depends_on: [{target: payments, retries: 2, timeout: 2s}]}
  payments: {}
",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id().to_string(), "deadline/frontend>checkout");
        // (1 + 2) × 2s = 6s > 5s
        assert!(
            found[0].message().to_string().contains(
                "after 5s, but checkout's call to payments alone can take (1 + 2) × 2s = 6s"
            ),
            "{}",
            found[0].message().to_string()
        );
    }

    #[test]
    fn a_long_enough_timeout_or_none_at_all_is_silent() {
        let text = r"system: s
components:
  frontend: {depends_on: [{target: checkout, timeout: 6s}]}
  checkout: {depends_on: [{target: payments, retries: 2, timeout: 2s}]}
  payments: {}
";
        // 6s is too short for 6s (the callee starts later); 7s is enough.
        assert_eq!(findings(text).len(), 1);
        let text = text.replace("timeout: 6s", "timeout: 7s");
        assert!(findings(&text).is_empty());
        // No timeout on the caller's edge: the timeout rule's business.
        assert!(findings(&text.replace(", timeout: 7s", "")).is_empty());
    }

    #[test]
    fn five_seconds_on_every_hop_fires_on_each_caller() {
        // The textbook case: 5s / 5s / 5s. Each caller's 5s ≤ the callee's 5s.
        let found = findings(
            "system: s
components:
  a: {depends_on: [{target: b, timeout: 5s}]}
  b: {depends_on: [{target: c, timeout: 5s}]}
  c: {depends_on: [{target: d, timeout: 5s}]}
  d: {}
",
        );
        let ids: Vec<String> = found.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["deadline/a>b", "deadline/b>c"]);
    }

    #[test]
    fn the_slowest_path_is_compared_with_the_entrypoints_timeout() {
        // web waits 10s for its clients. Path web > api > db:
        // 2s × (1 + 2) + 1s × (1 + 1) = 6s + 2s = 8s < 10s; web > api > cache:
        // 6s + 3s = 9s (the slowest); with a 9s client timeout, 9s ≥ 9s fires.
        let text = "system: s
components:
  web: {timeout: 10s, depends_on: [{target: api, retries: 2, timeout: 2s}]}
  api: {depends_on: [{target: db, retries: 1, timeout: 1s}, {target: cache, timeout: 3s}]}
  db: {}
  cache: {}
";
        let audit = crate::analyze::check_one(&Deadline, text);
        assert_eq!(audit.latency.len(), 1);
        let row = &audit.latency[0];
        assert_eq!(row.path, ["web", "api", "cache"]);
        assert!((row.worst_latency_s - 9.0).abs() < 1e-9);
        assert_eq!(row.timeout_s, Some(10.0));
        assert_eq!(row.over, Some(false));
        assert!(!audit.findings.iter().any(|f| f.id().to_string() == "deadline/web"));
        let audit =
            crate::analyze::check_one(&Deadline, &text.replace("timeout: 10s", "timeout: 9s"));
        let f = audit
            .findings
            .iter()
            .find(|f| f.id().to_string() == "deadline/web")
            .expect("fires");
        assert!(
            f.message().to_string().contains("web > api > cache can take 9s"),
            "{}",
            f.message().to_string()
        );
    }
}

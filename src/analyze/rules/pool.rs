//! `pool/<component>` and `pool/<caller>><target>`: a request pool
//! (`workers`) or an edge's limit (`pool`, `connections`) smaller than
//! Little's law at normal latency plus headroom. Fills the report's
//! `pools` rows.

use std::fmt;
use std::sync::Arc;

use super::wording::amount;
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use crate::analyze::results::{Audit, PoolRow};
use crate::analyze::slow::seconds;
use crate::model::{ComponentId, Model, Rule};

// ---- finding constructors ----

/// A pool below what its in-flight requests need.
#[derive(Debug)]
struct Small {
    subject: Subject,
    /// Whether it is an edge's limit (calls), not a request pool.
    edge: bool,
    /// Its size per instance and the (caller's) instances up.
    per_instance: u32,
    instances: u32,
    arrival: f64,
    held: f64,
    in_flight: f64,
    headroom: f64,
    required: f64,
}

fn small(model: &Model, caller: ComponentId, edge: Option<usize>, row: &Small) -> Finding {
    let c = model.component(caller);
    let span = match edge {
        Some(at) => {
            let e = &c.depends_on[at];
            e.fields
                .get("pool")
                .or_else(|| e.fields.get("connections"))
                .unwrap_or(e.span)
        }
        None => c.fields.get("workers").unwrap_or(c.span),
    };
    let severity = if row.in_flight > row.size() {
        Severity::Error
    } else {
        Severity::Warning
    };
    Finding::new(
        DOC.rule,
        row.subject.clone(),
        severity,
        span,
        Small {
            subject: row.subject.clone(),
            ..*row
        },
    )
}

impl Small {
    /// `per_instance × instances`.
    fn size(&self) -> f64 {
        f64::from(self.per_instance) * f64::from(self.instances)
    }

    /// The size in words: `100`, or `3 × 100 = 300`.
    fn size_text(&self) -> String {
        if self.instances == 1 {
            self.per_instance.to_string()
        } else {
            format!(
                "{} × {} = {}",
                self.instances,
                self.per_instance,
                amount(self.size())
            )
        }
    }
}

impl Wording for Small {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.edge {
            format!(
                "the limit on {}'s calls to {}",
                self.subject.name(),
                self.subject.then().unwrap_or("")
            )
        } else {
            format!("{}'s request pool", self.subject.name())
        };
        let unit = if self.edge { "calls" } else { "requests" };
        write!(
            out,
            "{what} holds {} at a time, but at normal latency {} {unit}/s × {} held = {} are in flight",
            self.size_text(),
            amount(self.arrival),
            seconds(self.held),
            amount(self.in_flight),
        )?;
        if self.in_flight > self.size() {
            write!(
                out,
                ": it is full at peak, and what it cannot take waits or is refused"
            )
        } else {
            write!(
                out,
                ": with policy.pool_headroom {} it needs {} × {} = {}, and the slowest requests find it full",
                amount(self.headroom),
                amount(self.in_flight),
                amount(self.headroom),
                amount(self.required),
            )
        }
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = if self.edge { "pool" } else { "workers" };
        let per_instance = (self.required / f64::from(self.instances.max(1))).ceil();
        let per = if self.instances > 1 {
            format!(" per instance ({} / {})", amount(self.required), self.instances)
        } else {
            String::new()
        };
        write!(
            out,
            "size it for the peak rate × the p99 time held plus room (Hystrix: 30 rps × 0.2 s = 6 → 10): `{key}: {}`{per}, or cut the time its {} are held",
            amount(per_instance),
            if self.edge { "calls" } else { "requests" }
        )
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Pool,
    id: "pool/<component>",
    severity: "warning",
    summary: "A request pool or an edge's limit is smaller than its in-flight requests at normal latency, plus headroom.",
    checks: "Every component with `workers` and every edge with `pool` or `connections` (per instance, as `capacity`: the pool is that times the instances up), in the checked state at normal latency: in flight = arrival rate × time held (Little's law), where a request holds a worker for its own `latency` (the p99 when written) and each call `calls × the target's response time`, cut by the edge's `timeout`. Below `ceil(in_flight × policy.pool_headroom)` (default 1.5) it fires: an error when the pool is smaller than the in-flight count itself (full at peak), else a warning. An edge's limit is `pool/<caller>><target>`. Without any `latency` nothing is in flight and nothing is judged.",
    why: "A pool sized below Little's law is full at peak even when nothing is wrong: requests queue for a worker or are refused, and the queueing adds latency upstream. Sized at the mean, it is full for the slowest requests.",
    example: "components:\n  api: {capacity: 2000, load: 1000, workers: 60, depends_on: [{target: db, timeout: 1s}]}   # pool/api: 1000 × 50ms = 50, needs 75\n  db: {latency: {p99: 50ms}}",
    fix: "Raise `workers` (or the edge's `pool`) to the peak rate × the p99 time held plus room, or cut the time held: a shorter timeout, a faster dependency, fewer calls per request.",
};

// ---- the check ----

/// The `pool` rule.
pub struct Pool;

impl Analyzer for Pool {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let model = cx.model;
        if !crate::engine::concurrency::has_pools(model) {
            return;
        }
        let (_, base) = cx.concurrency();
        let headroom = model.policy.pool_headroom;
        let name = |c: ComponentId| -> Arc<str> { Arc::from(model.component(c).name.as_str()) };
        for id in model.component_ids() {
            let c = model.component(id);
            if let Some(workers) = c.workers {
                let load = base.of(id);
                let row = Small {
                    subject: Subject::from(name(id)),
                    edge: false,
                    per_instance: workers,
                    instances: cx.state().of(id).instances_up,
                    arrival: load.arrival,
                    held: load.held,
                    in_flight: load.in_flight,
                    headroom,
                    required: required(load.in_flight, headroom),
                };
                judge(model, audit, (id, None), &row);
            }
            for (at, edge) in c.depends_on.iter().enumerate() {
                let Some(limit) = edge.limits.as_ref().and_then(|l| l.limit()) else {
                    continue;
                };
                let load = base.edge(id, at);
                let row = Small {
                    subject: Subject::edge(&c.name, &model.component(edge.targets[0]).name),
                    edge: true,
                    per_instance: limit,
                    instances: cx.state().of(id).instances_up,
                    arrival: load.rate,
                    held: load.held,
                    in_flight: load.demand,
                    headroom,
                    required: required(load.demand, headroom),
                };
                judge(model, audit, (id, Some(at)), &row);
            }
        }
    }
}

/// `ceil(in_flight × headroom)`, as a whole number of workers.
fn required(in_flight: f64, headroom: f64) -> f64 {
    if in_flight.is_finite() {
        (in_flight * headroom - 1e-9).ceil().max(0.0)
    } else {
        f64::INFINITY
    }
}

/// The row of one pool, and its finding when it is too small.
fn judge(model: &Model, audit: &mut Audit, (id, edge): (ComponentId, Option<usize>), row: &Small) {
    let ok = row.in_flight <= 0.0 || row.size() >= row.required;
    audit.pools.push(PoolRow {
        component: row.subject.name().to_owned(),
        target: row.subject.then().map(str::to_owned),
        size: u64::from(row.per_instance) * u64::from(row.instances),
        in_flight: row.in_flight,
        required: row.required,
        ok,
    });
    if !ok {
        audit.findings.push(small(model, id, edge, row));
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn audit(text: &str) -> Audit {
        crate::analyze::check_one(&Pool, text)
    }

    #[test]
    fn a_pool_below_littles_law_plus_headroom_fires() {
        // 1000 rps × 50 ms = 50 in flight; × 1.5 = 75 > 60 workers: warning.
        let a = audit(
            "system: s\ncomponents:\n  api: {capacity: 2000, load: 1000, workers: 60, depends_on: [{target: db, timeout: 1s}]}\n  db: {latency: {p99: 50ms}}\n",
        );
        assert_eq!(a.findings.len(), 1);
        let f = &a.findings[0];
        assert_eq!(f.id().to_string(), "pool/api");
        assert_eq!(f.severity, Severity::Warning);
        let message = f.message().to_string();
        assert!(
            message.contains("1000 requests/s × 50ms held = 50 are in flight")
                && message.contains("1.5 it needs 50 × 1.5 = 75"),
            "{message}"
        );
        assert_eq!(a.pools.len(), 1);
        assert!((a.pools[0].required - 75.0).abs() < 1e-9);
    }

    #[test]
    fn a_pool_below_the_in_flight_count_is_an_error_and_one_above_is_silent() {
        let text = "system: s\ncomponents:\n  api: {capacity: 2000, load: 1000, workers: 40, depends_on: [{target: db, timeout: 1s}]}\n  db: {latency: {p99: 50ms}}\n";
        let a = audit(text);
        assert_eq!(a.findings[0].severity, Severity::Error);
        assert!(audit(&text.replace("workers: 40", "workers: 75")).findings.is_empty());
    }

    #[test]
    fn a_bulkhead_for_30_percent_at_250ms_needs_90_plus_room() {
        // 1200 × 0.3 × 0.25 = 90 concurrent; × 1.5 = 135 > 100.
        let a = audit(
            "system: s\ncomponents:\n  api: {capacity: 2000, load: 1200, workers: 400, depends_on: [{target: dep, calls: 0.3, timeout: 1s, pool: 100}]}\n  dep: {latency: {p99: 250ms}}\n",
        );
        let ids: Vec<String> = a.findings.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["pool/api>dep"]);
        let message = a.findings[0].message().to_string();
        assert!(
            message.contains("360 calls/s × 250ms held = 90 are in flight")
                && message.contains("90 × 1.5 = 135"),
            "{message}"
        );
    }
}

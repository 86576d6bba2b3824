//! `bulkhead/<caller>><target>`: a request pool shared by all of a
//! component's calls, in which the calls to one dependency, at their
//! timeout or hanging, can hold every worker. Judges each credible slow
//! component (`policy.slow`, docs/slow.md) and fills the report's `slow`
//! rows.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use super::wording::{amount, and_list};
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use crate::analyze::results::Audit;
use crate::analyze::slow::{self, Before, Reach, seconds};
use crate::engine::concurrency::{Plan, Slowed, Slowness};
use crate::engine::state::State;
use crate::model::{ComponentId, Duration, Model, Rule};

/// Work allowed for the slow events of one run, in component and edge
/// visits: past it the rest are not judged and the report says so.
const WORK: usize = 20_000_000;

// ---- finding constructors ----

/// One dependency that can take every worker of a shared pool.
#[derive(Debug)]
struct Takes {
    edge: Subject,
    slow: Arc<str>,
    /// `workers` per instance, and the caller's instances up.
    workers: (u32, u32),
    rate: f64,
    /// `timeout` and attempts of the edge, when it has a timeout.
    timeout: Option<(Duration, f64)>,
    in_flight: f64,
    exhausted: Option<f64>,
    losing: Vec<(Arc<str>, Reach)>,
    /// Calls in flight over the edge at normal latency, and over the rest.
    normal: (f64, f64),
    headroom: f64,
}

fn takes(model: &Model, (caller, at): (ComponentId, usize), takes: Takes) -> Finding {
    let edge = &model.component(caller).depends_on[at];
    let severity = if takes.losing.iter().any(|(_, r)| *r != Reach::Required) {
        Severity::Error
    } else {
        Severity::Warning
    };
    Finding::new(DOC.rule, takes.edge.clone(), severity, edge.span, takes)
}

impl Takes {
    /// The bulkhead per instance that would contain it: the edge's calls
    /// in flight at normal latency with headroom, over the instances up,
    /// at least 1.
    fn pool(&self) -> f64 {
        (self.normal.0 * self.headroom / f64::from(self.workers.1.max(1)) - 1e-9)
            .ceil()
            .max(1.0)
    }

    /// Workers in all: per instance × instances up.
    fn total(&self) -> f64 {
        f64::from(self.workers.0) * f64::from(self.workers.1)
    }

    /// The workers in words: `100`, or `3 × 100 = 300`.
    fn workers_text(&self) -> String {
        match self.workers {
            (w, 1) => w.to_string(),
            (w, n) => format!("{n} × {w} = {}", amount(self.total())),
        }
    }
}

impl Wording for Takes {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (caller, target) = (self.edge.name(), self.edge.then().unwrap_or(""));
        if *self.slow == *target {
            write!(out, "if {target} hangs, ")?;
        } else {
            write!(out, "if {} hangs, {target} waits on it and ", self.slow)?;
        }
        match self.timeout {
            Some((timeout, attempts)) => write!(
                out,
                "{caller}'s calls to {target} hold {}/s × {timeout} × {} = {} of its {} shared workers",
                amount(self.rate),
                amount(attempts),
                amount(self.in_flight),
                self.workers_text()
            )?,
            None => write!(
                out,
                "{caller}'s calls to {target} never return (no timeout) and take all {} of its shared workers",
                self.workers_text()
            )?,
        }
        if let Some(t) = self.exhausted {
            write!(out, ", every one gone in {}", seconds(t))?;
        }
        let never: Vec<&str> = self
            .losing
            .iter()
            .filter(|(_, r)| *r == Reach::Never)
            .map(|(n, _)| &**n)
            .collect();
        let optional: Vec<&str> = self
            .losing
            .iter()
            .filter(|(_, r)| *r == Reach::Degradable)
            .map(|(n, _)| &**n)
            .collect();
        let names: Vec<&str> = self.losing.iter().map(|(n, _)| &**n).collect();
        if !names.is_empty() {
            write!(out, "; {} lose{} service", and_list(&names), if names.len() == 1 { "s" } else { "" })?;
            let mut why = Vec::new();
            if !never.is_empty() {
                why.push(format!("{} never call{} {}", and_list(&never), if never.len() == 1 { "s" } else { "" }, self.slow));
            }
            if !optional.is_empty() {
                why.push(format!(
                    "{} call{} it only through degradable edges",
                    and_list(&optional),
                    if optional.len() == 1 { "s" } else { "" }
                ));
            }
            if !why.is_empty() {
                write!(out, " ({})", why.join("; "))?;
            }
        }
        Ok(())
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (caller, target) = (self.edge.name(), self.edge.then().unwrap_or(""));
        let pool = self.pool();
        let instances = f64::from(self.workers.1.max(1));
        let left = self.total() - pool * instances;
        let per = if self.workers.1 > 1 {
            format!(" per instance, of {} in all", amount(self.total()))
        } else {
            String::new()
        };
        write!(
            out,
            "give {caller}>{target} a bulkhead, `pool: {}`{per} ({} in flight at normal latency × {})",
            amount(pool),
            amount(self.normal.0),
            amount(self.headroom),
        )?;
        let rest = (self.normal.1 * self.headroom - 1e-9).ceil().max(0.0);
        if left >= rest {
            write!(
                out,
                ": the other {} workers keep serving its other calls ({} in flight)",
                amount(left),
                amount(self.normal.1)
            )?;
        } else {
            write!(
                out,
                ", and `workers: {}` so that its other calls ({} in flight) keep {} with room",
                amount(pool + (rest / instances).ceil()),
                amount(self.normal.1),
                amount(rest)
            )?;
        }
        if self.timeout.is_none() {
            write!(
                out,
                "; and a `timeout` with a `breaker`, so that the calls fail fast instead of waiting"
            )?;
        }
        Ok(())
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Bulkhead,
    id: "bulkhead/<caller>><target>",
    severity: "warning",
    summary: "One dependency, at its timeout or hanging, can hold every worker of a shared pool.",
    checks: "Each credible slow component (`policy.slow`: by default those some caller calls without a `timeout`; `true` every component, `false` none), made to hang, in the checked state. In-flight counts follow Little's law (docs/slow.md): a call to a hanging dependency is held for `timeout × attempts`, or forever without a timeout, and a saturated pool looks hung to its own callers. For every component with `workers` that this saturates, an edge whose calls alone hold at least all of the workers (no `pool` or `connections` that contains them) is `bulkhead/<caller>><target>`: an error when an entrypoint that does not need the slow component loses service, else a warning. The message gives the arithmetic, how soon the pool is full (free workers / the rate of the calls now held), and the entrypoints that lose service, naming those that never call the slow component (its drained pool moved their load) or call it only through degradable edges. The report's `slow` section gives every pool before and after.",
    why: "Most outages that spread start with a call that never returns: requests that never touch the slow dependency queue for a worker behind those that do. A bulkhead (a pool per dependency) keeps the slow calls in their compartment; a timeout bounds how long each holds a worker, and a breaker turns them into fast failures.",
    example: "components:\n  api: {capacity: 1000, load: 500, workers: 100, depends_on: [{target: recs, degradable: true}, {target: db, timeout: 1s}]}   # bulkhead/api>recs\n  recs: {latency: {p99: 40ms}}\n  db: {latency: {p99: 10ms}}",
    fix: "Give the edge a bulkhead, `pool: N`, sized at its in-flight calls at normal latency plus room (the message computes it), so the other workers keep serving; add a `timeout` (and a `breaker`) so slow calls fail fast.",
};

// ---- the check ----

/// The `bulkhead` rule.
pub struct Bulkhead;

impl Analyzer for Bulkhead {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let model = cx.model;
        if !crate::engine::concurrency::has_pools(model) {
            return;
        }
        let (plan, base) = cx.concurrency();
        let credible = slow::credible(model, plan);
        let unsettled = Before {
            scenario: &cx.scenario,
            state: cx.state(),
            base,
            steady: None,
        };
        let normal = slow::steady_normal(model, (cx.flow(), plan), &unsettled);
        let before = Before {
            steady: Some(&normal),
            ..unsettled
        };
        let cost = model.components.len()
            + model.components.iter().map(|c| c.depends_on.len()).sum::<usize>();
        let mut work = 0usize;
        let mut found: BTreeSet<(usize, usize)> = BTreeSet::new();
        for d in credible {
            if work > WORK {
                audit.slow_truncated = true;
                break;
            }
            let slowed = Slowed {
                components: vec![(d, Slowness::Hang)],
                drained: Vec::new(),
            };
            let judged = slow::judge(model, (cx.flow(), plan), &before, slowed);
            // A state and two concurrencies, three walks up the graph, and a
            // state and a concurrency per round of drained pools and per
            // round of the limits settling.
            work = work.saturating_add(
                cost.saturating_mul(6 + 2 * (judged.rounds + judged.settled)),
            );
            // A pool the slowness fills: saturated, and holding more than
            // at normal latency (a pool already full at normal latency is
            // `pool`'s finding, and still one a dependency can take).
            let fills = |a: f64, b: f64, saturated: bool| saturated && a > b * (1.0 + 1e-9);
            let saturated: Vec<ComponentId> = model
                .component_ids()
                .filter(|&id| {
                    let (a, b) = (judged.first.of(id), base.of(id));
                    model.component(id).workers.is_some() && fills(a.in_flight, b.in_flight, a.saturated)
                })
                .collect();
            let edges_saturate = model.component_ids().any(|id| {
                judged
                    .first
                    .edges_of(id)
                    .iter()
                    .zip(base.edges_of(id))
                    .any(|(a, b)| fills(a.in_flight, b.in_flight, a.saturated))
            });
            if saturated.is_empty() && !edges_saturate {
                continue;
            }
            audit.slow.push(slow::event(model, &judged, false));
            for id in saturated {
                report((model, cx.state(), plan), &judged, (id, d), &mut found, audit);
            }
        }
    }
}

/// The findings of one saturated pool `id` when `slow` hangs.
fn report(
    (model, state, plan): (&Model, &State, &Plan),
    judged: &slow::Judged,
    (id, slow): (ComponentId, ComponentId),
    found: &mut BTreeSet<(usize, usize)>,
    audit: &mut Audit,
) {
    let c = model.component(id);
    let (after, base) = (&judged.first, &judged.base);
    let Some(total) = after.of(id).workers else {
        return;
    };
    // The entrypoints this pool serves: those that call it; and, when it
    // is drained, those its moved load reaches.
    let callers = slow::upstream(model, plan, &[id], false);
    let workers = (c.workers.unwrap_or(0), state.of(id).instances_up);
    #[allow(clippy::cast_precision_loss, reason = "pools far below 2^53")]
    let total = total as f64;
    for (at, edge) in c.depends_on.iter().enumerate() {
        let load = after.edge(id, at);
        let grew = load.in_flight > base.edge(id, at).in_flight * (1.0 + 1e-9);
        if !grew || load.in_flight < total * (1.0 - 1e-12) || !found.insert((id.0, at)) {
            continue;
        }
        let grown: f64 = after
            .edges_of(id)
            .iter()
            .zip(base.edges_of(id))
            .filter(|(a, b)| a.held > b.held * (1.0 + 1e-9))
            .map(|(a, _)| a.rate)
            .sum();
        let free = total - base.of(id).in_flight;
        let normal_edge = base.edge(id, at).in_flight;
        let takes_it = Takes {
            edge: Subject::edge(&c.name, &model.component(edge.targets[0]).name),
            slow: Arc::from(model.component(slow).name.as_str()),
            workers,
            rate: load.rate,
            timeout: edge.timeout.map(|t| (t, load.attempts)),
            in_flight: load.in_flight,
            exhausted: (grown > 0.0 && free > 0.0).then(|| free / grown),
            losing: judged
                .losses
                .iter()
                .filter(|&&(e, _, _, reach)| {
                    callers[e.0] || (reach == Reach::Never && judged.slowed.drained.contains(&id))
                })
                .map(|&(e, _, _, reach)| (Arc::from(model.component(e).name.as_str()), reach))
                .collect(),
            normal: (normal_edge, base.of(id).in_flight - normal_edge),
            headroom: model.policy.pool_headroom,
        };
        audit.findings.push(takes(model, (id, at), takes_it));
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn audit(text: &str) -> Audit {
        crate::analyze::check_one(&Bulkhead, text)
    }

    const SERVICE: &str = "system: s
entrypoints: [web]
components:
  web: {depends_on: [{target: svc, timeout: 5s}]}
  svc:
    capacity: 1000
    load: 500
    workers: 100
    depends_on:
      - {target: dep EDGE}
      - {target: db, timeout: 100ms}
  dep: {latency: {p99: 40ms}}
  db: {latency: {p99: 10ms}}
";

    #[test]
    fn a_dependency_without_a_timeout_drains_the_shared_pool_in_016_s() {
        // 500 × 0.04 = 20 of svc's requests wait on dep, 500 × 0.01 = 5 on
        // db: 25 in flight. dep hangs: its calls never return; the 100 − 25
        // = 75 free workers are gone at 500 new hanging calls a second:
        // 75 / 500 = 0.15 s.
        let a = audit(&SERVICE.replace(" EDGE", ", degradable: true"));
        let ids: Vec<String> = a.findings.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["bulkhead/svc>dep"]);
        let f = &a.findings[0];
        // web calls dep only through the degradable edge: an error.
        assert_eq!(f.severity, Severity::Error);
        let message = f.message().to_string();
        assert!(
            message.starts_with("if dep hangs, svc's calls to dep never return (no timeout) and take all 100 of its shared workers, every one gone in 150ms; web loses service (web calls it only through degradable edges)"),
            "{message}"
        );
        let help = f.help().unwrap().to_string();
        // pool = ceil(20 × 1.5) = 30; 70 left for the other 5 (needs 8).
        assert!(
            help.starts_with("give svc>dep a bulkhead, `pool: 30` (20 in flight at normal latency × 1.5): the other 70 workers keep serving its other calls (5 in flight)"),
            "{help}"
        );
        assert_eq!(a.slow.len(), 1);
        assert_eq!(a.slow[0].lose_service[0].entrypoint, "web");
    }

    #[test]
    fn a_bulkhead_or_a_breaker_contains_it() {
        let pooled = SERVICE.replace(" EDGE", ", degradable: true, pool: 30");
        assert!(audit(&pooled).findings.is_empty());
        let broken = SERVICE.replace(
            " EDGE",
            ", degradable: true, timeout: 300ms, breaker: {after: 50%}",
        );
        // dep has a timeout on its one edge: not credible by default.
        assert!(audit(&broken).findings.is_empty());
        let every = broken.replace("entrypoints: [web]", "entrypoints: [web]\npolicy: {slow: true}");
        assert!(audit(&every).findings.is_empty());
        // Without the breaker, 500 × 0.3 = 150 ≥ 100: it fires (db, at its
        // 100ms, holds 500 × 0.1 = 50: it does not).
        let timed = every.replace(", breaker: {after: 50%}", "");
        let ids: Vec<String> = audit(&timed)
            .findings
            .iter()
            .map(|f| f.id().to_string())
            .collect();
        assert_eq!(ids, ["bulkhead/svc>dep"]);
    }
}

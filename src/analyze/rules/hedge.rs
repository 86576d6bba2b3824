//! `hedge/<caller>><target>`: hedged requests without a cap, or whose
//! worst case (a broad slowdown, when every call passes the threshold)
//! overloads the target.

use std::fmt;

use super::wording::{amount, percent, whole_percent};
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use crate::analyze::results::Audit;
use crate::model::{Edge, Hedge, Rule};

// ---- finding constructors ----

/// A hedge that can multiply the calls to its target.
#[derive(Debug)]
struct Storm {
    edge: Subject,
    hedge: Hedge,
    /// Calls per second over the edge to this target.
    flow: f64,
    /// The target's load and the capacity of its instances up, when known.
    capacity: Option<(f64, f64)>,
}

fn storm(edge: &Edge, storm: Storm) -> Finding {
    let severity = if storm.overloads() {
        Severity::Error
    } else {
        Severity::Warning
    };
    Finding::new(
        DOC.rule,
        storm.edge.clone(),
        severity,
        edge.fields.get("hedge").unwrap_or(edge.span),
        storm,
    )
}

impl Storm {
    /// Hedges a second in a broad slowdown.
    fn worst(&self) -> f64 {
        self.flow * self.hedge.slow_share()
    }

    fn overloads(&self) -> bool {
        self.capacity
            .is_some_and(|(load, cap)| load + self.worst() > cap * (1.0 + 1e-12))
    }
}

impl Wording for Storm {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (caller, target) = (self.edge.name(), self.edge.then().unwrap_or(""));
        let after = self.hedge.after.as_str();
        let steady = self.hedge.steady_share();
        write!(
            out,
            "{caller} hedges its calls to {target} after {target}'s {after}: at normal latency {} of {} calls/s = {}/s more",
            percent(steady),
            amount(self.flow),
            amount(self.flow * steady),
        )?;
        match self.hedge.max {
            None => write!(
                out,
                ", but with no `max`, in a broad slowdown every call passes the {after} and the hedges double the calls: {} → {}/s, a retry storm by another name",
                amount(self.flow),
                amount(self.flow + self.worst()),
            )?,
            Some(max) => write!(
                out,
                "; in a broad slowdown `max: {}` caps them at {}/s",
                percent(max),
                amount(self.worst())
            )?,
        }
        if let Some((load, cap)) = self.capacity {
            let total = load + self.worst();
            write!(
                out,
                "; {target} carries {} of {}, with them {} = {}",
                amount(load),
                amount(cap),
                amount(total),
                whole_percent(if cap > 0.0 { total / cap } else { f64::INFINITY }),
            )?;
        }
        Ok(())
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let target = self.edge.then().unwrap_or("");
        match (self.hedge.max, self.capacity) {
            (_, Some((load, cap))) if self.overloads() => {
                let room = ((cap - load) / self.flow).max(0.0);
                write!(
                    out,
                    "cap the hedges at what {target} can take on top of its load: `max: {}` ((capacity − load) / flow = ({} − {}) / {}), or give {target} more capacity",
                    percent(room),
                    amount(cap),
                    amount(load),
                    amount(self.flow)
                )
            }
            _ => write!(
                out,
                "cap the hedges at a few percent of the calls (`max: 5%`, as gRPC's hedging throttles), so a slowdown adds at most that share to {target}"
            ),
        }
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Hedge,
    id: "hedge/<caller>><target>",
    severity: "warning",
    summary: "Hedged requests without `max`, or whose worst case overloads the target.",
    checks: "Every edge with `hedge: {after: pNN, max: M}`, per target, on the flow of the checked state. At normal latency the calls slower than the percentile are hedged: 5% after p95 (capped by `max`). In a broad slowdown every call passes the threshold: the hedges add 100% of the flow, or `max` of it. Without `max` it fires (warning); with the target's `capacity`, when its load plus the worst-case hedges exceed the capacity of its instances up, it fires as an error.",
    why: "Hedging at the p95 costs about 5% more calls while the target is healthy, and cuts the tail. When the target slows down as a whole, every call passes the p95: unbounded hedging doubles its load exactly when it is struggling, a retry storm by another name.",
    example: "components:\n  web: {depends_on: [{target: search, timeout: 1s, hedge: {after: p95}}]}   # hedge/web>search\n  search: {instances: 3}",
    fix: "Cap the hedges at a few percent of the calls (`max: 5%`), below what the target can take on top of its load.",
};

// ---- the check ----

/// The `hedge` rule.
pub struct HedgeRule;

impl Analyzer for HedgeRule {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let model = cx.model;
        let hedged = |e: &Edge| e.limits.as_ref().and_then(|l| l.hedge);
        if !model
            .components
            .iter()
            .any(|c| c.depends_on.iter().any(|e| hedged(e).is_some()))
        {
            return;
        }
        let state = cx.state();
        for caller in model.component_ids() {
            let c = model.component(caller);
            for edge in &c.depends_on {
                let Some(hedge) = hedged(edge) else { continue };
                for &target in &edge.targets {
                    let flow = state.edge_flow(model, caller, edge, target).unwrap_or(0.0);
                    let capacity = state
                        .capacity(model, target)
                        .zip(state.of(target).offered)
                        .map(|(cap, load)| (load, cap));
                    let finding = Storm {
                        edge: Subject::edge(&c.name, &model.component(target).name),
                        hedge,
                        flow,
                        capacity,
                    };
                    if hedge.max.is_none() || finding.overloads() {
                        audit.findings.push(storm(edge, finding));
                    }
                }
            }
        }
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        crate::analyze::check_one(&HedgeRule, text).findings
    }

    const HEDGED: &str = "system: s\ncomponents:\n  web: {capacity: 2000, load: 1000, depends_on: [{target: search, timeout: 1s, hedge: HEDGE}]}\n  search: {instances: 3, capacity: 500, load: 1000}\n";

    #[test]
    fn an_unbounded_hedge_doubles_the_calls_in_a_slowdown() {
        let found = findings(&HEDGED.replace("HEDGE", "{after: p95}"));
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(f.id().to_string(), "hedge/web>search");
        // 1000 + 1000 = 2000 on 3 × 500 = 1500: 133%, an error.
        assert_eq!(f.severity, Severity::Error);
        let message = f.message().to_string();
        assert!(
            message.contains("at normal latency 5% of 1000 calls/s = 50/s more")
                && message.contains("1000 → 2000/s")
                && message.contains("search carries 1000 of 1500, with them 2000 = 133%"),
            "{message}"
        );
        // (1500 − 1000) / 1000 = 50%.
        assert!(f.help().unwrap().to_string().contains("`max: 50%`"));
    }

    #[test]
    fn a_capped_hedge_within_capacity_is_silent() {
        assert!(findings(&HEDGED.replace("HEDGE", "{after: p95, max: 5%}")).is_empty());
        // Without capacity figures, a missing cap is still a warning.
        let found = findings(
            &HEDGED
                .replace("HEDGE", "{after: p99}")
                .replace(", capacity: 500, load: 1000", ""),
        );
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(found[0].message().to_string().contains("1% of 1000 calls/s = 10/s more"));
    }
}

//! `deadline/<caller>><target>`: a caller gives up on a call while the
//! target may still be retrying its own dependencies.

use super::call_paths::calls;
use super::{Analyzer, Context, Finding, RuleDoc, Severity};
use crate::model::Rule;
use crate::model::{ComponentId, Duration, Edge, Model};
use crate::report::Report;

// ---- finding constructors ----

fn too_short(
    model: &Model,
    (caller, target, edge, timeout): (ComponentId, ComponentId, &Edge, Duration),
    (inner_target, inner): (ComponentId, &Edge),
    worst: Duration,
) -> Finding {
    let (caller, target) = (model.component(caller), model.component(target));
    let inner_name = &model.component(inner_target).name;
    Finding::new(
        DOC.rule,
        &format!("{}>{}", caller.name, target.name),
        Severity::Warning,
        edge.fields.get("timeout").unwrap_or(edge.span),
        format!(
            "{} gives up on {} after {timeout}, but {}'s call to {inner_name} alone can take {}: {} keeps working{} for a caller that is gone",
            caller.name,
            target.name,
            target.name,
            if inner.retries == 0 {
                worst.to_string()
            } else {
                format!(
                    "(1 + {}) × {} = {worst}",
                    inner.retries,
                    inner.timeout.unwrap_or_default()
                )
            },
            target.name,
            if inner.retries == 0 { "" } else { " (and retrying)" },
        ),
    )
    .help(format!(
        "per-call timeouts do not compose: propagate a deadline ({} passes its remaining time to {}, which stops when it runs out), or make {}'s timeout on {} at least {worst}",
        caller.name, target.name, caller.name, target.name
    ))
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Deadline,
    id: "deadline/<caller>><target>",
    severity: "warning",
    summary: "A caller gives up before its target's own worst-case call to a dependency ends.",
    checks: "For every edge with a `timeout`, the target's worst-case call time to each of its own dependencies: `(1 + retries) × timeout` on that edge (edges without a timeout are skipped). When the caller's timeout is shorter than the longest of them, the caller abandons calls its target is still working on.",
    why: "Per-call timeouts do not compose. The target keeps retrying for a request whose caller has already given up, and the caller usually retries too, so the work done for nothing multiplies exactly when the dependency is slow.",
    example: "components:\n  frontend: {depends_on: [{target: checkout, timeout: 5s}]}   # deadline/frontend>checkout\n  checkout: {depends_on: [{target: payments, retries: 2, timeout: 2s}]}   # (1 + 2) × 2s = 6s\n  payments: {}",
    fix: "Propagate a deadline: the caller sends the time it has left (a gRPC deadline, a header) and the target stops retrying when it runs out. Otherwise make the caller's timeout longer than the target's worst-case call, or cut the target's retries or timeout.",
};

// ---- the check ----

/// The `deadline` rule.
pub struct Deadline;

/// `(1 + retries) × timeout`, the longest one attempt series can take.
fn worst_call(edge: &Edge) -> Option<Duration> {
    edge.timeout
        .map(|t| Duration(t.0.saturating_mul(1 + u64::from(edge.retries))))
}

impl Analyzer for Deadline {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, report: &mut Report) {
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
        for (caller, target, edge) in calls(cx.model) {
            let (Some(timeout), Some((worst, inner_target, inner))) =
                (edge.timeout, longest[target.0])
            else {
                continue;
            };
            if timeout < worst {
                report.findings.push(too_short(
                    cx.model,
                    (caller, target, edge, timeout),
                    (inner_target, inner),
                    worst,
                ));
            }
        }
    }
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
            "system: s\ncomponents:\n  frontend: {depends_on: [{target: checkout, timeout: 5s}]}\n  checkout: {depends_on: [{target: payments, retries: 2, timeout: 2s}]}\n  payments: {}\n",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id, "deadline/frontend>checkout");
        // (1 + 2) × 2s = 6s > 5s
        assert!(
            found[0].message.contains(
                "after 5s, but checkout's call to payments alone can take (1 + 2) × 2s = 6s"
            ),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn a_long_enough_timeout_or_none_at_all_is_silent() {
        let text = "system: s\ncomponents:\n  frontend: {depends_on: [{target: checkout, timeout: 6s}]}\n  checkout: {depends_on: [{target: payments, retries: 2, timeout: 2s}]}\n  payments: {}\n";
        // 6s is not shorter than 6s.
        assert!(findings(text).is_empty());
        // No timeout on the caller's edge: the timeout rule's business.
        assert!(findings(&text.replace(", timeout: 6s", "")).is_empty());
    }
}

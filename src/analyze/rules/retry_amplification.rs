//! `retry-amplification/<a>><b>>…`: a call path whose retries multiply into
//! more worst-case attempts at its last hop than the policy allows.

use std::fmt;
use std::sync::Arc;

use super::call_paths::{self, CallPath, RetryingHops};
use super::wording::number;
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::model::Model;
use crate::model::Rule;

// ---- finding constructors ----

/// `retry-amplification/<path>`: the path's factors against the limit.
#[derive(Debug)]
struct Amplified {
    last: Arc<str>,
    amplification: f64,
    hops: RetryingHops,
    limit: f64,
}

fn amplified(model: &Model, path: &CallPath) -> Finding {
    Finding::new(
        DOC.rule,
        path.id(model),
        Severity::Error,
        path.innermost_retries_span(),
        Amplified {
            last: Arc::from(model.component(path.last()).name.as_str()),
            amplification: path.amplification,
            hops: path.retrying_words(model),
            limit: model.policy.max_retry_amplification,
        },
    )
}

impl Wording for Amplified {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "one failing request can reach {} {} times: {} = {} > {} (policy.max_retry_amplification)",
            self.last,
            number(self.amplification),
            self.hops.factors(),
            number(self.amplification),
            number(self.limit),
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "retry at one layer only (`retries: 0` on the others), or cap the inner hops with `retry_budget: 10%` (a hop then multiplies by at most 1.1), so attempts at {} stay within {}",
            self.last,
            number(self.limit)
        )
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::RetryAmplification,
    id: "retry-amplification/<a>><b>>…",
    severity: "error",
    summary: "Retries along a call path multiply beyond `policy.max_retry_amplification`.",
    checks: "Every call path from an entrypoint, following required and degradable edges (a path is cut where it would revisit a component). Each hop multiplies the attempts by `1 + retries`, or by `1 + min(retries, retry_budget)` when the edge has a budget. When the product at a hop first exceeds `policy.max_retry_amplification` (default 10), the path up to that hop is reported. Paths are walked up to 10,000; the report says when the walk was cut short.",
    why: "When the last hop fails, every layer above it retries the failures of the layers below: three layers with 2 retries each send 3 × 3 × 3 = 27 attempts to the failing component for each user request. The extra load arrives exactly when that component is weakest and keeps it down after the original fault is gone.",
    example: "components:\n  lb:  {depends_on: [{target: api, retries: 2}]}\n  api: {depends_on: [{target: svc, retries: 2}]}\n  svc: {depends_on: [{target: db, retries: 2}]}   # retry-amplification/lb>api>svc>db: 27 > 10\n  db:  {}",
    fix: "Retry at one layer only, usually the one closest to the failing component, and set `retries: 0` elsewhere; or give the inner hops a `retry_budget` (a 10% budget multiplies by at most 1.1). `retry_budget` is the share of calls that may be retried: the client library or the service mesh enforces it.",
};

// ---- the check ----

/// The `retry-amplification` rule.
pub struct RetryAmplification;

impl Analyzer for RetryAmplification {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let paths = cx.call_paths();
        let limit = cx.model.policy.max_retry_amplification;
        for path in &paths.paths {
            // Only the shortest path that crosses the limit: its extensions
            // are the same problem.
            if path.amplification > limit && path.previous_amplification <= limit {
                audit.findings.push(amplified(cx.model, path));
            }
        }
        call_paths::fill(cx.model, cx.state(), paths, audit);
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Audit {
        crate::analyze::check_one(&RetryAmplification, text)
    }

    const THREE_LAYERS: &str = r"system: s
components:
  lb: {depends_on: [{target: api, retries: 2}]}
  api: {depends_on: [{target: svc, retries: 2}]}
  svc: {depends_on: [{target: db, retries: 2}]}
  db: {}
";

    #[test]
    fn three_layers_of_two_retries_give_27() {
        let audit = run(THREE_LAYERS);
        assert_eq!(audit.findings.len(), 1);
        let finding = &audit.findings[0];
        assert_eq!(finding.id().to_string(), "retry-amplification/lb>api>svc>db");
        // 3 × 3 × 3 = 27 > 10
        assert!(
            finding
                .message().to_string()
                .contains("3 (lb>api) × 3 (api>svc) × 3 (svc>db) = 27 > 10"),
            "{}",
            finding.message().to_string()
        );
        // Points at `retries` of svc>db: line 5, after `  svc: {depends_on: [{target: db, ` (34 characters).
        assert_eq!((finding.location.line, finding.location.column), (5, 35));
        // Rows: lb>api>svc>db 27, lb>api>svc 9, lb>api 3.
        let amplifications: Vec<f64> = audit.retries.iter().map(|r| r.amplification).collect();
        assert_eq!(amplifications, [27.0, 9.0, 3.0]);
    }

    #[test]
    fn a_budget_in_the_middle_keeps_it_under_the_limit() {
        let audit = run(&THREE_LAYERS.replace(
            "{target: svc, retries: 2}",
            "{target: svc, retries: 2, retry_budget: 10%}",
        ));
        // 3 × 1.1 × 3 = 9.9 <= 10
        assert!(audit.findings.is_empty());
        assert!((audit.retries[0].amplification - 9.9).abs() < 1e-9);
    }

    #[test]
    fn the_policy_sets_the_limit() {
        let audit = run(&THREE_LAYERS.replace(
            "system: s\n",
            r"system: s
policy: {max_retry_amplification: 8}
",
        ));
        // 9 > 8 already at svc: the path to svc is reported, not its extension.
        let ids: Vec<String> = audit.findings.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["retry-amplification/lb>api>svc"]);
    }
}

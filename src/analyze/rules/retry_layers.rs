//! `retry-layers/<a>><b>>…`: more than one hop on a call path retries.

use std::fmt;
use std::sync::Arc;

use super::call_paths::{self, CallPath, RetryingHops};
use super::wording::{and_list, number};
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::model::Model;
use crate::model::Rule;

// ---- finding constructors ----

/// `retry-layers/<path>`: the retrying hops of the path.
#[derive(Debug)]
struct Layered {
    last: Arc<str>,
    retrying: u32,
    amplification: f64,
    hops: RetryingHops,
}

fn layered(model: &Model, path: &CallPath) -> Finding {
    Finding::new(
        DOC.rule,
        path.id(model),
        Severity::Warning,
        path.innermost_retries_span(),
        Layered {
            last: Arc::from(model.component(path.last()).name.as_str()),
            retrying: path.retrying,
            amplification: path.amplification,
            hops: path.retrying_words(model),
        },
    )
}

impl Wording for Layered {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "{} hops retry on this path: {}; each layer retries the failures of the one below, so {} gets {} = {} attempts per request",
            self.retrying,
            and_list(&self.hops.with_retries()),
            self.last,
            self.hops.factors(),
            number(self.amplification)
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str("retry at one layer only (usually the one closest to the failure) and set `retries: 0` on the others, or give each retrying hop a `retry_budget`")
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::RetryLayers,
    id: "retry-layers/<a>><b>>…",
    severity: "warning",
    summary: "More than one hop on a call path retries.",
    checks: "Every call path from an entrypoint (required and degradable edges, cut where it would revisit a component). When a second hop with `retries` above 0 appears on a path, the path up to that hop is reported, whatever the amplification.",
    why: "Retries at several layers multiply: each layer retries every failure of the layers below it, so the attempts at the bottom are the product of the layers' attempts. Even under the amplification limit, layered retries lengthen the worst-case latency and hide which layer owns the failure.",
    example: "components:\n  api: {depends_on: [{target: svc, retries: 2}]}\n  svc: {depends_on: [{target: db, retries: 1}]}   # retry-layers/api>svc>db: 3 × 2 = 6\n  db:  {}",
    fix: "Pick one layer to retry, usually the one closest to the failing dependency, and set `retries: 0` on the others. Where several layers must retry, give them a `retry_budget` so each multiplies by little more than 1.",
};

// ---- the check ----

/// The `retry-layers` rule.
pub struct RetryLayers;

impl Analyzer for RetryLayers {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let paths = cx.call_paths();
        for path in &paths.paths {
            if path.retrying >= 2 && path.previous_retrying() < 2 {
                audit.findings.push(layered(cx.model, path));
            }
        }
        call_paths::fill(cx.model, cx.state(), paths, audit);
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str) -> Vec<Finding> {
        crate::analyze::check_one(&RetryLayers, text).findings
    }

    #[test]
    fn two_retrying_hops_fire_once_at_the_second() {
        let found = findings(
            r"system: s
components:
  api: {depends_on: [{target: svc, retries: 2}]}
  svc: {depends_on: [{target: db, retries: 1}]}
  db: {depends_on: [{target: disk, retries: 1}]}
  disk: {}
",
        );
        let ids: Vec<String> = found.iter().map(|f| f.id().to_string()).collect();
        // The third layer extends the same problem: one finding.
        assert_eq!(ids, ["retry-layers/api>svc>db"]);
        // (1 + 2) × (1 + 1) = 6 attempts at db
        assert!(
            found[0].message().to_string().contains("3 (api>svc) × 2 (svc>db) = 6"),
            "{}",
            found[0].message().to_string()
        );
    }

    #[test]
    fn one_retrying_hop_is_fine() {
        assert!(
            findings(
                r"system: s
components:
  api: {depends_on: [svc]}
  svc: {depends_on: [{target: db, retries: 3}]}
  db: {}
"
            )
            .is_empty()
        );
    }
}

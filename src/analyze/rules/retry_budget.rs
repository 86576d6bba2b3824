//! `retry-budget/<caller>><target>`: an edge retries without a budget.

use super::call_paths::retries_span;
use super::wording::times;
use std::fmt;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::graph::calls;
use crate::model::{Component, Edge};

// ---- finding constructors ----

/// `retry-budget/<caller>><target>`: the edge and its retries.
#[derive(Debug)]
struct Unbudgeted {
    subject: Subject,
    retries: u32,
}

fn unbudgeted(caller: &Component, target: &Component, edge: &Edge) -> Finding {
    let subject = Subject::edge(&caller.name, &target.name);
    Finding::new(
        DOC.rule,
        subject.clone(),
        Severity::Note,
        retries_span(edge),
        Unbudgeted {
            subject,
            retries: edge.retries,
        },
    )
}

impl Wording for Unbudgeted {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (caller, target) = (self.subject.name(), self.subject.then().unwrap_or(""));
        write!(
            out,
            "{caller} retries {target} up to {} with no `retry_budget`: when {target} fails, every call is retried and this hop multiplies the load on it by {}",
            times(self.retries),
            1 + u64::from(self.retries)
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "add `retry_budget: 10%`: retries then add at most 10% to the calls into {}, a multiplier of 1.1 instead of {}",
            self.subject.then().unwrap_or(""),
            1 + u64::from(self.retries)
        )
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::RetryBudget,
    id: "retry-budget/<caller>><target>",
    severity: "note",
    summary: "An edge retries without a `retry_budget`.",
    checks: "Every edge with `retries` above 0 and no `retry_budget`. An `any_of` or `at_least` edge gives one note per target.",
    why: "A per-call retry count is right for a rare, isolated failure and wrong for a widespread one: when the target is down, every call is retried, and the hop multiplies the load on the target by `1 + retries`. A budget (a share of calls that may be retried, tracked by the client) keeps retries for the rare case and stops them in an outage.",
    example: "components:\n  api: {depends_on: [{target: db, retries: 2, backoff: jittered}]}   # retry-budget/api>db\n  db: {}",
    fix: "Add `retry_budget: 10%` (or what the client enforces): the hop then multiplies by `1 + min(retries, budget)`, 1.1 for 10%.",
};

// ---- the check ----

/// The `retry-budget` rule.
pub struct RetryBudget;

impl Analyzer for RetryBudget {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        for (caller, target, edge) in calls(cx.model) {
            if edge.retries > 0 && edge.retry_budget.is_none() {
                audit.findings.push(unbudgeted(
                    cx.model.component(caller),
                    cx.model.component(target),
                    edge,
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
        crate::analyze::check_one(&RetryBudget, text).findings
    }

    #[test]
    fn retries_without_a_budget_are_noted() {
        let found = findings(
            r"system: s
components:
  api: {depends_on: [{target: db, retries: 2}]}
  db: {}
",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id().to_string(), "retry-budget/api>db");
        assert_eq!(found[0].severity, Severity::Note);
        // 1 + 2 = 3 attempts; "up to twice"; with a 10% budget 1 + 0.1 = 1.1.
        assert_eq!(
            found[0].message().to_string(),
            "api retries db up to twice with no `retry_budget`: when db fails, every call is retried and this hop multiplies the load on it by 3"
        );
        assert_eq!(
            found[0].help().map(|help| help.to_string()).as_deref(),
            Some(
                "add `retry_budget: 10%`: retries then add at most 10% to the calls into db, a multiplier of 1.1 instead of 3"
            )
        );
    }

    #[test]
    fn a_budget_or_no_retries_is_fine() {
        assert!(
            findings(
                r"system: s
components:
  api: {depends_on: [db, {target: c, retries: 1, retry_budget: 10%}]}
  db: {}
  c: {}
"
            )
            .is_empty()
        );
    }
}

//! `retry-jitter/<caller>><target>`: an edge retries without jitter.

use super::wording::times;
use std::fmt;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::graph::calls;
use crate::model::{Backoff, Component, Edge};

// ---- finding constructors ----

/// `retry-jitter/<caller>><target>`: the edge, its retries and backoff.
#[derive(Debug)]
struct Unjittered {
    subject: Subject,
    retries: u32,
    backoff: Backoff,
}

fn unjittered(caller: &Component, target: &Component, edge: &Edge) -> Finding {
    let subject = Subject::edge(&caller.name, &target.name);
    Finding::new(
        DOC.rule,
        subject.clone(),
        Severity::Warning,
        edge.fields
            .get("backoff")
            .or_else(|| edge.fields.get("retries"))
            .unwrap_or(edge.span),
        Unjittered {
            subject,
            retries: edge.retries,
            backoff: edge.backoff,
        },
    )
}

impl Wording for Unjittered {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = match self.backoff {
            Backoff::None => "immediately, with no backoff",
            Backoff::Exponential => "with exponential backoff but no jitter",
            Backoff::Jittered => "with jitter",
        };
        write!(
            out,
            "{} retries {} up to {} {how} (`backoff: {}`): every caller that failed at the same moment retries at the same moment",
            self.subject.name(),
            self.subject.then().unwrap_or(""),
            times(self.retries),
            self.backoff.as_str()
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str("set `backoff: jittered` (exponential backoff with random jitter) so retries spread out instead of arriving in waves")
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::RetryJitter,
    id: "retry-jitter/<caller>><target>",
    severity: "warning",
    summary: "An edge retries with `backoff` other than `jittered`.",
    checks: "Every edge with `retries` above 0 whose `backoff` is `none` (the default) or `exponential`. An `any_of` or `at_least` edge gives one finding per target.",
    why: "A failure hits many callers at the same instant. Without backoff they all retry at once; with plain exponential backoff they still retry in synchronized waves, 1s, 2s, 4s later. Each wave is a load spike on a component that is already struggling. Random jitter spreads the retries over the interval.",
    example: "components:\n  api: {depends_on: [{target: db, retries: 2, backoff: exponential}]}   # retry-jitter/api>db\n  db: {}",
    fix: "Set `backoff: jittered` on the edge, and use exponential backoff with full jitter in the client (most retry libraries and service meshes offer it).",
};

// ---- the check ----

/// The `retry-jitter` rule.
pub struct RetryJitter;

impl Analyzer for RetryJitter {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        for (caller, target, edge) in calls(cx.model) {
            if edge.retries > 0 && edge.backoff != Backoff::Jittered {
                audit.findings.push(unjittered(
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
        crate::analyze::check_one(&RetryJitter, text).findings
    }

    #[test]
    fn retries_without_jitter_fire_per_target() {
        let found = findings(
            r"system: s
components:
  api:
    depends_on:
      - {any_of: [a, b], retries: 2, backoff: exponential}
  a: {}
  b: {}
",
        );
        let ids: Vec<String> = found.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["retry-jitter/api>a", "retry-jitter/api>b"]);
        // Points at `backoff`: line 5, after `      - {any_of: [a, b], retries: 2, ` (37 characters).
        assert_eq!((found[0].location.line, found[0].location.column), (5, 38));
        // Each target gets its own text; the fix is the same for all.
        assert_eq!(
            found[1].message().to_string(),
            "api retries b up to twice with exponential backoff but no jitter (`backoff: exponential`): every caller that failed at the same moment retries at the same moment"
        );
        assert_eq!(
            found[1].help().map(|help| help.to_string()).as_deref(),
            Some(
                "set `backoff: jittered` (exponential backoff with random jitter) so retries spread out instead of arriving in waves"
            )
        );
    }

    #[test]
    fn jittered_or_no_retries_is_fine() {
        assert!(
            findings(
                r"system: s
components:
  api: {depends_on: [db, {target: c, retries: 1, backoff: jittered}]}
  db: {}
  c: {}
"
            )
            .is_empty()
        );
    }
}

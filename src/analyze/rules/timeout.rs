//! `timeout/<caller>><target>`: an edge without a timeout.

use std::fmt;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::graph::calls;
use crate::model::{Component, Edge};

// ---- finding constructors ----

/// `timeout/<caller>><target>`: the edge without a timeout.
#[derive(Debug)]
struct Missing(Subject);

fn missing(caller: &Component, target: &Component, edge: &Edge) -> Finding {
    let subject = Subject::edge(&caller.name, &target.name);
    Finding::new(DOC.rule, subject.clone(), Severity::Note, edge.span, Missing(subject))
}

impl Wording for Missing {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (caller, target) = (self.0.name(), self.0.then().unwrap_or(""));
        write!(
            out,
            "{caller} calls {target} with no `timeout`: a slow {target} holds {caller}'s requests, threads and connections for as long as it hangs"
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "set `timeout:` on the edge to what {} really waits per attempt (e.g. `timeout: 500ms`), so deadlines and worst-case call times can be checked",
            self.0.name()
        )
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Timeout,
    id: "timeout/<caller>><target>",
    severity: "note",
    summary: "An edge has no `timeout`.",
    checks: "Every dependency edge without `timeout`, including the short form `- name`. An `any_of` or `at_least` edge gives one note per target.",
    why: "A call without a timeout waits as long as the target hangs: a slow dependency then exhausts the caller's threads and connections, and a slow failure spreads upwards as an outage. The model also needs the timeout to compute worst-case call times and to check deadlines.",
    example: "components:\n  web: {depends_on: [db]}   # timeout/web>db\n  db: {}",
    fix: "Write the per-attempt timeout the caller uses: `- {target: db, timeout: 300ms}`. If the client has none, configure one first.",
};

// ---- the check ----

/// The `timeout` rule.
pub struct Timeout;

impl Analyzer for Timeout {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        for (caller, target, edge) in calls(cx.model) {
            if edge.timeout.is_none() {
                audit.findings.push(missing(
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
        crate::analyze::check_one(&Timeout, text).findings
    }

    #[test]
    fn every_call_without_a_timeout_is_noted() {
        let found = findings(
            r"system: s
components:
  web: {depends_on: [db, {any_of: [a, b]}, {target: c, timeout: 1s}]}
  db: {}
  a: {}
  b: {}
  c: {}
",
        );
        let ids: Vec<String> = found.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["timeout/web>db", "timeout/web>a", "timeout/web>b"]);
        // The short form points at the name: line 3, column 22.
        assert_eq!((found[0].location.line, found[0].location.column), (3, 22));
    }
}

//! `timeout/<caller>><target>`: an edge without a timeout, a timeout below
//! the target's p99, or a connect timeout not shorter than the read one.

use std::fmt;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::graph::calls;
use crate::model::{Component, Duration, Edge, Percentile};

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

/// `timeout/<caller>><target>`: a timeout below the target's p99.
#[derive(Debug)]
struct Tight {
    edge: Subject,
    timeout: Duration,
    p99: Duration,
    retries: u32,
}

fn tight(caller: &Component, target: &Component, edge: &Edge, (timeout, p99): (Duration, Duration)) -> Finding {
    let subject = Subject::edge(&caller.name, &target.name);
    Finding::new(
        DOC.rule,
        subject.clone(),
        Severity::Warning,
        edge.fields.get("timeout").unwrap_or(edge.span),
        Tight {
            edge: subject,
            timeout,
            p99,
            retries: edge.retries,
        },
    )
}

impl Wording for Tight {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (caller, target) = (self.edge.name(), self.edge.then().unwrap_or(""));
        write!(
            out,
            "{caller} gives up on {target} after {}, below {target}'s p99 of {}: more than 1% of {target}'s answers come after {caller} stopped waiting, so slow successes become errors",
            self.timeout, self.p99
        )?;
        if self.retries > 0 {
            write!(
                out,
                " and each is tried again (retries: {}), adding load exactly when {target} is slow",
                self.retries
            )?;
        }
        Ok(())
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "set the timeout above the p99 ({}) with room, or hedge the slow tail (`hedge: {{after: p95, max: 5%}}`) instead of cutting it",
            self.p99
        )
    }
}

/// `timeout/<caller>><target>`: a connect timeout at least the read one.
#[derive(Debug)]
struct Connect {
    edge: Subject,
    connecting: Duration,
    timeout: Duration,
}

fn connect(caller: &Component, target: &Component, edge: &Edge, (connect, timeout): (Duration, Duration)) -> Finding {
    let subject = Subject::edge(&caller.name, &target.name);
    Finding::new(
        DOC.rule,
        subject.clone(),
        Severity::Note,
        edge.fields.get("connect_timeout").unwrap_or(edge.span),
        Connect {
            edge: subject,
            connecting: connect,
            timeout,
        },
    )
}

impl Wording for Connect {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (caller, target) = (self.edge.name(), self.edge.then().unwrap_or(""));
        write!(
            out,
            "{caller} waits {} to connect to {target} and {} for its answer: a connection that is never accepted (a host gone, a black-holed address) holds the call at least as long as a slow answer, and one attempt can take {} + {}",
            self.connecting, self.timeout, self.connecting, self.timeout
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "set `connect_timeout` to a few round trips (100ms to 1s), well below the read `timeout` ({}): connecting takes no work from {}",
            self.timeout,
            self.edge.then().unwrap_or("")
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
    // The checks of latency (docs/slow.md) are told here, so that the
    // summary, checks and fix that SARIF carries for models without
    // latency stay as they were.
    why: "A call without a timeout waits as long as the target hangs: a slow dependency then exhausts the caller's threads and connections, and a slow failure spreads upwards as an outage. The model also needs the timeout to compute worst-case call times and to check deadlines. Where the target gives its `latency`, a `timeout` below the target's p99 is a warning under the same id: it turns the slowest answers into errors, retried with `retries`, adding load when the target is slowest. Where an edge gives a `connect_timeout` at least as long as its `timeout`, a note: connecting takes the target no work, and a connect timeout as long as the read one waits out a dead host for the whole budget (set it to a few round trips).",
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
            let (caller, target) = (cx.model.component(caller), cx.model.component(target));
            let Some(timeout) = edge.timeout else {
                audit.findings.push(missing(caller, target, edge));
                continue;
            };
            let p99 = target.latency.as_ref().and_then(|l| l.at(Percentile::P99));
            if let Some(p99) = p99.filter(|p99| timeout < *p99) {
                audit.findings.push(tight(caller, target, edge, (timeout, p99)));
            } else if let Some(c) = edge
                .limits
                .as_ref()
                .and_then(|l| l.connect_timeout)
                .filter(|c| *c >= timeout)
            {
                audit.findings.push(connect(caller, target, edge, (c, timeout)));
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

    #[test]
    fn a_timeout_below_the_targets_p99_and_a_long_connect_timeout_fire() {
        let found = findings(
            r"system: s
components:
  web: {depends_on: [{target: db, timeout: 100ms, retries: 2}, {target: auth, timeout: 300ms, connect_timeout: 1s}, {target: cache, timeout: 50ms, connect_timeout: 20ms}]}
  db: {latency: {p50: 20ms, p99: 120ms}}
  auth: {latency: {p99: 100ms}}
  cache: {latency: {p99: 5ms}}
",
        );
        let ids: Vec<String> = found.iter().map(|f| f.id().to_string()).collect();
        assert_eq!(ids, ["timeout/web>db", "timeout/web>auth"]);
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(
            found[0]
                .message()
                .to_string()
                .contains("after 100ms, below db's p99 of 120ms")
        );
        assert_eq!(found[1].severity, Severity::Note);
        assert!(found[1].message().to_string().contains("one attempt can take 1s + 300ms"));
    }
}

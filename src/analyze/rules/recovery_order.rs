//! `recovery-order/<a>+<b>+…`: a cycle of required edges, which leaves no
//! order in which to start the system after a full outage.

use super::cold_start::fill_start_order;
use super::wording::{and_list, or_list};
use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use crate::analyze::results::Audit;
use crate::engine::start_order::Cycle;
use crate::model::Model;
use crate::model::Rule;

// ---- finding constructors ----

/// `recovery-order/<a+b+…>`: the members of a cycle of required edges and
/// its edges.
#[derive(Debug)]
struct Cyclic {
    members: Vec<Arc<str>>,
    /// The edges, `caller>target`.
    edges: Vec<Subject>,
}

fn cyclic(model: &Model, cycle: &Cycle) -> Finding {
    let name = |c: crate::model::ComponentId| Arc::<str>::from(model.component(c).name.as_str());
    let members: Vec<Arc<str>> = cycle.members.iter().map(|&c| name(c)).collect();
    let edges = cycle
        .edges
        .iter()
        .map(|&(from, to, _)| {
            Subject::edge(&model.component(from).name, &model.component(to).name)
        })
        .collect();
    let span = cycle
        .edges
        .first()
        .map_or(model.component(cycle.members[0]).span, |&(_, _, e)| e.span);
    // The id names every member: joined here, once per cycle.
    let subject = members.join("+");
    Finding::new(
        DOC.rule,
        subject,
        Severity::Error,
        span,
        Cyclic { members, edges },
    )
}

impl Cyclic {
    fn edge_names(&self) -> Vec<String> {
        self.edges.iter().map(ToString::to_string).collect()
    }
}

impl Wording for Cyclic {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let edges = self.edge_names();
        write!(out, "{} are required edges that form a cycle", and_list(&edges))?;
        if edges.len() < self.members.len() {
            write!(out, "; it is one of the cycles among {}", and_list(&self.members))?;
        }
        write!(
            out,
            ": after a full outage none of {} can start first, so there is no start order",
            and_list(&self.members),
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "make one of {} degradable (`degradable: true`, with a cache, a default or a retry loop at startup), so the cycle has a first component to start",
            or_list(&self.edge_names())
        )
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::RecoveryOrder,
    id: "recovery-order/<a>+<b>+…",
    severity: "error",
    summary: "A cycle of required edges: no valid cold-start order.",
    checks: "Drops degradable edges and looks for cycles among the required ones (strongly connected groups of components). Each group is one finding, its members sorted by name in the id; the message names one cycle of edges through the group's first member. The report's `cold_start.waves` gives the start order of the rest.",
    why: "After a full outage (a region power loss, a bad global config push), every component restarts at once. A component that cannot start without another that cannot start without it never comes up: the system is stuck until someone breaks the cycle by hand, under pressure. Cycles creep in as services grow (an auth service that logs to a service that checks auth).",
    example: "components:\n  auth:  {depends_on: [audit]}\n  audit: {depends_on: [auth]}   # recovery-order/audit+auth",
    fix: "Make one edge of the cycle degradable: the caller starts without the dependency (a cached copy, a default, retrying in the background) and writes `degradable: true`. Which edge is the design question; the message lists the candidates.",
};

// ---- the check ----

/// The `recovery-order` rule.
pub struct RecoveryOrder;

impl Analyzer for RecoveryOrder {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let order = cx.start_order();
        for cycle in &order.cycles {
            audit.findings.push(cyclic(cx.model, cycle));
        }
        fill_start_order(cx.model, order, audit);
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Audit {
        crate::analyze::check_one(&RecoveryOrder, text)
    }

    const CYCLE: &str = r"system: s
entrypoints: [web]
components:
  web: {depends_on: [auth]}
  auth: {depends_on: [audit]}
  audit: {depends_on: [auth]}
";

    #[test]
    fn a_cycle_of_required_edges_has_no_order() {
        let audit = run(CYCLE);
        assert_eq!(audit.findings.len(), 1);
        let finding = &audit.findings[0];
        assert_eq!(finding.id().to_string(), "recovery-order/audit+auth");
        assert!(
            finding
                .message().to_string()
                .starts_with("audit>auth and auth>audit are required edges that form a cycle"),
            "{}",
            finding.message().to_string()
        );
        assert_eq!(audit.cold_start.cycles, [vec!["audit", "auth"]]);
        assert_eq!(
            audit.cold_start.waves,
            [vec!["audit", "auth"], vec!["web"]]
        );
    }

    #[test]
    fn a_degradable_edge_breaks_the_cycle() {
        let audit = run(&CYCLE.replace(
            "audit: {depends_on: [auth]}",
            "audit: {depends_on: [{target: auth, degradable: true}]}",
        ));
        assert!(audit.findings.is_empty());
        assert_eq!(
            audit.cold_start.waves,
            [vec!["audit"], vec!["auth"], vec!["web"]]
        );
    }
}

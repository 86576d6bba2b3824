//! `dr-path/<caller>><standby>`: a standby edge switches over to its
//! standby sooner than what the standby needs can recover. When the
//! gateway fails over to the DR region in 20 minutes but the DR database
//! takes detect 5m + decide 15m + failover 10m = 30m to be promoted, the DR
//! API serves nothing for the 10 minutes between, and the availability
//! figure (which counts the 20m switchover) is too kind.

use std::fmt;
use std::sync::Arc;

use super::disaster_recovery::{self, Rto};
use super::{Analyzer, Context, Finding, RuleDoc, Severity, Subject, Wording};
use crate::analyze::results::Audit;
use crate::analyze::wording::capped_list;
use crate::engine::outage::LISTED;
use crate::engine::switchover;
use crate::model::{ComponentId, Duration, Edge, Model, Rule};

// ---- finding constructors ----

/// A component the standby side needs, and how long its recovery takes.
#[derive(Debug)]
struct Slow {
    name: Arc<str>,
    rto: Rto,
}

/// `dr-path/<caller>><standby>`: the switchover against the slowest
/// recovery behind the standby.
#[derive(Debug)]
struct Unready {
    caller: Arc<str>,
    standby: Arc<str>,
    switchover: Duration,
    /// Slowest first.
    slow: Vec<Slow>,
}

fn unready(caller: &str, standby: &str, edge: &Edge, switchover: Duration, slow: Vec<Slow>) -> Finding {
    Finding::new(
        DOC.rule,
        Subject::edge(caller, standby),
        Severity::Warning,
        edge.fields.get("switchover").unwrap_or(edge.span),
        Unready {
            caller: Arc::from(caller),
            standby: Arc::from(standby),
            switchover,
            slow,
        },
    )
}

impl Wording for Unready {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(slowest) = self.slow.first() else {
            return Ok(());
        };
        let total = slowest.rto.total();
        write!(
            out,
            "{} switches over to {} in {}, but {} needs {}, whose recovery takes {}: for {} after the switchover {} has no {} to serve from",
            self.caller,
            self.standby,
            self.switchover,
            self.standby,
            slowest.name,
            slowest.rto.working(),
            Duration(total.0.saturating_sub(self.switchover.0)),
            self.standby,
            slowest.name,
        )?;
        if self.slow.len() > 1 {
            let others: Vec<String> = self.slow[1..]
                .iter()
                .map(|s| format!("{} ({})", s.name, s.rto.total()))
                .collect();
            write!(
                out,
                "; also slower than the switchover: {}",
                capped_list(&others, others.len(), LISTED)
            )?;
        }
        Ok(())
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(slowest) = self.slow.first() else {
            return Ok(());
        };
        write!(
            out,
            "write the switchover the standby side really needs (`switchover: {}` on the edge, so that the availability figure counts it), or recover {} faster: ",
            slowest.rto.total(),
            slowest.name
        )?;
        if slowest.rto.decide.0 > 0 {
            write!(
                out,
                "promote it as part of the switchover instead of deciding apart (`decide: 0s`), and alert on the symptom"
            )
        } else {
            write!(
                out,
                "alert faster (detect {}) and rehearse and speed up its failover ({})",
                slowest.rto.detect, slowest.rto.action_time
            )
        }
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::DrPath,
    id: "dr-path/<caller>><standby>",
    severity: "warning",
    summary: "A standby edge switches over sooner than what the standby needs can recover.",
    checks: "For every standby edge (an `any_of` or `at_least` with a `switchover`, or one whose active alternative fails over to another through `failover_to`, docs/availability.md): each standby alternative, and what it needs through required edges that the active side does not also need. Each of those with a `recovery` that fails over (a standby exists and a `failover` time is given) recovers in `detect + decide + failover`; when that is longer than the edge's switchover, the standby takes the traffic before it can serve it. One finding per standby, naming the slowest and listing the others.",
    why: "A DR region is only as ready as its slowest part. The switchover of the front door is easy to measure and often automated; the promotion of the DR database waits for someone to notice and decide. For the minutes between, the standby answers with errors, and the availability figure, which counts the switchover, promises more than the design delivers.",
    example: "components:\n  gateway: {depends_on: [{any_of: [api, api-dr], switchover: 20m}]}\n  api: {depends_on: [db]}\n  api-dr: {depends_on: [db-dr]}\n  db: {}\n  db-dr:\n    recovery: {replication: async, replication_lag: 30s,\n               detect: 5m, decide: 15m, failover: 10m}   # dr-path/gateway>api-dr: 30m > 20m",
    fix: "Write the switchover the standby side needs (the slowest recovery behind it), so the availability figure is honest; or make the standby side ready as fast as the switchover: promote the DR database as part of the switchover (`decide: 0s`), alert on the symptom, rehearse the failover.",
};

// ---- the check ----

/// Components `from` needs through required edges (every target of an
/// `any_of` or `at_least` counts), `from` included, in id order.
fn needs(model: &Model, from: &[ComponentId]) -> Vec<bool> {
    let mut seen = vec![false; model.components.len()];
    let mut stack: Vec<ComponentId> = from.to_vec();
    while let Some(c) = stack.pop() {
        if std::mem::replace(&mut seen[c.0], true) {
            continue;
        }
        for edge in model.component(c).depends_on.iter().filter(|e| !e.degradable) {
            stack.extend(edge.targets.iter().copied().filter(|t| !seen[t.0]));
        }
    }
    seen
}

/// The components behind `standby` (not also behind the active side) whose
/// recovery fails over more slowly than `limit`, slowest first.
fn slower_than(model: &Model, standby: ComponentId, active: &[bool], limit: Duration) -> Vec<Slow> {
    let behind = needs(model, &[standby]);
    let mut slow: Vec<Slow> = model
        .component_ids()
        .filter(|c| behind[c.0] && !active[c.0])
        .filter_map(|c| {
            let component = model.component(c);
            let recovery = component.recovery.as_ref()?;
            let rto = disaster_recovery::rto(recovery)?;
            (rto.action == "failover" && rto.total() > limit).then(|| Slow {
                name: Arc::from(component.name.as_str()),
                rto,
            })
        })
        .collect();
    slow.sort_by(|a, b| b.rto.total().cmp(&a.rto.total()).then(a.name.cmp(&b.name)));
    slow
}

/// The `dr-path` rule.
pub struct DrPath;

impl Analyzer for DrPath {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        let model = cx.model;
        for caller in model.component_ids() {
            for edge in &model.component(caller).depends_on {
                let Some(limit) = switchover::duration(model, edge) else {
                    continue;
                };
                let split = usize::try_from(edge.at_least)
                    .unwrap_or(usize::MAX)
                    .min(edge.targets.len());
                let (active, standbys) = edge.targets.split_at(split);
                let active = needs(model, active);
                for &standby in standbys {
                    let slow = slower_than(model, standby, &active, limit);
                    if !slow.is_empty() {
                        audit.findings.push(unready(
                            &model.component(caller).name,
                            &model.component(standby).name,
                            edge,
                            limit,
                            slow,
                        ));
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
        crate::analyze::check_one(&DrPath, text).findings
    }

    const PAYMENTS: &str = r"system: payments
components:
  gateway: {depends_on: [{any_of: [api, api-dr], switchover: SWITCH}]}
  api: {depends_on: [ledger-db, dns]}
  api-dr: {depends_on: [ledger-db-dr, dns]}
  ledger-db: {}
  dns: {recovery: {replication: sync, detect: 1h, failover: 1h}}
  ledger-db-dr:
    recovery: {replication: async, replication_lag: 30s, detect: 5m, decide: 15m, failover: 10m}
";

    #[test]
    fn a_switchover_shorter_than_the_dr_database_recovery() {
        let found = findings(&PAYMENTS.replace("SWITCH", "20m"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].id().to_string(), "dr-path/gateway>api-dr");
        // ledger-db-dr: 5m + 15m + 10m = 30m > 20m, 10m uncovered. dns is
        // needed by both sides: it does not switch, so it is not counted.
        assert_eq!(
            found[0].message().to_string(),
            "gateway switches over to api-dr in 20m, but api-dr needs ledger-db-dr, whose recovery takes detect 5m + decide 15m + failover 10m = 30m: for 10m after the switchover api-dr has no ledger-db-dr to serve from"
        );
        assert!(
            found[0]
                .help()
                .unwrap()
                .to_string()
                .starts_with("write the switchover the standby side really needs (`switchover: 30m` on the edge"),
        );
        // A 30m switchover covers it.
        assert!(findings(&PAYMENTS.replace("SWITCH", "30m")).is_empty());
    }
}

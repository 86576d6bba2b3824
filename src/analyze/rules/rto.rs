//! `rto/<component>`: the worst-case recovery time exceeds the `rto` target.

use super::disaster_recovery::{self, Rto};
use std::fmt;
use std::sync::Arc;

use super::{Analyzer, Context, Finding, RuleDoc, Severity, Wording};
use crate::analyze::results::Audit;
use crate::model::Rule;
use crate::model::{Component, Duration, Recovery};

// ---- finding constructors ----

/// `rto/<component>`: the worst-case recovery against the target.
#[derive(Debug)]
struct OverTarget {
    component: Arc<str>,
    rto: Rto,
    target: Duration,
    /// The standby's replication, when the recovery fails over.
    replication: &'static str,
}

fn over_target(component: &Component, recovery: &Recovery, rto: Rto, target: Duration) -> Finding {
    let name: Arc<str> = Arc::from(component.name.as_str());
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        Severity::Error,
        recovery.fields.get("rto").unwrap_or(recovery.span),
        OverTarget {
            component: name,
            rto,
            target,
            replication: recovery.replication.as_str(),
        },
    )
}

/// `rto/<component>`: the recovery is a restore, and there is no backup
/// to restore from.
#[derive(Debug)]
struct NoBackup {
    component: Arc<str>,
    rto: Rto,
    target: Option<Duration>,
}

fn no_backup(component: &Component, recovery: &Recovery, rto: Rto) -> Finding {
    let name: Arc<str> = Arc::from(component.name.as_str());
    let severity = if recovery.rto.is_some() {
        Severity::Error
    } else {
        Severity::Warning
    };
    Finding::new(
        DOC.rule,
        Arc::clone(&name),
        severity,
        recovery
            .fields
            .get("restore")
            .or(recovery.fields.get("rto"))
            .unwrap_or(recovery.span),
        NoBackup {
            component: name,
            rto,
            target: recovery.rto,
        },
    )
}

impl Wording for NoBackup {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "the recovery of {} is a restore ({}), but it has no backup to restore from (no `backup_interval`): there is no recovery time",
            self.component,
            self.rto.working()
        )?;
        match self.target {
            Some(target) => write!(out, ", and rto {target} cannot be met"),
            None => Ok(()),
        }
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str("take backups (`backup_interval`) and measure the restore from one, or add a standby to fail over to (`replication: async` or `sync`, with a `failover` time)")
    }
}

impl Wording for OverTarget {
    fn message(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rto = self.rto;
        if rto.action == "failover" {
            write!(out, "a standby exists ({} replication)", self.replication)?;
        } else {
            out.write_str("no standby")?;
        }
        write!(
            out,
            ", so worst-case recovery of {} = {} > rto {} ({} over); {}",
            self.component,
            rto.working(),
            self.target,
            Duration(rto.total().0 - self.target.0),
            rto.share_words()
        )
    }

    fn help(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rto.action == "failover" && self.rto.decide.0 == 0 {
            return write!(
                out,
                "the decision is already automatic: alert faster on the symptom (detect {}) and rehearse and speed up the failover ({}), or agree a longer rto",
                self.rto.detect, self.rto.action_time
            );
        }
        out.write_str(if self.rto.action == "failover" {
            "automate the decision (`decide: 0s` with automatic failover) and alert faster: detecting and deciding are usually the largest and cheapest part to cut"
        } else {
            "add a standby to fail over to (`replication: async` or `sync`, with a `failover` time), or cut detection and decision time; a restore from backup rarely fits a short target"
        })
    }
}

// ---- documentation ----

static DOC: RuleDoc = RuleDoc {
    rule: Rule::Rto,
    id: "rto/<component>",
    severity: "error",
    summary: "The worst-case recovery time exceeds the `rto` target.",
    checks: "For every component with `recovery` and an `rto` target: the worst-case recovery time is `detect + decide + failover` when a standby exists (`replication: async` or `sync`), else `detect + decide + restore` (a missing `detect` or `decide` counts as 0; without the failover or restore time there is no figure). Above the target is an error; the message gives the share of the time spent detecting and deciding. A recovery that is a restore needs the backup it restores from: without `backup_interval` there is no recovery time at all (an error with an `rto` target, else a warning), and the disaster-recovery table says `no backup`.",
    why: "The RTO is the promise of how long the data can be unavailable after a disaster. The restore or failover itself is often the small part: the minutes before anyone notices and the half hour before someone dares to decide are what break the promise, and they are the cheapest to cut.",
    example: "components:\n  db:\n    recovery: {rto: 1h, rpo: 6h, backup_interval: 6h,\n               detect: 5m, decide: 15m, restore: 45m}   # rto/db: 65m > 1h",
    fix: "Cut detection (alerts on the symptom, not the cause) and decision (a pre-approved runbook, or automatic failover with `decide: 0s`); add a standby so recovery is a failover, not a restore; or agree a longer target.",
};

// ---- the check ----

/// The `rto` rule.
pub struct RecoveryTime;

impl Analyzer for RecoveryTime {
    fn doc(&self) -> &'static RuleDoc {
        &DOC
    }

    fn check(&self, cx: &Context, audit: &mut Audit) {
        for component in &cx.model.components {
            let Some(recovery) = &component.recovery else {
                continue;
            };
            if disaster_recovery::restores_from_nothing(recovery) {
                if let Some(rto) = disaster_recovery::rto(recovery) {
                    audit.findings.push(no_backup(component, recovery, rto));
                }
                continue;
            }
            if let (Some(rto), Some(target)) = (disaster_recovery::rto(recovery), recovery.rto)
                && rto.total() > target
            {
                audit
                    .findings
                    .push(over_target(component, recovery, rto, target));
            }
        }
        disaster_recovery::fill(cx.model, audit);
    }
}

// ---- tests ----

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Audit {
        crate::analyze::check_one(&RecoveryTime, text)
    }

    #[test]
    fn a_restore_that_takes_65_minutes_misses_60() {
        let audit = run(r"system: s
components:
  db:
    recovery: {rto: 1h, backup_interval: 6h, detect: 5m, decide: 15m, restore: 45m}
");
        assert_eq!(audit.findings.len(), 1);
        // 5m + 15m + 45m = 65m = 1h5m; 5m over; (5 + 15) / 65 = 30.8%
        assert_eq!(
            audit.findings[0].message().to_string(),
            "no standby, so worst-case recovery of db = detect 5m + decide 15m + restore 45m = 1h5m > rto 1h (5m over); detecting and deciding are 20m of 1h5m (30.8%)"
        );
        assert_eq!(audit.recovery[0].rto_margin_s, Some(-300.0));
    }

    #[test]
    fn an_automatic_sync_failover_is_fast() {
        let audit = run(r"system: s
components:
  db:
    recovery: {rto: 5m, replication: sync, detect: 30s, decide: 0s, failover: 30s, restore: 2h}
");
        // 30s + 0s + 30s = 1m <= 5m: the restore time does not count
        assert!(audit.findings.is_empty());
        assert_eq!(audit.recovery[0].worst_rto_s, Some(60.0));
    }

    #[test]
    fn a_restore_without_a_backup_has_no_recovery_time() {
        let audit = run(r"system: s
components:
  db:
    recovery: {rto: 1h, rpo: 1h, detect: 5m, decide: 15m, restore: 25m}
");
        // 5m + 15m + 25m = 45m <= 1h, but there is nothing to restore.
        assert_eq!(audit.findings.len(), 1);
        assert_eq!(audit.findings[0].severity, Severity::Error);
        assert_eq!(
            audit.findings[0].message().to_string(),
            "the recovery of db is a restore (detect 5m + decide 15m + restore 25m = 45m), but it has no backup to restore from (no `backup_interval`): there is no recovery time, and rto 1h cannot be met"
        );
        assert_eq!(audit.recovery[0].worst_rto_s, None);
    }

    #[test]
    fn an_automatic_decision_is_not_advised_again() {
        let audit = run(r"system: s
components:
  db:
    recovery: {rto: 1m, replication: sync, detect: 1m, decide: 0s, failover: 1m}
");
        // 1m + 0s + 1m = 2m > 1m; decide is already 0s.
        let help = audit.findings[0].help().unwrap().to_string();
        assert!(!help.contains("`decide: 0s`"), "{help}");
        assert!(help.starts_with("the decision is already automatic"), "{help}");
    }
}
